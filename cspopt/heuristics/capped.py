"""Sequential single-cell MIPs against an attacker whose moves are capped at the requirement.

For each sensitive cell ``k`` in turn, the cheapest pattern that protects ``k`` alone is
found by Fischetti & Salazar-Gonzalez's (2001) compact model restricted to ``k``'s two
deviation vectors, with every move capped at ``k``'s requirement ``r_k``:

    x^{u,k}_k >= upl_k,   x^{l,k}_k <= -lpl_k,   A x = 0,
    -min(a_i - lb_i, r_k) y_i <= x_i <= min(ub_i - a_i, r_k) y_i,

the cells suppressed for earlier cells already at ``y_i = 1`` (so free). The cap makes the
attacker weaker: on networks it loses nothing (flow decomposition,
:attr:`~cspopt.models.interval.IntervalInstance.room_cap`), elsewhere a circuit through
``k`` may move another cell further (a 3-D table's layer total by ``2 r_k``), so a pattern
that protects ``k`` against it protects ``k`` against the table's attacker too, and the
union over the cells protects every one. What the cap buys is a tight LP: with a-priori
rooms thousands of times the requirements the uncapped model's LP is worthless, while the
capped one is the single-commodity flow-cover strengthening, and HiGHS solves a cell's MIP
in seconds.

The order of the cells matters as in every sequential method (tau-ARGUS' modular approach,
Smith et al. 2012's incremental attacker); the union is cleaned by the caller
(delete-and-check, Almeida, Schütz & Carvalho 2008 §5).

Complexity: one MIP per sensitive cell, each over the candidates and two deviation vectors
of the free cells, capped at ``cell_seconds``.

References
----------
M. Fischetti and J. J. Salazar-Gonzalez, "Solving the cell suppression problem on tabular
data with linear constraints", Management Science 47 (2001) 1008-1027.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np

from cspopt.backends.highs import run_highs
from cspopt.budget import Budget
from cspopt.errors import SolverError
from cspopt.heuristics.cell_arcs import PathsOutcome
from cspopt.models.interval import IntervalInstance
from cspopt.models.interval.compact import build_fs_matrix

__all__ = ["capped_sequential", "CELL_SECONDS"]

log = logging.getLogger(__name__)

#: the longest one cell's MIP may run
CELL_SECONDS = 60.0


def capped_sequential(inst: IntervalInstance, *, budget: Budget | None = None,
                      cell_seconds: float = CELL_SECONDS, order=None) -> PathsOutcome:
    """The union of the capped single-cell MIPs' patterns, cell by cell in ``order``
    (positions in ``inst.protected``; default as listed).

    Returns a :class:`~cspopt.heuristics.cell_arcs.PathsOutcome` over ``inst.candidates``.
    A cell whose MIP finds no pattern in its time, or that the ``budget``'s end leaves
    unvisited, is left to the caller (``stopped`` says the budget expired); every pattern
    returned protects the cells visited.
    """
    ny = inst.candidates.size
    # what every minimal pattern suppresses (a sensitive cell's deviation class), which a
    # cell's own instance no longer forces for the other cells
    y = np.asarray(inst.candidate_bounds()[0], dtype=float).copy()
    outcome = PathsOutcome(suppressed=y)
    order = np.arange(inst.protected.size) if order is None else np.asarray(order)
    for k in order.tolist():
        left = cell_seconds if budget is None else min(cell_seconds, budget.remaining())
        if left <= 0:
            outcome.stopped = True
            break
        alone = replace(inst.keep(np.arange(inst.protected.size) == k), moves_capped=True)
        program = build_fs_matrix(alone)
        col_lower = program.col_lower.copy()
        col_lower[:ny] = np.maximum(col_lower[:ny], y)  # suppressed already: free
        program = program.with_col_lower(col_lower)
        try:
            found = run_highs(program, relax=False, time_limit=left)
        except SolverError as exc:  # a heuristic steps aside: the cell is left to the caller
            log.warning("capped MIP of cell %d: %s", int(inst.protected[k]), exc)
            continue
        outcome.num_paths += 1
        if found.has_solution:
            y = np.maximum(y, (np.asarray(found.x[:ny]) > 0.5).astype(float))
        else:
            log.info("capped MIP of cell %d: no pattern (%s)", int(inst.protected[k]),
                     found.termination)
    outcome.suppressed = y
    return outcome

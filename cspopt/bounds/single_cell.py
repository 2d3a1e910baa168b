"""A lower bound from one sensitive cell: the exact protection of that cell alone.

Every pattern protects each sensitive cell, so the cheapest pattern that protects one cell
``k`` alone -- Fischetti & Salazar-Gonzalez's (2001) compact model with ``k``'s two
deviation vectors only -- bounds the optimum from below, and so does that MIP's dual bound
wherever its solver stops. In Lagrangian terms it drops the other cells' linking constraints
(multipliers zero; Almeida & Carvalho 2005 §3.2 split (P) by sensitive cell the same way).

The bound is weak where many cells share a pattern's cost and strong where one cell's
protection is most of it: a sensitive grand total of a GenSup class II table (Kelly, Golden &
Assad 1992's rules: 15 % of the total each way) needs an internal flow of that size through
cells worth at most 1,000. There the capacity LP and SCIP's tree stall while HiGHS proves the
grand total's own optimum in seconds: its flow-cover and MIR cuts on the single commodity are
what capacity rows lack.

:func:`dominant_cell` tells from the capacity LP whether one cell carries most of the bound,
:func:`single_cell_bound` solves that cell's MIP. On 2-D tables
:func:`~cspopt.bounds.star_cuts.star_bound` bounds the same cell in milliseconds from the
cuts its pattern draws around it, often above what the MIP proves in minutes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from cspopt.backends.highs import run_highs
from cspopt.errors import InvalidCellError, SolverError
from cspopt.models.interval import CapacityCut, IntervalInstance, capacity_master
from cspopt.models.interval.compact import build_fs_matrix, y_start

log = logging.getLogger(__name__)

__all__ = ["SingleCellBound", "dominant_cell", "single_cell_bound", "quiet_single_cell_bound",
           "DOMINANT_SHARE",
           "KNAPSACK_COEFFICIENT", "SINGLE_CELL_SECONDS"]

#: a cell is dominant when its cuts carry at least this share of the capacity LP's value
DOMINANT_SHARE = 0.9
#: and its binding cuts' median coefficient (capacity over requirement) is below this
KNAPSACK_COEFFICIENT = 0.1
#: the time a single cell's MIP gets from a caller that set no time limit (a large grand
#: total's is not solved in minutes; its bound keeps rising)
SINGLE_CELL_SECONDS = 300.0


@dataclass(frozen=True)
class SingleCellBound:
    """The outcome of :func:`single_cell_bound`: a valid ``lower_bound`` on every pattern's
    cost, the solver's ``termination`` (``"optimal"`` when it is the cell's own optimum), and
    the best ``y`` over the instance's candidates that protects ``cell`` (``None`` if none
    was found; it need not protect the other cells)."""

    cell: int
    lower_bound: float
    termination: str
    pattern: np.ndarray | None


def dominant_cell(inst: IntervalInstance, cuts: list[CapacityCut]) -> int | None:
    """The sensitive cell whose own MIP is worth solving for a bound, or ``None``.

    From the LP over ``cuts`` (``min w y`` over them, the deviation-class rows and the
    bounds on ``y``): the cell's cuts must carry at least :data:`DOMINANT_SHARE` of its value
    (``sum dual_c * rhs_c`` over the cell's cuts ``c``; with the others' duals set to 0 they
    stay dual feasible, every coefficient being nonnegative, so the LP over the cell's cuts
    alone is worth at least that share), and its binding cuts must be knapsacks, not covers:
    a median coefficient below :data:`KNAPSACK_COEFFICIENT`, i.e. the requirement needs the
    capacity of many cells. Then the LP's weakness is that cell's integrality, which the
    capacity rows and SCIP's tree do not see and the cell's own MIP does (class II grand
    totals: median coefficients near 0.001, shares near 1). Where the cell's cuts are covers
    (coefficients near 1) or share the bound with others' the tree proves the table sooner.
    One LP solve over the cuts; bridgeless cuts (right-hand side 0) carry no share.
    """
    cuts = [c for c in cuts if c.rhs > 0]
    if not cuts:
        return None
    lp = capacity_master(inst, cuts)
    lp.run()
    value = lp.getInfo().objective_function_value
    if not value > 0:
        return None
    rhs = np.array([c.rhs for c in cuts])
    duals = np.maximum(np.asarray(lp.getSolution().row_dual)[-len(cuts):], 0.0)
    cells = np.array([c.cell for c in cuts])
    ids, position = np.unique(cells, return_inverse=True)
    share = np.bincount(position, weights=duals * rhs) / value
    best = int(np.argmax(share))
    if share[best] < DOMINANT_SHARE:
        return None
    binding = [c.coefficients for c, d, p in zip(cuts, duals, position) if p == best and d > 0]
    if np.median(np.concatenate(binding)) >= KNAPSACK_COEFFICIENT:  # cuts have rhs 1
        return None
    return int(ids[best])


def single_cell_bound(inst: IntervalInstance, cell: int, *, time_limit: float | None = None,
                      start: np.ndarray | None = None) -> SingleCellBound:
    """The compact model of ``inst`` restricted to the sensitive cell ``cell``, solved by
    HiGHS's branch-and-cut within ``time_limit``.

    ``start``: a 0/1 ``y`` over the candidates that protects ``cell`` (any pattern of the
    whole problem does), handed to HiGHS as its first incumbent. The model is
    :func:`~cspopt.models.interval.compact.build_fs_matrix` of ``inst.keep`` (the other
    sensitive cells stay suppressed without requirements, and the deviation classes holding
    them are no longer forced to 1), so its optimum is at most the problem's and its dual
    bound is valid for the problem.
    """
    position = np.flatnonzero(inst.protected == cell)
    if position.size != 1:
        raise InvalidCellError(f"cell {cell} is not a sensitive cell the instance protects",
                               cell=int(cell))
    alone = inst.keep(inst.protected == cell)
    ny = alone.candidates.size
    program = build_fs_matrix(alone)
    outcome = run_highs(program, relax=False, time_limit=time_limit,
                        start=None if start is None else y_start(alone, start,
                                                                 program.cost.size))
    pattern = None
    if outcome.has_solution:
        pattern = (np.asarray(outcome.x[:ny]) > 0.5).astype(float)
    return SingleCellBound(cell=int(cell), lower_bound=max(float(outcome.lower_bound), 0.0),
                           termination=outcome.termination, pattern=pattern)


def quiet_single_cell_bound(inst: IntervalInstance, cell: int, *, time_limit: float | None,
                            start: np.ndarray | None = None) -> SingleCellBound | None:
    """:func:`single_cell_bound`, or ``None`` where HiGHS fails (logged: a bound its callers
    can do without)."""
    try:
        return single_cell_bound(inst, cell, time_limit=time_limit, start=start)
    except SolverError as error:
        log.warning("the single-cell bound of cell %d failed: %s", cell, error)
        return None

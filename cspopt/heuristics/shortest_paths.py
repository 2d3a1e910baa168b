"""The SP heuristic for interval protection on network tables.

Almeida, Schütz & Carvalho (2008) §3.1 (after Carvalho, Dellaert & Osório 1994 and Fischetti &
Salazar 1999): the sensitive cells are protected one at a time, each level by a sequence of
minimum-cost paths between the ends of the cell's arc in the network without it, whose
capacities add up to the level; sensitive cells and cells already suppressed cost nothing,
the others their weight (by default their value), so later cells reuse earlier suppressions.
It is the constructive heuristic GenSup seeds its population with (§4) and the heuristic its
crossover repairs offspring with.
"""

from __future__ import annotations

import numpy as np

from cspopt.budget import Budget
from cspopt.heuristics.cell_arcs import CellArcs, PathsOutcome, cell_arcs, finish
from cspopt.models.interval.instance import IntervalInstance

__all__ = ["sp_heuristic"]

#: at most this share of a level may be left unmet by round-off
_TOLERANCE = 1e-9


def sp_heuristic(inst: IntervalInstance, *, costs: np.ndarray | None = None,
                 suppressed: np.ndarray | None = None, arcs: CellArcs | None = None,
                 budget: Budget | None = None) -> PathsOutcome:
    """The SP heuristic of Almeida, Schütz & Carvalho (2008) §3.1 on ``inst``.

    For each protected cell ``p = (s -> t)`` in decreasing order of its largest level, the
    upper level ``upl_p`` is met by augmenting paths from ``t`` back to ``s`` (a cycle with
    ``p`` that raises it; the flow condition of Kelly, Golden & Assad 1992) and the lower
    level ``lpl_p`` by paths from ``s`` to ``t``, in the network without ``p``'s arcs. Each
    path is a Dijkstra shortest path under the costs: 0 for sensitive and already suppressed
    cells, ``costs`` (default: the instance's weights) for the others, plus a tie-break of
    a millionth of the cheapest weight per arc so that equal paths prefer fewer arcs. The
    flow ``f`` it pushes keeps every cell within its room, ``-(a_c - lb_c) <= f_c <=
    ub_c - a_c``, so residual capacities are ``ub_c - a_c - f_c`` up and
    ``a_c - lb_c + f_c`` down; the flow of the paths is an attacker's completion, a proof
    that the level is met. Paths stop when their flow reaches the level.

    Parameters
    ----------
    costs : ndarray, shape (num_cells,), optional
        Per-cell costs of a first suppression (GenSup seeds with LP-derived costs).
    suppressed : ndarray of bool, shape (num_cells,), optional
        Cells already suppressed (cost 0), e.g. a GenSup offspring to repair.
    arcs : CellArcs, optional
        The instance's arcs (:func:`~cspopt.heuristics.cell_arcs.cell_arcs`), for callers
        that run SP many times.

    Complexity: one Dijkstra ``O(E + V log V)`` per path; a level of a cell the pattern
    already protects costs paths of zero cost only.

    Returns a :class:`~cspopt.heuristics.cell_arcs.PathsOutcome`; a level that no path can meet
    (the table has no pattern protecting it) is listed in ``failed``. Once ``budget`` expires it
    stops with ``stopped=True``.
    """
    table = inst.table
    arcs = cell_arcs(inst, "The SP heuristic") if arcs is None else arcs
    free, graph, arc_cell, arc_up = arcs.free, arcs.graph, arcs.arc_cell, arcs.arc_up
    weight = (inst.weights if costs is None else np.asarray(costs, dtype=float))[free]
    positive = weight[weight > 0]
    tie = 1e-6 * (float(positive.min()) if positive.size else 1.0)
    in_pattern = table.sensitive[free].copy()
    if suppressed is not None:
        in_pattern |= np.asarray(suppressed, dtype=bool)[free]
    lpl, upl = table.lower_protection[inst.protected], table.upper_protection[inst.protected]
    outcome = PathsOutcome(np.zeros(inst.candidates.size))
    for k in np.argsort(-np.maximum(lpl, upl), kind="stable").tolist():
        p = int(arcs.position[k])
        s, t = int(arcs.tail[p]), int(arcs.head[p])
        for side, need, source, target in (("upper", upl[k], t, s), ("lower", lpl[k], s, t)):
            flow = np.zeros(free.size)
            pushed = 0.0
            while pushed < need * (1 - _TOLERANCE):
                if budget is not None and budget.expired():
                    outcome.stopped = True
                    return finish(inst, in_pattern, outcome)
                residual = np.where(arc_up, (arcs.up - flow)[arc_cell],
                                    (arcs.down + flow)[arc_cell])
                cost = np.where(in_pattern[arc_cell], 0.0, weight[arc_cell]) + tie
                cost[(residual <= 0) | (arc_cell == p)] = np.inf
                dist, pred = graph.search(cost, source)
                outcome.num_paths += 1
                if not np.isfinite(dist[target]):
                    outcome.failed.append((int(free[p]), side))
                    break
                path = np.array(graph.path(pred, cost, source, target), dtype=np.int64)
                step = min(float(residual[path].min()), need - pushed)
                flow[arc_cell[path]] += np.where(arc_up[path], step, -step)
                pushed += step
                in_pattern[arc_cell[path]] = True
    return finish(inst, in_pattern, outcome)

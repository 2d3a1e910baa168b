"""The hypercube method for interval protection on 2-D tables.

GHMITER's method (Repsilber 1994; as described by Giessing & Repsilber 2002 and, for 2-D
tables with a-priori protection intervals, by Almeida, Schütz & Carvalho 2008 §3.2) in its
2-D form: each sensitive cell is protected by the cheapest *hypercube* through it, a
rectangle of four cells ``(i, j), (i, j'), (i', j), (i', j')`` whose three other corners are
suppressed with it. The attacker can move the rectangle's cells by the same amount around
the cycle, so the rectangle protects ``(i, j)`` when that amount covers its levels. It is
fast and simple, and over-suppresses (the cycle has four cells whatever the table offers);
with large protection levels no rectangle may be wide enough, and the method fails
(Almeida et al. 2008 §6: 143 of their class II tables).
"""

from __future__ import annotations

import numpy as np

from cspopt.budget import Budget
from cspopt.errors import InputError, NotNetworkError
from cspopt.heuristics.cell_arcs import PathsOutcome
from cspopt.heuristics.hypercube_choice import HypercubeChoice
from cspopt.models.interval.instance import IntervalInstance
from cspopt.table.network import bipartite_graph

__all__ = ["hypercube_heuristic"]


def hypercube_heuristic(inst: IntervalInstance, *, budget: Budget | None = None
                        ) -> PathsOutcome:
    """The hypercube method (2-D form) on ``inst``.

    For each protected cell ``p = (i, j)``, in decreasing order of its largest level, every
    rectangle ``(i', j')`` with ``i' != i``, ``j' != j`` whose corners are free cells is
    scored. Raising ``p`` by ``d`` moves each corner by ``±d`` (the sign its arc takes on
    the cycle from ``p``'s head back to its tail in the table's network), so the rectangle
    lets the attacker raise ``p`` by ``gamma^-``, the least room of the corners in their
    direction and of ``p`` upward, and lower it by ``gamma^+`` likewise (rooms
    ``ub - a`` up, ``a - lb`` down). It is feasible when ``gamma^- >= upl_p``,
    ``gamma^+ >= lpl_p`` and ``gamma^+ + gamma^- >= spl_p`` (the sliding-range check); its
    cost is the weight of its corners not yet suppressed (sensitive ones cost nothing).
    The cheapest feasible rectangle is suppressed.

    Complexity ``O(rows x columns)`` per protected cell (numpy over all rectangles).

    Returns a :class:`~cspopt.heuristics.cell_arcs.PathsOutcome` (``num_paths``: the
    rectangles scored per cell, one per cell); a cell no rectangle protects is listed in
    ``failed`` with the level no rectangle meets, and the others are still protected.
    """
    table = inst.table
    try:
        graph, net = bipartite_graph(table), table.network()
    except NotNetworkError as error:
        raise InputError(f"The hypercube method needs a 2-D table without hierarchies: "
                         f"{error}") from None
    cells = table.num_cells
    grid = np.full((graph.num_rows, graph.num_cols), cells)  # ``cells``: no such cell
    grid[graph.row_node, graph.col_node] = np.arange(cells)
    state = HypercubeChoice(inst)
    up, down = state.up, state.down
    tail = np.r_[net.tail, -1]
    row_id, col_id = graph.row_relation, graph.col_relation
    for k, p in state.order(budget):
        i, j = int(graph.row_node[p]), int(graph.col_node[p])
        row_corner = grid[i, :][None, :]  # (i, j'), one per column
        col_corner = grid[:, j][:, None]  # (i', j), one per row
        # the cycle from p's head back to its tail: each corner is left from the node the
        # cycle reaches it at, and moves with p where its arc leaves that node
        if tail[p] == row_id[i]:  # p: R_i -> C_j; cycle C_j -> R_i' -> C_j' -> R_i
            entered = ((col_corner, col_id[j]), (grid, row_id[:, None]),
                       (row_corner, col_id[None, :]))
        else:  # p: C_j -> R_i; cycle R_i -> C_j' -> R_i' -> C_j
            entered = ((row_corner, row_id[i]), (grid, col_id[None, :]),
                       (col_corner, row_id[:, None]))
        rise, fall = np.full(grid.shape, up[p]), np.full(grid.shape, down[p])
        usable = np.ones(grid.shape, dtype=bool)
        cost = np.zeros(grid.shape)
        for corner, node in entered:
            with_p = tail[corner] == node
            rise = np.minimum(rise, np.where(with_p, up[corner], down[corner]))
            fall = np.minimum(fall, np.where(with_p, down[corner], up[corner]))
            usable &= state.free[corner]
            cost = cost + state.corner_cost(corner)
        usable[i, :] = usable[:, j] = False
        best = state.choose(k, p, rise, fall, usable, cost)
        if best is not None:
            state.in_pattern[[grid[i, best[1]], grid[best[0], j], grid[best]]] = True
    return state.finish()

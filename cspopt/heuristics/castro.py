"""Castro's shortest-paths heuristic for interval protection on network tables.

Castro (2007), *A fast network flows heuristic for cell suppression in positive tables*
(the tau-ARGUS "Network" method), Fig. 6: each sensitive cell ``p`` is protected, for its
lower and its upper protection level separately, by cycles through its arc: a shortest path
back from the head of ``x_p^+`` to its tail. A cycle lets the attacker move ``p`` down by
``gamma^+`` and up by ``gamma^-`` (eq. 5), so the two levels are met separately, and every
other sensitive cell on the cycle is credited with what the cycle moves it. Arc costs are
stratified in four classes (suppressed cells with room for the need, then unsuppressed ones
with room, then suppressed ones without, then the rest; cheapest first within a class),
so a path never buys a worse class to save within a better one. It works on any table whose
relations form a network: 2-D tables, and 2-D tables with one hierarchical dimension
(Castro 2007 Fig. 5; :func:`cspopt.table.network.reduced_network`).
"""

from __future__ import annotations

import numpy as np

from cspopt.budget import Budget
from cspopt.heuristics.cell_arcs import PathsOutcome, cell_arcs, finish
from cspopt.models.interval.instance import IntervalInstance
from cspopt.table.network import TableNetwork

__all__ = ["castro_heuristic"]

#: at most this share of a requirement may be left unmet by round-off
_TOLERANCE = 1e-9
_FLIP = {"down": "up", "up": "down"}


def castro_heuristic(inst: IntervalInstance, *, network: TableNetwork | None = None,
                     budget: Budget | None = None) -> PathsOutcome:
    """Castro (2007) Fig. 6 on the network of ``inst.table``.

    For each protected cell ``p`` with ``x_p^+ = (s, t)`` and each of its levels
    ``* in {lpl, upl}``, while the credited level ``C*_p < *_p``: set the arc costs, find
    the shortest path ``SP`` from ``t`` to ``s`` (Dijkstra,
    :class:`~cspopt.table.network.ArcGraph`) avoiding ``p`` and the cells of the earlier
    paths for this level (so the cycles are disjoint and their moves add up), suppress its
    cells, and credit
    ``gamma^+ = min(room_p^down, room_i^down : x_i^+ in SP, room_i^up : x_i^- in SP)`` to the
    lower and ``gamma^-`` (the other direction) to the upper level of ``p`` and, by what the
    cycle moves them, of every sensitive cell on it (eq. 5, lines 6-13). Rooms are
    ``a_i - lb_i`` down and ``ub_i - a_i`` up (Castro's ``a_i`` and ``inf`` for ``lb = 0``,
    ``ub = inf``). Sliding protection is not the paper's: the caller audits and repairs.

    Complexity: one Dijkstra, ``O(E + V log V)``, per path; at least two paths per protected
    cell that no earlier path protected.

    Returns a :class:`PathsOutcome`; where no path exists, the cell and side are listed in
    ``failed`` and the others are still protected. Once ``budget`` expires it stops with
    ``stopped=True``.
    """
    table = inst.table
    arcs = cell_arcs(inst, "Castro's shortest-paths heuristic", network)
    free, tail, head, graph = arcs.free, arcs.tail, arcs.head, arcs.graph
    arc_cell, arc_up, down, up, position = (arcs.arc_cell, arcs.arc_up, arcs.down, arcs.up,
                                            arcs.position)
    nf = free.size
    # the attacker moves an arc's cell this far: raising arcs raise it in direction "up"
    # (p up) and lower it in direction "down" (p down), lowering arcs the reverse
    room = {"up": np.where(arc_up, up[arc_cell], down[arc_cell]),
            "down": np.where(arc_up, down[arc_cell], up[arc_cell])}
    weight = inst.weights[free]
    relative = weight / max(float(weight.max(initial=0.0)), 1.0)
    # class c costs at least scale**c: a path of nodes arcs of better classes costs less
    scale = 2.0 * (graph.num_nodes + 1)
    blocked_cost = scale ** 5
    in_pattern = table.sensitive[free].copy()
    sensitive_at = np.full(nf, -1)
    sensitive_at[position] = np.arange(position.size)
    # the credited level of each protected cell per direction, and the cells of the cycles
    # behind it: its own disjoint cycles add up, but a credit from another cell's cycle is
    # a single cycle, so the cell's own paths must avoid it to add to it
    credit = {"down": np.zeros(position.size), "up": np.zeros(position.size)}
    behind: dict[tuple[str, int], np.ndarray] = {}
    own_room = {"down": down[position], "up": up[position]}
    lpl, upl = table.lower_protection[inst.protected], table.upper_protection[inst.protected]
    outcome = PathsOutcome(np.zeros(inst.candidates.size))
    for k, p in enumerate(position.tolist()):
        s, t = int(tail[p]), int(head[p])  # x_p^+ = (s, t): paths run from t back to s
        for side, need in (("down", lpl[k]), ("up", upl[k])):
            used = np.zeros(nf, dtype=bool)  # TT of Fig. 6: this level's earlier paths
            used[p] = True
            used[behind.get((side, k), [])] = True
            while credit[side][k] < need * (1 - _TOLERANCE):
                if budget is not None and budget.expired():
                    outcome.stopped = True
                    return finish(inst, in_pattern, outcome)
                missing = need - credit[side][k]
                big = room[side] >= missing
                cls = np.where(in_pattern[arc_cell], 0, 1) + np.where(big, 0, 2)
                cost = scale ** cls * (1.0 + relative[arc_cell])
                cost[used[arc_cell] | (room[side] <= 0)] = blocked_cost
                dist, pred = graph.search(cost, t)
                outcome.num_paths += 1
                if not dist[s] < blocked_cost:
                    outcome.failed.append((int(free[p]), "lower" if side == "down" else "upper"))
                    break
                arcs = np.array(graph.path(pred, cost, t, s), dtype=np.int64)
                cells = arc_cell[arcs]
                gamma = {d: min(float(room[d][arcs].min()), float(own_room[d][k]))
                         for d in ("down", "up")}
                credit[side][k] = min(credit[side][k] + gamma[side], own_room[side][k])
                cycle = np.r_[cells, p]
                # the cycle moves p the other way, and the sensitive cells on it: a raising
                # arc with p, a lowering one against it
                moves = [(k, d, d) for d in ("down", "up") if d != side]
                for arc, cell in zip(arcs.tolist(), cells.tolist()):
                    q = int(sensitive_at[cell])
                    if q >= 0:
                        moves += [(q, d, d if arc_up[arc] else _FLIP[d]) for d in ("down", "up")]
                for q, d, moved in moves:
                    if gamma[d] > credit[moved][q]:
                        credit[moved][q], behind[moved, q] = gamma[d], cycle
                in_pattern[cells] = True
                used[cells] = True
    return finish(inst, in_pattern, outcome)

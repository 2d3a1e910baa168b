"""Shortest paths on the network of an exact-disclosure instance (one Dijkstra per cell).

Almeida & Carvalho (2005) §2-§4: a sensitive cell is protected by a circuit of suppressed
cells through it, i.e. a path from ``j_k`` to ``i_k`` (and, for (P_N)'s ``K_2`` cells, the
reverse). :class:`PathOracle` answers "cheapest such path under these arc costs" for every
protected cell on one CSR structure; the Lagrangian subproblems (:mod:`cspopt.bounds`) and
the path heuristics (:mod:`cspopt.heuristics.path`) are built on it.

Complexity: one :func:`scipy.sparse.csgraph.dijkstra` call per path, costs refilled in CSR
order (:class:`cspopt.table.network.ArcGraph`).
"""

from __future__ import annotations

import math

import numpy as np

from cspopt.models.exact.instance import ExactInstance
from cspopt.table.network import ArcGraph

__all__ = ["PathOracle"]

#: Largest amount (relative to the largest weight) by which the weight tie-break of
#: :func:`evaluate` may lower a path's bound.
_TIE_BREAK = 1e-9


class PathOracle:
    """Shortest paths on the instance's arcs, one CSR structure for every protected cell.

    Parallel arcs (same end nodes) are collapsed to the cheapest one per call
    (:class:`~cspopt.table.network.ArcGraph`). A cell's own arcs and the arcs the ``tau``
    threshold removes cost ``inf`` in its paths.
    """

    def __init__(self, inst: ExactInstance):
        self.inst = inst
        self.arcs = ArcGraph(inst.arc_tail, inst.arc_head, inst.num_nodes)
        self.arc_x = inst.x_index[inst.arc_cell]  # -1 on sensitive cells' arcs
        self.own = [np.flatnonzero(inst.arc_cell == k) for k in inst.protected_cells]
        self.blocked = ~inst.path_arc_mask
        # weight tie-break of evaluate(): eps per unit weight, and the most it adds to a path
        weights = inst.weights[inst.candidates]
        self.tie_slack = _TIE_BREAK * max(1.0, float(weights.max(initial=0.0)))
        self.tie_eps = self.tie_slack / max(float(weights.sum()), 1.0)

    def arc_costs(self, cell_cost: np.ndarray) -> np.ndarray:
        """Arc costs from per-candidate costs (0 on sensitive cells, inf where blocked)."""
        cost = np.append(cell_cost, 0.0)[self.arc_x]  # arc_x = -1: a sensitive cell, cost 0
        cost[self.blocked] = np.inf
        return cost

    def shortest(self, position: int, arc_cost: np.ndarray, up: bool, pool=None):
        """``(length, arcs)`` of the cheapest path of a protected cell (``inf``, [] if none).

        ``pool`` (a :class:`~cspopt.bounds.cut_packing.CutPool`) receives the search's
        level-set cuts.
        """
        cost = arc_cost.copy()
        cost[self.own[position]] = np.inf
        source, sink = self.inst.source_sink(position, up)
        dist, pred = self.arcs.search(cost, source)
        if pool is not None:
            pool.add_levels(position, up, dist, cost)
        if not np.isfinite(dist[sink]):
            return math.inf, []
        return float(dist[sink]), self.arcs.path(pred, cost, source, sink)

    def distances(self, arc_cost: np.ndarray, source: int, *, limit: float = np.inf):
        """Shortest distances from ``source`` (``inf`` beyond ``limit``)."""
        return self.arcs.search(arc_cost, source, limit=limit, predecessors=False)

    def best(self, position: int, arc_cost: np.ndarray, pool=None):
        """The shorter of the modelled paths: (P) one path, (P_N) ``K_2`` either direction."""
        options = []
        if self.inst.needs_up[position]:
            options.append(self.shortest(position, arc_cost, True, pool))
        if self.inst.needs_down[position]:
            options.append(self.shortest(position, arc_cost, False, pool))
        return min(options, key=lambda o: o[0])

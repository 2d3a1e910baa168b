"""Shortest paths on the network of an exact-disclosure instance (one Dijkstra per cell).

Almeida & Carvalho (2005) §2-§4: a sensitive cell is protected by a circuit of suppressed
cells through it, i.e. a path from ``j_k`` to ``i_k`` (and, for (P_N)'s ``K_2`` cells, the
reverse). :class:`PathOracle` answers "cheapest such path under these arc costs" for every
protected cell on one CSR structure; the Lagrangian subproblems (:mod:`cspopt.bounds`) and
the path heuristics (:mod:`cspopt.heuristics.path`) are built on it.

Complexity: one :func:`scipy.sparse.csgraph.dijkstra` call per path, costs refilled in CSR
order.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from cspopt.models.exact.instance import ExactInstance

__all__ = ["PathOracle"]

#: Largest amount (relative to the largest weight) by which the weight tie-break of
#: :func:`evaluate` may lower a path's bound.
_TIE_BREAK = 1e-9


class PathOracle:
    """Shortest paths on the instance's arcs, one CSR structure for every protected cell.

    Parallel arcs (same end nodes) are collapsed to the cheapest one per call. A cell's own
    arcs and the arcs the ``tau`` threshold removes cost ``inf`` in its paths.
    """

    def __init__(self, inst: ExactInstance):
        self.inst = inst
        order = np.lexsort((inst.arc_head, inst.arc_tail))
        tail, head = inst.arc_tail[order], inst.arc_head[order]
        pairs = tail * inst.num_nodes + head
        starts = np.flatnonzero(np.r_[True, pairs[1:] != pairs[:-1]])
        self.order = order
        self.starts = starts
        self.parallel = starts.size != order.size
        self.graph = sp.csr_matrix(
            (np.zeros(starts.size), head[starts], np.searchsorted(
                tail[starts], np.arange(inst.num_nodes + 1))),
            shape=(inst.num_nodes, inst.num_nodes))
        self.group = {(u, v): order[s:e] for u, v, s, e in zip(
            tail[starts].tolist(), head[starts].tolist(), starts.tolist(),
            np.r_[starts[1:], order.size].tolist())}
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
        sorted_cost = cost[self.order]
        self.graph.data = (np.minimum.reduceat(sorted_cost, self.starts) if self.parallel
                           else sorted_cost)
        source, sink = self.inst.source_sink(position, up)
        dist, pred = dijkstra(self.graph, directed=True, indices=source,
                              return_predecessors=True)
        if pool is not None:
            pool.add_levels(position, up, dist, cost)
        if not np.isfinite(dist[sink]):
            return math.inf, []
        arcs, v = [], sink
        while v != source:
            u = int(pred[v])
            group = self.group[(u, v)]
            arcs.append(int(group[np.argmin(cost[group])]))
            v = u
        return float(dist[sink]), arcs[::-1]

    def distances(self, arc_cost: np.ndarray, source: int, *, limit: float = np.inf):
        """Shortest distances from ``source`` (``inf`` beyond ``limit``)."""
        sorted_cost = arc_cost[self.order]
        self.graph.data = (np.minimum.reduceat(sorted_cost, self.starts) if self.parallel
                           else sorted_cost)
        return dijkstra(self.graph, directed=True, indices=source, limit=limit)

    def best(self, position: int, arc_cost: np.ndarray, pool=None):
        """The shorter of the modelled paths: (P) one path, (P_N) ``K_2`` either direction."""
        options = []
        if self.inst.needs_up[position]:
            options.append(self.shortest(position, arc_cost, True, pool))
        if self.inst.needs_down[position]:
            options.append(self.shortest(position, arc_cost, False, pool))
        return min(options, key=lambda o: o[0])

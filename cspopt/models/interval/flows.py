"""The attacker's problems on network tables as maximum flows, and the minimum cuts they give.

On network tables (2-D tables with margins; with one hierarchical dimension, the network of
the relations left once the implied subtotal-row relations are dropped, Castro 2007 Fig. 5)
the attacker's largest change of a protected cell ``p`` is a maximum flow from the head of
``p`` back to its tail (Almeida, Schütz & Carvalho 2008 §2), and the dual multipliers of a
capacity constraint (Fischetti & Salazar-Gonzalez 2001) can be read off the source side ``S``
of a minimum cut: arcs leaving ``S`` contribute their room up, arcs entering it their room
down. Flows run on capacities scaled to integers and rounded down
(:func:`scipy.sparse.csgraph.maximum_flow`), so a flow value is a valid *lower* bound on the
attacker's change (a proof of protection) and a cut value a valid *upper* bound (a proof of
exposure).

Complexity: one scipy maximum flow per batch of (protected cell, side) jobs, on disjoint
copies of the network of the cells with ``y > 0``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, maximum_flow

from cspopt.models.interval.instance import IntervalInstance
from cspopt.models.interval.proofs import Side, given, move_levels

__all__ = ["FlowAttacker", "SupportNetwork", "FlowBatch", "DENSE_ENTRIES"]

#: integer units a requirement is scaled to for scipy's integer maximum flow
_FLOW_UNITS = 1_000_000
#: units added before rounding capacities down: a capacity equal to the requirement scales to
#: 999999.9999999999 units in floats (43 * (1e6 / 43)), which would leave the flow a unit short
#: and send the verdict to the attacker LP (3,542 LPs in delete-and-check on a hierarchical
#: 60x30 table); a flow overstates by at most this per cut arc, 1e-12 of the requirement
_ROUNDING_SLACK = 1e-6
#: dense capacities (requirements x arcs of all free cells) one batch of flows may build:
#: 160 MB a matrix (2,000 cells of a 500x500 table at once would be 8 GB)
DENSE_ENTRIES = 20_000_000
#: entries of one batched flow graph (copies x entries per copy), which bounds its memory
_BATCH_ENTRIES = 400_000
#: capacity of the arcs into the super sink: never binding (sources carry _FLOW_UNITS each)
_SINK_UNITS = 2**30


class SupportNetwork:
    """The network of the cells with ``y_i > 0`` (both arcs of each), in CSR form: parallel
    arcs share one entry, ``entry_of_arc`` maps ``arcs`` to entries and :meth:`sum_parallel`
    adds their capacities. Built per separation; every arc's reverse is in it."""

    def __init__(self, num_nodes: int, arc_from: np.ndarray, arc_to: np.ndarray,
                 active: np.ndarray):
        nf = active.size
        cells = np.flatnonzero(active)
        self.arcs = np.concatenate([cells, cells + nf])
        key = arc_from[self.arcs] * num_nodes + arc_to[self.arcs]
        pairs, self.entry_of_arc = np.unique(key, return_inverse=True)
        self.num_nodes = num_nodes
        self.num_entries = pairs.size
        self.indices = (pairs % num_nodes).astype(np.int32)
        self.entry_row = pairs // num_nodes
        self.indptr = np.searchsorted(self.entry_row, np.arange(num_nodes + 1)).astype(np.int32)
        self.width = pairs.size + 2 * num_nodes  # entries of one copy in a FlowBatch

    def sum_parallel(self, units: np.ndarray) -> np.ndarray:
        """Per row of ``units`` (copies x ``arcs``), the capacity of each entry."""
        copies, size = units.shape[0], self.num_entries
        index = self.entry_of_arc[None, :] + (np.arange(copies) * size)[:, None]
        return np.bincount(index.ravel(), weights=units.ravel(),
                           minlength=copies * size).reshape(copies, size)

    @functools.cached_property
    def by_head(self) -> np.ndarray:
        """The entries ordered by head node (then tail)."""
        return np.lexsort((self.entry_row, self.indices))

    def reach(self, open_: np.ndarray, sources: np.ndarray, *, backward: bool = False
              ) -> np.ndarray:
        """Per row of ``open_`` (copies x entries, a boolean mask of usable entries), the
        nodes reachable from ``sources[j]`` in that copy (``backward``: the nodes that reach
        it): one search from a super node joined to every copy's source, on disjoint copies
        of the network. The arcs go to scipy in CSR form directly: row-major ``nonzero``
        over the entries in tail order (backward: in head order) lists them row by row."""
        n, copies = self.num_nodes, open_.shape[0]
        if backward:
            copy, position = np.nonzero(open_[:, self.by_head])
            entry = self.by_head[position]
            tail, head = self.indices[entry], self.entry_row[entry]
        else:
            copy, entry = np.nonzero(open_)
            tail, head = self.entry_row[entry], self.indices[entry]
        row, col = tail + copy * n, head + copy * n
        size = copies * n + 1
        indices = np.r_[col, np.asarray(sources) + np.arange(copies) * n].astype(np.int32)
        indptr = np.r_[np.searchsorted(row, np.arange(size)), indices.size].astype(np.int32)
        arcs = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(size, size))
        reachable = np.zeros(size, dtype=bool)
        reachable[breadth_first_order(arcs, copies * n, directed=True,
                                      return_predecessors=False)] = True
        return reachable[:-1].reshape(copies, n)


class FlowBatch:
    """``copies`` disjoint copies of a :class:`SupportNetwork` network and a super source ``S``
    and sink ``T`` joined to every node both ways, so that one
    :func:`~scipy.sparse.csgraph.maximum_flow` solves one flow per copy: arc
    ``S -> source_j`` of capacity ``_FLOW_UNITS`` (the requirement) and ``sink_j -> T``
    are the only super arcs with capacity. Copy ``j``'s flow is its own maximum flow capped
    at the requirement, and where it falls short its residual graph holds its minimum cut.
    """

    def __init__(self, support: SupportNetwork, copies: int):
        n, indptr, indices = support.num_nodes, support.indptr, support.indices
        degree = np.diff(indptr)
        row_start = np.concatenate([[0], np.cumsum(degree + 2)])  # each row ends with S, T
        width = int(row_start[-1])  # entries per copy
        own = np.arange(indices.size) + np.repeat(row_start[:-1] - indptr[:-1], degree)
        self.num_nodes = copies * n + 2
        self.source, self.sink = copies * n, copies * n + 1
        start = (np.arange(copies) * width)[:, None]
        index = np.empty((copies, width), dtype=np.int32)
        index[:, own] = indices[None, :] + (np.arange(copies) * n)[:, None]
        index[:, row_start[1:] - 2] = self.source
        index[:, row_start[1:] - 1] = self.sink
        nodes = np.arange(copies * n, dtype=np.int32)
        self.indices = np.concatenate([index.ravel(), nodes, nodes])
        self.indptr = np.concatenate([(row_start[:-1][None, :] + start).ravel(), [
            copies * width, copies * width + copies * n, copies * width + 2 * copies * n]
        ]).astype(np.int32)
        self.entry = own[None, :] + start  # copy x entry of the support
        self.from_source = copies * width + np.arange(copies) * n  # + node: S -> node
        self.to_sink = (row_start[1:] - 1)[None, :] + start  # copy x node: node -> T

    def solve(self, entry_units: np.ndarray, sources: np.ndarray,
              sinks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flows per copy and entry, and each copy's flow value (integer units)."""
        data = np.zeros(self.indices.size, dtype=np.int32)
        data[self.entry] = entry_units
        into = self.from_source + sources
        data[into] = _FLOW_UNITS
        data[self.to_sink[np.arange(sinks.size), sinks]] = _SINK_UNITS
        graph = sp.csr_matrix((data, self.indices, self.indptr),
                              shape=(self.num_nodes, self.num_nodes))
        flow = maximum_flow(graph, self.source, self.sink).flow
        if not (np.array_equal(flow.indptr, self.indptr)
                and np.array_equal(flow.indices, self.indices)):
            # not expected (every arc's reverse is in the graph): read it entry by entry
            rows = np.repeat(np.arange(self.num_nodes), np.diff(self.indptr))
            flat = np.asarray(flow.tocsr()[rows, self.indices]).ravel()
        else:
            flat = flow.data
        return flat[self.entry], flat[into].astype(float)


class FlowAttacker:
    """The attacker's answers by maximum flows on the network of one
    :class:`IntervalInstance` (arc ``j < nf`` raises free cell ``j``, tail to head; arc
    ``nf + j`` lowers it). Built once; :meth:`sides` works on prebuilt arrays only."""

    def __init__(self, inst: IntervalInstance, network, position: np.ndarray):
        self.inst, self.network, self.position = inst, network, position
        self.num_free = nf = inst.free.size
        tail, head = network.tail[inst.free], network.head[inst.free]
        self.arc_from = np.concatenate([tail, head]).astype(np.int64)
        self.arc_to = np.concatenate([head, tail]).astype(np.int64)
        self.arc_cell = np.concatenate([np.arange(nf), np.arange(nf)])
        self.num_solves = 0

    def sides(self, jobs: list[tuple[int, str]], y: np.ndarray,
                    support: SupportNetwork | None = None) -> dict[int, dict[str, Side]]:
        """The attacker's answers for the sides ``jobs`` (protected cell, ``"upper"`` or
        ``"lower"``) by maximum flows that return the
        change of ``p``: from its head to its tail when it rises (``"upper"``), from tail to
        head when it falls (``"lower"``). The flows run on the arcs of cells with ``y_i > 0``
        only (others have no capacity; at LP and 0/1 points they are most cells), all in one
        call on disjoint copies of that network (:class:`FlowBatch`), as scipy's work per
        call grows with the graph, not with the flow. The minimum cut (a residual search) is
        computed only when a requirement asks for its capacity vector. ``support``: that
        network for this ``y``, if the caller has built it."""
        found: dict[int, dict[str, Side]] = {k: {} for k, _ in jobs}
        if not jobs:
            return found
        support = self.support(y) if support is None else support
        step = max(1, min(_BATCH_ENTRIES // support.width,
                          DENSE_ENTRIES // (2 * self.num_free)))
        for first in range(0, len(jobs), step):
            self._solve(jobs[first:first + step], y, support, found)
        return found

    def support(self, y: np.ndarray) -> SupportNetwork:
        return SupportNetwork(self.network.num_nodes, self.arc_from, self.arc_to, y > 0)

    def _solve(self, jobs: list[tuple[int, str]], y: np.ndarray, support: SupportNetwork,
                     found: dict) -> None:
        net, arcs = self.network, support.arcs
        ks = np.array([k for k, _ in jobs])
        # a flow carries at most the largest requirement; an integer scale keeps integer
        # rooms and levels exact (2/3 of a unit lost to rounding sent 28 cells of a 300x300
        # class I table to the attacker LP)
        scale = _FLOW_UNITS / self.inst.requirement_unit[ks]
        scale = np.where(scale >= 1.0, np.floor(scale), scale)
        # integer capacities of the support's arcs (rounded down); p's own arcs carry nothing
        arc_cell = self.arc_cell[arcs]
        down, up = self.inst.rooms(ks, arc_cell)
        units = np.floor(np.where(arcs < self.num_free, up, down) * y[arc_cell][None, :]
                         * scale[:, None] + _ROUNDING_SLACK)
        p = self.position[ks]
        units[arc_cell[None, :] == p[:, None]] = 0.0
        entry_units = support.sum_parallel(units)
        cells = self.inst.protected[ks]
        upper = np.array([side == "upper" for _, side in jobs])
        source = np.where(upper, net.head[cells], net.tail[cells])
        sink = np.where(upper, net.tail[cells], net.head[cells])
        entry_flow, value = FlowBatch(support, len(jobs)).solve(entry_units, source, sink)
        self.num_solves += len(jobs)
        # the two extreme minimum cuts' sides (reached from the source, reaching the sink),
        # found for every copy at once when the first cut is asked for (only refuted
        # requirements ask)
        source_sides = functools.cache(lambda: support.reach(entry_units - entry_flow > 0,
                                                             source))
        sink_sides = functools.cache(lambda: support.reach(entry_units - entry_flow > 0,
                                                           sink, backward=True))
        for j, (k, side) in enumerate(jobs):
            # k's rooms over all free cells, computed once for both lazy answers
            rooms = functools.cache(functools.partial(self.inst.rooms, k))
            level_of = functools.partial(self._level, support, entry_flow[j], units[j],
                                         entry_units[j], rooms, scale[j])
            shrink_p, grow_p = self.inst.rooms(k, p[j])
            own = float(grow_p[0] if side == "upper" else shrink_p[0])
            attained = value[j] / scale[j]
            if own < attained:
                # p's own bound stops it first (a sliding requirement can exceed one side's
                # room): the change is exactly that room, a constant since p is suppressed
                g = np.zeros(self.num_free)
                g[p[j]] = own
                found[k][side] = Side(own, level_of, given(g), 0.0)
            else:
                found[k][side] = Side(attained, level_of, functools.partial(
                    self._cut_capacity, source_sides, sink_sides, j, int(source[j]),
                    int(sink[j]), rooms, int(p[j])), arcs.size / scale[j])

    def _level(self, support: SupportNetwork, entry_flow, units, entry_units,
                    rooms: Callable[[], tuple[np.ndarray, np.ndarray]],
                    scale: float) -> np.ndarray:
        """The levels (:func:`~cspopt.models.interval.proofs.move_levels`) a maximum flow
        needs: parallel arcs share their entry's flow in proportion to their capacity."""
        on_entry = np.maximum(entry_flow, 0)[support.entry_of_arc]
        arc_flow = np.zeros(2 * self.num_free)
        arc_flow[support.arcs] = np.divide(on_entry * units,
                                           entry_units[support.entry_of_arc],
                                           out=np.zeros_like(units), where=on_entry > 0)
        nf = self.num_free
        moved = np.maximum(arc_flow[:nf], arc_flow[nf:]) / scale
        shrink, grow = rooms()
        return move_levels(moved > 0, moved, np.where(arc_flow[:nf] > 0, grow, shrink))

    def _cut_capacity(self, source_sides: Callable[[], np.ndarray],
                      sink_sides: Callable[[], np.ndarray], j: int, source: int, sink: int,
                      rooms: Callable[[], tuple[np.ndarray, np.ndarray]],
                      p: int) -> np.ndarray:
        """The capacity vector of a minimum cut of copy ``j``'s maximum flow: the (capped)
        rooms of all arcs (of any ``y``) leaving its source side, ``p`` excluded. Of the two
        extreme minimum cuts, what the residual graph reaches from the source and what
        cannot reach the sink, the one with fewer cells: a sparser row, cheaper for SCIP and
        stronger (fewer nodes).
        Any set holding the source and not the sink gives a valid cut. ``rooms``: the
        protected cell's (:meth:`IntervalInstance.rooms`)."""
        shrink, grow = rooms()
        full = np.concatenate([grow, shrink])
        g = self._leaving(source_sides()[j], full, p)
        other_side = ~sink_sides()[j]
        if other_side[source] and not other_side[sink]:
            other = self._leaving(other_side, full, p)
            if np.count_nonzero(other) < np.count_nonzero(g):
                return other
        return g

    def _leaving(self, side: np.ndarray, full: np.ndarray, p: int) -> np.ndarray:
        """Per free cell, the capped rooms of its arcs leaving the node set ``side``, ``p``
        excluded."""
        leaving = side[self.arc_from] & ~side[self.arc_to]
        g = np.bincount(self.arc_cell[leaving], weights=full[leaving], minlength=self.num_free)
        g[p] = 0.0
        return g

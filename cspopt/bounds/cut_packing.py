"""Cut packing: a Lagrangian bound from the cuts the shortest-path searches reveal.

Every search for protected cell ``k``'s path computes distances ``d`` from its source. Each
level set ``S = {v : d(v) <= t}`` with ``t < d(sink)`` holds the source and not the sink,
and no arc of cost 0 (a sensitive cell's) leaves it. So every path of ``k`` leaves ``S``
through an arc of a candidate cell: ``S`` is a cut. For a cell of ``K_2`` (problem
P_N(alpha, mu), where the path may run either way; Almeida & Carvalho 2005 §4.2) the cut
also takes the cells whose arcs enter ``S``, and is dropped if an arc of cost 0 enters it.

A *packing* gives each cut ``S`` of cell ``k`` a weight ``y_S >= 0`` so that every cell
``c`` carries at most its own weight ``xi_c``. Setting
``lambda^k_c = sum of y_S over k's cuts through c`` stays in the capped set and prices every
path of ``k`` at ``sum_S y_S`` or more (the path crosses each of them), so

    z(lambda) >= sum_S y_S.

The best packing over the cuts seen is one LP, the dual of the cut form of the LP
relaxation of (P) restricted to those cuts: over every cut it is the LP bound of (P)
(max-flow min-cut). Unlike a Dantzig–Wolfe master over the paths seen, which overestimates
until every path is priced, it is a valid bound at any time. The Lagrangian's level sets
soon contain the cuts of an optimal packing: it closes the last gap that the steps and the
dual ascent leave, where the LP shares cells fractionally between protected cells. The
reported bound is ``z`` at the packing's multipliers, evaluated by Dijkstra, so it does
not rest on the LP solver's tolerances.

Its effect and cost are measured by ``cspopt bench lagrangian``.

The LP (HiGHS) keeps its rows (the candidate cells) and gains columns as cuts arrive; each
solve starts from the previous basis, which stays primal feasible (new columns at 0).
Complexity per search: ``O(arcs + cut cells)`` numpy work plus one dictionary look-up per
level, to drop cuts already pooled.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import numpy as np

from cspopt.backends.highs import INF, OPTIMAL, new_highs
from cspopt.errors import SolverError

__all__ = ["CutPool"]


class CutPool:
    """The distinct cuts seen, per protected cell, and the best packing of them.

    Parameters
    ----------
    oracle : cspopt.models.exact.PathOracle
        Its instance and arc arrays (read only).
    """

    def __init__(self, oracle):
        inst = oracle.inst
        self._oracle = oracle
        self._weights = inst.weights[inst.candidates].astype(float)
        self._seen: set[tuple[int, bytes]] = set()
        #: ``(position, cells)`` of every pooled cut: the protected cell it separates and
        #: the candidate cells crossing it
        self.cuts: list[tuple[int, np.ndarray]] = []
        self._pending = 0  # cuts added since the last solve
        self.value = 0.0  # of the last packing
        self.seconds = 0.0  # spent pooling and solving
        num_x = self._weights.size
        self._lp = new_highs(np.zeros((num_x, 0)), np.zeros(0), np.zeros(0), np.zeros(0),
                             np.full(num_x, -np.inf), self._weights, presolve=False,
                             what="cut packing")

    def __len__(self) -> int:
        return len(self.cuts)

    @contextmanager
    def _timed(self):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds += time.perf_counter() - started

    def add_levels(self, position: int, up: bool, dist: np.ndarray,
                   arc_cost: np.ndarray) -> None:
        """Pool the level-set cuts of one search (``dist`` from its source; ``arc_cost``
        the costs it ran on, ``inf`` on arcs it may not use)."""
        with self._timed():
            self._pool_levels(position, up, dist, arc_cost)

    def _pool_levels(self, position, up, dist, arc_cost) -> None:
        inst = self._oracle.inst
        sink = inst.source_sink(position, up)[1]
        reach = dist[sink]
        if not np.isfinite(reach):
            return
        levels = np.unique(dist[dist < reach])
        # distances that differ only by the weight tie-break of evaluate() are one level
        levels = levels[np.diff(levels, append=reach) > self._oracle.tie_slack]
        usable = np.isfinite(arc_cost)
        tail, head = dist[inst.arc_tail[usable]], dist[inst.arc_head[usable]]
        cell = self._oracle.arc_x[usable]
        # an arc u -> v leaves the level sets t with d(u) <= t < d(v), t < d(sink)
        crossings = [(tail, head)]
        if inst.needs_up[position] and inst.needs_down[position]:
            crossings.append((head, tail))  # the reverse path enters S
        valid = np.ones(levels.size, dtype=bool)
        pairs = []  # level * num_x + cell, for every candidate arc and level it crosses
        num_x = self._weights.size
        for start, end in crossings:
            first = np.searchsorted(levels, start, "left")
            stop = np.searchsorted(levels, np.minimum(end, reach), "left")
            count = np.maximum(stop - first, 0)
            free = (cell < 0) & (count > 0)  # a cost-0 arc crosses: not a cut
            blocked = np.zeros(levels.size + 1, dtype=int)
            np.add.at(blocked, first[free], 1)
            np.add.at(blocked, stop[free], -1)
            valid &= np.cumsum(blocked[:-1]) == 0
            crossing = (cell >= 0) & (count > 0)
            count = count[crossing]
            offset = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
            level = np.repeat(first[crossing], count) + offset
            pairs.append(level * num_x + np.repeat(cell[crossing], count))
        # sorted by level, then cell; only K_2's two crossings can repeat a pair
        pairs = np.unique(np.concatenate(pairs)) if len(pairs) > 1 else np.sort(pairs[0])
        level, cells = np.divmod(pairs, num_x)
        bounds = np.searchsorted(level, np.arange(levels.size + 1))
        for i in np.flatnonzero(valid & (bounds[1:] > bounds[:-1])).tolist():
            cut = cells[bounds[i]:bounds[i + 1]]
            key = (position, cut.tobytes())
            if key not in self._seen:
                self._seen.add(key)
                self.cuts.append((position, cut))
                self._pending += 1

    def multipliers(self) -> np.ndarray | None:
        """The multipliers of the best packing of the pooled cuts, or ``None`` when no cut
        arrived since the last call. They meet the caps up to the LP's tolerance: project
        them (:func:`cspopt.bounds.project_capped`) before evaluating."""
        if not self._pending:
            return None
        with self._timed():
            return self._solve()

    def _solve(self) -> np.ndarray:
        new = [cells for _, cells in self.cuts[-self._pending:]]
        sizes = np.array([c.size for c in new])
        starts = np.r_[0, np.cumsum(sizes)].astype(np.int32)
        index = np.concatenate(new).astype(np.int32)
        n = len(new)
        self._lp.addCols(n, np.full(n, -1.0), np.zeros(n), np.full(n, INF),
                         index.size, starts[:-1], index, np.ones(index.size))
        self._pending = 0
        self._lp.run()
        if self._lp.getModelStatus() != OPTIMAL:
            raise SolverError("HiGHS did not solve the cut packing LP: "
                              + self._lp.modelStatusToString(self._lp.getModelStatus()))
        self.value = -self._lp.getInfo().objective_function_value
        packing = np.maximum(np.asarray(self._lp.getSolution().col_value), 0.0)
        lam = np.zeros((self._oracle.inst.protected_cells.size, self._weights.size))
        for j in np.flatnonzero(packing > 0).tolist():
            position, cells = self.cuts[j]
            lam[position, cells] += packing[j]
        return lam

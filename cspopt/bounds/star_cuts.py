"""A lower bound for one cell of a 2-D table from the cuts its own pattern draws around it.

On a 2-D table the relations are flow conservation on the bipartite row/column graph
(Almeida & Carvalho 2005 §2; :mod:`cspopt.table.network`), and cell ``k = (s, t)`` can be
moved by ``D`` (its ``lpl`` or ``upl``) exactly when the suppressed cells, with their rooms
as capacities, carry a flow of ``D`` from ``s`` to ``t`` besides ``k``: every cut that
separates ``t`` from ``s`` must hold ``D`` (Fischetti & Salazar-Gonzalez 1999, capacity
constraints). Four of those cuts are named by the pattern itself:

(A) the star of ``s`` (the suppressed cells at ``s``; for a grand total, the suppressed
    column totals);
(B) the star of ``t``;
(C) ``s`` with its neighbours ``N_s`` through suppressed cells: the suppressed inner cells
    leaving ``N_s`` (for a grand total, the inner cells of the suppressed columns);
(D) the same at ``t``.

(A) and (B) are knapsacks over the cells at ``s`` and ``t``; (C) and (D) count an inner cell
once if one of its ends is in ``N_s`` or ``N_t`` and twice if both are. The capacity LP holds
these cuts for the node sets it picks at its fractional point, so it may buy a fraction of
many marginals; here the marginals are whole. For fixed ``N_s, N_t`` the inner cells' cost
is at least the dual value ``rho (a + b) - sum_f max(0, m_f rho c_f - w_f)`` of the covering
LP of (C) and (D) (``a, b``: what they need beyond the sensitive cells, ``m_f`` how many of
them count cell ``f``, ``c_f`` its capacity clipped at ``D``, any ``rho >= 0``). That makes
the pattern's cost at least ``const + h(X) + g(Z) - cross(X, Z)`` over the suppressed
marginals ``X`` at ``s`` and ``Z`` at ``t``, with ``cross >= 0`` only between the two, and
the bound is the least of ``h_min(l) + g_min(k) - cross_max(k, l)`` over the counts ``l,
k``: cardinality knapsacks solved exactly (HiGHS) and the ``k x l`` largest crosses.

Where one sensitive grand total needs a flow through hundreds of inner cells (GenSup class
II, Kelly, Golden & Assad 1992's 15 %), this is what the capacity LP and SCIP's tree do not
see; the pattern built from the minimising marginals (the inner cells both cuts count first)
is often cheaper than the branch-and-cut's.

Complexity: one pass over the cells per ``rho``, then at most one knapsack MIP per count and
one MIP per pair of counts (usually one or two).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cspopt.backends.highs import run_highs
from cspopt.backends.program import LinearProgram
from cspopt.errors import NotNetworkError, SolverError
from cspopt.models.interval import IntervalInstance

log = logging.getLogger(__name__)

__all__ = ["StarBound", "star_bound", "KNAPSACK_SECONDS", "PAIR_SECONDS"]

#: time limit of each cardinality knapsack (its dual bound counts where it stops)
KNAPSACK_SECONDS = 5.0
#: and of each pair of counts solved whole
PAIR_SECONDS = 30.0
#: the quantiles of the inner cells' cost per capacity tried as the multiplier ``rho``
#: (besides 1, which is exact where cost = value)
_RHO_QUANTILES = (0.25, 0.5, 0.75)


@dataclass(frozen=True)
class StarBound:
    """The outcome of :func:`star_bound`: a valid ``lower_bound`` on every pattern's cost
    over the instance's candidates, and ``pattern``, a 0/1 ``y`` over the candidates: the
    cheapest of those filled from the marginals the best bound met, which meets the four
    cuts (it need not protect every cell, nor even ``cell``; callers check it)."""

    cell: int
    lower_bound: float
    pattern: np.ndarray | None


@dataclass(frozen=True)
class _Star:
    """One side of one cell: its requirement, the marginals at ``s`` (``x``) and ``t``
    (``z``) and the inner cells between their far ends, with their capacities in the
    direction the cuts cross them. Positions index the instance's free cells."""

    need: float  # D
    x_cells: np.ndarray  # free positions of the cells at s
    x_cap: np.ndarray
    z_cells: np.ndarray
    z_cap: np.ndarray
    inner: np.ndarray  # free positions of the inner cells
    inner_cap: np.ndarray
    inner_x: np.ndarray  # the x item at the inner cell's end on t's side, -1 if none
    inner_z: np.ndarray  # the z item at its end on s's side, -1 if none


def _star(inst: IntervalInstance, k: int, lower: bool) -> _Star | None:
    """The cuts (A)-(D) of protected cell ``inst.protected[k]`` on one side; ``None`` where
    the table is not a bipartite network or two cells join the same pair of nodes."""
    try:
        net = inst.table.network()
    except NotNetworkError:
        return None
    if net.side is None:
        return None
    cell, table = int(inst.protected[k]), inst.table
    need = float((table.lower_protection if lower else table.upper_protection)[cell])
    if not need > 0:
        return None
    free = inst.free
    tail, head = net.tail[free], net.head[free]
    down, up = inst.rooms(k)
    here = np.searchsorted(free, cell)
    # lowering k sends its flow head -> tail, so the other cells carry it tail -> head
    s, t = (int(net.tail[cell]), int(net.head[cell]))
    if not lower:
        s, t = t, s
    other = np.ones(free.size, dtype=bool)
    other[here] = False
    at_s = other & ((tail == s) | (head == s))
    at_t = other & ((tail == t) | (head == t))
    if np.any(at_s & at_t):
        return None
    x_cells = np.flatnonzero(at_s)
    x_far = np.where(tail[x_cells] == s, head[x_cells], tail[x_cells])
    z_cells = np.flatnonzero(at_t)
    z_far = np.where(head[z_cells] == t, tail[z_cells], head[z_cells])
    if np.unique(x_far).size < x_far.size or np.unique(z_far).size < z_far.size:
        return None

    def room(cells, leaving):  # each cell's room in the direction leaving node `leaving`
        return np.minimum(np.where(tail[cells] == leaving, up[cells], down[cells]), need)

    inner = np.flatnonzero(other & ~at_s & ~at_t)
    # an inner cell's end on t's side of the bipartition is a far end of s's star
    t_side = net.side[t]
    j = np.where(net.side[tail[inner]] == t_side, tail[inner], head[inner])
    i = np.where(net.side[tail[inner]] == t_side, head[inner], tail[inner])
    x_of = np.full(net.num_nodes, -1)
    x_of[x_far] = np.arange(x_cells.size)
    z_of = np.full(net.num_nodes, -1)
    z_of[z_far] = np.arange(z_cells.size)
    return _Star(need=need, x_cells=x_cells, x_cap=room(x_cells, s), z_cells=z_cells,
                 z_cap=room(z_cells, z_far), inner=inner, inner_cap=room(inner, j),
                 inner_x=x_of[j], inner_z=z_of[i])


def _cardinality_knapsack(cost: np.ndarray, cap: np.ndarray, need: float, count: int
                          ) -> tuple[float, np.ndarray | None]:
    """``min cost @ v`` over 0/1 ``v`` with ``sum v = count`` and ``cap @ v >= need``: its
    dual bound (valid where HiGHS stops) and its best point."""
    n = cost.size
    matrix = sp.csr_matrix(np.vstack([cap, np.ones(n)]))
    outcome = run_highs(LinearProgram(cost, matrix, np.array([need, count]),
                                      np.array([np.inf, count]), np.zeros(n), np.ones(n),
                                      np.ones(n, dtype=bool)),
                        relax=False, time_limit=KNAPSACK_SECONDS)
    point = None if not outcome.has_solution else np.asarray(outcome.x) > 0.5
    if outcome.termination == "infeasible":
        return np.inf, None
    return float(outcome.lower_bound), point


class _Sizes:
    """``min`` over 0/1 ``v`` with ``sum v = count`` and ``cap @ v >= need`` of ``cost @ v``
    for every ``count``: from below by the ``count`` cheapest items until asked, then
    exactly (:func:`_cardinality_knapsack`)."""

    def __init__(self, cost: np.ndarray, cap: np.ndarray, need: float):
        self.cost, self.cap, self.need = cost, cap, need
        n = cost.size
        counts = np.arange(n + 1)
        reach = np.concatenate([[0.0], np.cumsum(np.sort(cap)[::-1])])
        cheapest = np.concatenate([[0.0], np.cumsum(np.sort(cost))])
        tol = 1e-9 * max(1.0, need)
        self.value = np.where(reach >= need - tol, cheapest, np.inf)
        self.exact = ~np.isfinite(self.value) | ((counts == 0) & (need <= tol))
        self.point: dict[int, np.ndarray] = {}
        if self.exact[0] and np.isfinite(self.value[0]):
            self.point[0] = np.zeros(n, dtype=bool)

    def refine(self, count: int) -> None:
        value, point = _cardinality_knapsack(self.cost, self.cap, self.need, count)
        self.value[count] = max(value, self.value[count]) if np.isfinite(value) else np.inf
        self.exact[count] = True
        if point is not None:
            self.point[count] = point


def _largest_cross(cross: np.ndarray) -> np.ndarray:
    """``out[k, l]``: an upper bound on ``cross`` summed over any ``k`` columns and ``l``
    rows (rows: the x items, columns: the z items), the smaller of the two ways of adding
    each line's largest entries."""
    nx, nz = cross.shape
    out = np.full((nz + 1, nx + 1), np.inf)
    for matrix, transpose in ((cross, False), (cross.T, True)):
        # lines of `matrix` are one kind of item; a line's top-q entries, then the top-p lines
        top = np.cumsum(-np.sort(-matrix, axis=1), axis=1)  # lines x q
        top = np.hstack([np.zeros((matrix.shape[0], 1)), top])
        best = np.cumsum(-np.sort(-top, axis=0), axis=0)  # p x q, p >= 1
        best = np.vstack([np.zeros((1, best.shape[1])), best])
        out = np.minimum(out, best.T if not transpose else best)
    return out


def _pair_mip(h: np.ndarray, g: np.ndarray, cross: np.ndarray, caps, needs, count_x: int,
              count_z: int, time_limit: float | None):
    """``min h x + g z - cross(x, z)`` over 0/1 ``x, z`` with ``count_x`` and ``count_z``
    items and both knapsacks: its dual bound and its best point (or ``None``).

    The products ``w_ij = x_i z_j`` enter relaxed (``w_ij <= x_i, z_j``) and, since the
    counts are fixed, with ``sum_j w_ij <= count_z x_i`` and ``sum_i w_ij <= count_x z_j``,
    which leave the LP within a fraction of a per cent of the optimum on the tables tried
    (solved in about a second)."""
    nx, nz = h.size, g.size
    pairs = np.argwhere(cross > 0)
    npairs = len(pairs)
    nvar = nx + nz + npairs
    e = np.arange(npairs)
    w_col = nx + nz + e

    def row(cols, values):
        return sp.csr_matrix((values, (np.zeros(len(cols), dtype=int), cols)), shape=(1, nvar))

    def rows(heads, cols, values, count):
        return sp.csr_matrix((values, (heads, cols)), shape=(count, nvar))

    x_cols, z_cols = np.arange(nx), nx + np.arange(nz)
    matrix = sp.vstack([
        row(x_cols, caps[0]), row(z_cols, caps[1]),
        row(x_cols, np.ones(nx)), row(z_cols, np.ones(nz)),
        rows(e, w_col, np.ones(npairs), npairs) - rows(e, pairs[:, 0], np.ones(npairs), npairs),
        rows(e, w_col, np.ones(npairs), npairs)
        - rows(e, nx + pairs[:, 1], np.ones(npairs), npairs),
        rows(pairs[:, 0], w_col, np.ones(npairs), nx)
        - rows(x_cols, x_cols, np.full(nx, float(count_z)), nx),
        rows(pairs[:, 1], w_col, np.ones(npairs), nz)
        - rows(np.arange(nz), z_cols, np.full(nz, float(count_x)), nz)]).tocsr()
    lower = np.concatenate([[needs[0], needs[1], count_x, count_z],
                            np.full(2 * npairs + nx + nz, -np.inf)])
    upper = np.concatenate([[np.inf, np.inf, count_x, count_z], np.zeros(2 * npairs + nx + nz)])
    cost = np.concatenate([h, g, -cross[pairs[:, 0], pairs[:, 1]]])
    integer = np.concatenate([np.ones(nx + nz, dtype=bool), np.zeros(npairs, dtype=bool)])
    outcome = run_highs(LinearProgram(cost, matrix, lower, upper, np.zeros(nvar),
                                      np.ones(nvar), integer),
                        relax=False, time_limit=time_limit)
    if outcome.termination == "infeasible":
        return np.inf, None
    point = None
    if outcome.has_solution:
        point = (np.asarray(outcome.x[:nx]) > 0.5, np.asarray(outcome.x[nx:nx + nz]) > 0.5)
    return float(outcome.lower_bound), point


def _side_bound(star: _Star, weights: np.ndarray, always: np.ndarray, rho: float,
                deadline: float | None, floor: float
                ) -> tuple[float, list[tuple[np.ndarray, np.ndarray]]]:
    """The bound of one side for one ``rho`` and marginals (x, z masks over the stars)
    worth filling: those of the least pair of counts, and of every pair solved whole.

    Pairs of counts are taken cheapest first by ``h_min + g_min - cross_max``; the sizes'
    knapsacks are solved when a pair needs them, then the pair itself
    (:func:`_pair_mip`) while time is left; the bound is the least over pairs of what is
    known of each. It stops once the sizes' points show the bound cannot exceed ``floor``
    (a multiplier that does not suit this side)."""
    w_in, c_in = weights[star.inner], star.inner_cap
    fixed_in = always[star.inner]
    p1 = np.where(fixed_in, 0.0, np.maximum(0.0, rho * c_in - w_in))
    p2 = np.where(fixed_in, 0.0, np.maximum(0.0, 2 * rho * c_in - w_in))
    credit = np.where(fixed_in, rho * c_in, 0.0)  # sensitive inner cells: capacity for free
    cross_in = p2 - 2 * p1
    nx, nz = star.x_cells.size, star.z_cells.size
    has_x, has_z = star.inner_x >= 0, star.inner_z >= 0
    h = weights[star.x_cells] - np.bincount(star.inner_x[has_x], weights=(credit + p1)[has_x],
                                            minlength=nx)
    g = weights[star.z_cells] - np.bincount(star.inner_z[has_z], weights=(credit + p1)[has_z],
                                            minlength=nz)
    both = has_x & has_z
    cross = np.zeros((nx, nz))
    np.add.at(cross, (star.inner_x[both], star.inner_z[both]), cross_in[both])
    x_in, z_in = always[star.x_cells], always[star.z_cells]
    const = 2 * rho * star.need + h[x_in].sum() + g[z_in].sum() - cross[np.ix_(x_in, z_in)].sum()
    g_free = g[~z_in] - cross[np.ix_(x_in, ~z_in)].sum(axis=0)
    h_free = h[~x_in] - cross[np.ix_(~x_in, z_in)].sum(axis=1)
    cross_free = cross[np.ix_(~x_in, ~z_in)]
    caps = (star.x_cap[~x_in], star.z_cap[~z_in])
    needs = (star.need - star.x_cap[x_in].sum(), star.need - star.z_cap[z_in].sum())
    xs, zs = _Sizes(h_free, caps[0], needs[0]), _Sizes(g_free, caps[1], needs[1])
    largest = _largest_cross(cross_free)
    solved: dict[tuple[int, int], float] = {}
    marginals = []

    def whole(x_free, z_free):
        x_mask, z_mask = x_in.copy(), z_in.copy()
        x_mask[~x_in], z_mask[~z_in] = x_free, z_free
        return x_mask, z_mask

    while True:
        pair = zs.value[:, None] + xs.value[None, :] - largest
        for (kz, lx), value in solved.items():
            pair[kz, lx] = value
        if not np.isfinite(pair).any():
            return -np.inf, []  # the cell cannot be protected: no bound from here
        kz, lx = (int(i) for i in np.unravel_index(int(np.argmin(pair)), pair.shape))
        if (kz, lx) in solved:
            break
        if not (zs.exact[kz] and xs.exact[lx]):
            for sizes, count in ((zs, kz), (xs, lx)):
                if not sizes.exact[count]:
                    sizes.refine(count)
            continue
        if not marginals and kz in zs.point and lx in xs.point:
            marginals.append(whole(xs.point[lx], zs.point[kz]))
            x_free, z_free = xs.point[lx], zs.point[kz]
            if const + (h_free[x_free].sum() + g_free[z_free].sum()
                        - cross_free[np.ix_(x_free, z_free)].sum()) <= floor:
                break
        left = None if deadline is None else deadline - time.perf_counter()
        if not np.any(cross_free) or (left is not None and left <= 0):
            break
        value, point = _pair_mip(h_free, g_free, cross_free, caps, needs, lx, kz,
                                 None if left is None else min(left, PAIR_SECONDS))
        solved[kz, lx] = max(value, pair[kz, lx])
        if point is not None:
            marginals.append(whole(*point))
    return const + float(pair[kz, lx]), marginals


def _fill(star: _Star, weights: np.ndarray, always: np.ndarray, x_mask: np.ndarray,
          z_mask: np.ndarray) -> np.ndarray:
    """Free positions of a pattern meeting cuts (A)-(D) with the marginals ``x_mask`` and
    ``z_mask``: those marginals, then inner cells both (C) and (D) count, cheapest per unit
    of capacity first, then those one counts."""
    counted_c = (star.inner_x >= 0) & x_mask[np.maximum(star.inner_x, 0)]
    counted_d = (star.inner_z >= 0) & z_mask[np.maximum(star.inner_z, 0)]
    cap, w = star.inner_cap, weights[star.inner]
    taken = always[star.inner] & (counted_c | counted_d)
    need_c = star.need - cap[taken & counted_c].sum()
    need_d = star.need - cap[taken & counted_d].sum()
    usable = ~taken & (cap > 0) & ~always[star.inner]
    ratio = w / np.maximum(cap, 1e-300)
    for mask in (counted_c & counted_d, counted_c, counted_d):
        for f in np.flatnonzero(usable & mask)[np.lexsort((-cap[usable & mask],
                                                            ratio[usable & mask]))]:
            wants_c, wants_d = counted_c[f] and need_c > 0, counted_d[f] and need_d > 0
            if not (wants_c or wants_d):
                continue
            taken[f], usable[f] = True, False
            need_c -= cap[f] if counted_c[f] else 0.0
            need_d -= cap[f] if counted_d[f] else 0.0
    return np.concatenate([star.x_cells[x_mask], star.z_cells[z_mask], star.inner[taken]])


def star_bound(inst: IntervalInstance, cell: int, *,
               time_limit: float | None = None) -> StarBound | None:
    """The star-cut bound of protected cell ``cell`` (both sides, the best ``rho``) and
    the cheapest pattern filled from the marginals met on the way; ``None`` where the table
    is not a 2-D (bipartite) network or a knapsack fails (logged). Stopped by
    ``time_limit``, the bound is still valid (pairs of counts not solved whole count with
    their knapsacks' bound)."""
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    k = int(np.flatnonzero(inst.protected == cell)[0])
    always = inst.table.sensitive[inst.free]  # suppressed at no cost; the rest are candidates
    weights = np.where(always, 0.0, inst.weights[inst.free])
    best, pattern = -np.inf, None
    for lower, needed in zip((True, False), inst.sides[k]):
        star = _star(inst, k, lower) if needed else None
        if star is None:
            continue
        ratios = weights[star.inner] / np.maximum(star.inner_cap, 1e-300)
        ratios = ratios[~always[star.inner] & (star.inner_cap > 0)]
        rhos = {1.0} | ({float(r) for r in np.quantile(ratios, _RHO_QUANTILES)}
                        if ratios.size else set())
        for rho in sorted(r for r in rhos if r > 0):
            try:
                bound, marginals = _side_bound(star, weights, always, rho, deadline,
                                               max(best, 0.0))
            except SolverError as error:
                log.warning("star cuts of cell %d: a knapsack failed: %s", cell, error)
                return None
            if bound > best:
                best = bound
                filled = [_fill(star, weights, always, *pair) for pair in marginals]
                if filled:
                    pattern = min(filled, key=lambda cells: weights[cells].sum())
    if not np.isfinite(best):
        return None
    y = None
    if pattern is not None:
        y = np.zeros(inst.free.size)
        y[pattern] = 1.0
        y = y[~always]
    return StarBound(cell=int(cell), lower_bound=max(best, 0.0), pattern=y)

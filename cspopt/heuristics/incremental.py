"""The incremental attacker heuristic for interval protection (Smith, Clarke & Sazonov 2012).

Smith et al. (2012) eqs (3)-(7): protect the sensitive cells one at a time; for each, solve
the attacker LP that moves it by its protection level at least cost, where cells already
suppressed are free, and suppress every cell that moves. The LP solution is itself an
attacker completion, so every requirement met on the way holds for the final pattern. It is
the start incumbent of the interval branch-and-cut and of the compact MIP, and completes a
pattern that a repair could not.
"""

from __future__ import annotations

import logging
import time
import uuid

import numpy as np
import scipy.sparse as sp

from cspopt.backends.highs import INF, OPTIMAL, TIME_LIMIT, Resolver, new_highs
from cspopt.budget import Budget
from cspopt.models.interval.instance import IntervalInstance
from cspopt.parallel import Workers
from cspopt.table.neighbourhood import closure

__all__ = ["incremental_attacker", "lp_guided_attacker", "lp_guided_costs", "dealt"]

log = logging.getLogger(__name__)


#: a group of at most this many cells whose LP fails is protected one cell at a time
_SINGLY = 2
#: a completion meets a side with this relative (and absolute) margin to spare
_MET = 1e-9
#: an LP's value at most this is 0: the cell does not move (nor join the pattern, nor the
#: completion handed to the audit: an interior point solution leaves such dust)
_STILL = 1e-9
#: the largest imbalance of a relation that a completion found without crossover may have
#: (the audit's own tolerance, :data:`cspopt.audit.judge.TOLERANCE`, before its relative slack)
_BALANCED = 1e-6
#: LPs solved before the pace is first measured (and the cells left regrouped to fit)
_PACE_AFTER = 4
#: the time an LP takes is multiplied by this in the pace: groups that fail cost their
#: halves' LPs too
_PACE_SLACK = 1.25
#: a group's LP is paced at this many times a single cell's: it takes longer (37,926-cell
#: 3-D table, groups of 32: 30 s against 13 s), and the pace learns it only after a batch of
#: them, too late where the time left holds one or two batches
_GROUP_PACE = 2.0
#: from this many free cells up, a single cell's LP is first solved over its neighbourhood
#: (:meth:`_ResolvedLP.solve_near`)
_NEAR_FROM = 2_000
#: from this many free cells up, the attacker LPs over the whole table are solved by HiGHS's
#: interior point method, with crossover (so the solution is a vertex, as by simplex): on a
#: 37,926-cell 3-D table 12-14 s an LP against 10-54 s by dual simplex, on a 6,552-cell one
#: 0.7 s against 0.2 s
_INTERIOR_FROM = 20_000
#: a column prices out when its reduced cost is below ``-_PRICED (1 + |cost|)``
_PRICED = 1e-7
#: groups protected side by side in a run over workers (:func:`_protect_batches`): a fixed
#: number, so that the pattern does not depend on how many workers there are
_BATCH = 8


def incremental_attacker(inst: IntervalInstance, *, suppressed=(),
                         budget: Budget | None = None, costs: np.ndarray | None = None,
                         order=None, fallback: bool = True, pool: Workers | None = None,
                         completions: list | None = None) -> np.ndarray | None:
    """Smith et al. (2012) eqs (3)-(7): protect the cells one at a time with attacker LPs.

    For each protected cell and side, solve
    ``min sum_i c_i (y+_i + y-_i)  s.t.  A (y+ - y-) = 0,  0 <= y+ <= M_i, 0 <= y-_i <= a_i - lb_i,
    y+_p = upl_p`` (or ``y-_p = lpl_p``), with ``c_i = 0`` for cells already suppressed and
    ``w_i`` otherwise. Every cell that moves joins the pattern. The LP solution is itself an
    attacker completion, so each requirement holds for the final pattern. A sliding
    requirement raises the upper target to ``max(upl, spl - lpl)``. Returns the suppressed
    candidate cells (sorted ids). ``suppressed``: cells already suppressed (cost 0), e.g. a
    pattern to complete. Once ``budget`` expires the cells not yet
    protected get one LP a side together, past the deadline (a bounded overrun: a 38,000-
    cell table's group LP takes about 30 s), and where that has no solution, every candidate
    is suppressed: still safe whenever any pattern is, and a time-limited caller keeps an
    audited incumbent to prune (``fallback=False``: ``None`` at the deadline instead).
    ``costs`` (one per free cell, ``inst.free``) replace the weights as the LPs' costs
    (:func:`lp_guided_attacker`). ``order``: the protected cells (indices into
    ``inst.protected``) in the order to protect them (default: as listed; Smith et
    al.'s GA searches it, :mod:`cspopt.heuristics.smith_ga`); an entry may be an array of
    them, a group protected by one LP a side (Smith et al. 2012 §V,
    :func:`_protect_together`); a group whose LP has no solution is split in halves, down
    to :data:`_SINGLY` cells protected one at a time (an LP of a 38,000-cell table takes
    seconds: a group of 16 cells costs 8 LPs this way, not 32). A side that an earlier
    LP's completion meets needs no LP of its own (:class:`_Covered`). Under a ``budget``
    the pace is measured after each LP from the first few on, and the cells left are
    regrouped into fewer groups whenever their LPs would not fit the time left
    (:func:`_paced`; a group's LP takes longer than a single cell's, so the pace is
    measured again on them).

    One HiGHS model is re-solved with new costs and bounds (:class:`_ResolvedLP`); on a large
    table a single cell's LP is first solved over its neighbourhood and kept where pricing
    proves it optimal for the whole table (:meth:`_ResolvedLP.solve_near`); every LP (a
    group's too: its second side often runs through the cells its first one moved) is then
    tried over the cells suppressed alone, kept where it has a solution (cost 0:
    :meth:`_ResolvedLP.solve_on_pattern`).

    With a ``pool`` (:class:`~cspopt.parallel.Workers`, even of one worker) the groups go
    in batches of :data:`_BATCH`, each protected against the pattern its batch started
    from, on the pool's workers side by side (:func:`_protect_batches`), every LP solved
    cold: the batches do not depend on the number of workers, so neither does the pattern.
    ``completions`` (a list) receives every completion the pattern was built on, as ``(cells,
    deviations)``: the proofs that an audit checks and reuses
    (:func:`cspopt.audit.interval_verdict`'s ``completions``).
    """
    table = inst.table
    if not inst.protected.size:
        return np.intersect1d(inst.candidates, np.asarray(suppressed, dtype=np.int64))
    rel = inst.relations
    matrix = sp.hstack([rel, -rel]).tocsr()  # columns: y+ then y-
    suppressed = table.sensitive[inst.free] | np.isin(inst.free, np.asarray(suppressed,
                                                                             dtype=np.int64))
    weights = inst.weights[inst.free] if costs is None else np.asarray(costs, float)
    lp = _ResolvedLP(matrix, budget) if pool is None else _Batched(matrix, budget, pool)
    covered = _Covered(inst, completions)
    pending = [np.atleast_1d(np.asarray(group, dtype=np.int64)) for group in
               (range(inst.protected.size) if order is None else order)]
    try:
        return _protect_pending(inst, lp, pending, weights, suppressed, covered, fallback)
    finally:
        if isinstance(lp, _Batched):
            lp.close()


def _protect_pending(inst: IntervalInstance, lp, pending: list[np.ndarray],
                     weights: np.ndarray, suppressed: np.ndarray, covered: _Covered,
                     fallback: bool) -> np.ndarray | None:
    """:func:`incremental_attacker`'s loop over the groups ``pending``, by ``lp`` (a
    :class:`_ResolvedLP`, or :class:`_Batched` over workers)."""
    table = inst.table
    total = sum(group.size for group in pending)
    last_try = False  # the cells left at the deadline, in one group
    while pending:
        if max(_PACE_AFTER, 1) <= lp.solves and not last_try:  # regroup what the time left
            pending = _paced(pending, lp, covered)             # cannot take
        if lp.out_of_time():
            left = sum(group.size for group in pending)
            log.info("incremental attacker: deadline with %d of %d cells left%s", left, total,
                     ": one LP a side for them all" if fallback and not last_try else "")
            if not fallback or last_try:
                return inst.candidates.copy() if fallback else None
            # one group LP a side past the deadline, before every candidate
            last_try, lp.budget, lp.stopped = True, None, False
            pending = [np.concatenate(pending)]
        if isinstance(lp, _Batched):
            _protect_batches(inst, lp, pending, weights, suppressed, covered)
        else:
            _protect_next(inst, lp, pending, weights, suppressed, covered)
        if last_try and pending:  # the last group's LP has no solution
            log.info("incremental attacker: the cells left at the deadline have no common "
                     "completion")
            return inst.candidates.copy()
    log.info("incremental attacker: %d LPs (%d of them over a neighbourhood or the pattern, "
             "%d not needed after all); %d sides met by earlier LPs' completions", lp.solves,
             lp.near_solves, lp.spared, covered.reused)
    cells = inst.free[suppressed & ~table.sensitive[inst.free]]
    return np.sort(cells)


def _protect_next(inst: IntervalInstance, lp: _ResolvedLP, pending: list[np.ndarray],
                  weights: np.ndarray, suppressed: np.ndarray, covered: _Covered) -> None:
    """Protect the first group of ``pending`` (popped): by one LP a side; where that has no
    solution, its halves go back to the front, and from :data:`_SINGLY` cells down its
    cells one at a time (eqs 3-7). Cells whose LP the deadline stopped go back to the front
    of ``pending``."""
    group = pending.pop(0)
    if group.size > 1 and _protect_together(inst, lp, group, weights, suppressed, covered):
        return
    if lp.out_of_time():
        pending.insert(0, group)
    elif group.size > _SINGLY:  # a group the LP could not move: its halves
        pending[:0] = np.array_split(group, 2)
    else:
        for i, k in enumerate(group.tolist()):
            if (not _protect_together(inst, lp, np.array([k]), weights, suppressed, covered)
                    and lp.out_of_time()):
                pending.insert(0, group[i:])
                return


def _protect_together(inst: IntervalInstance, lp: _ResolvedLP, group: np.ndarray,
                      weights: np.ndarray, suppressed: np.ndarray, covered: _Covered
                      ) -> bool:
    """Protect the cells ``group`` (indices into ``inst.protected``) with one attacker LP a
    side, adding every cell that moves to ``suppressed`` (in place).

    The up LP moves every member that needs upper (or sliding) protection up by its target
    at once, the down LP every member that needs lower protection down: one completion
    serves them all, so each requirement holds for any pattern that contains the LP's
    support. Smith et al. (2012) §V protect the candidate primaries in 40 groups this way,
    so that an evaluation of the GA costs 80 LPs whatever the table. Returns False, having
    changed nothing, when a group's LP has no solution (its members may pull against each
    other); a single cell's side that cannot be met is skipped (the MIP will say
    infeasible). A side that an earlier LP's completion already meets (``covered``) needs
    no LP: that completion moves only cells suppressed since.
    """
    found = _solve_sides(lp, _plan(inst, group, covered), weights, suppressed,
                         together=group.size > 1)
    if found is None:
        return False
    _merge(found, suppressed, covered)
    return True


def _plan(inst: IntervalInstance, group: np.ndarray, covered: _Covered) -> list[tuple]:
    """The attacker LPs that protect ``group`` (indices into ``inst.protected``): for each
    side some member still needs (``covered``), ``(up, members, p, lo, hi)``: the side, the
    members it moves, their free-cell indices and the LP's column bounds (``y+`` then
    ``y-``; the members move one way only, by their targets)."""
    table, nf = inst.table, inst.free.size
    cells = inst.protected[group]
    at = np.searchsorted(inst.free, cells)
    lpl, upl, spl = (table.lower_protection[cells], table.upper_protection[cells],
                     table.sliding_protection[cells])
    sides = []
    for up, targets in ((True, np.maximum(upl, spl - lpl)), (False, lpl)):
        need = (targets > 0) & ~covered.met(group, up)
        if not need.any():
            continue
        p = at[need]
        hi = np.concatenate([inst.up_room[group[need]].max(axis=0), inst.down_room])
        lo = np.zeros(2 * nf)
        hi[nf + p if up else p] = 0.0  # the cells move one way only
        lo[p if up else nf + p] = hi[p if up else nf + p] = targets[need]
        sides.append((up, group[need], p, lo, hi))
    return sides


def _solve_sides(lp: _ResolvedLP, sides: list[tuple], weights: np.ndarray,
                 suppressed: np.ndarray, *, together: bool) -> list[np.ndarray] | None:
    """The completions of :func:`_plan`'s ``sides``, in turn, each LP pricing at 0 the
    cells suppressed and those the LPs before it moved; ``None`` where a side of a group
    (``together``) has no solution, a single cell's such side skipped."""
    moved, found = suppressed.copy(), []
    for _, _, p, lo, hi in sides:
        cost = np.tile(np.where(moved, 0.0, weights), 2)
        x = lp.solve_near(int(p[0]), cost, lo, hi) if p.size == 1 else None
        if x is None:  # a group's second side often runs through the first one's cells
            x = lp.solve_on_pattern(cost, lo, hi, vertex=p.size == 1)
        if x is None:
            x = lp.solve(cost, lo, hi)
        if x is not None:
            moved |= _support(x)
            found.append(x)
        elif together or lp.out_of_time():  # a single cell's side is skipped where it
            return None                     # has no completion, not where time ran out
    return found


def _support(x: np.ndarray) -> np.ndarray:
    """The free cells an LP solution ``x`` (``y+`` then ``y-``) moves."""
    nf = x.size // 2
    return x[:nf] + x[nf:] > 0


def _feasible(matrix: sp.csr_matrix, x: np.ndarray) -> bool:
    """Whether ``x`` (within its bounds already) meets every relation ``matrix x = 0`` to
    :data:`_BALANCED`: an interior point stopped without crossover is checked before it is
    taken for a completion (the audit accepts completions to its own, looser, slack)."""
    return bool(np.all(np.abs(matrix @ x) <= _BALANCED))


def _still(x: np.ndarray) -> np.ndarray:
    """The LP solution ``x`` with its values up to :data:`_STILL` set to 0 (in place)."""
    x[x <= _STILL] = 0.0
    return x


def _merge(found: list[np.ndarray], suppressed: np.ndarray, covered: _Covered) -> None:
    """Every cell the completions ``found`` move joins ``suppressed`` (in place); the sides
    they meet are recorded in ``covered``."""
    for x in found:
        suppressed |= _support(x)
        covered.record(x)


def _protect_batches(inst: IntervalInstance, lp: _Batched, pending: list[np.ndarray],
                     weights: np.ndarray, suppressed: np.ndarray, covered: _Covered) -> None:
    """The next :data:`_BATCH` groups of ``pending`` that need an LP (those whose sides
    earlier completions meet are done) protected side by side on the workers, each
    against the pattern the batch started from, their completions merged in order.

    A member whose sides the completions merged before it already meet is left out (its
    cells are not needed), so a batch adds little over protecting its members in turn. A
    group whose LP has no solution goes back to the front of ``pending`` as its halves,
    or, from :data:`_SINGLY` cells down, one cell at a time, as in the sequential run."""
    batch, plans = [], []
    while pending and len(batch) < _BATCH:  # groups that need an LP: the others are done
        group = pending.pop(0)
        sides = _plan(inst, group, covered)
        if sides:
            batch.append(group)
            plans.append(sides)
    returned, started = [], time.perf_counter()
    done = lp.run(plans, weights, suppressed, [g.size > 1 for g in batch])
    log.info("incremental attacker: a batch of %d groups (%d cells) in %.1f s, %d without a "
             "completion; %d groups left", len(batch), sum(g.size for g in batch),
             time.perf_counter() - started, sum(found is None for found in done), len(pending))
    for group, sides, found in zip(batch, plans, done):
        if found is None:
            returned.extend(np.array_split(group, 2) if group.size > _SINGLY
                            else [np.array([k]) for k in group.tolist()])
        elif not all((covered.up if up else covered.down)[members].all()
                     for up, members, *_ in sides):
            _merge(found, suppressed, covered)
        else:
            lp.spared += len(found)
    pending[:0] = returned


def _paced(pending: list[np.ndarray], lp: _ResolvedLP, covered: _Covered
           ) -> list[np.ndarray]:
    """``pending`` regrouped so that its LPs fit the budget left at the pace measured so
    far: where its sides (two a group) times the share of sides that took an LP so far
    (the others met by earlier completions) times the seconds an LP took exceed the time
    left over :data:`_PACE_SLACK` (a group's LP counted :data:`_GROUP_PACE` times a single
    cell's until the pace is measured on groups), the cells left are dealt into as many
    groups as fit
    (Smith et al. 2012 §V's groups, a cost the budget makes worth paying: the fallback at
    the deadline is every candidate). Dealt in turn, not cut in runs: cells next to each
    other in the table's order share relations and pull against each other in one LP
    (6,552-cell 3-D table, 223 cells in groups of 32: 14 LPs, none failed, +6.6 M, against
    23 LPs, 4 failed, +8.3 M in runs). Left as it is otherwise."""
    left = lp.budget.remaining() if lp.budget is not None else np.inf
    per_side = lp.solves / (lp.solves + covered.reused)
    pace = lp.seconds / lp.solves

    def affordable(seconds: float) -> float:  # sides, at ``seconds`` an LP
        return left / seconds / _PACE_SLACK / per_side

    if 2 * len(pending) <= affordable(pace):
        return pending
    cells = np.concatenate(pending)
    singles = all(group.size == 1 for group in pending)
    groups = int(max(1, min(affordable(pace * (_GROUP_PACE if singles else 1)) // 2,
                            cells.size)))
    log.info("incremental attacker: %d cells left, %.0f s left at %.1f s an LP: %d groups",
             cells.size, left, pace, groups)
    return dealt(cells, groups)


def dealt(cells: np.ndarray, groups: int) -> list[np.ndarray]:
    """``cells`` dealt in turn into ``groups`` groups (an ``order`` of
    :func:`incremental_attacker`): not cut in runs, for cells next to each other in the
    table's order share relations and pull against each other in one LP (:func:`_paced`)."""
    return [cells[g::groups] for g in range(groups)]


class _Covered:
    """The protected cells' sides that a completion found so far meets.

    Every LP solution ``x`` is an attacker completion ``d = x+ - x-`` within the a-priori
    bounds, supported on cells that join the pattern; it raises protected cell ``p`` by
    ``d_p`` and, where ``-d`` is within the bounds too, lowers it as far. Any side it meets
    (``d_p >= max(upl_p, spl_p - lpl_p)`` up, ``d_p <= -lpl_p`` down) is met for good, so the
    LP that side would cost is saved (Smith et al. 2012 solve one LP per side regardless).
    Recording a completion is ``O(|free|)``, far below its LP; where ``kept`` is a list,
    each is appended to it as ``(cells, deviations)``.
    """

    def __init__(self, inst: IntervalInstance, kept: list | None = None):
        table, cells = inst.table, inst.protected
        self.free, self.kept = inst.free, kept
        self.at = np.searchsorted(inst.free, cells)
        lpl = table.lower_protection[cells]
        self.up_target = np.maximum(table.upper_protection[cells],
                                    table.sliding_protection[cells] - lpl)
        self.down_target = lpl
        self.room = np.r_[inst.up_room.room, inst.down_room]  # the bounds of x+ then x-
        nf = inst.free.size
        self.swap = np.r_[np.arange(nf, 2 * nf), np.arange(nf)]  # -d: x+ and x- swapped
        self.up = np.zeros(cells.size, dtype=bool)
        self.down = np.zeros(cells.size, dtype=bool)
        self._asked = {True: np.zeros(cells.size, dtype=bool),
                       False: np.zeros(cells.size, dtype=bool)}
        self.reused = 0  # sides met when first asked for: the LPs saved

    def met(self, group: np.ndarray, up: bool) -> np.ndarray:
        """Which members of ``group`` (indices into ``inst.protected``) have the side met
        (a side met when first asked for counts once in ``reused``)."""
        done = (self.up if up else self.down)[group]
        asked = self._asked[up]
        self.reused += int((done & ~asked[group]).sum())
        asked[group] = True
        return done

    def record(self, x: np.ndarray) -> None:
        nf = self.room.size // 2
        if self.kept is not None:
            deviations = x[:nf] - x[nf:]
            moved = np.flatnonzero(deviations)
            self.kept.append((self.free[moved], deviations[moved]))
        move = x[:nf][self.at] - x[nf:][self.at]
        for d in (move, -move) if np.all(x[self.swap] <= self.room) else (move,):
            self.up |= d >= self.up_target * (1 + _MET) + _MET
            self.down |= -d >= self.down_target * (1 + _MET) + _MET


class _ResolvedLP:
    """``min c x, A x = 0, lo <= x <= hi``, re-solved for new ``c``, ``lo``, ``hi``.

    The first solve is presolved from scratch; later ones start from the last basis without
    presolve for as long as that is faster than the first
    (:class:`~cspopt.backends.highs.Resolver` with ``presolve_cold`` and
    ``warm_while_faster``): warm starts pay on 2-D tables, presolve on hierarchical ones.
    ``cold=True``: every solve from scratch, so that its solution does not depend on the
    solves before it (the batches of a run over workers). From :data:`_INTERIOR_FROM` free
    cells up every solve is HiGHS's interior point method from scratch (the Resolver's
    ``interior``).
    """

    def __init__(self, matrix: sp.csr_matrix, budget: Budget | None = None, *,
                 cold: bool = False):
        n, m = matrix.shape[1], matrix.shape[0]
        self.matrix = matrix
        self.incidence = (matrix[:, :n // 2].astype(bool).astype(np.float32)
                          if n // 2 >= _NEAR_FROM else None)
        self.near_solves = 0  # the neighbourhood and pattern LPs kept (each spared a whole LP)
        self.highs = new_highs(matrix, np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(m),
                               np.zeros(m), what="attacker LP")
        self.resolver = Resolver(self.highs, presolve_cold=True, warm_while_faster=True,
                                 interior=n // 2 >= _INTERIOR_FROM)
        if cold:  # every solve from scratch, whatever came before
            self.resolver.warm = False
        self.columns = np.arange(n, dtype=np.int32)
        self.budget = budget
        self.stopped = False  # an LP was stopped by the budget's end
        self.solves, self.seconds = 0, 0.0  # LPs solved, and the seconds they took
        self.spared = 0  # LPs whose completions turned out not to be needed

    def out_of_time(self) -> bool:
        """Has the budget expired (or stopped an LP)?"""
        return self.stopped or (self.budget is not None and self.budget.expired())

    def solve(self, cost, lo, hi) -> np.ndarray | None:
        """The optimal ``x``, or None if the LP has none or the deadline stopped it (one LP
        of a large 3-D table can take many seconds: the deadline holds inside it too)."""
        if self.out_of_time():
            self.stopped = True
            return None
        started = time.perf_counter()
        h = self.highs
        h.changeColsBounds(self.columns.size, self.columns, lo,
                           np.where(np.isfinite(hi), hi, INF))
        h.changeColsCost(self.columns.size, self.columns, cost)
        status = self.resolver.run(self.budget)
        self.solves += 1
        self.seconds += time.perf_counter() - started
        if status == TIME_LIMIT:
            self.stopped = True
        if status != OPTIMAL:
            return None
        return _still(np.asarray(h.getSolution().col_value))

    def solve_on_pattern(self, cost, lo, hi, *, vertex: bool = True) -> np.ndarray | None:
        """The LP over the columns of cost 0 alone (the cells suppressed), when it has a
        solution: a completion through them costs nothing, so it is optimal for the whole
        LP, no pricing needed. ``None`` (solve the whole LP) on a small table or where the
        pattern alone cannot meet the side. On a 37,926-cell 3-D table a side the pattern
        meets took 5-8 s this way against 20-31 s over the whole table, and a side it cannot
        meet 0.1-2.2 s (presolve finds it infeasible). ``vertex=False``: any feasible point
        will do, by HiGHS's interior point method without crossover, the point checked
        (:func:`_feasible`); a vertex moves fewer cells (what the clean-up by proofs,
        :mod:`cspopt.solving.unmoved`, needs), but a group's completion moves most of the
        pattern anyway: its second side, over the 31,825 cells the first side moved, took
        7 s against 64 s for a vertex and 140 s over the whole table."""
        if self.incidence is None or self.out_of_time() or np.any(lo[cost != 0] > 0):
            return None
        return self._solve_over(np.flatnonzero(cost == 0), cost, lo, hi, vertex=vertex)

    def solve_near(self, p: int, cost, lo, hi) -> np.ndarray | None:
        """The LP over free cell ``p``'s neighbourhood alone, every other cell held still
        (:func:`cspopt.table.neighbourhood.closure` on the relations), when it is optimal for
        the whole LP: ``None`` (solve the whole LP) on a small table, where the
        neighbourhood has no solution, or where a column outside it prices out.

        Column generation's optimality test (Dantzig & Wolfe 1960): the columns left out sit
        at their lower bound 0, so the restricted optimum is the whole LP's when every one
        of them has a reduced cost ``c_j - (A^T pi)_j >= 0`` at the restricted LP's duals
        ``pi``. A cell that an earlier pattern already protects has a completion of cost 0
        through suppressed cells, mostly near it: on a 37,926-cell 3-D table its LP took
        0.16 s over 5,418 cells' neighbourhood against 5 s over the whole table. (Adding the
        priced-out columns and solving again, until none prices out, took minutes where the
        completion must go far: not done.)
        """
        if self.incidence is None or self.out_of_time():
            return None
        near = closure(self.incidence, p)
        if np.count_nonzero(near) > near.size // 2:  # hardly smaller than the whole LP
            return None
        columns = np.flatnonzero(np.r_[near, near])
        outside = np.ones(cost.size, dtype=bool)
        outside[columns] = False

        def priced_out(duals: np.ndarray) -> bool:
            reduced = cost - self.matrix.T @ duals
            return bool(np.any(outside & (hi > lo)
                               & (reduced < -_PRICED * (1 + np.abs(cost)))))

        return self._solve_over(columns, cost, lo, hi, rejected=priced_out)

    def _solve_over(self, columns: np.ndarray, cost, lo, hi, *, rejected=None,
                    vertex: bool = True) -> np.ndarray | None:
        """The LP restricted to ``columns`` (the others held at 0), its solution as the whole
        LP's ``x``, or ``None`` where it has none or ``rejected(duals)`` says it is not the
        whole LP's optimum. ``vertex=False``: every feasible point is optimal (costs 0), so
        the interior point method stops without crossover, and a point :func:`_feasible`
        refutes counts as none. Kept ones count as solves (and local ones); every
        attempt's time counts in ``seconds``, so the pace sees the attempts that did not
        pay too."""
        started = time.perf_counter()
        try:
            m = self.matrix.shape[0]
            sub = self.matrix[:, columns]
            h = new_highs(sub, cost[columns], lo[columns], hi[columns], np.zeros(m),
                          np.zeros(m), what="attacker LP")
            if not vertex:
                h.setOptionValue("solver", "ipm")
                h.setOptionValue("run_crossover", "off")
            if Resolver(h).run(self.budget) != OPTIMAL:
                return None
            solution = h.getSolution()
            if rejected is not None and rejected(np.asarray(solution.row_dual)):
                return None
            values = _still(np.asarray(solution.col_value))
            if not vertex:
                values = np.clip(values, lo[columns], hi[columns])
                if not _feasible(sub, values):
                    return None
            x = np.zeros(cost.size)
            x[columns] = values
            self.solves += 1
            self.near_solves += 1
            return x
        finally:
            self.seconds += time.perf_counter() - started


class _Batched:
    """The attacker LPs of a run over workers: each batch's groups solved side by side by
    :func:`_batch_task`, each worker with its own cold :class:`_ResolvedLP` of the matrix
    (sent once: :meth:`~cspopt.parallel.Workers.share`). Counts like :class:`_ResolvedLP`
    (``seconds`` are the batches' wall-clock time, so the pace sees the workers' speed)."""

    def __init__(self, matrix: sp.csr_matrix, budget: Budget | None, pool: Workers):
        self.pool, self.budget = pool, budget
        self.matrix = pool.share(matrix)
        self.key = uuid.uuid4().hex  # the workers' models of this run
        self.here: _ResolvedLP | None = None  # the model of a run on one worker
        self.solves = self.near_solves = self.spared = 0
        self.seconds, self.stopped = 0.0, False

    out_of_time = _ResolvedLP.out_of_time

    def close(self) -> None:
        """Drop the workers' models of this run (a running cluster's workers outlive it)."""
        if self.pool.parallel:
            self.pool.on_every_worker(_forget_model, self.key)
        self.here = None

    def run(self, plans: list[list[tuple]], weights: np.ndarray, suppressed: np.ndarray,
            together: list[bool]) -> list[list[np.ndarray] | None]:
        """:func:`_solve_sides` of each plan, on the workers (here, in turn, with one)."""
        started = time.perf_counter()
        # the deadline on the wall clock the workers share (a job that starts late, behind
        # others on its worker, gets what is left, not the whole time)
        left = None if self.budget is None else self.budget.time_limit()
        deadline = None if left is None else time.time() + left
        jobs = [(sides, weights, suppressed, group, deadline)
                for sides, group in zip(plans, together)]
        if self.pool.parallel:
            done = self.pool.map(_batch_task, [(self.key, self.matrix, *job) for job in jobs])
        else:
            if self.here is None:
                self.here = _ResolvedLP(self.matrix, cold=True)
            done = [_counted_sides(self.here, *job) for job in jobs]
        self.seconds += time.perf_counter() - started
        for _, solves, near, stopped in done:
            self.solves += solves
            self.near_solves += near
            self.stopped |= stopped
        return [found for found, *_ in done]


#: a worker's attacker model of a run over workers: {run key: its cold _ResolvedLP}, the
#: run under way's only (dropped at its end: :meth:`_Batched.close`)
_WORKER_MODEL: dict[str, _ResolvedLP] = {}


def _batch_task(key: str, matrix: sp.csr_matrix, *job):
    """One group's :func:`_counted_sides` on a worker (a task of
    :class:`~cspopt.parallel.Workers`), by the worker's model of the run ``key`` (built on
    its first task)."""
    lp = _WORKER_MODEL.get(key)
    if lp is None:
        _WORKER_MODEL.clear()
        lp = _WORKER_MODEL[key] = _ResolvedLP(matrix, cold=True)
    return _counted_sides(lp, *job)


def _forget_model(key: str) -> None:
    """Drop a worker's model of the run ``key`` (:meth:`_Batched.close`)."""
    _WORKER_MODEL.pop(key, None)


def _counted_sides(lp: _ResolvedLP, sides: list[tuple], weights: np.ndarray,
                   suppressed: np.ndarray, together: bool, deadline: float | None):
    """:func:`_solve_sides` by ``deadline`` (a :func:`time.time`): ``(found, LPs, of them
    local, stopped by the deadline)``."""
    lp.budget = None if deadline is None else Budget(max(deadline - time.time(), 0.0))
    lp.stopped = False
    solves, near = lp.solves, lp.near_solves
    found = _solve_sides(lp, sides, weights, suppressed, together=together)
    return found, lp.solves - solves, lp.near_solves - near, lp.stopped


#: cost of a cell the LP suppresses fully, relative to its weight: ties go to cheap cells,
#: and no cell is free, so the attacker LPs do not sweep in cells no requirement needs
_GUIDED_FLOOR = 1e-3


def lp_guided_attacker(inst: IntervalInstance, y_candidates: np.ndarray, *,
                       budget: Budget | None = None) -> np.ndarray | None:
    """The incremental attacker guided by an LP point ``y*`` (one value per candidate).

    The sequential heuristic of tau-ARGUS' optimal engine (Fischetti & Salazar-Gonzalez
    2001, run from the LP's point): each attacker LP prices a candidate at
    ``((1 - y*_i) + 0.001) w_i``, so the requirements are met through the cells the
    relaxation already suppresses. Returns the suppressed candidates, or ``None`` if
    ``budget`` expires first.
    """
    return incremental_attacker(inst, budget=budget, costs=lp_guided_costs(
        inst, y_candidates)[inst.free], fallback=False)


def lp_guided_costs(inst: IntervalInstance, y_candidates: np.ndarray) -> np.ndarray:
    """Per-cell costs of tau-ARGUS' sequential heuristic at the LP point ``y*``:
    ``((1 - y*_i) + 0.001) w_i`` for candidates, the weight elsewhere."""
    costs = inst.weights.astype(float)
    costs[inst.candidates] = (1.0 - np.clip(y_candidates, 0.0, 1.0) + _GUIDED_FLOOR
                              ) * costs[inst.candidates]
    return costs

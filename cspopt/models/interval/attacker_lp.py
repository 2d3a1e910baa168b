"""The attacker's problems as LPs, on any linear table: the move of one protected cell.

Fischetti & Salazar-Gonzalez (2001): for a protected cell ``p`` and suppression levels ``y``
the attacker's largest increase of ``p`` is the LP ``U_p(y) = max x_p`` s.t. ``A x = 0``,
``-(a_i - lb_i) y_i <= x_i <= M_i y_i`` (``L_p(y)``, the largest decrease, the same with
``max -x_p``); for any multipliers ``pi`` on ``A x = 0`` weak duality bounds it by the capacity
``g . y`` (:mod:`cspopt.models.interval.capacity`). Each direction, capped or not, in the
relations' or a sparse kernel basis' coordinates, has a warm-started HiGHS model of its own
(:class:`cspopt.backends.highs.Resolver`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cspopt.backends.highs import OPTIMAL, TIME_LIMIT, Resolver, new_highs
from cspopt.errors import OutOfTime, SolverError
from cspopt.models.interval.instance import IntervalInstance
from cspopt.models.interval.proofs import Side, given, move_levels
from cspopt.table.kernel import kernel_basis

__all__ = ["LPAttacker"]

#: the share of free cells with ``y_i > 0`` from which the attacker LP runs in the kernel's
#: coordinates (:meth:`LPAttacker._kernel_lp`): faster only at points near "suppress
#: everything" (the in-out probes), slower at 0/1 and sparse fractional points
_KERNEL_FROM = 0.9


class LPAttacker:
    """The attacker LPs of one :class:`IntervalInstance`, built on first use and re-solved
    warm. ``position[k]``: protected cell ``k`` among the free cells."""

    def __init__(self, inst: IntervalInstance, position: np.ndarray):
        self.inst, self.position = inst, position
        self.num_free = inst.free.size
        self._lps: dict[tuple[bool, bool, bool], Resolver] = {}
        self._kernel = None  # a sparse kernel basis, False where the relations' LP is used
        self.use_kernel = True  # False: always the relations' LP
        self.num_solves = 0
        # where set (a Budget), an LP stopped by its end raises OutOfTime: one LP of a
        # 38,000-cell table can take a minute
        self.budget = None

    def side(self, k: int, upward: bool, y: np.ndarray, *, capped: bool = False) -> Side:
        """The attacker LP of protected cell ``k`` at ``y`` (``upward``: its largest increase).

        ``capped=True`` (separation on tables that are not networks) bounds every move by the
        requirement, ``|x_i| <= r_k y_i``, as minimum cuts do on networks. Without the cap, a
        cell at ``y_i = 0.001`` under a-priori bounds of 1e6 still gives the attacker 1,000,
        so the LP meets the requirement through thinly suppressed cells and finds no cut
        where the capped cuts are violated (the loop crept for minutes without converging
        for one sensitive cell). The capped LP is only a search: its solution is
        a move within the true rooms (a proof where it meets the requirement), and its dual
        ``q`` gives the cut with the true rooms, valid for every ``q``; the caller asks the
        LP without the cap once the search finds no cut at all. With the cap the loop
        converges for that cell, to the cost of the pattern the branch-and-cut finds.

        The move of cell ``k`` itself is bounded by its requirement: the LP stops once it is
        met, which is all a verdict or a cut needs. Each direction, capped or not, has a
        model of its own, warm-started from the last LP of that kind (an LP warm-started
        from the opposite objective is far from optimal), and the capped search runs primal
        simplex (more than four times the LPs and a better bound in the same time than one
        dual-simplex model; at points halfway to "suppress everything" primal simplex is
        more than ten times faster).
        """
        inst = self.inst
        p = int(self.position[k])
        # deviations in units of the cell's largest requirement, as in the compact model: with
        # raw values of 1e6 and more HiGHS ended in "unknown" (fuzz tables scaled up)
        unit = inst.requirement_unit[k]
        down_room, up_room = inst.rooms(k)  # capped as the flows' are, on networks
        down_search, up_search = ((np.minimum(down_room, unit), np.minimum(up_room, unit))
                                  if capped else (down_room, up_room))
        up, down = up_search * y / unit, down_search * y / unit
        if upward:
            up[p] = min(up[p], 1.0)
        else:
            down[p] = min(down[p], 1.0)
        c = np.zeros(self.num_free)
        c[p] = 1.0 if upward else -1.0
        kernel = self.kernel_form() and np.mean(y > 0) >= _KERNEL_FROM
        solve = self._kernel_lp if kernel else self._relations_lp
        lp = self._lp_model(upward, capped, kernel)
        h = lp.h
        try:
            x, q = solve(lp, c, down, up, y, (down_search, up_search))
        except SolverError:
            raise SolverError(f"attacker LP of {inst.table.describe(inst.protected[k])} "
                              f"ended with status {h.modelStatusToString(h.getModelStatus())}"
                              ) from None
        # c x = q x for every completion x: (1 - c_p q_p) c_p x_p = sum_{i != p} q_i x_i, so
        # c x <= sum_{i != p} g_i y_i / (1 - c_p q_p) with the true rooms in g
        rising, falling = np.maximum(q, 0.0), np.maximum(-q, 0.0)
        capacity = rising * up_room + falling * down_room
        capacity[p] = 0.0
        spare = 1.0 - c[p] * q[p]
        capacity = capacity / spare if spare > 1e-9 else np.full(self.num_free, np.inf)
        moved = np.abs(x) > 1e-9
        room = np.where(x > 0, up_search, down_search)
        level = move_levels(moved, np.abs(x) * unit, room)
        return Side(float(c @ x) * unit, given(level), given(capacity), moves=x * unit)

    def kernel_form(self) -> bool:
        """Whether the attacker LPs run in the coordinates of a sparse kernel basis
        (:func:`~cspopt.table.kernel.kernel_basis`): where it has fewer columns than the
        relations have rows."""
        if not self.use_kernel:
            return False
        if self._kernel is None:
            basis = kernel_basis(self.inst.relations)
            self._kernel = (basis if basis is not None
                            and basis.shape[1] < self.inst.relations.shape[0] else False)
        return self._kernel is not False

    def _lp_model(self, upward: bool, capped: bool, kernel: bool) -> Resolver:
        """The HiGHS model of one direction's attacker LPs, capped or not, in the kernel's
        coordinates or not, with its re-solves (warm-started from the last LP of that kind:
        from the opposite objective it is far from optimal)."""
        key = (upward, capped, kernel)
        if key not in self._lps:
            nf = self.num_free
            if kernel:
                basis = self._kernel
                matrix = sp.hstack([basis.T, -basis.T])
                d = basis.shape[1]
                h = new_highs(matrix, np.zeros(2 * nf), np.zeros(2 * nf), np.full(2 * nf, np.inf),
                              np.zeros(d), np.zeros(d), presolve=False, what="attacker LP")
            else:
                m = self.inst.relations.shape[0]
                h = new_highs(self.inst.relations, np.zeros(nf), np.zeros(nf), np.zeros(nf),
                              np.zeros(m), np.zeros(m), presolve=False, what="attacker LP")
                if capped:
                    h.setOptionValue("simplex_strategy", 4)  # primal
            self._lps[key] = Resolver(h)
        return self._lps[key]

    def _run(self, lp: Resolver) -> None:
        """Solve ``lp`` warm, cold where that fails or crawls (:class:`~cspopt.backends.
        highs.Resolver`); SolverError unless optimal, OutOfTime where :attr:`budget` ended
        it."""
        self.num_solves += 1
        status = lp.run(self.budget)
        if status == TIME_LIMIT and self.budget is not None and self.budget.expired():
            raise OutOfTime("attacker LP")
        if status != OPTIMAL:
            raise SolverError("attacker LP")

    def _relations_lp(self, lp, c, down, up, y, search) -> tuple[np.ndarray, np.ndarray]:
        """``max c x, A x = 0, -down <= x <= up`` over the free cells: its point and the
        ``q = c + sigma A^T pi`` of its duals that bounds it best at ``y`` with the search
        rooms (HiGHS's dual sign convention aside, both signs give valid capacities)."""
        h = lp.h
        p = int(np.flatnonzero(c)[0])
        h.changeColsBounds(self.num_free, np.arange(self.num_free, dtype=np.int32), -down, up)
        h.changeColCost(p, -c[p])  # minimise -c x
        try:
            self._run(lp)
            solution = h.getSolution()
            x = np.asarray(solution.col_value)
            at_pi = self.inst.relations_by_cell @ np.asarray(solution.row_dual)
        finally:
            h.changeColCost(p, 0.0)
        down_search, up_search = search
        return x, min((c + at_pi, c - at_pi), key=lambda q: (
            np.maximum(q, 0.0) * up_search + np.maximum(-q, 0.0) * down_search) @ y)

    def _kernel_lp(self, lp, c, down, up, y, search) -> tuple[np.ndarray, np.ndarray]:
        """The same LP's dual in the kernel's coordinates ``x = N z``: ``min up w+ + down w-``
        s.t. ``N^T (w+ - w-) = N^T c``, so ``q = w+ - w-`` directly; its row duals are ``z``.
        A row per kernel dimension: at points halfway to "suppress everything" with the true
        rooms, an attacker LP fifty times faster than the relations' on a large hierarchical
        table."""
        h, kernel = lp.h, self._kernel
        nf = self.num_free
        rhs = kernel.T @ c
        h.changeColsCost(2 * nf, np.arange(2 * nf, dtype=np.int32), np.concatenate([up, down]))
        h.changeRowsBounds(rhs.size, np.arange(rhs.size, dtype=np.int32), rhs, rhs)
        self._run(lp)
        solution = h.getSolution()
        w = np.asarray(solution.col_value)
        x = kernel @ np.asarray(solution.row_dual)
        if c @ x < 0:  # HiGHS's dual sign convention
            x = -x
        return x, w[:nf] - w[nf:]

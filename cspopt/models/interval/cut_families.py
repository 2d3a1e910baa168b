"""Capacity-cut families beside separation: the single-relation cuts of the first master and
the bridgeless cuts (Fischetti & Salazar-Gonzalez 1999; tau-ARGUS' ``Cspbridg.c``), and the
master LP the cuts are rows of.

Each family is built from one :class:`~cspopt.models.interval.CapacityOracle` (its
requirements and its normalisation of a capacity vector into a cut) and works on tables that
are not networks under capped (strengthened) cuts; on networks minimum cuts cap rooms already.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from cspopt.backends.highs import INF, OPTIMAL, Highs, new_highs, run_within
from cspopt.budget import Budget
from cspopt.models.interval.instance import IntervalInstance

__all__ = ["CapacityCut", "cut_rows", "capacity_master", "add_cut_rows", "relation_cuts",
           "relation_bridgeless_cuts", "BridgelessCuts"]


@dataclass(frozen=True)
class CapacityCut:
    """``sum coefficients[j] * y[candidates[j]] >= rhs``: a capacity cut normalised by its
    right-hand side (``rhs = 1``), or a bridgeless cut (``rhs = 0``).

    ``candidates`` index :attr:`IntervalInstance.candidates`; ``cell`` and ``requirement``
    (``"upper"``, ``"lower"``, ``"sliding"``, or ``"bridgeless"`` for the secondary it keeps
    movable) say what it enforces, and ``violation`` is ``rhs - activity`` at the point it was
    separated from.
    """

    cell: int
    requirement: str
    candidates: np.ndarray
    coefficients: np.ndarray
    violation: float
    rhs: float = 1.0  # 0 for a bridgeless cut

    def activity(self, y_candidates: np.ndarray) -> float:
        return float(self.coefficients @ y_candidates[self.candidates])




def cut_rows(cuts: list[CapacityCut], num_columns: int) -> sp.csr_matrix:
    """The cuts' left-hand sides as rows of a model whose first columns are the candidates'
    ``y`` (each row ``>= cut.rhs``)."""
    indptr = np.r_[0, np.cumsum([c.candidates.size for c in cuts], dtype=np.int64)]
    index = np.concatenate([c.candidates for c in cuts]) if cuts else np.zeros(0, np.int64)
    value = np.concatenate([c.coefficients for c in cuts]) if cuts else np.zeros(0)
    return sp.csr_matrix((value, index, indptr), shape=(len(cuts), num_columns))


def capacity_master(inst: IntervalInstance, cuts: list[CapacityCut] = ()) -> Highs:
    """``min w y`` over the candidates' bounds (:meth:`IntervalInstance.candidate_bounds`),
    the deviation-class rows (:meth:`IntervalInstance.link_matrix`, first) and ``cuts``, on
    HiGHS with presolve off, so that it is re-solved warm as :func:`add_cut_rows` adds more
    (Fischetti & Salazar-Gonzalez 2001's master LP)."""
    links = inst.link_matrix()
    y_lower, y_upper = inst.candidate_bounds()
    zeros = np.zeros(links.shape[0])
    master = new_highs(links, inst.weights[inst.candidates], y_lower, y_upper, zeros, zeros,
                       presolve=False, what="capacity master LP")
    add_cut_rows(master, list(cuts))
    return master


def add_cut_rows(highs: Highs, cuts: list[CapacityCut]) -> None:
    """Append ``cuts`` as rows ``>= cut.rhs`` to a model whose first columns are ``y``."""
    if not cuts:
        return
    rows = cut_rows(cuts, highs.getNumCol())
    highs.addRows(len(cuts), np.array([c.rhs for c in cuts]), np.full(len(cuts), np.inf),
                  rows.nnz, rows.indptr[:-1].astype(np.int32), rows.indices.astype(np.int32),
                  rows.data)



def relation_cuts(oracle) -> list[CapacityCut]:
    """The capacity cut of every requirement through each relation of its cell, capped
    (tau-ARGUS' first constraint pool, ``init_constraint_pool`` in ``Cspmain.c``).

    Moving sensitive cell ``p`` by ``d`` moves the other cells of each relation ``r``
    through it by ``-a_rp d`` in all: each can give at most its room in the direction
    that balances ``r``, so ``sum_{i in r, i != p} room_i y_i >= d`` (the duals ``e_r``),
    capped at the right-hand side. Attacker LPs at a fractional point find a violated
    cut only where the attacker cannot meet a requirement with rooms ``room_i y_i``: with
    a-priori bounds of 1e6 (the CSPLIB tables) a cell at ``y_i = 0.001`` still gives it
    1,000, where the capped cut counts 0.001 of the requirement. So these rows, in the
    first master, lift the root bound where separation alone does not (as tau-ARGUS' first
    pool does). On networks minimum cuts cap rooms already: none there.
    """
    if oracle.network is not None or not oracle.strengthen:  # plain Benders stays plain
        return []
    inst = oracle.inst
    relations = inst.relations.tocsr()
    through = relations.tocsc()
    everywhere = np.ones(oracle.num_free)
    cuts: list[CapacityCut] = []
    for k, kind, rhs in oracle.requirements:
        if kind == "sliding":
            continue
        p, sign = int(oracle.position[k]), 1.0 if kind == "upper" else -1.0
        up_room = inst.up_room[k]  # built per index: once per requirement
        for row in through.indices[through.indptr[p]:through.indptr[p + 1]].tolist():
            lo, hi = relations.indptr[row], relations.indptr[row + 1]
            cells, coef = relations.indices[lo:hi], relations.data[lo:hi]
            move = -sign * coef / coef[cells == p][0]  # the others' per unit of p's
            move[cells == p] = 0.0
            capacity = np.zeros(oracle.num_free)
            capacity[cells] = (np.maximum(move, 0.0) * up_room[cells]
                               + np.maximum(-move, 0.0) * inst.down_room[cells])
            cut = oracle.cut(int(inst.protected[k]), kind, rhs, capacity, everywhere)
            if cut is not None and cut.candidates.size:
                cuts.append(cut)
    return cuts


def relation_bridgeless_cuts(oracle) -> list[CapacityCut]:
    """The bridgeless cut of every candidate through each relation of it:
    ``y_i <= sum_{j in r, j != i} y_j`` (:meth:`bridgeless_cuts` with the blocking set
    read off one relation instead of an LP), for the first master.

    With the other cells of ``r`` published, ``r`` computes ``i``; some optimal pattern
    suppresses no computable cell, so these cuts are valid for the bound, not for every
    pattern (:meth:`~cspopt.models.interval.IntervalInstance.minimal` drops what they
    cut off). Relations through a sensitive cell (``y = 1``) give none, nor does a cell
    whose deviation class has another member in ``r`` (their moves may cancel there).
    They lift the LP where a fractional ``y`` suppresses a cell of a relation whose
    other cells it barely uses, and the root with the separated bridgeless cuts after it
    converges far sooner. Tables that are not networks, as
    :meth:`bridgeless_cuts`.
    """
    if not oracle.has_bridgeless:
        return []
    inst = oracle.inst
    relations = inst.relations.tocsr()
    candidate_of = np.cumsum(oracle.is_candidate) - 1
    cls = inst.deviation_class
    cuts: list[CapacityCut] = []
    seen: set[tuple[int, ...]] = set()  # relations with the same cells give the same cuts
    coefficients: dict[int, np.ndarray] = {}
    for row in range(relations.shape[0]):
        cells = relations.indices[relations.indptr[row]:relations.indptr[row + 1]]
        if not oracle.is_candidate[cells].all():
            continue
        cells = cells[cls[cells] >= 0]  # never deviating: y = 0
        key = tuple(sorted(cells.tolist()))
        if len(cells) < 2 or key in seen:
            continue
        seen.add(key)
        n = len(cells)
        # row k: the other cells, then cell k (its own class alone in r, else no cut)
        rows = np.empty((n, n), dtype=np.int64)
        rows[:, :-1] = np.broadcast_to(candidate_of[cells], (n, n))[
            ~np.eye(n, dtype=bool)].reshape(n, n - 1)
        rows[:, -1] = candidate_of[cells]
        alone = (cls[cells][:, None] == cls[cells][None, :]).sum(axis=1) == 1
        if n not in coefficients:
            coefficients[n] = np.r_[np.ones(n - 1), -1.0]
        cuts += [CapacityCut(int(inst.free[cells[k]]), "bridgeless", rows[k],
                             coefficients[n], 0.0, rhs=0.0)
                 for k in np.flatnonzero(alone).tolist()]
    return cuts


class BridgelessCuts:
    """The bridgeless cuts of one oracle's instance, on an LP of their own (built on first
    use) over the relations with ``|x_j| <= y_j``."""

    def __init__(self, oracle):
        self.inst, self.num_free = oracle.inst, oracle.num_free
        self.is_candidate = oracle.is_candidate
        self._bridge = None
        self.num_solves = 0

    def separate(self, y_candidates: np.ndarray, *, limit: int = 50,
                 min_violation: float = 1e-6, budget: Budget | None = None
                 ) -> list[CapacityCut]:
        """Bridgeless cuts violated by ``y`` (Fischetti & Salazar-Gonzalez 1999; tau-ARGUS'
        ``Cspbridg.c``), at most ``limit``; once ``budget`` ends (checked between LPs, and
        each LP stopped at it), the cuts found and checked so far.

        A suppressed cell that no attacker solution moves is computable: publishing it
        changes no cell's range and saves its cost. So some optimal pattern keeps every
        suppressed candidate ``i`` movable, and then suppresses a cell of every set ``S``
        that blocks all of ``i``'s moves: ``y_i <= sum_{j in S} y_j``. ``S`` is read from
        the reduced costs of the LPs ``max`` and ``min x_i`` subject to ``A x = 0`` and
        ``|x_j| <= y_j`` (directions without room closed), ``x_i`` free, and a cut is kept
        only when, with ``S`` published and every other free cell suppressed, ``i`` indeed
        cannot move: the reduced costs' float noise cannot make it invalid. These cuts are
        valid for the bound, not for every pattern: they cut off patterns that keep a
        computable secondary. Attacker LPs on tables that are not networks.
        """
        inst = self.inst
        if self._bridge is None:
            m = inst.relations.shape[0]
            self._bridge = new_highs(inst.relations, np.zeros(self.num_free),
                                     np.zeros(self.num_free), np.zeros(self.num_free),
                                     np.zeros(m), np.zeros(m), presolve=False,
                                     what="bridgeless LP")
            self._can_fall = inst.down_room > 0
            self._can_rise = inst.up_room.room > 0
        y = self.inst.free_levels(y_candidates)
        candidate_of = np.cumsum(self.is_candidate) - 1
        free_of = np.flatnonzero(self.is_candidate)
        found = []  # (i, blocking set, violation): candidates for a cut, checked below
        # a cell that the two LP solutions of an earlier cell move by its whole room sleeps
        # for the round (tau-ARGUS' rule): its moves are rarely blocked by a cheap set
        sleeping = np.zeros(self.num_free, dtype=bool)
        self._set_rooms(y)
        for j in np.argsort(-y_candidates, kind="stable").tolist():
            if (y_candidates[j] <= min_violation or len(found) == limit
                    or budget is not None and budget.expired()):
                break
            i = int(free_of[j])
            if sleeping[i]:
                continue
            blocking, moves = self._blocking(i, y, read=True, budget=budget)
            if len(moves) == 2:
                sleeping |= (np.abs(moves[0] - moves[1]) >= y - min_violation) & (
                    y > min_violation)
            if blocking is None or not self.is_candidate[blocking].all():
                continue  # i moves without bound, or a sensitive cell (y = 1) blocks it
            activity = float(y[blocking].sum())
            if activity < y[i] - min_violation:
                found.append((i, blocking, y[i] - activity))
        cuts: list[CapacityCut] = []
        for i, blocking, violation in found:
            if budget is not None and budget.expired():
                break
            level = np.ones(self.num_free)
            level[blocking] = 0.0
            self._set_rooms(level)
            # i cannot move: a cut
            if self._blocking(i, level, read=False, budget=budget)[0] is not None:
                cuts.append(CapacityCut(int(inst.free[i]), "bridgeless",
                                        np.r_[candidate_of[blocking], candidate_of[i]],
                                        np.r_[np.ones(blocking.size), -1.0], violation,
                                        rhs=0.0))
        return cuts

    def _set_rooms(self, level: np.ndarray) -> None:
        """The bridgeless LP's bounds: ``|x_j| <= level_j``, directions without room closed."""
        nf = self.num_free
        self._bridge.changeColsBounds(nf, np.arange(nf, dtype=np.int32),
                                      np.where(self._can_fall, -level, 0.0),
                                      np.where(self._can_rise, level, 0.0))

    def _blocking(self, i: int, level: np.ndarray, *, read: bool,
                  budget: Budget | None = None
                  ) -> tuple[np.ndarray | None, list[np.ndarray]]:
        """Free cell ``i`` freed of its own bound in the bridgeless LP (rooms as set): with
        ``read``, the free cells with a nonzero reduced cost in the LPs moving ``i`` up and
        down, a set every move of ``i`` crosses; without, an empty array if ``i`` cannot
        move. None: no such set (``i`` unbounded, or it moves, or an LP ``budget`` stopped).
        Also the LPs' solutions."""
        h = self._bridge
        h.changeColBounds(i, -INF if self._can_fall[i] else 0.0,
                          INF if self._can_rise[i] else 0.0)
        blocking = np.zeros(self.num_free, dtype=bool)
        moves: list[np.ndarray] = []
        try:
            for sign, allowed in ((-1.0, self._can_rise[i]), (1.0, self._can_fall[i])):
                if not allowed:
                    continue
                h.changeColCost(i, sign)  # min -x_i (rise), then min x_i (fall)
                left = None if budget is None else budget.time_limit()
                # stopped at the budget's end: not OPTIMAL, no set
                status = run_within(h, math.inf if left is None else left)
                self.num_solves += 1
                if status != OPTIMAL:
                    return None, moves
                if not read:
                    if -sign * h.getInfo().objective_function_value > 1e-9:
                        return None, moves  # i moves
                    continue
                solution = h.getSolution()
                blocking |= np.abs(np.asarray(solution.col_dual)) > 1e-9
                moves.append(np.asarray(solution.col_value))
        finally:
            h.changeColCost(i, 0.0)
            h.changeColBounds(i, -level[i] if self._can_fall[i] else 0.0,
                              level[i] if self._can_rise[i] else 0.0)
        blocking[i] = False
        return np.flatnonzero(blocking), moves

"""Capacity constraints: the attacker problems of a suppression vector and the cuts they give.

Fischetti & Salazar-Gonzalez (2001) (seed 002 §3, Castro 2007 eq. (3) projected onto ``y``).
For a protected cell ``p`` and suppression levels ``y`` (1 on sensitive cells, 0 on published
ones), the attacker's largest increase of ``p`` is the LP

    U_p(y) = max x_p   s.t.  A x = 0,   -(a_i - lb_i) y_i <= x_i <= M_i y_i,

and ``L_p(y)`` (the largest decrease) is the same with ``max -x_p``. A pattern protects ``p``
when ``U_p >= upl_p``, ``L_p >= lpl_p`` and ``U_p + L_p >= spl_p``. For any multipliers
``pi`` on ``A x = 0`` put ``q = e_p - A^T pi``; weak duality gives

    U_p(y) <= sum_i g_i y_i,        g_i = max(q_i, 0) M_i + max(-q_i, 0) (a_i - lb_i),

so every requirement implies the *capacity constraint* ``sum_i g_i y_i >= upl_p`` (and its
lower and sliding analogues). It is valid for every ``pi`` and tight at an optimal dual of the
LP at ``y``, hence a Benders cut of the compact model: adding all of them gives exactly its
LP bound. Sensitive cells (``y_i = 1``) move to the right-hand side ``b``, and for binary
``y`` the coefficients can be capped at ``b`` (a cell whose own capacity covers the requirement
satisfies it alone).

On network tables (2-D tables with margins; with one hierarchical dimension, the network of
the relations left once the implied subtotal-row relations are dropped, Castro 2007 Fig. 5,
:func:`cspopt.table.network.reduced_network`) ``pi`` can be taken as the indicator of the
source side ``S`` of a minimum cut: the attacker's problem is a maximum flow from the head of
``p`` back to its tail (seed 000 §2), arcs leaving ``S`` contribute ``M_i`` (cells that would
increase) and arcs entering ``S`` contribute ``a_i - lb_i``. Flows are computed by
:func:`scipy.sparse.csgraph.maximum_flow` on capacities scaled to integers and rounded down,
so the flow value is a valid *lower* bound on ``U_p`` (a proof of protection) and the cut
value a valid *upper* bound (a proof of exposure); when rounding leaves them on both sides of
the requirement the LP decides.

The oracle is a facade over its parts: :mod:`~cspopt.models.interval.flows` (maximum
flows and minimum cuts), :mod:`~cspopt.models.interval.attacker_lp` (the attacker LPs),
:mod:`~cspopt.models.interval.proofs` (remembered proofs) and
:mod:`~cspopt.models.interval.cut_families` (the cut families beside separation and the master
LP); :mod:`~cspopt.models.interval.separators` hands its cut families to the loops that use
them.

References
----------
M. Fischetti and J. J. Salazar-Gonzalez, "Solving the cell suppression problem on tabular
data with linear constraints", Management Science 47 (2001) 1008-1027.
J. Castro, "A shortest-paths heuristic for statistical data protection in positive tables",
INFORMS J. Computing 19 (2007) 520-533, eq. (3).
"""

from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np

from cspopt.audit.judge import tolerance_for
from cspopt.budget import Budget
from cspopt.errors import InputError, NotNetworkError, OutOfTime
from cspopt.models.interval.attacker_lp import LPAttacker
from cspopt.models.interval.cut_families import (
    BridgelessCuts,
    CapacityCut,
    relation_bridgeless_cuts,
    relation_cuts,
)
from cspopt.models.interval.flows import DENSE_ENTRIES, FlowAttacker
from cspopt.models.interval.instance import IntervalInstance
from cspopt.models.interval.proofs import LEVEL_SLACK, Proofs, Side, move_levels

__all__ = ["CapacityOracle"]

#: violation (in units of the requirement) a cut needs to refute a 0/1 point; cuts violated by
#: less (float noise: 1e-16) leave the verdict to the attacker LP
_DECIDING_VIOLATION = 1e-9
#: the attacker problems each kind of requirement asks for
_SIDES_OF = {"upper": ("upper",), "lower": ("lower",), "sliding": ("upper", "lower")}


class CapacityOracle:
    """Attacker problems of one :class:`IntervalInstance` at any ``y``, and capacity cuts.

    Build once; :meth:`separate` is called thousands of times inside branch-and-cut and works
    on prebuilt arrays only. ``method="auto"`` uses minimum cuts on network tables and the
    attacker LP (one warm-started HiGHS model) elsewhere. A flow or LP point that proved a
    cell protected is remembered with the least ``y_i`` each cell it moves needs
    (``room_i y_i`` holds the move); at any later point, fractional or 0/1, that is at least
    those levels it proves the cell again without a new flow or LP (the attacker's problem
    only gains room as ``y`` grows).
    """

    def __init__(self, inst: IntervalInstance, *, method: str = "auto", strengthen: bool = True,
                 focus: np.ndarray | None = None):
        if method not in ("auto", "network", "lp"):
            raise InputError(f"method must be 'auto', 'network' or 'lp', not {method!r}")
        if not strengthen and method == "network":
            raise InputError("minimum cuts cap capacities at the requirement: plain Benders "
                             "cuts (strengthen=False) need method='lp'")
        self.strengthen = strengthen
        table = inst.table
        self.inst = inst
        self.num_free = inst.free.size
        self.position = np.searchsorted(inst.free, inst.protected)
        self.is_candidate = inst.is_candidate
        self.requirements = []  # (k, kind, rhs)
        for k, cell in enumerate(inst.protected.tolist()):
            lpl, upl, spl = (float(table.lower_protection[cell]),
                             float(table.upper_protection[cell]),
                             float(table.sliding_protection[cell]))
            for kind, rhs in (("upper", upl), ("lower", lpl)):
                if rhs > 0:
                    self.requirements.append((k, kind, rhs))
            if spl > upl + lpl:  # otherwise the two sides imply it
                self.requirements.append((k, "sliding", spl))
        self._rows_of_cell: dict[int, list[int]] = {}
        for r, (k, _, _) in enumerate(self.requirements):
            self._rows_of_cell.setdefault(k, []).append(r)
        # per protected cell: the attacker problems its requirements ask for
        self._side_names: dict[int, list[str]] = {}
        for k, rows in self._rows_of_cell.items():
            kinds = {self.requirements[r][1] for r in rows}
            self._side_names[k] = [side for side, wanted in (
                ("upper", {"upper", "sliding"}), ("lower", {"lower", "sliding"}))
                if kinds & wanted]
        self._order = list(self._rows_of_cell)  # protected cells, recently exposed first
        # cells separated at fractional points (all are checked at 0/1 points)
        self._focus = (np.ones(inst.protected.size, dtype=bool) if focus is None
                       else np.asarray(focus, dtype=bool))
        # recent proofs per protected cell and side (flows or LP points) with the least y
        # each moved cell needs: a point at least those levels admits the same move
        self._proofs = {k: Proofs() for k in self._rows_of_cell}
        # a sliding requirement asks for both sides at once: its cells are solved whole
        self._sliding = {k for k, rows in self._rows_of_cell.items()
                         if any(self.requirements[r][1] == "sliding" for r in rows)}
        self.tolerance = np.array([tolerance_for(float(table.values[inst.protected[k]]), 1e-6)
                                   for k, _, _ in self.requirements]) / 2
        # per side, the move that meets each protected cell's own requirement (inf: none, or
        # a sliding one), for the proofs that an attacker solution for another cell gives on
        # the way (the "sleeping" levels of tau-ARGUS' engine)
        self._side_need = {side: np.full(inst.protected.size, math.inf)
                           for side in ("upper", "lower")}
        for r, (k, kind, rhs) in enumerate(self.requirements):
            if kind != "sliding" and k not in self._sliding:
                self._side_need[kind][k] = rhs - self.tolerance[r]
        self.network = None
        self.flows: FlowAttacker | None = None
        if method == "network" or (method == "auto" and strengthen):
            try:
                self.network, _ = table.reduced_network()
            except NotNetworkError:
                if method == "network":
                    raise InputError("method='network' needs a table whose relations form a "
                                     "network (a 2-D table with margins, one dimension of "
                                     "which may be hierarchical)") from None
        if self.network is not None:
            self.flows = FlowAttacker(inst, self.network, self.position)
        self.lps = LPAttacker(inst, self.position)
        self._bridgeless = BridgelessCuts(self)
        self._capped_search = False  # set by separate(capped_search=True) for its call
        self._capped = bool(np.isfinite(inst.room_cap).any())

    @property
    def num_lp_solves(self) -> int:
        """Attacker and bridgeless LPs solved so far."""
        return self.lps.num_solves + self._bridgeless.num_solves

    @property
    def num_flow_solves(self) -> int:
        """Maximum flows solved so far."""
        return 0 if self.flows is None else self.flows.num_solves

    def _share(self, k: int, x: np.ndarray, level: np.ndarray) -> None:
        """Remember the attacker solution ``x`` (per free cell) for cell ``k``, which needs
        ``level``, as a proof for every other protected cell it moves by that cell's own
        requirement. Where rooms are capped (networks, :meth:`IntervalInstance.rooms`) the
        levels are each cell's own, and a solution that moves a cell further than its caps
        allow proves nothing for it at fractional points (shared anyway, it sent the in-out
        loop of a hierarchical 6x4 table round forever at a core point it refuted)."""
        moves = x[self.position]
        cells = np.flatnonzero(level)
        amount, rising = np.abs(x[cells]), x[cells] > 0
        for side, sign in (("upper", 1.0), ("lower", -1.0)):
            receivers = np.flatnonzero(sign * moves >= self._side_need[side])
            receivers = receivers[receivers != k]
            if not receivers.size:
                continue
            if self._capped:  # rows: receivers; the moves each one's rooms hold
                down, up = self.inst.rooms(receivers, cells)
                room = np.where(rising, up, down)
                held = ~np.any(amount > room * (1 + LEVEL_SLACK), axis=1)
                receivers, room = receivers[held], room[held]
                own = move_levels(True, amount, room)
            else:  # every cell's rooms are the same
                own = np.broadcast_to(level[cells], (receivers.size, cells.size))
            attained = sign * moves[receivers]
            for q, levels, move in zip(receivers.tolist(), own, attained.tolist()):
                self._proofs[q].add(side, cells, levels, move)

    def _sides(self, k: int, names, y: np.ndarray, *, exact: bool) -> dict[str, Side]:
        """The attacker's answers for protected cell ``k``: minimum cuts on networks, else
        the LP (with moves capped at the requirement in a capped search, :meth:`_lp_side`);
        ``exact``: the LP with the true rooms."""
        if exact or self.network is None:
            capped = not exact and self._capped_search
            found = {side: self.lps.side(k, side == "upper", y, capped=capped)
                     for side in names}
            for answer in found.values():
                self._share(k, answer.moves, answer.level)
            return found
        return self.flows.sides([(k, side) for side in names], y)[k]


    # -- separation ------------------------------------------------------------------------
    def separate(self, y_candidates: np.ndarray, *, decide: bool = False,
                 stop_after: int | None = None, min_violation: float = 1e-6,
                 capped_search: bool = False, budget: Budget | None = None
                 ) -> tuple[bool, list[CapacityCut]]:
        """Capacity cuts violated by ``y`` (values on :attr:`IntervalInstance.candidates`).

        Returns ``(protected, cuts)``. ``protected`` is proven by attacker values (flows or LP
        primal values) meeting every requirement within half the audit's tolerance. With
        ``decide=True`` (integral ``y``) a requirement that the flow bounds leave open is
        settled by the LP, and every cut with a positive violation is returned.
        ``stop_after=n`` stops once ``n`` protected cells are found exposed (``1``: a
        feasibility check); cells found exposed are tried first next time.
        ``capped_search=True`` (fractional points, tables that are not networks) looks for
        cuts with the attacker LPs' moves capped at the requirement only (:meth:`LPAttacker.side`;
        what it leaves open counts as exposed, without a cut: the caller asks the exact LPs
        once it finds nothing, as they mostly proved protection, at 280 ms an LP): the root
        loop of :func:`~cspopt.bounds.capacity.capacity_lp` converges where it crept; in the
        branch-and-cut it gave better bounds but dearer patterns, so the bound oracle uses
        it, the branch-and-cut only before its tree:
        after a root loop that stopped unconverged, and in its bridgeless phase
        (:func:`~cspopt.solving.solve_branch_and_cut`). When ``budget``
        expires (fractional points) the round stops with the cuts
        found so far, and ``protected`` is False.
        """
        y = self.inst.free_levels(y_candidates)
        if decide:
            min_violation = _DECIDING_VIOLATION
        cuts: list[CapacityCut] = []
        self._capped_search = capped_search and not decide and self.strengthen
        try:
            exposed = self._judge_in_order(y, decide, cuts, min_violation, stop_after,
                                           budget)
        finally:
            self._capped_search = False
        cut_short = budget is not None and budget.expired()
        return not exposed and not cut_short, cuts

    def protects(self, y_candidates: np.ndarray, budget: Budget | None = None) -> bool:
        """Exact verdict at a 0/1 point: ``separate(y, decide=True, stop_after=1)`` without
        its cuts. A requirement that a flow misses by more than the flow's rounding can
        explain is refuted without its minimum cut; only near misses ask for the cut (or the
        LP), as in :meth:`separate`. Once ``budget`` expires
        the check stops undecided and answers False: not proven (a check of a pattern that
        suppresses nearly everything costs two attacker LPs a sensitive cell, 38 s on an
        11,025-cell 3-D table)."""
        exposed = self._judge_in_order(self.inst.free_levels(y_candidates), True, None,
                                       _DECIDING_VIOLATION, 1, budget)
        return not exposed and not (budget is not None and budget.expired())

    def protected_cells(self, y_candidates: np.ndarray) -> np.ndarray:
        """Exact verdict per protected cell at a 0/1 point (boolean array), without cuts."""
        verdict = np.ones(self.inst.protected.size, dtype=bool)
        verdict[self._judge_all(list(self._rows_of_cell), self.inst.free_levels(y_candidates),
                                True, None,
                                _DECIDING_VIOLATION)] = False
        return verdict

    def _judge_in_order(self, y: np.ndarray, decide: bool, cuts: list | None,
                        min_violation: float, stop_after: int | None,
                        budget: Budget | None = None) -> list[int]:
        """:meth:`_judge_all` over every protected cell (``decide``) or the focus cells, the
        cells found exposed before first; the cells this call finds exposed move to the
        front."""
        with self._lps_within(budget):
            try:
                exposed = self._judge_all([k for k in self._order if decide or self._focus[k]],
                                          y, decide, cuts, min_violation, stop_after, budget)
            except OutOfTime:  # undecided: the callers see the budget expired
                exposed = []
        for k in exposed:
            self._order.remove(k)
            self._order.insert(0, k)
        return exposed

    def _judge_all(self, ks: list[int], y: np.ndarray, decide: bool, cuts: list | None,
                   min_violation: float, stop_after: int | None = None,
                   budget: Budget | None = None) -> list[int]:
        """Judge protected cells ``ks`` in order (:meth:`_judge`); return those found
        exposed, stopping at ``stop_after`` of them (``cuts`` None: a verdict only). On
        network tables the flows of the cells no remembered proof settles are solved
        together: all at once, or, for a check that stops early, in batches doubling from two
        (on one support network)."""
        exposed: list[int] = []
        support = None
        size = len(ks) if stop_after is None else 2
        # the answers of a batch hold its dense capacities (two sides a cell): batches stay
        # within DENSE_ENTRIES so that a large table's check fits in memory
        widest = max(1, DENSE_ENTRIES // (4 * self.num_free))
        size = min(size, widest)
        first = 0
        while first < len(ks):
            batch, first, size = ks[first:first + size], first + size, min(2 * size, widest)
            flows = None
            if self.network is not None:
                jobs = [(k, side) for k in batch for side in self._unproven_sides(k, y)]
                if jobs and support is None:
                    support = self.flows.support(y)
                flows = self.flows.sides(jobs, y, support)
            for k in batch:
                if budget is not None and budget.expired():
                    return exposed
                if flows is not None and k not in flows:
                    continue  # remembered proofs meet every requirement
                if not self._judge(k, y, decide, cuts, min_violation,
                                   None if flows is None else flows[k]):
                    exposed.append(k)
                    if len(exposed) == stop_after:
                        return exposed
        return exposed

    def _unproven_sides(self, k: int, y: np.ndarray) -> list[str]:
        """The sides of protected cell ``k`` to solve at ``y``: none where remembered proofs
        meet every requirement, else those without a proof that applies (both for a sliding
        requirement, which needs them at once)."""
        names = self._side_names[k]
        known = self._proofs[k].best(y)
        if len(known) == len(names) and not self._unmet(self._rows_of_cell[k], known):
            return []
        return list(names) if k in self._sliding else [s for s in names if s not in known]

    def _unmet(self, rows: list[int], attained: dict[str, float]) -> list[int]:
        """The requirements among ``rows`` that the sides' ``attained`` moves do not meet."""
        return [r for r in rows if sum(
            attained[s] for s in _SIDES_OF[self.requirements[r][1]]) < (
            self.requirements[r][2] - self.tolerance[r])]

    def _judge(self, k: int, y: np.ndarray, decide: bool, cuts: list | None,
               min_violation: float, sides: dict[str, Side] | None = None) -> bool:
        """Are all requirements of protected cell ``k`` met at ``y``? Appends the cuts of
        those refuted (``cuts`` None: a verdict only). ``sides``: the attacker's answers at
        ``y`` for the sides remembered proofs leave open, if already computed."""
        if sides is None:
            names = self._unproven_sides(k, y)
            if not names:
                return True
            sides = self._sides(k, names, y, exact=False)
        # the requirements of the sides solved (the others' proofs meet theirs)
        rows = [r for r in self._rows_of_cell[k]
                if all(s in sides for s in _SIDES_OF[self.requirements[r][1]])]
        left, refuted = self._check(k, rows, sides, y, cuts, min_violation)
        # what the flows leave open at 0/1 points, the exact LP settles (what the capped
        # search leaves open stays open: its caller asks the exact LPs once it finds nothing)
        if left and decide and self.network is not None:
            sides = self._sides(k, list(sides), y, exact=True)
            left, more = self._check(k, left, sides, y, cuts, min_violation)
            refuted += more
        proven = not left and not refuted
        for side, answer in sides.items():
            if proven or (k not in self._sliding
                          and answer.attained >= self._side_need[side][k]):
                cells = np.flatnonzero(answer.level)
                self._proofs[k].add(side, cells, answer.level[cells], answer.attained)
        return proven

    def _proof_mask(self, k: int) -> np.ndarray:
        """Cells moved by the proofs that last settled protected cell ``k``."""
        mask = np.zeros(self.num_free, dtype=bool)
        for cells in self._proofs[k].last_cells.values():
            mask[cells] = True
        return mask

    @property
    def has_bridgeless(self) -> bool:
        """Whether :meth:`bridgeless_cuts` applies: attacker LPs (not minimum cuts, where they
        did not pay) under capped capacity cuts (binary ``y``)."""
        return self.network is None and self.strengthen

    def relation_cuts(self) -> list[CapacityCut]:
        """:func:`~cspopt.models.interval.cut_families.relation_cuts` of this oracle."""
        return relation_cuts(self)

    def relation_bridgeless_cuts(self) -> list[CapacityCut]:
        """:func:`~cspopt.models.interval.cut_families.relation_bridgeless_cuts` of this
        oracle."""
        return relation_bridgeless_cuts(self)

    def bridgeless_cuts(self, y_candidates: np.ndarray, *, limit: int = 50,
                        min_violation: float = 1e-6,
                        budget: Budget | None = None) -> list[CapacityCut]:
        """Bridgeless cuts violated by ``y``, at most ``limit``, those found by the end of
        ``budget`` (:class:`~cspopt.models.interval.cut_families.BridgelessCuts`)."""
        return self._bridgeless.separate(y_candidates, limit=limit,
                                         min_violation=min_violation, budget=budget)

    def prune(self, y_candidates: np.ndarray, order: np.ndarray,
              budget: Budget | None = None) -> np.ndarray:
        """Delete-and-check (seed 000 §5): drop the candidates in ``order`` whose removal
        keeps every cell protected. ``y_candidates`` must protect (if the check of that
        does not end within ``budget``, it is returned as it is). A removal re-judges only
        the protected cells whose proving flow (or LP point) moved the removed cell. The
        result is :meth:`~cspopt.models.interval.IntervalInstance.minimal`: a budget, or a class
        member dropped before the others, can leave suppressions no completion moves."""
        if not self.protects(y_candidates, budget):
            if budget is not None and budget.expired():
                return np.asarray(y_candidates, dtype=float)  # no time to prove, nor to prune
            raise InputError("prune needs a protecting pattern")
        y = self.inst.free_levels(y_candidates)
        used = {k: self._proof_mask(k) for k in self._rows_of_cell}
        free_of = np.flatnonzero(self.is_candidate)
        with self._lps_within(budget):
            for j in order.tolist():
                cell = free_of[j]
                if y[cell] < 0.5:
                    continue
                if budget is not None and budget.expired():
                    break
                y[cell] = 0.0
                affected = [k for k, mask in used.items() if mask[cell]]
                try:
                    exposed = self._judge_all(affected, y, True, None, _DECIDING_VIOLATION, 1)
                except OutOfTime:  # undecided: the cell stays suppressed
                    y[cell] = 1.0
                    break
                if exposed:
                    y[cell] = 1.0
                else:
                    used.update({k: self._proof_mask(k) for k in affected})
        return self.inst.minimal(y[self.is_candidate])

    @contextmanager
    def _lps_within(self, budget: Budget | None):
        """The attacker LPs solved inside stop where ``budget`` ends (raising
        :class:`~cspopt.errors.OutOfTime`), and no longer once it is left."""
        self.lps.budget = budget
        try:
            yield
        finally:
            self.lps.budget = None

    def _check(self, k, rows, sides, y, cuts, min_violation) -> tuple[list[int], int]:
        """Append the cuts of requirements ``rows`` of protected cell ``k`` that ``sides``
        refute; return the rows neither proven nor refuted, and how many were refuted.
        ``cuts`` None (a verdict only): a requirement missed by more than the sides' slack
        is refuted without a cut."""
        cell = int(self.inst.protected[k])
        left, refuted = [], 0
        for r in rows:
            _, kind, rhs = self.requirements[r]
            parts = [sides[s] for s in _SIDES_OF[kind]]
            if sum(s.attained for s in parts) >= rhs - self.tolerance[r]:
                continue
            if cuts is None and sum(s.attained + s.slack for s in parts) < (
                    rhs - self.tolerance[r]):
                refuted += 1
                continue
            cut = self.cut(cell, kind, rhs, sum(s.capacity for s in parts), y)
            if cut is not None and cut.violation > min_violation:
                if cuts is not None:
                    cuts.append(cut)
                refuted += 1
            else:
                left.append(r)
        return left, refuted

    def cut(self, cell: int, kind: str, rhs: float, capacity: np.ndarray,
             y: np.ndarray) -> CapacityCut | None:
        """Move fixed cells to the right-hand side, cap, normalise; None if always met."""
        rest = rhs - float(capacity[~self.is_candidate].sum())
        if rest <= 0:
            return None
        coef = capacity[self.is_candidate] / rest
        if self.strengthen:  # binary y: one cell whose capacity covers the need suffices
            coef = np.minimum(coef, 1.0)
        support = np.flatnonzero(coef > 1e-12)
        coef = coef[support]
        violation = 1.0 - float(coef @ y[self.is_candidate][support])
        return CapacityCut(cell, kind, support, coef, violation)


"""Exact disclosure on any linear table, by cover cuts: 3-D, hierarchical and linked tables.

(P) and (P_N) of Almeida & Carvalho (2005) are stated on networks; on any other relation
matrix the exact attacker's LP (:mod:`cspopt.models.exact.cover`) proves a sensitive cell
computable with a certificate that names the published cells of which one more must be
suppressed: a cover cut ``sum_{i in C} y_i >= 1``. The problem projected onto the
suppression variables ``y`` is

    min  sum_i w_i y_i   s.t.  every cover cut,  y binary,

which on a 2-D table is (P)'s cut-set form. It is solved here by a cutting-plane loop:
rounds of the LP relaxation separated at its fractional points (the root), then the MIP
over the cuts found so far (HiGHS), its optimum checked by the attacker and, where a cell is
computable, cut off and solved again. Every master optimum is a valid lower bound (the
master is a relaxation), and a master solution that the independent audit accepts is
optimal. The root comes first (the bound), then the incumbents, from Gaussian elimination
(:mod:`cspopt.heuristics.elimination`, GaussSuppression's idea): in its own order (the
dearest cells published first), then publishing first the cells the root's LP point and
each master point suppress least; where a bound leaves a cell computable, the pattern is
completed (each computable cell's cut gets its cheapest cell) and pruned (delete-and-check,
Almeida, Schütz & Carvalho 2008 §5). On tables of up to :data:`_INTERVAL_START_UP_TO`
candidates, the interval branch-and-cut's pattern for width-1 intervals is tried too. For
integer completions ((P_N) on an integer table), a cell the LP moves but no integer
completion does is cut off by the no-good cut (its suppressions' complement), valid
because fewer suppressions never protect more.

Complexity per round: two LPs per sensitive cell over the suppressible cells, and one MIP.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from cspopt.audit import audit
from cspopt.audit.lp import is_integral
from cspopt.backends.highs import (
    INF,
    OPTIMAL,
    new_highs,
    run_within,
    set_integrality,
)
from cspopt.budget import Budget
from cspopt.errors import InfeasibleProtectionError
from cspopt.heuristics.elimination import eliminate
from cspopt.models.exact import modelled_table
from cspopt.models.exact.cover import FLOOR, ExactAttacker
from cspopt.models.suppression import suppression_options
from cspopt.result import SolveResult, integral_bound, relative_gap
from cspopt.solving.exact_mip import choose_model

__all__ = ["solve_exact_cover", "exact_audit"]

log = logging.getLogger(__name__)

#: the share of the time limit the root's LP rounds may take, and their number at most
_ROOT_SHARE, _ROOT_ROUNDS = 0.3, 50
#: a cut is violated at a fractional point when its left side is below 1 by this much
_VIOLATED = 1e-6
#: the share of the time limit a completion may take, and then its delete-and-check
_COMPLETE_SHARE, _PRUNE_SHARE = 0.2, 0.2
#: seconds of the first MIP of the master loop (doubled while its points bring no cut)
_FIRST_SLICE = 5.0
#: the share of the time limit the interval start may take, and the most candidates it
#: runs for (beyond, its branch-and-cut overran its share and found nothing better than
#: the elimination: docs/bench/exact.md)
_START_SHARE, _INTERVAL_START_UP_TO = 0.2, 1_000
#: the attacker completions the exact audits of one solve pass on (the most recent)
_KEPT_PROOFS = 500


def exact_audit(table, model: str, suppressed, *, proofs: list | None = None,
                first_exposed: bool = False):
    """The independent audit that judges exact disclosure on any table as ``model`` states
    it: (P) on the table without its bounds, (P_N) with them, over integer completions on
    integer tables (:func:`cspopt.audit`, the sensitive cells). ``proofs`` (a list): the
    completions earlier audits found, checked and used here (a cell one of them moves
    needs no LP nor MIP while the pattern keeps its cells), and extended with this
    audit's (the most recent :data:`_KEPT_PROOFS`, integral ones for integer
    completions). ``first_exposed``: the verdict alone, stopped at the first exposed
    cell (:func:`cspopt.audit`)."""
    model = choose_model(table, model)
    table = modelled_table(table, model)
    integer = model == "PN" and table.is_integer
    found: list = []
    checked = audit(table, suppressed, requirement="exact", integer=integer,
                    cells="sensitive", ranges="verdict",
                    completions=() if proofs is None else list(proofs), kept=found,
                    first_exposed=first_exposed)
    if proofs is not None:
        proofs.extend(c for c in found if not integer or is_integral(c[1]))
        del proofs[:-_KEPT_PROOFS]
    return checked


def solve_exact_cover(table, *, model: str = "auto", time_limit: float | None = None,
                      gap: float = 1e-6, weights=None, must_publish=None,
                      publish_totals: bool = False, publish_zeros: bool = False,
                      mip_start=None, progress: Callable[[dict], None] | None = None
                      ) -> SolveResult:
    """Solve exact disclosure on any linear table by cover cuts (module docstring).

    Parameters
    ----------
    table : Table
    model : {"auto", "P", "PN"}
        (P): real completions, the bounds ignored; (P_N): the a-priori bounds kept, integer
        completions on integer tables (``auto`` as :func:`cspopt.solving.exact_mip.
        choose_model`).
    time_limit, gap : float
        Seconds for the call, and the relative gap it stops at.
    weights, must_publish, publish_totals, publish_zeros
        As every model takes them (:func:`cspopt.models.suppression.suppression_options`).
    mip_start : iterable of int, optional
        A pattern to start from, used where the audit accepts it.
    progress : callable, optional
        Called with every history record.

    Returns
    -------
    SolveResult
        Its pattern passes :func:`cspopt.audit` with ``requirement="exact"`` (over integer
        completions for (P_N) on integer tables); its lower bound is the master's.

    Raises
    ------
    InfeasibleProtectionError
        A sensitive cell that is computable whatever is suppressed (its bounds pin it, or it
        is the only suppressible cell of a relation), named before any solve.
    """
    budget = Budget(time_limit)
    model = choose_model(table, model)
    weights, published = suppression_options(table, weights, must_publish,
                                             publish_totals=publish_totals,
                                             publish_zeros=publish_zeros)
    loop = _Loop(table, model, np.flatnonzero(~published & ~table.sensitive), weights,
                 budget, gap, progress)
    with budget.phase("preprocessing"):
        loop.refuse_unprotectable()
        if mip_start is not None:
            start = np.isin(loop.candidates, np.asarray(list(mip_start), dtype=np.int64))
            loop.take_pruned(start.astype(float), "start")
    with budget.phase("root"):  # the bound first: a start's completion can take long
        loop.root()
    with budget.phase("elimination"):  # GaussSuppression's order: dearest published first
        loop.eliminated(np.zeros(loop.candidates.size), "elimination")
        if loop.root_point is not None and not budget.expired():
            loop.eliminated(loop.root_point, "root elimination")
    if loop.candidates.size <= _INTERVAL_START_UP_TO:
        with budget.phase("interval_start"):
            loop.interval_start(published)
    with budget.phase("master"):
        loop.master()
    return loop.result()


class _Loop:
    """The state of one cutting-plane solve: the attacker, the master model and its cuts,
    the incumbent and the bound."""

    def __init__(self, table, model: str, candidates: np.ndarray, weights: np.ndarray,
                 budget: Budget, gap: float, progress):
        self.original, self.model = table, model
        table = modelled_table(table, model)
        self.table, self.candidates = table, candidates
        self.integer = model == "PN" and table.is_integer
        self.budget, self.gap, self.progress = budget, gap, progress
        self.weights = weights[candidates]
        self.attacker = ExactAttacker(table, candidates)
        # the attacker's columns are the candidates and the sensitive cells, sorted
        self.column = self.attacker.position[candidates]
        n = candidates.size
        self.highs = new_highs(sp.csr_matrix((0, n)), self.weights, np.zeros(n), np.ones(n),
                               np.zeros(0), np.zeros(0), integer=np.ones(n, dtype=bool),
                               what="exact cover master")
        self.cuts: set[tuple[int, ...]] = set()
        self.y: np.ndarray | None = None  # the incumbent, over the candidates
        self.objective = math.inf
        self.lower = 0.0
        self.termination = "time_limit"
        self.history: list[dict] = []
        self.checked = None  # the incumbent's audit
        self._last_audit: tuple[bytes, object] | None = None  # (pattern, its audit)
        self.proofs: list = []  # the completions the audits found, for the next audits
        self.root_point: np.ndarray | None = None  # the root's last LP point

    # -- patterns ----------------------------------------------------------------------
    def rooms(self, y: np.ndarray) -> np.ndarray:
        """The attacker's rooms of a point ``y`` over the candidates (1 on sensitive
        cells)."""
        rooms = np.ones(self.attacker.cells.size)
        rooms[self.column] = y
        return rooms

    def cells(self, y: np.ndarray) -> np.ndarray:
        return self.candidates[np.asarray(y) > 0.5]

    def judged(self, y: np.ndarray):
        """The independent audit's verdict on the 0/1 point ``y``, stopped at its first
        exposed cell (the last one remembered: a master point is judged by the separation,
        the incumbent's rule and the no-good's, a start before and after its pruning)."""
        key = np.packbits(np.asarray(y) > 0.5).tobytes()
        if self._last_audit is None or self._last_audit[0] != key:
            self._last_audit = (key, exact_audit(self.original, self.model, self.cells(y),
                                                 proofs=self.proofs, first_exposed=True))
        return self._last_audit[1]

    def take(self, y: np.ndarray, how: str) -> bool:
        """Make the audited ``y`` the incumbent if it is cheaper."""
        cost = float(self.weights @ y)
        if cost >= self.objective - 1e-9:
            return False
        checked = self.judged(y)
        if not checked.protected:
            return False
        self.y, self.objective, self.checked = np.asarray(y, dtype=float), cost, checked
        self.record(how)
        return True

    def record(self, phase: str) -> None:
        entry = dict(iteration=len(self.history), time=self.budget.elapsed(), phase=phase,
                     lower_bound=self.lower, upper_bound=self.objective, cuts=len(self.cuts))
        self.history.append(entry)
        if self.progress is not None:
            self.progress(dict(entry, gap=relative_gap(self.objective, self.lower)))

    def refuse_unprotectable(self) -> None:
        """Name a sensitive cell no pattern protects (bounds that pin it, or computable with
        every candidate suppressed, by the audit), before any solve; else that pattern is
        the first incumbent."""
        everything = np.ones(self.candidates.size)
        checked = self.judged(everything)
        if checked.protected:  # the first incumbent
            self.take(everything, "everything")
        else:
            cell = int(checked.exposed[0])
            raise InfeasibleProtectionError(
                f"exact protection of {self.table.describe(cell)} is impossible: it is "
                "computable from the published cells even with every suppressible cell "
                "suppressed (its a-priori bounds pin it, or its relations leave it alone)",
                cell=cell)

    # -- cuts --------------------------------------------------------------------------
    def add_cut(self, cells: np.ndarray) -> bool:
        """Add ``sum_{i in cells} y_i >= 1`` (cell ids) to the master, once."""
        key = tuple(int(c) for c in cells)
        if not key or key in self.cuts:
            return False
        self.cuts.add(key)
        idx = np.searchsorted(self.candidates, cells).astype(np.int32)
        self.highs.addRow(1.0, INF, idx.size, idx, np.ones(idx.size))
        return True

    def cut_at(self, y: np.ndarray, cell: int) -> np.ndarray:
        """A cut that the 0/1 point ``y``, where ``cell`` is computable, violates and
        every pattern protecting ``cell`` satisfies: the attacker's cover with the floor,
        else without it, else the no-good cut."""
        rooms = self.rooms(y)
        for floor in (FLOOR, 0.0):
            found = self.attacker.cover(rooms, cell, floor=floor)
            if found is not None and not np.any(y[np.searchsorted(self.candidates,
                                                                  found)] > 0.5):
                return found
        return self.attacker.no_good(rooms)

    def neighbours(self, y: np.ndarray, cell: int) -> np.ndarray:
        """The candidates ``y`` publishes that share a relation with ``cell``, else every
        candidate it publishes (the no-good's cells)."""
        a = self.table.relation_matrix
        rows = a[:, [cell]].nonzero()[0]
        near = np.intersect1d(np.unique(a[rows].nonzero()[1]), self.cells(1.0 - y))
        return near if near.size else self.attacker.no_good(self.rooms(y))

    def separate(self, y: np.ndarray) -> int:
        """Cuts for every cell computable at the 0/1 point ``y``; their number."""
        rooms = self.rooms(y)
        added = 0
        for cell in self.attacker.computed(rooms, self.budget).tolist():
            if self.budget.expired():
                return added
            added += self.add_cut(self.cut_at(y, cell))
        if not added and self.integer and not self.budget.expired():
            for cell in self.judged(y).exposed:  # the LP moves them all: integer steps
                if self.budget.expired():
                    break
                added += self.add_cut(self.cut_at(y, int(cell)))
        return added

    # -- phases ------------------------------------------------------------------------
    def relation_cuts(self) -> int:
        """For each relation that holds one sensitive cell, the cut that suppresses one more
        of its cells, else that cell is the others' combination (the line cuts of (P) on a
        2-D table, Almeida & Carvalho 2005 (8)-(10)); found without an LP. Their number."""
        a = self.table.relation_matrix.tocsr(copy=True)
        a.eliminate_zeros()
        is_candidate = np.zeros(self.table.num_cells, dtype=bool)
        is_candidate[self.candidates] = True
        added = 0
        for r in range(a.shape[0]):
            cells = a.indices[a.indptr[r]:a.indptr[r + 1]]
            if np.count_nonzero(self.table.sensitive[cells]) == 1:
                added += self.add_cut(np.sort(cells[is_candidate[cells]]))
        return added

    def root(self) -> None:
        """The primaries' cuts (each relation's, else the attacker's at the point that
        suppresses nothing), then rounds of the LP relaxation separated at its point."""
        if not self.relation_cuts():
            self.separate(np.zeros(self.candidates.size))
        h = self.highs
        set_integrality(h, False)
        share = self.budget.share(_ROOT_SHARE)
        y = None
        try:
            for _ in range(_ROOT_ROUNDS):
                if share.expired() or run_within(h, share.remaining()) != OPTIMAL:
                    break
                y = np.clip(np.asarray(h.getSolution().col_value), 0.0, 1.0)
                self.lower = max(self.lower, float(h.getInfo().objective_function_value))
                rooms, added = self.rooms(y), 0
                for cell in self.attacker.sensitive.tolist():
                    if share.expired():
                        break
                    found = self.attacker.cover(rooms, cell)
                    if (found is not None and y[np.searchsorted(self.candidates, found)].sum()
                            < 1 - _VIOLATED):
                        added += self.add_cut(found)
                self.record("root")
                if not added:
                    break
        finally:
            set_integrality(h, True)
        self.root_point = y

    def master(self) -> None:
        """The MIP over the cuts, its points checked and cut off until the audit accepts an
        optimal one (then it is optimal) or the time ends. Each MIP runs for a slice of the
        time left that doubles while its points bring no cut: a point found before the MIP's
        proof is checked as well, and its bound is valid wherever it stops."""
        h = self.highs
        h.setOptionValue("mip_rel_gap", self.gap)
        slice_ = _FIRST_SLICE
        while not self.budget.expired():
            status = run_within(h, min(slice_, self.budget.remaining()), mip=True)
            info = h.getInfo()
            proven = status == OPTIMAL
            bound = info.objective_function_value if proven else info.mip_dual_bound
            if math.isfinite(bound):
                self.lower = max(self.lower, float(bound))
            if self.lower >= self.objective - 1e-9 * max(1.0, self.objective):
                self.termination = "optimal"
                break
            if info.primal_solution_status != 2 or self.budget.expired():
                slice_ *= 2
                continue
            y = np.round(np.asarray(h.getSolution().col_value))
            if self.separate(y):
                if not self.budget.expired():
                    self.eliminated(y, "master elimination")
                self.record("master")
                continue
            if self.budget.expired():  # the separation ran out of time: y is not judged
                break
            # the attacker moves every cell at y: the audit decides
            if self.take(y, "master") and proven:
                self.lower = max(self.lower, self.objective)
                self.termination = "optimal"
                break
            if not self.judged(y).protected:
                self.add_cut(self.attacker.no_good(self.rooms(y)))
            elif proven:  # a proven optimum, safe, not cheaper than the incumbent: HiGHS's
                log.warning("the master's optimum (%g) is not its point's cost; stopped",
                            bound)  # objective and point disagree: stop, not loop
                self.termination = "stalled"
                break
            slice_ *= 2
            if relative_gap(self.objective, self.lower) <= self.gap:
                self.termination = "gap_limit"
                break

    def eliminated(self, y: np.ndarray, how: str) -> None:
        """The pattern Gaussian elimination (:mod:`cspopt.heuristics.elimination`) makes
        publishing first the cells ``y`` (a point over the candidates) suppresses least,
        dearest first among equals; where bounds the elimination does not see leave a cell
        computable, completed by :meth:`complete`."""
        order = np.lexsort((-self.weights, np.round(np.asarray(y, dtype=float), 6)))
        found = eliminate(self.table, self.candidates, order)
        if found is None:  # a table too large for the dense elimination
            return
        found = found.astype(float)
        if (self.weights @ found < self.objective - 1e-9 and not self.budget.expired()
                and not self.take(found, how)):
            self.complete(found)  # cheaper, but a bound leaves a cell computable

    def complete(self, y: np.ndarray) -> None:
        """A safe pattern from ``y``: each computable cell's cut gets its cheapest cell
        until none is left, within a share of the time limit, then the suppressions that
        protect nothing are dropped, dearest first (delete-and-check)."""
        y = y.copy()
        share = self.budget.share(_COMPLETE_SHARE)
        while not share.expired():
            stuck = self.attacker.computed(self.rooms(y), share)
            cut_for = self.cut_at
            if not stuck.size and self.integer and not share.expired():
                # the LP moves every cell, an integer completion not all: a neighbour more
                stuck = np.asarray(self.judged(y).exposed, dtype=np.int64)
                cut_for = self.neighbours
            if not stuck.size:
                break
            for cell in stuck.tolist():
                if share.expired():
                    return
                cut = np.searchsorted(self.candidates, cut_for(y, cell))
                if cut.size and not np.any(y[cut] > 0.5):
                    y[cut[np.argmin(self.weights[cut])]] = 1.0
        else:
            return
        self.take(self.prune(y), "completion")

    def prune(self, y: np.ndarray) -> np.ndarray:
        """``y`` (a safe 0/1 point) without the suppressions that protect nothing, dearest
        first (delete-and-check, Almeida, Schütz & Carvalho 2008 §5), within a share of the
        time left; the last completion of each cell spares its LPs while it holds."""
        y = np.asarray(y, dtype=float).copy()
        share = self.budget.share(_PRUNE_SHARE)
        for j in np.flatnonzero(y > 0.5)[np.argsort(-self.weights[y > 0.5],
                                                    kind="stable")].tolist():
            if share.expired():
                break
            y[j] = 0.0
            rooms = self.rooms(y)
            if any(not self.attacker.moves(rooms, c) for c in self.attacker.sensitive):
                y[j] = 1.0
        return y

    def take_pruned(self, y: np.ndarray, how: str) -> None:
        """A start from elsewhere (the caller's, the interval branch-and-cut's): where the
        audit accepts the 0/1 point ``y``, pruned (:meth:`prune`) and taken."""
        if self.judged(y).protected:
            self.take(self.prune(y), how)

    def interval_start(self, published: np.ndarray) -> None:
        """A first pattern from interval protection: each sensitive cell asks for an
        attacker interval of width 1 (less where its bounds leave less) within bounds
        ``a -/+ 1``; any pattern meeting that moves the cell, so it protects it from exact
        disclosure too (real completions; the audit judges integer ones). Cspopt's interval
        branch-and-cut finds one within a share of the time, pruned here by the exact
        attacker."""
        from cspopt.errors import CspoptError
        from cspopt.solving.branch_and_cut import solve_branch_and_cut

        t = self.table
        lower = np.maximum(t.apriori_lower, t.values - 1.0)
        upper = np.minimum(t.apriori_upper, t.values + 1.0)
        levels = t.replace(apriori_lower=lower, apriori_upper=upper, lower_protection=0.0,
                           upper_protection=0.0,
                           sliding_protection=np.where(t.sensitive, upper - lower, 0.0))
        weights = np.zeros(t.num_cells)
        weights[self.candidates] = self.weights
        try:
            found = solve_branch_and_cut(levels, time_limit=self.budget.fraction(_START_SHARE),
                                         weights=weights, must_publish=np.flatnonzero(published),
                                         processes=1)
        except CspoptError as exc:  # a table the interval model refuses: no start
            log.info("no interval start: %s", exc)
            return
        if found.has_pattern:
            self.take_pruned(np.isin(self.candidates, found.suppressed).astype(float),
                             "interval start")

    def result(self) -> SolveResult:
        timings = self.budget.timings
        timings["total"] = self.budget.elapsed()
        lower = integral_bound(min(self.lower, self.objective), self.weights)
        return SolveResult.build(
            method="bc(cover)/highs", model="PN" if self.integer else "P",
            termination=self.termination, lower_bound=lower,
            suppressed=tuple(int(c) for c in self.cells(self.y)), objective=self.objective,
            audit=self.checked, proof="mip", unsafe=self.table.sensitive_cells,
            timings=timings, history=tuple(self.history),
            model_size=dict(variables=int(self.candidates.size), constraints=len(self.cuts),
                            nonzeros=int(sum(map(len, self.cuts)))))

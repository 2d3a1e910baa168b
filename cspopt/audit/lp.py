"""Attacker-LP audit: the interval an intruder can deduce for every suppressed cell.

For a pattern ``S`` (sensitive cells included) and each ``k`` in ``S`` the attacker solves

    low_k / high_k = min / max  a_k + d_k
    s.t.  sum_{i in S} c_ri d_i = 0             for every relation r,
          lb_i - a_i <= d_i <= ub_i - a_i        for i in S,

where published cells are fixed at their values (``d_i = 0``, so they drop out) and
``d = y - a`` is the deviation of a completion ``y`` from the true table (Fischetti &
Salazar-Gonzalez 1999; Smith et al. 2012 eqs 3-7 with ``y = a + y+ - y-``; Castro 2007 eq.
(3)). Writing it in deviations makes every right-hand side exactly zero, so rounding in the
published values cannot make the LP infeasible. One HiGHS model serves all ``2|S|`` solves:
only the objective changes, and the simplex restarts from the previous basis.

Deciding protection needs fewer LPs than computing every interval: each LP optimum is a
completion of the table, and it moves the other sensitive cells too; one that already moves
cell ``j`` past ``a_j + upl_j`` proves ``j``'s upper side without an LP of its own (the
"sleep" rule of Fischetti & Salazar-Gonzalez 2001, also in tau-ARGUS' engine). Before any
single-cell LP, LPs that push all the sides still open at once (the sum of their moves, each
scaled by its protection level) prove most sides of tables whose sensitive cells protect one
another in a few dozen LPs instead of two per sensitive cell (``ranges="verdict"``).

Exact disclosure (Almeida & Carvalho 2005 §3) is ``low < a < high`` failing on both sides;
for nonnegative integer tables (§4) the attacker must find an integer completion at most
``a - 1`` or at least ``a + 1``, checked with a MIP only when the LP optimum is fractional.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import highspy
import numpy as np
import scipy.sparse as sp

from cspopt.audit.judge import (
    assemble,
    judge_cell,
    TOLERANCE,
    proven_cell,
    resolve_options,
    side_proven,
    tolerance_for,
)
from cspopt.audit.proofs import covering_proofs
from cspopt.audit.result import AuditResult
from cspopt.backends.highs import Resolver, new_highs
from cspopt.errors import InputError, SolverError
from cspopt.table.neighbourhood import closure

__all__ = ["audit", "audit_seconds", "interval_verdict", "unproven_cells", "is_integral",
           "AttackerLP", "LOCAL_AUDIT_FROM"]

_MIN, _MAX = highspy.ObjSense.kMinimize, highspy.ObjSense.kMaximize
_STATUS = highspy.HighsModelStatus
_PRIMAL_SIMPLEX = 4  # HiGHS option simplex_strategy
#: a completion whose deviations are all this close to integers is an integer completion
_INTEGRAL = 1e-7


def is_integral(x: np.ndarray) -> bool:
    """Is completion ``x`` (deviations) an integer one, up to :data:`_INTEGRAL`?"""
    return bool(np.all(np.abs(x - np.round(x)) <= _INTEGRAL))
#: sides an LP over many cells must prove to be worth another round: it takes about as long
#: as this many single-cell LPs
_WORTH_AN_LP = 10
#: a pattern of this many cells or more is audited on small LPs first
#: (:meth:`AttackerLP.prove_locally`)
LOCAL_AUDIT_FROM = 2_000
#: neighbourhoods of more cells than the first are solved last, of more than the second not
#: at all (:meth:`AttackerLP.prove_locally`: 11 of 6,000 cells or more took 161 of 225 s on a
#: 21,000-cell pattern)
_LOCAL_COLUMNS = (1_500, 4_000)


def audit(
    table,
    suppressed: Iterable[int] | np.ndarray = (),
    *,
    requirement: str = "auto",
    integer: bool | None = None,
    cells: str = "suppressed",
    tolerance: float = TOLERANCE,
    ranges: str = "exact",
    small_lps: bool = True,
    completions: Iterable = (),
    kept: list | None = None,
    first_exposed: bool = False,
) -> AuditResult:
    """Audit a suppression pattern by solving the attacker's LPs.

    Parameters
    ----------
    table : Table
    suppressed : iterable of int or bool mask
        Complementary suppressions; the sensitive cells are always added.
    requirement : {"auto", "exact", "interval"}
        What a sensitive cell needs (see :mod:`cspopt.audit.result`); ``auto`` picks
        ``interval`` when any sensitive cell has a positive protection level.
    integer : bool, optional
        Judge exact disclosure over integer completions; default for nonnegative integer
        tables.
    cells : {"suppressed", "sensitive"}
        Compute intervals for every suppressed cell (``2|S|`` LPs) or only the sensitive ones.
    tolerance : float
        Absolute slack (plus ``1e-9 |a|``) in every comparison with a cell value.
    ranges : {"exact", "verdict"}
        ``exact``: both LP optima of every audited cell. ``verdict``: a side of a
        sensitive cell that a completion found for another cell already proves gets no
        LP, and its end is ``nan`` in the result (interval requirement: exposed cells
        still get both optima); under the exact requirement one moving side proves a
        cell, so its LPs stop there (:meth:`AttackerLP.exact_verdict`). The verdict is
        the same.
    small_lps : bool
        With ``ranges="verdict"`` on a pattern of :data:`LOCAL_AUDIT_FROM` cells or more,
        prove sides on small LPs first (:meth:`AttackerLP.prove_locally`); the verdict is
        the same.
    completions : iterable of (cells, deviations)
        With ``ranges="verdict"``: attacker completions found elsewhere (a repair's LPs,
        an earlier audit of a sub-pattern), each as cell ids and their deviations from the
        table's values. Each is checked here, and its negation too (:meth:`AttackerLP.accept`:
        its cells suppressed, within the a-priori bounds, every relation met to the
        tolerance); one that passes proves the sides it moves past their levels (under the
        exact requirement: the cells it moves, by an integral completion where completions
        are integer), as the audit's own completions do, so those cells need no LP; one
        that fails is ignored. The verdict is the same.
    kept : list, optional
        Receives every completion the audit's own LPs find, as ``(cells, deviations)``:
        with the ``completions`` accepted, the proofs of a protected verdict (what
        :func:`cspopt.solving.unmoved.publish_unmoved` cleans a pattern by).
    first_exposed : bool
        With ``ranges="verdict"``: stop at the first exposed cell (the verdict alone; an
        exposed cell costs most: two attacker MIPs, for integer completions).

    Returns
    -------
    AuditResult
        With ``ranges="verdict"`` and a protected verdict, its :attr:`~AuditResult.proofs`:
        completions (the accepted ``completions`` and the audit's own) that prove every side.

    Raises
    ------
    PatternError
        Unknown cell ids, or a suppressed must-publish cell.
    InputError
        Invalid options.

    Notes
    -----
    The LPs have ``|S|`` columns and one row per relation touching ``S``. Warm-started dual
    simplex makes each re-solve a few pivots; a 100x100 table with 200 suppressed cells takes
    well under a second (``cspopt bench audit``).
    """
    started = time.perf_counter()
    requirement, integer = resolve_options(table, requirement, integer)
    if cells not in ("suppressed", "sensitive"):
        raise InputError(f"cells must be 'suppressed' or 'sensitive', not {cells!r}")
    if not tolerance >= 0:
        raise InputError(f"tolerance must be >= 0, got {tolerance}")
    if ranges not in ("exact", "verdict"):
        raise InputError(f"ranges must be 'exact' or 'verdict', not {ranges!r}")
    mask = table.pattern(suppressed)
    targets = np.flatnonzero(mask if cells == "suppressed" else table.sensitive)
    attacker = AttackerLP(table, mask)
    found = []  # the verdict's own completions: with those accepted, its proofs
    attacker.kept = found if ranges == "verdict" else kept
    attacker.accept(completions, tolerance)  # what they prove, only the verdict reads
    if ranges == "verdict" and requirement == "interval":
        if small_lps and attacker.columns.size >= LOCAL_AUDIT_FROM:
            attacker.prove_locally(targets[table.sensitive[targets]], tolerance)
        attacker.prove_together(targets[table.sensitive[targets]], tolerance)
    # integer steps (an attacker MIP per fractional LP optimum) decide exact disclosure only
    integer_steps = integer and requirement == "exact"
    results = []
    for cell in targets.tolist():
        if ranges == "verdict" and table.sensitive[cell]:
            results.append(attacker.verdict(cell, tolerance) if requirement == "interval"
                           else attacker.exact_verdict(cell, integer_steps, tolerance))
            if first_exposed and not results[-1].protected:
                break
            continue
        low, high, can_dec, can_inc = attacker.interval(cell, integer_steps, tolerance)
        results.append(judge_cell(table, cell, low, high, can_dec, can_inc, requirement,
                                  tolerance))
    proofs = ()
    if ranges == "verdict":
        if kept is not None:
            kept.extend(found)
        if requirement == "interval" and all(c.protected for c in results if c.sensitive):
            proofs = tuple(covering_proofs(table, mask, attacker.accepted + found,
                                           np.ones(table.num_cells)) or ())
    return assemble(table, mask, results, requirement=requirement, integer=integer,
                    method="lp", num_solves=attacker.num_solves, started=started,
                    proofs=proofs)


def interval_verdict(table, suppressed: Iterable[int] | np.ndarray = (), *,
                     small_lps: bool = True, completions: Iterable = (),
                     kept: list | None = None) -> AuditResult:
    """Is every sensitive cell interval-protected by ``suppressed``? :func:`audit` with
    ``requirement="interval"``, ``cells="sensitive"`` and ``ranges="verdict"``: the check
    every interval pattern a solver of cspopt returns or starts from passes.
    ``small_lps=False`` skips the small LPs of a large pattern (where the LPs over many
    cells settle it at once: every cell suppressed). ``completions``: proofs found
    elsewhere, checked before they are used; ``kept``: receives the completions its own LPs
    find (see :func:`audit`)."""
    return audit(table, suppressed, requirement="interval", cells="sensitive",
                 ranges="verdict", small_lps=small_lps, completions=completions, kept=kept)


def unproven_cells(table, suppressed: Iterable[int] | np.ndarray = (), *,
                   completions: list | None = None, small_lps: bool = True) -> np.ndarray:
    """The sensitive cells of ``table`` that the attacker's small LPs
    (:meth:`AttackerLP.prove_locally`) do not prove interval-protected by ``suppressed``: a
    superset of the exposed ones, found without an LP over the whole pattern (which on a
    38,000-cell table takes seconds each). What a repair works on, where proving a cell
    exposed costs more than protecting it. ``completions`` (a list) receives the
    completions found, as ``(cells, deviations)``: they stay completions of any pattern
    that contains this one, so an audit of the repaired pattern checks and reuses them
    (:func:`audit`'s ``completions``). ``small_lps=False``: proven by the LPs over many
    cells at once instead (:meth:`AttackerLP.prove_together`), a few LPs over the whole
    pattern where the small ones would each fail (a pattern of primaries alone that
    protects none of them)."""
    mask = table.pattern(suppressed)
    cells = np.flatnonzero(table.sensitive)
    attacker = AttackerLP(table, mask)
    attacker.kept = completions
    if small_lps:
        attacker.prove_locally(cells, TOLERANCE)
    else:
        attacker.prove_together(cells, TOLERANCE)
    return cells[attacker.open_cells(cells, TOLERANCE)]


def audit_seconds(table, suppressed: Iterable[int] | np.ndarray = (), *,
                  sample: int = 10) -> float:
    """Seconds :func:`audit` of ``suppressed`` with ``requirement="interval"`` and
    ``cells="sensitive"`` is expected to take, timed on ``sample`` of the sensitive cells
    spread evenly (the first solve, cold, included) and scaled to all of them.

    Solvers keep that time for their final audit; timing the whole audit for it cost as much
    as the audit itself on tables with thousands of sensitive cells. Their final audit decides
    with ``ranges="verdict"``, which solves at most about as many LPs, often far fewer, so the
    estimate errs on the safe side; a
    sample of ten suffices under the margin solvers keep on top of it.
    """
    started = time.perf_counter()
    mask = table.pattern(suppressed)
    targets = np.flatnonzero(table.sensitive)
    if not targets.size:
        return time.perf_counter() - started
    attacker = AttackerLP(table, mask)
    built = time.perf_counter()
    chosen = targets[np.linspace(0, targets.size - 1, min(sample, targets.size)).astype(int)]
    for cell in chosen.tolist():
        attacker.interval(cell, False,
                          tolerance_for(float(table.values[cell]), TOLERANCE))
    per_cell = (time.perf_counter() - built) / chosen.size
    return built - started + per_cell * targets.size


class AttackerLP:
    """The deviation LP of one pattern, kept in one HiGHS instance across solves."""

    def __init__(self, table, mask: np.ndarray):
        columns = np.flatnonzero(mask)
        self._build(table, columns, table.relation_matrix[:, columns].tocsc())

    def _build(self, table, columns: np.ndarray, sub) -> None:
        """The LP over the deviations of ``columns`` (sorted cell ids), ``sub`` the relation
        matrix's columns of them (CSC)."""
        self.table = table
        self.columns = columns
        self.position = np.full(table.num_cells, -1, dtype=np.int64)
        self.position[self.columns] = np.arange(self.columns.size)
        touched = np.unique(sub.indices)
        sub = sub[touched, :].tocsc()
        sub.sort_indices()
        values = table.values[self.columns]
        self.lower = table.apriori_lower[self.columns] - values
        self.upper = table.apriori_upper[self.columns] - values
        self.matrix = sub
        # the largest and smallest deviation of each column in the completions found so far
        self.reached_high = np.zeros(self.columns.size)
        self.reached_low = np.zeros(self.columns.size)
        # the same over the integral completions found (integer completions' proofs)
        self.integral_high = np.zeros(self.columns.size)
        self.integral_low = np.zeros(self.columns.size)
        self.highs = self._new_highs(integer=False)
        self._resolver = Resolver(self.highs)
        self._mip: highspy.Highs | None = None
        self._mip_solves = 0
        self._local_solves = 0  # the LPs of prove_locally
        self._together: list[_TogetherLP] = []  # the LPs of prove_together
        self.kept: list | None = None  # where given, every completion found goes here too
        self.accepted: list = []  # the completions :meth:`accept` checked, with their sign

    def restricted(self, where: np.ndarray) -> AttackerLP:
        """The attacker who may move only the columns ``where`` (sorted positions), the
        pattern's other cells held at their values: each completion it finds, with zero
        deviations elsewhere, is one of this attacker's."""
        other = object.__new__(AttackerLP)
        other._build(self.table, self.columns[where], self.matrix[:, where])
        other.kept = self.kept
        return other

    @property
    def num_solves(self) -> int:
        """LPs and MIPs solved (a warm LP restarted cold counts once more)."""
        return (self._resolver.solves + self._mip_solves + self._local_solves
                + sum(lp.resolver.solves for lp in self._together))

    def _new_highs(self, *, integer: bool) -> highspy.Highs:
        n, m = int(self.columns.size), int(self.matrix.shape[0])
        h = new_highs(self.matrix, np.zeros(n), self.lower, self.upper, np.zeros(m),
                      np.zeros(m), integer=np.full(n, integer), presolve=integer,
                      what="attacker LP")
        if not integer and self.table.is_network:
            # only the objective changes between solves, so the last optimal basis stays
            # primal feasible: primal simplex goes on from it, where dual simplex must first
            # regain dual feasibility. Faster on network (2-D) tables, far slower on
            # hierarchical ones, where HiGHS's default (dual) stays (docs/bench/audit.md)
            h.setOptionValue("simplex_strategy", _PRIMAL_SIMPLEX)
        return h

    def _optimise(self, col: int, sense) -> tuple[float, bool]:
        """Optimal deviation of column ``col`` and whether the optimum point is integral."""
        h = self.highs
        h.changeObjectiveSense(sense)
        h.changeColCost(col, 1.0)
        status = self._resolver.run()
        try:
            if status == _STATUS.kOptimal:
                x = np.asarray(h.getSolution().col_value)
                return float(x[col]), self._record(x)
            if status in (_STATUS.kUnbounded, _STATUS.kUnboundedOrInfeasible):
                # d = 0 is always feasible, so "unbounded or infeasible" means unbounded
                if sense == _MIN:
                    self.reached_low[col] = -np.inf
                else:
                    self.reached_high[col] = np.inf
                return (-np.inf if sense == _MIN else np.inf), True
            raise SolverError(f"attacker LP for {self.table.describe(self.columns[col])} ended "
                              f"with status {h.modelStatusToString(status)}")
        finally:
            h.changeColCost(col, 0.0)

    def _record(self, x: np.ndarray) -> bool:
        """Widen the moves seen so far by completion ``x`` (deviations); whether it is an
        integer completion."""
        integral = is_integral(x)
        np.maximum(self.reached_high, x, out=self.reached_high)
        np.minimum(self.reached_low, x, out=self.reached_low)
        if integral:
            np.maximum(self.integral_high, x, out=self.integral_high)
            np.minimum(self.integral_low, x, out=self.integral_low)
        if self.kept is not None:
            moved = np.flatnonzero(x)
            self.kept.append((self.columns[moved], x[moved]))
        return integral

    def accept(self, completions: Iterable, tolerance: float) -> int:
        """Record the completions given from elsewhere that this attacker checks to be
        completions (each ``(cells, deviations)``, and its negation): every cell moved is
        suppressed, each deviation lies within the cell's a-priori bounds and each relation
        holds, up to ``tolerance`` plus ``1e-9`` times the largest ``|c a|`` of the
        relation or the cell's value (the slack every comparison of the audit allows).
        Returns how many were recorded; the others are ignored."""
        completions = list(completions)
        if not completions:
            return 0
        values = np.abs(self.table.values[self.columns])
        slack = tolerance_for(values, tolerance)
        row_slack = tolerance_for(abs(self.matrix).multiply(values).max(axis=1).toarray()
                                  .ravel(), tolerance)
        accepted = 0
        for cells, deviations in completions:
            cells = np.asarray(cells, dtype=np.int64).ravel()
            deviations = np.asarray(deviations, dtype=float).ravel()
            if (cells.size != deviations.size or np.any(cells < 0)
                    or np.any(cells >= self.position.size)
                    or np.unique(cells).size != cells.size):  # a cell given twice
                continue
            where = self.position[cells]
            if (np.any(where < 0) or not np.all(np.isfinite(deviations))
                    or np.any(np.abs(self.matrix[:, where] @ deviations) > row_slack)):
                continue
            lower, upper, room = self.lower[where], self.upper[where], slack[where]
            for d in (deviations, -deviations):  # outside ``where`` both are 0
                if np.all(d >= lower - room) and np.all(d <= upper + room):
                    self._widen(where, d, d, integral=is_integral(d))
                    self.accepted.append((cells, d))
                    accepted += 1
        return accepted

    def _widen(self, where: np.ndarray, high: np.ndarray, low: np.ndarray, *,
               integral: bool = False) -> None:
        """Widen the moves seen so far of columns ``where`` to ``high`` and ``low`` (those
        of the integer completions too, where they come from one: ``integral``)."""
        self.reached_high[where] = np.maximum(self.reached_high[where], high)
        self.reached_low[where] = np.minimum(self.reached_low[where], low)
        if integral:
            self.integral_high[where] = np.maximum(self.integral_high[where], high)
            self.integral_low[where] = np.minimum(self.integral_low[where], low)

    def _integer_step_exists(self, col: int, upward: bool) -> bool:
        """Is there an integer completion with ``d_col >= 1`` (``upward``) or ``<= -1``?"""
        if self._mip is None:
            self._mip = self._new_highs(integer=True)
        mip = self._mip
        lo, hi = self.lower[col], self.upper[col]
        if upward:
            mip.changeColBounds(col, 1.0, hi if np.isfinite(hi) else highspy.kHighsInf)
        else:
            mip.changeColBounds(col, lo if np.isfinite(lo) else -highspy.kHighsInf, -1.0)
        try:
            mip.run()
            self._mip_solves += 1
            status = mip.getModelStatus()
            if status == _STATUS.kOptimal:  # an integer completion: it may prove others
                self._record(np.asarray(mip.getSolution().col_value))
                return True
            if status in (_STATUS.kUnbounded, _STATUS.kUnboundedOrInfeasible):
                return True
            if status == _STATUS.kInfeasible:
                return False
            raise SolverError(f"attacker MIP for {self.table.describe(self.columns[col])} "
                              f"ended with status {mip.modelStatusToString(status)}")
        finally:
            mip.changeColBounds(col, lo if np.isfinite(lo) else -highspy.kHighsInf,
                                hi if np.isfinite(hi) else highspy.kHighsInf)

    def _integer_side(self, col: int, d_opt: float, integral: bool, tol: float, *,
                      upward: bool) -> bool:
        """Integer step test from the LP optimum: no LP move means none at all; an integral
        LP optimum is itself an integer completion (also when unbounded: a rational
        polyhedron with an integer point has integer points along every recession ray);
        otherwise ask the MIP."""
        if (d_opt <= tol) if upward else (d_opt >= -tol):
            return False
        return integral or self._integer_step_exists(col, upward=upward)

    def interval(self, cell: int, integer: bool, tolerance: float):
        """``(low, high, can_decrease, can_increase)`` of ``cell``."""
        col = int(self.position[cell])
        a = float(self.table.values[cell])
        tol = tolerance_for(a, tolerance)
        d_low, low_integral = self._optimise(col, _MIN)
        d_high, high_integral = self._optimise(col, _MAX)
        if integer:
            can_dec = self._integer_side(col, d_low, low_integral, tol, upward=False)
            can_inc = self._integer_side(col, d_high, high_integral, tol, upward=True)
        else:
            can_dec, can_inc = d_low < -tol, d_high > tol
        return a + d_low, a + d_high, bool(can_dec), bool(can_inc)

    def exact_verdict(self, cell: int, integer: bool, tolerance: float):
        """The exact-disclosure verdict of sensitive ``cell`` (a :class:`CellAudit`): it is
        protected as soon as one side moves, so a completion found so far that moves it
        (an integral one, for ``integer`` completions) proves it without an LP, and the
        LPs stop at the first side that moves. ``low``/``high`` are ``nan`` where not
        solved."""
        col = int(self.position[cell])
        tol = tolerance_for(float(self.table.values[cell]), tolerance)
        high, low = ((self.integral_high[col], self.integral_low[col]) if integer
                     else (self.reached_high[col], self.reached_low[col]))
        ends = {_MAX: np.nan, _MIN: np.nan}
        moves = {_MAX: high > tol, _MIN: low < -tol}
        for sense in (_MAX, _MIN):
            if moves[_MAX] or moves[_MIN]:
                break
            d, integral = self._optimise(col, sense)
            ends[sense] = d
            moves[sense] = (self._integer_side(col, d, integral, tol, upward=sense == _MAX)
                            if integer else (d > tol if sense == _MAX else d < -tol))
        a = float(self.table.values[cell])
        return judge_cell(self.table, cell, a + ends[_MIN], a + ends[_MAX], bool(moves[_MIN]),
                          bool(moves[_MAX]), "exact", tolerance)

    def verdict(self, cell: int, tolerance: float):
        """The interval verdict of sensitive ``cell`` (a :class:`CellAudit`), solving only
        the sides that no completion found so far proves (``ranges="verdict"``).

        A side is proven when some completion moved the cell past its protection level
        (strictly away from its value) and the moves seen so far span the sliding level: the
        attacker's interval contains every completion's value, so it reaches at least as far.
        An exposed cell gets both LP optima, as :meth:`interval` gives them.
        """
        col = int(self.position[cell])
        table = self.table
        a = float(table.values[cell])
        tol = tolerance_for(a, tolerance)
        down = float(table.lower_protection[cell])
        up = float(table.upper_protection[cell])
        width = float(table.sliding_protection[cell])
        ends = self._open_ends(cell, tolerance)
        if self._meets(col, tol, down, up, width):
            return proven_cell(table, cell, a + ends.get(_MIN, np.nan),
                               a + ends.get(_MAX, np.nan), bool(self.reached_low[col] < -tol),
                               bool(self.reached_high[col] > tol))
        for sense in (_MAX, _MIN):
            if sense not in ends:
                ends[sense] = self._optimise(col, sense)[0]
        d_low, d_high = ends[_MIN], ends[_MAX]
        return judge_cell(table, cell, a + d_low, a + d_high, d_low < -tol, d_high > tol,
                          "interval", tolerance)

    def _open_ends(self, cell: int, tolerance: float) -> dict:
        """The LP optimum (a deviation) of each side of sensitive ``cell`` that no completion
        found so far proves, by sense; a side the first LP's completion proves gets none."""
        table, col = self.table, int(self.position[cell])
        levels = (float(table.lower_protection[cell]), float(table.upper_protection[cell]),
                  float(table.sliding_protection[cell]),
                  tolerance_for(float(table.values[cell]), tolerance))
        return {sense: self._optimise(col, sense)[0] for sense in (_MAX, _MIN)
                if self._open_sides(np.array([col]), *levels, sense)[0]}

    def _meets(self, col: int, tol: float, down: float, up: float, width: float) -> bool:
        """Do the moves seen so far meet all three protection levels of column ``col``?"""
        high, low = self.reached_high[col], self.reached_low[col]
        return high >= up - tol and -low >= down - tol and high - low >= width - tol

    def _open_sides(self, cols: np.ndarray, down, up, width, tol, sense) -> np.ndarray:
        """Which of columns ``cols`` (with their protection levels and tolerances) have side
        ``sense`` not yet proven: no completion found moved them strictly past the level on
        that side (a side without a level needs none), or the moves seen do not yet span the
        sliding level."""
        high, low = self.reached_high[cols], self.reached_low[cols]
        level = up if sense == _MAX else down
        moved = (side_proven(high if sense == _MAX else -low, level, tol)
                 | (np.asarray(level) <= tol))
        return ~(moved & (high - low >= width - tol))

    def prove_together(self, cells: np.ndarray, tolerance: float) -> None:
        """Prove sides of sensitive ``cells`` many at a time, one direction at a time:

            max sum_j t_j   s.t.  A d = 0,  lb - a <= d <= ub - a,
                                  0 <= t_j <= 1,  level_j t_j <= s d_j  (open sides j),

        with ``s = +1`` upward and ``-1`` downward: each open side counts once it moves as
        far as its level, and no further, so the completion found moves as many cells past
        their levels as one completion can. (The plain sum of the moves is maximised at a
        vertex that moves one cell as far as its bound allows: 913 of 914 sides stayed open
        on an 11,025-cell 3-D table whose a-priori bounds were the table's magnitude.) The
        completion is recorded; rounds repeat while one proves at least
        :data:`_WORTH_AN_LP` sides (one such LP costs about as many single-cell ones). What
        is left goes to :meth:`verdict` one cell at a time.
        """
        table = self.table
        cols = self.position[cells]
        down, up = table.lower_protection[cells], table.upper_protection[cells]
        width = table.sliding_protection[cells]
        tol = tolerance_for(table.values[cells], tolerance)
        for sense in (_MAX, _MIN):
            # sides without a level of their own are left to verdict (whether the cell
            # moves at all there)
            level = np.maximum(up if sense == _MAX else down, width)
            if not np.any(level > 0):
                continue
            lp = _TogetherLP(self, cols, level, upward=sense == _MAX)
            self._together.append(lp)
            while True:
                open_ = self._open_sides(cols, down, up, width, tol, sense) & (level > 0)
                if not open_.any():
                    break
                d = lp.solve(open_)
                if d is None:
                    break
                self._record(d)
                proved = int(np.count_nonzero(
                    open_ & ~self._open_sides(cols, down, up, width, tol, sense)))
                if proved < _WORTH_AN_LP:
                    break

    def open_cells(self, cells: np.ndarray, tolerance: float) -> np.ndarray:
        """Which sensitive ``cells`` have a side no completion found so far proves."""
        table = self.table
        cols = self.position[cells]
        levels = (table.lower_protection[cells], table.upper_protection[cells],
                  table.sliding_protection[cells], tolerance_for(table.values[cells], tolerance))
        return self._open_sides(cols, *levels, _MAX) | self._open_sides(cols, *levels, _MIN)

    def prove_locally(self, cells: np.ndarray, tolerance: float) -> None:
        """Prove sides of sensitive ``cells`` on small LPs first: for each cell still open,
        the attacker restricted to its neighbourhood in the pattern
        (:func:`cspopt.table.neighbourhood.closure`, :meth:`restricted`), its
        :meth:`prove_together` over the open cells there, then the cell's own open sides;
        large neighbourhoods last, smallest first (by then most of their cells are proven),
        the largest not at all (:data:`_LOCAL_COLUMNS`). A restricted attacker's completion
        is one of the whole table's, so what it proves holds; it never proves a cell exposed
        (that takes the whole LP, in :meth:`verdict`). A protecting pattern's completions
        are mostly local (a cell's cube of eight cells, the cells of its subtables), where
        one LP over the whole pattern of a 38,000-cell table takes seconds.
        """
        cols = self.position[cells]
        incidence = self.matrix.astype(bool).astype(np.float32)
        deferred = []
        for j in np.flatnonzero(self.open_cells(cells, tolerance)).tolist():
            if self.open_cells(cells, tolerance)[j]:
                near = closure(incidence, int(cols[j]))
                size = np.count_nonzero(near)
                if size <= _LOCAL_COLUMNS[0]:
                    self._prove_near(cells, j, near, tolerance)
                elif size <= _LOCAL_COLUMNS[1]:
                    deferred.append((j, near))
        for j, near in sorted(deferred, key=lambda item: np.count_nonzero(item[1])):
            if self.open_cells(cells, tolerance)[j]:
                self._prove_near(cells, j, near, tolerance)

    def _prove_near(self, cells: np.ndarray, j: int, near: np.ndarray,
                    tolerance: float) -> None:
        """:meth:`prove_locally`'s step for ``cells[j]`` on the columns ``near``: the
        restricted attacker's completions recorded as this one's."""
        cell = cells[j]
        where = np.flatnonzero(near)
        local = self.restricted(where)
        local.prove_together(cells[self.open_cells(cells, tolerance)
                                   & near[self.position[cells]]], tolerance)
        local._open_ends(cell, tolerance)
        self._local_solves += local.num_solves
        self._widen(where, local.reached_high, local.reached_low)


class _TogetherLP:
    """The LP of :meth:`AttackerLP.prove_together` for one direction: the pattern's
    deviation columns ``d``, then one ``t`` per sensitive cell, whose upper bound (1 or 0)
    says whether its side is still open."""

    #: each side aims this much past its level, so that a completion the LP's tolerances
    #: leave a little short still proves it
    _MARGIN = 1e-6

    def __init__(self, attacker: AttackerLP, cols: np.ndarray, level: np.ndarray, *,
                 upward: bool):
        n, m, k = attacker.columns.size, attacker.matrix.shape[0], cols.size
        self.n = n
        sign = 1.0 if upward else -1.0
        rows = np.arange(k)
        # level_j t_j - s d_j <= 0, with level_j scaled up by the margin
        link = sp.csr_matrix((np.concatenate([-sign * np.ones(k),
                                              level * (1 + self._MARGIN)]),
                              (np.concatenate([rows, rows]), np.concatenate([cols, n + rows]))),
                             shape=(k, n + k))
        matrix = sp.vstack([sp.hstack([attacker.matrix, sp.csr_matrix((m, k))]), link])
        cost = np.concatenate([np.zeros(n), -np.ones(k)])  # min -sum t
        self.highs = new_highs(matrix, cost, np.concatenate([attacker.lower, np.zeros(k)]),
                               np.concatenate([attacker.upper, np.ones(k)]),
                               np.concatenate([np.zeros(m), np.full(k, -np.inf)]),
                               np.zeros(m + k), presolve=False, what="attacker LP")
        self.resolver = Resolver(self.highs)
        self._open = np.ones(k, dtype=bool)

    def solve(self, open_: np.ndarray) -> np.ndarray | None:
        """The deviations of the completion that moves most ``open_`` sides past their levels
        (``None`` if HiGHS finds no optimum)."""
        changed = np.flatnonzero(open_ != self._open)
        if changed.size:
            idx = (self.n + changed).astype(np.int32)
            self.highs.changeColsBounds(idx.size, idx, np.zeros(idx.size),
                                        open_[changed].astype(float))
            self._open = open_.copy()
        if self.resolver.run() != _STATUS.kOptimal:
            return None
        return np.asarray(self.highs.getSolution().col_value)[:self.n]

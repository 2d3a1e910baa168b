"""Handing a sparse model to HiGHS in one call (``Highs.passModel``), shared by every route.

Pyomo's persistent interfaces need 100+ s for a 1e6-variable model where ``passModel`` on
arrays takes about 2 s, so every formulation reaches HiGHS through here.
"""

from __future__ import annotations

import logging
import math
import time

import highspy
import numpy as np
import scipy.sparse as sp

from cspopt.backends.console import quiet_c_stdout
from cspopt.backends.outcome import SolverOutcome
from cspopt.backends.program import LinearProgram
from cspopt.errors import SolverError
from cspopt.result import PROOF_GAP

__all__ = ["highs", "new_highs", "dual_bound", "run_highs", "run_within", "Resolver",
           "TERMINATION", "Highs", "INF", "OPTIMAL", "TIME_LIMIT"]

log = logging.getLogger(__name__)

#: the HiGHS model type, its infinity and the statuses the library's LPs test, named here so
#: that no module outside the back-ends (and the independent audit) imports highspy
Highs = highspy.Highs
INF = highspy.kHighsInf
OPTIMAL = highspy.HighsModelStatus.kOptimal
TIME_LIMIT = highspy.HighsModelStatus.kTimeLimit


def highs(*, verbose: bool = False) -> highspy.Highs:
    """An empty :class:`highspy.Highs` that printed nothing: its banner (HiGHS >= 1.16 prints
    one from the constructor, on C-level stdout) is discarded, its log off unless
    ``verbose`` (then on stderr, as HiGHS's log goes to its own stream when enabled)."""
    with quiet_c_stdout():
        h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    return h


def new_highs(matrix, cost, col_lower, col_upper, row_lower, row_upper, *, integer=None,
              verbose: bool = False, presolve: bool = True, what: str = "model") -> highspy.Highs:
    """A silent :class:`highspy.Highs` holding ``min cost x, row_lower <= A x <= row_upper,
    col_lower <= x <= col_upper`` (``integer``: boolean mask of integer columns).

    Infinite bounds become HiGHS's infinity. ``presolve=False`` keeps the basis between
    re-solves after bound or objective changes.
    """
    h = highs(verbose=verbose)
    if not presolve:
        h.setOptionValue("presolve", "off")
    csc = sp.csc_matrix(matrix)
    csc.sort_indices()
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = int(csc.shape[1]), int(csc.shape[0])
    lp.col_cost_ = np.asarray(cost, float)
    lp.col_lower_ = np.where(np.isfinite(col_lower), col_lower, -inf)
    lp.col_upper_ = np.where(np.isfinite(col_upper), col_upper, inf)
    lp.row_lower_ = np.where(np.isfinite(row_lower), row_lower, -inf)
    lp.row_upper_ = np.where(np.isfinite(row_upper), row_upper, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = csc.indptr.astype(np.int32)
    lp.a_matrix_.index_ = csc.indices.astype(np.int32)
    lp.a_matrix_.value_ = csc.data.astype(float)
    if integer is not None and np.any(integer):
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in integer]
    status = h.passModel(lp)
    if status == highspy.HighsStatus.kWarning:  # accepted, e.g. with entries below 1e-9
        log.info("HiGHS accepted the %s with a warning (tiny entries dropped or huge bounds "
                 "taken as infinite)", what)
    elif status != highspy.HighsStatus.kOk:
        raise SolverError(f"HiGHS rejected the {what} ({matrix.shape[0]} rows, "
                          f"{matrix.shape[1]} columns)")
    return h


def dual_bound(h: highspy.Highs) -> float:
    """A lower bound on the optimum of the minimisation LP in ``h`` from its row duals alone.

    For any row prices ``y`` (``y_i > 0`` pricing a finite lower side, ``y_i < 0`` a finite
    upper side), weak duality gives

        min c x  >=  sum_i y_i side_i  +  sum_j min_{l_j <= x_j <= u_j} (c - A^T y)_j x_j,

    so the value does not depend on how accurately the solver met its tolerances (the
    "safe bound" of Neumaier & Shcherbina 2004, Math. Program. 99:283-296). The solver's
    objective can sit above the LP optimum by its dual infeasibility; rounding such a value up
    to the next integer (:func:`cspopt.result.integral_bound`) could then claim a unit the LP
    does not prove. ``-inf`` when a nonzero reduced cost meets an infinite column bound.
    """
    lp = h.getLp()
    if lp.sense_ != highspy.ObjSense.kMinimize:
        raise SolverError("dual_bound expects a minimisation LP")
    y = np.asarray(h.getSolution().row_dual, float)
    row_lower, row_upper = np.asarray(lp.row_lower_), np.asarray(lp.row_upper_)
    y = np.where(((y > 0) & (row_lower > -np.inf)) | ((y < 0) & (row_upper < np.inf)), y, 0.0)
    shape = (lp.num_row_, lp.num_col_)
    arrays = (np.asarray(lp.a_matrix_.value_), np.asarray(lp.a_matrix_.index_),
              np.asarray(lp.a_matrix_.start_))
    matrix = (sp.csc_matrix(arrays, shape=shape)
              if lp.a_matrix_.format_ == highspy.MatrixFormat.kColwise
              else sp.csr_matrix(arrays, shape=shape))
    reduced = np.asarray(lp.col_cost_, float) - matrix.T @ y
    col_lower, col_upper = np.asarray(lp.col_lower_), np.asarray(lp.col_upper_)
    with np.errstate(invalid="ignore"):  # 0 * inf in the branches np.where drops
        columns = np.where(reduced > 0, reduced * col_lower,
                           np.where(reduced < 0, reduced * col_upper, 0.0))
        rows = np.where(y > 0, y * row_lower, np.where(y < 0, y * row_upper, 0.0))
    return float(rows.sum() + columns.sum() + lp.offset_)


_HS = highspy.HighsModelStatus

TERMINATION = {
    _HS.kOptimal: "optimal", _HS.kTimeLimit: "time_limit", _HS.kInfeasible: "infeasible",
    _HS.kInterrupt: "interrupted", _HS.kIterationLimit: "iteration_limit",
    _HS.kSolutionLimit: "interrupted", _HS.kObjectiveBound: "interrupted",
}


#: the statuses of an LP whose objective is unbounded (a feasible LP: ``d = 0`` is)
UNBOUNDED = (_HS.kUnbounded, _HS.kUnboundedOrInfeasible)


def set_integrality(h: highspy.Highs, integer: bool) -> None:
    """Make every column of ``h`` integer, or continuous (its LP relaxation)."""
    n = h.getNumCol()
    kind = highspy.HighsVarType.kInteger if integer else highspy.HighsVarType.kContinuous
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.full(n, kind))


def run_within(h: highspy.Highs, seconds: float = math.inf, *,
               mip: bool = False) -> highspy.HighsModelStatus:
    """Run ``h`` for at most ``seconds`` more (HiGHS's ``kTimeLimit`` past them), its time
    limit lifted again after: HiGHS counts an LP's limit against the model's run time over
    all its solves, so a model re-solved many times needs it set from there each time; its
    MIP solver (``mip``) counts from the start of each run, where a limit set from the total
    let a re-solved MIP run minutes past it."""
    start = 0.0 if mip else h.getRunTime()
    h.setOptionValue("time_limit", start + seconds if math.isfinite(seconds)
                     else highspy.kHighsInf)
    h.run()
    h.setOptionValue("time_limit", highspy.kHighsInf)
    return h.getModelStatus()


def run_highs(program: LinearProgram, *, relax: bool, time_limit=None, gap=1e-6, threads=None,
              verbose=False, start=None, integrality_tolerance=None) -> SolverOutcome:
    """Pass one model to HiGHS in a single call and read back what the caller needs.

    ``start`` is a MIP start: a full vector, or one with ``nan`` where values are unknown
    (handed over sparsely; HiGHS completes it). ``integrality_tolerance`` replaces HiGHS's
    ``mip_feasibility_tolerance`` (1e-6). The outcome's ``lower_bound`` is the LP value for
    ``relax``, else the MIP dual bound.
    """
    p = program
    if int(p.matrix.shape[1]) == 0:  # nothing to decide
        return SolverOutcome("optimal", has_solution=True, lower_bound=0.0, x=np.zeros(0))
    h = new_highs(p.matrix, p.cost, p.col_lower, p.col_upper, p.row_lower, p.row_upper,
                  integer=None if relax else p.integer, verbose=verbose)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("mip_rel_gap", float(gap))
    if integrality_tolerance is not None:
        h.setOptionValue("mip_feasibility_tolerance", float(integrality_tolerance))
    if threads is not None:
        h.setOptionValue("threads", int(threads))
    if start is not None:
        start = np.asarray(start, float)
        known = np.flatnonzero(~np.isnan(start))
        if known.size == start.size:
            sol = highspy.HighsSolution()
            sol.col_value = list(map(float, start))
            sol.value_valid = True
            h.setSolution(sol)
        else:
            h.setSolution(int(known.size), known.astype(np.int32), start[known])
    h.run()
    status = h.getModelStatus()
    termination = TERMINATION.get(status)
    if termination is None:
        raise SolverError(f"HiGHS ended with status {h.modelStatusToString(status)}")
    info = h.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value) if has_solution else None
    if relax:
        lower = info.objective_function_value if termination == "optimal" else -math.inf
        return SolverOutcome(termination, has_solution=False, lower_bound=lower, x=x)
    lower = info.mip_dual_bound if math.isfinite(info.mip_dual_bound) else 0.0
    if termination == "optimal" and has_solution and info.mip_gap > PROOF_GAP:
        termination = "gap_limit"  # HiGHS calls a stop at mip_rel_gap "optimal"
    return SolverOutcome(termination, has_solution=has_solution, lower_bound=lower, x=x)


#: a warm re-solve may take this many times the slowest cold solve of the same model ...
_WARM_FACTOR = 4.0
#: ... and at least this long, before it is restarted cold
_WARM_FLOOR = 0.05
#: warm re-solves that ran out in a row before every re-solve starts cold
_WARM_GIVE_UP = 3


class Resolver:
    """Re-solves of one HiGHS LP whose costs or bounds change between solves (the attacker
    LPs of the audit and of the capacity oracle): warm from the last basis, cold where that
    fails.

    A warm start is mostly a few pivots, but on some tables HiGHS's dual simplex crawls from
    the old basis (on a large 3-D table, one LP took a minute warm and milliseconds cold). So
    a warm solve may take :data:`_WARM_FACTOR` times the slowest cold solve of the model (at
    least :data:`_WARM_FLOOR` seconds); past that it is restarted cold, and after
    :data:`_WARM_GIVE_UP` such restarts in a row every solve starts cold. A stale basis that
    ends in HiGHS's "unknown" is also solved again cold. ``solves`` counts the runs.

    ``presolve_cold=True`` presolves the cold solves (warm ones never are: presolve discards
    the basis), and ``warm_while_faster=True`` gives up warm starts for good once one is
    slower than the first, cold, solve (the incremental attacker's LPs: warm starts pay on
    2-D tables, presolve on hierarchical ones). ``interior=True`` solves every time from
    scratch by HiGHS's interior point method with crossover (the solution is a vertex, as by
    simplex; on a large 3-D table's attacker LPs it was faster than the dual simplex, and its
    time spread far less), and again by the dual simplex where that ends neither settled nor
    infeasible (e.g. a crossover that failed). ``run(budget)`` stops where the budget ends
    (HiGHS's ``kTimeLimit``; then no cold solve follows).
    """

    def __init__(self, h: highspy.Highs, *, presolve_cold: bool = False,
                 warm_while_faster: bool = False, interior: bool = False):
        self.h = h
        self.solves = 0
        self.presolve_cold, self.warm_while_faster = presolve_cold, warm_while_faster
        self.interior = interior
        if interior:
            h.setOptionValue("solver", "ipm")
        self._cold_seconds: float | None = None  # the slowest cold solve so far
        self._first_seconds: float | None = None  # the first solve's
        self._timeouts = 0  # warm solves restarted cold, in a row
        self.warm = not interior  # warm starts not given up (False: every solve cold)

    def run(self, budget=None) -> highspy.HighsModelStatus:
        """Solve within ``budget`` (a :class:`cspopt.budget.Budget`, or None); return
        HiGHS's model status (the caller judges it)."""
        warm = (self._cold_seconds is not None and self._timeouts < _WARM_GIVE_UP
                and self.warm)
        if warm:
            started = time.perf_counter()
            status = self._solve(budget, max(_WARM_FLOOR, _WARM_FACTOR * self._cold_seconds),
                                 presolve=False)
            if self.warm_while_faster and time.perf_counter() - started > self._first_seconds:
                self.warm = False
            if status == _HS.kTimeLimit:
                if budget is not None and budget.expired():
                    return status
                self._timeouts += 1
            elif status in _SETTLED:
                self._timeouts = 0
                return status
        return self._cold(budget)

    def _solve(self, budget, guard: float, *, presolve: bool) -> highspy.HighsModelStatus:
        """One run, for at most ``guard`` seconds and within ``budget``."""
        h = self.h
        left = None if budget is None else budget.time_limit()
        seconds = min(guard, math.inf if left is None else left)
        if self.presolve_cold:
            h.setOptionValue("presolve", "on" if presolve else "off")
        self.solves += 1
        return run_within(h, seconds)

    def _cold(self, budget) -> highspy.HighsModelStatus:
        self.h.clearSolver()
        started = time.perf_counter()
        status = self._solve(budget, math.inf, presolve=True)
        if self.interior and status not in (*_SETTLED, _HS.kTimeLimit, _HS.kInfeasible):
            self.h.setOptionValue("solver", "simplex")
            self.h.clearSolver()
            status = self._solve(budget, math.inf, presolve=True)
            self.h.setOptionValue("solver", "ipm")
        seconds = time.perf_counter() - started
        self._cold_seconds = max(self._cold_seconds or 0.0, seconds)
        if self._first_seconds is None:
            self._first_seconds = seconds
        return status


#: statuses a solve of an attacker LP can end in (``d = 0`` is feasible: "unbounded or
#: infeasible" means unbounded)
_SETTLED = (_HS.kOptimal, _HS.kUnbounded, _HS.kUnboundedOrInfeasible)

"""Interval protection by the compact Fischetti–Salazar MIP on HiGHS, with a repair step.

The model is :mod:`cspopt.models.interval.compact` (Castro 2007 eq. (3)); the incremental
attacker (Smith et al. 2012) gives the MIP start. A MIP solver accepts near-integral values
within its tolerance, so a pattern that fails the audit is repaired by capacity cuts
(Fischetti & Salazar-Gonzalez 2001) and re-solved, and completed by the incremental attacker
if that does not suffice: every pattern returned passes the audit.
"""

from __future__ import annotations

import logging
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from cspopt.audit import interval_verdict
from cspopt.backends.highs import run_highs
from cspopt.backends.outcome import SolverOutcome
from cspopt.backends.program import LinearProgram
from cspopt.backends.pyomo import solve_pyomo_model
from cspopt.budget import Budget
from cspopt.heuristics.incremental import incremental_attacker
from cspopt.models.interval import (
    CapacityOracle,
    IntervalInstance,
    build_fs_matrix,
    build_fs_model,
    build_interval_instance,
    cut_rows,
)
from cspopt.models.interval.compact import y_start
from cspopt.options import AUDIT_SHARE, HEURISTIC_SHARE, check_limits, check_options
from cspopt.result import SolveResult, integral_bound
from cspopt.solving.audited import audit_interval_pattern, interval_result
from cspopt.table import Table

__all__ = ["solve_interval"]

log = logging.getLogger(__name__)


def solve_interval(table: Table, *, relax: bool = False, route: str = "matrix",
                   time_limit: float | None = None, gap: float = 1e-6, verbose: bool = False,
                   mip_start=None, weights=None, must_publish=None,
                   preprocessing: bool = True) -> SolveResult:
    """Solve the interval-protection problem (or its LP relaxation) with HiGHS.

    Without ``mip_start``, the incremental attacker heuristic (Smith et al. 2012) supplies
    one. Every returned pattern passes :func:`cspopt.audit` with ``requirement="interval"``.
    """
    check_options(dict(route=route))
    check_limits(time_limit=time_limit, gap=gap)
    budget = Budget(time_limit)
    inst = build_interval_instance(table, weights=weights, must_publish=must_publish,
                                   preprocessing=preprocessing)
    history, timings = [], budget.timings
    if mip_start is None and not relax and inst.protected.size:
        with budget.phase("heuristic"):
            start_pattern = incremental_attacker(inst, budget=budget.opening(HEURISTIC_SHARE))
        if interval_verdict(table, start_pattern).protected:
            mip_start = start_pattern
            history.append(dict(iteration=0, time=budget.elapsed(), lower_bound=0.0,
                                upper_bound=float(inst.weights[start_pattern].sum()),
                                phase="heuristic"))
    # the search stops early enough for the final audit (it always runs) to fit the limit
    search = budget.opening(1 - AUDIT_SHARE)

    def left() -> float | None:
        return None if search.end is None else max(search.remaining(), 0.1)

    time_limit = left()
    with budget.phase("build"):
        if route == "matrix":
            program = build_fs_matrix(inst, relax=relax)
            size = dict(variables=program.shape[1], constraints=program.shape[0],
                        nonzeros=program.matrix.nnz)
        else:
            model = build_fs_model(table, relax=relax, instance=inst)
            size = dict(variables=model.nvariables(), constraints=model.nconstraints(),
                        nonzeros=-1)
    with budget.phase("solve"):
        if route == "matrix":
            outcome = _solve_highs(program, inst, relax=relax, time_limit=time_limit,
                                   gap=gap, verbose=verbose, mip_start=mip_start)
        else:
            outcome = solve_pyomo_model(model, model.y, relax=relax, solver="highs",
                                        time_limit=time_limit, gap=gap, threads=None,
                                        verbose=verbose, mip_start=mip_start)
    termination, lower = outcome.termination, outcome.lower_bound
    checked, suppressed = None, None
    if not relax and outcome.has_solution:
        suppressed = tuple(sorted(outcome.suppressed))
        checked = audit_interval_pattern(table, suppressed, timings, None)
        if not checked.protected:
            with budget.phase("repair"):
                suppressed, termination, lower, checked = _repair(
                    inst, program if route == "matrix" else build_fs_matrix(inst),
                    suppressed, mip_start, time_limit=left(), gap=gap, verbose=verbose,
                    history=history, budget=budget)
            if checked is None:  # completed by the incremental attacker: audit it
                checked = audit_interval_pattern(table, suppressed, timings,
                                                 "the interval model")
    if not relax:
        lower = integral_bound(lower, inst.weights[inst.candidates])
    return interval_result(
        inst, budget, method=f"{'lp' if relax else 'mip'}(FS)/highs/{route}",
        termination=termination, lower_bound=lower, audit=checked,
        y=None if suppressed is None else np.isin(inst.candidates, suppressed).astype(float),
        bound_only=relax and termination == "optimal", proof="mip",
        model_size=size, history=history)


#: rounds of capacity cuts added to the compact model before its patterns are completed
_REPAIR_ROUNDS = 5


def _repair(inst: IntervalInstance, model, suppressed, mip_start, *, time_limit, gap, verbose,
            history: list, budget: Budget):
    """A safe pattern when the compact model's is not: ``(suppressed, termination, bound,
    audit)``, ``audit`` None when the pattern still has to be audited.

    A MIP solver accepts ``y_i`` within its integrality tolerance of 0 (``1e-7``); with
    ``M_i`` in the millions such a "published" cell still carries deviation, and the rounded
    pattern can leave a cell exposed. Each round adds the violated capacity cuts
    (Fischetti & Salazar-Gonzalez 2001; strengthened, so their coefficients are at most the
    requirement and a ``y_i`` of ``1e-7`` no longer carries the protection), re-solves with a
    tighter integrality tolerance, and asks the audit, the judge, about the new pattern. If
    rounds (or cuts) run out, the last pattern is completed by the incremental attacker (Smith
    et al. 2012) from its own suppressions: safe, and the last dual bound stays a valid bound
    (the cuts are valid inequalities).
    """
    oracle = CapacityOracle(inst)
    termination, lower = "optimal", 0.0
    for round_ in range(1, _REPAIR_ROUNDS + 1):
        y = np.isin(inst.candidates, np.asarray(suppressed, dtype=np.int64)).astype(float)
        cuts = oracle.separate(y, decide=True)[1]
        if not cuts:  # the oracle's tolerance accepts what the audit refused
            break
        log.info("compact model: pattern of cost %g exposes a cell; round %d adds %d "
                 "capacity cuts", float(inst.weights[list(suppressed)].sum()), round_,
                 len(cuts))
        model = replace(model, matrix=sp.vstack([model.matrix, cut_rows(
            cuts, model.shape[1])]).tocsr(), row_lower=np.r_[model.row_lower, [
                c.rhs for c in cuts]], row_upper=np.r_[model.row_upper, np.full(len(cuts),
                                                                                 np.inf)])
        outcome = _solve_highs(model, inst, relax=False, time_limit=time_limit, gap=gap,
                               verbose=verbose, mip_start=mip_start,
                               integrality_tolerance=1e-9)
        termination = outcome.termination
        lower = max(lower, outcome.lower_bound)
        if not outcome.has_solution:
            break
        suppressed = tuple(sorted(outcome.suppressed))
        history.append(dict(iteration=round_, time=budget.elapsed(),
                            lower_bound=lower, upper_bound=float(
                                inst.weights[list(suppressed)].sum()), phase="repair"))
        checked = interval_verdict(inst.table, suppressed)
        if checked.protected:
            return suppressed, termination, lower, checked
    completed = incremental_attacker(inst, suppressed=suppressed)
    log.info("compact model: pattern completed by the incremental attacker")
    return tuple(sorted(int(c) for c in completed)), "interrupted", lower, None


def _solve_highs(program: LinearProgram, inst, *, relax, time_limit, gap, verbose, mip_start,
                 integrality_tolerance=None) -> SolverOutcome:
    start = None
    if mip_start is not None and not relax:  # only y is given; HiGHS completes the rest
        chosen = np.isin(inst.candidates, np.fromiter(mip_start, dtype=np.int64))
        start = y_start(inst, chosen, program.cost.size)
    outcome = run_highs(program, relax=relax, time_limit=time_limit, gap=gap, verbose=verbose,
                        start=start, integrality_tolerance=integrality_tolerance)
    if outcome.has_solution:
        chosen = inst.candidates[np.asarray(outcome.x[:inst.candidates.size]) > 0.5]
        outcome = replace(outcome, suppressed=tuple(int(c) for c in chosen))
    return outcome

"""Solving (P) and (P_N) to proven optimality: HiGHS (default) or SCIP, matrix or Pyomo route."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable

import highspy
import numpy as np

from cspopt._highs import new_highs
from cspopt.audit import audit
from cspopt.errors import InputError, SolverError
from cspopt.formulations.instance import ExactInstance, bounds_bind, build_instance
from cspopt.formulations.matrix import MatrixModel, build_matrix
from cspopt.options import check_limits
from cspopt.result import PROOF_GAP, SolveResult, integral_bound, relative_gap

__all__ = ["solve_exact", "choose_model", "audit_pattern", "run_highs"]

log = logging.getLogger(__name__)

_HS = highspy.HighsModelStatus
_TERMINATION = {
    _HS.kOptimal: "optimal", _HS.kTimeLimit: "time_limit", _HS.kInfeasible: "infeasible",
    _HS.kInterrupt: "interrupted", _HS.kIterationLimit: "iteration_limit",
    _HS.kSolutionLimit: "interrupted", _HS.kObjectiveBound: "interrupted",
}


def choose_model(table, model: str) -> str:
    """``auto``: (P_N) for nonnegative integer tables (issue #3) and for every table where a
    cell sits at an a-priori bound; (P) otherwise, where the two models coincide.

    (P) ignores the bounds, so on a table where one binds its patterns can leave cells the
    table's attacker computes (fuzz tables ``nonint_min``, ``half_2d_105``: non-integer values,
    zero cells); (P_N) honours them.
    """
    if model == "auto":
        return "PN" if (table.nonnegative and table.is_integer) or bounds_bind(table) else "P"
    if model not in ("P", "PN"):
        raise InputError(f"model must be 'P', 'PN' or 'auto', not {model!r}")
    return model


def solve_exact(
    table,
    *,
    model: str = "auto",
    relax: bool = False,
    solver: str = "highs",
    route: str = "matrix",
    time_limit: float | None = None,
    gap: float = 1e-6,
    threads: int | None = None,
    mip_start: Iterable[int] | None = None,
    verbose: bool = False,
    weights=None,
    publish_totals: bool = False,
    publish_zeros: bool = False,
    must_publish=None,
    tau: float = 0.0,
    preprocessing: bool = True,
    objective_floor: float | None = None,
    instance: ExactInstance | None = None,
) -> SolveResult:
    """Solve (P) or (P_N) of Almeida & Carvalho (2005), or its LP relaxation.

    Parameters
    ----------
    table : Table
        A 2-D (network) table.
    model : {"auto", "P", "PN"}
        (P), eqs (1)-(10), for general tables; (P_N), eqs (11)-(17), (21)-(22), (26)-(33),
        for nonnegative integer tables. ``auto`` picks (P_N) when the table is nonnegative
        and integer.
    relax : bool
        Solve the LP relaxation: a lower bound, no pattern.
    solver : {"highs", "scip"}
    route : {"matrix", "pyomo"}
        Hand the solver a prebuilt sparse matrix (fast) or the Pyomo model.
    time_limit : float, optional
        Seconds (HiGHS honours it coarsely).
    gap : float
        Relative MIP gap at which to stop.
    threads : int, optional
        Solver threads (for HiGHS this setting is process-wide).
    mip_start : iterable of int, optional
        A pattern to start from; it must protect every modelled cell.
    verbose : bool
        Show the solver log.
    weights, publish_totals, publish_zeros, must_publish, tau, preprocessing
        See :func:`cspopt.formulations.instance.build_instance`.
    objective_floor : float, optional
        A known valid lower bound, added as ``sum xi x >= floor`` (matrix route).
    instance : ExactInstance, optional
        A prebuilt instance (its options then replace the ones above).

    Returns
    -------
    SolveResult
        Every returned pattern has passed :func:`cspopt.audit` with exact protection, over
        integer completions for (P_N) and for the general table for (P).
    """
    started = time.perf_counter()
    model = instance.model if instance is not None else choose_model(table, model)
    if solver not in ("highs", "scip"):
        raise InputError(f"solver must be 'highs' or 'scip', not {solver!r}")
    if route not in ("matrix", "pyomo"):
        raise InputError(f"route must be 'matrix' or 'pyomo', not {route!r}")
    check_limits(time_limit=time_limit, gap=gap, threads=threads)
    if instance is not None:
        inst = instance
    else:
        inst = build_instance(table, model, weights=weights, publish_totals=publish_totals,
                              publish_zeros=publish_zeros, must_publish=must_publish, tau=tau,
                              preprocessing=preprocessing)
    options = dict(time_limit=time_limit, gap=gap, threads=threads, verbose=verbose)
    t_build = time.perf_counter()
    if route == "matrix":
        mm = build_matrix(inst, relax=relax, objective_floor=objective_floor)
        start = mm.start_vector(mip_start) if mip_start is not None and not relax else None
        t_build = time.perf_counter() - t_build
        t_solve = time.perf_counter()
        if solver == "highs":
            outcome = _solve_matrix_highs(mm, start, **options)
        else:
            from cspopt.formulations.scip import solve_matrix_scip
            outcome = solve_matrix_scip(mm, start, **options)
        size = dict(variables=mm.shape[1], constraints=mm.shape[0], nonzeros=mm.matrix.nnz)
    else:
        from cspopt.formulations.exact import build_model_from_instance, solve_pyomo
        pm = build_model_from_instance(inst, relax=relax)
        if objective_floor is not None:
            import pyomo.environ as pyo
            pm.lagrangian_floor = pyo.Constraint(expr=pm.obj.expr >= float(objective_floor),
                                                 doc="known valid lower bound on (1)/(11)")
        t_build = time.perf_counter() - t_build
        t_solve = time.perf_counter()
        outcome = solve_pyomo(pm, inst, relax=relax, solver=solver, mip_start=mip_start,
                              **options)
        size = dict(variables=pm.nvariables(), constraints=pm.nconstraints(), nonzeros=-1)
    t_solve = time.perf_counter() - t_solve
    kind = "lp" if relax else "mip"
    return _finish(inst, outcome, relax=relax, method=f"{kind}({model})/{solver}/{route}",
                   timings={"build": t_build, "solve": t_solve}, size=size, started=started)


def audit_pattern(inst: ExactInstance, suppressed, *, method: str | None = None):
    """Audit a pattern with the instance's semantics: exact protection, over integer
    completions for (P_N) and on the general table for (P). With ``method``, an exposing
    pattern raises :class:`SolverError`: a method of cspopt produced it, which is a bug."""
    result = audit(inst.table, suppressed, requirement="exact",
                   integer=inst.model == "PN" and inst.table.is_integer,
                   cells="sensitive")
    if method is not None and not result.protected:
        raise SolverError(f"{method} returned a pattern that exposes cells "
                          f"{list(result.exposed)}; please report this table")
    return result


def _finish(inst: ExactInstance, outcome: dict, *, relax: bool, method: str, timings: dict,
            size: dict, started: float) -> SolveResult:
    """Audit the pattern, make the bound honest, and assemble the result."""
    termination = outcome["termination"]
    suppressed = tuple(sorted(int(c) for c in outcome.get("suppressed", ())))
    weights = inst.weights
    lower = outcome.get("lower_bound", -math.inf)
    if not relax:
        lower = integral_bound(lower, weights[inst.candidates])
    lower = max(lower, 0.0)
    if termination == "infeasible":
        lower = math.inf
    t_audit = time.perf_counter()
    result_audit = None
    if relax or not outcome.get("has_solution", False):
        objective, status = math.nan, ("bound_only" if relax and termination == "optimal"
                                       else "infeasible" if termination == "infeasible"
                                       else "none")
        suppressed = ()
    else:
        objective = float(weights[list(suppressed)].sum()) if suppressed else 0.0
        result_audit = audit_pattern(inst, suppressed, method=method)
        lower = min(lower, objective)
        status = "optimal" if termination == "optimal" else "feasible"
    timings["audit"] = time.perf_counter() - t_audit
    timings["total"] = time.perf_counter() - started
    if relax:
        gap_value = math.nan
        proven = False
    else:
        gap_value = relative_gap(objective, lower)
        proven = status in ("optimal", "feasible") and gap_value <= 1e-9
    if proven:
        status = "optimal"
    return SolveResult(
        method=method, termination=termination, status=status, suppressed=suppressed,
        objective=objective, lower_bound=float(lower), gap=gap_value, proven_optimal=proven,
        proof="mip" if proven else "", model=inst.model,
        unsafe=tuple(int(c) for c in inst.protected_cells),
        safe=tuple(int(c) for c in inst.safe_cells), timings=timings, model_size=size,
        history=tuple(outcome.get("history", ())), audit=result_audit)


def run_highs(cost, matrix, row_lower, row_upper, col_lower, col_upper, integer, *,
              relax: bool, time_limit=None, gap=1e-6, threads=None, verbose=False,
              start=None, integrality_tolerance=None) -> dict:
    """Pass one model to HiGHS in a single call and read back what the caller needs.

    ``start`` is a MIP start: a full vector, or one with ``nan`` where values are unknown
    (handed over sparsely; HiGHS completes it). ``integrality_tolerance`` replaces HiGHS's
    ``mip_feasibility_tolerance`` (1e-6). Returns ``termination``, ``has_solution``,
    ``x`` and ``lower_bound`` (the LP value for ``relax``, else the MIP dual bound).
    """
    num_cols = int(matrix.shape[1])
    if num_cols == 0:  # nothing to decide
        return dict(termination="optimal", has_solution=True, x=np.zeros(0), lower_bound=0.0)
    h = new_highs(matrix, cost, col_lower, col_upper, row_lower, row_upper,
                  integer=None if relax else integer, verbose=verbose)
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
    termination = _TERMINATION.get(status)
    if termination is None:
        raise SolverError(f"HiGHS ended with status {h.modelStatusToString(status)}")
    info = h.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    x = np.asarray(h.getSolution().col_value) if has_solution else None
    if relax:
        lower = info.objective_function_value if termination == "optimal" else -math.inf
        return dict(termination=termination, has_solution=False, x=x, lower_bound=lower)
    lower = info.mip_dual_bound if math.isfinite(info.mip_dual_bound) else 0.0
    if termination == "optimal" and has_solution and info.mip_gap > PROOF_GAP:
        termination = "gap_limit"  # HiGHS calls a stop at mip_rel_gap "optimal"
    return dict(termination=termination, has_solution=has_solution, x=x, lower_bound=lower)


def _solve_matrix_highs(mm: MatrixModel, start, *, time_limit, gap, threads, verbose) -> dict:
    outcome = run_highs(mm.cost, mm.matrix, mm.row_lower, mm.row_upper, mm.col_lower,
                        mm.col_upper, mm.integer, relax=mm.relax, time_limit=time_limit,
                        gap=gap, threads=threads, verbose=verbose, start=start)
    if outcome["has_solution"]:
        outcome["suppressed"] = mm.suppressed(outcome["x"])
    return outcome

"""Solving (P) and (P_N) to proven optimality: HiGHS (default) or SCIP, matrix or Pyomo route."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from dataclasses import replace

from cspopt.backends.highs import run_highs
from cspopt.backends.outcome import SolverOutcome
from cspopt.backends.pyomo import solve_pyomo_model
from cspopt.backends.scip import run_scip
from cspopt.models.exact import (
    ExactInstance,
    MatrixModel,
    bounds_bind,
    build_instance,
    build_matrix,
)
from cspopt.options import check_limits, check_options
from cspopt.result import SolveResult, integral_bound
from cspopt.solving.audited import audit_pattern

__all__ = ["solve_exact", "choose_model"]


def choose_model(table, model: str) -> str:
    """``auto``: (P_N) for nonnegative integer tables (issue #3) and for every table where a
    cell sits at an a-priori bound; (P) otherwise, where the two models coincide.

    (P) ignores the bounds, so on a table where one binds its patterns can leave cells the
    table's attacker computes (fuzz tables with non-integer values or zero cells); (P_N)
    honours them.
    """
    if model == "auto":
        return "PN" if (table.nonnegative and table.is_integer) or bounds_bind(table) else "P"
    check_options(dict(model=model))
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
        See :func:`cspopt.models.exact.instance.build_instance`.
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
    check_options(dict(solver=solver, route=route))
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
            outcome = solve_matrix_scip(mm, start, **options)
        size = dict(variables=mm.shape[1], constraints=mm.shape[0], nonzeros=mm.matrix.nnz)
    else:
        # Pyomo loads only for its route
        from cspopt.models.exact.compact import build_model_from_instance
        pm = build_model_from_instance(inst, relax=relax)
        if objective_floor is not None:
            import pyomo.environ as pyo
            pm.lagrangian_floor = pyo.Constraint(expr=pm.obj.expr >= float(objective_floor),
                                                 doc="known valid lower bound on (1)/(11)")
        t_build = time.perf_counter() - t_build
        t_solve = time.perf_counter()
        outcome = solve_pyomo_model(pm, pm.x, relax=relax, solver=solver, mip_start=mip_start,
                              **options)
        size = dict(variables=pm.nvariables(), constraints=pm.nconstraints(), nonzeros=-1)
    t_solve = time.perf_counter() - t_solve
    kind = "lp" if relax else "mip"
    return _finish(inst, outcome, relax=relax, method=f"{kind}({model})/{solver}/{route}",
                   timings={"build": t_build, "solve": t_solve}, size=size, started=started,
                   start=mip_start)


def _finish(inst: ExactInstance, outcome: SolverOutcome, *, relax: bool, method: str, timings: dict,
            size: dict, started: float, start=None) -> SolveResult:
    """Audit the pattern, make the bound honest, and assemble the result. Where the solver
    stopped before it found a pattern, the ``start`` pattern (the caller's first incumbent)
    is the one returned, if the audit accepts it."""
    lower = outcome.lower_bound
    if not relax:
        lower = integral_bound(lower, inst.weights[inst.candidates])
    t_audit = time.perf_counter()
    suppressed, objective, checked = None, math.nan, None
    if not relax and outcome.has_solution:
        suppressed = tuple(sorted(outcome.suppressed))
        objective = float(inst.weights[list(suppressed)].sum()) if suppressed else 0.0
        checked = audit_pattern(inst, suppressed, method=method)
    elif not relax and start is not None:  # stopped before HiGHS or SCIP took up the start
        given = tuple(sorted(set(map(int, start)) & set(inst.candidates.tolist())))
        start_audit = audit_pattern(inst, given)
        if start_audit.protected:
            suppressed, checked = given, start_audit
            objective = float(inst.weights[list(given)].sum()) if given else 0.0
    timings["audit"] = time.perf_counter() - t_audit
    timings["total"] = time.perf_counter() - started
    return SolveResult.build(
        method=method, model=inst.model, termination=outcome.termination,
        lower_bound=max(lower, 0.0), suppressed=suppressed, objective=objective,
        audit=checked, bound_only=relax and outcome.termination == "optimal", proof="mip",
        unsafe=inst.protected_cells, safe=inst.safe_cells, timings=timings, model_size=size)


def _solve_matrix_highs(mm: MatrixModel, start, *, time_limit, gap, threads,
                        verbose) -> SolverOutcome:
    outcome = run_highs(mm, relax=mm.relax, time_limit=time_limit, gap=gap, threads=threads,
                        verbose=verbose, start=start)
    if outcome.has_solution:
        outcome = replace(outcome, suppressed=tuple(mm.suppressed(outcome.x)))
    return outcome


def solve_matrix_scip(mm: MatrixModel, start, *, time_limit, gap, threads,
                      verbose) -> SolverOutcome:
    """Solve ``mm`` with SCIP. ``threads`` is ignored: SCIP's branch-and-bound is sequential."""
    outcome = run_scip(mm, relax=mm.relax, time_limit=time_limit, gap=gap, verbose=verbose,
                       start=start)
    if outcome.has_solution and not mm.relax:
        outcome = replace(outcome, suppressed=tuple(mm.suppressed(outcome.x[:mm.num_x])))
    return outcome

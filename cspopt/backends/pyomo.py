"""Pyomo's solver interfaces (``contrib.solver``: HiGHS, SCIP) for cspopt's readable models.

The Pyomo models are the readable definitions (:mod:`cspopt.models.exact.compact`,
:mod:`cspopt.models.interval.compact`); the matrix routes are proven identical and are what
large tables use, since Pyomo's persistent interfaces need 100+ s to hand over a
1e6-variable model.
"""

from __future__ import annotations

import math

from cspopt.backends.outcome import SolverOutcome
from cspopt.errors import SolverError

__all__ = ["solve_pyomo_model"]


def solve_pyomo_model(m, suppression, *, relax: bool, solver: str,
                      time_limit, gap, threads, verbose, mip_start=None) -> SolverOutcome:
    """Solve any cspopt Pyomo model with Pyomo's HiGHS or SCIP interface.

    ``suppression`` is the indexed binary variable whose index is the cell id; the returned
    ``suppressed`` are the cells at 1.
    """
    import pyomo.environ as pyo
    from pyomo.contrib.solver.common.factory import SolverFactory
    from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition

    name = {"highs": "highs", "scip": "scip_direct"}[solver]
    opt = SolverFactory(name)
    if not opt.available():
        raise SolverError(f"Pyomo's {name} interface is not available")
    if mip_start is not None:
        chosen = set(int(c) for c in mip_start)
        for c in suppression:
            suppression[c].set_value(1.0 if c in chosen else 0.0)
    kwargs = dict(tee=bool(verbose), load_solutions=False,
                  raise_exception_on_nonoptimal_result=False)
    if time_limit is not None:
        kwargs["time_limit"] = float(time_limit)
    if threads is not None:
        kwargs["threads"] = int(threads)
    if not relax:
        kwargs["rel_gap"] = float(gap)
    results = opt.solve(m, **kwargs)
    tc = results.termination_condition
    termination = {
        TerminationCondition.convergenceCriteriaSatisfied: "optimal",
        TerminationCondition.maxTimeLimit: "time_limit",
        TerminationCondition.provenInfeasible: "infeasible",
        TerminationCondition.locallyInfeasible: "infeasible",
        TerminationCondition.iterationLimit: "iteration_limit",
        TerminationCondition.interrupted: "interrupted",
    }.get(tc, "error")
    if termination == "error":
        raise SolverError(f"Pyomo/{name} ended with {tc}")
    has_solution = results.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible)
    bound = results.objective_bound
    if relax:
        lower = results.incumbent_objective if termination == "optimal" else -math.inf
        return SolverOutcome(termination, has_solution=False, lower_bound=lower)
    suppressed = ()
    if has_solution:
        results.solution_loader.load_vars()
        suppressed = tuple(c for c in suppression if pyo.value(suppression[c]) > 0.5)
    lower = bound if bound is not None and math.isfinite(bound) else 0.0
    return SolverOutcome(termination, has_solution=has_solution, lower_bound=lower,
                         suppressed=suppressed)

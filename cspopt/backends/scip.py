"""SCIP (pyscipopt): a model with cspopt's limits, SCIP's statuses in cspopt's terms, and one
matrix model run (:func:`run_scip`, as :func:`cspopt.backends.highs.run_highs` for HiGHS).
The branch-and-cut's engine, with its callbacks, is :mod:`cspopt.backends.scip_capacity`."""

from __future__ import annotations

import math

import numpy as np

from cspopt.backends.outcome import SolverOutcome
from cspopt.backends.program import LinearProgram
from cspopt.errors import SolverError

__all__ = ["new_scip", "run_scip", "TERMINATION"]

TERMINATION = {"optimal": "optimal", "timelimit": "time_limit", "infeasible": "infeasible",
                "gaplimit": "gap_limit", "userinterrupt": "interrupted", "nodelimit": "interrupted",
                "sollimit": "interrupted", "bestsollimit": "interrupted",
                "totalnodelimit": "interrupted", "stallnodelimit": "interrupted",
                "memlimit": "interrupted", "primallimit": "interrupted"}


def new_scip(name: str, *, time_limit, gap: float, verbose: bool):
    """A SCIP model with cspopt's limits, silent unless ``verbose``."""
    from pyscipopt import Model

    model = Model(name)
    if not verbose:
        model.hideOutput()
    if time_limit is not None:
        model.setParam("limits/time", float(time_limit))
    model.setParam("limits/gap", float(gap))
    return model


def run_scip(program: LinearProgram, *, relax: bool, time_limit=None, gap: float = 1e-6,
             verbose: bool = False, start=None) -> SolverOutcome:
    """``min cost x, row_lower <= A x <= row_upper, col_lower <= x <= col_upper`` on SCIP,
    ``x`` binary unless ``relax`` (then continuous: a bound); ``start``: a full MIP start.
    The outcome's ``x`` is the best point, its ``lower_bound`` the LP value or the MIP dual
    bound."""
    from pyscipopt import quicksum

    cost, matrix, row_lower, row_upper, col_lower, col_upper = (
        program.cost, program.matrix, program.row_lower, program.row_upper,
        program.col_lower, program.col_upper)
    num_cols = int(matrix.shape[1])
    if num_cols == 0:
        return SolverOutcome("optimal", has_solution=True, lower_bound=0.0, x=np.zeros(0))
    model = new_scip("cspopt", time_limit=time_limit, gap=gap, verbose=verbose)
    vtype = "C" if relax else "B"
    xs = [model.addVar(name=f"v{j}", vtype=vtype, lb=float(col_lower[j]),
                       ub=float(col_upper[j]), obj=float(cost[j])) for j in range(num_cols)]
    csr = matrix.tocsr()
    for r in range(matrix.shape[0]):
        lo, hi = csr.indptr[r], csr.indptr[r + 1]
        expr = quicksum(float(v) * xs[j] for j, v in zip(csr.indices[lo:hi], csr.data[lo:hi]))
        low, up = row_lower[r], row_upper[r]
        if low == up:
            model.addCons(expr == float(up))
        elif math.isinf(low):
            model.addCons(expr <= float(up))
        else:
            model.addCons(expr >= float(low))
    if start is not None:
        sol = model.createSol()
        for var, value in zip(xs, start):
            model.setSolVal(sol, var, float(value))
        if not model.addSol(sol):
            raise SolverError("SCIP rejected the MIP start")
    model.optimize()
    status = model.getStatus()
    termination = TERMINATION.get(status)
    if termination is None:
        raise SolverError(f"SCIP ended with status {status}")
    has_solution = model.getNSols() > 0 and termination != "infeasible"
    if relax:
        lower = model.getObjVal() if termination == "optimal" else -math.inf
        return SolverOutcome(termination, has_solution=False, lower_bound=lower)
    x = None
    if has_solution:
        best = model.getBestSol()
        x = np.array([model.getSolVal(best, v) for v in xs])
    bound = model.getDualbound()
    return SolverOutcome(termination, has_solution=has_solution,
                         lower_bound=bound if math.isfinite(bound) else 0.0, x=x)

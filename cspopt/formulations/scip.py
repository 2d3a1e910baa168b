"""The matrix route to SCIP (pyscipopt): same model as the HiGHS route."""

from __future__ import annotations

import math

import numpy as np

from cspopt.errors import SolverError
from cspopt.formulations.matrix import MatrixModel

__all__ = ["solve_matrix_scip", "new_scip", "TERMINATION"]

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


def solve_matrix_scip(mm: MatrixModel, start, *, time_limit, gap, threads, verbose) -> dict:
    """Solve ``mm`` with SCIP. ``threads`` is ignored: SCIP's branch-and-bound is sequential."""
    from pyscipopt import quicksum

    if mm.shape[1] == 0:
        return dict(termination="optimal", has_solution=True, suppressed=(), lower_bound=0.0)
    model = new_scip("cspopt", time_limit=time_limit, gap=gap, verbose=verbose)
    vtype = "C" if mm.relax else "B"
    xs = [model.addVar(name=f"v{j}", vtype=vtype, lb=float(mm.col_lower[j]),
                       ub=float(mm.col_upper[j]), obj=float(mm.cost[j]))
          for j in range(mm.shape[1])]
    csr = mm.matrix.tocsr()
    for r in range(mm.shape[0]):
        lo, hi = csr.indptr[r], csr.indptr[r + 1]
        expr = quicksum(float(v) * xs[j] for j, v in zip(csr.indices[lo:hi], csr.data[lo:hi]))
        low, up = mm.row_lower[r], mm.row_upper[r]
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
    if mm.relax:
        lower = model.getObjVal() if termination == "optimal" else -math.inf
        return dict(termination=termination, has_solution=False, lower_bound=lower)
    suppressed = ()
    if has_solution:
        best = model.getBestSol()
        values = np.array([model.getSolVal(best, v) for v in xs[: mm.num_x]])
        suppressed = mm.suppressed(values)
    bound = model.getDualbound()
    return dict(termination=termination, has_solution=has_solution, suppressed=suppressed,
                lower_bound=bound if math.isfinite(bound) else 0.0)

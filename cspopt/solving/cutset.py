"""(P) and (P_N) by branch-and-cut on ``x`` alone, with cut-set constraints.

Projecting the path variables out of (P) (Almeida & Carvalho 2005 §3, constraints (8)-(10))
leaves one cut-set constraint per protected cell and node set separating its path's ends;
they are Fischetti & Salazar-Gonzalez's (1999) capacity constraints, so the problem is
stated as an interval one (:class:`cspopt.models.interval.ExactAsInterval`) and solved by
the interval branch-and-cut (:mod:`cspopt.solving.branch_and_cut`). Its root LP is the LP
bound of (P) (for (P_N) it can be lower: the lifted coupling (33) is not captured,
``models/cutset.md``), but it branches on ``x`` only and has no path or flow variables, so
its nodes are cheap where the compact model's are not.
"""

from __future__ import annotations

import time
from functools import partial

from cspopt.models.exact import ExactInstance
from cspopt.models.interval import ExactAsInterval
from cspopt.result import SolveResult
from cspopt.solving.audited import audit_pattern
from cspopt.solving.branch_and_cut import solve_branch_and_cut

__all__ = ["solve_cutset"]


def solve_cutset(inst: ExactInstance, *, time_limit: float | None = None, gap: float = 1e-6,
                 mip_start=None, verbose: bool = False, progress=None,
                 lower_bound: float = 0.0) -> SolveResult:
    """Solve ``inst`` by the branch-and-cut on ``x`` (SCIP, minimum-cut separation).

    The pattern passes the exact audit of ``inst``
    (:func:`~cspopt.solving.audited.audit_pattern`), which the branch-and-cut runs in place
    of its interval audit of the stated problem (the two agree, tests/test_cutset.py).
    ``mip_start`` (cell ids) must protect every cell. ``lower_bound``: a bound proven
    elsewhere for ``inst`` (the pipeline's Lagrangian bound); the solve stops when an
    incumbent meets it.
    """
    method = f"bc({inst.model})/scip"
    if not inst.protected_cells.size:  # nothing to protect: no interval problem to state
        started = time.perf_counter()
        checked = audit_pattern(inst, (), method=method)
        elapsed = time.perf_counter() - started
        return SolveResult.build(
            method=method, model=inst.model, termination="optimal", lower_bound=0.0,
            suppressed=(), objective=0.0, audit=checked, proof="branch-and-cut",
            safe=inst.safe_cells, timings={"audit": elapsed, "total": elapsed},
            model_size={"protected": 0})
    reduction = ExactAsInterval(inst)
    table, published = reduction.apply()
    result = solve_branch_and_cut(table, time_limit=time_limit, gap=gap, verbose=verbose,
                                  weights=inst.weights, must_publish=published,
                                  mip_start=mip_start, progress=progress,
                                  final_audit=partial(audit_pattern, inst, method=method),
                                  lower_bound=lower_bound)
    return reduction.invert(result, method=method)

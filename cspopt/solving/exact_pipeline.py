"""The certified exact-disclosure pipeline: heuristic, Lagrangian dual, branch-and-cut.

The pipeline follows Almeida & Carvalho (2005) §5:

1. preprocessing drops sensitive cells already protected by other sensitive cells;
2. the path heuristic, improved by exclusion local search, gives a first incumbent;
3. the Lagrangian dual (subgradient: volume or Held-Wolfe-Crowder step rule; or a
   stabilised cutting-plane method) raises the lower bound. The embedded heuristic, with
   exclusion local search, improves the incumbent, and a closed gap makes it *in-proven*
   optimal;
4. if a gap remains, a MIP of (P)/(P_N) runs with the incumbent as its start, and its bound
   is combined with the Lagrangian one. A matching optimum makes the incumbent
   *out-proven* optimal. The paper used the compact model with CPLEX. Here it is the
   projection of the compact model onto ``x`` (one cut-set constraint per protected cell and
   cut, :mod:`cspopt.solving.cutset`), by branch-and-cut in SCIP: it proves the tables
   that the compact MIP on HiGHS left open. The paper also added the bounds as
   constraints, which helped CPLEX but slows HiGHS, so ``solve_exact(objective_floor=...)``
   offers that as an option only. The branch-and-cut gets the Lagrangian bound instead as a
   proven bound: it stops at the first incumbent that meets it (SCIP's primal limit), which
   saves the search where SCIP's own bound stays lower, as it can for (P_N).

Every incumbent passes the independent audit before it is returned.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from functools import partial

import numpy as np

from cspopt.bounds import cutting_plane, subgradient
from cspopt.bounds.lagrangian import LagrangianState
from cspopt.budget import Budget
from cspopt.errors import CspoptError, InputError
from cspopt.heuristics import exclusion_search, path_heuristic
from cspopt.models.exact import ExactInstance, PathOracle
from cspopt.models.suppression import candidate_mask
from cspopt.options import OPTIONS, check_options
from cspopt.result import SolveResult, integral_bound
from cspopt.solving.audited import audit_pattern
from cspopt.solving.cutset import solve_cutset

__all__ = ["run_pipeline", "DUALS", "pattern_of"]

log = logging.getLogger(__name__)

#: Lagrangian dual methods: the volume and the Held-Wolfe-Crowder subgradient rules, and
#: the stabilised cutting-plane (Dantzig-Wolfe) method.
DUALS = OPTIONS["dual"].domain.values


def _run_dual(oracle, dual, *, multipliers, incumbent, max_iterations, time_limit, started,
              progress) -> LagrangianState:
    check_options(dict(dual=dual))
    if dual == "cutting-plane":
        run = cutting_plane
    else:
        run = partial(subgradient, rule="volume" if dual == "volume" else "held-wolfe-crowder")
    return run(oracle, multipliers=multipliers, incumbent=incumbent,
               max_iterations=max_iterations, time_limit=time_limit, started=started,
               on_iteration=progress)


def _start_mask(inst, cells) -> np.ndarray:
    """A start pattern as a candidate mask, after the exact audit of the instance."""
    mask = candidate_mask(inst.table, inst.candidates, cells, "the start pattern")
    checked = audit_pattern(inst, pattern_of(inst, mask))
    if not checked.protected:
        raise InputError(f"the start pattern exposes sensitive cells {list(checked.exposed)}")
    return mask


def pattern_of(inst, mask) -> tuple[int, ...]:
    return tuple(sorted(int(c) for c in inst.candidates[mask])) if mask is not None else ()


def run_pipeline(inst: ExactInstance, *, method: str, dual: str, budget: Budget,
                 max_iterations: int, multipliers, start, gap: float, verbose: bool,
                 progress: Callable[[dict], None] | None) -> SolveResult:
    """Solve ``inst`` by steps 2-4 above (``method="auto"``) or steps 2-3
    (``"lagrangian"``) within the call's ``budget``. The options are :func:`cspopt.solve`'s."""
    oracle = PathOracle(inst)
    weights = inst.weights[inst.candidates]
    timings = budget.timings
    with budget.phase("heuristic"):
        first = path_heuristic(oracle, weights)
        if start is not None:
            given = _start_mask(inst, start)
            if first is None or weights[given].sum() < weights[first].sum():
                first = given
        if first is not None:
            first = exclusion_search(oracle, first, weights)
    initial = dict(iteration=0, time=budget.elapsed(), lower_bound=0.0,
                   upper_bound=float(weights[first].sum()) if first is not None else math.inf,
                   phase="heuristic")

    def on_iteration(state):
        record = state.history[-1]
        if progress is not None:
            progress(record)
        log.debug("iteration %d  LB %.6g  UB %.6g  %.2f s", record["iteration"],
                 record["lower_bound"], record["upper_bound"], record["time"])

    with budget.phase("lagrangian"):
        state = _run_dual(oracle, dual, multipliers=multipliers, incumbent=first,
                          max_iterations=max_iterations, time_limit=budget.limit,
                          started=budget.started, progress=on_iteration)
    history = [initial] + list(state.history)
    lower = integral_bound(state.lower_bound, weights)
    pattern = pattern_of(inst, state.incumbent)
    upper = state.upper_bound
    method_name = f"lagrangian({inst.model},{dual})"
    if state.termination == "infeasible":
        return SolveResult.build(
            method=method_name, model=inst.model, termination="infeasible",
            lower_bound=math.inf, unsafe=inst.protected_cells, safe=inst.safe_cells,
            timings=_total(budget), history=history, multipliers=state.warm_start())
    termination, proof, checked = state.termination, "", None
    final, message = None, ""
    if math.isfinite(upper) and upper <= lower + 1e-9:
        termination, proof = "optimal", "lagrangian"
    elif method == "auto":
        # The gap is closed by the branch-and-cut on x (cutset.py), not by the compact MIP,
        # which leaves the papers' design tables open (cspopt bench exact)
        left = budget.time_limit()
        if left is None or left > 0:
            offset, floor, ceiling = budget.elapsed(), lower, upper

            def combined(record):  # the live line shows the pipeline's bounds
                progress(dict(record, time=offset + record["time"],
                              lower_bound=max(floor, record["lower_bound"]),
                              upper_bound=min(ceiling, record["upper_bound"])))

            try:
                final = solve_cutset(inst, time_limit=left, gap=gap, verbose=verbose,
                                     mip_start=pattern if math.isfinite(upper) else None,
                                     progress=combined if progress is not None else None,
                                     lower_bound=lower)
            except CspoptError as error:  # the Lagrangian's incumbent and bound still stand
                log.warning("the branch-and-cut failed (%s); the Lagrangian's pattern and "
                            "bound are returned", error)
                final = None
                message = f"the branch-and-cut failed: {error}"
        if final is not None:
            timings["branch_and_cut"] = final.timings.get("total", 0.0)
            method_name += "+" + final.method
            if final.has_pattern and final.objective < upper - 1e-9:
                pattern, upper, checked = final.suppressed, final.objective, final.audit
            lower = max(lower, final.lower_bound if math.isfinite(final.lower_bound) else lower)
            termination = final.termination
            if math.isfinite(upper) and upper <= lower + 1e-9:
                termination, proof = "optimal", "branch-and-cut"
            history.append(dict(iteration=len(history), time=budget.elapsed(),
                                lower_bound=lower, upper_bound=upper, phase="branch-and-cut"))
            if progress is not None:
                progress(history[-1])
    if checked is None and math.isfinite(upper):  # the branch-and-cut audits its own
        with budget.phase("audit"):
            checked = audit_pattern(inst, pattern, method=method_name)
    objective = float(weights[inst.x_index[list(pattern)]].sum()) if pattern else (
        0.0 if math.isfinite(upper) else math.nan)
    return SolveResult.build(
        method=method_name, model=inst.model, termination=termination, lower_bound=lower,
        suppressed=pattern if checked is not None else None, objective=objective,
        audit=checked, proof=proof, unsafe=inst.protected_cells, safe=inst.safe_cells,
        timings=_total(budget),
        model_size=dict(protected=int(inst.protected_cells.size),
                        candidates=int(inst.candidates.size), arcs=int(inst.num_arcs),
                        dijkstra_calls=state.dijkstra_calls,
                        ms_per_path=round(1000 * state.dijkstra_seconds
                                          / max(state.dijkstra_calls, 1), 4)),
        history=history, multipliers=state.warm_start(), message=message)


def _total(budget: Budget) -> dict:
    budget.timings["total"] = budget.elapsed()
    return budget.timings

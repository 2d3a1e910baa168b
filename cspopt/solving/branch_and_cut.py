"""Branch-and-cut on the suppression variables only, with capacity constraints (SCIP).

Fischetti & Salazar-Gonzalez (1999, 2001): the compact model
(:mod:`cspopt.models.interval.compact`) keeps two deviation vectors per sensitive cell, so its
size grows with (sensitive cells) x (cells). Projected onto ``y`` it becomes

    min  sum_i w_i y_i   s.t.  every capacity constraint (models.interval.capacity),  y binary,

with exponentially many rows, added only when violated. The root LP is solved by a cutting-plane
loop on HiGHS (:func:`cspopt.bounds.capacity.capacity_lp`); its cuts seed SCIP, where a
constraint handler separates and enforces more (:mod:`cspopt.backends.scip_capacity`).

The solve is a schedule of phases (:data:`cspopt.solving.interval_phases.SCHEDULE`, every time
share declared in one table) run on one :class:`~cspopt.solving.interval_phases.Run`: the
instance and its :class:`~cspopt.models.interval.CapacityOracle` built once, one
:class:`~cspopt.budget.Budget`, one :class:`~cspopt.solving.incumbent.Incumbent`.

Incumbents: the incremental attacker heuristic (Smith et al. 2012), rounding up the root LP
point, and the incremental attacker guided by that point (the sequential heuristic of tau-ARGUS'
engine), all cleaned of redundant suppressions and audited; on tables that are not networks,
two neighbourhood searches (:mod:`cspopt.solving.neighbourhoods`: this branch-and-cut on balls
around the sensitive cells with the rest of the incumbent fixed, then restricted to the cells
the root LP or the incumbent uses), in a second process beside the tree where a second core
and the time limit allow (:mod:`cspopt.solving.search_process`). The dual bound and the
incumbent are reported as they move (``progress``) and kept in ``history``.

Complexity per separation: one maximum flow per protected cell and side not settled by a
remembered proof, all in one scipy call on the network of the cells with ``y > 0`` (2-D
tables), or one warm-started LP per cell and side (any linear table). SCIP separates up to
five rounds at a node without a better LP value before it branches (one with attacker LPs),
and checks only the solutions that would improve its incumbent (a check costs attacker problems).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from cspopt.bounds.capacity import model_size
from cspopt.budget import Budget
from cspopt.errors import SolverError
from cspopt.models.interval import (
    CapacityOracle,
    IntervalInstance,
    build_interval_instance,
    candidate_primaries,
)
from cspopt.options import check_limits
from cspopt.result import SolveResult
from cspopt.solving.audited import (
    interval_result,
    no_pattern_message,
    pattern_cells,
    repair_interval_pattern,
    start_point,
    unprotectable,
)
from cspopt.solving.incumbent import Incumbent
from cspopt.solving.interval_phases import SCHEDULE, SHARES, Run

__all__ = ["solve_branch_and_cut"]


def solve_branch_and_cut(table, *, time_limit: float | None = None, gap: float = 1e-6,
                         verbose: bool = False, weights=None, must_publish=None,
                         preprocessing: bool = True, separation: str = "auto",
                         candidate_sets: bool = False,
                         mip_start=None, instance: IntervalInstance | None = None,
                         progress: Callable[[dict], None] | None = None,
                         final_audit: Callable[[tuple], object] | None = None,
                         lower_bound: float = 0.0, neighbourhood: bool = True,
                         bridgeless: bool = True, processes: int | None = None) -> SolveResult:
    """Solve the interval-protection problem by branch-and-cut on ``y`` (SCIP).

    ``separation``: ``"network"`` (minimum cuts, 2-D tables), ``"lp"`` (attacker LPs, any
    linear table) or ``"auto"``. ``candidate_sets=True`` separates cuts at fractional points
    and runs the start heuristic only for Serpell et al.'s candidates for initially exposed
    primaries (:mod:`cspopt.models.interval.candidates`); 0/1 points are still checked for
    every primary, so the optimum is the same. It makes the start heuristic cheaper but the
    root bound weaker, hence off by default.
    The result has the fields of every cspopt solve; its pattern passes :func:`cspopt.audit`
    with ``requirement="interval"`` and its lower bound is SCIP's dual bound (rounded up under
    integer weights). A caller that states another problem as this one passes its own audit
    as ``final_audit`` (cell ids -> audit result, raising :class:`SolverError` on an exposing
    pattern); it then replaces the interval audit rather than running beside it.
    ``lower_bound`` is a bound the caller has proven for the same objective (the certified
    pipeline's Lagrangian bound): the solve starts from it and stops as soon as an incumbent
    meets it, instead of proving that again (SCIP's ``limits/primal``).
    ``neighbourhood=False`` skips the searches of :mod:`cspopt.solving.neighbourhoods` that
    follow a converged root on tables that are not networks. There, after the root
    heuristics, the root LP goes on with bridgeless cuts
    (:meth:`CapacityOracle.bridgeless_cuts`) unless ``bridgeless=False``; where it tailed off
    unconverged, with the capped search of :func:`capacity_lp`. With ``processes`` of 2 or
    more (default: 2 where this process may run on two cores) and a time limit of at least
    :data:`~cspopt.solving.interval_phases.SEARCH_PROCESS_FROM` seconds, the searches run in
    a second process for the whole time beside the bridgeless rounds and the tree
    (:mod:`cspopt.solving.search_process`) instead of before them.
    """
    check_limits(time_limit=time_limit, gap=gap, processes=processes)
    budget = Budget(time_limit)
    with budget.phase("preprocessing"):  # the instance, the oracle and the judge's check
        inst = instance or build_interval_instance(
            table, weights=weights, must_publish=must_publish, preprocessing=preprocessing)
        focus = candidate_primaries(table, inst.protected) if candidate_sets else None
        oracle = CapacityOracle(inst, method=separation, focus=focus)
        hopeless = unprotectable(inst) if inst.protected.size else ()
    incumbent = Incumbent(oracle, budget, lower=lower_bound, progress=progress,
                          prune_share=SHARES["prune"])
    # the search stops early enough for the final audit (it always runs) to fit the limit
    run = Run(table=table, inst=inst, oracle=oracle, incumbent=incumbent, budget=budget,
              search=budget.opening(1 - SHARES["audit"]), gap=gap, verbose=verbose,
              separation=separation, neighbourhood=neighbourhood, bridgeless=bridgeless,
              processes=processes, timed_audit=final_audit is None, focus=focus,
              solve=solve_branch_and_cut)
    if hopeless:  # not even suppressing everything
        incumbent.lower = math.inf
        run.termination, run.message = "infeasible", no_pattern_message(table, hopeless)
        return _result(run, final_audit)
    start = None if mip_start is None else start_point(inst, oracle, mip_start)
    if start is not None:
        incumbent.take("start", start)
    if incumbent.y is None and run.ny and inst.protected.size:
        # suppressing every candidate protects (the judge said so above): an incumbent from
        # the start, so that a time limit that cuts every phase short still has a pattern
        incumbent.record("everything", y=np.ones(run.ny))
    try:
        for phase in SCHEDULE:
            if not phase.timed:
                phase.run(run, phase.budget(run))
                continue
            with budget.phase(phase.name):
                phase.run(run, phase.budget(run))
    finally:
        if run.searcher is not None:
            run.searcher.stop()
            budget.timings["search_process"] = run.searcher.seconds
    run.arrivals()  # what the search process sent last
    return _result(run, final_audit)


def _result(run: Run, final_audit) -> SolveResult:
    """The result of ``run``: its incumbent through the judge (repaired if it must be) or
    the caller's ``final_audit``, its bound, timings and history."""
    inst, incumbent, timings = run.inst, run.incumbent, run.budget.timings
    y, checked, lower, message = incumbent.y, None, incumbent.lower, run.message
    if y is not None:
        if final_audit is None:  # the judge's verdict, the pattern repaired if it must be
            y, checked, repaired = repair_interval_pattern(inst, y, timings)
            if y is None:  # cannot be: everything protected before the search
                raise SolverError("the audit rejects suppressing every candidate, which it "
                                  "accepted before the search; please report this table")
            message = "; ".join(filter(None, [message, repaired]))
        else:
            with run.budget.phase("audit"):
                checked = final_audit(pattern_cells(inst, y))
    elif not inst.protected.size or not inst.candidates.size:
        y, lower = np.zeros(inst.candidates.size), 0.0
    return interval_result(
        inst, run.budget,
        method=f"bc(FS)/scip/{'network' if run.oracle.network is not None else 'lp'}",
        termination=run.termination, lower_bound=lower, y=y, audit=checked,
        proof="mip" if "branch_and_cut" in timings else "lp",
        model_size=model_size(inst, run.oracle, len(run.root_cuts)),
        history=incumbent.history, message=message)

"""Branch-and-cut on the suppression variables only, with capacity constraints (SCIP).

Fischetti & Salazar-Gonzalez (1999, 2001): the compact model
(:mod:`cspopt.models.interval.compact`) keeps two deviation vectors per sensitive cell, so its
size grows with (sensitive cells) x (cells). Projected onto ``y`` it becomes

    min  sum_i w_i y_i   s.t.  every capacity constraint (models.interval.capacity),  y binary,

with exponentially many rows, added only when violated. The root LP is solved by a cutting-plane
loop on HiGHS (:func:`cspopt.bounds.capacity.capacity_lp`); its cuts seed SCIP, where a
constraint handler separates more at fractional points (``conssepalp``), enforces them at
integral ones (``consenfolp``/``consenfops``), checks heuristic solutions (``conscheck``) and
declares down-locks on every ``y`` (``conslock``: a capacity row only asks for *more*
suppression; without locks SCIP's dual reductions would fix ``y`` to 0 and return wrong optima).
Strong dual reductions are switched off all the same: with the locks they still cut off optima
on small 2-D tables; weak ones (reduced-cost fixing) only remove points a relaxation's bound
rules out, and stay on.

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

import functools
import logging
import math
import time
from collections.abc import Callable

import numpy as np
from pyscipopt import (
    SCIP_EVENTTYPE,
    SCIP_HEURTIMING,
    SCIP_RESULT,
    Conshdlr,
    Eventhdlr,
    Heur,
    quicksum,
)

from cspopt.audit import audit_seconds
from cspopt.backends.scip import TERMINATION, new_scip
from cspopt.bounds.capacity import capacity_lp, model_size
from cspopt.bounds.single_cell import (
    SINGLE_CELL_SECONDS,
    dominant_cell,
    quiet_single_cell_bound,
)
from cspopt.bounds.star_cuts import star_bound
from cspopt.errors import SolverError
from cspopt.heuristics.capped import capped_sequential
from cspopt.heuristics.cell_arcs import cell_arcs
from cspopt.heuristics.incremental import (
    incremental_attacker,
    lp_guided_attacker,
    lp_guided_costs,
)
from cspopt.heuristics.shortest_paths import sp_heuristic
from cspopt.models.interval import (
    CapacityOracle,
    IntervalInstance,
    build_interval_instance,
    candidate_primaries,
)
from cspopt.models.suppression import candidate_mask
from cspopt.options import AUDIT_SHARE, HEURISTIC_SHARE, check_limits
from cspopt.result import SolveResult, integral_bound
from cspopt.solving.audited import (
    no_pattern_message,
    pattern_cells,
    repair_interval_pattern,
    start_point,
    unprotectable,
)
from cspopt.solving.neighbourhoods import search_neighbourhoods
from cspopt.solving.search_process import SearchJob, SearchProcess, available_processes

__all__ = ["solve_branch_and_cut", "SEARCH_PROCESS_FROM"]

log = logging.getLogger(__name__)

#: share of the time limit each delete-and-check pass may use
_PRUNE_SHARE = 0.1

#: the time kept for the final audit is measured (an audit of the first incumbent) when a
#: share of the time limit would keep more than this many seconds
_TIMED_AUDIT_FROM = 20.0
#: the time kept is then this multiple of the measured audit, and at least _AUDIT_FLOOR s
_AUDIT_MARGIN = 2.0
_AUDIT_FLOOR = 5.0

#: separation rounds at a node without a better LP value before SCIP branches, on network
#: tables (minimum cuts) and on others (attacker LPs, where a round costs more and more nodes
#: lift the bound faster: hier13x7x7d's after 140 s of SCIP 9,123 / 9,172 with one round
#: against 9,069 / 9,142 with five / two, two jobs at once)
_NODE_STALL_ROUNDS = 5
_LP_NODE_STALL_ROUNDS = 1

#: where separation solves attacker LPs (tables that are not networks), a round at a
#: fractional point stops once this many sensitive cells are found exposed: SCIP re-solves
#: its LP (milliseconds) between rounds instead of after an LP for every requirement, and
#: the rounds' points lead the cuts (hier13 at 300 s, SCIP at the root all the time: bound
#: 1.73 million with every cell a round, 1.86 / 2.22 million stopping at 60 / 20 cells;
#: docs/bench/history.md)
_SEPARATION_BATCH = 20

#: depth frequency of the round-and-prune heuristic inside SCIP
_HEURISTIC_FREQUENCY = 5

#: share of the time limit the root's cutting-plane loop (capacity_lp) may run to
_ROOT_SHARE = 0.5

#: the share of the time limit a support neighbourhood gets (cspopt.solving.neighbourhoods)
_NEIGHBOURHOOD_SHARE = 0.25
#: and the sweep of balls around the sensitive cells
_BALLS_SHARE = 0.2
#: on tables that are not networks with at most this many sensitive cells to protect, the
#: capped single-cell MIPs (:mod:`cspopt.heuristics.capped`) follow the first heuristic:
#: CSPLIB hier13 with two of its cells (45, 1496), 2,454,566 in 35 s, where the branch-and-cut
#: ended at 4,257,571 after 1,800 s; on all 112 cells they take about 300 s for the
#: plateau the searches reach anyway (8.33 million)
_CAPPED_CELLS = 20
#: the share of the time limit the bridgeless cuts' rounds (with the capped search) get
#: after them; the phase converges in seconds on hier13x7x7d, not on hier133a (300 s: bound
#: 4,467,000 with 0.2, 4,546,039 with 0.4, 4,555,836 with 0.6, the tree getting the rest)
_BRIDGELESS_SHARE = 0.4

#: the share of the time limit the root loop's capped search may go on where the root did
#: not converge (tables that are not networks)
_CAPPED_SEARCH_SHARE = 0.6

#: the shortest time limit at which the searches get a process of their own (starting one
#: takes about a second); without a time limit they run in turn, so that a solve to
#: optimality is reproducible
SEARCH_PROCESS_FROM = 30.0

#: share of the remaining time a dominant cell's own MIP may take (cspopt.bounds.single_cell;
#: the tree hardly moves the bound where one cell dominates)
_SINGLE_CELL_SHARE = 0.5
#: seconds that must remain for it to start
_SINGLE_CELL_FLOOR = 1.0


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
    follow the root on tables that are not networks once the root LP has converged. There, after the
    root heuristics, the root LP goes on with bridgeless cuts
    (:meth:`CapacityOracle.bridgeless_cuts`; hier13x7x7d at 300 s: bound 8,841 -> about
    9,100) unless ``bridgeless=False``; where it tailed off unconverged, with the capped
    search of :func:`capacity_lp` for up to 60 % of the time limit (hier13 at 300 s: 3.63 ->
    4.05 million). With ``processes`` of 2 or more (default: 2 where
    this process may run on two cores) and a time limit of at least
    :data:`SEARCH_PROCESS_FROM` seconds, the searches run in a second process for the whole
    time beside the bridgeless rounds and the tree (:mod:`cspopt.solving.search_process`)
    instead of before them.
    """
    started = time.perf_counter()
    check_limits(time_limit=time_limit, gap=gap, processes=processes)
    # the search stops early enough for the final audit (it always runs) to fit the limit
    deadline = None if time_limit is None else started + (1 - AUDIT_SHARE) * time_limit
    inst = instance or build_interval_instance(table, weights=weights, must_publish=must_publish,
                                               preprocessing=preprocessing)
    focus = candidate_primaries(table, inst.protected) if candidate_sets else None
    oracle = CapacityOracle(inst, method=separation, focus=focus)
    ny = inst.candidates.size
    hopeless = unprotectable(inst) if inst.protected.size else ()
    # the instance (with Fischetti-Salazar's preprocessing), the oracle and that check
    timings: dict[str, float] = {"preprocessing": time.perf_counter() - started}
    if hopeless:  # not even suppressing everything
        return _result(table, inst, oracle, dict(y=None, upper=math.inf, lower=math.inf),
                       "infeasible", [], timings, started, num_root_cuts=0,
                       final_audit=final_audit, message=no_pattern_message(table, hopeless))
    weights_y = inst.weights[inst.candidates]
    history: list[dict] = []
    best = dict(y=None, upper=math.inf, lower=max(float(lower_bound), 0.0))

    def record(phase: str, lower: float | None = None, y=None) -> None:
        changed = False
        if lower is not None:  # SCIP's bound as it moves, too (665.9999999999999 seen)
            lower = integral_bound(lower, weights_y)
        if y is not None and float(weights_y @ y) < best["upper"] - 1e-9:
            best["y"], best["upper"], changed = y.copy(), float(weights_y @ y), True
        if lower is not None and lower > best["lower"] + 1e-9:
            best["lower"], changed = lower, True
        if changed or not history:
            history.append(dict(iteration=len(history), time=time.perf_counter() - started,
                                lower_bound=best["lower"], upper_bound=best["upper"],
                                phase=phase))
            if progress is not None:
                progress(history[-1])

    found: list[np.ndarray] = []  # every protecting pattern offered, cleaned
    start = None if mip_start is None else start_point(inst, oracle, mip_start)
    if start is not None:
        found.append(start)
        record("start", y=start)

    if best["y"] is None and ny and inst.protected.size:
        # suppressing every candidate protects (the judge said so above): an incumbent from
        # the start, so that a time limit that cuts every phase short still has a pattern
        record("everything", y=np.ones(ny))

    def prune(y, order, until):
        """Delete-and-check within a share of the time limit and before ``until`` (the
        phase's deadline): on large tables it is a check per suppressed cell, and the bound
        needs the time more."""
        if time_limit is None:
            return oracle.prune(y, order)
        return oracle.prune(y, order, min(time.perf_counter() + _PRUNE_SHARE * time_limit,
                                          until))

    def phase_end(start: float, share: float) -> float | None:
        """The end of a phase that begins at ``start`` and may use ``share`` of the time
        limit, never past the search's deadline."""
        return deadline if time_limit is None else min(deadline, start + share * time_limit)

    def offer(phase: str, y, order, until) -> bool:
        """Record the 0/1 point ``y``, cleaned, as an incumbent if it protects every cell
        (as far as the check gets by ``until``)."""
        if not oracle.protects(y, until):
            return False
        found.append(prune(y, order, until))
        record(phase, y=found[-1])
        return True

    t0 = time.perf_counter()
    heuristic_deadline = None if time_limit is None else t0 + HEURISTIC_SHARE * time_limit
    # on network tables the SP heuristic's paths replace the incremental attacker's LPs
    # (hierarchical 60x30: 0.3 s against 11.6 s; docs/bench/history.md)
    paths = network_heuristic(inst, oracle, heuristic_deadline)
    if (paths is None or not offer("heuristic", paths, np.argsort(-weights_y),
                                   heuristic_deadline)) and ny and inst.protected.size:
        # protecting the candidate set first often protects all
        for subset in ([inst.keep(focus)] if focus is not None else []) + [inst]:
            greedy = candidate_mask(inst.table, inst.candidates, incremental_attacker(
                subset, deadline=heuristic_deadline)).astype(float)
            if offer("heuristic", greedy, np.argsort(-weights_y), heuristic_deadline):
                break
    if oracle.network is None and ny and 0 < inst.protected.size <= _CAPPED_CELLS:
        capped = capped_sequential(inst, deadline=heuristic_deadline)
        if not capped.stopped and float(weights_y @ capped.suppressed) < best["upper"]:
            offer("capped MIPs", capped.suppressed, np.argsort(-weights_y), heuristic_deadline)
    timings["heuristic"] = time.perf_counter() - t0
    if (final_audit is None and best["y"] is not None and time_limit is not None
            and AUDIT_SHARE * time_limit > _TIMED_AUDIT_FROM):
        # the final audit costs about what an audit of this pattern costs: keep a margin
        # of that, not a fifth of a long time limit (60 s of 300 on a 100x100 table whose
        # audit takes 5 s)
        t0 = time.perf_counter()
        expected = audit_seconds(table, pattern_cells(inst, best["y"]))
        timings["audit_estimate"] = time.perf_counter() - t0
        deadline = started + time_limit - min(AUDIT_SHARE * time_limit,
                                              max(_AUDIT_MARGIN * expected, _AUDIT_FLOOR))

    t0 = time.perf_counter()
    # the root loop stops at half the time limit, so that the incumbent phases below run
    # where it does not converge, or sooner once it tails off; SCIP's own root goes on
    # separating faster (hier13 at 300 s: bound 1.86 -> 2.83 million; docs/bench/history.md)
    # the heuristics below start from the capacity LP's point: after bridgeless cuts it
    # guides them worse (hier13x7x7d: LP-guided 10,695 -> 11,670)
    root_bound, root_y, root_cuts, converged = capacity_lp(
        inst, oracle, deadline=phase_end(started, _ROOT_SHARE), bridgeless=False,
        tail_off=True)
    timings["root_lp"] = time.perf_counter() - t0
    record("root lp", lower=root_bound)
    lp_order = np.lexsort((-weights_y, root_y))  # least wanted by the LP first
    if ny:  # the master's point, rounded up, often protects even before convergence
        offer("rounding", (root_y > 1e-9).astype(float), lp_order, deadline)
    # on tables that are not networks a node costs an attacker LP per requirement, the tree
    # sees few nodes and its round-and-prune rarely improves the root's incumbent; there a
    # restricted search around it pays (hier13x7x7d: 11,022 -> 10,697 at 150 s), on 2-D
    # tables it only costs time (docs/bench/history.md). Only around a converged root: an
    # unconverged LP point guides it no better than the incumbent alone, and the time goes
    # to SCIP's root separation (hier13: 71 s of 300 found nothing)
    search = neighbourhood and oracle.network is None and converged
    # balls around the sensitive cells, the rest of the pattern fixed (hier13x7x7d at 300 s:
    # 11,347 -> 10,598 in 60 s), then the support (-> 10,268; a ball sweep after it found
    # nothing more); in a second process beside the tree where there is a core for it and
    # time to start it, which then also runs the LP-guided heuristic, from the root's point
    # first and then from SCIP's (hier13: the tree gets the 33 s the root's took)
    beside = (neighbourhood and oracle.network is None and best["y"] is not None
              and _two_processes(processes, time_limit))

    def root_guided() -> None:
        """The pattern the root's LP point guides (SP on networks, else the incremental
        attacker), offered as an incumbent."""
        if not (ny and inst.protected.size and best["upper"] > best["lower"] + 1e-9):
            return
        until = phase_end(time.perf_counter(), HEURISTIC_SHARE)
        guided = network_heuristic(inst, oracle, until, lp_guided_costs(inst, root_y))
        if guided is None:
            guided = lp_guided_attacker(inst, root_y, deadline=until)
            guided = None if guided is None else candidate_mask(
                inst.table, inst.candidates, guided).astype(float)
        if guided is not None:
            offer("lp-guided", guided, lp_order, until)

    if not beside:
        root_guided()
    timings["root_heuristic"] = time.perf_counter() - t0 - timings["root_lp"]
    # where one sensitive cell carries most of the bound (the grand total of a GenSup class
    # II table), the cuts its own pattern draws around it (2-D tables) and its exact
    # protection alone bound better than the tree (100x100 seed 2: 1,324,579 -> 1,373,919;
    # 60x40 seed 1: 292,645 -> 328,212), and their patterns, alone or joined to the
    # incumbent and pruned, are better ones
    floor = 0.0
    t0 = time.perf_counter()
    remaining = SINGLE_CELL_SECONDS if deadline is None else deadline - t0
    cell = (dominant_cell(inst, root_cuts) if ny and best["upper"] > best["lower"] + 1e-9
            and remaining > _SINGLE_CELL_FLOOR else None)

    def offer_cell_pattern(phase: str, y: np.ndarray) -> None:
        # the other cells' suppressions are dropped first, the cell's own last
        order = np.lexsort((-weights_y, root_y, y))
        if not offer(phase, y, order, deadline) and best["y"] is not None:
            offer(phase, np.maximum(y, best["y"]), order, deadline)

    star = (None if cell is None
            else star_bound(inst, cell, time_limit=_SINGLE_CELL_SHARE * remaining))
    if star is not None:
        floor = star.lower_bound
        record("star cuts", lower=floor)
        if star.pattern is not None:
            offer_cell_pattern("star cuts", star.pattern)
        timings["star_cuts"] = time.perf_counter() - t0
    if cell is not None and best["upper"] > best["lower"] + 1e-9:
        t0 = time.perf_counter()
        single = quiet_single_cell_bound(inst, cell, start=best["y"],
                                         time_limit=_SINGLE_CELL_SHARE * remaining)
        if single is not None:
            floor = max(floor, single.lower_bound)
            record("single cell", lower=floor)
            if single.pattern is not None:
                offer_cell_pattern("single cell", single.pattern)
        timings["single_cell"] = time.perf_counter() - t0
    searcher = None
    if beside and inst.protected.size and best["upper"] > best["lower"] + 1e-9:
        searcher = _start_search_process(inst, best, root_y, found, separation=separation,
                                         time_limit=time_limit, deadline=deadline,
                                         support=search)
        if searcher is None:  # the child would have run it: it runs here, as in turn
            root_guided()
    if searcher is None and search and best["upper"] > best["lower"] + 1e-9:
        t0 = time.perf_counter()
        timings.update(search_neighbourhoods(
            inst, best["y"], root_y, found, solve=solve_branch_and_cut,
            offer=lambda phase, y: found[-1] if offer(phase, y, lp_order, deadline) else None,
            lower_bound=best["lower"], balls_until=phase_end(t0, _BALLS_SHARE),
            support_seconds=None if time_limit is None else _NEIGHBOURHOOD_SHARE * time_limit,
            until=deadline))

    def arrivals() -> list[np.ndarray]:
        """The search process's patterns since the last call that are cheaper than the
        incumbent and protect every cell by this process's oracle, recorded."""
        taken = []
        for y in searcher.patterns() if searcher is not None else ():
            if (float(weights_y @ y) < best["upper"] - 1e-9
                    and oracle.protects(y, deadline)):
                found.append(y)
                record("search process", y=y)
                taken.append(y)
        return taken

    try:
        # bridgeless cuts come once the capacity cuts are met (hier13 does not get there in
        # half of 300 s: the phase would only take the tree's time), with a share of their
        # own after the neighbourhoods (hier13x7x7d: 8,413 -> 8,899 in 60 s; 8,541 in the
        # 10 s the searches left them before the root loop's deadline), with the capped
        # search, which finds cuts where the exact LPs converged (hier133a at 300 s: bound
        # 4,290,389 -> 4,466,847; the root point the searches start from is unchanged); its
        # master points guide the search process's patterns, as the capped phase's do
        # (hier13x7x7d at 300 s: 9,967 against 10,147, one run each)
        if (bridgeless and oracle.has_bridgeless and converged
                and best["upper"] > best["lower"] + 1e-9):
            t0 = time.perf_counter()
            root_bound, _, root_cuts, _ = capacity_lp(
                inst, oracle, deadline=phase_end(t0, _BRIDGELESS_SHARE), cuts=root_cuts,
                capped_search=True, points=None if searcher is None else searcher.send_point)
            timings["bridgeless"] = time.perf_counter() - t0
            record("bridgeless", lower=root_bound)
        elif (not converged and oracle.network is None
              and best["upper"] > best["lower"] + 1e-9):
            # where the root tailed off unconverged (CSPLIB hier13; hier133a's converges),
            # or its deadline stopped it, the capped search goes on from its cuts: it lifts
            # the bound faster than SCIP's rounds (hier13 at 300 s: 3.63 -> 4.05 million,
            # docs/bench/history.md); its points guide the search process's patterns
            t0 = time.perf_counter()
            root_bound, _, root_cuts, converged = capacity_lp(
                inst, oracle, deadline=phase_end(t0, _CAPPED_SEARCH_SHARE), cuts=root_cuts,
                bridgeless=False, capped_search=True,
                points=None if searcher is None else searcher.send_point)
            timings["capped_search"] = time.perf_counter() - t0
            record("capped search", lower=root_bound)
        arrivals()
        termination, failure = "optimal", ""
        if best["upper"] > best["lower"] + 1e-9 and ny and inst.protected.size:
            remaining = None if deadline is None else deadline - time.perf_counter()
            if remaining is not None and remaining <= 0:
                termination = "time_limit"
            else:
                t0 = time.perf_counter()
                try:
                    termination, lower, y = _run_scip(
                        inst, oracle, root_cuts, best["y"], time_limit=remaining, gap=gap,
                        verbose=verbose, record=record, stop_at=best["lower"],
                        objective_floor=floor, arrivals=arrivals if searcher else None,
                        points=None if searcher is None else searcher.send_point)
                    timings["branch_and_cut"] = time.perf_counter() - t0
                    record("scip", lower=lower, y=y)
                except SolverError as error:  # the incumbent and the bound still stand
                    log.warning("%s; the best pattern found before is returned", error)
                    termination, failure = "error", str(error)
    finally:
        if searcher is not None:
            searcher.stop()
            timings["search_process"] = searcher.seconds
    arrivals()  # what the search process sent last
    return _result(table, inst, oracle, best, termination, history, timings, started,
                   num_root_cuts=len(root_cuts), final_audit=final_audit, message=failure)


def _two_processes(processes: int | None, time_limit: float | None) -> bool:
    """Whether the searches get a process of their own: ``processes`` (default: the cores
    this process may use, up to 2) and a time limit of :data:`SEARCH_PROCESS_FROM` or
    more."""
    if processes is None:
        processes = min(2, available_processes())
    return processes >= 2 and time_limit is not None and time_limit >= SEARCH_PROCESS_FROM


def _start_search_process(inst, best, root_y, found, *, separation, time_limit, deadline,
                          support: bool) -> SearchProcess | None:
    """The LP-guided patterns and the searches of :func:`search_neighbourhoods` (the
    support neighbourhood only if ``support``) in a second process until the search's
    ``deadline``, the balls until the support neighbourhood's share of the time limit is
    left; None where no process starts (the caller then searches in turn)."""
    to_wall = time.time() - time.perf_counter()
    job = SearchJob(instance=inst, incumbent=best["y"], root_y=root_y, patterns=tuple(found),
                    lower_bound=best["lower"], separation=separation, solve=solve_branch_and_cut,
                    balls_until=deadline - _NEIGHBOURHOOD_SHARE * time_limit + to_wall,
                    until=deadline + to_wall, support=support)
    try:
        return SearchProcess(job)
    except (OSError, ValueError) as error:
        log.warning("no search process (%s): the searches run before the tree", error)
        return None


def network_heuristic(inst, oracle: CapacityOracle, deadline: float | None,
                      costs: np.ndarray | None = None) -> np.ndarray | None:
    """The SP heuristic's pattern (Almeida, Schütz & Carvalho 2008 §3.1) on the oracle's
    network under ``costs`` (per cell; default the weights), as ``y`` over the candidates:
    ``None`` on tables that are not networks or when the deadline stops it."""
    if oracle.network is None or not inst.protected.size:
        return None
    found = sp_heuristic(inst, costs=costs, arcs=cell_arcs(inst, "SP", oracle.network),
                         deadline=deadline)
    return None if found.stopped or found.failed else found.suppressed


def _result(table, inst, oracle, best, termination, history, timings, started, *,
            num_root_cuts: int, final_audit, message: str = "") -> SolveResult:
    suppressed, objective, checked = None, math.nan, None
    lower = best["lower"]
    if best["y"] is not None:
        suppressed = pattern_cells(inst, best["y"])
        objective = best["upper"]
        if final_audit is None:  # the judge's verdict, the pattern repaired if it must be
            y, checked, repaired = repair_interval_pattern(inst, best["y"], timings)
            if y is None:  # cannot be: everything protected before the search
                raise SolverError("the audit rejects suppressing every candidate, which it "
                                  "accepted before the search; please report this table")
            if repaired:
                suppressed, objective = pattern_cells(inst, y), float(inst.weights[
                    inst.candidates] @ y)
                message = "; ".join(filter(None, [message, repaired]))
        else:
            t0 = time.perf_counter()
            checked = final_audit(suppressed)
            timings["audit"] = time.perf_counter() - t0
    elif not inst.protected.size or not inst.candidates.size:
        suppressed, objective, lower = (), 0.0, 0.0
    timings["total"] = time.perf_counter() - started
    return SolveResult.build(
        method=f"bc(FS)/scip/{'network' if oracle.network is not None else 'lp'}",
        model="FS", termination=termination, lower_bound=lower, suppressed=suppressed,
        objective=objective, audit=checked,
        proof="mip" if "branch_and_cut" in timings else "lp", unsafe=inst.protected,
        safe=inst.safe, timings=timings, model_size=model_size(inst, oracle, num_root_cuts),
        history=history, message=message)


def _run_scip(inst, oracle, root_cuts, incumbent, *, time_limit, gap, verbose, record,
              stop_at: float, objective_floor: float = 0.0, arrivals=None, points=None):
    ny = inst.candidates.size
    model = new_scip("cspopt-bc", time_limit=time_limit, gap=gap, verbose=verbose)
    if stop_at > 0:  # an incumbent this cheap is optimal: the caller proved the bound
        model.setParam("limits/primal", stop_at + 1e-9 * max(1.0, stop_at))
    # presolve is safe with the handler's locks (1/2 the time on GenSup I 50x50); a restart
    # would re-create the variables the handler holds
    model.setParam("presolving/maxrestarts", 0)
    # capacity rows often leave a node's LP value unchanged for a round before they lift
    # it; SCIP's default (one stalled round, then branch) branched on weak node bounds
    # (docs/bench/history.md: 21 % less time over 13 GenSup tables, nodes 67 -> 18 on
    # GenSup I 50x50 seed 1); where a round costs attacker LPs, branching sooner pays
    model.setParam("separating/maxstallrounds", _NODE_STALL_ROUNDS
                   if oracle.network is not None else _LP_NODE_STALL_ROUNDS)
    # a check costs attacker problems: SCIP need not check solutions its heuristics and
    # strong branching find that could not become the incumbent (GenSup I 40x40 seed 1 had
    # 357 checks for 3 improvements; 19 GenSup and Smith tables 349 s -> 291 s)
    model.setParam("misc/improvingsols", True)
    # SCIP's strong dual reductions (which may cut off optima as long as one is kept) reason
    # from the rows it sees, not from capacity rows separated later: even with the
    # handler's locks they fixed y to 0 and cut off optimal patterns (fuzz tables fz_2d_298,
    # fz_2d_256). Weak ones (reduced-cost and objective propagation) cut off only points
    # worse than a bound of a relaxation, which stays valid as rows are added: kept, they
    # prove Smith 30x30 in 24 s instead of 0.03 % left at 240 s (docs/bench/history.md)
    model.setParam("misc/allowstrongdualreds", False)
    y_lower, y_upper = inst.candidate_bounds()
    y = model.addMatrixVar((ny,), name="y", vtype="B", lb=y_lower, ub=y_upper,
                           obj=inst.weights[inst.candidates].astype(float))
    for i, j in zip(*(p.tolist() for p in inst.linked_pairs())):
        model.addCons(y[i] == y[j])  # a deviation class is suppressed whole
    for cut in root_cuts:
        terms = zip(cut.candidates.tolist(), cut.coefficients.tolist())
        model.addCons(quicksum(float(a) * y[j] for j, a in terms) >= cut.rhs, removable=True)
    if objective_floor > 0:  # a proven bound the capacity rows do not imply
        model.addCons(quicksum(float(w) * v for w, v in zip(
            inst.weights[inst.candidates].tolist(), y)) >= objective_floor)
    handler = _CapacityHandler(oracle, y, points)
    model.includeConshdlr(handler, "capacity", "Fischetti-Salazar capacity constraints",
                          sepapriority=1000, enfopriority=-1, chckpriority=-1, sepafreq=1,
                          needscons=False)
    model.includeEventhdlr(_Progress(record, y), "progress", "reports bounds as they move")
    heuristic = _RoundAndPrune(oracle, handler, inst.weights[inst.candidates])
    model.includeHeur(heuristic, "roundprune", "round the LP point up, then delete-and-check", "R",
                      priority=-1000, freq=_HEURISTIC_FREQUENCY,
                      timingmask=SCIP_HEURTIMING.AFTERLPNODE)
    plugins = [handler, heuristic]
    if arrivals is not None:
        plugins.append(_Arrivals(arrivals, y))
        model.includeHeur(plugins[-1], "arrivals", "patterns from the search process", "A",
                          priority=100_000, freq=1, timingmask=SCIP_HEURTIMING.BEFORENODE
                          | SCIP_HEURTIMING.DURINGLPLOOP)
    if incumbent is not None:
        sol = model.createSol()
        for var, value in zip(y, incumbent.tolist()):
            model.setSolVal(sol, var, float(value))
        model.addSol(sol)
    try:
        model.optimize()
        failure = None
    except Exception as error:  # noqa: BLE001 - pyscipopt raises a bare Exception
        failure = error
    for plugin in plugins:
        if plugin.error is not None:  # SCIP itself reports only "unspecified error"
            raise SolverError(f"branch-and-cut failed inside SCIP: {plugin.error}") \
                from plugin.error
    if failure is not None:
        raise SolverError(f"SCIP failed: {failure}") from failure
    status = model.getStatus()
    termination = TERMINATION.get(status)
    if termination is None:
        raise SolverError(f"SCIP ended with status {status}")
    lower = model.getDualbound()
    found = None
    if model.getNSols() > 0:
        sol = model.getBestSol()
        found = np.round(np.asarray(model.getSolVal(sol, y), float))
    log.info("branch-and-cut: %s, %d nodes, %d cuts", status, model.getNNodes(), handler.num_cuts)
    weights = inst.weights[inst.candidates]
    lower = integral_bound(lower, weights) if math.isfinite(lower) else (
        math.inf if termination == "infeasible" else 0.0)
    return termination, lower, found if found is not None and ny else None


def _guarded(callback, fallback=SCIP_RESULT.DIDNOTRUN):
    """Keep an exception raised inside a SCIP callback, stop the solve, and let
    :func:`_run_scip` raise it (pyscipopt would only print it)."""
    def run(self, *args):
        if self.error is None:
            try:
                return callback(self, *args)
            except Exception as error:  # noqa: BLE001 - re-raised after optimize()
                self.error = error
                self.model.interruptSolve()
        return {"result": fallback}
    run.__name__, run.__doc__ = callback.__name__, callback.__doc__
    return run


def _key(y: np.ndarray) -> bytes:
    """A 0/1 point as a dictionary key."""
    return np.packbits(y > 0.5).tobytes()


class _CapacityHandler(Conshdlr):
    """SCIP constraint handler: capacity constraints separated and enforced on demand."""

    def __init__(self, oracle: CapacityOracle, variables, points=None):
        self.oracle = oracle
        self.points = points  # called with each LP point separated (the search process's)
        self.variables = variables
        self._transformed = None
        self.num_cuts = 0
        self._verdicts: dict[bytes, bool] = {}  # SCIP checks the same 0/1 point repeatedly
        # flows settle every cell of a 2-D table at once: a partial round saves nothing there
        self._batch = None if oracle.network is not None else _SEPARATION_BATCH
        self.error: Exception | None = None

    def _protects(self, y: np.ndarray) -> bool:
        """Exact verdict on a 0/1 point, remembered (the oracle itself reuses proofs)."""
        verdict = self._verdicts.get(_key(y))
        if verdict is None:
            verdict = self.oracle.protects(y)
            self._remember(y, verdict)
        return verdict

    def _remember(self, y: np.ndarray, verdict: bool) -> None:
        if len(self._verdicts) > 100_000:
            self._verdicts.clear()
        self._verdicts[_key(y)] = verdict

    def _vars(self):
        if self._transformed is None:
            self._transformed = [self.model.getTransformedVar(v) for v in self.variables]
        return self._transformed

    def _lp_values(self) -> np.ndarray:
        return np.array([v.getLPSol() for v in self._vars()])

    def _solution_values(self, solution) -> np.ndarray:
        """Rounded values in ``solution`` (None: the current LP or pseudo solution)."""
        return np.round(np.asarray(self.model.getSolVal(solution, self.variables), float))

    def _add(self, cuts, *, force: bool) -> bool:
        """Add rows; True if one is infeasible at the node (the node can be cut off)."""
        tvars = self._vars()
        infeasible = False
        for cut in cuts:
            row = self.model.createEmptyRowUnspec(name=f"cap{self.num_cuts}", lhs=cut.rhs,
                                                  rhs=None, local=False, removable=True)
            self.model.cacheRowExtensions(row)
            for j, a in zip(cut.candidates.tolist(), cut.coefficients.tolist()):
                self.model.addVarToRow(row, tvars[j], a)
            self.model.flushRowExtensions(row)
            infeasible |= bool(self.model.addCut(row, forcecut=force))
            self.model.addPoolCut(row)
            self.model.releaseRow(row)
            self.num_cuts += 1
        return infeasible

    @_guarded
    def conssepalp(self, constraints, nusefulconss):
        y = self._lp_values()
        if self.points is not None:
            self.points(y)
        _, cuts = self.oracle.separate(y, stop_after=self._batch)
        if not cuts:
            return {"result": SCIP_RESULT.DIDNOTFIND}
        if self._add(cuts, force=False):
            return {"result": SCIP_RESULT.CUTOFF}
        return {"result": SCIP_RESULT.SEPARATED}

    @_guarded
    def consenfolp(self, constraints, nusefulconss, solinfeasible):
        y = self._solution_values(None)
        if self._verdicts.get(_key(y)):
            return {"result": SCIP_RESULT.FEASIBLE}
        protected, cuts = self.oracle.separate(y, decide=True)  # with cuts, unlike _protects
        self._remember(y, protected)
        if protected:
            return {"result": SCIP_RESULT.FEASIBLE}
        if cuts:
            if self._add(cuts, force=True):
                return {"result": SCIP_RESULT.CUTOFF}
            return {"result": SCIP_RESULT.SEPARATED}
        return {"result": SCIP_RESULT.INFEASIBLE}

    @_guarded
    def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
        protected = self._protects(self._solution_values(None))
        return {"result": SCIP_RESULT.FEASIBLE if protected else SCIP_RESULT.SOLVELP}

    @functools.partial(_guarded, fallback=SCIP_RESULT.INFEASIBLE)
    def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason,
                  completely):
        protected = self._protects(self._solution_values(solution))
        return {"result": SCIP_RESULT.FEASIBLE if protected else SCIP_RESULT.INFEASIBLE}

    def conslock(self, constraint, locktype, nlockspos, nlocksneg):
        # a capacity row asks only for more suppression: rounding y down may break it
        for var in self.variables if self.model.getStage() == 1 else self._vars():
            self.model.addVarLocksType(var, locktype, nlockspos, nlocksneg)


def _try_pattern(heuristic: Heur, variables, y: np.ndarray) -> bool:
    """Offer SCIP the 0/1 point ``y`` as ``heuristic``'s solution, in the original space
    (presolve may have fixed some ``y``); True if SCIP accepts it."""
    sol = heuristic.model.createOrigSol(heuristic)
    for var, value in zip(variables, y.tolist()):
        heuristic.model.setSolVal(sol, var, value)
    return bool(heuristic.model.trySol(sol))


class _RoundAndPrune(Heur):
    """Fischetti & Salazar's node heuristic, simplified: suppress every cell the LP point
    uses, then drop cells in increasing LP value while everything stays protected. The LP
    point satisfies the capacity cuts found so far, so rounding it up usually protects.
    After a call that finds nothing it backs off: it runs again 1, 2, 4, 8, ... calls after
    its last success (a delete-and-check costs a check per suppressed cell, and most calls
    deep in the tree find nothing: 2 of 93 on a 119-cell 1H2D survey table, 8.9 s of 16.9)."""

    def __init__(self, oracle: CapacityOracle, handler: _CapacityHandler, weights):
        self.oracle, self.handler, self.weights = oracle, handler, weights
        self.error: Exception | None = None
        self.calls = self.last_success = 0

    @_guarded
    def heurexec(self, heurtiming, nodeinfeasible):
        self.calls += 1
        since = self.calls - self.last_success
        if since & (since - 1):  # not a power of two
            return {"result": SCIP_RESULT.DIDNOTRUN}
        y_lp = np.clip(self.handler._lp_values(), 0.0, 1.0)
        rounded = (y_lp > 1e-6).astype(float)
        best = self.model.getPrimalbound()
        # pruning from far above the incumbent rarely beats it and costs a check per cell
        if self.weights @ rounded > 2 * best or not self.handler._protects(rounded):
            return {"result": SCIP_RESULT.DIDNOTFIND}
        pruned = self.oracle.prune(rounded, np.lexsort((-self.weights, y_lp)))
        if self.weights @ pruned >= best - 1e-9:
            return {"result": SCIP_RESULT.DIDNOTFIND}
        accepted = _try_pattern(self, self.handler.variables, pruned)
        if accepted:
            self.last_success = self.calls
        return {"result": SCIP_RESULT.FOUNDSOL if accepted else SCIP_RESULT.DIDNOTFIND}


class _Arrivals(Heur):
    """Hand SCIP the search process's patterns (checked by ``arrivals``) at every node and
    separation round."""

    def __init__(self, arrivals, variables):
        self.arrivals, self.variables = arrivals, variables
        self.error: Exception | None = None

    @_guarded
    def heurexec(self, heurtiming, nodeinfeasible):
        result = SCIP_RESULT.DIDNOTFIND
        for y in self.arrivals():
            if _try_pattern(self, self.variables, y):
                result = SCIP_RESULT.FOUNDSOL
        return {"result": result}


class _Progress(Eventhdlr):
    """Report SCIP's dual bound and incumbent when either moves."""

    def __init__(self, record, variables):
        self.record = record
        self.variables = variables

    def eventinit(self):
        self.model.catchEvent(SCIP_EVENTTYPE.NODESOLVED | SCIP_EVENTTYPE.BESTSOLFOUND, self)

    def eventexec(self, event):
        m = self.model
        lower = m.getDualbound()
        y = None
        if event.getType() == SCIP_EVENTTYPE.BESTSOLFOUND:
            sol = m.getBestSol()
            y = np.round(np.asarray(m.getSolVal(sol, self.variables), float))
        self.record("scip", lower=lower if math.isfinite(lower) else None, y=y)
        return {}

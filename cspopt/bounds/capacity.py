"""The capacity LP bound of interval protection: the projected model's LP by cutting planes.

Fischetti & Salazar-Gonzalez (2001): the compact model projected onto the suppression
variables ``y`` has one capacity constraint per attacker dual solution
(:mod:`cspopt.models.interval.capacity`). Its LP relaxation, over the strengthened
(coefficient-capped) cuts, is the interval branch-and-cut's root bound and cspopt's interval
bound oracle (``cspopt bound``).
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Callable

import numpy as np

from cspopt.backends.highs import dual_bound
from cspopt.bounds.single_cell import (
    SINGLE_CELL_SECONDS,
    dominant_cell,
    quiet_single_cell_bound,
)
from cspopt.bounds.star_cuts import star_bound
from cspopt.budget import Budget
from cspopt.models.interval import (
    CapacityCut,
    CapacityOracle,
    IntervalInstance,
    add_cut_rows,
    build_interval_instance,
    capacity_master,
)
from cspopt.models.interval.separators import Separator, root_separators
from cspopt.options import check_limits
from cspopt.result import SolveResult, integral_bound

__all__ = ["capacity_lp", "capacity_bound", "model_size", "tails_off"]


#: a root loop that ``tail_off`` stops: after _TAIL_SECONDS, once the last _TAIL_WINDOW of
#: its time raised the master's value by less than _TAIL_GAIN of it
_TAIL_SECONDS = 10.0
_TAIL_WINDOW = 0.2
_TAIL_GAIN = 0.01


def capacity_lp(inst: IntervalInstance, oracle: CapacityOracle, *,
                separators: list[Separator] | None = None, budget: Budget | None = None,
                core=None, max_rounds: int = 1000, cuts: list[CapacityCut] = (),
                tail_off: bool = False, points: Callable[[np.ndarray], None] | None = None):
    """The LP relaxation of the projected model by stabilised cutting planes on HiGHS.

    Kelley's loop tails off on Benders cuts, so cuts are separated at a point between the
    master's optimum ``y*`` and a feasible *core* point (in-out separation, Ben-Ameur & Neto
    2007): when nothing is violated there the core moves to it and ``y*`` itself is
    separated. ``core`` defaults to suppressing every candidate.

    ``separators`` (default :func:`~cspopt.models.interval.separators.root_separators`: the
    exact capacity cuts, then the bridgeless ones) are tried in turn at the master's point
    until one finds cuts; the first also separates the in-out probes. On tables that are not
    networks, once no capacity cut is violated, the bridgeless separator finds the oracle's
    bridgeless cuts (:meth:`CapacityOracle.bridgeless_cuts`, valid
    for the optimum, not for every pattern) and goes on while it finds some.
    ``tail_off=True`` stops the loop once it tails off (after ``_TAIL_SECONDS``, less than
    ``_TAIL_GAIN`` of gain over the last ``_TAIL_WINDOW`` of its time), for a caller whose
    own separation goes on (the branch-and-cut: SCIP's root lifts the bound faster then; a
    master can sit at one value for hundreds of rounds).

    ``root_separators(oracle, capped_search=True)`` looks for cuts with the attacker's moves
    capped at the requirement first, and with the exact attacker LPs only where that finds
    none (:meth:`CapacityOracle.separate`; tables that are not networks): the loop then
    converges where it crept with a-priori rooms far above the requirements. The bound
    oracle uses it; the branch-and-cut only before its tree, once its root loop has tailed
    off unconverged or in its bridgeless phase (the patterns its searches build from the
    other root point are better).

    ``points``: called with each master's point (a search process's guide). ``budget``: the
    loop stops when it expires (its round cut short proves nothing).

    ``cuts``: cuts found earlier, the master's first rows; without them the first master
    holds the single-relation cuts of :meth:`CapacityOracle.relation_cuts` (tables that are
    not networks) and the single-relation bridgeless cuts of
    :meth:`CapacityOracle.relation_bridgeless_cuts`.

    Returns ``(bound, y, cuts, converged)``: the last master's value (a valid lower bound at
    every round, since the master relaxes the projected LP; taken from its duals by
    :func:`cspopt.backends.highs.dual_bound`), its point, every cut (those given first), and
    whether separation at ``y*`` found nothing more (then, without bridgeless cuts,
    ``bound`` is the projected LP's value, at least the compact model's LP bound, equal to it
    without coefficient capping; with an oracle focused on candidate sets, the value of the
    LP over their cuts only).
    """
    started = time.perf_counter()
    budget = budget or Budget()
    separators = root_separators(oracle) if separators is None else separators
    ny = inst.candidates.size
    # a first master of single-relation cuts where separation does not cap rooms, and of
    # single-relation bridgeless cuts (both: tables that are not networks)
    cuts = list(cuts) or oracle.relation_cuts() + oracle.relation_bridgeless_cuts()
    # deviation classes are suppressed whole (models.interval.linked)
    master = capacity_master(inst, cuts)
    everything = inst.candidate_bounds()[1]
    core = everything if core is None else np.asarray(core, float)
    y, converged = np.zeros(ny), False
    times: list[float] = []
    values: list[float] = []
    for round_ in range(max_rounds):
        master.run()
        y = np.clip(np.asarray(master.getSolution().col_value), 0.0, 1.0)
        if points is not None:
            points(y)
        times.append(time.perf_counter() - started)
        values.append(master.getInfo().objective_function_value)
        if tail_off and tails_off(times, values):
            break
        # when the budget expires the oracle stops its round with the cuts found so far (a
        # round of ~220 attacker LPs took 17-35 s on the largest CSPLIB tables), which proves
        # nothing
        probe = 0.5 * (y + core)
        found = separators[0].separate(probe, budget)
        if budget.expired():
            pass  # the round was cut short: its cuts count, its silence does not
        elif found and not any(cut.activity(y) < cut.rhs - 1e-9 for cut in found):
            # cuts at the probe that spare y* show that the core violates them: it moved to
            # a probe where the attacker LPs, a search, found nothing (their capped moves,
            # LPAttacker.side). Suppressing everything meets every cut; y* next.
            core = everything
            found += separators[0].separate(y, budget)
        elif not found:
            core = probe  # no cut found there: the core moves in
            found = _first_cuts(separators, y, budget)
            if not found and not budget.expired():
                converged = True
                break
        cuts += found
        if budget.expired() or round_ == max_rounds - 1:
            break
        add_cut_rows(master, found)
    # from the last solve's duals (its rows are the master's): valid however accurately
    # HiGHS met its tolerances, so the integral rounding of the callers stays honest
    return max(dual_bound(master), 0.0), y, cuts, converged


def _first_cuts(separators: list[Separator], y: np.ndarray, budget: Budget
                ) -> list[CapacityCut]:
    """The cuts of the first separator that finds some at ``y`` (none once the budget
    expires)."""
    for separator in separators:
        found = separator.separate(y, budget)
        if found or budget.expired():
            return found
    return []


def tails_off(times: list[float], values: list[float]) -> bool:
    """Whether the master's value rose by less than ``_TAIL_GAIN`` of itself over the last
    ``_TAIL_WINDOW`` of the loop's time, once it has run ``_TAIL_SECONDS``."""
    if times[-1] < _TAIL_SECONDS:
        return False
    before = bisect.bisect_right(times, (1 - _TAIL_WINDOW) * times[-1]) - 1
    return before >= 0 and values[-1] - values[before] < _TAIL_GAIN * abs(values[-1])


def capacity_bound(table, *, time_limit: float | None = None, weights=None, must_publish=None,
                   preprocessing: bool = True, separation: str = "auto") -> SolveResult:
    """The root bound of :func:`solve_branch_and_cut` alone: :func:`capacity_lp`, no pattern.

    Capacity cuts with coefficients capped at the requirement are valid for binary ``y``
    only, so this LP is a relaxation of the interval problem, not of the compact model, and
    often much stronger than the compact model's LP bound where the rooms are not capped
    (models/FS.md). Where one sensitive cell
    carries most of that LP (:func:`~cspopt.bounds.single_cell.dominant_cell`) once the loop
    tails off, its star cuts (:func:`~cspopt.bounds.star_cuts.star_bound`, 2-D tables) and
    its own MIP (:func:`~cspopt.bounds.single_cell.single_cell_bound`) run for the time left
    (at most ``SINGLE_CELL_SECONDS`` without a limit), then the loop again, and the largest
    bound counts. Under
    integer weights it is rounded up. Stopped by ``time_limit``, the master's value is still
    valid (``termination="time_limit"``). ``status`` is ``bound_only`` (``infeasible`` if
    suppressing every candidate does not protect).
    """
    check_limits(time_limit=time_limit)
    budget = Budget(time_limit)
    inst = build_interval_instance(table, weights=weights, must_publish=must_publish,
                                   preprocessing=preprocessing)
    oracle = CapacityOracle(inst, method=separation)
    separators = root_separators(oracle, capped_search=True)
    ny = inst.candidates.size
    termination, lower, num_cuts = "optimal", 0.0, 0
    if not oracle.protects(np.ones(ny)):
        termination, lower = "infeasible", math.inf
    elif ny and inst.protected.size:
        # the loop first runs until it tails off, so that one cell's star cuts and own MIP get time
        # where they bound better (cspopt.bounds.single_cell); then it goes on with the time
        # left
        root, _, cuts, converged = capacity_lp(inst, oracle, budget=budget, tail_off=True,
                                               separators=separators)
        single_cell = budget.within(SINGLE_CELL_SECONDS if time_limit is None else None)
        cell = dominant_cell(inst, cuts) if not single_cell.expired() else None
        if cell is not None:
            star = star_bound(inst, cell, time_limit=single_cell.time_limit())
            left = single_cell.remaining()
            single = (quiet_single_cell_bound(inst, cell, time_limit=single_cell.time_limit())
                      if left > 0 else None)
            root = max([root] + [one.lower_bound for one in (star, single) if one is not None])
        if not converged and not budget.expired():
            more, _, cuts, converged = capacity_lp(inst, oracle, cuts=cuts, budget=budget,
                                                   separators=separators)
            root = max(root, more)
        termination, num_cuts = ("optimal" if converged else "time_limit"), len(cuts)
        lower = integral_bound(root, inst.weights[inst.candidates])
    elapsed = budget.elapsed()
    return SolveResult.build(
        method=f"lp(capacity)/highs/{'network' if oracle.network is not None else 'lp'}",
        model="FS", termination=termination, lower_bound=lower, bound_only=True,
        unsafe=inst.protected, safe=inst.safe, timings=dict(root_lp=elapsed, total=elapsed),
        model_size=model_size(inst, oracle, num_cuts),
        history=(dict(iteration=0, time=elapsed, lower_bound=float(lower),
                      upper_bound=math.inf, phase="root lp"),))


def model_size(inst: IntervalInstance, oracle: CapacityOracle, num_root_cuts: int) -> dict:
    return dict(candidates=int(inst.candidates.size), protected=int(inst.protected.size),
                root_cuts=num_root_cuts, attacker_lps=oracle.num_lp_solves,
                max_flows=oracle.num_flow_solves)

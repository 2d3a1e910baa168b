"""The seed papers' heuristics, and cspopt's capped single-cell MIPs
(:mod:`cspopt.heuristics.capped`), as solving methods: an audited pattern, never a proof.

A heuristic of :mod:`cspopt.heuristics` finds a pattern on the instance's arrays; here it
becomes a :class:`~cspopt.result.SolveResult` like every method's. Where the heuristic's own
rules leave a cell unprotected, the result says so (termination ``method_failed``, the cells
in ``message``) and carries no pattern. A pattern that protects by the heuristic's reckoning
but not by the capacity oracle's exact check (sliding protection, which the papers' methods
ignore) is completed by the incremental attacker (Smith et al. 2012), and ``message`` says
so. ``clean=True`` runs delete-and-check (Almeida, Schütz & Carvalho 2008 §5) on it;
``certify=True`` adds cspopt's capacity LP bound (the branch-and-cut's root), so that the
gap is a certificate. Every pattern passes :func:`cspopt.audit` before it is returned.
"""

from __future__ import annotations

import numpy as np

from cspopt.bounds.capacity import capacity_lp
from cspopt.bounds.lines import line_bound
from cspopt.budget import Budget
from cspopt.errors import InputError
from cspopt.methods import METHOD_TABLE, shape_refusal
from cspopt.models.interval import CapacityOracle, build_interval_instance
from cspopt.options import AUDIT_SHARE, OPTIONS, check_limits, check_options
from cspopt.result import SolveResult, integral_bound
from cspopt.solving.audited import (
    interval_result,
    no_pattern_message,
    repair_interval_pattern,
    start_point,
    unprotectable,
)

__all__ = ["HEURISTICS", "RANDOMISED", "solve_heuristic"]

#: the heuristics :func:`solve_heuristic` runs, by method name (:data:`cspopt.methods.METHOD_TABLE`)
HEURISTICS = {m.name: m.load() for m in METHOD_TABLE if m.heuristic}
#: the options some heuristics take (:data:`cspopt.options.OPTIONS` says which)
_METHOD_OPTIONS = ("seed", "operator", "groups")
#: the randomised ones, which take ``seed``
RANDOMISED = frozenset(m.name for m in METHOD_TABLE if m.randomised)
#: the ones that start from the capacity LP's point (``lp_point``), whose bound they report
LP_GUIDED = frozenset(m.name for m in METHOD_TABLE if m.lp_guided)
#: share of the time limit the LP of an LP-guided heuristic may take
_LP_SHARE = 0.25


def solve_heuristic(table, *, method: str = "castro", time_limit: float | None = None,
                    clean: bool = False, certify: bool = False, seed: int = 0,
                    operator: str = "adaptive", groups: int | None = None, weights=None,
                    must_publish=None, preprocessing: bool = True,
                    start=None) -> SolveResult:
    """Run the heuristic ``method`` (:data:`HEURISTICS`) for interval protection.

    The lower bound is the line bound (:func:`cspopt.bounds.lines.line_bound`, Kelly et al.
    1992 as improved by Castro 2007), or the capacity LP's where the method starts from its
    point (:data:`LP_GUIDED`, stopped at a quarter of the time limit); ``certify`` runs
    that LP to the time limit (a valid value wherever it stops). ``seed`` drives the
    randomised methods (:data:`RANDOMISED`); ``operator`` and ``groups`` Smith et al.'s
    order searches (``ga``, ``ls``). ``start`` (cell ids of a protecting pattern, e.g.
    another tool's) is the first incumbent: cleaned with the heuristic's pattern where
    ``clean``, the cheaper of the two is returned. Statuses follow the contract of
    every solve: ``optimal`` only where that bound meets the cost.
    """
    check_limits(time_limit=time_limit)
    budget = Budget(time_limit)
    check_options(dict(seed=seed, operator=operator, groups=groups))
    refusal = shape_refusal(method, table)
    if refusal:
        raise InputError(refusal)
    # the final audit always runs: the search keeps a share of the limit for it
    search = budget.opening(1 - AUDIT_SHARE)
    inst = build_interval_instance(table, weights=weights, must_publish=must_publish,
                                   preprocessing=preprocessing)
    timings = budget.timings
    name = f"heuristic({method})"
    if not inst.protected.size:  # the sensitive cells protect each other
        return interval_result(inst, budget, method=name, termination="optimal",
                               lower_bound=0.0, y=np.zeros(inst.candidates.size))
    oracle = CapacityOracle(inst)
    weights_y = inst.weights[inst.candidates]
    given_start = None if start is None else start_point(inst, oracle, start)
    timings["preprocessing"] = budget.elapsed()
    given = dict(seed=seed, operator=operator, groups=groups)
    options = {name: given[name] for name in _METHOD_OPTIONS
               if method in OPTIONS[name].methods}
    converged = False
    lower = integral_bound(line_bound(inst), weights_y)
    if method in LP_GUIDED:
        with budget.phase("bound"):
            bound, options["lp_point"], _, converged = capacity_lp(
                inst, oracle, budget=budget.opening(_LP_SHARE))
        lower = max(lower, integral_bound(bound, weights_y))
    with budget.phase("heuristic"):
        found = HEURISTICS[method](inst, budget=search, **options)
    notes = ["stopped at the time limit"] if found.stopped else []
    y = found.suppressed
    if found.failed:
        hopeless = unprotectable(inst)
        if hopeless:  # no method could: the answer the exact methods give
            return _no_pattern(name, table, inst, hopeless, budget)
        failure = f"{method} could not protect " + ", ".join(
            f"{table.describe(c)} ({side} protection)" for c, side in found.failed)
        if given_start is None:
            return interval_result(inst, budget, method=name, termination="method_failed",
                                   lower_bound=lower, message=failure)
        y = given_start  # the first incumbent stands
        notes.append(f"{failure}: the start pattern is returned")
    # the judge's verdict, and the completion where the heuristic stopped short (the
    # budget's end, or sliding protection, which the papers' methods ignore); the audit's LPs
    # that push many cells at once settle a protecting pattern in a few solves
    y, checked, repaired = repair_interval_pattern(inst, y, timings, budget=search)
    if y is None:  # some cell no pattern protects
        return _no_pattern(name, table, inst, checked.exposed, budget)
    notes += [repaired] if repaired else []
    if clean:
        with budget.phase("clean"):
            y, before = _pruned(oracle, y, weights_y, search), y
            checked = checked if np.array_equal(y, before) else None
            if given_start is not None:
                given_start = _pruned(oracle, given_start, weights_y, search)
    if given_start is not None and weights_y @ given_start < weights_y @ y - 1e-9:
        y, checked = given_start, None
        notes.append("the start pattern was cheaper than the heuristic's")
    if certify and not converged:
        with budget.phase("bound"):
            bound = capacity_lp(inst, oracle, budget=search)[0]
        lower = max(lower, integral_bound(bound, weights_y))
    if checked is None:  # the pattern changed since its audit
        y, checked, repaired = repair_interval_pattern(inst, y, timings)
        if y is None:
            return _no_pattern(name, table, inst, checked.exposed, budget)
        notes += [repaired] if repaired else []
    objective = float(weights_y @ y)
    return interval_result(
        inst, budget, method=name,
        termination="optimal" if lower >= objective - 1e-9 else (
            "time_limit" if found.stopped else "finished"),
        lower_bound=lower, y=y, audit=checked,
        proof="lp" if certify or method in LP_GUIDED else "",
        model_size=dict(candidates=int(inst.candidates.size),
                        protected=int(inst.protected.size), paths=found.num_paths),
        history=(dict(iteration=0, time=budget.elapsed(), lower_bound=lower,
                      upper_bound=objective, phase=method),),
        message="; ".join(notes))


def _no_pattern(name, table, inst, cells, budget: Budget) -> SolveResult:
    """The answer where no pattern exists (``cells`` stay exposed with everything
    suppressed), as the exact methods give it."""
    return interval_result(inst, budget, method=name, termination="infeasible",
                           lower_bound=np.inf, message=no_pattern_message(table, cells))


def _pruned(oracle, y, weights_y, budget: Budget) -> np.ndarray:
    """Delete-and-check of ``y``, dearest first, where the oracle finds it protecting within
    ``budget`` (the judge may accept a pattern the oracle's tolerance refutes: kept whole)."""
    if not oracle.protects(y, budget):
        return y
    return oracle.prune(y, np.argsort(-weights_y, kind="stable"), budget)

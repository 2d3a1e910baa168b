"""Certified solving, bounding and gap certification (issue #4).

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
   cut, :mod:`cspopt.formulations.cutset`), by branch-and-cut in SCIP: it proves the tables
   that the compact MIP on HiGHS left open, in a fraction of the time. The paper also added
   the bounds as constraints, which helped CPLEX. With HiGHS they slowed the compact MIP
   down, so ``solve_exact(objective_floor=...)`` offers that as an option only. The
   branch-and-cut gets the Lagrangian bound instead as a proven bound: it starts from it and
   stops at the first incumbent that meets it (SCIP's primal limit), which saves the search
   where SCIP's own bound stays lower, as it can for (P_N). On the 16 design tables up to
   60x60 that reach this stage it changed nothing measurable (7.3 s and 7.2 s for their
   branch-and-cut phases): there the root LP closes the gap by itself.

Every incumbent passes the independent audit before it is returned.
"""

from __future__ import annotations

import inspect
import logging
import math
import time
from collections.abc import Callable, Iterable
from functools import partial

import numpy as np

from cspopt.errors import InputError
from cspopt.formulations.cutset import solve_cutset
from cspopt.formulations.instance import build_instance
from cspopt.formulations.solve import audit_pattern, choose_model, solve_exact
from cspopt.lagrangian import (LagrangianState, Multipliers, PathOracle, cutting_plane,
                               exclusion_search, path_heuristic, subgradient)
from cspopt.options import INTERVAL_OPTIONS, check_limits
from cspopt.result import SolveResult, integral_bound, relative_gap
from cspopt.table import candidate_mask, suppression_options

__all__ = ["solve", "bound", "certify", "METHODS", "DUALS"]

log = logging.getLogger(__name__)

METHODS = ("auto", "lagrangian", "mip", "branch-and-cut")
#: Lagrangian dual methods: the volume and the Held-Wolfe-Crowder subgradient rules, and
#: the stabilised cutting-plane (Dantzig-Wolfe) method.
DUALS = ("volume", "subgradient", "cutting-plane")


def _instance(table, model, options):
    model = choose_model(table, model)
    return build_instance(table, model, **options)


def _non_defaults(**arguments) -> list[str]:
    """The names of ``arguments`` that differ from :func:`solve`'s defaults, sorted."""
    defaults = inspect.signature(solve).parameters
    return sorted(k for k, v in arguments.items()
                  if ((v is not None) if defaults[k].default is None
                      else v != defaults[k].default))


def _refuse_lagrangian_options(method, **lagrangian) -> None:
    """Options of the Lagrangian are refused, naming them, where another method runs."""
    given = _non_defaults(**lagrangian)
    if given:
        raise InputError(f"{', '.join(given)}: for the Lagrangian (method 'lagrangian' or "
                         f"'auto'), not method {method!r}")


def _run_dual(oracle, dual, *, multipliers, incumbent, max_iterations, time_limit, started,
              progress) -> LagrangianState:
    if dual not in DUALS:
        raise InputError(f"dual must be one of {DUALS}, not {dual!r}")
    if dual == "cutting-plane":
        run = cutting_plane
    else:
        run = partial(subgradient, rule="volume" if dual == "volume" else "held-wolfe-crowder")
    return run(oracle, multipliers=multipliers, incumbent=incumbent,
               max_iterations=max_iterations, time_limit=time_limit, started=started,
               on_iteration=progress)


def resolve_protection(table, protection: str) -> str:
    """``"exact"`` or ``"interval"``; ``"auto"`` is interval when sensitive cells carry
    protection levels (lpl/upl/spl)."""
    if protection == "auto":
        return "interval" if table.has_interval_protection else "exact"
    if protection not in ("exact", "interval"):
        raise InputError(f"protection must be 'auto', 'exact' or 'interval', not {protection!r}")
    return protection


def _start_mask(inst, cells) -> np.ndarray:
    """A start pattern as a candidate mask, after the exact audit of the instance."""
    mask = candidate_mask(inst.table, inst.candidates, cells, "the start pattern")
    checked = audit_pattern(inst, _pattern(inst, mask))
    if not checked.protected:
        raise InputError(f"the start pattern exposes sensitive cells {list(checked.exposed)}")
    return mask


def _pattern(inst, mask) -> tuple[int, ...]:
    return tuple(sorted(int(c) for c in inst.candidates[mask])) if mask is not None else ()


def solve(
    table,
    *,
    method: str = "auto",
    protection: str = "auto",
    model: str = "auto",
    dual: str = "volume",
    time_limit: float | None = None,
    max_iterations: int = 200,
    multipliers: Multipliers | np.ndarray | None = None,
    start: Iterable[int] | None = None,
    solver: str = "highs",
    gap: float = 1e-6,
    threads: int | None = None,
    verbose: bool = False,
    progress: Callable[[dict], None] | None = None,
    instance=None,
    **options,
) -> SolveResult:
    """Solve the cell suppression problem with a certificate.

    Parameters
    ----------
    table : Table
        A 2-D (network) table for exact disclosure; any linear table for protection
        intervals.
    method : {"auto", "lagrangian", "mip", "branch-and-cut"}
        ``lagrangian``: heuristic + Lagrangian dual only; ``mip``: the compact MIP only
        (:func:`cspopt.solve_exact`, on ``solver`` with ``threads``); ``branch-and-cut``:
        the branch-and-cut on ``x`` with cut-set constraints only
        (:func:`cspopt.formulations.cutset.solve_cutset`, SCIP); ``auto``: Lagrangian, then
        that branch-and-cut from the incumbent if a gap remains.
    protection : {"auto", "exact", "interval"}
        ``exact`` solves the exact-disclosure problem (the other parameters);
        ``interval`` the protection-interval problem by branch-and-cut
        (:func:`cspopt.branch_and_cut.solve_branch_and_cut`; ``method`` ``auto``, ``mip``
        for the compact model). ``auto`` (default, as in :func:`certify` and the CLI) picks
        ``interval`` when sensitive cells carry protection levels: a pattern that only
        stops exact disclosure can leave a cell inside its protection interval.
    model : {"auto", "P", "PN"}
    dual : {"volume", "subgradient", "cutting-plane"}
        How the Lagrangian dual is maximised: the volume algorithm, the Held-Wolfe-Crowder
        subgradient rule, or the stabilised cutting-plane method.
    time_limit : float, optional
        Seconds for the whole call.
    max_iterations : int
        Lagrangian iterations.
    multipliers : Multipliers or ndarray, optional
        Warm start: ``result.multipliers`` of an earlier call on the same instance (the
        Lagrangian goes on from its steps' point and reports at least its bound), or an
        array of multipliers (protected cells x candidates) to start from.
    start : iterable of int, optional
        A safe pattern (cell ids, e.g. another tool's) to start from, for every method: the
        first incumbent of the Lagrangian (when cheaper than the heuristic's, and after the
        same exclusion search) and the branch-and-cut's or MIP's start. A pattern that
        does not protect every sensitive cell is an :class:`InputError`.
    progress : callable(dict), optional
        Called with each history record (``iteration``, ``time``, ``lower_bound``,
        ``upper_bound``).
    instance : ExactInstance, optional
        A prebuilt instance (its options then replace ``model`` and ``options``).
    **options
        ``weights``, ``publish_totals``, ``publish_zeros``, ``must_publish``, ``tau``,
        ``preprocessing`` (see :func:`cspopt.formulations.instance.build_instance`).

    Returns
    -------
    SolveResult
        ``proof`` is ``"lagrangian"`` (in-proven), ``"branch-and-cut"`` or ``"mip"``
        (out-proven) or ``""`` (open, with the remaining ``gap``).
    """
    started = time.perf_counter()
    check_limits(options, time_limit=time_limit, gap=gap, threads=threads,
                 max_iterations=max_iterations)
    if resolve_protection(table, protection) == "interval":
        options = interval_options(table, options, model=model, dual=dual,
                                   max_iterations=max_iterations, multipliers=multipliers,
                                   solver=solver, threads=threads, instance=instance)
        return _solve_interval(table, method=method, time_limit=time_limit, gap=gap,
                               verbose=verbose, progress=progress, mip_start=start,
                               **options)
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}, not {method!r}")
    if time_limit is not None and not time_limit > 0:
        raise InputError(f"time_limit must be positive, got {time_limit}")
    if not max_iterations >= 1:
        raise InputError(f"max_iterations must be >= 1, got {max_iterations}")
    if method in ("mip", "branch-and-cut"):
        _refuse_lagrangian_options(method, dual=dual, max_iterations=max_iterations,
                                   multipliers=multipliers)
    if method == "mip":
        return solve_exact(table, model=model, solver=solver, time_limit=time_limit, gap=gap,
                           threads=threads, verbose=verbose, instance=instance,
                           mip_start=start, **options)
    if solver != "highs" or threads is not None:
        raise InputError("solver and threads choose how the compact MIP runs: they apply to "
                         "method='mip' only (the other methods use SCIP's branch-and-cut)")
    inst = instance if instance is not None else _instance(table, model, options)
    if method == "branch-and-cut":
        return solve_cutset(inst, time_limit=time_limit, gap=gap, verbose=verbose,
                            mip_start=start, progress=progress)
    oracle = PathOracle(inst)
    weights = inst.weights[inst.candidates]
    t0 = time.perf_counter()
    first = path_heuristic(oracle, weights)
    if start is not None:
        given = _start_mask(inst, start)
        if first is None or weights[given].sum() < weights[first].sum():
            first = given
    if first is not None:
        first = exclusion_search(oracle, first, weights)
    timings = {"heuristic": time.perf_counter() - t0}
    initial = dict(iteration=0, time=time.perf_counter() - started, lower_bound=0.0,
                   upper_bound=float(weights[first].sum()) if first is not None else math.inf,
                   phase="heuristic")

    def on_iteration(state):
        record = state.history[-1]
        if progress is not None:
            progress(record)
        log.debug("iteration %d  LB %.6g  UB %.6g  %.2f s", record["iteration"],
                 record["lower_bound"], record["upper_bound"], record["time"])

    t0 = time.perf_counter()
    state = _run_dual(oracle, dual, multipliers=multipliers, incumbent=first,
                      max_iterations=max_iterations, time_limit=time_limit, started=started,
                      progress=on_iteration)
    timings["lagrangian"] = time.perf_counter() - t0
    history = [initial] + list(state.history)
    lower = integral_bound(state.lower_bound, weights)
    pattern = _pattern(inst, state.incumbent)
    upper = state.upper_bound
    method_name = f"lagrangian({inst.model},{dual})"
    if state.termination == "infeasible":
        return SolveResult(method_name, "infeasible", "infeasible", (), math.nan, math.inf,
                           math.inf, False, "", inst.model, tuple(map(int, inst.protected_cells)),
                           tuple(map(int, inst.safe_cells)), _total(timings, started), {},
                           tuple(history), None, state.warm_start())
    termination, proof, checked = state.termination, "", None
    if math.isfinite(upper) and upper <= lower + 1e-9:
        termination, proof = "optimal", "lagrangian"
    elif method == "auto":
        # The gap is closed by the branch-and-cut on x (cutset.py), not by the compact MIP
        # (and no longer after the LP bound, which its root LP replaces). Measured on the
        # Table 2-4 design up to 50x50: all 280 tables proven, where the compact MIP left
        # 2 open in 30 s; set 2 unit weights 50x40: 1.6 s per table against 7.4 s.
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - started)
        if remaining is None or remaining > 0:
            offset, floor, ceiling = time.perf_counter() - started, lower, upper

            def combined(record):  # the live line shows the pipeline's bounds
                progress(dict(record, time=offset + record["time"],
                              lower_bound=max(floor, record["lower_bound"]),
                              upper_bound=min(ceiling, record["upper_bound"])))

            final = solve_cutset(inst, time_limit=remaining, gap=gap, verbose=verbose,
                                 mip_start=pattern if math.isfinite(upper) else None,
                                 progress=combined if progress is not None else None,
                                 lower_bound=lower)
            timings["branch_and_cut"] = final.timings.get("total", 0.0)
            method_name += "+" + final.method
            if final.status in ("optimal", "feasible") and final.objective < upper - 1e-9:
                pattern, upper, checked = final.suppressed, final.objective, final.audit
            lower = max(lower, final.lower_bound if math.isfinite(final.lower_bound) else lower)
            termination = final.termination
            if math.isfinite(upper) and upper <= lower + 1e-9:
                termination, proof = "optimal", "branch-and-cut"
            history.append(dict(iteration=len(history), time=time.perf_counter() - started,
                                lower_bound=lower, upper_bound=upper, phase="branch-and-cut"))
            if progress is not None:
                progress(history[-1])
    if checked is None and math.isfinite(upper):  # the branch-and-cut audits its own
        t0 = time.perf_counter()
        checked = audit_pattern(inst, pattern, method=method_name)
        timings["audit"] = time.perf_counter() - t0
    objective = float(weights[inst.x_index[list(pattern)]].sum()) if pattern else (
        0.0 if math.isfinite(upper) else math.nan)
    gap_value = relative_gap(objective, lower)
    status = ("optimal" if proof else "feasible") if checked is not None else "none"
    return SolveResult(
        method=method_name, termination=termination, status=status, suppressed=pattern,
        objective=objective, lower_bound=float(min(lower, objective) if checked else lower),
        gap=gap_value, proven_optimal=bool(proof), proof=proof, model=inst.model,
        unsafe=tuple(map(int, inst.protected_cells)), safe=tuple(map(int, inst.safe_cells)),
        timings=_total(timings, started),
        model_size=dict(protected=int(inst.protected_cells.size),
                        candidates=int(inst.candidates.size), arcs=int(inst.num_arcs),
                        dijkstra_calls=state.dijkstra_calls,
                        ms_per_path=round(1000 * state.dijkstra_seconds
                                          / max(state.dijkstra_calls, 1), 4)),
        history=tuple(history), audit=checked, multipliers=state.warm_start())


def interval_options(table, options: dict, **exact) -> dict:
    """``weights`` and ``must_publish`` for the interval methods (``publish_totals`` and
    ``publish_zeros`` become must-publish cells).

    ``exact`` are the caller's exact-disclosure arguments (named as in :func:`solve`):
    interval protection would ignore them, so any that differs from its default is an
    :class:`InputError`, as is any other option (a caller passing them has exact disclosure
    in mind, and ``protection="auto"`` picked interval).
    """
    ignored = sorted(set(options) - INTERVAL_OPTIONS) + _non_defaults(**exact)
    if ignored:
        raise InputError(f"{', '.join(ignored)}: exact-disclosure option(s), but this is "
                         "interval protection (the table's sensitive cells carry protection "
                         "levels, or protection='interval'), which takes weights, "
                         "must_publish, publish_totals and publish_zeros. Pass "
                         "protection='exact' for exact disclosure")
    options = dict(options)
    flags = {k: bool(options.pop(k)) for k in ("publish_totals", "publish_zeros")
             if k in options}
    if any(flags.values()):
        _, published = suppression_options(table, None, options.get("must_publish"), **flags)
        options["must_publish"] = np.flatnonzero(published)
    return options


def _solve_interval(table, *, method, time_limit, gap, verbose, progress, **options):
    from cspopt.branch_and_cut import solve_branch_and_cut
    from cspopt.interval import solve_interval

    if method == "mip":
        return solve_interval(table, time_limit=time_limit, gap=gap, verbose=verbose,
                              **options)
    if method not in ("auto", "branch-and-cut"):
        raise InputError("interval protection: method must be 'auto', 'branch-and-cut' or "
                         f"'mip', not {method!r}")
    return solve_branch_and_cut(table, time_limit=time_limit, gap=gap, verbose=verbose,
                                progress=progress, **options)


def _total(timings: dict, started: float) -> dict:
    timings["total"] = time.perf_counter() - started
    return timings


def bound(
    table,
    *,
    method: str = "auto",
    protection: str = "auto",
    model: str = "auto",
    dual: str = "volume",
    time_limit: float | None = None,
    max_iterations: int = 200,
    multipliers: Multipliers | np.ndarray | None = None,
    instance=None,
    **options,
) -> SolveResult:
    """A valid lower bound on the optimum: the bound oracle.

    Exact disclosure: ``method="lagrangian"`` (``auto``) returns the best ``z(lambda)`` found
    and its :class:`~cspopt.lagrangian.Multipliers` (pass them back as ``multipliers`` to
    warm-start: the next call goes on from there, and its bound is at least this one's;
    ``multipliers.bound`` certifies the bound); ``method="lp"``
    solves the LP relaxation; ``method="mip"`` is the dual bound of the time-limited
    branch-and-cut on ``x`` (:func:`cspopt.formulations.cutset.solve_cutset`). Interval
    protection: ``method="capacity"`` (``auto``) is the LP over Fischetti–Salazar capacity
    cuts strengthened for binary suppressions (the branch-and-cut's root bound,
    :func:`cspopt.branch_and_cut.capacity_bound`), ``method="lp"`` the LP bound of the
    compact Fischetti–Salazar model (weaker), ``method="mip"`` the dual bound of a
    time-limited branch-and-cut. ``protection="auto"`` picks interval when sensitive cells
    carry protection levels. ``status`` is ``bound_only``; no pattern is returned.
    """
    if resolve_protection(table, protection) == "interval":
        from cspopt.branch_and_cut import capacity_bound, solve_branch_and_cut
        from cspopt.interval import solve_interval

        options = interval_options(table, options, model=model, dual=dual,
                                   max_iterations=max_iterations, multipliers=multipliers,
                                   instance=instance)
        runs = {"capacity": capacity_bound, "lp": partial(solve_interval, relax=True),
                "mip": solve_branch_and_cut}
        run = runs.get("capacity" if method == "auto" else method)
        if run is None:
            raise InputError("interval bounds: method must be 'auto', 'capacity', 'lp' or "
                             "'mip' (the Lagrangian bound is for protection='exact')")
        return _bound_only(run(table, time_limit=time_limit, **options))
    if method in ("lp", "mip"):
        _refuse_lagrangian_options(method, dual=dual, max_iterations=max_iterations,
                                   multipliers=multipliers)
    if method == "lp":
        return solve_exact(table, model=model, relax=True, time_limit=time_limit,
                           instance=instance, **options)
    if method == "mip":
        inst = instance if instance is not None else _instance(table, model, options)
        return _bound_only(solve_cutset(inst, time_limit=time_limit))
    if method not in ("auto", "lagrangian"):
        raise InputError(f"method must be 'auto', 'lagrangian', 'lp' or 'mip', not {method!r}")
    return _bound_only(solve(table, method="lagrangian", protection="exact", model=model,
                             dual=dual, time_limit=time_limit, max_iterations=max_iterations,
                             multipliers=multipliers, instance=instance, **options))


def _bound_only(solved: SolveResult) -> SolveResult:
    """``solved`` as a bound: its lower bound, timings and history, no pattern."""
    return SolveResult(
        method=f"bound-{solved.method}", termination=solved.termination,
        status="infeasible" if solved.status == "infeasible" else "bound_only",
        suppressed=(), objective=math.nan, lower_bound=solved.lower_bound, gap=math.nan,
        proven_optimal=False, proof="", model=solved.model, unsafe=solved.unsafe,
        safe=solved.safe, timings=solved.timings, model_size=solved.model_size,
        history=solved.history, audit=None, multipliers=solved.multipliers)


#: share of certify's time limit for the exact branch-and-cut; the Lagrangian gets the rest
_BRANCH_AND_CUT_SHARE = 0.8


def certify(
    table,
    suppressed: Iterable[int],
    *,
    protection: str = "auto",
    model: str = "auto",
    time_limit: float | None = 30.0,
    max_iterations: int = 200,
    **options,
) -> SolveResult:
    """Audit an outside pattern and certify its gap to the best bound cspopt can prove.

    ``protection="auto"`` judges interval protection when sensitive cells carry protection
    levels, exact disclosure otherwise. The bound comes from a time-limited branch-and-cut
    started from the pattern (its dual bound is valid): on the Fischetti–Salazar model
    (interval), or on (P)/(P_N) projected onto ``x``, then, if that did not finish, the
    Lagrangian bound in the time left (exact: the branch-and-cut gets
    ``_BRANCH_AND_CUT_SHARE`` of ``time_limit``; ``max_iterations`` is the Lagrangian's).
    The result's ``suppressed``/``objective`` are the given pattern's and ``audit`` says
    whether it is safe (``status`` is ``"none"`` if not: no pattern is certified, while the
    bound stays valid; ``"infeasible"`` is kept for tables no pattern protects).

    ``termination`` says why the bound stopped moving: ``"optimal"`` with ``status
    "optimal"`` when the pattern is proven optimal; ``"optimal"`` with ``status "feasible"``
    when the search finished, so ``lower_bound`` is the optimum and the pattern is
    provably not optimal (the cheaper pattern's cost is in ``history``); ``"time_limit"``
    when the budget ran out.
    """
    started = time.perf_counter()
    check_limits(options, time_limit=time_limit, max_iterations=max_iterations)
    protection = resolve_protection(table, protection)
    mask = table.pattern(suppressed)
    pattern = tuple(int(c) for c in np.flatnonzero(mask & ~table.sensitive))
    if protection == "interval":
        from cspopt.audit import audit
        from cspopt.branch_and_cut import solve_branch_and_cut

        options = interval_options(table, options, model=model,
                                   max_iterations=max_iterations)
        checked = audit(table, pattern, requirement="interval", cells="sensitive")
        # the pattern, when safe, is the incumbent to beat: only the bound has to move
        solved = solve_branch_and_cut(table, time_limit=time_limit,
                                      mip_start=pattern if checked.protected else None,
                                      **options)
        weights, _ = suppression_options(table, options.get("weights"))
        model_name, lower, history = "FS", solved.lower_bound, solved.history
        unsafe, safe, size = solved.unsafe, solved.safe, solved.model_size
        multipliers, stopped = None, solved.termination
    else:
        inst = _instance(table, model, options)
        pattern = _pattern(inst, candidate_mask(inst.table, inst.candidates, pattern))
        checked = audit_pattern(inst, pattern)
        weights = inst.weights
        # The branch-and-cut first, from the pattern (when safe, the incumbent to beat): its
        # root is the LP bound of (P), which no Lagrangian bound exceeds, and it usually
        # finishes. Measured on 36 certifications (optimal and worse patterns, Table 2-4
        # design, 20x10 to 100x100): the same bounds as the Lagrangian followed by the
        # branch-and-cut, median 1.8x faster (1.0-4.2x). The Lagrangian (at least the LP
        # bound of (P_N), which the cut-set root can miss) gets the time that is left.
        solved = solve_cutset(inst, time_limit=None if time_limit is None
                              else _BRANCH_AND_CUT_SHARE * time_limit,
                              mip_start=pattern if checked.protected else None)
        lower, stopped, history = solved.lower_bound, solved.termination, list(solved.history)
        multipliers, size = None, dict(solved.model_size)
        remaining = None if time_limit is None else time_limit - (time.perf_counter() - started)
        if stopped not in ("optimal", "infeasible") and (remaining is None or remaining > 0):
            offset = time.perf_counter() - started
            lag = bound(table, protection="exact", time_limit=remaining,
                        max_iterations=max_iterations, instance=inst)
            lower = max(lower, lag.lower_bound)
            history += [dict(h, iteration=len(history) + i, time=offset + h["time"])
                        for i, h in enumerate(lag.history)]
            multipliers = lag.multipliers
            size.update(lag.model_size)
        model_name = inst.model
        unsafe = tuple(map(int, inst.protected_cells))
        safe = tuple(map(int, inst.safe_cells))
    objective = float(weights[list(pattern)].sum()) if pattern else 0.0
    if checked.protected:
        lower = min(lower, objective)
    proven = checked.protected and objective <= lower + 1e-9
    return SolveResult(
        method=f"certify({model_name})", termination="optimal" if proven else stopped,
        status=("optimal" if proven else "feasible") if checked.protected else "none",
        suppressed=pattern, objective=objective, lower_bound=lower,
        gap=relative_gap(objective, lower) if checked.protected else math.inf,
        proven_optimal=proven, proof="bound" if proven else "", model=model_name,
        unsafe=unsafe, safe=safe, timings={"total": time.perf_counter() - started},
        model_size=size, history=tuple(history), audit=checked, multipliers=multipliers)

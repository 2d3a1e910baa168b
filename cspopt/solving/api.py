"""The front door: :func:`solve`, :func:`bound` and :func:`certify` for both protections.

Each validates its options, picks the protection (exact disclosure or protection intervals)
and the method, and hands over to :mod:`cspopt.solving.exact_pipeline`,
:mod:`cspopt.solving.exact_mip`, :mod:`cspopt.solving.cutset`,
:mod:`cspopt.solving.interval_mip` or :mod:`cspopt.solving.branch_and_cut`. Every pattern
returned has passed the independent audit; every bound is valid.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial

import numpy as np

from cspopt.audit import interval_verdict
from cspopt.bounds import capacity_bound
from cspopt.bounds.lagrangian import Multipliers
from cspopt.budget import Budget
from cspopt.errors import InputError, NotNetworkError
from cspopt.methods import (
    SUBTABLE_OPTIONS,
    heuristic_names,
    methods_for,
    plain_2d,
    shape_refusal,
)
from cspopt.models.exact import build_instance
from cspopt.models.suppression import candidate_mask, suppression_options
from cspopt.options import (
    INTERVAL_OPTIONS,
    OPTIONS,
    check_limits,
    check_options,
    refuse_inapplicable,
)
from cspopt.result import SolveResult
from cspopt.solving.audited import audit_pattern
from cspopt.solving.branch_and_cut import solve_branch_and_cut
from cspopt.solving.cutset import solve_cutset
from cspopt.solving.exact_mip import choose_model, solve_exact
from cspopt.solving.exact_pipeline import DUALS, pattern_of, run_pipeline
from cspopt.solving.heuristic import solve_heuristic
from cspopt.solving.interval_mip import solve_interval
from cspopt.solving.modular import modular_fits, solve_modular

__all__ = ["solve", "bound", "certify", "resolve_protection", "METHODS", "BOUND_METHODS",
           "DUALS", "DEFAULT_GAP"]


#: the relative gap a MIP or branch-and-cut stops at
DEFAULT_GAP = 1e-6
#: the methods of :func:`solve` per protection (:data:`cspopt.methods.METHOD_TABLE`)
METHODS = {protection: methods_for(protection) for protection in ("exact", "interval")}
#: the methods of :func:`bound` per protection
BOUND_METHODS = {"exact": ("auto", "lagrangian", "lp", "mip"),
                 "interval": ("auto", "capacity", "lp", "mip")}


def _instance(table, model, options):
    model = choose_model(table, model)
    return build_instance(table, model, **options)


def _check_method(method: str, protection: str, methods: dict) -> None:
    """Refuse a method ``protection`` does not have, saying where it belongs if elsewhere."""
    if method not in methods[protection]:
        other = "exact" if protection == "interval" else "interval"
        where = (f" (method {method!r} is for protection='{other}')"
                 if method in methods[other] else "")
        raise InputError(f"{protection} protection: method must be one of "
                         f"{', '.join(map(repr, methods[protection]))}, not {method!r}{where}")


def resolve_protection(table, protection: str) -> str:
    """``"exact"`` or ``"interval"``; ``"auto"`` is interval when sensitive cells carry
    protection levels (lpl/upl/spl)."""
    if protection == "auto":
        return "interval" if table.has_interval_protection else "exact"
    if protection not in ("exact", "interval"):
        raise InputError(f"protection must be 'auto', 'exact' or 'interval', not {protection!r}")
    return protection


def solve(
    table,
    *,
    method: str = "auto",
    protection: str = "auto",
    time_limit: float | None = None,
    gap: float = DEFAULT_GAP,
    start: Iterable[int] | None = None,
    verbose: bool = False, progress: Callable[[dict], None] | None = None,
    model: str = OPTIONS["model"].default,
    dual: str = OPTIONS["dual"].default,
    max_iterations: int = OPTIONS["max_iterations"].default,
    multipliers: Multipliers | np.ndarray | None = None,
    solver: str = OPTIONS["solver"].default,
    threads: int | None = None,
    route: str = OPTIONS["route"].default, relax: bool = OPTIONS["relax"].default,
    separation: str = OPTIONS["separation"].default,
    candidate_sets: bool = OPTIONS["candidate_sets"].default,
    processes: int | None = OPTIONS["processes"].default,
    clean: bool = OPTIONS["clean"].default, certify: bool = OPTIONS["certify"].default,
    seed: int = OPTIONS["seed"].default,
    operator: str = OPTIONS["operator"].default,
    groups: int | None = OPTIONS["groups"].default,
    workers: int | None = None, scheduler: str | None = None,
    subtable_time_limit: float | None = None,
    instance=None,
    **options,
) -> SolveResult:
    """Solve the cell suppression problem with a certificate.

    Parameters
    ----------
    table : Table
        Any linear table.
    method : {"auto", "lagrangian", "mip", "branch-and-cut", "modular", heuristic}
        Exact disclosure on 2-D tables: ``lagrangian`` (heuristic + Lagrangian dual), ``mip``
        (the compact MIP, :func:`cspopt.solve_exact`), ``branch-and-cut`` (on ``x`` with
        cut-set constraints, SCIP), ``auto`` (Lagrangian, then that branch-and-cut); on
        other tables ``auto`` and ``branch-and-cut`` are the cover cuts' branch-and-cut
        (:func:`~cspopt.solving.exact_cover.solve_exact_cover`). Interval protection:
        ``auto`` or ``branch-and-cut`` (capacity cuts, SCIP), ``modular`` (also ``auto``'s
        where :func:`~cspopt.solving.modular.modular_fits`), ``mip`` (the compact model,
        HiGHS), or a heuristic of :data:`cspopt.methods.METHOD_TABLE`.
    protection : {"auto", "exact", "interval"}
        ``exact`` solves the exact-disclosure problem, ``interval`` the protection-interval
        problem. ``auto`` (default, as in :func:`certify` and the CLI) picks
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
    solver, threads, route, relax, separation, candidate_sets, processes, clean, certify, seed
    operator, groups, workers, scheduler, subtable_time_limit
        See :data:`cspopt.options.OPTIONS`, which also says which protection and method
        takes each option; setting one where it does not apply is an :class:`InputError`
        naming it.
    **options
        ``weights``, ``publish_totals``, ``publish_zeros``, ``must_publish``, ``tau``,
        ``preprocessing`` (:data:`cspopt.options.OPTIONS`).

    Returns
    -------
    SolveResult
        ``proof`` is ``"lagrangian"`` (in-proven), ``"branch-and-cut"`` or ``"mip"``
        (out-proven) or ``""`` (open, with the remaining ``gap``).
    """
    check_limits(options, time_limit=time_limit, gap=gap, threads=threads,
                 processes=processes, max_iterations=max_iterations)
    budget = Budget(time_limit)  # the call's clock, from here down
    protection = resolve_protection(table, protection)
    _check_method(method, protection, METHODS)
    given = dict(options, model=model, dual=dual, max_iterations=max_iterations,
                 multipliers=multipliers, solver=solver, threads=threads, route=route,
                 relax=relax, separation=separation, candidate_sets=candidate_sets,
                 processes=processes, clean=clean, certify=certify, seed=seed,
                 operator=operator, groups=groups, instance=instance, workers=workers,
                 scheduler=scheduler, subtable_time_limit=subtable_time_limit)
    refuse_inapplicable(given, protection=protection, method=method)
    given = check_options(given)
    if gap != DEFAULT_GAP and (method in heuristic_names() or method in ("lagrangian",
                                                                       "modular")):
        raise InputError(f"gap (--gap): for the methods that search for a proof by a MIP or a "
                         f"branch-and-cut, not method {method!r}")
    if protection == "interval":
        return _solve_interval(table, method, given, time_limit=time_limit, gap=gap,
                               verbose=verbose, progress=progress, start=start)
    if instance is None and method in ("auto", "branch-and-cut") and not table.is_network:
        return _solve_exact_linear(table, model, options, multipliers=multipliers, dual=dual,
                                   max_iterations=max_iterations, time_limit=time_limit,
                                   gap=gap, start=start, progress=progress)
    if method == "mip":
        return solve_exact(table, model=model, relax=relax, solver=solver, route=route,
                           time_limit=time_limit, gap=gap, threads=threads, verbose=verbose,
                           instance=instance, mip_start=start, **options)
    inst = instance if instance is not None else _instance(table, model, options)
    if method == "branch-and-cut":
        return solve_cutset(inst, time_limit=time_limit, gap=gap, verbose=verbose,
                            mip_start=start, progress=progress)
    return run_pipeline(inst, method=method, dual=dual, budget=budget,
                        max_iterations=max_iterations, multipliers=multipliers, start=start,
                        gap=gap, verbose=verbose, progress=progress)


def _solve_exact_linear(table, model: str, options: Mapping, *, multipliers, dual,
                        max_iterations, time_limit, gap, start, progress) -> SolveResult:
    """:func:`solve` for exact disclosure on a table that is not a network (3-D,
    hierarchical, linked): the cover cuts' cutting-plane solve
    (:func:`~cspopt.solving.exact_cover.solve_exact_cover`), which has no Lagrangian and no
    ``tau`` threshold: those options, set, are refused by name."""
    from cspopt.solving.exact_cover import solve_exact_cover

    for name, value in (("multipliers", multipliers), ("dual", dual),
                        ("max_iterations", max_iterations),
                        ("tau", options.get("tau", OPTIONS["tau"].default))):
        if value is None or (name != "multipliers" and value == OPTIONS[name].default):
            continue
        raise InputError(f"{name} (--{name.replace('_', '-')}): exact disclosure on a table "
                         "that is not 2-D runs the cover cuts' branch-and-cut, which does not "
                         f"take it ((P)/(P_N) with the Lagrangian are stated on 2-D tables)")
    return solve_exact_cover(table, model=model, time_limit=time_limit, gap=gap,
                             mip_start=start, progress=progress, **_cover_options(options))


def _cover_options(options: Mapping) -> dict:
    """The instance options the cover cuts' solve takes."""
    return {k: options[k] for k in ("weights", "must_publish", "publish_totals",
                                    "publish_zeros") if k in options}


def _spread(given: Mapping) -> dict:
    """The options of the methods that go subtable by subtable
    (:func:`~cspopt.solving.modular.solve_modular`), by name."""
    return {name: given[name] for name in SUBTABLE_OPTIONS}


def _solve_interval(table, method: str, given: Mapping, *, time_limit, gap, verbose, progress,
                    start) -> SolveResult:
    """:func:`solve` for interval protection, its options checked: the method's own
    (``given``: every option by name) and the instance's."""
    options = _interval_instance_options(table, given)
    if method == "hypercube" and not plain_2d(table) and not shape_refusal(method, table):
        # GHMITER's frame: the n-D hypercube subtable by subtable
        return solve_modular(table, time_limit=time_limit, **_spread(given),
                             subtable_method="hypercube", clean=given["clean"],
                             certify=given["certify"], **options)
    if method in heuristic_names():
        return solve_heuristic(table, method=method, time_limit=time_limit,
                               clean=given["clean"], certify=given["certify"],
                               seed=given["seed"], operator=given["operator"],
                               groups=given["groups"], start=start, **options)
    if method == "modular" or (method == "auto" and start is None and gap == DEFAULT_GAP
                               and _at_defaults(given) and modular_fits(table)):
        return solve_modular(table, time_limit=time_limit, **_spread(given), **options)
    if method == "mip":
        return solve_interval(table, relax=given["relax"], route=given["route"],
                              time_limit=time_limit, gap=gap, verbose=verbose,
                              mip_start=start, **options)
    return solve_branch_and_cut(table, time_limit=time_limit, gap=gap, verbose=verbose,
                                progress=progress, mip_start=start,
                                separation=given["separation"],
                                candidate_sets=given["candidate_sets"],
                                processes=given["processes"], **options)


def _at_defaults(given: Mapping) -> bool:
    """Whether the branch-and-cut's own options keep their defaults (else ``auto`` runs it,
    as asked, and not Modular)."""
    return all(given[name] == OPTIONS[name].default
               for name in ("separation", "candidate_sets", "processes"))


def _interval_instance_options(table, options: dict) -> dict:
    """``options`` for the interval methods: those they take (the others were refused unless
    at their defaults), with ``publish_totals`` and ``publish_zeros`` as must-publish
    cells."""
    options = {k: v for k, v in options.items() if k in INTERVAL_OPTIONS}
    flags = {k: bool(options.pop(k)) for k in ("publish_totals", "publish_zeros")
             if k in options}
    if any(flags.values()):
        _, published = suppression_options(table, None, options.get("must_publish"), **flags)
        options["must_publish"] = np.flatnonzero(published)
    return options


def bound(
    table,
    *,
    method: str = "auto",
    protection: str = "auto",
    time_limit: float | None = None,
    model: str = OPTIONS["model"].default,
    dual: str = OPTIONS["dual"].default,
    max_iterations: int = OPTIONS["max_iterations"].default,
    multipliers: Multipliers | np.ndarray | None = None,
    instance=None,
    **options,
) -> SolveResult:
    """A valid lower bound on the optimum: the bound oracle.

    Exact disclosure: ``method="lagrangian"`` (``auto``) returns the best ``z(lambda)`` found
    and its :class:`~cspopt.bounds.Multipliers` (pass them back as ``multipliers`` to
    warm-start: the next call goes on from there, and its bound is at least this one's;
    ``multipliers.bound`` certifies the bound); ``method="lp"``
    solves the LP relaxation; ``method="mip"`` is the dual bound of the time-limited
    branch-and-cut on ``x`` (:func:`cspopt.solving.cutset.solve_cutset`). Interval
    protection: ``method="capacity"`` (``auto``) is the LP over Fischetti–Salazar capacity
    cuts strengthened for binary suppressions (the branch-and-cut's root bound,
    :func:`cspopt.bounds.capacity_bound`), ``method="lp"`` the LP bound of the
    compact Fischetti–Salazar model (weaker), ``method="mip"`` the dual bound of a
    time-limited branch-and-cut. ``protection="auto"`` picks interval when sensitive cells
    carry protection levels. ``status`` is ``bound_only``; no pattern is returned.
    """
    check_limits(options, time_limit=time_limit, max_iterations=max_iterations)
    protection = resolve_protection(table, protection)
    _check_method(method, protection, BOUND_METHODS)
    refuse_inapplicable(dict(options, model=model, dual=dual, max_iterations=max_iterations,
                             multipliers=multipliers, instance=instance),
                        protection=protection, method=method)
    if protection == "interval":
        options = _interval_instance_options(table, options)
        runs = {"auto": capacity_bound, "capacity": capacity_bound,
                "lp": partial(solve_interval, relax=True), "mip": solve_branch_and_cut}
        return _bound_only(runs[method](table, time_limit=time_limit, **options))
    if instance is None and method in ("auto", "mip") and not table.is_network:
        from cspopt.solving.exact_cover import solve_exact_cover  # the cover cuts' bound

        return _bound_only(solve_exact_cover(table, model=model, time_limit=time_limit,
                                             **_cover_options(options)))
    if instance is None and not table.is_network:
        raise NotNetworkError(f"bound method {method!r} of exact disclosure is stated on 2-D "
                              "tables ((P)/(P_N)); on this table the bound is the cover cuts' "
                              "(method 'auto' or 'mip')")
    if method == "lp":
        return solve_exact(table, model=model, relax=True, time_limit=time_limit,
                           instance=instance, **options)
    if method == "mip":
        inst = instance if instance is not None else _instance(table, model, options)
        return _bound_only(solve_cutset(inst, time_limit=time_limit))
    return _bound_only(solve(table, method="lagrangian", protection="exact", model=model,
                             dual=dual, time_limit=time_limit, max_iterations=max_iterations,
                             multipliers=multipliers, instance=instance, **options))


def _bound_only(solved: SolveResult) -> SolveResult:
    """``solved`` as a bound: its lower bound, timings and history, no pattern."""
    return SolveResult.build(
        method=f"bound-{solved.method}", model=solved.model, termination=solved.termination,
        lower_bound=solved.lower_bound, bound_only=True, unsafe=solved.unsafe,
        safe=solved.safe, timings=solved.timings, model_size=solved.model_size,
        history=solved.history, multipliers=solved.multipliers)


#: share of certify's time limit for the exact branch-and-cut; the Lagrangian gets the rest
_BRANCH_AND_CUT_SHARE = 0.8


def certify(
    table,
    suppressed: Iterable[int],
    *,
    protection: str = "auto",
    time_limit: float | None = 30.0,
    model: str = OPTIONS["model"].default,
    max_iterations: int = OPTIONS["max_iterations"].default,
    proofs: Iterable | None = None,
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

    ``proofs`` (interval protection): attacker completions ``(cells, deviations)`` that
    came with the pattern (:attr:`cspopt.audit.AuditResult.proofs` of an earlier audit or
    solve, :func:`cspopt.audit.proofs.load_proofs` of a saved one). The audit checks each
    and solves LPs only for the sides they leave unproven: a large pattern is judged in
    seconds where its LPs over the whole table take minutes; the verdict is the same.
    """
    check_limits(options, time_limit=time_limit, max_iterations=max_iterations)
    budget = Budget(time_limit)
    protection = resolve_protection(table, protection)
    refuse_inapplicable(dict(options, model=model, max_iterations=max_iterations),
                        protection=protection, method="auto")
    if proofs is not None and protection != "interval":
        raise InputError("proofs (attacker completions) certify interval protection; this "
                         "call judges exact disclosure")
    mask = table.pattern(suppressed)
    pattern = tuple(int(c) for c in np.flatnonzero(mask & ~table.sensitive))
    if protection == "interval":
        options = _interval_instance_options(table, options)
        checked = interval_verdict(table, pattern, completions=proofs or ())
        # the pattern, when safe, is the incumbent to beat: only the bound has to move
        solved = solve_branch_and_cut(table, time_limit=time_limit,
                                      mip_start=pattern if checked.protected else None,
                                      **options)
        weights, _ = suppression_options(table, options.get("weights"))
        model_name, lower, history = "FS", solved.lower_bound, solved.history
        unsafe, safe, size = solved.unsafe, solved.safe, solved.model_size
        multipliers, stopped = None, solved.termination
    elif not table.is_network:  # exact disclosure beyond 2-D: the cover cuts' bound
        from cspopt.solving.exact_cover import exact_audit, solve_exact_cover

        checked = exact_audit(table, model, pattern)
        solved = solve_exact_cover(table, model=model, time_limit=time_limit,
                                   mip_start=pattern if checked.protected else None,
                                   **_cover_options(options))
        weights, _ = suppression_options(table, options.get("weights"))
        model_name, lower, history = solved.model, solved.lower_bound, solved.history
        unsafe, safe, size = tuple(map(int, table.sensitive_cells)), (), solved.model_size
        multipliers, stopped = None, solved.termination
    else:
        inst = _instance(table, model, options)
        pattern = pattern_of(inst, candidate_mask(inst.table, inst.candidates, pattern))
        checked = audit_pattern(inst, pattern)
        weights = inst.weights
        # The branch-and-cut first, from the pattern (when safe, the incumbent to beat): its
        # root is the LP bound of (P), which no Lagrangian bound exceeds, and it usually
        # finishes. The Lagrangian (at least the LP bound of (P_N), which the cut-set root
        # can miss) gets the time that is left.
        solved = solve_cutset(inst, time_limit=budget.fraction(_BRANCH_AND_CUT_SHARE),
                              mip_start=pattern if checked.protected else None)
        lower, stopped, history = solved.lower_bound, solved.termination, list(solved.history)
        multipliers, size = None, dict(solved.model_size)
        left = budget.time_limit()
        if stopped not in ("optimal", "infeasible") and (left is None or left > 0):
            offset = budget.elapsed()
            lag = bound(table, protection="exact", time_limit=left,
                        max_iterations=max_iterations, instance=inst)
            lower = max(lower, lag.lower_bound)
            history += [dict(h, iteration=len(history) + i, time=offset + h["time"])
                        for i, h in enumerate(lag.history)]
            multipliers = lag.multipliers
            size.update(lag.model_size)
        model_name = inst.model
        unsafe = tuple(map(int, inst.protected_cells))
        safe = tuple(map(int, inst.safe_cells))
    return SolveResult.build(
        method=f"certify({model_name})", model=model_name, termination=stopped,
        lower_bound=lower, suppressed=pattern,
        objective=float(weights[list(pattern)].sum()) if pattern else 0.0, audit=checked,
        proof="bound", unsafe=unsafe, safe=safe,
        timings={"total": budget.elapsed()}, model_size=size, history=history,
        multipliers=multipliers)

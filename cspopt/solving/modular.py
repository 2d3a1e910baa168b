"""Modular: a hierarchical table protected subtable by subtable, then audited whole.

De Wolf (2002)'s HiTaS, tau-ARGUS' Modular: the table is cut into its non-hierarchical
subtables (:func:`cspopt.table.subtables.subtables`), each protected by the optimal model (here
the interval branch-and-cut, :func:`~cspopt.solving.solve_branch_and_cut`) top-down, every
cell suppressed so far held suppressed in the subtables after it. A subtable in which a later
one suppressed new cells is solved again (backtracking) until no subtable changes or the
rounds run out; subtables sharing no cell run side by side on Dask workers
(:class:`~cspopt.parallel.Workers`), as do the repair's attacker LPs below, in batches.
Held cells carry no protection level of their own (HiTaS's rule of passing the primaries'
levels down was measured: the requirements cascade through the levels, for patterns several
times dearer). A subtable's attacker knows its own
relations only, so the pattern is then audited on the whole table
(:func:`cspopt.audit.interval_verdict`) and, where a cell is left short, completed by the
incremental attacker (Smith et al. 2012; what
:func:`~cspopt.solving.audited.repair_interval_pattern` does): a pattern that does not pass
the audit is never returned (pytauargus' MOD returned unsafe ones). Delete-and-check on the
whole table (Almeida, Schütz & Carvalho 2008 §5), first by the audit's own proofs
(:mod:`cspopt.solving.unmoved`, no LP), drops what the subtables' patterns made redundant,
and the whole table's capacity LP (Fischetti & Salazar-Gonzalez 2001) certifies the gap.

The same frame runs tau-ARGUS' GHMITER (Repsilber 1994): ``subtable_method="hypercube"``
protects each subtable by its cheapest n-dimensional hypercubes
(:mod:`cspopt.heuristics.hypercube_grid`) instead, in seconds where the branch-and-cut takes
minutes, for dearer patterns; ``method="hypercube"`` on tables beyond plain 2-D.

Complexity: one branch-and-cut per subtable and round; the subtables are small (one level
per dimension), so each is solved to optimality or close to it in its share of the time; the
whole table's audits and the repair's grouped attacker LPs come after.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from cspopt.bounds.capacity import capacity_lp
from cspopt.bounds.lines import line_bound
from cspopt.budget import Budget
from cspopt.errors import InputError
from cspopt.heuristics.hypercube_grid import grid_totals, hypercube_grid
from cspopt.models.interval import CapacityOracle, build_interval_instance
from cspopt.options import check_limits, check_options
from cspopt.parallel import Workers
from cspopt.result import SolveResult, integral_bound
from cspopt.solving.audited import (
    interval_result,
    no_pattern_message,
    pattern_cells,
    repair_interval_pattern,
    unprotectable,
)
from cspopt.solving.branch_and_cut import solve_branch_and_cut
from cspopt.solving.unmoved import publish_unmoved
from cspopt.table.recovered import product_structure
from cspopt.table.subtables import Subtable, subtables

__all__ = ["solve_modular", "modular_fits", "MODULAR_ROUNDS", "MODULAR_FROM"]

log = logging.getLogger(__name__)

#: passes over the subtables at most (the first, then the backtracking ones)
MODULAR_ROUNDS = 3
#: shares of the call's limit: the subtables' solves; the whole table's repair ends by the
#: second, its clean-up (at most the third) by the fourth, leaving the rest to the final
#: verdicts and the bound
_SUBTABLES_SHARE = 0.3
_REPAIRED_BY = 0.9
_CLEAN_SHARE = 0.15
_CLEANED_BY = 0.95
#: the capacity LP's rounds end by this share of the limit: the round under way at its
#: deadline runs on (0.6 s past a 900-s limit on a 37,926-cell table)
_BOUND_BY = 0.995
#: from this many cells up, ``method="auto"`` protects a hierarchical table of more than two
#: dimensions by Modular: there the whole table's branch-and-cut cannot even complete its
#: start heuristic in a few minutes (docs/bench/scale.md)
MODULAR_FROM = 2_000
#: the shortest time a subtable's solve is given
_SUBTABLE_FLOOR = 0.5


def solve_modular(table, *, time_limit: float | None = None, weights=None, must_publish=None,
                  preprocessing: bool = True, rounds: int = MODULAR_ROUNDS,
                  workers: int | None = None, scheduler: str | None = None,
                  subtable_time_limit: float | None = None,
                  subtable_method: str = "branch-and-cut", clean: bool = True,
                  certify: bool = True) -> SolveResult:
    """Protect the interval requirements of a hierarchical ``table`` by Modular.

    The table must carry its dimensions and codes (from microdata, a tidy CSV or a JSON
    file), or be a plain 2-D grid (one subtable). Returns a result like every solve's: its
    pattern passes the whole table's audit, its lower bound is the whole table's capacity
    LP bound (valid wherever it stops), and ``timings`` has the subtables' time
    (``subtables``) and their count in ``model_size``. ``workers`` (a local Dask cluster)
    or ``scheduler`` (a running one's address) spread each wave of subtables sharing no
    cell over processes (:class:`~cspopt.parallel.Workers`), and the whole table's repair
    LPs in batches (:func:`~cspopt.heuristics.incremental_attacker`). Each subtable's solve
    gets ``subtable_time_limit`` seconds (tau-ARGUS Modular's limit per subtable; within a
    ``time_limit``, at most what the subtables' share of it has left), else that share
    spread over the subtables left, by the number of workers; fixed, with no
    ``time_limit``, the work does not depend on the workers (the repair's groups do not
    either: :func:`~cspopt.solving.audited.repair_interval_pattern`). ``subtable_method``: each
    subtable by the branch-and-cut, or by the n-dimensional hypercube method
    (``"hypercube"``, :func:`~cspopt.heuristics.hypercube_grid.hypercube_grid`: tau-ARGUS'
    GHMITER, Repsilber 1994, which also runs subtable by subtable); ``clean=False`` skips
    the delete-and-check, ``certify=False`` the capacity LP (the bound is then the
    cheap one of :func:`~cspopt.bounds.lines.line_bound`, which it never falls below);
    past the limit, neither runs.
    """
    if subtable_method not in _SUBTABLE_SOLVERS:
        raise InputError(f"subtable_method must be one of {sorted(_SUBTABLE_SOLVERS)}, not "
                         f"{subtable_method!r}")
    check_limits(time_limit=time_limit)
    check_options(dict(subtable_time_limit=subtable_time_limit))
    budget = Budget(time_limit)
    parts = subtables(table)
    with budget.phase("preprocessing"):
        inst = build_interval_instance(table, weights=weights, must_publish=must_publish,
                                       preprocessing=preprocessing)
        hopeless = unprotectable(inst) if inst.protected.size else ()
    name = ("modular(FS)/scip" if subtable_method == "branch-and-cut"
            else f"heuristic({subtable_method})/subtables")
    if hopeless:
        return interval_result(inst, budget, method=name, termination="infeasible",
                               lower_bound=np.inf, message=no_pattern_message(table, hopeless))
    suppressed = table.sensitive.copy()
    with Workers(workers=workers, scheduler=scheduler) as pool:
        with budget.phase("subtables"):
            solves = _protect_subtables(table, parts, suppressed,
                                        budget.opening(_SUBTABLES_SHARE), weights=weights,
                                        must_publish=must_publish, rounds=rounds, pool=pool,
                                        solver=_SUBTABLE_SOLVERS[subtable_method],
                                        seconds=subtable_time_limit)
        # the whole table's audit, and the completion of what the subtables' attackers
        # missed (its final verdict reuses the completions: seconds where the LPs took
        # minutes)
        proofs: list = []
        y, checked, repaired = repair_interval_pattern(
            inst, suppressed[inst.candidates].astype(float), budget.timings,
            budget=budget.opening(_REPAIRED_BY), pool=pool, proofs=proofs)
        oracle = CapacityOracle(inst)
        with budget.phase("clean"):  # what the subtables' patterns made redundant
            if clean and inst.candidates.size:
                y, checked, more = _clean(inst, oracle, y, checked, proofs,
                                          budget.opening(_CLEANED_BY).share(_CLEAN_SHARE),
                                          pool=pool)
                repaired = "; ".join(filter(None, [repaired, more]))
    with budget.phase("bound"):  # the line bound always (one small LP), the capacity LP to
        # the call's limit (the pattern is audited already); none past it (its first cuts
        # alone take a minute on a 38,000-cell table)
        bound = line_bound(inst) if inst.candidates.size else 0.0
        bounding = budget.opening(_BOUND_BY)
        if certify and inst.candidates.size and not bounding.expired():
            bound = max(bound, capacity_lp(inst, oracle, budget=bounding)[0])
    lower = integral_bound(bound, inst.weights[inst.candidates])
    objective = float(inst.weights[inst.candidates] @ y)
    return interval_result(
        inst, budget, method=name,
        termination="optimal" if lower >= objective - 1e-9 else (
            "time_limit" if budget.expired() else "finished"),
        lower_bound=lower, y=y, audit=checked, proof="lp",
        model_size=dict(subtables=len(parts), subtable_solves=solves,
                        candidates=int(inst.candidates.size)),
        message=repaired)


def modular_fits(table) -> bool:
    """Whether ``method="auto"`` protects ``table`` by Modular: not 2-D (where the
    branch-and-cut's max-flow attacker proves optima), :data:`MODULAR_FROM` cells or more,
    and more than one subtable: a hierarchy among the dimensions it was read with, else
    among those its relations show (:func:`cspopt.table.recovered.product_structure`)."""
    if table.num_cells < MODULAR_FROM or table.has_network_form:
        return False
    if table.dimensions is not None and table.labels is not None:
        return any(len(d.codes) > len(d.children(d.total)) + 1 for d in table.dimensions)
    found = product_structure(table)
    return found is not None and any(len(breakdowns) > 1 for breakdowns in found[1])


def _clean(inst, oracle: CapacityOracle, y: np.ndarray, checked, proofs: list,
           budget: Budget, *, pool: Workers):
    """Delete-and-check of the audited pattern ``y`` (Almeida, Schütz & Carvalho 2008 §5):
    first the suppressions that no proof of its audit moves are published
    (:func:`~cspopt.solving.unmoved.publish_unmoved`: no LP), then, where ``budget`` lets the
    capacity oracle prove the pattern, those whose removal it proves harmless, by weight,
    the result audited again (and repaired where the audit disagrees). Returns ``(y, its
    audit, what the repair did)``."""
    started = time.perf_counter()
    published = publish_unmoved(inst, y, proofs)
    if published is not None:
        y, checked, _ = published
    log.info("modular: %s suppressions no proof moves in %.1f s",
             "published the" if published else "no", time.perf_counter() - started)
    started = time.perf_counter()
    if not oracle.protects(y, budget):
        log.info("modular: the capacity oracle did not prove the pattern within its time "
                 "(%.1f s): no delete-and-check", time.perf_counter() - started)
        return y, checked, ""
    pruned = oracle.prune(y, np.argsort(-inst.weights[inst.candidates], kind="stable"),
                          budget)
    log.info("modular: delete-and-check dropped %d suppressions in %.1f s",
             np.count_nonzero(y > pruned), time.perf_counter() - started)
    if np.array_equal(pruned, y):
        return y, checked, ""
    return repair_interval_pattern(inst, pruned, {}, pool=pool)


def _protect_subtables(table, parts: list[Subtable], suppressed: np.ndarray, budget: Budget,
                       *, weights, must_publish, rounds: int, pool: Workers,
                       solver=None, seconds: float | None = None) -> int:
    """Solve the subtables top-down, holding every cell suppressed so far; again where a
    later subtable suppressed new cells of one (up to ``rounds`` passes). ``suppressed`` (one
    flag per cell of ``table``) grows in place; returns the number of solves. Each solve
    gets ``seconds`` (at most what ``budget`` has left), else ``budget`` spread over the
    solves left, as many at once as ``pool`` runs.

    The subtables go in waves (:func:`_waves`) of consecutive ones that share no cell, each
    wave's solves spread over ``pool``: what one suppresses cannot reach another of its
    wave, so the pattern is the one the solves in sequence give."""
    held: dict[int, np.ndarray] = {}  # per subtable, the suppressions it was last solved with
    published = np.zeros(table.num_cells, dtype=bool)
    if must_publish is not None:
        published[np.asarray(must_publish, dtype=np.int64)] = True
    weights = (np.asarray(weights, dtype=float) if weights is not None
               and not isinstance(weights, str) else weights)
    solves = 0
    for _ in range(rounds):
        todo = [i for i, part in enumerate(parts)
                if table.sensitive[part.cells].any()
                and not np.array_equal(held.get(i), suppressed[part.cells])]
        if not todo:
            break
        left = len(todo)
        for wave in _waves(parts, todo):
            if budget.expired():
                return solves
            given = seconds  # without a limit, as asked (None: to optimality)
            if budget.end is not None:
                have = budget.remaining()
                given = max(have * min(pool.size, len(wave)) / left if seconds is None
                            else min(seconds, have), _SUBTABLE_FLOOR)
            jobs = []
            for i in wave:
                cells = parts[i].cells
                jobs.append((parts[i].extract(table, fixed=cells[suppressed[cells]]), given,
                             weights if isinstance(weights, str | None) else weights[cells],
                             np.flatnonzero(published[cells])))
            for i, found in zip(wave, pool.map(solver, jobs)):
                part = parts[i]
                if found is not None:
                    suppressed[part.cells[list(found)]] = True
                held[i] = suppressed[part.cells].copy()
            solves += len(wave)
            left -= len(wave)
    return solves


def _waves(parts: list[Subtable], todo: list[int]) -> list[list[int]]:
    """``todo`` cut into runs of consecutive subtables no two of which share a cell."""
    waves, taken = [], set()
    for i in todo:
        cells = set(parts[i].cells.tolist())
        if not waves or taken & cells:
            waves.append([])
            taken = set()
        waves[-1].append(i)
        taken |= cells
    return waves


def _solve_subtable(local, seconds, weights, must_publish) -> tuple[int, ...] | None:
    """One subtable's branch-and-cut (a task of :class:`~cspopt.parallel.Workers`): the
    suppressed cells of its pattern, or ``None`` where it has none of its own (left to the
    whole table's audit and repair)."""
    result = solve_branch_and_cut(local, time_limit=seconds, weights=weights,
                                  must_publish=must_publish, neighbourhood=False, processes=1)
    log.debug("modular: subtable %s (%d cells, %d sensitive): %s, %g >= %g, %d suppressed",
              local.name, local.num_cells, local.sensitive.sum(), result.termination,
              result.objective, result.lower_bound, len(result.suppressed))
    if not result.has_pattern:
        log.info("modular: subtable %s has no pattern of its own (%s)", local.name,
                 result.message)
        return None
    return tuple(result.suppressed)


def _hypercube_subtable(local, seconds, weights, must_publish) -> tuple[int, ...] | None:
    """One subtable by the n-dimensional hypercube method (a task of
    :class:`~cspopt.parallel.Workers`, like :func:`_solve_subtable`); cells no hypercube
    protects, or a subtable that is no grid, are left to the whole table's audit and
    repair."""
    inst = build_interval_instance(local, weights=weights, must_publish=must_publish)
    if not inst.protected.size:
        return ()
    try:
        grid = grid_totals(local)
    except InputError as error:  # e.g. relations with other coefficients than 1 and -1
        log.info("modular: subtable %s is left to the whole table's repair: %s", local.name,
                 error)
        return None
    found = hypercube_grid(inst, *grid, budget=Budget(seconds))
    if found.failed:
        log.info("modular: in subtable %s no hypercube protects %s", local.name,
                 ", ".join(f"{local.describe(c)} ({side})" for c, side in found.failed))
    return pattern_cells(inst, found.suppressed)


#: what solves a subtable, by ``subtable_method``
_SUBTABLE_SOLVERS = {"branch-and-cut": _solve_subtable, "hypercube": _hypercube_subtable}

"""The final audit every pattern a solving method returns passes, exact or interval.

A method's pattern is judged by :func:`cspopt.audit`, which shares no code with any model. A
pattern of cspopt's own that fails it is a bug and raises :class:`SolverError` (callers that
can repair a pattern ask without raising). :func:`repair_interval_pattern` is that repair
for interval protection: a pattern the judge rejects is completed, else replaced, never
handed to the user, and where even suppressing every cell leaves a cell exposed the table has
no pattern at all.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from cspopt.audit import LOCAL_AUDIT_FROM, audit, interval_verdict, unproven_cells
from cspopt.budget import Budget
from cspopt.errors import InputError, SolverError
from cspopt.models.exact import ExactInstance
from cspopt.models.suppression import candidate_mask
from cspopt.result import SolveResult

__all__ = ["audit_pattern", "audit_interval_pattern", "repair_interval_pattern",
           "unprotectable", "no_pattern_message", "start_point", "pattern_cells",
           "interval_result"]

log = logging.getLogger(__name__)

#: without a time limit, a repair of more cells than this protects them in groups of
#: :data:`_UNPACED_GROUP` (one LP a side each) rather than one by one: on a 37,926-cell 3-D
#: table an LP takes 13 s (30 s for a group), and 641 cells one by one would take hours
_UNPACED_SINGLES = 256
_UNPACED_GROUP = 32


def interval_result(inst, budget: Budget, *, method: str, termination: str,
                    lower_bound: float, y: np.ndarray | None = None, audit=None,
                    **fields) -> SolveResult:
    """The one way an interval method finishes: its pattern (the 0/1 point ``y`` over
    ``inst.candidates``, audited: ``audit``), its cost, the instance's protected and safe
    cells, and the call's timings with its total; ``fields`` as :meth:`SolveResult.build`
    takes them (``proof``, ``history``, ``model_size``, ``message``, ...)."""
    budget.timings["total"] = budget.elapsed()
    pattern = {} if y is None else dict(suppressed=pattern_cells(inst, y),
                                        objective=float(inst.weights[inst.candidates] @ y))
    return SolveResult.build(method=method, model="FS", termination=termination,
                             lower_bound=lower_bound, audit=audit, unsafe=inst.protected,
                             safe=inst.safe, timings=budget.timings, **pattern, **fields)


def audit_pattern(inst: ExactInstance, suppressed, *, method: str | None = None):
    """Audit a pattern with the instance's semantics: exact protection, over integer
    completions for (P_N) and on the general table for (P). With ``method``, an exposing
    pattern raises :class:`SolverError`: a method of cspopt produced it, which is a bug."""
    result = audit(inst.table, suppressed, requirement="exact",
                   integer=inst.model == "PN" and inst.table.is_integer,
                   cells="sensitive")
    if method is not None and not result.protected:
        raise SolverError(f"{method} returned a pattern that exposes cells "
                          f"{list(result.exposed)}; please report this table")
    return result


def audit_interval_pattern(table, suppressed, timings: dict, solver: str | None):
    """The interval audit every returned pattern passes (its time goes to ``timings``); a
    pattern of ``solver`` that fails it is a bug, reported as :class:`SolverError`
    (``solver=None``: the caller repairs it)."""
    started = time.perf_counter()
    checked = interval_verdict(table, suppressed)
    timings["audit"] = timings.get("audit", 0.0) + time.perf_counter() - started
    if solver is not None and not checked.protected:
        raise SolverError(f"{solver} returned a pattern exposing cells "
                          f"{list(checked.exposed)}; please report this table")
    return checked


def repair_interval_pattern(inst, y, timings: dict, *, budget: Budget | None = None,
                            pool=None, proofs: list | None = None):
    """The final interval audit of the 0/1 point ``y`` over ``inst.candidates``, with repair.

    Where the judge (:func:`cspopt.audit.interval_verdict`) rejects the pattern (a solver's
    tolerance, a heuristic's own reckoning), it is completed by the incremental attacker
    (Smith et al. 2012), whose LP solutions are attacker completions meeting each
    requirement, run over the exposed cells only (a pattern's superset protects what it
    protected), one cell at a time while ``budget`` allows and in groups of one LP a side
    where it does not (Smith et al. 2012 §V; :func:`~cspopt.heuristics.incremental_attacker`
    paces itself; with no ``budget``, more than :data:`_UNPACED_SINGLES` cells are dealt
    into groups of :data:`_UNPACED_GROUP`, a number that does not depend on the machine);
    failing that, every candidate is suppressed. On a large pattern the cells
    repaired are those the audit's small LPs leave unproven
    (:func:`cspopt.audit.unproven_cells`): proving a cell exposed takes two LPs over the
    whole pattern, which is what protecting it costs; the completions those LPs and the
    attacker's found are handed to the final verdict, which checks them and solves LPs only
    for what they leave unproven. ``pool``
    (:class:`~cspopt.parallel.Workers`): the attacker's LPs in batches on its workers.
    ``proofs`` (a list) receives the completions found, those that prove the pattern among
    them (what :func:`~cspopt.solving.unmoved.publish_unmoved` cleans it by).
    Returns ``(y, audit, note)``:
    the audited point (``None`` when even suppressing every candidate exposes a cell: the
    table has no pattern, and ``audit`` names the cells), its audit and what was repaired
    (``""`` if nothing). The time goes to ``timings["audit"]``.
    """
    from cspopt.heuristics.incremental import dealt, incremental_attacker

    table = inst.table
    started = time.perf_counter()
    y = np.asarray(y, dtype=float)
    checked, note = None, ""
    # completions found on the way: the final verdict checks and reuses them
    proofs = [] if proofs is None else proofs
    if np.count_nonzero(y) + table.sensitive.sum() >= LOCAL_AUDIT_FROM:
        # the cells without vectors need none (no level, or safe by the primaries alone)
        suspects = np.intersect1d(unproven_cells(table, pattern_cells(inst, y),
                                                 completions=proofs), inst.protected)
    else:
        checked = interval_verdict(table, pattern_cells(inst, y), kept=proofs)
        suspects = np.asarray(checked.exposed, dtype=np.int64)
    if suspects.size:
        log.info("the audit does not prove cells %s protected; repairing the pattern",
                 suspects.tolist())
        # more suppressions never expose a protected cell: the suspects are the work
        order = None
        if np.isin(suspects, inst.protected).all():
            order = np.searchsorted(inst.protected, suspects)  # inst.protected is sorted
            if (budget is None or budget.end is None) and order.size > _UNPACED_SINGLES:
                order = dealt(order, -(-order.size // _UNPACED_GROUP))
        completed = candidate_mask(table, inst.candidates, incremental_attacker(
            inst, suppressed=pattern_cells(inst, y), budget=budget, pool=pool,
            completions=proofs, order=order)).astype(float)
        if np.any(completed > y) or checked is not None:  # added to, or found exposed
            note = ("completed by the incremental attacker for "
                    + ", ".join(table.describe(c) for c in suspects))
        y, checked = np.maximum(y, completed), None
    if checked is None:
        checked = interval_verdict(table, pattern_cells(inst, y), completions=proofs,
                                   kept=proofs)
    if not checked.protected:
        y = np.ones(inst.candidates.size)
        checked = interval_verdict(table, pattern_cells(inst, y), kept=proofs)
        note = f"every candidate suppressed: {note}"
    timings["audit"] = timings.get("audit", 0.0) + time.perf_counter() - started
    return (y if checked.protected else None), checked, note


def unprotectable(inst) -> tuple[int, ...]:
    """The sensitive cells that suppressing every candidate of ``inst`` leaves exposed, by the
    judge: where there are any, no pattern exists. The audit's LPs that push many cells at
    once settle a table whose every candidate is suppressed in a few solves (an 11,025-cell
    3-D table: 0.4 s, where the capacity oracle's check took 38 s), without the small LPs
    first (91 s on a 37,926-cell table)."""
    return tuple(interval_verdict(inst.table, inst.candidates, small_lps=False).exposed)


def no_pattern_message(table, cells) -> str:
    """Why no pattern exists: the sensitive ``cells`` stay exposed with every cell that may be
    suppressed suppressed."""
    return ("no pattern protects " + ", ".join(table.describe(c) for c in cells)
            + ": even suppressing every cell that may be suppressed leaves it exposed")


def start_point(inst, oracle, start) -> np.ndarray | None:
    """A caller's start pattern (cell ids) as a minimal 0/1 point over ``inst.candidates``
    that ``oracle`` proves protecting: the first incumbent. An :class:`InputError` where the
    audit finds it exposing a cell; ``None`` where only the oracle's tolerance refutes it
    (safe, but not an incumbent the cuts can stand on: the search goes on without it)."""
    y = inst.minimal(candidate_mask(inst.table, inst.candidates, start,
                                    "the start pattern").astype(float))
    if oracle.protects(y):
        return y
    exposed = interval_verdict(inst.table, start).exposed
    if exposed:
        raise InputError("the given start pattern does not protect every sensitive cell: it "
                         f"exposes {list(exposed)}")
    log.warning("the start pattern is protected by a margin within the separation's "
                "tolerance; it is not used as the first incumbent")
    return None


def pattern_cells(inst, y) -> tuple[int, ...]:
    """The cell ids a 0/1 point ``y`` over ``inst.candidates`` suppresses."""
    return tuple(int(c) for c in inst.candidates[np.asarray(y) > 0.5])

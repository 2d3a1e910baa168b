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

from cspopt.audit import audit, interval_verdict
from cspopt.errors import SolverError
from cspopt.models.exact import ExactInstance

__all__ = ["audit_pattern", "audit_interval_pattern", "repair_interval_pattern",
           "unprotectable", "no_pattern_message"]

log = logging.getLogger(__name__)


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


def repair_interval_pattern(inst, y, timings: dict, *, deadline: float | None = None):
    """The final interval audit of the 0/1 point ``y`` over ``inst.candidates``, with repair.

    Where the judge (:func:`cspopt.audit.interval_verdict`) rejects the pattern (a solver's
    tolerance, a heuristic's own reckoning), it is completed by the incremental attacker
    (Smith et al. 2012), whose LP solutions are attacker completions meeting each
    requirement; failing that, every candidate is suppressed. Returns ``(y, audit, note)``:
    the audited point (``None`` when even suppressing every candidate exposes a cell: the
    table has no pattern, and ``audit`` names the cells), its audit and what was repaired
    (``""`` if nothing). The time goes to ``timings["audit"]``.
    """
    from cspopt.heuristics import incremental_attacker
    from cspopt.models.suppression import candidate_mask

    table = inst.table
    started = time.perf_counter()
    y = np.asarray(y, dtype=float)
    checked = interval_verdict(table, _cells(inst, y))
    note = ""
    if not checked.protected:
        exposed = list(checked.exposed)
        log.warning("the pattern exposes cells %s by the audit; repairing it", exposed)
        completed = candidate_mask(table, inst.candidates, incremental_attacker(
            inst, suppressed=_cells(inst, y), deadline=deadline)).astype(float)
        y = np.maximum(y, completed)
        checked = interval_verdict(table, _cells(inst, y))
        note = ("completed by the incremental attacker for "
                + ", ".join(table.describe(c) for c in exposed))
        if not checked.protected:
            y = np.ones(inst.candidates.size)
            checked = interval_verdict(table, _cells(inst, y))
            note = f"every candidate suppressed: {note}"
    timings["audit"] = timings.get("audit", 0.0) + time.perf_counter() - started
    return (y if checked.protected else None), checked, note


def unprotectable(inst) -> tuple[int, ...]:
    """The sensitive cells that suppressing every candidate of ``inst`` leaves exposed, by the
    judge: where there are any, no pattern exists. The audit's LPs that push many cells at
    once settle a table whose every candidate is suppressed in a few solves (an 11,025-cell
    3-D table: 0.4 s, where the capacity oracle's check took 38 s)."""
    return tuple(interval_verdict(inst.table, inst.candidates).exposed)


def no_pattern_message(table, cells) -> str:
    """Why no pattern exists: the sensitive ``cells`` stay exposed with every cell that may be
    suppressed suppressed."""
    return ("no pattern protects " + ", ".join(table.describe(c) for c in cells)
            + ": even suppressing every cell that may be suppressed leaves it exposed")


def _cells(inst, y) -> tuple[int, ...]:
    return tuple(int(c) for c in inst.candidates[np.asarray(y) > 0.5])

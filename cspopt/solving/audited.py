"""The final audit every pattern a solving method returns passes, exact or interval.

A method's pattern is judged by :func:`cspopt.audit`, which shares no code with any model. A
pattern of cspopt's own that fails it is a bug and raises :class:`SolverError` (callers that
can repair a pattern ask without raising).
"""

from __future__ import annotations

import time

from cspopt.audit import audit, interval_verdict
from cspopt.errors import SolverError
from cspopt.models.exact import ExactInstance

__all__ = ["audit_pattern", "audit_interval_pattern"]


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

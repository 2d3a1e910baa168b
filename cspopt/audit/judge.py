"""Turning what an attacker can deduce into a verdict, shared by the LP and graph audits."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from cspopt.audit.result import REQUIREMENTS, AuditResult, CellAudit
from cspopt.errors import InputError

__all__ = ["resolve_options", "judge_cell", "proven_cell", "assemble", "TOLERANCE",
           "side_proven"]

#: the audit's absolute slack in every comparison with a cell value (plus ``1e-9 |a|``:
#: :func:`tolerance_for`), unless a caller gives another
TOLERANCE = 1e-6


def resolve_options(table, requirement: str, integer: bool | None) -> tuple[str, bool]:
    """Validate the audit options once, filling the ``auto`` defaults.

    ``requirement="auto"`` is ``"interval"`` when a sensitive cell carries a positive
    protection level and ``"exact"`` otherwise. ``integer=None`` is true for nonnegative
    integer tables (Almeida & Carvalho 2005 §4).
    """
    if requirement == "auto":
        requirement = "interval" if table.has_interval_protection else "exact"
    if requirement not in REQUIREMENTS:
        raise InputError(f"requirement must be one of {REQUIREMENTS + ('auto',)}, "
                         f"not {requirement!r}")
    if integer is None:
        integer = table.nonnegative and table.is_integer
    elif integer and not table.is_integer:
        raise InputError("integer completions need a table whose values and a-priori bounds "
                         "are integers")
    return requirement, bool(integer)


def tolerance_for(value: float, tolerance: float) -> float:
    """Absolute slack used when comparing attacker bounds with ``value``."""
    return tolerance + 1e-9 * abs(value)


def side_proven(move, level, tol):
    """Does a completion's ``move`` of a sensitive cell (positive in the side's direction)
    prove that side of level ``level``: strictly away from the value and at least the level,
    both to the slack ``tol`` (arrays elementwise). The interval verdict's rule, the sliding
    level aside (:meth:`cspopt.audit.AttackerLP.verdict`)."""
    return (move > tol) & (move >= level - tol)


def judge_cell(table, cell: int, low: float, high: float, can_decrease: bool,
               can_increase: bool, requirement: str, tolerance: float) -> CellAudit:
    """The :class:`CellAudit` of one cell; requirements are filled for sensitive cells."""
    a = float(table.values[cell])
    if not table.sensitive[cell]:
        return CellAudit(cell, a, False, low, high, can_decrease, can_increase)
    tol = tolerance_for(a, tolerance)
    exact = can_decrease or can_increase
    req_low = a - float(table.lower_protection[cell])
    req_high = a + float(table.upper_protection[cell])
    req_width = float(table.sliding_protection[cell])
    if math.isnan(low) or math.isnan(high):
        interval = None
        short_low = short_high = short_width = 0.0
    else:
        short_low = max(0.0, low - req_low) if low > req_low + tol else 0.0
        short_high = max(0.0, req_high - high) if high < req_high - tol else 0.0
        width = high - low
        short_width = max(0.0, req_width - width) if width < req_width - tol else 0.0
        interval = short_low == 0.0 and short_high == 0.0 and short_width == 0.0
    protected = exact if requirement == "exact" else interval
    return CellAudit(cell, a, True, low, high, can_decrease, can_increase, req_low, req_high,
                     req_width, exact, interval, protected, short_low, short_high, short_width)


def proven_cell(table, cell: int, low: float, high: float, can_decrease: bool,
                can_increase: bool) -> CellAudit:
    """The :class:`CellAudit` of sensitive ``cell`` whose interval requirement completions
    have proven; ``low``/``high`` are the LP optima where solved, else ``nan``."""
    a = float(table.values[cell])
    return CellAudit(cell, a, True, low, high, can_decrease, can_increase,
                     a - float(table.lower_protection[cell]),
                     a + float(table.upper_protection[cell]),
                     float(table.sliding_protection[cell]), can_decrease or can_increase,
                     True, True)


def assemble(table, mask: np.ndarray, cells: Sequence[CellAudit], *, requirement: str,
             integer: bool, method: str, num_solves: int, started: float,
             proofs: tuple = ()) -> AuditResult:
    """Collect per-cell verdicts (and the proofs of a protected one) into an
    :class:`AuditResult`."""
    exposed = tuple(c.cell for c in cells if c.sensitive and not c.protected)
    return AuditResult(
        protected=not exposed, requirement=requirement, integer=integer, method=method,
        suppressed=tuple(int(c) for c in np.flatnonzero(mask)), cells=tuple(cells),
        exposed=exposed, num_solves=num_solves, seconds=time.perf_counter() - started,
        proofs=proofs if not exposed else ())

"""Result types of the attacker audits."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from cspopt.jsondoc import plain

__all__ = ["CellAudit", "AuditResult", "REQUIREMENTS"]

#: ``"exact"``: the attacker cannot pin the value (Almeida & Carvalho 2005 §§3-4);
#: ``"interval"``: the attacker's interval reaches ``a - lpl`` and ``a + upl`` and is at
#: least ``spl`` wide (Fischetti & Salazar-Gonzalez; Smith et al. 2012 §II-A).
REQUIREMENTS = ("exact", "interval")


@dataclass(frozen=True)
class CellAudit:
    """What an attacker can deduce about one suppressed cell.

    ``low``/``high`` are the attacker LP optima (``nan`` when the method does not compute
    them, ``±inf`` when unbounded). ``can_decrease``/``can_increase`` say whether some
    completion lies strictly below/above the value (with integer completions, at least one
    unit away). The requirement fields and shortfalls are set for sensitive cells only;
    a shortfall is how far the attacker's interval falls short of the requirement.
    """

    cell: int
    value: float
    sensitive: bool
    low: float
    high: float
    can_decrease: bool
    can_increase: bool
    required_low: float | None = None
    required_high: float | None = None
    required_width: float | None = None
    exact_protected: bool | None = None
    interval_protected: bool | None = None
    protected: bool | None = None
    lower_shortfall: float = 0.0
    upper_shortfall: float = 0.0
    width_shortfall: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return plain(asdict(self))


@dataclass(frozen=True)
class AuditResult:
    """Outcome of auditing one suppression pattern.

    Attributes
    ----------
    protected : bool
        Every sensitive cell meets ``requirement``.
    requirement : {"exact", "interval"}
    integer : bool
        Exact protection was judged over integer completions (nonnegative integer tables,
        Almeida & Carvalho 2005 §4).
    method : {"lp", "graph"}
    suppressed : tuple of int
        The audited pattern, sensitive cells included.
    cells : tuple of CellAudit
        One entry per audited cell (all suppressed cells for the LP audit, sensitive cells
        for the graph audit), in id order.
    exposed : tuple of int
        Sensitive cells that fail the requirement.
    num_solves : int
        Attacker LPs (or graph searches) performed.
    seconds : float
        Wall-clock time of the audit.
    proofs : tuple of (cells, deviations)
        The certificate of a protected interval verdict (``ranges="verdict"``): attacker
        completions, each as 0-based cell ids and the deviations from the table's values
        there, that together move every sensitive cell past its protection levels (a
        covering set, :mod:`cspopt.audit.proofs`). Any later audit of the pattern given them
        as ``completions`` checks them in a sparse product each and needs LPs only for what
        they leave open (:func:`cspopt.audit.proofs.save_proofs` writes them to a file).
        ``()`` for other audits and for exposing patterns.
    """

    protected: bool
    requirement: str
    integer: bool
    method: str
    suppressed: tuple[int, ...]
    cells: tuple[CellAudit, ...]
    exposed: tuple[int, ...]
    num_solves: int
    seconds: float
    proofs: tuple = field(default=(), repr=False, compare=False)
    _by_cell: dict[int, CellAudit] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_cell.update({c.cell: c for c in self.cells})

    def cell(self, cell: int) -> CellAudit:
        """The audit entry of ``cell``."""
        return self._by_cell[int(cell)]

    def to_dict(self) -> dict[str, Any]:
        return plain({
            "protected": self.protected,
            "requirement": self.requirement,
            "integer": self.integer,
            "method": self.method,
            "suppressed": self.suppressed,
            "exposed": self.exposed,
            "num_solves": self.num_solves,
            "seconds": self.seconds,
            "cells": [c.to_dict() for c in self.cells],
        })

    def summary(self) -> str:
        """A few human-readable lines: verdict and the exposed cells with their shortfalls."""
        lines = [
            f"{'PROTECTED' if self.protected else 'NOT PROTECTED'}: {len(self.suppressed)} "
            f"suppressed cells, {sum(c.sensitive for c in self.cells)} sensitive, "
            f"requirement {self.requirement}"
            f"{' (integer completions)' if self.integer and self.requirement == 'exact' else ''}, "
            f"{self.method} audit, {self.num_solves} solves in {self.seconds:.3f} s"
        ]
        for c in self.cells:
            if c.cell not in self.exposed:
                continue
            parts = []
            if not c.exact_protected:
                parts.append("value can be computed exactly")
            if c.lower_shortfall > 0:
                parts.append(f"lower end {c.low:g} > required {c.required_low:g} "
                             f"(short by {c.lower_shortfall:g})")
            if c.upper_shortfall > 0:
                parts.append(f"upper end {c.high:g} < required {c.required_high:g} "
                             f"(short by {c.upper_shortfall:g})")
            if c.width_shortfall > 0:
                parts.append(f"width {c.high - c.low:g} < required {c.required_width:g}")
            lines.append(f"  exposed cell {c.cell} (value {c.value:g}): " + "; ".join(parts))
        return "\n".join(lines)

"""Sensitivity rules and the protection levels they imply, with tau-ARGUS' semantics.

A rule reads each cell's contributions (the respondents whose records fall in it, totals
included) and says whether the cell is sensitive and, if so, how far an attacker's interval
must reach on each side. The formulas are those of Hundepool et al., *Statistical
Disclosure Control* (Wiley 2012) §4.2-4.3 and the tau-ARGUS manual (§4.2, "Safety rules"),
checked cell by cell against tau-ARGUS' own engine (pytauargus 0.6.0; ``cspopt bench
protect``). For a cell with total ``X >= 0`` and contributions ``x_1 >= x_2 >= ...``:

=================  ===================================  ===================================
rule (spelling)    sensitive when                       protection level
=================  ===================================  ===================================
``NK(n, k)``       ``x_1 + ... + x_n > k/100 X``        ``100/k (x_1 + ... + x_n) - X``
``P(p[, n])``      ``X - x_1 - ... - x_{n+1}``          ``p/100 x_1 - (X - x_1 - ... -
                   ``< p/100 x_1``                      x_{n+1})``
``PQ(p, q[, n])``  as P with ``p/q`` for ``p/100``      as P with ``p/q``
``FREQ(m, r)``     ``0 < contributors < m``             ``r/100 X``
``ZERO(r)``        ``X = 0`` with contributors          ``r`` (absolute)
=================  ===================================  ===================================

``n`` in ``P`` and ``PQ`` is the number of respondents in a coalition (default 1: the second
largest respondent estimates the largest). The dominance and p%-type levels are the
smallest changes of ``X`` that make the rule hold again: the interval an attacker derives
must reach ``X - level`` and ``X + level``. Several rules at once: a cell is sensitive when
any rule says so; its level is the largest of the magnitude rules (NK, P, PQ) that flag it,
and only where none does, the largest of the frequency and zero rules' (tau-ARGUS' order of
precedence, checked against its engine). Empty cells (no contributors) are never
sensitive.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from cspopt.errors import InputError

__all__ = ["Rule", "DominanceRule", "PPercentRule", "PQRule", "FrequencyRule", "ZeroRule",
           "CellContributions", "parse_rules", "apply_rules"]


@dataclass(frozen=True)
class CellContributions:
    """What the rules read per cell: ``total`` (the cell value), ``count`` (contributors)
    and ``top`` (cells x depth: the largest contributions in decreasing order, 0-padded)."""

    total: np.ndarray
    count: np.ndarray
    top: np.ndarray

    def largest(self, n: int) -> np.ndarray:
        """Sum of the ``n`` largest contributions of each cell."""
        return self.top[:, :n].sum(axis=1)


class Rule:
    """A sensitivity rule: :meth:`sensitive` and :meth:`level` on cell contributions."""

    #: how many of each cell's largest contributions the rule reads
    depth: int = 0
    #: whether the rule assumes nonnegative contributions
    needs_nonnegative: bool = True
    #: a magnitude rule's level takes precedence over a frequency or zero rule's
    magnitude: bool = True

    def sensitive(self, cells: CellContributions) -> np.ndarray:
        raise NotImplementedError

    def level(self, cells: CellContributions) -> np.ndarray:
        raise NotImplementedError


@dataclass(frozen=True)
class DominanceRule(Rule):
    """The (n, k)-dominance rule: the ``n`` largest respondents hold more than ``k`` % of
    the cell (Hundepool et al. 2012 §4.2.2)."""

    n: int
    k: float

    @property
    def depth(self) -> int:
        return self.n

    def sensitive(self, cells):
        return (cells.count > 0) & (cells.largest(self.n) > self.k / 100 * cells.total)

    def level(self, cells):
        return 100 / self.k * cells.largest(self.n) - cells.total

    def __str__(self) -> str:
        return f"NK({self.n:g},{self.k:g})"


@dataclass(frozen=True)
class PQRule(Rule):
    """The prior-posterior (p, q) rule: after ``n`` respondents pool their values, what is
    left of the cell estimates the largest one within ``p/q`` of it (Hundepool et al. 2012
    §4.2.3); ``q = 100`` is the p%-rule."""

    p: float
    q: float = 100.0
    n: int = 1

    @property
    def depth(self) -> int:
        return self.n + 1

    def _slack(self, cells):
        return (cells.total - cells.largest(self.n + 1)) - self.p / self.q * cells.top[:, 0]

    def sensitive(self, cells):
        return (cells.count > 0) & (self._slack(cells) < 0)

    def level(self, cells):
        return -self._slack(cells)

    def __str__(self) -> str:
        return f"PQ({self.p:g},{self.q:g},{self.n:g})"


class PPercentRule(PQRule):
    """The p%-rule: :class:`PQRule` with ``q = 100`` (Hundepool et al. 2012 §4.2.3)."""

    def __init__(self, p: float, n: int = 1):
        super().__init__(p, 100.0, n)

    def __str__(self) -> str:
        return f"P({self.p:g},{self.n:g})"


@dataclass(frozen=True)
class FrequencyRule(Rule):
    """Minimum frequency: fewer than ``minimum`` contributors (but some), protected by
    ``safety_range`` % of the cell value (tau-ARGUS' frequency rule and its range)."""

    minimum: int
    safety_range: float
    needs_nonnegative = False
    magnitude = False

    def sensitive(self, cells):
        return (cells.count > 0) & (cells.count < self.minimum)

    def level(self, cells):
        return self.safety_range / 100 * np.abs(cells.total)

    def __str__(self) -> str:
        return f"FREQ({self.minimum:g},{self.safety_range:g})"


@dataclass(frozen=True)
class ZeroRule(Rule):
    """Zero cells with contributors are sensitive, protected by ``safety_range`` units
    (tau-ARGUS' zero rule)."""

    safety_range: float
    needs_nonnegative = False
    magnitude = False

    def sensitive(self, cells):
        return (cells.count > 0) & (cells.total == 0)

    def level(self, cells):
        return np.full(cells.total.shape, float(self.safety_range))

    def __str__(self) -> str:
        return f"ZERO({self.safety_range:g})"


#: rule name -> (class, argument counts it takes, argument names for messages)
_SPELLINGS = {
    "NK": (DominanceRule, (2,), "n, k"),
    "P": (PPercentRule, (1, 2), "p[, n]"),
    "PQ": (PQRule, (2, 3), "p, q[, n]"),
    "FREQ": (FrequencyRule, (2,), "minimum, safety range"),
    "ZERO": (ZeroRule, (1,), "safety range"),
}
_RULE = re.compile(r"^\s*([A-Za-z]+)\s*\(([^()]*)\)\s*$")


def parse_rules(rules: str | Rule | Iterable[str | Rule]) -> tuple[Rule, ...]:
    """Rules from tau-ARGUS spellings: ``"P(15)"``, ``"P(15,1)|NK(3,75)"``, a list of such
    strings, or :class:`Rule` objects. A string that does not parse, or a parameter out of
    range, is an :class:`InputError` naming the rule."""
    items = [rules] if isinstance(rules, (str, Rule)) else list(rules)
    parsed: list[Rule] = []
    for item in items:
        if isinstance(item, Rule):
            parsed.append(item)
            continue
        for text in str(item).split("|"):
            parsed.append(_parse_one(text))
    return tuple(parsed)


def _parse_one(text: str) -> Rule:
    match = _RULE.match(text)
    if not match or match.group(1).upper() not in _SPELLINGS:
        raise InputError(f"rule {text.strip()!r} does not parse; rules are "
                         + ", ".join(f"{k}({v[2]})" for k, v in _SPELLINGS.items()))
    name = match.group(1).upper()
    cls, counts, names = _SPELLINGS[name]
    try:
        args = [float(a) for a in match.group(2).split(",")] if match.group(2).strip() else []
    except ValueError:
        raise InputError(f"rule {text.strip()!r}: arguments must be numbers") from None
    if len(args) not in counts:
        raise InputError(f"rule {text.strip()!r}: {name} takes ({names})")
    counted = {"NK": (0,), "P": (1,), "PQ": (2,), "FREQ": (0,)}.get(name, ())
    for i in counted:
        if i < len(args) and not (args[i] >= 1 and args[i] == int(args[i])):
            raise InputError(f"rule {text.strip()!r}: a count must be a whole number >= 1")
    if name == "NK" and not 0 < args[1] <= 100:
        raise InputError(f"rule {text.strip()!r}: k must be in (0, 100]")
    if name in ("P", "PQ") and not args[0] > 0:
        raise InputError(f"rule {text.strip()!r}: p must be positive")
    if name == "PQ" and not args[1] > 0:
        raise InputError(f"rule {text.strip()!r}: q must be positive")
    if name in ("FREQ", "ZERO") and not args[-1] >= 0:
        raise InputError(f"rule {text.strip()!r}: the safety range must be >= 0")
    return cls(*(int(a) if i in counted else a for i, a in enumerate(args)))


def apply_rules(rules: Iterable[Rule], cells: CellContributions
                ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per cell: sensitive or not, its protection level (0 where not sensitive; see the
    module's precedence) and which rules flag it (``"P(15,1)|NK(1,60)"``, or ``""``)."""
    n = cells.total.size
    names = [[] for _ in range(n)]
    flagged = {True: np.zeros(n, dtype=bool), False: np.zeros(n, dtype=bool)}
    levels = {True: np.zeros(n), False: np.zeros(n)}
    for rule in rules:
        hit = rule.sensitive(cells)
        kind = rule.magnitude
        levels[kind] = np.where(hit, np.maximum(levels[kind], rule.level(cells)), levels[kind])
        flagged[kind] |= hit
        for c in np.flatnonzero(hit).tolist():
            names[c].append(str(rule))
    level = np.where(flagged[True], levels[True], levels[False])
    return flagged[True] | flagged[False], level, ["|".join(x) for x in names]

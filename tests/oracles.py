"""Independent references the tests judge cspopt by: brute force over every pattern, judged by
the attacker audit (the one judge of cspopt), never by an optimisation model."""

from __future__ import annotations

import math

import numpy as np

from cspopt.audit import audit
from cspopt.table import suppression_options


def brute_force(table, requirement: str, *, weights=None, max_candidates: int = 14) -> float:
    """The cheapest pattern the audit accepts for ``requirement`` (``"exact"`` or
    ``"interval"``), over every subset of the suppressible non-sensitive cells; ``inf`` if
    none protects."""
    costs, published = suppression_options(table, weights, None)
    candidates = np.flatnonzero(~published & ~table.sensitive)
    if candidates.size > max_candidates:
        raise ValueError(f"{candidates.size} candidates: too many for brute force")
    masks = np.arange(1 << candidates.size)
    bits = (masks[:, None] >> np.arange(candidates.size)) & 1
    totals = bits @ np.asarray(costs, float)[candidates]
    for i in np.argsort(totals, kind="stable"):
        pattern = candidates[bits[i] == 1]
        if audit(table, pattern, requirement=requirement, cells="sensitive").protected:
            return float(totals[i])
    return math.inf

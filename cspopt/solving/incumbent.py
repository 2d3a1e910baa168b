"""The incumbent of a search: the best protecting pattern and the best bound, with their history.

Every phase of the interval branch-and-cut (:mod:`cspopt.solving.branch_and_cut`) offers its
patterns here: a pattern is taken when the capacity oracle proves it protecting (Fischetti &
Salazar-Gonzalez 2001's attacker problems) and cleaned by delete-and-check (Almeida, Schütz &
Carvalho 2008 §5) before it is recorded. Bounds are recorded as they move, rounded up under
integer weights; each change is one ``history`` row and one ``progress`` call.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from cspopt.budget import Budget
from cspopt.models.interval import CapacityOracle
from cspopt.result import integral_bound

__all__ = ["Incumbent"]


class Incumbent:
    """The best pattern ``y`` (over the candidates; None until one is found), its cost
    ``upper``, the best bound ``lower``, every cleaned pattern offered (``found``) and the
    ``history`` of both, timed on ``budget``'s clock.

    Parameters
    ----------
    oracle : CapacityOracle
        Judges and cleans offered patterns.
    budget : Budget
        The call's budget (its clock times the history; its limit sizes the clean-ups).
    lower : float
        A bound proven before the search (the bound never falls below it).
    progress : callable(dict), optional
        Called with each history row.
    prune_share : float
        The share of the call's limit each delete-and-check pass may use (on large tables it
        is a check per suppressed cell, and the bound needs the time more).
    """

    def __init__(self, oracle: CapacityOracle, budget: Budget, *, lower: float = 0.0,
                 progress: Callable[[dict], None] | None = None, prune_share: float = 0.1):
        self.oracle, self.budget, self.progress = oracle, budget, progress
        self.prune_share = prune_share
        inst = oracle.inst
        self.weights = inst.weights[inst.candidates]
        self.y: np.ndarray | None = None
        self.upper = math.inf
        self.lower = max(float(lower), 0.0)
        self.found: list[np.ndarray] = []
        self.history: list[dict] = []

    @property
    def open(self) -> bool:
        """Whether a gap is left between the bound and the incumbent."""
        return self.upper > self.lower + 1e-9

    def cost(self, y: np.ndarray) -> float:
        return float(self.weights @ y)

    def record(self, phase: str, lower: float | None = None, y: np.ndarray | None = None
               ) -> None:
        """Take ``lower`` if it raises the bound and ``y`` (protecting: the caller proved it)
        if it is cheaper; a history row when either moved (and the first time)."""
        changed = False
        if lower is not None:  # SCIP's bound as it moves, too (665.9999999999999 seen)
            lower = integral_bound(lower, self.weights)
        if y is not None and self.cost(y) < self.upper - 1e-9:
            self.y, self.upper, changed = y.copy(), self.cost(y), True
        if lower is not None and lower > self.lower + 1e-9:
            self.lower, changed = lower, True
        if changed or not self.history:
            self.history.append(dict(iteration=len(self.history), time=self.budget.elapsed(),
                                     lower_bound=self.lower, upper_bound=self.upper,
                                     phase=phase))
            if self.progress is not None:
                self.progress(self.history[-1])

    def prune(self, y: np.ndarray, order: np.ndarray, budget: Budget) -> np.ndarray:
        """Delete-and-check of the protecting ``y`` in ``order``, for at most ``prune_share``
        of the call's limit and within ``budget``."""
        return self.oracle.prune(y, order, budget.share(self.prune_share))

    def offer(self, phase: str, y: np.ndarray, order: np.ndarray, budget: Budget) -> bool:
        """Record the 0/1 point ``y``, cleaned, if it protects every cell (as far as the check
        gets within ``budget``)."""
        if not self.oracle.protects(y, budget):
            return False
        self.found.append(self.prune(y, order, budget))
        self.record(phase, y=self.found[-1])
        return True

    def take(self, phase: str, y: np.ndarray) -> None:
        """Record ``y``, protecting and clean already, as found and as the incumbent where it
        is cheaper."""
        self.found.append(y)
        self.record(phase, y=y)

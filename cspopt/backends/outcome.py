"""What a solver back-end hands back: one typed outcome for HiGHS, SCIP and Pyomo alike."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cspopt.result import TerminationCondition

__all__ = ["SolverOutcome"]


@dataclass(frozen=True)
class SolverOutcome:
    """One solver run.

    Attributes
    ----------
    termination : TerminationCondition
        Why the solver stopped, in cspopt's terms.
    has_solution : bool
        A feasible point came back (never for LP relaxations, which give a bound only).
    lower_bound : float
        The LP value for a relaxation, the MIP dual bound otherwise (valid at any stop).
    x : ndarray or None
        The point, where the back-end returns the whole vector.
    suppressed : tuple of int
        The cells the point suppresses, where the caller or back-end has decoded them.
    """

    termination: TerminationCondition
    has_solution: bool
    lower_bound: float
    x: np.ndarray | None = None
    suppressed: tuple[int, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "termination", TerminationCondition(self.termination))

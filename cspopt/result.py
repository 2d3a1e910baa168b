"""The one result type of every cspopt solve, bound and certify call."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cspopt.jsondoc import plain

__all__ = ["SolveResult", "TerminationCondition", "SolutionStatus", "relative_gap",
           "integral_bound"]


class TerminationCondition(enum.StrEnum):
    """Why a method stopped (as Pyomo's ``contrib.solver``); compares equal to its value."""

    optimal = "optimal"  #: the search finished: the optimum of the model is known
    time_limit = "time_limit"
    gap_limit = "gap_limit"  #: stopped at the requested relative gap, above 0
    iteration_limit = "iteration_limit"
    stalled = "stalled"
    infeasible = "infeasible"  #: no pattern protects the table
    interrupted = "interrupted"
    error = "error"
    finished = "finished"  #: a heuristic ran to its end: a pattern, no search for a proof
    #: a heuristic could not protect some cell by its own rules (``message`` names them)
    method_failed = "method_failed"


class SolutionStatus(enum.StrEnum):
    """What came back; ``optimal`` if and only if the pattern is proven optimal."""

    optimal = "optimal"  #: an audited pattern whose cost equals a valid lower bound
    feasible = "feasible"  #: an audited pattern, optimality not proven
    bound_only = "bound_only"  #: a valid lower bound and no pattern (LP, Lagrangian, bound)
    infeasible = "infeasible"  #: proven: no pattern protects the table
    none = "none"  #: neither pattern nor proof (e.g. a time limit before the first one)


#: tolerance of the proof "objective == lower bound" in relative_gap units
PROOF_GAP = 1e-9


def integral_bound(value: float, weights) -> float:
    """A lower bound rounded up when every weight is an integer (the optimum then is one).

    The ``1e-6`` slack keeps solver round-off (``12.0000001``) from adding a unit.
    """
    import numpy as np

    weights = np.asarray(weights)
    if math.isfinite(value) and np.all(weights == np.round(weights)):
        return float(math.ceil(value - 1e-6))
    return float(value)


def relative_gap(objective: float, lower_bound: float) -> float:
    """``(objective - lower_bound) / objective`` (0 when both are 0, inf without a pattern)."""
    if math.isnan(objective) or math.isinf(objective):
        return math.inf
    if objective <= 0:
        return 0.0 if lower_bound >= objective - 1e-9 else math.inf
    return max(0.0, (objective - lower_bound) / objective)


@dataclass(frozen=True)
class SolveResult:
    """Outcome of a solve.

    Attributes
    ----------
    method : str
        What ran, e.g. ``"mip(PN)/highs/matrix"`` or ``"lp(P)/highs/pyomo"``.
    termination : TerminationCondition
        Why it stopped.
    status : SolutionStatus
        What came back: ``optimal`` if and only if ``proven_optimal``; ``bound_only`` for
        LP relaxations and bound calls. Built consistent here, whatever the method passed.
    suppressed : tuple of int
        Complementary suppressions (0-based cell ids, sensitive cells excluded).
    objective : float
        Cost of ``suppressed`` (``nan`` without a pattern).
    lower_bound : float
        A valid lower bound on the optimum of the modelled problem.
    gap : float
        ``(objective - lower_bound) / objective`` (recomputed here for patterns).
    proven_optimal : bool
        An audited pattern whose cost is within :data:`PROOF_GAP` of the valid lower bound
        (derived here; a producer's claim is not trusted).
    proof : str
        How optimality was proven (``"mip"``), or ``""``.
    model : str
        ``"P"`` or ``"PN"``.
    unsafe, safe : tuple of int
        Sensitive cells that needed protection, and those the other sensitive cells already
        protect (preprocessing).
    timings : mapping str -> float
        Seconds per phase (``build``, ``solve``, ``audit``, ``total``).
    model_size : mapping str -> int
        ``variables``, ``constraints``, ``nonzeros``.
    history : tuple of dict
        Iteration history where the method keeps one: every record has ``iteration``,
        ``time``, ``lower_bound``, ``upper_bound`` and ``gap`` (:func:`relative_gap`, filled in
        here), plus method-specific keys (``phase``, ``ms``, ``step``, ...).
    audit : AuditResult or None
        The independent audit of the returned pattern.
    message : str
        What a method reports beyond its statuses: the cells a heuristic could not protect,
        or the repair its pattern needed (``""`` if nothing).
    multipliers : cspopt.bounds.Multipliers or None
        What the Lagrangian leaves for warm-starting the next call (pass it as
        ``multipliers=``): ``bound``, the multipliers (protected cells x candidate cells)
        whose Lagrangian value is the best bound, and ``steps``, the subgradient's own best
        point; ``None`` for methods without them.
    """

    method: str
    termination: str
    status: str
    suppressed: tuple[int, ...]
    objective: float
    lower_bound: float
    gap: float
    proven_optimal: bool
    proof: str
    model: str
    unsafe: tuple[int, ...]
    safe: tuple[int, ...]
    timings: Mapping[str, float] = field(default_factory=dict)
    model_size: Mapping[str, int] = field(default_factory=dict)
    history: tuple[dict, ...] = ()
    audit: Any = None
    multipliers: Any = field(default=None, repr=False)
    message: str = ""

    def __post_init__(self):
        # the one place where statuses are made consistent, whichever method built the result:
        # status == optimal if and only if proven_optimal, and infeasibility on both or neither
        termination = TerminationCondition(self.termination)
        status = SolutionStatus(self.status)
        if TerminationCondition.infeasible in (status, termination):
            termination, status = TerminationCondition.infeasible, SolutionStatus.infeasible
            object.__setattr__(self, "suppressed", ())
            object.__setattr__(self, "objective", math.nan)
            object.__setattr__(self, "lower_bound", math.inf)
            object.__setattr__(self, "gap", math.inf)
        proven = False
        if status in (SolutionStatus.optimal, SolutionStatus.feasible):  # has_pattern
            gap = relative_gap(self.objective, self.lower_bound)
            proven = gap <= PROOF_GAP and (self.audit is None or bool(self.audit.protected))
            status = SolutionStatus.optimal if proven else SolutionStatus.feasible
            # a proof reports gap 0, not the float noise of a non-integer bound
            object.__setattr__(self, "gap", 0.0 if proven else gap)
        if proven:  # the optimum is known, whatever stopped the search (a gap or primal
            termination = TerminationCondition.optimal  # limit, an integral bound)
        object.__setattr__(self, "termination", termination)
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "proven_optimal", proven)
        if not proven:
            object.__setattr__(self, "proof", "")
        # the producers (Lagrangian, branch-and-cut, pipeline) record bounds; the gap is
        # derived here once, so every record of every method has it
        object.__setattr__(self, "history", tuple(
            dict(h, gap=relative_gap(h["upper_bound"], h["lower_bound"]))
            for h in self.history))

    @property
    def has_pattern(self) -> bool:
        """Whether a pattern came back (``suppressed`` is ``()`` both for an empty pattern
        and for none: the status tells them apart)."""
        return self.status in (SolutionStatus.optimal, SolutionStatus.feasible)

    @classmethod
    def build(cls, *, method: str, model: str, termination: str, lower_bound: float,
              suppressed: tuple[int, ...] | None = None, objective: float = math.nan,
              audit: Any = None, bound_only: bool = False, proof: str = "",
              unsafe=(), safe=(), timings: Mapping[str, float] | None = None,
              model_size: Mapping[str, int] | None = None, history=(),
              multipliers: Any = None, message: str = "") -> SolveResult:
        """The one way every method makes its result, from what it found.

        ``suppressed`` is the pattern (``None``: no pattern), ``objective`` its cost and
        ``audit`` its audit (an exposing pattern gives status ``none``); ``bound_only`` says the
        call computes a bound only (LP relaxations, bound oracles); ``proof`` names what proves
        optimality should the bound meet the cost. Statuses, gap and proof follow from these
        (see :meth:`__post_init__`). A bound above an audited pattern's cost is solver
        round-off: it is lowered to the cost, which stays valid.
        """
        unsafe, safe = tuple(map(int, unsafe)), tuple(map(int, safe))
        if TerminationCondition(termination) == TerminationCondition.infeasible:
            status = SolutionStatus.infeasible
        elif bound_only:
            status = SolutionStatus.bound_only
        elif suppressed is None or (audit is not None and not audit.protected):
            status = SolutionStatus.none  # an unsafe pattern is kept, for the record
        else:
            status = SolutionStatus.feasible  # raised to optimal when the bound meets it
            lower_bound = min(lower_bound, objective)
        has_pattern = suppressed is not None and status in (SolutionStatus.feasible,
                                                            SolutionStatus.none)
        return cls(method=method, termination=termination, status=status,
                   suppressed=tuple(suppressed) if has_pattern else (),
                   objective=objective if has_pattern else math.nan,
                   lower_bound=float(lower_bound),
                   gap=(relative_gap(objective, lower_bound)
                        if status == SolutionStatus.feasible
                        else math.nan if bound_only else math.inf),
                   proven_optimal=False, proof=proof, model=model, unsafe=unsafe, safe=safe,
                   timings=dict(timings or {}), model_size=dict(model_size or {}),
                   history=tuple(history), audit=audit, multipliers=multipliers,
                   message=message)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON types (:func:`cspopt.jsondoc.plain`)."""
        return plain({
            "method": self.method, "model": self.model,
            "termination": self.termination, "status": self.status,
            "proven_optimal": self.proven_optimal, "proof": self.proof,
            "objective": self.objective, "lower_bound": self.lower_bound,
            "gap": self.gap, "suppressed": self.suppressed,
            "unsafe": self.unsafe, "safe": self.safe,
            "timings": self.timings, "model_size": self.model_size,
            "history": self.history,
            "audit": None if self.audit is None else {
                "protected": self.audit.protected, "exposed": self.audit.exposed},
            "message": self.message,
        })

    def summary(self) -> str:
        if self.status == "bound_only":  # no pattern: only the bound means anything
            values = f"  lower bound {self.lower_bound:g} (a bound only: no pattern)"
            counts = ""
        else:
            values = (f"  objective {self.objective:g}  lower bound {self.lower_bound:g}  gap "
                      f"{100 * self.gap:.4g} %")
            counts = f"; {len(self.suppressed)} complementary suppressions"
        lines = [
            f"{self.method}: {self.termination}, status {self.status}"
            f"{' (proven optimal)' if self.proven_optimal else ''}",
            values,
            f"  unsafe sensitive cells {len(self.unsafe)} (safe by preprocessing "
            f"{len(self.safe)}){counts}",
        ]
        if self.suppressed:
            lines.append("  suppressed: " + " ".join(map(str, self.suppressed)))
        if self.audit is not None:
            lines.append(f"  audit: {'protected' if self.audit.protected else 'EXPOSED'}")
        if self.message:
            lines.append(f"  {self.message}")
        lines.append("  time " + ", ".join(f"{k} {v:.3f} s" for k, v in self.timings.items()))
        return "\n".join(lines)

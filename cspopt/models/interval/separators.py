"""Separators: the cut families the root loop and the branch-and-cut's constraint handler try.

A :class:`Separator` turns a point ``y`` (values on the candidates) into cuts violated there,
within a :class:`~cspopt.budget.Budget`. The loops take a list and try its members in turn
until one finds cuts, so that a new cut family is a new separator, not a new flag: the capacity
cuts of Fischetti & Salazar-Gonzalez (2001) by the exact attacker (:class:`CapacityCuts`), the
same with the attacker's moves capped at the requirement as a cheaper search
(``CapacityCuts(oracle, capped=True)``), and the bridgeless cuts (:class:`Bridgeless`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from cspopt.budget import Budget
from cspopt.models.interval.capacity import CapacityOracle
from cspopt.models.interval.cut_families import CapacityCut

__all__ = ["Separator", "CapacityCuts", "Bridgeless", "root_separators"]


class Separator(Protocol):
    """Cuts violated at a point: ``separate(y, budget) -> cuts`` (an empty list when none is
    found, or when the budget expired first)."""

    name: str

    def separate(self, y: np.ndarray, budget: Budget | None = None) -> list[CapacityCut]: ...


@dataclass
class CapacityCuts:
    """The capacity cuts the oracle finds at ``y``: by the exact attacker, or, ``capped``,
    with its moves capped at the requirement (:meth:`CapacityOracle.separate`'s
    ``capped_search``); ``stop_after``: stop once this many cells are found exposed."""

    oracle: CapacityOracle
    capped: bool = False
    stop_after: int | None = None

    @property
    def name(self) -> str:
        return "capped capacity" if self.capped else "capacity"

    def separate(self, y: np.ndarray, budget: Budget | None = None) -> list[CapacityCut]:
        return self.oracle.separate(y, capped_search=self.capped, stop_after=self.stop_after,
                                    budget=budget)[1]


@dataclass
class Bridgeless:
    """The bridgeless cuts at ``y`` (:meth:`CapacityOracle.bridgeless_cuts`): valid for the
    optimum, not for every pattern."""

    oracle: CapacityOracle
    name: str = "bridgeless"

    def separate(self, y: np.ndarray, budget: Budget | None = None) -> list[CapacityCut]:
        return self.oracle.bridgeless_cuts(y, budget=budget)


def root_separators(oracle: CapacityOracle, *, capped_search: bool = False,
                    bridgeless: bool = True) -> list[Separator]:
    """The separators of the capacity LP's loop (:func:`cspopt.bounds.capacity.capacity_lp`),
    in the order it tries them at the master's point: the capped search first where asked
    (tables that are not networks), then the exact capacity cuts, then the bridgeless cuts
    where they apply (:attr:`CapacityOracle.has_bridgeless`)."""
    capped_search = capped_search and oracle.strengthen and oracle.network is None
    separators: list[Separator] = [CapacityCuts(oracle, capped=True)] if capped_search else []
    separators.append(CapacityCuts(oracle))
    if bridgeless and oracle.has_bridgeless:
        separators.append(Bridgeless(oracle))
    return separators

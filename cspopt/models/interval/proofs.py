"""Remembered proofs of protection: attacker solutions and the least suppression levels they need.

Fischetti & Salazar-Gonzalez (2001) judge a pattern by the attacker's problems; an attacker
solution (a maximum flow or an LP point) that moves a protected cell far enough stays a
solution wherever every cell it moves keeps at least the room it used, so it proves the cell
again at any later point ``y`` that is at least its *levels* without a new flow or LP (the
attacker's problem only gains room as ``y`` grows). :class:`Proofs` keeps them per protected
cell; :class:`Side` is one attacker problem's answer.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Side", "Proofs", "PROOFS_KEPT", "LEVEL_SLACK", "move_levels", "given"]

#: proofs of protection remembered per protected cell (both sides)
PROOFS_KEPT = 40
#: relative slack on the levels a proof needs: an LP point sits on its bounds ``room * y`` up
#: to rounding, and should still prove protection at the point it came from
LEVEL_SLACK = 1e-9

@dataclass
class Side:
    """One attacker problem's answer: a proven attainable value, and, computed only when
    asked (a proof to remember, a cut to add), the suppression levels the attaining flow or
    LP point needs and a capacity vector."""

    attained: float  # lower bound on U_p or L_p (a flow, or the LP's primal value)
    level_of: Callable[[], np.ndarray]
    capacity_of: Callable[[], np.ndarray]
    # how far U_p or L_p may exceed ``attained``: a flow on capacities rounded down to whole
    # units loses less than a unit per arc of its minimum cut; unknown for an LP (its cut
    # decides)
    slack: float = math.inf
    # the attacker's move per free cell (LP answers; the oracle shares it with other cells)
    moves: np.ndarray | None = None

    @functools.cached_property
    def level(self) -> np.ndarray:
        """Per free cell, the least y_i the attaining solution fits in (0: unused)."""
        return self.level_of()

    @functools.cached_property
    def capacity(self) -> np.ndarray:
        """g over free cells: U_p(y) <= g . y for every y."""
        return self.capacity_of()


class Proofs:
    """The proofs remembered for one protected cell: per proof, the side it moves the cell
    to (``"upper"``, ``"lower"``), how far, the cells the flow or LP point moves and the
    least ``y_i`` each needs. A proof applies wherever ``y`` is at least its levels. The
    proofs are rows of two padded matrices (cells, levels; padding at level ``-inf``), so
    that all are tested at once and a new proof overwrites one row: rebuilding a
    concatenation after every proof cost a fifth of a restriction's time where the attacker
    LPs share tens of thousands of proofs. The least recently used is forgotten first."""

    def __init__(self):
        self._cells = np.zeros((0, 0), dtype=np.int32)
        self._levels = np.zeros((0, 0))
        self._upper = np.zeros(0, dtype=bool)
        self._attained = np.zeros(0)
        self._sizes = np.zeros(0, dtype=np.int64)
        self._used = np.zeros(0, dtype=np.int64)  # the clock at each proof's last use
        self._count = 0
        self._clock = 0
        self.last_cells: dict[str, np.ndarray] = {}  # per side, of the proof used last

    def best(self, y: np.ndarray) -> dict[str, float]:
        """Per side, the farthest move a proof that applies at ``y`` makes."""
        count = self._count
        if not count:
            return {}
        applies = (y[self._cells[:count]] >= self._levels[:count]).all(axis=1)
        found: dict[str, float] = {}
        for side, on_side in (("upper", self._upper[:count]), ("lower", ~self._upper[:count])):
            hits = np.flatnonzero(applies & on_side)
            if hits.size:
                i = int(hits[np.argmax(self._attained[hits])])
                found[side] = float(self._attained[i])
                # a copy: the row may hold another proof by the time the caller reads it
                self._use(i, side, self._cells[i, :self._sizes[i]].copy())
        return found

    def add(self, side: str, cells: np.ndarray, levels: np.ndarray, attained: float) -> None:
        if self._count == PROOFS_KEPT:
            i = int(self._used.argmin())
        else:
            i = self._count
            self._count += 1
        rows, width = self._cells.shape
        if i >= rows or cells.size > width:  # grow: rows double up to PROOFS_KEPT
            rows = max(rows, min(PROOFS_KEPT, max(2 * rows, 4)))
            self._resize(rows, max(width, cells.size))
        self._cells[i, :cells.size], self._cells[i, cells.size:] = cells, 0
        self._levels[i, :cells.size], self._levels[i, cells.size:] = levels, -np.inf
        self._upper[i], self._attained[i] = side == "upper", attained
        self._sizes[i] = cells.size
        self._use(i, side, cells)

    def _resize(self, rows: int, width: int) -> None:
        old_rows, old_width = self._cells.shape
        cells, levels = np.zeros((rows, width), np.int32), np.full((rows, width), -np.inf)
        cells[:old_rows, :old_width], levels[:old_rows, :old_width] = self._cells, self._levels
        self._cells, self._levels = cells, levels
        self._upper = np.resize(self._upper, rows)
        self._attained = np.resize(self._attained, rows)
        self._sizes = np.resize(self._sizes, rows)
        self._used = np.resize(self._used, rows)

    def _use(self, i: int, side: str, cells: np.ndarray) -> None:
        self._clock += 1
        self._used[i] = self._clock
        self.last_cells[side] = cells


def given(value):
    """A :class:`Side` field known at once, as the callable the field expects."""
    return lambda: value


def move_levels(moved, amount: np.ndarray, room: np.ndarray) -> np.ndarray:
    """The least ``y_i`` whose room ``room_i y_i`` holds a move of ``amount_i`` (never 0 for a
    cell that moves, at most 1): where ``y`` is at least these levels, the same flow or LP
    point is still an attacker solution, so the protection it proved still holds. Arrays
    broadcast (rows of ``room``: one per protected cell the point is a proof for)."""
    level = np.divide(amount, room, out=np.ones(np.broadcast(amount, room).shape),
                      where=room > 0)
    return np.where(moved, np.clip(level * (1 - LEVEL_SLACK), 1e-12, 1.0), 0.0)

"""Exact disclosure on any linear table: the exact attacker and the cover cuts it proves.

A pattern leaves sensitive cell ``p`` computable (Almeida & Carvalho 2005 §3, on any
relation matrix ``A`` instead of a network) when no attacker completion moves it: every
deviation ``x`` with ``A x = 0``, zero on the published cells and within the a-priori bounds,
has ``x_p = 0``. Since ``x = 0`` is feasible, only the direction in which each cell may
move matters (up where ``a < ub``, down where ``a > lb``), so the attacker's LP is

    V_p^+(y) = max x_p   s.t.  A x = 0,   -down_i y_i <= x_i <= up_i y_i  (i != p),
                               0 <= x_p  (if p may move up; else the side is closed),

with ``up_i, down_i`` in {0, 1} and ``y`` the pattern (1 on sensitive cells), and ``V_p^-``
likewise downwards; ``p`` is protected when either is positive. The LP's reduced costs ``z``
bound it by weak duality, for every pattern at once:

    V_p^+(y)  <=  sum_i g_i y_i,      g_i = max(-z_i up_i, z_i down_i)  >=  0.

So every pattern that suppresses no cell of ``C = {i : g_i^+ > 0 or g_i^- > 0}`` leaves
``p`` computable, which is the **cover cut** ``sum_{i in C} y_i >= 1`` (at an integer point
whose attacker finds ``V = 0``: Farkas' certificate that ``p`` is a linear combination of
published cells, the combination's published cells being ``C``). On a 2-D table these are
(P)'s cut-set constraints (§3, (8)-(10) projected onto ``x``); on any table they are the
exact attacker's Benders cuts. At a fractional point the same LP with rooms scaled by
``y*`` separates them (its optimum minimises ``sum g_i y*_i``). Each cut is verified before
it is used: ``p`` must be computable with every suppressible cell outside ``C`` suppressed
(two LPs), so a dual spoiled by round-off never cuts off a pattern.

Complexity: two warm-started LPs per sensitive cell and point, over the suppressible cells.
"""

from __future__ import annotations

import numpy as np

from cspopt.backends.highs import INF, OPTIMAL, UNBOUNDED, Resolver, new_highs
from cspopt.errors import SolverError

__all__ = ["ExactAttacker", "MOVES", "FLOOR"]

#: an attacker LP value above this (a deviation in units of the cells' rooms, at most 1)
#: moves the cell; the independent audit judges the final pattern in the table's units
MOVES = 1e-6
#: the room :meth:`ExactAttacker.cover` gives published cells, so that of the duals that
#: prove a cell computable it picks one that names few of them
FLOOR = 1e-3
#: a reduced cost above this puts the cell in the cut (smaller ones are round-off; a cut
#: that misses a cell is caught by its verification)
_IN_CUT = 1e-9


class ExactAttacker:
    """The exact attacker of ``table`` over the cells that may be suppressed.

    Parameters
    ----------
    table : Table
        The table as the model sees it (for (P) without bounds: every cell moves both ways).
    candidates : ndarray of int
        The non-sensitive cells that may be suppressed (sorted).
    """

    def __init__(self, table, candidates: np.ndarray):
        self.table = table
        sensitive = table.sensitive_cells
        self.cells = np.union1d(np.asarray(candidates, dtype=np.int64), sensitive)
        self.position = np.full(table.num_cells, -1, dtype=np.int64)
        self.position[self.cells] = np.arange(self.cells.size)
        self.sensitive = sensitive
        self.is_sensitive = table.sensitive[self.cells]
        a = table.values[self.cells]
        self.up = (a < table.apriori_upper[self.cells]).astype(float)
        self.down = (a > table.apriori_lower[self.cells]).astype(float)
        matrix = table.relation_matrix[:, self.cells].tocsc()
        matrix = matrix[np.unique(matrix.indices), :]
        m = matrix.shape[0]
        self.highs = new_highs(matrix, np.zeros(self.cells.size), -self.down, self.up,
                               np.zeros(m), np.zeros(m), presolve=False,
                               what="exact attacker LP")
        self._resolver = Resolver(self.highs)
        self._rooms = np.ones(self.cells.size)  # the room factors now in the model
        self.solves = 0
        #: per sensitive cell, the last completion that moved it (deviations over
        #: :attr:`cells`; any LP's, not only its own): it still moves the cell in any
        #: pattern that keeps its cells
        self.moved_by: dict[int, np.ndarray] = {}

    # -- the attacker ------------------------------------------------------------------
    def side(self, rooms: np.ndarray, cell: int, upward: bool) -> tuple[float, np.ndarray]:
        """``(V, g)``: the attacker's largest move of sensitive ``cell`` up (``upward``) or
        down with every other suppressible cell's room scaled by ``rooms`` (one per
        :attr:`cells`: the pattern, or a fractional point), and the coefficients ``g`` (one
        per cell) of the bound ``V <= sum g_i rooms_i`` its dual gives (``None`` where the
        LP is unbounded: no bound). A side the cell's own bounds close has ``V = 0`` and
        ``g = 0``."""
        col = int(self.position[cell])
        if not (self.up if upward else self.down)[col]:
            return 0.0, np.zeros(self.cells.size)
        self._set_rooms(rooms)
        h = self.highs
        h.changeColBounds(col, 0.0 if upward else -INF, INF if upward else 0.0)
        h.changeColCost(col, -1.0 if upward else 1.0)  # min -x_p, or min x_p
        try:
            status = self._resolver.run()
            self.solves += 1
            if status in UNBOUNDED:
                return np.inf, None
            if status != OPTIMAL:
                raise SolverError(f"exact attacker LP for {self.table.describe(cell)} ended "
                                  f"with status {h.modelStatusToString(status)}")
            value = -float(h.getInfo().objective_function_value)
            solution = h.getSolution()
            z = np.asarray(solution.col_dual)
            if value > MOVES:  # it moves every sensitive cell it deviates: each sleeps
                moved = np.asarray(solution.col_value)
                for other in self.cells[(np.abs(moved) > MOVES) & self.is_sensitive].tolist():
                    self.moved_by[other] = moved
        finally:
            h.changeColCost(col, 0.0)
            h.changeColBounds(col, -self.down[col] * self._rooms[col],
                              self.up[col] * self._rooms[col])
        # HiGHS's reduced costs z = c - A^T pi: min c x >= sum_i min(z_i l_i, z_i u_i) with
        # l_i = -down_i room_i, u_i = up_i room_i, so V = -min c x <= sum_i room_i g_i
        g = np.maximum(np.maximum(z * self.down, -z * self.up), 0.0)
        g[col] = 0.0  # its own bound is infinite on the side it moves: z_p >= 0 there
        return value, g

    def _set_rooms(self, rooms: np.ndarray) -> None:
        rooms = np.where(self.is_sensitive, 1.0, np.asarray(rooms, dtype=float))
        changed = np.flatnonzero(rooms != self._rooms)
        if changed.size:
            idx = changed.astype(np.int32)
            self.highs.changeColsBounds(idx.size, idx, -self.down[changed] * rooms[changed],
                                        self.up[changed] * rooms[changed])
            self._rooms = rooms

    def moves(self, rooms: np.ndarray, cell: int) -> bool:
        """Does some completion move sensitive ``cell`` under ``rooms`` (a 0/1 pattern over
        :attr:`cells`)? The last completion that moved it answers without an LP where the
        pattern still holds its cells (the "sleeping" rule of Fischetti & Salazar-Gonzalez
        2001)."""
        last = self.moved_by.get(cell)
        if last is not None and not np.any((np.abs(last) > _IN_CUT) & (np.asarray(rooms) < 0.5)):
            return True
        return any(self.side(rooms, cell, upward)[0] > MOVES for upward in (True, False))

    def computed(self, rooms: np.ndarray, budget=None) -> np.ndarray:
        """The sensitive cells no completion moves under the 0/1 pattern ``rooms`` (those
        found before ``budget``, a :class:`~cspopt.budget.Budget`, ends)."""
        found = []
        for cell in self.sensitive.tolist():
            if budget is not None and budget.expired():
                break
            if not self.moves(rooms, cell):
                found.append(cell)
        return np.asarray(found, dtype=np.int64)

    # -- the cuts ----------------------------------------------------------------------
    def cover(self, rooms: np.ndarray, cell: int, *, floor: float = FLOOR) -> np.ndarray | None:
        """The cells (ids, all non-sensitive) of a verified cover cut for sensitive ``cell``
        from its attacker's duals under ``rooms`` raised to ``floor``: every pattern that
        suppresses none of them leaves ``cell`` computable. ``None`` where the duals give no
        cut (a side unbounded, or a sensitive cell in the set: the cut holds anyway), or
        where the verification refutes it.

        At a 0/1 point where ``cell`` is computable every dual of value 0 gives a cut; the
        floor (a small room for the published cells) makes the LP pick one that names few
        of them (its value is ``floor`` times their coefficients), as at a fractional point
        the rooms ``y*`` do."""
        rooms = np.maximum(np.asarray(rooms, dtype=float), floor)
        support = np.zeros(self.cells.size, dtype=bool)
        for upward in (True, False):
            _, g = self.side(rooms, cell, upward)
            if g is None:
                return None
            support |= g > _IN_CUT
        if np.any(support & self.is_sensitive):
            return None
        if self.moves(np.where(support, 0.0, 1.0), cell):  # round-off: not a proof
            return None
        return self.cells[support]

    def no_good(self, rooms: np.ndarray) -> np.ndarray:
        """The cells of the cut every pattern that leaves a cell computable at the 0/1
        pattern ``rooms`` violates: the suppressible cells it publishes (fewer suppressions
        never protect more). The cut of last resort, for integer completions, where the
        LP's certificate does not speak."""
        return self.cells[(np.asarray(rooms) < 0.5) & ~self.is_sensitive]

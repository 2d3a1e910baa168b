"""The arrays of one interval-protection instance (Fischetti & Salazar-Gonzalez 2001).

:class:`IntervalInstance` is what every interval method reads: which cells may deviate, which
carry a suppression variable, the attacker's room per cell, the sensitive cells still to
protect, and the deviation classes of :mod:`cspopt.models.interval.linked`.
:func:`cspopt.models.interval.build_interval_instance` validates a table and builds one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from cspopt.table import Table

__all__ = ["IntervalInstance", "UpRoom"]


@dataclass(frozen=True)
class UpRoom:
    """How far the attacker may raise each free cell when protecting cell ``k``: ``ub_i -
    a_i``, or, where ``ub_i`` is infinite (2-D tables), ``k``'s largest requirement (a big-M
    that loses nothing, since a capacity is capped at the requirement). Indexed like the
    protected x free matrix it stands for (``up_room[k]`` a row, ``up_room[ks]`` rows), and
    built only where indexed: the matrix has 500 million entries on a 500x500 table with
    2,000 sensitive cells."""

    room: np.ndarray  # per free cell, inf where ub is infinite
    need: np.ndarray  # per protected cell

    def __getitem__(self, index) -> np.ndarray:
        return self.at(index, slice(None))

    def at(self, index, cells) -> np.ndarray:
        """``self[index]`` on the free cells ``cells`` only (positions, a slice or a mask)."""
        need = np.asarray(self.need[index], dtype=float)
        room = self.room[cells]
        return np.where(np.isfinite(room), room, need[..., None])

    @property
    def shape(self) -> tuple[int, int]:
        return (self.need.size, self.room.size)

    def keep(self, mask: np.ndarray) -> UpRoom:
        """The rows of the protected cells ``mask`` selects."""
        return UpRoom(self.room, self.need[mask])


@dataclass(frozen=True)
class IntervalInstance:
    """Arrays of one Fischetti–Salazar instance.

    ``free`` are the cells that may deviate (not published), ``candidates`` those with a ``y``
    variable (free and not sensitive), ``protected`` the sensitive cells with vectors, and
    ``sides[k]`` which of the lower/upper vectors cell ``protected[k]`` needs.
    """

    table: Table
    weights: np.ndarray
    free: np.ndarray
    candidates: np.ndarray
    protected: np.ndarray
    safe: np.ndarray
    down_room: np.ndarray  # a_i - lb_i for free cells
    up_room: UpRoom  # per protected cell: M or ub - a, for free cells (k x |free|)
    sides: tuple[tuple[bool, bool], ...]
    relations: sp.csr_matrix  # relations x free cells, relations touching free cells only
    deviation_class: np.ndarray  # per free cell, see models.interval.linked (-1: never deviates)
    # every move capped at the requirement also where that is not exact (a weaker attacker:
    # cspopt.heuristics.capped), see room_cap
    moves_capped: bool = False

    @functools.cached_property
    def relations_by_cell(self) -> sp.csr_matrix:
        """``relations`` transposed (free cells x relations), in CSR form once: the
        attacker LPs' duals are mapped back to cells thousands of times a solve."""
        return self.relations.T.tocsr()

    @functools.cached_property
    def requirement_unit(self) -> np.ndarray:
        """Per protected cell, its largest requirement that counts: ``upl``, ``lpl``, and
        ``spl`` only where it exceeds ``upl + lpl`` (else the two sides imply it). The unit
        the models measure its deviations in, so that their tolerances do not depend on the
        table's scale, and the cap on its rooms on networks (:attr:`room_cap`)."""
        t, cells = self.table, self.protected
        lpl, upl, spl = (t.lower_protection[cells], t.upper_protection[cells],
                         t.sliding_protection[cells])
        return np.maximum(np.maximum(lpl, upl), np.where(spl > lpl + upl, spl, 0.0))

    @functools.cached_property
    def room_cap(self) -> np.ndarray:
        """Per protected cell, how far its deviation vectors need move any one cell: its
        largest requirement (:attr:`requirement_unit`) where the relations, once the implied
        ones are dropped, form a network (:meth:`~cspopt.table.Table.reduced_network`: 2-D
        tables, also with one hierarchical dimension); ``inf`` on other tables.

        The cap loses no completion there: an attacker circulation that moves ``k`` by ``r``
        splits into simple cycles conformal to it (flow decomposition), and those through
        ``k``, scaled to carry ``r`` in all, form a completion that moves each cell by at
        most ``r`` and no further than the first did (the dropped relations are sums of
        kept ones, so it satisfies them too). Each side needs at most the largest
        requirement: ``upl`` and ``lpl`` alone, ``spl`` where it exceeds their sum.
        ``moves_capped`` caps the rooms so on any table: an attacker weaker than the table's
        (:mod:`cspopt.heuristics.capped`).
        """
        if not (self.moves_capped or self.table.has_network_form):
            return np.full(self.protected.size, np.inf)
        return self.requirement_unit

    def rooms(self, k, cells=slice(None)) -> tuple[np.ndarray, np.ndarray]:
        """How far protected cell ``k``'s deviation vectors may move the free cells
        ``cells`` (positions in :attr:`free`; default all) down and up: :attr:`down_room`
        and ``up_room[k]`` capped at :attr:`room_cap`. ``k`` may be an array of protected
        cells (one row each).

        The cap is the compact model's big-M, which a-priori bounds of 1e9 (tables read
        from files) would otherwise set, and weaken its LP; the minimum cuts of
        :class:`~cspopt.models.interval.CapacityOracle` use the same capacities.
        """
        cap = np.asarray(self.room_cap[k], dtype=float)[..., None]
        return (np.minimum(self.down_room[cells], cap),
                np.minimum(self.up_room.at(k, cells), cap))

    @functools.cached_property
    def is_candidate(self) -> np.ndarray:
        """Per free cell, whether it is a candidate (not sensitive)."""
        return ~self.table.sensitive[self.free]

    def free_levels(self, y_candidates: np.ndarray) -> np.ndarray:
        """``y`` on the free cells: the candidates' values (LP noise clipped to [0, 1]), 1 on
        sensitive cells. A value below 0 would make an attacker LP infeasible."""
        y = np.ones(self.free.size)
        y[self.is_candidate] = np.clip(y_candidates, 0.0, 1.0)
        return y

    @functools.cached_property
    def candidate_class(self) -> np.ndarray:
        """:attr:`deviation_class` of each candidate."""
        return self.deviation_class[np.searchsorted(self.free, self.candidates)]

    def candidate_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Bounds on ``y`` that every minimal pattern meets
        (:mod:`~cspopt.models.interval.linked`): 1 where the class holds a protected cell, 0
        where the class never deviates."""
        cls = self.candidate_class
        moving = self.deviation_class[np.searchsorted(self.free, self.protected)]
        lower = np.isin(cls, moving[moving >= 0]).astype(float)
        return lower, (cls >= 0).astype(float)

    def linked_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Candidate positions ``(i, j)`` with ``y_i = y_j``, chaining each deviation class."""
        cls = self.candidate_class
        order = np.argsort(cls, kind="stable")
        same = (cls[order][1:] == cls[order][:-1]) & (cls[order][1:] >= 0)
        return order[:-1][same], order[1:][same]

    def link_matrix(self) -> sp.csr_matrix:
        """:meth:`linked_pairs` as rows ``y_i - y_j = 0``."""
        first, second = self.linked_pairs()
        r = np.arange(first.size)
        return sp.csr_matrix((np.r_[np.ones(r.size), -np.ones(r.size)],
                              (np.r_[r, r], np.r_[first, second])),
                             shape=(r.size, self.candidates.size))

    def minimal(self, y_candidates: np.ndarray) -> np.ndarray:
        """``y`` without suppressions no completion can move: candidates whose deviation
        class has a published member or never deviates, and, until none is left, those that
        a relation computes (its only suppressed cell). Protection is unchanged, and the
        result meets :meth:`candidate_bounds`, :meth:`linked_pairs` and the single-relation
        bridgeless cuts (:meth:`CapacityOracle.relation_bridgeless_cuts`) if ``y``
        protects."""
        cls = self.candidate_class
        keep = np.asarray(y_candidates) > 0.5
        at = np.searchsorted(self.free, self.candidates)
        while True:
            keep &= (cls >= 0) & ~np.isin(cls, cls[~keep])
            suppressed = np.ones(self.free.size)  # sensitive cells, protected or not
            suppressed[at] = keep
            lone = (self._incidence @ suppressed == 1).astype(float)
            computable = (self._incidence.T @ lone)[at] > 0
            if not (computable & keep).any():
                return keep.astype(float)
            keep &= ~computable

    @functools.cached_property
    def _incidence(self) -> sp.csr_matrix:
        """Which free cells each relation holds (relations x free cells, 0/1)."""
        incidence = self.relations.copy().tocsr()
        incidence.data = (incidence.data != 0).astype(float)
        return incidence

    def keep(self, mask: np.ndarray) -> IntervalInstance:
        """The instance protecting only ``protected[mask]`` (cells still exposed); the others
        join ``safe``."""
        mask = np.asarray(mask, dtype=bool)
        return replace(self, protected=self.protected[mask],
                       safe=np.union1d(self.safe, self.protected[~mask]),
                       up_room=self.up_room.keep(mask),
                       sides=tuple(s for s, m in zip(self.sides, mask) if m))

"""The non-hierarchical subtables of a hierarchical table, in the order Modular protects them.

De Wolf (2002)'s HiTaS (tau-ARGUS' Modular, sdcTable's HITAS) splits a table over
hierarchical dimensions ``d_1 x ... x d_k`` into subtables with one level per dimension: each
choice of a non-leaf code ``p_e`` in every dimension gives the cells whose code in each
dimension ``e`` is ``p_e`` or a child of ``p_e``, a ``(1 + #children)``-per-dimension table
whose relations are the table's relations lying entirely inside it. Every relation of the
table lies in at least one subtable (the one whose codes are its total's, its parts' parent
in its own dimension), and every cell in at least one. The subtables are processed top-down:
by the sum over dimensions of the chosen codes' depths, the grand total's subtable first.

Complexity: ``O(prod_e #non-leaf codes of e)`` subtables, each found in time linear in its
cells.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from cspopt.errors import InputError, NotNetworkError
from cspopt.table.structure import Dimension
from cspopt.table.table import CellStatus, Table

__all__ = ["Subtable", "subtables"]


@dataclass(frozen=True)
class Subtable:
    """One subtable: its total code in each dimension, its level (the sum of their depths),
    its cells (ids of the table's cells, in the table's order) and the ids of the relations
    inside it."""

    parents: tuple[str, ...]
    level: int
    cells: np.ndarray
    relations: np.ndarray

    def extract(self, table: Table, *, fixed=()) -> Table:
        """The subtable as a table of its own (cell ``i`` is ``cells[i]``), its relations those
        inside it; the cells of ``fixed`` (ids of the table's cells, suppressed already)
        become sensitive cells with no protection level, as in
        :class:`~cspopt.models.interval.FixedOutside`."""
        cells = self.cells
        position = np.full(table.num_cells, -1, dtype=np.int64)
        position[cells] = np.arange(cells.size)
        status = table.status[cells].copy()
        levels = [table.lower_protection[cells].copy(), table.upper_protection[cells].copy(),
                  table.sliding_protection[cells].copy()]
        held = position[np.intersect1d(np.asarray(fixed, dtype=np.int64), cells)]
        held = held[~table.sensitive[cells[held]]]
        status[held] = CellStatus.SENSITIVE.value
        for level in levels:
            level[held] = 0.0
        matrix = table.relation_matrix.tocsr()
        relations = []
        for r in self.relations.tolist():
            lo, hi = matrix.indptr[r], matrix.indptr[r + 1]
            relations.append([(int(position[c]), float(a)) for c, a in
                              zip(matrix.indices[lo:hi], matrix.data[lo:hi])])
        labelled = table.dimensions is not None
        dimensions = [Dimension(d.name, (p, *d.children(p)), {c: p for c in d.children(p)})
                      for d, p in zip(table.dimensions, self.parents)] if labelled else None
        return Table(table.values[cells], costs=table.costs[cells], status=status,
                     apriori_lower=table.apriori_lower[cells],
                     apriori_upper=table.apriori_upper[cells], lower_protection=levels[0],
                     upper_protection=levels[1], sliding_protection=levels[2],
                     relations=relations,
                     labels=[table.labels[c] for c in cells] if labelled else None,
                     dimensions=dimensions, nonnegative=table.nonnegative,
                     name=f"{table.name}[{','.join(self.parents)}]")


def _depths(dimension: Dimension) -> dict[str, int]:
    depth = {dimension.total: 0}
    for code in dimension.codes:  # a parent comes before its children in presentation order
        chain, up = [], code
        while up not in depth:
            chain.append(up)
            up = dimension.parent[up]
        for step, below in enumerate(reversed(chain), 1):
            depth[below] = depth[up] + step
    return depth


def subtables(table: Table) -> list[Subtable]:
    """The subtables of ``table``, top-down: from its ``labels`` and ``dimensions``; a table
    with relations only is one subtable where it is a 2-D grid without hierarchies.

    Raises
    ------
    InputError
        If the table has no dimensions to split along and is not a plain 2-D grid (read it
        with its codes: a tidy CSV, JSON, or microdata with ``.hrc`` hierarchies).
    """
    if table.labels is None or table.dimensions is None:
        try:
            table.bipartite_graph()
        except NotNetworkError:
            raise InputError("Modular needs the table's dimensions and codes (a table from "
                             "microdata, a tidy CSV or JSON file with its hierarchies); "
                             "this table has relations only") from None
        return [Subtable((), 0, np.arange(table.num_cells),
                         np.arange(table.num_relations))]
    dimensions = table.dimensions
    index = {label: cell for cell, label in enumerate(table.labels)}
    depths = [_depths(d) for d in dimensions]
    inners = [[c for c in d.codes if d.children(c)] for d in dimensions]
    matrix = table.relation_matrix.tocsr()
    sizes = np.diff(matrix.indptr)
    found = []
    for parents in itertools.product(*inners):
        members = [(p, *d.children(p)) for d, p in zip(dimensions, parents)]
        cells = np.array(sorted(index[label] for label in itertools.product(*members)
                                if label in index), dtype=np.int64)
        counts = np.asarray(matrix[:, cells].astype(bool).sum(axis=1)).ravel()
        relations = np.flatnonzero((counts == sizes) & (sizes > 0))
        level = sum(depth[p] for depth, p in zip(depths, parents))
        found.append(Subtable(tuple(parents), level, cells, relations))
    found.sort(key=lambda sub: sub.level)  # stable: presentation order within a level
    return found

"""The non-hierarchical subtables of a hierarchical table, in the order Modular protects them.

De Wolf (2002)'s HiTaS (tau-ARGUS' Modular, sdcTable's HITAS) splits a table over
hierarchical dimensions ``d_1 x ... x d_k`` into subtables with one level per dimension: each
choice of a non-leaf code ``p_e`` in every dimension gives the cells whose code in each
dimension ``e`` is ``p_e`` or a child of ``p_e``, a ``(1 + #children)``-per-dimension table
whose relations are the table's relations lying entirely inside it. Every relation of the
table lies in at least one subtable (the one whose codes are its total's, its parts' parent
in its own dimension), and every cell in at least one. The subtables are processed top-down:
by the sum over dimensions of the chosen codes' depths, the grand total's subtable first.
A table read from a JJ file gets its dimensions from its relations
(:mod:`cspopt.table.recovered`), each cut by its breakdowns (a total and its parts) where it
has no tree.

Complexity: ``O(prod_e #breakdowns of e)`` subtables, each found in time linear in its
cells.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from cspopt.errors import InputError, NotNetworkError
from cspopt.table.recovered import product_structure
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


def _levels(breakdowns: list) -> list[int]:
    """Each breakdown's level: the longest chain of breakdowns above its total (0 for a code
    no breakdown has as a part: a dimension's total); a tree's depths."""
    above: dict = {}
    for total, parts in breakdowns:
        for part in parts:
            above.setdefault(part, []).append(total)
    level: dict = {}

    def of(code, seen=()) -> int:
        if code not in level:
            if code in seen:  # a cycle of breakdowns: no order to keep
                return 0
            level[code] = max((of(up, (*seen, code)) + 1 for up in above.get(code, ())),
                              default=0)
        return level[code]

    return [of(total) for total, _ in breakdowns]


def subtables(table: Table) -> list[Subtable]:
    """The subtables of ``table``, top-down: from its ``labels`` and ``dimensions``, else from
    the dimensions its relations show (:func:`cspopt.table.recovered.product_structure`); a
    table with relations only is one subtable where it is a 2-D grid without hierarchies.

    One breakdown (a total and its parts) per dimension gives a subtable: the cells whose
    code in each dimension is its breakdown's total or a part. A tree's breakdowns are its
    non-leaf codes with their children; a dimension recovered from relations may break a
    code down more than once, or group codes across.

    Raises
    ------
    InputError
        If the table has no dimensions to split along and its relations are neither a
        product of dimensions nor a plain 2-D grid.
    """
    if table.labels is not None and table.dimensions is not None:
        dimensions = table.dimensions
        breakdowns = [[(p, tuple(d.children(p))) for p in d.codes if d.children(p)]
                      for d in dimensions]
        index = {label: cell for cell, label in enumerate(table.labels)}

        def cells_of(members):
            return sorted(index[label] for label in itertools.product(*members)
                          if label in index)
    else:
        recovered = product_structure(table)
        if recovered is None:
            return [_whole_grid(table)]
        shape, breakdowns = recovered

        def cells_of(members):
            return np.sort(np.ravel_multi_index(np.ix_(*members), shape).ravel())
    levels = [_levels(b) for b in breakdowns]
    matrix = table.relation_matrix.tocsr()
    sizes = np.diff(matrix.indptr)
    found = []
    for choice in itertools.product(*(range(len(b)) for b in breakdowns)):
        chosen = [b[i] for b, i in zip(breakdowns, choice)]
        cells = np.array(cells_of([(total, *parts) for total, parts in chosen]),
                         dtype=np.int64)
        counts = np.asarray(matrix[:, cells].astype(bool).sum(axis=1)).ravel()
        relations = np.flatnonzero((counts == sizes) & (sizes > 0))
        level = sum(lv[i] for lv, i in zip(levels, choice))
        found.append(Subtable(tuple(str(total) for total, _ in chosen), level, cells,
                              relations))
    found.sort(key=lambda sub: sub.level)  # stable: presentation order within a level
    return found


def _whole_grid(table: Table) -> Subtable:
    """A table with relations only, as one subtable where it is a plain 2-D grid."""
    try:
        table.bipartite_graph()
    except NotNetworkError:
        raise InputError("Modular needs the table's dimensions: read it with its codes (a "
                         "table from microdata, a tidy CSV or JSON file with its "
                         "hierarchies), or a JJ file whose cells are a full product of "
                         "dimensions in row-major order; this table's relations show "
                         "neither") from None
    return Subtable((), 0, np.arange(table.num_cells), np.arange(table.num_relations))

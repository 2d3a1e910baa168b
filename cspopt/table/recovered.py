"""The dimensions of a table read with relations only (a JJ file), recovered from them.

Modular (de Wolf 2002) cuts a table along its dimensions' hierarchies, which a JJ file does
not name: it lists cells and relations. Where the table is a full product of dimensions with
its cells in row-major order (how tau-ARGUS and the CSPLIB generator write them, Fischetti &
Salazar-Gonzalez 2001 §7), the structure can be read back from the relations: for a shape
``(n_1, ..., n_k)`` with ``prod n_e`` cells, cell ``c`` has the coordinates
``unravel_index(c, shape)``; the shape fits when every relation varies one coordinate only,
and each dimension's relations, projected on its coordinate, are its breakdowns (a total, the
term whose coefficient's sign no other term has, and its parts), every code in one. Every
ordered factorisation of the number of cells is tried, most dimensions first.

Complexity: ``O(F * nnz)`` for ``F`` ordered factorisations of the number of cells into at
most :data:`MAX_DIMENSIONS` factors, almost all rejected on a sample of the relations.
"""

from __future__ import annotations

import numpy as np

__all__ = ["product_structure", "Breakdown", "MAX_DIMENSIONS"]

#: a code broken down into parts: ``(total, (part, ...))``
Breakdown = tuple[int, tuple[int, ...]]

#: the most dimensions a shape is tried with
MAX_DIMENSIONS = 6
#: relations each shape is first checked on
_SAMPLE = 256


def product_structure(table) -> tuple[tuple[int, ...], list[list[Breakdown]]] | None:
    """The shape of ``table`` as a product of dimensions and each dimension's breakdowns
    (``(total, parts)``, codes by position), from its relations; ``None`` where no shape
    fits (a table with structural zeros left out, relations with a nonzero right-hand side,
    a relation whose total cannot be told, ...).

    A dimension may break a code down more than once, or group codes across (CSPLIB's
    ``hier`` tables do: Fischetti & Salazar-Gonzalez 2001 §7): its breakdowns need not form
    a tree, only every code must lie in one of them.
    """
    matrix = table.relation_matrix.tocsr(copy=True)
    if matrix.shape[0] == 0 or np.any(table.relations.rhs != 0):
        return None
    matrix.sort_indices()
    if np.any(np.diff(matrix.indptr) < 2):
        return None
    totals = _totals(matrix.indptr, np.sign(matrix.data))
    if totals is None:
        return None
    sample = np.unique(np.linspace(0, matrix.shape[0] - 1,
                                   min(_SAMPLE, matrix.shape[0])).astype(int))
    first = matrix[sample]
    for shape in _shapes(table.num_cells):
        if _varying(first.indptr, np.unravel_index(first.indices, shape)) is None:
            continue
        coords = np.unravel_index(matrix.indices, shape)
        along = _varying(matrix.indptr, coords)
        if along is None:
            continue
        found = [_breakdowns(matrix.indptr, coords[e], totals, along == e, size)
                 for e, size in enumerate(shape)]
        if all(found):
            return shape, found
    return None


def _shapes(n: int, most: int = MAX_DIMENSIONS):
    """Ordered factorisations of ``n`` into 2..``most`` factors of at least 2, most
    dimensions first (a shape that fits fits merged too: the finest is the table's)."""
    divisors = [d for d in range(2, n // 2 + 1) if n % d == 0]

    def split(rest: int, parts: int):
        if parts == 1:
            if rest >= 2:
                yield (rest,)
            return
        for d in divisors:
            if d > rest:
                break
            if rest % d == 0:
                for tail in split(rest // d, parts - 1):
                    yield (d, *tail)

    for k in range(most, 1, -1):
        yield from split(n, k)


def _totals(indptr: np.ndarray, signs: np.ndarray) -> np.ndarray | None:
    """Per relation, the position (in the CSR data) of its total: the one term whose sign
    differs from all the others'; ``None`` where a relation has no such term."""
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    size = np.diff(indptr)
    positive = np.bincount(rows, signs > 0, minlength=size.size)
    # the total's sign: the lone one; of a two-term relation (a code with one child), the
    # negative one, as JJ files write totals
    lone = np.where((positive == 1) & (size > 2), 1, np.where(positive == size - 1, -1, 0))
    if np.any(lone == 0):
        return None
    position = np.flatnonzero(signs == np.repeat(lone, size))
    return position[np.searchsorted(position, indptr[:-1])]


def _varying(indptr: np.ndarray, coords: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """Per relation (rows ``indptr`` of the terms whose cells have coordinates ``coords``),
    the one dimension its cells vary in; ``None`` where a relation varies in none or in more
    than one (every relation has two terms or more)."""
    starts = indptr[:-1]
    moving = np.array([np.maximum.reduceat(c, starts) > np.minimum.reduceat(c, starts)
                       for c in coords])
    if not np.all(moving.sum(axis=0) == 1):
        return None
    return np.argmax(moving, axis=0)


def _breakdowns(indptr, coordinate, totals, mine: np.ndarray, size: int) -> list[Breakdown]:
    """A dimension's breakdowns: its relations (``mine``) projected on its ``coordinate``, in
    the order first met; empty where some of its ``size`` codes lies in none."""
    found: dict[Breakdown, None] = {}
    for r in np.flatnonzero(mine).tolist():
        lo, hi = indptr[r], indptr[r + 1]
        parts = tuple(sorted(int(coordinate[i]) for i in range(lo, hi) if i != totals[r]))
        found.setdefault((int(coordinate[totals[r]]), parts), None)
    covered = {code for total, parts in found for code in (total, *parts)}
    return list(found) if len(covered) == size else []

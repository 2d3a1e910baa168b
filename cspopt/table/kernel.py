"""A sparse basis of the kernel of a table's relations: the moves an attacker may make.

A table built as sums (tau-ARGUS and CSPLIB files, :mod:`cspopt.table.structure`) has a
*total* in every relation, the one cell whose coefficient has a sign of its own, and every
deviation ``x`` with ``A x = 0`` is fixed by its values on the cells that are never a total:
peeling the relations whose other cells are known gives each total as a combination of
those, so that ``x = N z`` with ``N`` the 0/1 matrix of which of them each cell adds up.
Where those cells are not free of each other (a total that two relations give, as in the
hierarchical CSPLIB tables), the relations left over are eliminated on them, the cells that
the fewest others add up eliminated first, which keeps the basis 0/1 there.

The attacker LP in the kernel's coordinates has a row per kernel dimension instead of one
per relation (often twenty times fewer; :class:`~cspopt.models.interval.CapacityOracle`).
"""

from __future__ import annotations

from collections import deque

import numpy as np
import scipy.sparse as sp

__all__ = ["kernel_basis"]

#: the most cells that are never a total, and relations left over, that the dense
#: elimination of the leftover relations takes on (8 MB a matrix)
_DENSE_LIMIT = 1_000_000


def kernel_basis(relations: sp.spmatrix) -> sp.csr_matrix | None:
    """A basis ``N`` (cells x kernel dimension) of ``{x : relations @ x = 0}``, sparse, or
    None where the relations are not sums (a relation without a cell whose coefficient has a
    sign of its own) or the elimination would be large.

    Columns are linearly independent and span the kernel exactly: every kernel vector is fixed
    by its values on the cells that are never a total (the peeling), and the basis is the
    kernel of the relations restricted to those. Cost: the peeling is linear in the
    relations' entries; the elimination is dense on the leftover relations.
    """
    a = sp.csr_matrix(relations, dtype=float, copy=True)
    a.eliminate_zeros()
    m, n = a.shape
    total = np.zeros(n, dtype=bool)
    for r in range(m):
        cells = a.indices[a.indptr[r]:a.indptr[r + 1]]
        signs = a.data[a.indptr[r]:a.indptr[r + 1]] > 0
        lone = ([cells[~signs][0]] if (~signs).sum() == 1 else []) + (
            [cells[signs][0]] if signs.sum() == 1 else [])
        if not lone or cells.size < 2:
            return None
        total[lone[0]] = True  # (1, 1) rows: the negative one, as JJ files write totals
    parts = np.flatnonzero(~total)
    basis: dict[int, dict[int, float]] = {int(c): {j: 1.0} for j, c in enumerate(parts)}
    by_cell = a.T.tocsr()
    unknown = np.asarray((a[:, total] != 0).sum(axis=1)).ravel()
    queue = deque(np.flatnonzero(unknown == 1).tolist())
    while queue:
        r = queue.popleft()
        cells = a.indices[a.indptr[r]:a.indptr[r + 1]]
        coef = a.data[a.indptr[r]:a.indptr[r + 1]]
        left = [i for i, c in enumerate(cells.tolist()) if c not in basis]
        if len(left) != 1:
            continue
        cell, scale = int(cells[left[0]]), coef[left[0]]
        row: dict[int, float] = {}
        for c, v in zip(cells.tolist(), coef):
            if c != cell:
                for j, x in basis[c].items():
                    row[j] = row.get(j, 0.0) - v * x / scale
        basis[cell] = {j: x for j, x in row.items() if x != 0.0}
        for r2 in by_cell.indices[by_cell.indptr[cell]:by_cell.indptr[cell + 1]].tolist():
            unknown[r2] -= 1
            if unknown[r2] == 1:
                queue.append(r2)
    if len(basis) < n:
        return None
    rows = [c for c, row in basis.items() for _ in row]
    cols = [j for row in basis.values() for j in row]
    vals = [x for row in basis.values() for x in row.values()]
    peeled = sp.csr_matrix((vals, (rows, cols)), shape=(n, parts.size))
    residual = sp.csr_matrix(a @ peeled)
    residual.eliminate_zeros()
    open_rows = np.flatnonzero(np.diff(residual.indptr))
    if open_rows.size:
        if open_rows.size * parts.size > _DENSE_LIMIT:
            return None
        # eliminate first the parts that the fewest cells add up: the basis stays sparse
        order = np.argsort(np.diff(peeled.tocsc().indptr), kind="stable")
        peeled = sp.csr_matrix(peeled @ _dense_kernel(residual[open_rows].toarray(), order))
        peeled.data[np.abs(peeled.data) < 1e-12] = 0.0
        peeled.eliminate_zeros()
    scale = max(1.0, float(np.abs(a.data).max()))
    if peeled.shape[1] == 0 or abs(a @ peeled).max() > 1e-9 * scale:
        return None
    return peeled


def _dense_kernel(matrix: np.ndarray, order: np.ndarray) -> sp.csr_matrix:
    """A basis of ``{z : matrix @ z = 0}`` by Gauss-Jordan elimination with partial pivoting,
    columns tried as pivots in ``order``."""
    work = matrix[:, order].astype(float)
    m, n = work.shape
    pivots: list[int] = []
    r = 0
    for c in range(n):
        if r == m:
            break
        i = r + int(np.argmax(np.abs(work[r:, c])))
        if abs(work[i, c]) < 1e-9:
            continue
        work[[r, i]] = work[[i, r]]
        work[r] /= work[r, c]
        others = np.flatnonzero(np.abs(work[:, c]) > 1e-12)
        others = others[others != r]
        work[others] -= np.outer(work[others, c], work[r])
        pivots.append(c)
        r += 1
    free = np.setdiff1d(np.arange(n), pivots)
    kernel = np.zeros((n, free.size))
    kernel[free, np.arange(free.size)] = 1.0
    kernel[pivots] = -work[:len(pivots)][:, free]
    kernel[np.abs(kernel) < 1e-12] = 0.0
    out = np.zeros_like(kernel)
    out[order] = kernel
    return sp.csr_matrix(out)

"""Gaussian elimination for exact disclosure: publish the cells one by one, each only if no
sensitive cell becomes a linear combination of the published ones.

Statistics Norway's GaussSuppression (Langsrud 2024) decides exact disclosure on any linear
table by elimination over its model matrix, in seconds. Here in the kernel's coordinates:
every completion is ``x = N z`` (:func:`cspopt.table.kernel.kernel_basis`), a published
cell ``j`` pins ``N_j z = 0``, and sensitive cell ``p`` stays movable while its row ``N_p``
is not in the span of the published rows. Keeping that span orthonormal, a candidate is
published when the part of its row outside the span leaves every sensitive row outside it
too; otherwise it is suppressed. The order decides the pattern: dearest first publishes
the costly cells while it can (GaussSuppression's own order), an LP point's order those the
relaxation does not suppress.

Real completions without bounds ((P) of Almeida & Carvalho 2005, on any relation matrix);
where bounds bind, the caller's audit judges the pattern and repairs it.

Complexity: ``O(c k^2)`` for ``c`` candidates and a kernel of dimension ``k``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from cspopt.table.kernel import kernel_basis

__all__ = ["eliminate"]

#: a row part below this (relative to the row) lies in the span
_IN_SPAN = 1e-8
#: the most entries (cells x kernel dimension) the dense elimination takes on (400 MB)
DENSE_LIMIT = 50_000_000


def eliminate(table, candidates: np.ndarray, order: np.ndarray) -> np.ndarray | None:
    """Which ``candidates`` (sorted cell ids) to suppress, the others published one by one
    in ``order`` (positions into ``candidates``) while every sensitive cell stays movable;
    a boolean mask over ``candidates``. Cells neither sensitive nor candidates are
    published from the start. ``None`` where the kernel's dense rows would exceed
    :data:`DENSE_LIMIT` entries (or, for relations that are not sums, the SVD a quarter of
    it)."""
    n = table.num_cells
    basis = kernel_basis(table.relation_matrix)
    if basis is None:  # relations that are not sums: the SVD's null space, dense
        if n * n > DENSE_LIMIT // 4:
            return None
        rows = scipy.linalg.null_space(table.relation_matrix.toarray())
    elif n * basis.shape[1] > DENSE_LIMIT:
        return None
    else:
        rows = basis.toarray()
    k = rows.shape[1]
    span = np.zeros((k, k))  # an orthonormal basis of the published rows' span, by row
    size = 0
    is_candidate = np.zeros(n, dtype=bool)
    is_candidate[candidates] = True
    sensitive = table.sensitive_cells
    scale = np.maximum(np.linalg.norm(rows[sensitive], axis=1), 1e-300)
    outside = rows[sensitive].copy()  # the sensitive rows' parts outside the span

    def publish(cell: int, *, whatever: bool = False) -> bool:
        nonlocal size, outside
        row = rows[cell]
        r = row
        for _ in range(2):  # twice: Gram-Schmidt keeps its orthogonality so
            r = r - span[:size].T @ (span[:size] @ r)
        length = np.linalg.norm(r)
        if length <= _IN_SPAN * max(np.linalg.norm(row), 1e-300):
            return True  # already known from the published cells
        q = r / length
        left = outside - np.outer(outside @ q, q)
        if not whatever and np.any(np.linalg.norm(left, axis=1) <= _IN_SPAN * scale):
            return False
        span[size] = q
        size += 1
        outside = left
        return True

    for cell in np.flatnonzero(~is_candidate & ~table.sensitive).tolist():
        publish(cell, whatever=True)  # the cells that may not be suppressed
    suppressed = np.ones(candidates.size, dtype=bool)
    for position in np.asarray(order).tolist():
        if publish(int(candidates[position])):
            suppressed[position] = False
    return suppressed

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
#: a sensitive row whose part outside the span falls below this (squared, relative) gets
#: that part recomputed, not downdated: the downdate's round-off would decide it
_RECOMPUTE = 1e-6
#: a row whose projection off the span keeps less than this part of its norm is projected
#: again
_CANCELLED = 0.7
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
    is_candidate = np.zeros(n, dtype=bool)
    is_candidate[candidates] = True
    elimination = _Elimination(rows, table.sensitive_cells)
    # the cells that may not be suppressed, published whatever they reveal
    elimination.publish(np.flatnonzero(~is_candidate & ~table.sensitive), whatever=True)
    published = elimination.publish(np.asarray(candidates)[np.asarray(order, dtype=np.int64)])
    suppressed = np.ones(candidates.size, dtype=bool)
    suppressed[np.asarray(order, dtype=np.int64)[published]] = False
    return suppressed


class _Elimination:
    """The span of the published rows (an orthonormal basis) and what lies outside it of
    each sensitive row, grown block by block: a block's rows are projected off the span
    in two matrix products, then decided one by one against the block's own new
    directions (sequential decisions, the matrix products of a block at once: the
    one-row-at-a-time loop was memory-bound, 248 s on a 6,552-cell count table)."""

    #: rows decided per block
    BLOCK = 64

    def __init__(self, rows: np.ndarray, sensitive: np.ndarray):
        self.rows = rows
        k = rows.shape[1]
        self.span = np.zeros((k, k))  # orthonormal rows; the first ``size`` in use
        self.size = 0
        self.outside = rows[sensitive].copy()  # orthogonal to the span
        self.scale = np.maximum(np.linalg.norm(self.outside, axis=1), 1e-300)
        self.left = np.einsum("ij,ij->i", self.outside, self.outside)  # squared norms

    def publish(self, cells: np.ndarray, *, whatever: bool = False) -> np.ndarray:
        """Publish ``cells`` in turn, each only if every sensitive row stays outside the
        span (any with ``whatever``); which were published."""
        done = np.zeros(cells.size, dtype=bool)
        for begin in range(0, cells.size, self.BLOCK):
            block = cells[begin:begin + self.BLOCK]
            done[begin:begin + block.size] = self._block(block, whatever)
        return done

    def _block(self, cells: np.ndarray, whatever: bool) -> np.ndarray:
        rows = self.rows[cells]
        span = self.span[:self.size]
        residual = rows - (rows @ span.T) @ span
        # again where the projection cancelled much of a row: Gram-Schmidt keeps its
        # orthogonality so ("twice is enough", Parlett 1980 §6.9)
        again = (np.linalg.norm(residual, axis=1)
                 < _CANCELLED * np.linalg.norm(rows, axis=1))
        if again.any():
            residual[again] -= (residual[again] @ span.T) @ span
        products = self.outside @ residual.T  # (sensitive x block)
        # the block's new directions, and the sensitive rows' parts along each
        new = np.empty((cells.size, rows.shape[1]))
        along = np.empty((cells.size, self.outside.shape[0]))
        m = 0
        left = self.left
        done = np.zeros(cells.size, dtype=bool)
        for j in range(cells.size):
            r = residual[j]
            weights = np.zeros(m)
            for _ in range(2 if m else 0):  # off the block's new directions, twice too
                again = new[:m] @ r
                r = r - again @ new[:m]
                weights += again
            length = np.linalg.norm(r)
            if length <= _IN_SPAN * max(np.linalg.norm(rows[j]), 1e-300):
                done[j] = True  # already known from the published cells
                continue
            q = r / length
            product = (products[:, j] - along[:m].T @ weights) / length
            after = left - product * product
            close = after <= _RECOMPUTE * self.scale ** 2  # round-off could decide these
            if close.any():
                exact = (self.outside[close] - along[:m, close].T @ new[:m]
                         - np.outer(product[close], q))
                after[close] = np.einsum("ij,ij->i", exact, exact)
            if not whatever and np.any(after <= (_IN_SPAN * self.scale) ** 2):
                continue
            new[m], along[m] = q, product
            m += 1
            left = after
            done[j] = True
        if m:
            self.span[self.size:self.size + m] = new[:m]
            self.size += m
            self.outside -= along[:m].T @ new[:m]
            self.left = np.einsum("ij,ij->i", self.outside, self.outside)
        return done

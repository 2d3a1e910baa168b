"""The one model type every matrix builder returns and every engine's run takes.

``min cost x  s.t.  row_lower <= matrix x <= row_upper,  col_lower <= x <= col_upper``, with
``integer`` marking the integer columns: the compact models of both protections
(:func:`cspopt.models.interval.build_fs_matrix`, :func:`cspopt.models.exact.build_matrix`) and
the single-cell and star-cut models are built as one, and
:func:`cspopt.backends.highs.run_highs` / :func:`cspopt.backends.scip.run_scip` solve one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

__all__ = ["LinearProgram"]


@dataclass(frozen=True)
class LinearProgram:
    """A linear (mixed-integer) program on sparse arrays."""

    cost: np.ndarray
    matrix: sp.spmatrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape

    def with_col_lower(self, col_lower: np.ndarray) -> LinearProgram:
        """The same program with other lower bounds on the columns."""
        return replace(self, col_lower=col_lower)

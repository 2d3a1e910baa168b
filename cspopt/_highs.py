"""Handing a sparse model to HiGHS in one call (``Highs.passModel``), shared by every route.

Pyomo's persistent interfaces need 100+ s for a 1e6-variable model where ``passModel`` on
arrays takes about 2 s, so every formulation reaches HiGHS through here.
"""

from __future__ import annotations

import highspy
import numpy as np
import scipy.sparse as sp

from cspopt.errors import SolverError

__all__ = ["new_highs"]


def new_highs(matrix, cost, col_lower, col_upper, row_lower, row_upper, *, integer=None,
              verbose: bool = False, presolve: bool = True, what: str = "model") -> highspy.Highs:
    """A silent :class:`highspy.Highs` holding ``min cost x, row_lower <= A x <= row_upper,
    col_lower <= x <= col_upper`` (``integer``: boolean mask of integer columns).

    Infinite bounds become HiGHS's infinity. ``presolve=False`` keeps the basis between
    re-solves after bound or objective changes.
    """
    h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    if not presolve:
        h.setOptionValue("presolve", "off")
    csc = sp.csc_matrix(matrix)
    csc.sort_indices()
    inf = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = int(csc.shape[1]), int(csc.shape[0])
    lp.col_cost_ = np.asarray(cost, float)
    lp.col_lower_ = np.where(np.isfinite(col_lower), col_lower, -inf)
    lp.col_upper_ = np.where(np.isfinite(col_upper), col_upper, inf)
    lp.row_lower_ = np.where(np.isfinite(row_lower), row_lower, -inf)
    lp.row_upper_ = np.where(np.isfinite(row_upper), row_upper, inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = csc.indptr.astype(np.int32)
    lp.a_matrix_.index_ = csc.indices.astype(np.int32)
    lp.a_matrix_.value_ = csc.data.astype(float)
    if integer is not None and np.any(integer):
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in integer]
    if h.passModel(lp) != highspy.HighsStatus.kOk:
        raise SolverError(f"HiGHS rejected the {what}")
    return h

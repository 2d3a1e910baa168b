"""Handing a sparse model to HiGHS in one call (``Highs.passModel``), shared by every route.

Pyomo's persistent interfaces need 100+ s for a 1e6-variable model where ``passModel`` on
arrays takes about 2 s, so every formulation reaches HiGHS through here.
"""

from __future__ import annotations

import highspy
import numpy as np
import scipy.sparse as sp

from cspopt._console import quiet_c_stdout
from cspopt.errors import SolverError

__all__ = ["highs", "new_highs", "dual_bound"]


def highs(*, verbose: bool = False) -> highspy.Highs:
    """An empty :class:`highspy.Highs` that printed nothing: its banner (HiGHS >= 1.16 prints
    one from the constructor, on C-level stdout) is discarded, its log off unless
    ``verbose`` (then on stderr, as HiGHS's log goes to its own stream when enabled)."""
    with quiet_c_stdout():
        h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    return h


def new_highs(matrix, cost, col_lower, col_upper, row_lower, row_upper, *, integer=None,
              verbose: bool = False, presolve: bool = True, what: str = "model") -> highspy.Highs:
    """A silent :class:`highspy.Highs` holding ``min cost x, row_lower <= A x <= row_upper,
    col_lower <= x <= col_upper`` (``integer``: boolean mask of integer columns).

    Infinite bounds become HiGHS's infinity. ``presolve=False`` keeps the basis between
    re-solves after bound or objective changes.
    """
    h = highs(verbose=verbose)
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


def dual_bound(h: highspy.Highs) -> float:
    """A lower bound on the optimum of the minimisation LP in ``h`` from its row duals alone.

    For any row prices ``y`` (``y_i > 0`` pricing a finite lower side, ``y_i < 0`` a finite
    upper side), weak duality gives

        min c x  >=  sum_i y_i side_i  +  sum_j min_{l_j <= x_j <= u_j} (c - A^T y)_j x_j,

    so the value does not depend on how accurately the solver met its tolerances (the
    "safe bound" of Neumaier & Shcherbina 2004, Math. Program. 99:283-296). The solver's
    objective can sit above the LP optimum by its dual infeasibility; rounding such a value up
    to the next integer (:func:`cspopt.result.integral_bound`) could then claim a unit the LP
    does not prove. ``-inf`` when a nonzero reduced cost meets an infinite column bound.
    """
    lp = h.getLp()
    if lp.sense_ != highspy.ObjSense.kMinimize:
        raise SolverError("dual_bound expects a minimisation LP")
    y = np.asarray(h.getSolution().row_dual, float)
    row_lower, row_upper = np.asarray(lp.row_lower_), np.asarray(lp.row_upper_)
    y = np.where(((y > 0) & (row_lower > -np.inf)) | ((y < 0) & (row_upper < np.inf)), y, 0.0)
    shape = (lp.num_row_, lp.num_col_)
    arrays = (np.asarray(lp.a_matrix_.value_), np.asarray(lp.a_matrix_.index_),
              np.asarray(lp.a_matrix_.start_))
    matrix = (sp.csc_matrix(arrays, shape=shape)
              if lp.a_matrix_.format_ == highspy.MatrixFormat.kColwise
              else sp.csr_matrix(arrays, shape=shape))
    reduced = np.asarray(lp.col_cost_, float) - matrix.T @ y
    col_lower, col_upper = np.asarray(lp.col_lower_), np.asarray(lp.col_upper_)
    with np.errstate(invalid="ignore"):  # 0 * inf in the branches np.where drops
        columns = np.where(reduced > 0, reduced * col_lower,
                           np.where(reduced < 0, reduced * col_upper, 0.0))
        rows = np.where(y > 0, y * row_lower, np.where(y < 0, y * row_upper, 0.0))
    return float(rows.sum() + columns.sum() + lp.offset_)

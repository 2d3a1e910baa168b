"""The line bound: a cheap lower bound for interval protection from each relation alone.

Kelly, Golden & Assad (1992), improved by Castro (2007, "Lower Bounding Procedure"): for
every protected cell ``p`` and every relation (row, column, subtotal) that holds it, the
other suppressed cells of that relation must be able to absorb ``p``'s move, or the
attacker could not move ``p`` by its level. It needs one small LP, no attacker problem, so
heuristics report it instead of a lower bound of 0.
"""

from __future__ import annotations

import numpy as np

from cspopt.backends.highs import OPTIMAL, dual_bound, new_highs
from cspopt.models.interval.instance import IntervalInstance

__all__ = ["line_bound"]


def line_bound(inst: IntervalInstance) -> float:
    """``min w.y`` over ``0 <= y <= 1`` subject to, for each protected cell ``p`` and each
    relation ``r`` holding it,

        sum_{j candidate in r} min(|A_rj| m_j, b_rp) y_j  >=  b_rp
        b_rp = |A_rp| n_p - sum_{s sensitive in r, s != p} |A_rs| m_s

    with ``n_p = max(lpl_p, upl_p, spl_p / 2)`` and ``m_j = max(a_j - lb_j, ub_j - a_j)`` the
    most cell ``j`` can move: moving ``p`` by ``n_p`` in one direction moves the others of
    ``r`` by ``|A_rp| n_p`` in total (Kelly et al. 1992; Castro 2007's "max{lpl_p, upl_p}"
    for the row and the column of ``p``); a coefficient above the right-hand side is clipped
    to it, which binary ``y`` allows. Any linear table; valid, and far weaker than the
    capacity LP. The value is HiGHS's safe dual bound
    (:func:`cspopt.backends.highs.dual_bound`), so solver tolerances cannot overstate it.

    Complexity: one LP with a row per protected cell and relation and a column per
    candidate.
    """
    table = inst.table
    if not inst.protected.size or not inst.candidates.size:
        return 0.0
    matrix = table.relation_matrix.tocsr(copy=True)
    matrix.sum_duplicates()
    matrix = abs(matrix)
    need = np.maximum(np.maximum(table.lower_protection[inst.protected],
                                 table.upper_protection[inst.protected]),
                      table.sliding_protection[inst.protected] / 2)
    move = np.maximum(table.values - table.apriori_lower, table.apriori_upper - table.values)
    holds = matrix[:, inst.protected].tocoo()  # relation x protected cell: |A_rp|
    r, k, coef_p = holds.row, holds.col, holds.data
    lines = matrix[r].tocsr()  # one row per (p, r)
    with np.errstate(invalid="ignore"):
        lines.data = lines.data * move[lines.indices]  # |A_rj| m_j
    lines.data = np.nan_to_num(lines.data, nan=np.inf)
    lines.data[lines.indices == np.repeat(inst.protected[k], np.diff(lines.indptr))] = 0.0
    sensitive = np.zeros(table.num_cells)  # p is not its own help (its entry is 0 now)
    sensitive[inst.free[table.sensitive[inst.free]]] = 1.0
    rhs = coef_p * need[k] - lines @ sensitive
    keep = rhs > 1e-9
    if not keep.any():
        return 0.0
    a = lines[keep][:, inst.candidates].tocsr()
    a.data = np.minimum(a.data, np.repeat(rhs[keep], np.diff(a.indptr)))
    h = new_highs(a, inst.weights[inst.candidates].astype(float),
                  np.zeros(inst.candidates.size), np.ones(inst.candidates.size), rhs[keep],
                  np.full(int(keep.sum()), np.inf), what="line-bound LP")
    h.run()
    if h.getModelStatus() != OPTIMAL:
        return 0.0  # infeasible lines: the instance's own checks name the cell
    return max(0.0, float(dual_bound(h)))

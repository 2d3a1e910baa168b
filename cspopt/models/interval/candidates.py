"""Candidates for initially exposed primaries (Serpell, Smith, Clark & Staggemeier 2013).

With only the primaries suppressed, the exposed primaries ``E`` (Fischetti–Salazar's
preprocessing) split into *initially* exposed ones ``I`` and *consequently* exposed ones, which
are exposed only through other exposed primaries. Serpell et al. show ``I`` is usually much
smaller than ``E`` and find a superset ``K`` of ``I`` cheaply, algorithm K5 (their Fig. 4):

    K = K_1  u  (K_pl n E)  u  (K_nv n E)  u  K_n,        K_n = E \\ E_u,

- ``K_1``: primaries that are the only primary in some relation;
- ``K_pl`` (eqs 4-8): primaries that the other primaries of some relation cannot cover when
  they move only within their own protection ranges;
- ``K_nv`` (eq. 9): the same when the other primaries move over their whole a-priori range
  (the paper's "nominal values": down to 0 in a nonnegative table);
- ``E_u``: primaries exposed by *unpicking* (one relation at a time, repeated: interval
  propagation), so ``K_n`` are those only an LP attacker exposes.

cspopt uses ``K`` to decide where capacity cuts are *separated* at fractional points; every
integral point is still checked for every primary of ``E``, so the optimum is exact whatever
``K`` is (see :mod:`cspopt.solving.branch_and_cut`).

Complexity: ``O(nnz)`` per propagation round (at most ``max_rounds``) and ``O(nnz)`` for the
relation tests.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["candidate_primaries", "unpicked"]


def _signed_room(M: sp.csr_matrix, cells: np.ndarray, up: np.ndarray, down: np.ndarray):
    """Per nonzero ``(j, p)`` of ``M`` restricted to ``cells``: how far the *other* given
    cells of relation ``j`` let ``x_p`` rise and fall when each cell ``i`` moves within
    ``[a_i - down_i, a_i + up_i]`` (``x_p - a_p = sum_i s_i (x_i - a_i)``,
    ``s_i = -M_ji / M_jp``). Returns ``(row, position, rise, fall)``."""
    sub = M[:, cells].tocoo()
    row, col, m = sub.row, sub.col, sub.data
    # contribution of cell i to sum_i M_ji (x_i - a_i), as an interval [lo, hi]
    hi = np.where(m > 0, m * up[col], -m * down[col])
    lo = np.where(m > 0, -m * down[col], m * up[col])

    def others(values):  # row sum without the entry itself (inf-safe)
        finite = np.where(np.isfinite(values), values, 0.0)
        total = np.bincount(row, weights=finite, minlength=M.shape[0])
        count = np.bincount(row, weights=~np.isfinite(values), minlength=M.shape[0])
        return total[row] - finite, count[row] - ~np.isfinite(values)

    hi_rest, hi_inf = others(hi)
    lo_rest, lo_inf = others(lo)
    hi_rest = np.where(hi_inf > 0, np.inf, hi_rest)
    lo_rest = np.where(lo_inf > 0, -np.inf, lo_rest)
    # M_jp (x_p - a_p) = -(others): rise of x_p = max over others of -(...)/M_jp
    rise = np.where(m > 0, -lo_rest / m, -hi_rest / m)
    fall = np.where(m > 0, hi_rest / m, lo_rest / m)
    return row, col, rise, fall


def unpicked(table, *, max_rounds: int = 200, tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray]:
    """Unpicking with only the primaries suppressed: the bounds one relation at a time gives,
    repeated until nothing tightens (the "shuttle" idea). Returns ``(lower, upper)`` per
    sensitive cell (``table.sensitive_cells`` order)."""
    cells = table.sensitive_cells
    a = table.values[cells]
    lower = table.apriori_lower[cells].astype(float)
    upper = table.apriori_upper[cells].astype(float)
    M = table.relation_matrix.tocsr()
    for _ in range(max_rounds):
        row, col, rise, fall = _signed_room(M, cells, upper - a, a - lower)
        new_upper = upper.copy()
        new_lower = lower.copy()
        np.minimum.at(new_upper, col, a[col] + rise)
        np.maximum.at(new_lower, col, a[col] - fall)
        scale = tol * np.maximum(1.0, np.abs(a))
        changed = np.any(upper - new_upper > scale) or np.any(new_lower - lower > scale)
        lower, upper = new_lower, new_upper
        if not changed:
            break
    return lower, upper


def candidate_primaries(table, exposed: np.ndarray) -> np.ndarray:
    """Algorithm K5 of Serpell et al. (2013): a boolean mask over ``exposed`` (sensitive cell
    ids, the set ``E``) of the candidates for initially exposed primaries."""
    cells = table.sensitive_cells
    exposed = np.asarray(exposed, dtype=np.int64)
    in_e = np.isin(cells, exposed)
    a = table.values[cells]
    lpl, upl, spl = (table.lower_protection[cells], table.upper_protection[cells],
                     table.sliding_protection[cells])
    M = table.relation_matrix.tocsr()
    alone = np.zeros(cells.size, dtype=bool)  # K_1
    sub = M[:, cells]
    primaries_per_relation = np.diff(sub.indptr)
    coo = sub.tocoo()
    alone[coo.col[primaries_per_relation[coo.row] == 1]] = True

    def short(up, down):  # some relation's other primaries cannot cover the ranges
        _, col, rise, fall = _signed_room(M, cells, up, down)
        bad = (rise < upl[col] - 1e-9) | (fall < lpl[col] - 1e-9) | (rise + fall < spl[col] - 1e-9)
        mask = np.zeros(cells.size, dtype=bool)
        mask[col[bad]] = True
        return mask

    k_pl = short(upl, lpl)  # eqs (6)-(7): the others move within their protection ranges
    k_nv = short(table.apriori_upper[cells] - a, a - table.apriori_lower[cells])  # eq. (9)
    lower, upper = unpicked(table)
    tol = 1e-7 * np.maximum(1.0, np.abs(a))
    by_unpicking = ((upper < a + upl - tol) | (lower > a - lpl + tol)
                    | (upper - lower < spl - tol))
    k_n = in_e & ~by_unpicking
    chosen = alone | ((k_pl | k_nv) & in_e) | k_n
    return chosen[np.searchsorted(cells, exposed)]

"""The Fischetti–Salazar compact model of interval protection, on any linear table.

Castro (2007) eq. (3), after Fischetti & Salazar-Gonzalez (1999, 2001). For each sensitive
cell ``p`` two deviation vectors ``x^{l,p}`` and ``x^{u,p}`` of the whole table must be
attacker completions (``A x = 0``) that move ``p`` down by ``lpl_p`` and up by ``upl_p``:

    min  sum_i w_i y_i
    s.t. A x^{l,p} = 0,   -(a_i - lb_i) y_i <= x^{l,p}_i <= M_i y_i,   x^{l,p}_p <= -lpl_p
         A x^{u,p} = 0,   -(a_i - lb_i) y_i <= x^{u,p}_i <= M_i y_i,   x^{u,p}_p >=  upl_p
         x^{u,p}_p - x^{l,p}_p >= spl_p                      (sliding protection)
         y_i in {0, 1}

Published cells have ``y_i = 0`` (their deviations are dropped), sensitive cells ``y_i = 1``.

Big-M values and preprocessing: :mod:`cspopt.models.interval.build`. Two routes build the same
model: sparse arrays for HiGHS (:func:`build_fs_matrix`) and a readable Pyomo model
(:func:`build_fs_model`); the tests prove them identical.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from cspopt.backends.program import LinearProgram
from cspopt.models.interval.build import build_interval_instance
from cspopt.models.interval.instance import IntervalInstance
from cspopt.table import Table

__all__ = ["build_fs_matrix", "build_fs_model", "y_start"]


def y_start(inst: IntervalInstance, y, num_columns: int) -> np.ndarray:
    """A MIP start for :func:`build_fs_matrix`'s columns that gives only ``y`` (0/1 over the
    candidates, made minimal so that it meets the deviation-class rows) and leaves the
    deviations ``nan`` for the solver to complete."""
    start = np.full(num_columns, np.nan)
    start[:inst.candidates.size] = inst.minimal(np.asarray(y, float))
    return start


def build_fs_matrix(inst: IntervalInstance, *, relax: bool = False) -> LinearProgram:
    """The model as a :class:`~cspopt.backends.program.LinearProgram`. Columns: ``y`` for
    candidates, then per protected cell and side one deviation block over the free cells.

    Each block is measured in units of its cell's largest requirement
    (:attr:`IntervalInstance.requirement_unit`; ``x / unit`` for ``x``; ``A x = 0`` is
    homogeneous), so the model of a table scaled by 1e3 is the model of the table: with raw
    units HiGHS claimed a wrong proven optimum on a fuzz table scaled by 1e3, its tolerances
    being absolute. The optimum and LP bound do not change.
    """
    table = inst.table
    unit = inst.requirement_unit
    nf, ny = inst.free.size, inst.candidates.size
    y_of_free = np.full(nf, -1, dtype=np.int64)
    pos = np.searchsorted(inst.free, inst.candidates)
    y_of_free[pos] = np.arange(ny)
    y_lower, y_upper = inst.candidate_bounds()
    col_lo, col_hi = [y_lower], [y_upper]
    links = inst.link_matrix().tocoo()  # y_i = y_j within a deviation class
    rows, cols, vals = [links.row], [links.col], [links.data]
    lower, upper = [np.zeros(links.shape[0])], [np.zeros(links.shape[0])]
    num_cols, num_rows = ny, links.shape[0]
    rel = inst.relations.tocoo()
    cand_free = np.flatnonzero(y_of_free >= 0)
    for k, (cell, (down, up)) in enumerate(zip(inst.protected.tolist(), inst.sides)):
        p_col = int(np.searchsorted(inst.free, cell))
        block_cols = {}
        lpl, upl, spl = (table.lower_protection[cell], table.upper_protection[cell],
                         table.sliding_protection[cell])
        down_room, up_room = inst.rooms(k)
        for side, needed in (("l", down), ("u", up)):
            if not needed:
                continue
            off = num_cols
            block_cols[side] = off
            num_cols += nf
            lo_bounds, hi_bounds = -down_room.copy(), up_room.copy()
            if side == "l":  # x^{l,p}_p <= -lpl_p
                hi_bounds[p_col] = min(hi_bounds[p_col], -lpl)
            else:  # x^{u,p}_p >= upl_p
                lo_bounds[p_col] = max(lo_bounds[p_col], upl)
            col_lo.append(lo_bounds / unit[k])
            col_hi.append(hi_bounds / unit[k])
            # relations: A x = 0
            rows.append(rel.row + num_rows)
            cols.append(rel.col + off)
            vals.append(rel.data)
            lower.append(np.zeros(inst.relations.shape[0]))
            upper.append(np.zeros(inst.relations.shape[0]))
            num_rows += inst.relations.shape[0]
            # linking, candidates only: x_i + (a_i - lb_i) y_i >= 0 and x_i - M_i y_i <= 0
            for coef, lo_r, hi_r in ((down_room[cand_free] / unit[k], 0.0, np.inf),
                                     (-up_room[cand_free] / unit[k], -np.inf, 0.0)):
                r = num_rows + np.arange(cand_free.size)
                rows += [r, r]
                cols += [off + cand_free, y_of_free[cand_free]]
                vals += [np.ones(cand_free.size), coef]
                lower.append(np.full(cand_free.size, lo_r))
                upper.append(np.full(cand_free.size, hi_r))
                num_rows += cand_free.size
        if spl > 0:  # x^{u,p}_p - x^{l,p}_p >= spl_p
            rows += [np.array([num_rows]), np.array([num_rows])]
            cols += [np.array([block_cols["u"] + p_col]), np.array([block_cols["l"] + p_col])]
            vals += [np.ones(1), -np.ones(1)]
            lower.append(np.array([spl / unit[k]]))
            upper.append(np.array([np.inf]))
            num_rows += 1
    matrix = sp.csr_matrix((np.concatenate(vals) if vals else np.zeros(0),
                            (np.concatenate(rows) if rows else np.zeros(0, np.int64),
                             np.concatenate(cols) if cols else np.zeros(0, np.int64))),
                           shape=(num_rows, num_cols))
    cost = np.zeros(num_cols)
    cost[:ny] = inst.weights[inst.candidates]
    integer = np.zeros(num_cols, dtype=bool)
    if not relax:
        integer[:ny] = True
    return LinearProgram(cost, matrix, np.concatenate(lower) if lower else np.zeros(0),
                         np.concatenate(upper) if upper else np.zeros(0),
                         np.concatenate(col_lo), np.concatenate(col_hi), integer)


def build_fs_model(table: Table, *, relax: bool = False, **options):
    """The Fischetti–Salazar model (Castro 2007 eq. (3)) as a readable Pyomo model."""
    import pyomo.environ as pyo

    inst = options.pop("instance", None) or build_interval_instance(table, **options)
    t = inst.table
    m = pyo.ConcreteModel(name=f"FS {t.name}".strip(),
                          doc="Fischetti & Salazar-Gonzalez interval model, Castro (2007) eq. (3)")
    m.Y = pyo.Set(initialize=inst.candidates.tolist(), doc="cells that may be suppressed")
    m.F = pyo.Set(initialize=inst.free.tolist(), doc="cells that may deviate (not published)")
    blocks = [(k, side) for k, (down, up) in enumerate(inst.sides)
              for side, need in (("l", down), ("u", up)) if need]
    m.B = pyo.Set(initialize=blocks, dimen=2, doc="(protected cell, side) deviation vectors")
    y_lower, y_upper = inst.candidate_bounds()
    bounds = {c: (float(lo), float(hi)) for c, lo, hi in zip(inst.candidates.tolist(), y_lower,
                                                             y_upper)}
    m.y = pyo.Var(m.Y, within=pyo.UnitInterval if relax else pyo.Binary,
                  bounds=lambda _, i: bounds[i],
                  doc="y_i = 1 if cell i is suppressed; 1 or 0 where its deviation class "
                      "forces it (cspopt.models.interval.linked)")
    first, second = inst.linked_pairs()
    m.L = pyo.Set(initialize=list(zip(inst.candidates[first].tolist(),
                                      inst.candidates[second].tolist())), dimen=2)
    m.linked = pyo.Constraint(
        m.L, doc="y_i = y_j: cells of one deviation class are suppressed together",
        rule=lambda _, i, j: m.y[i] == m.y[j])
    free_index = {c: j for j, c in enumerate(inst.free.tolist())}
    rooms = [inst.rooms(k) for k in range(inst.protected.size)]
    m.x = pyo.Var(m.B, m.F, doc="deviation x^{l,p} / x^{u,p} of cell i from a_i; the bounds of "
                  "x_p carry x^{l,p}_p <= -lpl_p and x^{u,p}_p >= upl_p",
                  bounds=lambda _, k, s, i: (-float(rooms[k][0][free_index[i]]),
                                             float(rooms[k][1][free_index[i]])))
    m.obj = pyo.Objective(expr=sum(float(inst.weights[i]) * m.y[i] for i in m.Y),
                          doc="min sum w_i y_i")
    rel = inst.relations.tocsr()
    free_cells = inst.free.tolist()
    m.R = pyo.Set(initialize=range(rel.shape[0]))
    m.relations = pyo.Constraint(
        m.B, m.R, doc="A x = 0: each deviation vector is an attacker completion",
        rule=lambda _, k, s, r: sum(float(v) * m.x[k, s, free_cells[j]] for j, v in zip(
            rel.indices[rel.indptr[r]:rel.indptr[r + 1]],
            rel.data[rel.indptr[r]:rel.indptr[r + 1]])) == 0)
    m.link_down = pyo.Constraint(
        m.B, m.Y, doc="-(a_i - lb_i) y_i <= x_i",
        rule=lambda _, k, s, i: m.x[k, s, i] >= -float(rooms[k][0][free_index[i]]) * m.y[i])
    m.link_up = pyo.Constraint(
        m.B, m.Y, doc="x_i <= M_i y_i",
        rule=lambda _, k, s, i: m.x[k, s, i] <= float(rooms[k][1][free_index[i]]) * m.y[i])

    for k, s in blocks:  # protection as bounds, as in the matrix route
        cell = int(inst.protected[k])
        var = m.x[k, s, cell]
        if s == "l":  # x^{l,p}_p <= -lpl_p
            var.setub(min(var.ub, -float(t.lower_protection[cell])))
        else:  # x^{u,p}_p >= upl_p
            var.setlb(max(var.lb, float(t.upper_protection[cell])))
    sliding = [k for k, (down, up) in enumerate(inst.sides)
               if t.sliding_protection[inst.protected[k]] > 0]
    m.sliding = pyo.Constraint(
        sliding, doc="x^{u,p}_p - x^{l,p}_p >= spl_p",
        rule=lambda _, k: m.x[k, "u", int(inst.protected[k])] - m.x[k, "l", int(
            inst.protected[k])] >= float(t.sliding_protection[inst.protected[k]]))
    m.instance = inst
    return m

"""The hypercube method on an n-dimensional table without hierarchies (GHMITER's core).

Repsilber (1994)'s method, as tau-ARGUS' GHMITER runs it (Giessing & Repsilber 2002): each
sensitive cell ``p = (c_1, ..., c_n)`` of an n-dimensional table, one total code ``t_e`` per
dimension, is protected by the cheapest *hypercube* through it: one partner code
``c'_e != c_e`` per dimension, and the ``2^n`` cells whose code in each dimension is ``c_e`` or
``c'_e``. Along dimension ``e`` the relation ``x_{t_e} = sum of the other codes`` stays
balanced when the two codes move by the same amount, in the same direction where one of them
is the total and in opposite ones where neither is; so moving the corners by ``delta`` times
the product of those signs is an attacker completion, in every relation at once. The
hypercube lets the attacker raise ``p`` by ``gamma^-`` (the least room of its corners in the
direction each moves, ``ub - a`` up, ``a - lb`` down) and lower it by ``gamma^+`` likewise;
it protects ``p`` when those meet ``upl_p``, ``lpl_p`` and their sum ``spl_p``. On 2-D
tables this is :func:`~cspopt.heuristics.hypercube.hypercube_heuristic`'s rectangle.

A hierarchical table is protected subtable by subtable in Modular's order, each by this
method, then audited and repaired whole (GHMITER's own frame, :mod:`cspopt.solving.modular`
with ``subtable_method="hypercube"``).
"""

from __future__ import annotations

import functools
import itertools
import logging

import numpy as np

from cspopt.budget import Budget
from cspopt.errors import InputError
from cspopt.heuristics.cell_arcs import PathsOutcome
from cspopt.heuristics.hypercube_choice import HypercubeChoice
from cspopt.models.interval.instance import IntervalInstance
from cspopt.table.recovered import product_structure

__all__ = ["hypercube_grid", "grid_totals"]

log = logging.getLogger(__name__)


def grid_totals(table) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shape of ``table`` (cells in row-major order) and each dimension's total code,
    from its relations (:func:`cspopt.table.recovered.product_structure`); an
    :class:`InputError` unless it is a grid of dimensions with one breakdown each (a total
    and its parts, unit coefficients): a table without hierarchies."""
    found = product_structure(table)
    if found is not None and not np.all(np.abs(table.relation_matrix.data) == 1):
        found = None
    if found is None or any(len(breakdowns) != 1 for breakdowns in found[1]):
        raise InputError(f"the n-dimensional hypercube needs a table whose cells form a grid "
                         f"of dimensions, each with one total of its other codes: "
                         f"{table.name or 'this table'} is not one")
    shape, breakdowns = found
    return shape, tuple(int(b[0][0]) for b in breakdowns)


def hypercube_grid(inst: IntervalInstance, shape, totals, *, budget: Budget | None = None
                   ) -> PathsOutcome:
    """The hypercube method on ``inst``'s table, a grid of ``shape`` whose dimension ``e``
    has the total code ``totals[e]`` (:func:`grid_totals`).

    For each protected cell, in decreasing order of its largest level, every hypercube
    through it whose corners are free cells is scored (numpy over the grid of partner
    codes, one array per corner): the least room of its corners each way, and its cost, the
    weight of the corners not yet suppressed (sensitive ones cost nothing). The cheapest
    feasible one is suppressed. A cell no hypercube protects is listed in ``failed``.

    Complexity ``O(2^n prod_e (k_e - 1))`` per protected cell, ``k_e`` codes in dimension
    ``e``.
    """
    shape, totals = tuple(int(s) for s in shape), np.asarray(totals)
    state = HypercubeChoice(inst)
    up, down = state.up, state.down
    dims = len(shape)
    for k, p in state.order(budget):
        at = np.unravel_index(p, shape)
        # per dimension: the partner codes (on their own axis) and the sign a corner there
        # moves with, relative to p
        partners, signs = [], []
        for e in range(dims):
            codes = np.delete(np.arange(shape[e]), at[e])
            axis = [1] * dims
            axis[e] = codes.size
            partners.append(codes.reshape(axis))
            signs.append(np.where((codes == totals[e]) != (at[e] == totals[e]), 1, -1)
                         .reshape(axis))
        rise, fall = up[p], down[p]
        usable, cost, corners = True, 0.0, []
        for chosen in itertools.product((False, True), repeat=dims):
            if not any(chosen):
                continue
            corner = np.ravel_multi_index(
                tuple(partners[e] if chosen[e] else at[e] for e in range(dims)), shape)
            sign = functools.reduce(np.multiply, [signs[e] for e in range(dims) if chosen[e]])
            rise = np.minimum(rise, np.where(sign > 0, up[corner], down[corner]))
            fall = np.minimum(fall, np.where(sign > 0, down[corner], up[corner]))
            usable = usable & state.free[corner]
            cost = cost + state.corner_cost(corner)
            corners.append(corner)
        best = state.choose(k, p, rise, fall, usable, cost)
        if best is not None:
            full = np.shape(rise)
            state.in_pattern[[int(np.broadcast_to(c, full)[best]) for c in corners]] = True
    return state.finish()

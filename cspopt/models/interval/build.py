"""Validate a table once and build its :class:`IntervalInstance`, with preprocessing.

Preprocessing (Fischetti & Salazar-Gonzalez 2001): sensitive cells that the other sensitive
cells already protect need no deviation vectors and no capacity constraints.

The big-M must not cut off a protecting pattern, or a lower bound would be invalid.
``M_i = ub_i - a_i`` is exact when ``ub_i`` is finite, as in every JJ file. On tables with a
network form (2-D, also with one hierarchical dimension) a protecting deviation decomposes
into cycles that carry the protection amount, so the requirement caps every room
(:meth:`IntervalInstance.room_cap`), also where ``ub_i = inf``. On other tables with
infinite upper bounds no such bound is known, and the builder refuses.
"""

from __future__ import annotations

import numpy as np

from cspopt.audit import LOCAL_AUDIT_FROM, interval_verdict, unproven_cells
from cspopt.errors import InputError
from cspopt.models.interval.instance import IntervalInstance, UpRoom
from cspopt.models.interval.linked import deviation_classes
from cspopt.models.suppression import suppression_options
from cspopt.table import Table

__all__ = ["build_interval_instance"]


def build_interval_instance(table: Table, *, weights=None, must_publish=None,
                            preprocessing: bool = True) -> IntervalInstance:
    """Validate once and build the arrays of the interval model."""
    if not table.has_interval_protection:
        raise InputError("no sensitive cell has a positive protection level; use the exact "
                         "models (cspopt.solve) or give lpl/upl/spl")
    weights, published = suppression_options(table, weights, must_publish)
    free = np.flatnonzero(~published)
    candidates = free[~table.sensitive[free]]
    a, lo, hi = table.values[free], table.apriori_lower[free], table.apriori_upper[free]
    slack = _ROOM_NOISE * np.maximum(1.0, np.abs(a))
    down_room = _snap(a - lo, slack)
    if np.any(np.isinf(down_room)):
        raise InputError("the interval model needs finite a-priori lower bounds (lb)")
    finite = np.isfinite(hi)
    if not np.all(finite) and not table.has_network_form:
        raise InputError(
            "the interval model needs finite a-priori upper bounds (ub) on tables that are "
            "not 2-D (one hierarchical dimension allowed): without them no big-M is known to "
            "keep the lower bound valid")
    sensitive = table.sensitive_cells
    lpl, upl, spl = (table.lower_protection[sensitive], table.upper_protection[sensitive],
                     table.sliding_protection[sensitive])
    need = np.maximum(np.maximum(lpl, upl), spl)
    # a vector is needed for a side with a requirement; spl needs both
    sides = tuple((bool(d or s), bool(u or s)) for d, u, s in zip(lpl > 0, upl > 0, spl > 0))
    sub = table.relation_matrix[:, free].tocsr()
    sub = sub[np.diff(sub.indptr) > 0]
    inst = IntervalInstance(table, np.asarray(weights, float), free, candidates, sensitive,
                            np.zeros(0, np.int64), down_room,
                            UpRoom(np.where(finite, _snap(hi - a, slack), np.inf), need),
                            sides, sub,
                            deviation_classes(sub))
    if not preprocessing:
        return inst
    return inst.keep(_exposed_by_primaries(inst))


#: rooms this small relative to the cell's value are float noise of a bound the value meets
#: (a microdata table's grand total is the sum of its absolute responses, which is its
#: a-priori upper bound: room 2.3e-9 at 1.5e5), below what the audit can tell from zero
#: (``1e-6 + 1e-9 |a|``); kept, they reach HiGHS as coefficients of 1e-13, which it drops
#: with a warning (issue #49: the capped MIPs of fuzz table hier3d_micro)
_ROOM_NOISE = 1e-12


def _snap(room: np.ndarray, slack: np.ndarray) -> np.ndarray:
    """``room`` with float noise (``|room| <= slack``) made 0: the attacker cannot move the
    cell that way. Zero room only restricts the model's attacker, so every pattern the
    models accept still protects against the table's."""
    return np.where(np.abs(room) <= slack, 0.0, room)


def _exposed_by_primaries(inst: IntervalInstance) -> np.ndarray:
    """Which sensitive cells the others leave exposed (Fischetti–Salazar preprocessing): the
    interval audit of the primary pattern, deciding each side with as few attacker LPs as
    the completions found allow (:func:`~cspopt.audit.interval_verdict`). From
    :data:`~cspopt.audit.LOCAL_AUDIT_FROM` sensitive cells up, those its LPs over many
    cells at once leave unproven (:func:`~cspopt.audit.unproven_cells`): a superset, found
    without the two LPs that proving each exposed cell takes (4,654 primaries of a
    3-D microdata table, none protected by the others: 0.2 s against 46 s), and a safe
    cell kept only costs the model its rows."""
    table = inst.table
    if table.sensitive.sum() < LOCAL_AUDIT_FROM:
        return np.isin(inst.protected, np.array(interval_verdict(table).exposed, np.int64))
    leveled = np.array([any(side) for side in inst.sides], dtype=bool)  # else nothing to prove
    return leveled & np.isin(inst.protected, unproven_cells(table, small_lps=False))

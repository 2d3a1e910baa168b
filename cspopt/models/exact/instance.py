"""Prebuilt arrays shared by every exact-disclosure formulation, solver route and heuristic.

Almeida & Carvalho (2005) state (P) and (P_N) on the bipartite graph of a 2-D table. cspopt
states them on the table's network form (:mod:`cspopt.table.network`). That form is the same graph
for a 2-D table, and it also covers any other table whose relations are a network matrix. Every
cell ``c`` gives two arcs:

* the *increasing* arc ``tail_c -> head_c`` (arc ``(i, j)`` of the paper for an internal cell),
* the *decreasing* arc ``head_c -> tail_c`` (arc ``(j, i)``).

In (P) every arc exists. In (P_N) the arc set ``F`` drops ``E`` (§4): a cell at its lower bound
(``a = lb``, e.g. a zero cell of a nonnegative table) has no decreasing arc, and a cell at its
upper bound has no increasing arc (a generalisation; the paper's ``ub`` is infinite).

A sensitive cell ``k`` is protected when its increasing arc closes a cycle, through a path
``head_k -> tail_k`` (the paper's path from ``j_k`` to ``i_k``, variables ``y^k``), or when its
decreasing arc does, through a path ``tail_k -> head_k`` (``w^k``). (P) needs one path (any
circuit will do). In (P_N) a positive cell chooses with ``alpha^k`` (set ``K_2``); a cell that
can only move up (``a_k = lb_k``, set ``K_1``) needs the ``y^k`` path. A cell that can only
move down (``a_k = ub_k``, a generalisation) needs the ``w^k`` path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cspopt.audit.graph import graph_audit
from cspopt.errors import InfeasibleProtectionError, InputError, NotNetworkError
from cspopt.models.suppression import suppression_options
from cspopt.table import Table

__all__ = ["ExactInstance", "build_instance", "preprocess", "bounds_bind", "MODELS"]

MODELS = ("P", "PN")


@dataclass(frozen=True)
class ExactInstance:
    """Arrays of one (P) or (P_N) instance; built once, read by every builder.

    Attributes
    ----------
    table : Table
        The table as modelled (for (P): with the sign constraints dropped).
    model : {"P", "PN"}
    num_nodes : int
    arc_tail, arc_head, arc_cell : ndarray
        The arcs: ``arc_cell[a]`` is the cell arc ``a`` belongs to.
    arc_increasing : ndarray of bool
        True for increasing arcs (``tail_c -> head_c``).
    weights : ndarray
        ``xi_c`` for every cell (used for the candidates only).
    candidates : ndarray
        Cells with a suppression variable ``x_c``, in id order.
    x_index : ndarray
        Position of each cell in ``candidates``, ``-1`` when it has no ``x`` variable.
    protected_cells : ndarray
        The unsafe sensitive cells the model protects, in id order.
    needs_up, needs_down : ndarray of bool
        Per protected cell: a ``y`` path (increase) and/or a ``w`` path (decrease) is
        modelled. Both true means the choice ``alpha^k`` of set ``K_2``.
    safe_cells : ndarray
        Sensitive cells already protected by the other sensitive cells (preprocessing).
    path_arc_mask : ndarray of bool
        Arcs that paths may use (the ``tau`` threshold removes some).
    """

    table: Table
    model: str
    num_nodes: int
    arc_tail: np.ndarray
    arc_head: np.ndarray
    arc_cell: np.ndarray
    arc_increasing: np.ndarray
    weights: np.ndarray
    candidates: np.ndarray
    x_index: np.ndarray
    protected_cells: np.ndarray
    needs_up: np.ndarray
    needs_down: np.ndarray
    safe_cells: np.ndarray
    path_arc_mask: np.ndarray

    @property
    def num_arcs(self) -> int:
        return self.arc_tail.size

    def source_sink(self, position: int, up: bool) -> tuple[int, int]:
        """Source and sink nodes of the ``y`` (``up``) or ``w`` path of a protected cell."""
        net = self.table.network()
        k = int(self.protected_cells[position])
        if up:
            return int(net.head[k]), int(net.tail[k])
        return int(net.tail[k]), int(net.head[k])

    def path_arcs(self, position: int) -> np.ndarray:
        """Arcs available to the paths of the ``position``-th protected cell (not its own)."""
        k = self.protected_cells[position]
        return np.flatnonzero(self.path_arc_mask & (self.arc_cell != k))


def modelled_table(table: Table, model: str) -> Table:
    """(P) treats the table as general: the attacker knows no sign or bound (§3). (P_N) keeps
    the a-priori bounds: a cell at a bound loses that arc. On a network table exact disclosure
    only asks whether a completion moves a cell at all, so this is exact for integer
    completions of integer tables (the paper's §4: network LPs have integral vertices) and for
    real completions of any table."""
    if model == "P":
        return table.replace(nonnegative=False, apriori_lower=-np.inf, apriori_upper=np.inf)
    if not (table.nonnegative or bounds_bind(table)):
        raise InputError("(P_N) models the a-priori bounds of a nonnegative table, and on this "
                         "table none binds; use model='P' for general tables")
    return table


def bounds_bind(table: Table) -> bool:
    """Does some cell sit at a finite a-priori bound (so that (P), which ignores bounds,
    would let the attacker move it where the table's attacker cannot)?"""
    return bool(np.any(table.values <= table.apriori_lower)
                or np.any(table.values >= table.apriori_upper))


def preprocess(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """Split the sensitive cells into (safe, unsafe) for the table's own semantics.

    A sensitive cell is safe when the other sensitive cells alone protect it: a circuit of
    sensitive cells for general tables, the directed-path condition of graph ``H`` restricted
    to ``S_1`` for nonnegative ones (Almeida & Carvalho 2005 §5, preprocessing). Safe cells need
    no complementary suppressions, and no pattern can unprotect them.
    """
    result = graph_audit(table, ())
    unsafe = np.array(sorted(result.exposed), dtype=np.int64)
    safe = np.setdiff1d(table.sensitive_cells, unsafe)
    return safe, unsafe


def build_instance(
    table: Table,
    model: str,
    *,
    weights: str | np.ndarray | None = None,
    publish_totals: bool = False,
    publish_zeros: bool = False,
    must_publish: np.ndarray | list[int] | None = None,
    tau: float = 0.0,
    preprocessing: bool = True,
) -> ExactInstance:
    """Validate the options once and build the arrays of a (P) or (P_N) instance.

    Parameters
    ----------
    table : Table
        A network (2-D) table; see :func:`cspopt.table.network.table_network`.
    model : {"P", "PN"}
    weights : {"value", "unit", "log"} or array, optional
        Suppression weights ``xi``; default the table's costs.
    publish_totals : bool
        Forbid suppressing totals and subtotals (their variables are dropped, §6).
    publish_zeros : bool
        Forbid suppressing zero cells (§5, first data set; §6).
    must_publish : sequence of int, optional
        Further cells that must be published, beyond status ``z``.
    tau : float
        Protection width threshold (§6). Paths may not decrease a cell by less than ``tau``:
        the decreasing arc of a cell with ``a - lb < tau`` and the increasing arc of a cell with
        ``ub - a < tau`` are removed from every path. The result is a heuristic for a minimum
        width; the audit still decides safety.
    preprocessing : bool
        Drop sensitive cells already protected by the other sensitive cells.

    Raises
    ------
    NotNetworkError
        If the table is not a network table.
    InfeasibleProtectionError
        If a sensitive cell cannot be protected by any pattern.
    """
    if model not in MODELS:
        raise InputError(f"model must be one of {MODELS}, not {model!r}")
    if not tau >= 0:
        raise InputError(f"tau must be >= 0, got {tau}")
    table = modelled_table(table, model)
    try:
        net = table.network()
    except NotNetworkError as exc:
        raise NotNetworkError(
            f"(P) and (P_N) are stated on 2-D tables: {exc}; on other tables exact "
            "disclosure is solved by method 'auto' or 'branch-and-cut' (cover cuts), or give "
            "the sensitive cells protection levels (lpl/upl/spl) and solve with interval "
            "protection (--protection interval)") from None
    n = table.num_cells
    weights, published = suppression_options(table, weights, must_publish,
                                             publish_totals=publish_totals,
                                             publish_zeros=publish_zeros)
    a, lo, hi = table.values, table.apriori_lower, table.apriori_upper
    can_up, can_down = a < hi, a > lo
    for k in table.sensitive_cells:
        if not (can_up[k] or can_down[k]):
            raise InfeasibleProtectionError(
                f"{table.describe(k)} equals both a-priori bounds; no pattern can protect it",
                cell=int(k))
    in_model = ~published
    inc_cells = np.flatnonzero(in_model & can_up)
    dec_cells = np.flatnonzero(in_model & can_down)
    arc_cell = np.concatenate([inc_cells, dec_cells])
    arc_increasing = np.concatenate([np.ones(inc_cells.size, bool), np.zeros(dec_cells.size, bool)])
    arc_tail = np.where(arc_increasing, net.tail[arc_cell], net.head[arc_cell])
    arc_head = np.where(arc_increasing, net.head[arc_cell], net.tail[arc_cell])
    order = np.lexsort((~arc_increasing, arc_cell))  # arcs grouped by cell
    arc_cell, arc_increasing = arc_cell[order], arc_increasing[order]
    arc_tail, arc_head = arc_tail[order], arc_head[order]
    room = np.where(arc_increasing, hi[arc_cell] - a[arc_cell], a[arc_cell] - lo[arc_cell])
    path_arc_mask = room >= tau if tau > 0 else np.ones(arc_cell.size, bool)
    path_arc_mask |= table.sensitive[arc_cell]  # sensitive cells are suppressed anyway
    candidates = np.flatnonzero(in_model & ~table.sensitive)
    x_index = np.full(n, -1, dtype=np.int64)
    x_index[candidates] = np.arange(candidates.size)
    if preprocessing:
        safe, unsafe = preprocess(table)
    else:
        safe, unsafe = np.array([], np.int64), table.sensitive_cells.copy()
    if model == "P":
        needs_up = np.ones(unsafe.size, bool)
        needs_down = np.zeros(unsafe.size, bool)
    else:
        needs_up, needs_down = can_up[unsafe], can_down[unsafe]
    return ExactInstance(table, model, net.num_nodes, arc_tail, arc_head, arc_cell,
                         arc_increasing, np.asarray(weights, float), candidates, x_index, unsafe,
                         needs_up, needs_down, safe, path_arc_mask)

"""Shared machinery of the network heuristics: two arcs per free cell of a network table.

On a network table (:mod:`cspopt.table.network`; 2-D tables and, once the implied
subtotal-row relations are dropped, 2-D tables with one hierarchical dimension) the attacker
changes the suppressed cells by a circulation. Raising free cell ``c`` pushes flow along
``tail[c] -> head[c]`` and lowering it along ``head[c] -> tail[c]``; a path from ``head[p]``
back to ``tail[p]`` closes a cycle that raises ``p`` (Kelly, Golden & Assad 1992; Almeida,
Schütz & Carvalho 2008 §2). Castro's (2007) and the SP heuristic search these paths.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from cspopt.errors import InputError, NotNetworkError
from cspopt.models.interval.instance import IntervalInstance
from cspopt.table.network import ArcGraph, TableNetwork

__all__ = ["CellArcs", "cell_arcs", "PathsOutcome", "finish"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CellArcs:
    """The arcs of the free cells ``free`` of a network table: arc ``j < nf`` raises free
    cell ``j`` (``tail -> head``), arc ``nf + j`` lowers it; ``graph`` searches shortest
    paths over them; ``down`` and ``up`` are each free cell's room ``a - lb`` and
    ``ub - a``; ``position[k]`` is protected cell ``k``'s index in ``free``."""

    free: np.ndarray
    tail: np.ndarray
    head: np.ndarray
    graph: ArcGraph
    arc_cell: np.ndarray
    arc_up: np.ndarray
    down: np.ndarray
    up: np.ndarray
    position: np.ndarray


def cell_arcs(inst: IntervalInstance, method: str, network: TableNetwork | None = None
              ) -> CellArcs:
    """:class:`CellArcs` of ``inst``, on ``network`` or on the table's reduced network.

    Raises
    ------
    InputError
        If the table is not a network table (3-D, two hierarchical dimensions), naming
        ``method``.
    """
    table = inst.table
    if network is None:
        try:
            network, _ = table.reduced_network()
        except NotNetworkError as error:
            raise InputError(f"{method} needs a 2-D table, possibly with one hierarchical "
                             f"dimension: {error}") from None
    free = inst.free
    nf = free.size
    tail, head = network.tail[free], network.head[free]
    a = table.values[free]
    return CellArcs(free=free, tail=tail, head=head,
                    graph=ArcGraph(np.r_[tail, head], np.r_[head, tail], network.num_nodes),
                    arc_cell=np.r_[np.arange(nf), np.arange(nf)],
                    arc_up=np.r_[np.ones(nf, bool), np.zeros(nf, bool)],
                    down=a - table.apriori_lower[free], up=table.apriori_upper[free] - a,
                    position=np.searchsorted(free, inst.protected))


@dataclass
class PathsOutcome:
    """What a heuristic of :mod:`cspopt.heuristics` found: the suppressed candidates (a mask
    over ``inst.candidates``), the sensitive cells it could not protect (cell id, ``"lower"``
    or ``"upper"``), the number of shortest paths (or rectangles, or single-cell MIPs)
    searched, and whether the deadline stopped it."""

    suppressed: np.ndarray
    failed: list[tuple[int, str]] = field(default_factory=list)
    num_paths: int = 0
    stopped: bool = False


def finish(inst: IntervalInstance, in_pattern: np.ndarray, outcome: PathsOutcome
           ) -> PathsOutcome:
    """``outcome`` with ``suppressed`` read from ``in_pattern`` (a mask over ``inst.free``)."""
    chosen = in_pattern[np.searchsorted(inst.free, inst.candidates)]
    outcome.suppressed = chosen.astype(float)
    log.info("shortest paths: %d paths, %d suppressed, %d failed", outcome.num_paths,
             int(chosen.sum()), len(outcome.failed))
    return outcome


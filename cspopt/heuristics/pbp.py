"""The parallel bound and path (PBP) heuristic for interval protection on 2-D tables.

Almeida, Schütz & Carvalho (2008) §3.1: ``N`` diversified patterns built in parallel, to seed
GenSup's population. Phase 1 meets, for each sensitive cell in decreasing order of value,
the row and column lower bounds of Fischetti & Salazar-González (1999): the cells suppressed
in the cell's row (column) besides it must together be able to move by its largest level.
Individual ``t`` takes the cheapest cells of a line starting from the ``t``-th, so the ``N``
patterns differ. Phase 2 runs the SP heuristic with the phase-1 cells free of cost, which
certifies the pattern or enlarges it until it protects.
"""

from __future__ import annotations

import time

import numpy as np

from cspopt.errors import InputError, NotNetworkError
from cspopt.heuristics.cell_arcs import CellArcs, PathsOutcome, cell_arcs
from cspopt.heuristics.shortest_paths import sp_heuristic
from cspopt.models.interval.instance import IntervalInstance
from cspopt.table.network import bipartite_graph

__all__ = ["pbp_heuristic", "pbp_patterns"]


def pbp_patterns(inst: IntervalInstance, count: int, *, arcs: CellArcs | None = None,
                 deadline: float | None = None) -> list[PathsOutcome]:
    """The ``count`` PBP patterns (Almeida et al. 2008 §3.1), each repaired by SP.

    Phase 1, individual ``t``: for each protected cell ``p`` (decreasing value) and each of
    its lines (row, column), while the suppressed cells of the line other than ``p`` can
    move by less than ``max(lpl_p, upl_p)`` in both directions (capacity
    ``min(a - lb, ub - a)`` each), add the line's unsuppressed candidates in increasing order
    of weight, starting at the ``t``-th (wrapping round). Phase 2: :func:`sp_heuristic`
    with the phase-1 cells suppressed. Complexity ``O(count x (sensitive x line length +
    SP))``. Stops early (fewer patterns) past ``deadline``. ``arcs``: see
    :func:`sp_heuristic`.

    Raises
    ------
    InputError
        If the table is not 2-D (rows and columns are its lines).
    """
    table = inst.table
    try:
        graph = bipartite_graph(table)
    except NotNetworkError as error:
        raise InputError(f"PBP needs a 2-D table: {error}") from None
    free = np.zeros(table.num_cells, dtype=bool)
    free[inst.free] = True
    capacity = np.minimum(table.values - table.apriori_lower,
                          table.apriori_upper - table.values)
    weight = inst.weights
    lines = []  # per protected cell: its row's and its column's other free cells, by weight
    for p in inst.protected.tolist():
        mine = []
        for node, which in ((graph.row_node, graph.row_node[p]),
                            (graph.col_node, graph.col_node[p])):
            cells = np.flatnonzero((node == which) & free)
            cells = cells[cells != p]
            mine.append(cells[np.argsort(weight[cells], kind="stable")])
        lines.append(mine)
    need = np.maximum(table.lower_protection[inst.protected],
                      table.upper_protection[inst.protected])
    order = np.argsort(-table.values[inst.protected], kind="stable")
    patterns = []
    for t in range(count):
        if deadline is not None and time.perf_counter() > deadline:
            break
        suppressed = table.sensitive & free
        for k in order.tolist():
            for cells in lines[k]:
                have = float(capacity[cells[suppressed[cells]]].sum())
                todo = cells[~suppressed[cells]]
                todo = np.roll(todo, -(t % todo.size)) if todo.size else todo
                for c in todo.tolist():
                    if have >= need[k]:
                        break
                    suppressed[c] = True
                    have += float(capacity[c])
        patterns.append(sp_heuristic(inst, suppressed=suppressed, arcs=arcs,
                                     deadline=deadline))
    return patterns


def pbp_heuristic(inst: IntervalInstance, *, count: int = 10, deadline: float | None = None
                  ) -> PathsOutcome:
    """The cheapest of :func:`pbp_patterns` (``count`` of them)."""
    patterns = pbp_patterns(inst, count, arcs=cell_arcs(inst, "PBP"), deadline=deadline)
    if not patterns:
        return PathsOutcome(np.zeros(inst.candidates.size), stopped=True)
    weights = inst.weights[inst.candidates]
    best = min(patterns, key=lambda found: (bool(found.failed), found.stopped,
                                            float(weights @ found.suppressed)))
    best.num_paths = sum(found.num_paths for found in patterns)
    return best

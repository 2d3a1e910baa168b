"""The parallel bound and path (PBP) heuristic for interval protection on 2-D tables.

Almeida, Schütz & Carvalho (2008) §3.1: ``N`` diversified patterns built in parallel, to seed
GenSup's population. Phase 1 meets, for each sensitive cell in decreasing order of value,
the row and column lower bounds of Fischetti & Salazar-González (1999): the cells suppressed
in the cell's row (column) besides it must together be able to move by its largest level.
Individual ``t`` takes the cheapest cells of a line starting from the ``t``-th, so the ``N``
patterns differ. Phase 1 ends with interchanges and substitutions that leave no line
without sensitive cells holding a single suppression (which its line would give away); the
individual keeps the better of its repairs with and without them (they help on some tables
and hurt on others). Phase 2 runs
the SP heuristic with the phase-1 cells free of cost, which certifies the pattern or
enlarges it until it protects.
"""

from __future__ import annotations

import numpy as np

from cspopt.budget import Budget
from cspopt.errors import InputError, NotNetworkError
from cspopt.heuristics.cell_arcs import CellArcs, PathsOutcome, cell_arcs
from cspopt.heuristics.shortest_paths import sp_heuristic
from cspopt.models.interval.instance import IntervalInstance
from cspopt.table.network import bipartite_graph

__all__ = ["pbp_heuristic", "pbp_patterns", "no_single_suppressions"]

#: passes of phase 1's interchanges and substitutions
_PASSES = 5


def pbp_patterns(inst: IntervalInstance, count: int, *, arcs: CellArcs | None = None,
                 budget: Budget | None = None) -> list[PathsOutcome]:
    """The ``count`` PBP patterns (Almeida et al. 2008 §3.1), each repaired by SP.

    Phase 1, individual ``t``: for each protected cell ``p`` (decreasing value) and each of
    its lines (row, column), while the suppressed cells of the line other than ``p`` can
    move by less than ``max(lpl_p, upl_p)`` in both directions (capacity
    ``min(a - lb, ub - a)`` each), add the line's unsuppressed candidates in increasing order
    of weight, starting at the ``t``-th (wrapping round); then, as a second variant,
    :func:`no_single_suppressions`. Phase 2: :func:`sp_heuristic` with the phase-1 cells
    suppressed, for each variant; the cheaper repair is kept. Complexity ``O(count x
    (sensitive x line length + SP))``. Stops early (fewer patterns) once ``budget`` expires.
    ``arcs``: see :func:`sp_heuristic`.

    Raises
    ------
    InputError
        If the table is not 2-D (rows and columns are its lines).
    """
    table = inst.table
    graph = _lines(table)
    free = np.zeros(table.num_cells, dtype=bool)
    free[inst.free] = True
    capacity = np.minimum(table.values - table.apriori_lower,
                          table.apriori_upper - table.values)
    weight = inst.weights
    weights = weight[inst.candidates]
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
        if budget is not None and budget.expired():
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
        repaired = [sp_heuristic(inst, suppressed=suppressed, arcs=arcs, budget=budget)]
        changed = suppressed.copy()
        no_single_suppressions(changed, graph, free & ~table.sensitive, capacity, weight,
                                table.sensitive)
        if not np.array_equal(changed, suppressed):
            repaired.append(sp_heuristic(inst, suppressed=changed, arcs=arcs,
                                         budget=budget))
        patterns.append(_cheapest(repaired, weights))
    return patterns


def _cheapest(outcomes: list[PathsOutcome], weights: np.ndarray) -> PathsOutcome:
    """The outcome to keep: complete before failed or stopped, then the cheapest."""
    return min(outcomes, key=lambda found: (bool(found.failed), found.stopped,
                                            float(weights @ found.suppressed)))


def no_single_suppressions(suppressed: np.ndarray, graph, candidate: np.ndarray,
                            capacity: np.ndarray, weight: np.ndarray,
                            sensitive: np.ndarray) -> None:
    """The end of PBP's phase 1 (Almeida et al. 2008 §3.1): a line (row or column) with no
    sensitive cell and a single suppression gives that cell away. Interchange it for the
    cheapest cell of its other line that can move as far and whose own line already holds
    a suppression; where there is none, substitute: add the cheapest other candidate of the
    line. ``suppressed`` changes in place; rows then columns, again while a pass changes
    something (at most :data:`_PASSES` passes)."""
    lines = ((graph.row_node, graph.col_node), (graph.col_node, graph.row_node))
    for _ in range(_PASSES):  # a fix in a column can leave a single in a row, and back
        changed = False
        for node, cross in lines:
            busy = np.bincount(node[suppressed], minlength=node.max() + 1)
            for line in np.flatnonzero(busy == 1).tolist():
                members = np.flatnonzero(node == line)
                held = members[suppressed[members]]
                if held.size != 1 or sensitive[members].any():
                    continue
                c = int(held[0])
                along = np.flatnonzero((cross == cross[c]) & candidate & ~suppressed
                                       & (capacity >= capacity[c]))
                along = along[busy[node[along]] > 0]
                spare = members[candidate[members] & ~suppressed[members]]
                if along.size:
                    pick = int(along[np.argmin(weight[along])])
                    suppressed[c], busy[line] = False, 0
                elif spare.size:
                    pick = int(spare[np.argmin(weight[spare])])
                else:
                    continue
                suppressed[pick] = True
                busy[node[pick]] += 1
                changed = True
        if not changed:
            return


def _lines(table):
    """The rows and columns PBP walks (the table's bipartite graph); an :class:`InputError`
    on tables that are not 2-D, hierarchical ones included."""
    try:
        return bipartite_graph(table)
    except NotNetworkError as error:
        raise InputError(f"PBP needs a 2-D table without hierarchies: {error}") from None


def pbp_heuristic(inst: IntervalInstance, *, count: int = 10, budget: Budget | None = None
                  ) -> PathsOutcome:
    """The cheapest of :func:`pbp_patterns` (``count`` of them)."""
    _lines(inst.table)  # refused first as PBP's, not as the SP repair's
    patterns = pbp_patterns(inst, count, arcs=cell_arcs(inst, "PBP"), budget=budget)
    if not patterns:
        return PathsOutcome(np.zeros(inst.candidates.size), stopped=True)
    best = _cheapest(patterns, inst.weights[inst.candidates])
    best.num_paths = sum(found.num_paths for found in patterns)
    return best

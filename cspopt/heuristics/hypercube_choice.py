"""Shared machinery of the hypercube methods (2-D rectangles and n-D hypercubes).

Both methods (Repsilber 1994; Giessing & Repsilber 2002; Almeida, Schütz & Carvalho 2008
§3.2) visit the protected cells in decreasing order of their largest level, score every
hypercube through the cell (the least room of its corners each way and the cost of the
corners not yet suppressed) and suppress the cheapest feasible one. Only the enumeration of
the corners differs, so the order, the rooms, the costs and the choice live here.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from cspopt.budget import Budget
from cspopt.heuristics.cell_arcs import PathsOutcome, finish
from cspopt.models.interval.instance import IntervalInstance

__all__ = ["HypercubeChoice"]

#: at most this share of a level may be left unmet by round-off
_TOLERANCE = 1e-9


class HypercubeChoice:
    """The state of a hypercube method on ``inst``: arrays over the cells plus one sentinel
    index ``num_cells`` (no cell: not free, no room, no cost) that callers may use for
    absent grid positions.

    ``free`` marks the free cells, ``in_pattern`` the suppressed ones so far (the sensitive
    cells from the start), ``up`` and ``down`` each cell's room ``ub - a`` and ``a - lb``,
    ``new_cost`` the weight of suppressing it (plus a tie-breaking epsilon, so that a
    zero-weight corner is still not free).
    """

    def __init__(self, inst: IntervalInstance):
        table = inst.table
        cells = table.num_cells
        self.inst = inst
        self.free = np.zeros(cells + 1, dtype=bool)
        self.free[inst.free] = True
        self.in_pattern = np.zeros(cells + 1, dtype=bool)
        self.in_pattern[inst.free[table.sensitive[inst.free]]] = True
        a = table.values
        self.up = np.r_[table.apriori_upper - a, 0.0]
        self.down = np.r_[a - table.apriori_lower, 0.0]
        weight = np.r_[inst.weights, 0.0].astype(float)
        positive = weight[weight > 0]
        self.new_cost = weight + 1e-6 * (float(positive.min()) if positive.size else 1.0)
        protected = inst.protected
        self.levels = (table.lower_protection[protected], table.upper_protection[protected],
                       table.sliding_protection[protected])
        self.outcome = PathsOutcome(np.zeros(inst.candidates.size))

    def order(self, budget: Budget | None) -> Iterator[tuple[int, int]]:
        """``(k, p)``: the protected cells ``p = inst.protected[k]`` in decreasing order of
        their largest level, until ``budget`` expires (then ``outcome.stopped``)."""
        lower, upper, _ = self.levels
        for k in np.argsort(-np.maximum(lower, upper), kind="stable").tolist():
            if budget is not None and budget.expired():
                self.outcome.stopped = True
                return
            yield k, int(self.inst.protected[k])

    def corner_cost(self, corner) -> np.ndarray:
        """The cost of each ``corner`` (cell ids): 0 where already suppressed."""
        return np.where(self.in_pattern[corner], 0.0, self.new_cost[corner])

    def choose(self, k: int, p: int, rise, fall, usable, cost) -> tuple | None:
        """The index (into the broadcast shape of the arguments) of the cheapest hypercube
        that protects protected cell ``k`` (cell ``p``): ``rise`` and ``fall`` are how far the
        attacker can raise and lower ``p`` by it, ``usable`` whether all its corners are free,
        ``cost`` its cost. None, and ``p`` listed in ``outcome.failed`` with the side none
        meets, when no hypercube protects it."""
        lower, upper, sliding = (level[k] * (1 - _TOLERANCE) for level in self.levels)
        lower_ok = usable & (fall >= lower)
        upper_ok = usable & (rise >= upper)
        feasible = lower_ok & upper_ok & (rise + fall >= sliding)
        self.outcome.num_paths += 1
        if not np.any(feasible):
            side = ("lower" if not np.any(lower_ok) else "upper" if not np.any(upper_ok)
                    else "lower and upper" if not np.any(lower_ok & upper_ok) else "sliding")
            self.outcome.failed.append((p, side))
            return None
        scores = np.where(feasible, cost, np.inf)
        return np.unravel_index(np.argmin(scores), scores.shape)

    def finish(self) -> PathsOutcome:
        """The outcome, its ``suppressed`` read from the pattern
        (:func:`cspopt.heuristics.cell_arcs.finish`)."""
        return finish(self.inst, self.in_pattern[self.inst.free], self.outcome)

"""GenSup, the genetic algorithm of Almeida, Schütz & Carvalho (2008) §4, for interval
protection on network tables.

A population of at most ``P`` patterns with pairwise different costs evolves by crossover
(four offspring a pair), SP repair and an SP-based mutation until ``alpha`` generations or
``beta`` generations without improvement. The paper's GenSup bridged 35-92 % of the SP
heuristic's gap on its class I tables (Fig. 8) and over 70 % overall.
"""

from __future__ import annotations

import logging

import numpy as np

from cspopt.budget import Budget
from cspopt.errors import InputError
from cspopt.heuristics.cell_arcs import PathsOutcome, cell_arcs
from cspopt.heuristics.pbp import pbp_patterns
from cspopt.heuristics.shortest_paths import sp_heuristic
from cspopt.models.interval.capacity import CapacityOracle
from cspopt.models.interval.instance import IntervalInstance

__all__ = ["gensup_heuristic"]

log = logging.getLogger(__name__)


class _Population:
    """Patterns (masks over the candidates) with pairwise different costs; of two with the
    same cost the one with fewer suppressions is kept (§4, initial population)."""

    def __init__(self, weights: np.ndarray, size: int):
        self.weights, self.size = weights, size
        self.members: dict[float, np.ndarray] = {}

    def cost(self, y: np.ndarray) -> float:
        return round(float(self.weights @ y), 9)

    def offer(self, y: np.ndarray) -> bool:
        """Add ``y``; True if it is the new cheapest."""
        cost = self.cost(y)
        best = min(self.members, default=np.inf)
        if cost not in self.members or y.sum() < self.members[cost].sum():
            self.members[cost] = y
        return cost < best

    def renew(self) -> None:
        """Keep the ``size`` cheapest (§4, population renewal)."""
        self.members = dict(sorted(self.members.items())[:self.size])

    def ranked(self) -> list[np.ndarray]:
        return [self.members[c] for c in sorted(self.members)]


def gensup_heuristic(inst: IntervalInstance, *, seed: int = 0,
                     lp_point: np.ndarray | None = None, population: int = 20,
                     generations: int = 20, stall: int = 10, budget: Budget | None = None
                     ) -> PathsOutcome:
    """GenSup (Almeida, Schütz & Carvalho 2008 §4) on ``inst``.

    Initial population: the SP heuristic with the weights and, given ``lp_point`` (``y``
    over the candidates of the lower-bounding LP, the paper's §5; cspopt's capacity LP),
    with the cells the LP suppresses free of cost, both cleaned by delete-and-check (exact,
    by minimum cuts), then ``population - 2`` PBP patterns (2-D tables; on 1H2D tables SP
    under weights perturbed by up to ±50 %).
    Selection: each of the best 25 % is paired with a random other individual. Crossover:
    two 1-point children of the parents' cell lists (sorted cell ids, the paper's encoding),
    their common cells, and their common cells plus each cell of only the better parent with
    probability 0.75 and of only the other with 0.25; each child is repaired by SP with its
    cells free of cost. Mutation (on each new best, and on each pair's best child at
    generation ``generations // 2``): for each suppressed cell, SP with the others free of
    cost; a cheaper result is kept. Renewal: the ``population`` cheapest of parents and
    children, costs pairwise different. Stop: ``generations`` generations, ``stall``
    without improvement, or when ``budget`` expires. Randomness comes from ``seed`` only.

    Returns a :class:`~cspopt.heuristics.cell_arcs.PathsOutcome` with the best pattern (SP's
    flows prove each level; sliding protection is the caller's).
    """
    arcs = cell_arcs(inst, "GenSup")  # one build for every SP run
    rng = np.random.default_rng(seed)
    table = inst.table
    weights = inst.weights[inst.candidates]
    pool = _Population(weights, population)
    oracle = CapacityOracle(inst)
    outcome = PathsOutcome(np.zeros(inst.candidates.size))

    def repaired(y: np.ndarray | None, costs: np.ndarray | None = None) -> np.ndarray | None:
        """SP with the candidates of ``y`` suppressed (free of cost)."""
        suppressed = None
        if y is not None:
            suppressed = np.zeros(table.num_cells, dtype=bool)
            suppressed[inst.candidates[y > 0.5]] = True
        found = sp_heuristic(inst, costs=costs, suppressed=suppressed, arcs=arcs,
                             budget=budget)
        outcome.num_paths += found.num_paths
        if found.failed:
            outcome.failed = found.failed
        return None if found.stopped or found.failed else found.suppressed

    def clean(y: np.ndarray) -> np.ndarray:
        """Delete-and-check, where ``y`` protects: SP's paths ignore sliding protection,
        and a pattern short of it is the caller's to complete (prune needs a protecting
        pattern; fuzz tables gensup_prune_2d and gensup_prune_hier)."""
        if not oracle.protects(y):
            return y
        return oracle.prune(y, np.argsort(-weights, kind="stable"), budget)

    def mutate(y: np.ndarray) -> np.ndarray:
        """Each suppressed cell in turn: re-route with the others free of cost."""
        best, cost = y, pool.cost(y)
        for j in np.flatnonzero(y > 0.5)[np.argsort(-weights[y > 0.5], kind="stable")]:
            if budget is not None and budget.expired():
                break
            if best[j] < 0.5:
                continue
            trial = best.copy()
            trial[j] = 0.0
            found = repaired(trial)
            if found is not None and pool.cost(found) < cost:
                best, cost = found, pool.cost(found)
        return best

    first = repaired(None)
    if first is None:  # a level no pattern meets, or the deadline
        outcome.stopped = not outcome.failed
        return outcome
    pool.offer(clean(first))
    if lp_point is not None:
        costs = inst.weights.astype(float)
        costs[inst.candidates[np.asarray(lp_point) > 1e-9]] = 0.0
        guided = repaired(None, costs)
        if guided is not None:
            pool.offer(clean(guided))
    try:
        seeds = [found.suppressed for found in pbp_patterns(inst, population - 2, arcs=arcs,
                                                            budget=budget)
                 if not found.stopped and not found.failed]
    except InputError:  # not 2-D: perturbed weights diversify instead
        seeds = [repaired(None, inst.weights * rng.uniform(0.5, 1.5, inst.weights.size))
                 for _ in range(population - 2)]
    for y in seeds:
        if y is not None:
            pool.offer(y)
    pool.renew()

    quiet = 0
    for generation in range(generations):
        if quiet >= stall or (budget is not None and budget.expired()):
            break
        ranked = pool.ranked()
        elite = ranked[:max(1, len(ranked) // 4)]
        others = ranked[len(elite):] or elite
        improved = False
        for parent in elite:
            partner = others[rng.integers(len(others))]
            better, worse = sorted((parent, partner), key=pool.cost)
            children = [repaired(child) for child in _crossover(better, worse, rng)]
            children = [c for c in children if c is not None]
            if not children:
                continue
            if generation == generations // 2:
                children.append(mutate(min(children, key=pool.cost)))
            for child in children:
                if pool.offer(child):
                    improved = True
                    pool.offer(mutate(child))
        pool.renew()
        quiet = 0 if improved else quiet + 1
        log.info("gensup: generation %d, best %g, population %d", generation + 1,
                 pool.cost(pool.ranked()[0]), len(pool.ranked()))
    outcome.stopped = budget is not None and budget.expired()
    outcome.suppressed = pool.ranked()[0]
    return outcome


def _crossover(better: np.ndarray, worse: np.ndarray, rng) -> list[np.ndarray]:
    """The four children of §4 (masks over the candidates)."""
    v1, v2 = np.flatnonzero(better > 0.5), np.flatnonzero(worse > 0.5)
    cut = int(rng.integers(1, max(2, min(v1.size, v2.size))))
    common = (better > 0.5) & (worse > 0.5)
    inherit = common | ((better > 0.5) & (rng.random(better.size) < 0.75)) | (
        (worse > 0.5) & (rng.random(worse.size) < 0.25))
    children = []
    for cells in (np.r_[v1[:cut], v2[cut:]], np.r_[v2[:cut], v1[cut:]]):
        child = np.zeros(better.size)
        child[cells] = 1.0
        children.append(child)
    return children + [common.astype(float), inherit.astype(float)]

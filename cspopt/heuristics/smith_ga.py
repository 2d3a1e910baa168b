"""The self-adaptive genetic algorithm of Smith, Clark, Staggemeier & Serpell (2012) over the
order in which the incremental attacker protects the sensitive cells.

The incremental attacker (eqs 3-7) protects cells one at a time, reusing what earlier cells
suppressed, so its cost depends on the order: up to 30 % on a 70-cell table (§II). The GA
searches orders (§IV): a population of ten (decreasing and increasing weight, eight random),
rank-based binary tournaments, Davis' order-based crossover at rate 0.7, and mutation by
swap, insertion or inversion whose operator and probability are genes of the individual
that change at random with probability 0.1 (self-adaption, §IV-B). An offspring replaces the
worst individual when cheaper (steady state). Only the cells preprocessing leaves exposed
are ordered (the candidate set K of Serpell et al. 2013, §V of the paper); the others are
protected by them. It works on any linear table: each evaluation is two attacker LPs a cell,
or, with the cells in groups (GA-group-K, §V: 40 groups by weight, the GA ordering the
groups), two a group. The local searches LS-Swap, LS-Insert and LS-Invert of §IV are the
same loop with a population of one and a fixed operator (:func:`local_search`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from cspopt.budget import Budget
from cspopt.heuristics.cell_arcs import PathsOutcome
from cspopt.heuristics.incremental import incremental_attacker
from cspopt.models.interval.instance import IntervalInstance

__all__ = ["smith_ga", "local_search", "group_by_weight", "OPERATORS",
           "PAPER_GROUPS", "order_crossover", "mutate"]

log = logging.getLogger(__name__)

#: the mutation operators (§IV, Insertion/Swap/Invert)
OPERATORS = ("swap", "insert", "invert")
#: GA-group-K (§V): the paper's number of groups (on tables of more than 30,000 cells)
PAPER_GROUPS = 40
#: crossover rate (§IV: "a fixed rate of 0.7 ... from the literature")
_CROSSOVER_RATE = 0.7
#: probability that a self-adaptive gene changes in an offspring (§IV-B)
_GENE_CHANGE = 0.1
#: stop when the population's mean cost stays within 1 % of the best this many offspring (§IV)
_CONVERGED_FOR = 100


@dataclass
class _Individual:
    order: np.ndarray  # a permutation of the protected cells (indices into inst.protected)
    operator: str
    rate: float  # mutation probability per position
    cost: float
    pattern: np.ndarray  # suppressed candidate ids


def smith_ga(inst: IntervalInstance, *, seed: int = 0, population: int = 10,
             evaluations: int = 200, operator: str = "adaptive", groups: int | None = None,
             budget: Budget | None = None) -> PathsOutcome:
    """Smith et al. (2012) §IV: the self-adaptive GA over the incremental attacker's order.

    Fitness: the cost of :func:`~cspopt.heuristics.incremental.incremental_attacker` run
    in the individual's order. Stops after ``evaluations`` fitness evaluations, when the
    population's mean stays within 1 % of the best for 100 offspring (a population of two
    or more), or when ``budget`` expires
    (keeping the best found; before the first evaluation ends, the pattern of every
    candidate). ``num_paths`` counts evaluations. Randomness comes from ``seed`` only.
    ``operator``: ``"adaptive"`` (the operator and its probability are genes, §IV-B) or
    one of :data:`OPERATORS` at probability 1/length (the paper's fixed-operator GAs).
    ``groups``: protect the cells in this many groups of similar weight and order the
    groups (GA-group-K, §V; the paper: 40 on tables of more than 30,000 cells); ``None``:
    one cell at a time. With HiGHS a group's LP costs far more than its members' LPs (a
    40,000-cell table: 0.05 s a cell, 1.3 s a group of 2-3, 12 s a group of 13), so
    grouping is the paper's variant here, not a speed-up.
    """
    rng = np.random.default_rng(seed)
    members = group_by_weight(inst, groups or inst.protected.size)
    size = len(members)
    by_weight = np.arange(size)  # members are listed heaviest first
    adaptive = operator == "adaptive"
    outcome = PathsOutcome(np.zeros(inst.candidates.size))

    def evaluate(order, operator, rate) -> _Individual | None:
        pattern = incremental_attacker(inst, order=[members[g] for g in order],
                                       budget=budget, fallback=False)
        outcome.num_paths += 1
        if pattern is None:
            return None
        cost = float(inst.weights[pattern].sum())
        return _Individual(order, operator, rate, cost, pattern)

    starts = [by_weight, by_weight[::-1]] + [rng.permutation(size)
                                             for _ in range(population - 2)]
    pool: list[_Individual] = []
    for order in starts[:population]:
        found = evaluate(order, OPERATORS[rng.integers(3)] if adaptive else operator,
                         1.0 / max(size, 1))
        if found is None:
            break
        pool.append(found)
    close = 0
    while pool and outcome.num_paths < evaluations:
        if budget is not None and budget.expired():
            break
        first, second = _tournament(pool, rng), _tournament(pool, rng)
        order = (order_crossover(first.order, second.order, rng)
                 if size > 1 and rng.random() < _CROSSOVER_RATE else first.order.copy())
        operator, rate = first.operator, first.rate
        if adaptive and rng.random() < _GENE_CHANGE:
            operator = OPERATORS[rng.integers(3)]
        if adaptive and rng.random() < _GENE_CHANGE:
            rate = float(rng.uniform(0.0, 0.5)) or rate
        child = evaluate(mutate(order, operator, rate, rng), operator, rate)
        if child is None:
            break
        worst = max(range(len(pool)), key=lambda i: pool[i].cost)
        if child.cost < min(member.cost for member in pool):
            log.info("%s: evaluation %d, best %g (%s)", "ga" if population > 1 else "ls",
                     outcome.num_paths, child.cost, operator)
        if child.cost < pool[worst].cost:
            pool[worst] = child
        costs = np.array([member.cost for member in pool])
        close = close + 1 if costs.mean() <= 1.01 * costs.min() else 0
        if population > 1 and close >= _CONVERGED_FOR:
            break
    outcome.stopped = budget is not None and budget.expired()
    if pool:
        best = min(pool, key=lambda member: member.cost)
        outcome.suppressed = np.isin(inst.candidates, best.pattern).astype(float)
    else:  # not one evaluation within the deadline: every candidate protects, if any does
        outcome.suppressed = np.ones(inst.candidates.size)
    return outcome


def local_search(inst: IntervalInstance, *, seed: int = 0, evaluations: int = 200,
                 operator: str = "swap", groups: int | None = None,
                 budget: Budget | None = None) -> PathsOutcome:
    """Smith et al. (2012) §IV's local searches (LS-Swap, LS-Insert, LS-Invert): from the
    decreasing-weight order, mutate the order with ``operator`` and keep the child when
    its incremental-attacker pattern is cheaper; :func:`smith_ga` with a population of one
    (the paper's own definition), same options and stopping rules."""
    return smith_ga(inst, seed=seed, population=1, evaluations=evaluations,
                    operator=operator, groups=groups, budget=budget)


def group_by_weight(inst: IntervalInstance, groups: int) -> list[np.ndarray]:
    """The protected cells (indices into ``inst.protected``) in ``groups`` groups of
    consecutive cells in decreasing weight, heaviest group first (§V: "grouping is done by
    the cell weighting")."""
    by_weight = np.argsort(-inst.weights[inst.protected], kind="stable")
    return [g for g in np.array_split(by_weight, min(groups, by_weight.size)) if g.size]


def _tournament(pool: list[_Individual], rng) -> _Individual:
    """Rank-based binary tournament, the fitter always wins (§IV)."""
    a, b = rng.integers(len(pool), size=2)
    return pool[a] if pool[a].cost <= pool[b].cost else pool[b]


def order_crossover(first: np.ndarray, second: np.ndarray, rng) -> np.ndarray:
    """Davis' order-based crossover: ``first``'s segment between two random points, then
    ``second``'s other cells in its order from the second point, wrapping round."""
    n = first.size
    lo, hi = sorted(rng.choice(n + 1, size=2, replace=False))
    segment = first[lo:hi]
    rest = np.roll(second, -hi)
    rest = rest[~np.isin(rest, segment)]
    child = np.empty(n, dtype=first.dtype)
    child[lo:hi] = segment
    positions = np.r_[np.arange(hi, n), np.arange(0, lo)]
    child[positions] = rest
    return child


def mutate(order: np.ndarray, operator: str, rate: float, rng) -> np.ndarray:
    """Each position, with probability ``rate``, is swapped with, inserted behind, or has
    the segment up to a random other position inverted (§IV)."""
    order = order.copy()
    n = order.size
    if n < 2:
        return order
    for i in np.flatnonzero(rng.random(n) < rate).tolist():
        j = int(rng.integers(n))
        a, b = min(i, j), max(i, j)
        if operator == "swap":
            order[[i, j]] = order[[j, i]]
        elif operator == "insert":  # move the later one to just behind the earlier one
            order[a + 1:b + 1] = np.r_[order[b], order[a + 1:b]]
        else:
            order[a:b + 1] = order[a:b + 1][::-1]
    return order

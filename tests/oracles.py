"""What the tests share: independent references to judge cspopt by (brute force over every
pattern, judged by an attacker audit, never by an optimisation model) and the families of
tiny and small tables they run on. Tests import these from here, never from each other."""

from __future__ import annotations

import math

import numpy as np

from cspopt import Table, audit, graph_audit
from cspopt.models.exact import build_instance, modelled_table
from cspopt.models.interval import build_interval_instance
from cspopt.models.suppression import suppression_options
from cspopt.table.generators import almeida_carvalho_set1, almeida_carvalho_set2


def brute_force(table, requirement: str, *, weights=None, max_candidates: int = 14) -> float:
    """The cheapest pattern the audit accepts for ``requirement`` (``"exact"`` or
    ``"interval"``), over every subset of the suppressible non-sensitive cells; ``inf`` if
    none protects."""
    costs, published = suppression_options(table, weights, None)
    candidates = np.flatnonzero(~published & ~table.sensitive)
    if candidates.size > max_candidates:
        raise ValueError(f"{candidates.size} candidates: too many for brute force")
    masks = np.arange(1 << candidates.size)
    bits = (masks[:, None] >> np.arange(candidates.size)) & 1
    totals = bits @ np.asarray(costs, float)[candidates]
    for i in np.argsort(totals, kind="stable"):
        pattern = candidates[bits[i] == 1]
        if audit(table, pattern, requirement=requirement, cells="sensitive").protected:
            return float(totals[i])
    return math.inf


def brute_force_model(table, model, **options):
    """Cheapest pattern of (P)/(P_N) ``model`` over all subsets of the candidate cells, judged by
    the graph audit of the modelled table."""
    inst = build_instance(table, model, preprocessing=False, **options)
    modelled = modelled_table(table, model)
    cand = inst.candidates
    masks = np.arange(1 << cand.size)
    bits = (masks[:, None] >> np.arange(cand.size)) & 1
    costs = bits @ inst.weights[cand]
    for i in np.argsort(costs, kind="stable"):
        pattern = cand[bits[i] == 1]
        if graph_audit(modelled, pattern).protected:
            return float(costs[i])
    return math.inf


def tiny_exact_tables(count, seed):
    rng = np.random.default_rng(seed)
    made = 0
    while made < count:
        m, n = rng.integers(2, 5, size=2)
        data = rng.integers(0, 5, size=(m, n)) * (rng.random((m, n)) > 0.25)
        sens = rng.random((m, n)) < rng.uniform(0.15, 0.6)  # dense S_1 stresses path ends
        if not sens.any():
            sens[rng.integers(m), rng.integers(n)] = True
        if (m + 1) * (n + 1) - sens.sum() > 14:
            continue
        weights = "unit" if rng.random() < 0.4 else "value"
        yield Table.from_array(data, sensitive=sens, costs=weights, name=f"tiny{made}")
        made += 1


def brute_force_interval(table):
    inst = build_interval_instance(table, preprocessing=False)
    cand = inst.candidates
    best = math.inf
    order = sorted(range(1 << cand.size), key=lambda mask: sum(
        inst.weights[cand[i]] for i in range(cand.size) if mask >> i & 1))
    for mask in order:
        pattern = [int(cand[i]) for i in range(cand.size) if mask >> i & 1]
        cost = inst.weights[pattern].sum() if pattern else 0.0
        if cost >= best:
            break
        if audit(table, pattern, requirement="interval", cells="sensitive").protected:
            best = cost
            break
    return best


def tiny_shapes(rng, *, values=(1, 20), density=0.3, max_free=12):
    """Endless ``(data, sensitive)`` of 2x2 to 3x3 internal cells, with at least one
    sensitive cell and at most ``max_free`` non-sensitive cells once margins are added."""
    while True:
        m, n = rng.integers(2, 4, size=2)
        data = rng.integers(*values, size=(m, n))
        sens = rng.random((m, n)) < density
        if sens.any() and (m + 1) * (n + 1) - sens.sum() <= max_free:
            yield data, sens


def tiny_interval_tables(seed, count, max_free=12):
    rng = np.random.default_rng(seed)
    for _, (data, sens) in zip(range(count), tiny_shapes(rng, max_free=max_free)):
        prot = np.ceil(rng.uniform(0.1, 0.6) * data)
        spl = np.where(rng.random(data.shape) < 0.3, 2 * prot + 1, 0)
        yield Table.from_array(data, sensitive=sens, lower_protection=prot,
                               upper_protection=prot, sliding_protection=spl,
                               costs=rng.choice(["value", "unit"]))


def lagrangian_family():
    for seed in range(4):
        for costs in ("value", "unit"):
            yield almeida_carvalho_set2(11 + seed, 7, seed=seed, costs=costs)
    yield almeida_carvalho_set1(14, 9, seed=5)


def cube_table(internal: np.ndarray, sensitive: np.ndarray, costs: str, levels: float,
                scale: float) -> Table:
    """A 3-D table ``(m+1) x (n+1) x (p+1)`` with every marginal, from its internal cells."""
    m, n, p = internal.shape
    full = np.zeros((m + 1, n + 1, p + 1))
    full[:m, :n, :p] = internal
    full[m, :n, :p] = internal.sum(0)
    full[:m, n, :p] = internal.sum(1)
    full[:m, :n, p] = internal.sum(2)
    full[m, n, :p] = internal.sum((0, 1))
    full[m, :n, p] = internal.sum((0, 2))
    full[:m, n, p] = internal.sum((1, 2))
    full[m, n, p] = internal.sum()
    ids = np.arange(full.size).reshape(full.shape)
    relations = []
    for axis, size in enumerate(full.shape):
        moved = np.moveaxis(ids, axis, 0)
        for line in moved.reshape(size, -1).T:
            relations.append([(int(c), 1.0) for c in line[:-1]] + [(int(line[-1]), -1.0)])
    sens = np.zeros(full.shape, dtype=bool)
    sens[:m, :n, :p] = sensitive
    values = full.ravel() * scale
    level = np.where(sens.ravel(), levels * values, 0.0)
    return Table(values, costs=costs, status=np.where(sens.ravel(), "u", "s"),
                 apriori_upper=values.max() * 2 if levels else None,
                 lower_protection=level, upper_protection=level, relations=relations,
                 name="cube")


def small_cube() -> Table:
    """A 3x3x3 table (2x2x2 internal cells and every marginal), one sensitive cell."""
    values = np.arange(1, 9, dtype=float).reshape(2, 2, 2)
    sensitive = np.zeros((2, 2, 2), bool)
    sensitive[0, 0, 0] = True
    return cube_table(values, sensitive, "value", 0.25, 1.0)

"""The path heuristic for exact disclosure, its delete-and-check and its exclusion search.

Almeida & Carvalho (2005) §5, after Carvalho, Dellaert & Osorio (1994): protect the
sensitive cells one at a time along shortest paths (cells already suppressed cost 0). Each
pattern is cleaned by delete-and-check (Almeida, Schütz & Carvalho 2008 §5) and improved by
excluding one secondary at a time. The certified pipeline takes its first incumbent from
here, and the Lagrangian reruns it with costs from its multipliers.
"""

from __future__ import annotations

import math

import numpy as np

from cspopt.models.exact.paths import PathOracle

__all__ = ["path_heuristic", "exclusion_search"]


def path_heuristic(oracle: PathOracle, weights: np.ndarray, *, order=None,
                   clean: bool = True) -> np.ndarray | None:
    """Protect the cells one at a time along shortest paths; return the candidate mask.

    ``weights`` are per-candidate path costs (zero for cells to prefer). Cells already in the
    pattern cost 0 for the next paths. Returns ``None`` when some cell cannot be protected.
    """
    inst = oracle.inst
    chosen = np.zeros(inst.candidates.size, dtype=bool)
    witness: list[list[int]] = []
    positions = range(inst.protected_cells.size) if order is None else order
    for p in positions:
        length, arcs = oracle.best(p, oracle.arc_costs(np.where(chosen, 0.0, weights)))
        if not math.isfinite(length):
            return None
        xs = oracle.arc_x[arcs]
        chosen[xs[xs >= 0]] = True
        witness.append((p, arcs))
    if clean:
        _delete_and_check(oracle, chosen, dict(witness))
    return chosen


def exclusion_search(oracle: PathOracle, chosen: np.ndarray, weights: np.ndarray, *,
                     rounds: int = 3) -> np.ndarray:
    """Improve a pattern by excluding one secondary at a time (local search).

    For each suppressed candidate, most expensive first: forbid it, give the other
    suppressed cells cost 0, and rerun :func:`path_heuristic` (with its delete-and-check);
    keep the result when it is cheaper. Stops after ``rounds`` passes or a pass without
    improvement. Each move is one heuristic run (``|K|`` shortest paths); it brings the
    first incumbent close to the LP bound cheaply.
    """
    best, cost = chosen.copy(), float(weights[chosen].sum())
    for _ in range(rounds):
        improved = False
        for x in sorted(np.flatnonzero(best).tolist(), key=lambda i: -weights[i]):
            if not best[x]:
                continue
            trial = np.where(best, 0.0, weights)
            trial[x] = np.inf
            candidate = path_heuristic(oracle, trial)
            if candidate is None:
                continue
            candidate_cost = float(weights[candidate].sum())
            if candidate_cost < cost - 1e-9:
                best, cost, improved = candidate, candidate_cost, True
        if not improved:
            break
    return best


def _delete_and_check(oracle: PathOracle, chosen: np.ndarray, witness: dict) -> None:
    """Drop secondaries, most expensive first, while every cell keeps a path.

    Only the cells whose current path uses the dropped cell are re-checked; a re-check looks
    for a path through suppressed cells only.
    """
    inst = oracle.inst
    weights = inst.weights[inst.candidates]
    uses: dict[int, set[int]] = {}
    for p, arcs in witness.items():
        for x in oracle.arc_x[arcs]:
            if x >= 0:
                uses.setdefault(int(x), set()).add(p)
    for x in sorted(np.flatnonzero(chosen).tolist(), key=lambda i: -weights[i]):
        chosen[x] = False
        zero_cost = oracle.arc_costs(np.where(chosen, 0.0, np.inf))
        replaced = {}
        for p in uses.get(x, ()):
            length, arcs = oracle.best(p, zero_cost)
            if not math.isfinite(length):
                chosen[x] = True
                break
            replaced[p] = arcs
        else:
            for p, arcs in replaced.items():
                for old in oracle.arc_x[witness[p]]:
                    if old >= 0:
                        uses[int(old)].discard(p)
                witness[p] = arcs
                for new in oracle.arc_x[arcs]:
                    if new >= 0:
                        uses.setdefault(int(new), set()).add(p)

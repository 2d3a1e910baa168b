"""The Lagrangian benchmark (``cspopt bench lagrangian``): each dual method's bound after
200 iterations against the LP bound of (P), on the design of Almeida & Carvalho (2005)
Tables 2-4, every method run as the certified solve runs it.
"""

from __future__ import annotations

import logging
import time
from functools import partial

import numpy as np

from cspopt.bounds import cutting_plane, subgradient
from cspopt.heuristics import exclusion_search, path_heuristic
from cspopt.models.exact import PathOracle, build_instance
from cspopt.solving import solve_exact
from cspopt.table.generators import almeida_carvalho_set1, almeida_carvalho_set2

__all__ = ["lagrangian_benchmark", "lagrangian_summary"]

log = logging.getLogger(__name__)


def _warm_restarted(oracle, *, incumbent, max_iterations: int):
    """The bound-oracle use: half the iterations, then a second call warm-started from the
    first one's multipliers for the other half (no stop on a proof, like ``volume_strict``,
    which it should match)."""

    half = max_iterations // 2
    first = subgradient(oracle, incumbent=incumbent, max_iterations=half, stop_on_proof=False)
    second = subgradient(oracle, incumbent=first.incumbent, multipliers=first.warm_start(),
                         max_iterations=max_iterations - half, stop_on_proof=False)
    second.iterations += first.iterations
    second.dijkstra_calls += first.dijkstra_calls
    second.dijkstra_seconds += first.dijkstra_seconds
    return second


def _lagrangian_methods():

    return {"volume": partial(subgradient, rule="volume"),
            # the criterion itself: the bound after 200 iterations, proof or not
            "volume_strict": partial(subgradient, rule="volume", stop_on_proof=False),
            # its baseline in the same run: the same without the cut packing
            "volume_nopack": partial(subgradient, rule="volume", stop_on_proof=False,
                                     cut_packing=False),
            "volume_warm": _warm_restarted,
            "hwc": partial(subgradient, rule="held-wolfe-crowder"),
            "cutting": cutting_plane}


def lagrangian_benchmark(*, seeds: int = 3, max_iterations: int = 200) -> list[dict]:
    """Gap of the Lagrangian bound of (P) to the LP bound of (P) after ``max_iterations``.

    The LP bound is the dual optimum (§3.2), solved exactly by HiGHS in the same run.
    Tables up to 60x40 from both data sets, both weightings, ``seeds`` tables of each.
    Every method runs as :func:`cspopt.solve` runs it: the first incumbent (path heuristic
    and exclusion search) as target, embedded heuristic reruns every 5 iterations.
    """

    rows = []
    for rows_total, cols_total in ((20, 10), (40, 20), (60, 40)):
        for name in ("set1", "set2-value", "set2-unit"):
            for seed in range(seeds):
                m, n = rows_total - 1, cols_total - 1
                if name == "set1":
                    table, opts = almeida_carvalho_set1(m, n, seed=seed), {"publish_zeros": True}
                else:
                    table = almeida_carvalho_set2(m, n, seed=seed, costs=name.split("-")[1])
                    opts = {}
                inst = build_instance(table, "P", **opts)
                t0 = time.perf_counter()
                lp = solve_exact(table, model="P", relax=True, **opts).lower_bound
                row = {"set": name, "table": f"{rows_total}x{cols_total}", "seed": seed,
                       "up": int(inst.protected_cells.size), "LP": lp,
                       "LP_s": time.perf_counter() - t0}
                oracle = PathOracle(inst)
                weights = inst.weights[inst.candidates]
                first = exclusion_search(oracle, path_heuristic(oracle, weights), weights)
                row["UB0"] = float(weights[first].sum())
                for label, run in _lagrangian_methods().items():
                    t0 = time.perf_counter()
                    state = run(oracle, incumbent=first, max_iterations=max_iterations)
                    row[f"{label}_gap_pct"] = (100 * (lp - state.lower_bound) / lp if lp > 0
                                               else 0.0)
                    row[f"{label}_UB"] = state.upper_bound
                    row[f"{label}_its"] = state.iterations
                    row[f"{label}_stop"] = state.termination
                    row[f"{label}_s"] = time.perf_counter() - t0
                    row[f"{label}_ms_path"] = (1000 * state.dijkstra_seconds
                                               / max(state.dijkstra_calls, 1))
                    if state.lower_bound > lp + 1e-6 * max(1.0, abs(lp)):
                        raise AssertionError(f"{label} bound {state.lower_bound} exceeds the "
                                             f"LP bound {lp} on {row}")
                rows.append(row)
                log.info("lagrangian bench %s", row)
    return rows


def lagrangian_summary(rows: list[dict]) -> str:
    """One line per method: tables within 0.5 % of the LP bound or proven optimal."""
    def met(r, label):
        return r[f"{label}_gap_pct"] <= 0.5 or r[f"{label}_stop"] == "optimal"

    return "".join(
        f"- {label}: within 0.5 % of the LP bound or proven optimal on "
        f"{sum(met(r, label) for r in rows)} of {len(rows)} tables "
        f"({sum(r[f'{label}_gap_pct'] <= 0.5 for r in rows)} within 0.5 %), "
        f"median gap {float(np.median([r[f'{label}_gap_pct'] for r in rows])):.2f} %, "
        f"median {float(np.median([r[f'{label}_ms_path'] for r in rows])):.3f} ms per "
        f"shortest path\n" for label in _lagrangian_methods())

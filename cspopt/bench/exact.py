"""The exact-disclosure benchmark (``cspopt bench exact``).

The design of Almeida & Carvalho (2005) Tables 2-4. The first data set uses
(P) with zero cells published; the second uses (P_N) under weights ``xi = a`` and
``xi = 1``; 10 tables a size. Each table is solved by the compact MIP alone (the baseline)
and by the certified pipeline, both in the same run, with the paper's columns.

With table files (``--instance``, the CSPLIB tables) and generated hierarchical count tables
(``--counts``, :data:`COUNT_CASES`), exact disclosure on each as it is (3-D and
hierarchical tables by the cover cuts, :mod:`cspopt.solving.exact_cover`): cost,
secondaries, lower bound, certified gap, seconds, and the pattern judged by the exact
audit, beside GaussSuppression's pattern on the same table where R has it
(:func:`exact_instances_benchmark`).
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np

from cspopt.models.exact import build_instance
from cspopt.solving import solve_exact
from cspopt.table.generators import almeida_carvalho_set1, almeida_carvalho_set2

__all__ = ["exact_benchmark", "exact_instances_benchmark", "count_table", "COUNT_CASES",
           "SET1_SIZES", "SET2_SIZES"]

log = logging.getLogger(__name__)

#: (m+1, n+1) of Almeida & Carvalho (2005) Table 2 (first set) and Tables 3-4 (second set)
SET1_SIZES = ((20, 10), (20, 20), (40, 10), (40, 20), (40, 30), (40, 40), (60, 20), (60, 40),
              (60, 60), (80, 20), (80, 40), (80, 60), (80, 80), (100, 25), (100, 50),
              (100, 75), (100, 100), (200, 50), (200, 100), (200, 150), (200, 200))


SET2_SIZES = ((50, 10), (50, 20), (50, 30), (50, 40), (50, 50), (60, 20), (60, 40), (60, 60),
              (80, 20), (80, 40), (80, 60), (80, 80), (100, 20), (100, 40), (100, 60),
              (100, 80), (100, 100))


#: generated count tables (``cspopt bench exact --counts``): name -> (branching per level of
#: each dimension, records, seed, what empty cells are: :data:`cspopt.microdata.protect.ZEROS`)
COUNT_CASES = {
    "counts-3d-585": ({"region": (2, 3), "activity": (3, 3), "size": (4,)}, 300, 1,
                      "published"),
    "counts-3d-585-zeros": ({"region": (2, 3), "activity": (3, 3), "size": (4,)}, 300, 1,
                            "protected"),
    "counts-3d-6.6k": ({"region": (4, 4), "activity": (5, 4), "size": (11,)}, 3_000, 1,
                       "published"),
    "counts-4d-6.5k": ({"region": (3, 4), "activity": (4, 3), "size": (5,), "legal": (3,)},
                       3_000, 1, "published"),
}
#: the rule of the count tables
COUNT_RULES = "FREQ(3,10)"


def count_table(name: str):
    """The count table of :data:`COUNT_CASES` ``name``: seeded microdata
    (:func:`cspopt.microdata.synthetic.hierarchical_survey`) tabulated by count, sensitive
    by :data:`COUNT_RULES`, costs the counts, for exact protection."""
    from cspopt.microdata.protect import sensitive_table
    from cspopt.microdata.synthetic import hierarchical_survey

    levels, records, seed, zeros = COUNT_CASES[name]
    columns, hierarchies = hierarchical_survey(levels, records=records, seed=seed)
    return sensitive_table(columns, list(levels), rules=COUNT_RULES, hierarchies=hierarchies,
                           costs="frequency", protection="exact", zeros=zeros)[0]


def exact_instances_benchmark(tables, *, time_limit: float = 300.0, peer: bool = True,
                              on_row=None) -> list[dict]:
    """One row per ``(label, table)`` (a table file's path is read, its stem the label):
    ``cspopt.solve(table, protection="exact", time_limit=time_limit)``, the default method
    for the table's shape, its pattern judged by the exact audit under the model it solved
    (:func:`cspopt.solving.exact_cover.exact_audit`); with ``peer``, GaussSuppression on
    the same table (:func:`cspopt.bench.gauss.run_gauss`) where R has it, its pattern
    judged by the same audit (a note in ``gauss_note`` where it did not run)."""
    import cspopt
    from cspopt.bench.gauss import gauss_missing, run_gauss
    from cspopt.io import read_table
    from cspopt.solving.exact_cover import exact_audit

    missing = gauss_missing() if peer else "GaussSuppression not asked for"
    rows = []
    for item in tables:
        label, table = ((item.stem, read_table(item)) if hasattr(item, "stem") else item)
        started = time.perf_counter()
        result = cspopt.solve(table, protection="exact", time_limit=time_limit)
        seconds = time.perf_counter() - started
        secondary = np.setdiff1d(np.asarray(result.suppressed, dtype=np.int64),
                                 table.sensitive_cells)
        row = dict(
            table=label, cells=table.num_cells, sensitive=int(table.sensitive.sum()),
            network=table.is_network, method=result.method, status=str(result.status),
            cost=result.objective, secondaries=int(secondary.size),
            lower_bound=result.lower_bound, gap_pct=100 * result.gap, seconds=seconds,
            safe=bool(result.has_pattern and exact_audit(table, result.model,
                                                         result.suppressed).protected))
        peer_run = {"error": missing} if missing else run_gauss(table)
        if "error" in peer_run:
            row["gauss_note"] = peer_run["error"]
        else:
            pattern = np.union1d(table.sensitive_cells, peer_run["suppressed"])
            row.update(gauss_cost=peer_run["cost"],
                       gauss_secondaries=len(peer_run["suppressed"]),
                       gauss_seconds=peer_run["seconds"], gauss_order=peer_run["order"],
                       gauss_safe=bool(exact_audit(table, result.model, pattern).protected),
                       vs_gauss_pct=100 * (result.objective - peer_run["cost"])
                       / max(peer_run["cost"], 1e-300))
        rows.append(row)
        log.info("bench exact %s", rows[-1])
        if on_row is not None:
            on_row(rows)
    return rows


def exact_benchmark(*, tables: int = 10, time_limit: float = 60.0, max_cells: int = 10_201,
                    min_cells: int = 0,
                    max_variables: int = 20_000_000, sets=("set1", "set2-value", "set2-unit"),
                    pipeline: bool = True, on_row=None) -> list[dict]:
    """One row per (data set, size) with the paper's columns.

    Per table the compact MIP (the baseline, ``Cpl``) and, with ``pipeline``, the certified
    pipeline (heuristic, Lagrangian, then the cut-set branch-and-cut where a gap remains)
    run with the same time limit. ``Lag`` counts in-proven optima, ``Cpl+Lag`` every proven
    optimum of the pipeline; ``IGap``/``FGap`` are the initial/final incumbent's deviation
    (%) from the Lagrangian bound; ``T`` the pipeline's mean seconds; ``speedup`` the median
    of baseline time / pipeline time; ``BC``/``BC_s``/``T_over_BC`` the branch-and-cut alone,
    as a second baseline. Sizes with more than ``max_cells`` or fewer than
    ``min_cells`` cells are skipped (a long run can be split by size); a compact model over
    ``max_variables`` columns is not built (counted in ``too_large``).
    """
    import cspopt

    rows = []
    for name in sets:
        sizes = SET1_SIZES if name == "set1" else SET2_SIZES
        for rows_total, cols_total in sizes:
            if not min_cells <= rows_total * cols_total <= max_cells:
                continue
            m, n = rows_total - 1, cols_total - 1
            st = {k: [] for k in ("p", "up", "cpl_s", "variables", "lp_gap", "t", "igap",
                                  "fgap", "speedup", "ms_path", "ms_iter", "bc_s", "t_over_bc")}
            cpl = lag = proven = too_large = bc = 0
            for seed in range(tables):
                if name == "set1":
                    table = almeida_carvalho_set1(m, n, seed=seed)
                    opts = dict(model="P", publish_zeros=True)
                else:
                    table = almeida_carvalho_set2(m, n, seed=seed, costs=name.split("-")[1])
                    opts = dict(model="PN")
                inst = build_instance(table, opts["model"],
                                      publish_zeros=opts.get("publish_zeros", False))
                st["p"].append(table.sensitive_cells.size)
                st["up"].append(inst.protected_cells.size)
                paths = int(inst.needs_up.sum() + inst.needs_down.sum())
                baseline_s = math.nan
                if paths * int(inst.path_arc_mask.sum()) > max_variables:
                    too_large += 1
                else:
                    t0 = time.perf_counter()
                    compact = solve_exact(table, time_limit=time_limit, **opts)
                    baseline_s = time.perf_counter() - t0
                    st["cpl_s"].append(baseline_s)
                    st["variables"].append(compact.model_size["variables"])
                    cpl += compact.proven_optimal
                    if compact.proven_optimal and compact.objective > 0:
                        lp = solve_exact(table, relax=True, **opts)
                        st["lp_gap"].append(100 * (compact.objective - lp.lower_bound)
                                            / compact.objective)
                if not pipeline:
                    continue
                t0 = time.perf_counter()
                result = cspopt.solve(table, protection="exact", time_limit=time_limit, **opts)
                elapsed = time.perf_counter() - t0
                st["t"].append(elapsed)
                lag += result.proof == "lagrangian"
                proven += result.proven_optimal
                lagr = [h for h in result.history if "phase" not in h]
                lag_bound = max((h["lower_bound"] for h in lagr), default=0.0)
                first_ub = result.history[0]["upper_bound"]
                if lag_bound > 0 and math.isfinite(first_ub):
                    st["igap"].append(100 * (first_ub - lag_bound) / lag_bound)
                    final_ub = lagr[-1]["upper_bound"] if lagr else first_ub
                    st["fgap"].append(100 * max(0.0, final_ub - lag_bound) / lag_bound)
                st["ms_path"].append(result.model_size.get("ms_per_path", math.nan))
                if lagr:
                    st["ms_iter"].append(float(np.mean([h["ms"] for h in lagr])))
                if not math.isnan(baseline_s):
                    st["speedup"].append(baseline_s / elapsed)
                # the pipeline's last stage alone, as a second baseline
                t0 = time.perf_counter()
                alone = cspopt.solve(table, protection="exact", method="branch-and-cut",
                                     time_limit=time_limit, **opts)
                st["bc_s"].append(time.perf_counter() - t0)
                st["t_over_bc"].append(elapsed / st["bc_s"][-1])
                bc += alone.proven_optimal
                if alone.proven_optimal and result.proven_optimal and not math.isclose(
                        alone.objective, result.objective, rel_tol=1e-9, abs_tol=1e-9):
                    raise AssertionError(f"{name} {rows_total}x{cols_total} seed {seed}: "
                                         f"optima {result.objective} and {alone.objective}")

            def mean(key):
                return float(np.mean(st[key])) if st[key] else float("nan")

            row = {"set": name, "m+1": rows_total, "n+1": cols_total, "p": mean("p"),
                   "up": mean("up"), "minup": int(min(st["up"])), "maxup": int(max(st["up"])),
                   "tables": tables, "Cpl": cpl, "Cpl_s": mean("cpl_s"),
                   "too_large": too_large, "variables": int(mean("variables"))
                   if st["variables"] else 0, "lp_gap_pct": mean("lp_gap")}
            if pipeline:
                row.update({"Lag": lag, "IGap": mean("igap"), "FGap": mean("fgap"),
                            "T": mean("t"), "Cpl+Lag": proven,
                            "speedup": float(np.median(st["speedup"])) if st["speedup"]
                            else float("nan"),
                            "ms_path": mean("ms_path"), "ms_iter": mean("ms_iter"),
                            "BC": bc, "BC_s": mean("bc_s"),
                            "T_over_BC": float(np.median(st["t_over_bc"]))})
            log.info("exact bench %s", row)
            rows.append(row)
            if on_row is not None:
                on_row(rows)
    return rows

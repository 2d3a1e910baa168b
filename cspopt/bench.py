"""Benchmarks (``cspopt bench NAME``): results tables with a baseline measured in the same run.

``exact``: the compact MIP of (P)/(P_N) alone on the design of Almeida & Carvalho (2005)
Tables 2-4: the first data set with (P) and zero cells published, the second with (P_N)
under weights ``xi = a`` and ``xi = 1``; 10 tables a size; columns ``p, up, minup, maxup``,
tables solved to proven optimality, mean time, model size. This is the baseline that the
Lagrangian pipeline (issue #4) must beat.

``audit``: the LP audit (one HiGHS model, warm-started re-solves) against a baseline that
builds a fresh model for every cell, and the graph audit, on GenSup class II style 2-D tables
with a random pattern of complementary suppressions. Reports seconds, ms per LP, the speed-up
ratio and whether the LP, baseline and graph verdicts agree.
"""

from __future__ import annotations

import logging
import platform
import time
from pathlib import Path

import numpy as np

from cspopt.audit import audit, graph_audit
from cspopt.audit.lp import _AttackerLP
from cspopt.table import Table

__all__ = ["run_benchmark", "audit_benchmark"]

log = logging.getLogger(__name__)


def _audit_case(m: int, n: int, num_sensitive: int, num_suppressed: int, seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    internal = rng.integers(1, 1001, size=(m, n))
    sens = np.zeros((m, n), dtype=bool)
    sens.flat[rng.choice(m * n, size=num_sensitive, replace=False)] = True
    table = Table.from_array(internal, sensitive=sens, name=f"bench-{m}x{n}-s{seed}")
    free = np.flatnonzero(~table.sensitive)
    pattern = rng.choice(free, size=num_suppressed - num_sensitive, replace=False)
    return table, pattern


def _baseline_exposed(table, pattern) -> tuple[tuple[int, ...], int]:
    """Fresh model per cell: what a straightforward implementation does."""
    mask = table.pattern(pattern)
    exposed = []
    solves = 0
    for cell in np.flatnonzero(mask).tolist():
        lp = _AttackerLP(table, mask)
        _, _, down, up = lp.interval(cell, table.is_integer, 1e-6)
        solves += lp.num_solves
        if table.sensitive[cell] and not (down or up):
            exposed.append(cell)
    return tuple(exposed), solves


def audit_benchmark(sizes=((20, 10), (50, 50), (100, 100), (200, 100)), *,
                    suppressed: int = 200, repeats: int = 3) -> list[dict]:
    rows = []
    for m, n in sizes:
        for seed in range(repeats):
            table, pattern = _audit_case(m, n, suppressed // 2, suppressed, seed)
            t0 = time.perf_counter()
            lp = audit(table, pattern, requirement="exact")
            t1 = time.perf_counter()
            base_exposed, base_solves = _baseline_exposed(table, pattern)
            t2 = time.perf_counter()
            graph = graph_audit(table, pattern)
            t3 = time.perf_counter()
            rows.append(dict(
                table=f"{m + 1}x{n + 1}", seed=seed, cells=table.num_cells,
                suppressed=len(lp.suppressed), lps=lp.num_solves, lp_s=t1 - t0,
                baseline_s=t2 - t1, speedup=(t2 - t1) / (t1 - t0), graph_s=t3 - t2,
                ms_per_lp=1000 * (t1 - t0) / max(lp.num_solves, 1),
                exposed=len(lp.exposed),
                agree=lp.exposed == graph.exposed == base_exposed))
            log.info("audit bench %s", rows[-1])
    return rows


#: (m+1, n+1) of Almeida & Carvalho (2005) Table 2 (first set) and Tables 3-4 (second set)
SET1_SIZES = ((20, 10), (20, 20), (40, 10), (40, 20), (40, 30), (40, 40), (60, 20), (60, 40),
              (60, 60), (80, 20), (80, 40), (80, 60), (80, 80), (100, 25), (100, 50),
              (100, 75), (100, 100), (200, 50), (200, 100), (200, 150), (200, 200))
SET2_SIZES = ((50, 10), (50, 20), (50, 30), (50, 40), (50, 50), (60, 20), (60, 40), (60, 60),
              (80, 20), (80, 40), (80, 60), (80, 80), (100, 20), (100, 40), (100, 60),
              (100, 80), (100, 100))


def exact_benchmark(*, tables: int = 10, time_limit: float = 60.0, max_cells: int = 10_201,
                    max_variables: int = 20_000_000, sets=("set1", "set2-value", "set2-unit"),
                    on_row=None) -> list[dict]:
    """One row per (data set, size): the paper's columns for the compact MIP.

    Sizes with more than ``max_cells`` cells are skipped; a table whose model would exceed
    ``max_variables`` columns is counted as not solved (``too large``) without building it.
    """
    from cspopt.formulations import build_instance, solve_exact
    from cspopt.generators import almeida_carvalho_set1, almeida_carvalho_set2

    rows = []
    for name in sets:
        sizes = SET1_SIZES if name == "set1" else SET2_SIZES
        for rows_total, cols_total in sizes:
            if rows_total * cols_total > max_cells:
                continue
            m, n = rows_total - 1, cols_total - 1
            stats = dict(p=[], up=[], solved=0, too_large=0, time=[], variables=[], lp_gap=[])
            for seed in range(tables):
                if name == "set1":
                    table = almeida_carvalho_set1(m, n, seed=seed)
                    opts = dict(model="P", publish_zeros=True)
                else:
                    table = almeida_carvalho_set2(m, n, seed=seed,
                                                  costs=name.split("-")[1])
                    opts = dict(model="PN")
                inst = build_instance(table, opts["model"],
                                      publish_zeros=opts.get("publish_zeros", False))
                stats["p"].append(table.sensitive_cells.size)
                stats["up"].append(inst.protected_cells.size)
                per_path = int(inst.path_arc_mask.sum())
                paths = int(inst.needs_up.sum() + inst.needs_down.sum())
                if paths * per_path > max_variables:
                    stats["too_large"] += 1
                    continue
                t0 = time.perf_counter()
                result = solve_exact(table, time_limit=time_limit, **opts)
                stats["time"].append(time.perf_counter() - t0)
                stats["variables"].append(result.model_size["variables"])
                stats["solved"] += result.proven_optimal
                if result.proven_optimal and result.objective > 0:
                    lp = solve_exact(table, relax=True, **opts)
                    stats["lp_gap"].append(100 * (result.objective - lp.lower_bound)
                                           / result.objective)
            row = {"set": name, "m+1": rows_total, "n+1": cols_total,
                   "p": float(np.mean(stats["p"])), "up": float(np.mean(stats["up"])),
                   "minup": int(min(stats["up"])), "maxup": int(max(stats["up"])),
                   "tables": tables, "solved": int(stats["solved"]),
                   "too_large": int(stats["too_large"]),
                   "mean_s": float(np.mean(stats["time"])) if stats["time"] else float("nan"),
                   "max_s": float(np.max(stats["time"])) if stats["time"] else float("nan"),
                   "variables": int(np.mean(stats["variables"])) if stats["variables"] else 0,
                   "lp_gap_pct": float(np.mean(stats["lp_gap"])) if stats["lp_gap"] else 0.0}
            log.info("exact bench %s", row)
            rows.append(row)
            if on_row is not None:
                on_row(rows)
    return rows


def _markdown(rows: list[dict], title: str) -> str:
    keys = list(rows[0])
    fmt = {float: "{:.4f}", bool: "{}", int: "{}", str: "{}"}
    lines = [f"# {title}", "",
             f"Machine: {platform.machine()}, {platform.python_implementation()} "
             f"{platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M')}", "",
             "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        lines.append("| " + " | ".join(fmt[type(row[k])].format(row[k]) for k in keys) + " |")
    return "\n".join(lines) + "\n"


def run_benchmark(name: str, *, output: str | None = None, quick: bool = False,
                  tables: int = 10, time_limit: float = 60.0, max_cells: int = 10_201) -> int:
    """Run benchmark ``name``, print its Markdown table and write it to ``output``."""
    if name == "audit":
        rows = audit_benchmark(((20, 10), (50, 50)) if quick else
                               ((20, 10), (50, 50), (100, 100), (200, 100)),
                               suppressed=60 if quick else 200, repeats=1 if quick else 3)
        text = _markdown(rows, "Audit benchmark (cspopt bench audit)") + (
            f"\nMedian speed-up of the warm-started audit over the per-cell baseline: "
            f"{float(np.median([r['speedup'] for r in rows])):.1f}x; all verdicts agree: "
            f"{all(r['agree'] for r in rows)}.\n")
        ok = all(r["agree"] for r in rows)
    elif name == "exact":
        def render(rows):
            return _markdown(rows, "Compact MIP on the design of Almeida & Carvalho (2005) "
                                   "Tables 2-4 (cspopt bench exact)") + (
                f"\nPer table: time limit {time_limit:g} s, HiGHS, matrix route. `solved` = "
                "proven optimal; `too_large` = model over 2e7 columns, not built; `lp_gap_pct` "
                "= mean (optimum - LP bound) / optimum over solved tables.\n")

        def save(rows):  # keep partial results of a long run
            if output:
                Path(output).parent.mkdir(parents=True, exist_ok=True)
                Path(output).write_text(render(rows))

        rows = exact_benchmark(tables=2 if quick else tables, time_limit=time_limit,
                               max_cells=600 if quick else max_cells, on_row=save)
        text = render(rows)
        ok = True
    else:
        raise ValueError(f"unknown benchmark {name!r}")
    print(text, end="")
    if output:
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(text)
    return 0 if ok else 1

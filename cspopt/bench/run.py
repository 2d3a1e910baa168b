"""``cspopt bench NAME``: run one benchmark, print its Markdown results table and write it."""

from __future__ import annotations

import platform
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from cspopt.bench.audit import audit_benchmark
from cspopt.bench.exact import (
    COUNT_CASES,
    COUNT_RULES,
    count_table,
    exact_benchmark,
    exact_instances_benchmark,
)
from cspopt.bench.heuristics import (
    ga_benchmark,
    ga_cases,
    gap_benchmark,
    gap_cases,
    heuristics_summary,
    scaling_benchmark,
    scaling_cases,
)
from cspopt.bench.interval import interval_benchmark, interval_cases, interval_summary
from cspopt.bench.lagrangian import lagrangian_benchmark, lagrangian_summary
from cspopt.bench.limits import limits_benchmark, limits_cases
from cspopt.bench.protect import protect_benchmark, protect_cases, protect_summary
from cspopt.bench.scale import RULES as SCALE_RULES
from cspopt.bench.scale import SCALE_CASES, scale_benchmark, scale_cases

__all__ = ["run_benchmark"]


def _markdown(rows: list[dict], title: str) -> str:
    keys = list(dict.fromkeys(k for row in rows for k in row))  # rows may add columns
    fmt = {float: "{:.4f}", bool: "{}", int: "{}", str: "{}"}
    lines = [f"# {title}", "",
             f"Machine: {platform.machine()}, {platform.python_implementation()} "
             f"{platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M')}", "",
             "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        lines.append("| " + " | ".join(
            fmt.get(type(row[k]), "{}").format(row[k]) if k in row else "" for k in keys)
            + " |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class _BenchRun:
    """The options of one ``cspopt bench`` call."""

    output: str | None
    quick: bool
    tables: int
    time_limit: float
    max_cells: int
    min_cells: int
    instances: Sequence[str | Path]
    fixed_work: float | None = None
    tools: Sequence[str] = ()
    counts: bool = False


def run_benchmark(name: str, *, output: str | None = None, quick: bool = False,
                  tables: int = 10, time_limit: float = 60.0, max_cells: int = 10_201,
                  min_cells: int = 0, instances: Sequence[str | Path] = (),
                  fixed_work: float | None = None, tools: Sequence[str] = (),
                  counts: bool = False) -> int:
    """Run benchmark ``name``, print its Markdown table and write it to ``output``;
    ``instances`` are table files the interval benchmark adds to its generated tables;
    ``fixed_work``: the scale benchmark's same work on one and two workers, each subtable
    given that many seconds, instead of its time-limited runs; ``tools``: the scale
    benchmark's runs to make (:data:`cspopt.bench.scale.TOOLS`; all without); ``counts``:
    the exact benchmark's generated count tables (:data:`cspopt.bench.exact.COUNT_CASES`)
    beside ``instances``."""
    if name not in _BENCHMARKS:
        raise ValueError(f"unknown benchmark {name!r}")
    text, ok = _BENCHMARKS[name](_BenchRun(output, quick, tables, time_limit, max_cells,
                                           min_cells, tuple(instances), fixed_work,
                                           tuple(tools), counts))
    print(text, end="")
    _save(output, lambda _: text, None)
    return 0 if ok else 1


def _audit(run: _BenchRun) -> tuple[str, bool]:
    """``cspopt bench audit``: its results page and whether every check passed."""
    rows = audit_benchmark(((20, 10), (50, 50)) if run.quick else
                           ((20, 10), (50, 50), (100, 100), (200, 100)),
                           suppressed=60 if run.quick else 200, repeats=1 if run.quick else 3)
    text = _markdown(rows, "Audit benchmark (cspopt bench audit)") + (
        f"\nMedian speed-up of the warm-started audit over the per-cell baseline: "
        f"{float(np.median([r['speedup'] for r in rows])):.1f}x; all verdicts agree: "
        f"{all(r['agree'] for r in rows)}.\n")
    return text, all(r["agree"] for r in rows)


def _lagrangian(run: _BenchRun) -> tuple[str, bool]:
    """``cspopt bench lagrangian``: its results page and whether every check passed."""
    rows = lagrangian_benchmark(seeds=1 if run.quick else run.tables)
    summary = lagrangian_summary(rows)
    text = _markdown(rows, "Lagrangian bound of (P) vs its LP bound after 200 iterations "
                           "(cspopt bench lagrangian)") + (
        "\nEvery method as the certified solve runs it: the same first incumbent (path "
        "heuristic + exclusion search, cost `UB0`) as target, embedded heuristic reruns "
        "every 5 iterations (`*_UB`: final incumbent). `volume` = volume algorithm "
        "(default), `volume_strict` = the same without the stop on a proof (the bound "
        "after all 200 iterations: the convergence criterion itself), `volume_nopack` = "
        "`volume_strict` without the cut packing (`cspopt.bounds.cut_packing`), "
        "`volume_warm` = "
        "100 of those iterations, then 100 more in a second call warm-started from the "
        "first call's multipliers (the bound-oracle use), "
        "`hwc` = Held-Wolfe-Crowder halving rule, `cutting` = stabilised cutting "
        "plane; `LP_s` = HiGHS on the LP relaxation in the same run. A run that stops "
        "`optimal` has the bound rounded up meeting the incumbent (the LP bound cannot "
        "prove more). No bound exceeded the LP bound.\n\n" + summary)
    return text, True


def _exact(run: _BenchRun) -> tuple[str, bool]:
    """``cspopt bench exact``: its results page and whether every check passed."""
    def render(rows):
        return _markdown(rows, "Compact MIP vs certified pipeline on the design of "
                               "Almeida & Carvalho (2005) Tables 2-4 "
                               "(cspopt bench exact)") + (
            f"\nPer table: time limit {run.time_limit:g} s for each method; the compact MIP on "
            "HiGHS, the pipeline's branch-and-cut on SCIP. `Cpl` = tables the compact MIP "
            "(baseline) proved optimal, `Cpl_s` its mean seconds; "
            "`Lag` = in-proven by the Lagrangian, `Cpl+Lag` = proven by the pipeline (any "
            "proof), `T` its mean seconds, `speedup` = median baseline/pipeline time per "
            "table; `IGap`/`FGap` = initial/final incumbent above the Lagrangian bound "
            "(%); `ms_path` per Dijkstra call, `ms_iter` per Lagrangian iteration; "
            "`too_large` = compact model over 2e7 columns, not built; `lp_gap_pct` = mean "
            "(optimum - LP bound) / optimum where the compact MIP solved; `BC` = proven by "
            "the pipeline's last stage alone (`method=\"branch-and-cut\"`, SCIP, the same "
            "limit), `BC_s` its mean seconds, `T_over_BC` = median pipeline/branch-and-cut "
            "time per table (above 1: the branch-and-cut alone is faster).\n")

    if run.instances or run.counts:
        return _exact_instances(run)
    rows = exact_benchmark(tables=2 if run.quick else run.tables, time_limit=run.time_limit,
                           max_cells=600 if run.quick else run.max_cells, min_cells=run.min_cells,
                           on_row=partial(_save, run.output, render))
    text = render(rows)
    return text, True


def _exact_instances(run: _BenchRun) -> tuple[str, bool]:
    """``cspopt bench exact --instance FILE --counts``: exact disclosure on table files and
    generated count tables beside GaussSuppression, and whether every cspopt pattern
    passed the exact audit."""
    names = list(COUNT_CASES)[:1 if run.quick else None] if run.counts else []

    def render(rows):
        cases = "; ".join(f"`{n}`: levels {COUNT_CASES[n][0]}, {COUNT_CASES[n][1]:,} "
                          f"records, seed {COUNT_CASES[n][2]}, empty cells "
                          f"{COUNT_CASES[n][3]}" for n in names)
        notes = sorted({r["gauss_note"] for r in rows if "gauss_note" in r})
        return _markdown(rows, "Exact disclosure on table files (cspopt bench exact "
                               "--instance)") + (
            f"\nEach table by `cspopt.solve(table, protection=\"exact\", "
            f"time_limit={run.time_limit:g})`: (P)/(P_N) on 2-D tables (`network`), the cover "
            "cuts' branch-and-cut on the others; `cost`: the secondaries' cost (the file's "
            "costs); `safe`: the exact audit of the pattern (integer completions under "
            "(P_N)); `gap_pct`: certified by `lower_bound`. `gauss_*`: GaussSuppression "
            "(SSBtools::GaussSuppression) on the same table, the cheaper of its cost and "
            "value orders (`gauss_order`), its pattern judged by the same audit "
            "(`gauss_safe`: it ignores the a-priori bounds); `vs_gauss_pct`: cspopt's cost "
            "against it." + (f" Count tables ({COUNT_RULES}, costs the counts): {cases}."
                             if names else "") + "".join(f" {n}." for n in notes) + "\n")

    tables = [Path(p) for p in run.instances] + [(n, count_table(n)) for n in names]
    rows = exact_instances_benchmark(tables, time_limit=run.time_limit,
                                     on_row=partial(_save, run.output, render))
    return render(rows), all(r["safe"] for r in rows)


def _interval(run: _BenchRun) -> tuple[str, bool]:
    """``cspopt bench interval``: its results page and whether every check passed."""
    def render(rows):
        return _markdown(rows, "Interval protection: cspopt branch-and-cut vs pytauargus "
                               "OPT (cspopt bench interval)") + interval_summary(
            rows, run.time_limit)

    rows = interval_benchmark(interval_cases(quick=run.quick, instances=run.instances),
                              time_limit=run.time_limit, on_row=partial(_save, run.output, render))
    text = render(rows)
    return text, all(r["cspopt_safe"] for r in rows)


def _protect(run: _BenchRun) -> tuple[str, bool]:
    """``cspopt bench protect``: its results page and whether every check passed."""
    def render(rows):
        return _markdown(rows, "Microdata to a protected table: cspopt.protect vs "
                               "pytauargus.protect (cspopt bench protect)") + (
            f"\nSeeded business surveys (Poisson respondents, `-1/log r` sizes; Smith "
            f"et al. 2012 §VII), province (a two-level hierarchy) x activity, "
            f"turnover; both tools from the same records and rules, cspopt with "
            f"{run.time_limit:g} s, the peer with OPT(1, minutes). `differences`: primary "
            f"cells or protection levels that differ; `*_safe`: cspopt's audit of "
            f"each pattern; costs are the cells' values.\n") + protect_summary(rows)

    rows = protect_benchmark(protect_cases(quick=run.quick), time_limit=run.time_limit,
                             on_row=partial(_save, run.output, render))
    text = render(rows)
    return text, all(r["cspopt_safe"] for r in rows)


def _scale(run: _BenchRun) -> tuple[str, bool]:
    """``cspopt bench scale``: its results page and whether every cspopt pattern passed the
    whole table's audit."""
    def render(rows):
        cases = "; ".join(f"`{n}`: levels {SCALE_CASES[n][0]}, {SCALE_CASES[n][1]:,} "
                          f"records, seed {SCALE_CASES[n][2]}" for n in dict.fromkeys(
                              r["case"] for r in rows) if n in SCALE_CASES)
        microdata = (f"Microdata `cspopt.microdata.synthetic.hierarchical_survey` ({cases}), "
                     f"rules `{SCALE_RULES}`, costs = values; " if cases else
                     "Table files, their own costs; ")
        if run.fixed_work is not None:
            return _markdown(rows, "Modular's same work on one and two Dask workers (cspopt "
                                   "bench scale --fixed-work)") + (
                f"\n{microdata}Modular without a time limit, each subtable's solve given "
                f"{run.fixed_work:g} s (`subtable_time_limit`), the repair's groups fixed by "
                "its number of cells, without the clean-up and the capacity LP (both run to "
                "the call's limit), so that the work does not depend on the workers; "
                "`speedup`: the one-worker run's seconds over the two-worker run's; "
                "`pattern`: a digest of the pattern.\n")
        return _markdown(rows, "Hierarchical tables at scale: cspopt vs pytauargus MOD and "
                               "OPT (cspopt bench scale)") + (
            f"\n{microdata}cspopt with {run.time_limit:g} s a run "
            "(`modular-2w`: two Dask workers; `hypercube`: GHMITER's n-D hypercubes subtable "
            "by subtable, cleaned and certified; on table files also `auto`, the default), the "
            "peer with whole minutes of CPU time (from microdata only). "
            "`safe`: cspopt's audit of the pattern on the whole table; `cost` and "
            "`secondaries` without the primaries; `rss_mb`: the run's peak resident memory "
            "(its processes' largest).\n")

    rows = scale_benchmark(scale_cases(quick=run.quick, max_cells=run.max_cells,
                                       min_cells=run.min_cells),
                           time_limit=run.time_limit, instances=run.instances,
                           on_row=partial(_save, run.output, render),
                           subtable_seconds=run.fixed_work, tools=run.tools)
    return render(rows), all(r.get("safe", False) for r in rows
                             if r["tool"].startswith("cspopt") and r["status"] != "killed")


def _limits(run: _BenchRun) -> tuple[str, bool]:
    """``cspopt bench limits``: its results page and whether every check passed."""
    def render(rows):
        return _markdown(rows, "Time limits kept, audit included (cspopt bench limits)") + (
            f"\nEach table solved by `cspopt.solve(table, time_limit={run.time_limit:g})`, "
            "the default method, timed from the call to the audited result; `kept`: "
            "`wall_s <= 1.1 limit + 5 s`; `phases`: the result's timings (seconds). "
            "Generated tables: 3-D seeded microdata (`cspopt.bench.limits."
            "cube_microdata_table`), `P(15)|FREQ(3,10)`, costs = values.\n")

    rows = limits_benchmark(limits_cases(quick=run.quick, instances=run.instances),
                            time_limit=run.time_limit, on_row=partial(_save, run.output, render))
    text = render(rows)
    return text, all(r["kept"] and r["audited"] for r in rows)


def _heuristics(run: _BenchRun) -> tuple[str, bool]:
    """``cspopt bench heuristics``: its results page and whether every check passed."""
    parts: dict[str, list[dict]] = dict(gaps=[], scaling=[], ga=[])

    def render(_=None):
        gaps, scaling = parts["gaps"], parts["scaling"]
        text = (_markdown(gaps, "Interval heuristics against cspopt's bound (cspopt bench "
                                "heuristics)") + heuristics_summary(gaps, run.time_limit)
                if gaps else "")
        if scaling:
            text += "\n" + _markdown(scaling, "Path heuristics on large tables").replace(
                "# Path", "## Path", 1) + (
                "\n`heuristic_s`: the heuristic alone; `total_s`: the solve with its "
                "audit; `growth`: heuristic time over the first table's of its family "
                "(2-D, hierarchical).\n")
        if parts["ga"]:
            text += "\n" + _markdown(parts["ga"], "Smith et al.'s GA and local searches "
                                                  "against the weight order").replace(
                "# Smith", "## Smith", 1) + (
                f"\nSmith et al. (2012) Table II designs (`smith_factors`, seed 1): "
                f"`exposed` = sensitive cells preprocessing leaves to protect (their K); "
                f"`weight_order_cost` = the incremental attacker in decreasing weight "
                f"order; `*_pct` = improvement on it (Table III) of the self-adaptive GA, "
                f"of LS-Swap, LS-Insert, LS-Invert and, above 30,000 cells, of GA-group-K "
                f"with 40 groups (§V) (seed 0), each within `limit_s` (at least "
                f"{run.time_limit:g} s, and four "
                f"weight-order runs); `*_evals` = incremental-attacker runs (the paper "
                f"allowed 3-12 h).\n")
        return text

    def keep(part):
        def on_row(rows):
            parts[part] = rows
            _save(run.output, render, None)
        return on_row

    gap_benchmark(gap_cases(quick=run.quick, seeds=1 if run.quick else run.tables),
                  time_limit=run.time_limit, on_row=keep("gaps"))
    ga_benchmark(ga_cases(quick=run.quick), time_limit=run.time_limit, on_row=keep("ga"))
    scaling_benchmark(scaling_cases(quick=run.quick), on_row=keep("scaling"))
    text = render()
    return text, True


#: the benchmarks of ``cspopt bench``, by name
_BENCHMARKS = {name: globals()[f"_{name}"] for name in (
    "audit", "lagrangian", "exact", "interval", "protect", "limits", "heuristics", "scale")}


def _save(output: str | None, render, rows) -> None:
    """Write ``render(rows)`` to ``output`` (also for partial results of a long run)."""
    if output:
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(render(rows))

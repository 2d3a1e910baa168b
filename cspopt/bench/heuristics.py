"""The heuristics benchmark (``cspopt bench heuristics``).

Two parts, each measured in one run. **Gaps**: on the GenSup class I and II ladder of
Almeida, Schütz & Carvalho (2008) §6 (20x20 to 100x100), every interval heuristic of
:data:`cspopt.solving.heuristic.HEURISTICS` with the clean-up the paper applies to all of
them (§5), against the lower bound and the best pattern of cspopt's branch-and-cut in the
same run (the paper's gap: ``(UB - LB) / LB``, its Fig. 7). **Scaling**: the path
heuristics (Castro 2007; SP) without clean-up on 2-D tables of 62,500 to 562,500 cells and
on 2-D tables with one hierarchical dimension (Castro's Fig. 5), time per table and per
path, with its growth against the smallest table. **GA**: on Smith et al.'s (2012) Table II
designs (200x5, 200x50, 4000x10; 2 % and 10 % sensitive), their self-adaptive GA against the
incremental attacker in decreasing weight order (their Table III: 10-25 % better).
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np

from cspopt.heuristics import incremental_attacker
from cspopt.heuristics.smith_ga import PAPER_GROUPS
from cspopt.models.interval import build_interval_instance
from cspopt.solving import solve_branch_and_cut
from cspopt.solving.heuristic import HEURISTICS, solve_heuristic
from cspopt.table import generators as g

__all__ = ["gap_cases", "gap_benchmark", "scaling_cases", "scaling_benchmark",
           "ga_cases", "ga_benchmark", "heuristics_summary"]

log = logging.getLogger(__name__)

#: the path heuristics timed on large tables
SCALING_METHODS = ("castro", "sp")


def gap_cases(*, quick: bool = False, seeds: int = 1) -> list[tuple]:
    """``(name, table)``: the GenSup ladder, ``seeds`` tables a size and class."""
    sizes = (20,) if quick else (20, 40, 60, 80, 100)
    return [(f"gensup{kind}-{n}x{n}-s{seed}", generate(n, n, seed=seed))
            for kind, generate in ((1, g.gensup_class1), (2, g.gensup_class2))
            for n in sizes for seed in range(1, seeds + 1)]


def scaling_cases(*, quick: bool = False) -> list[tuple]:
    """``(name, builder)``: GenSup class I at 250^2, 500^2, 750^2 internal cells (about
    500, 2,000 and 4,500 sensitive cells) and hierarchical tables (10 % sensitive); built
    when run, one at a time."""
    if quick:
        return [("gensup1-100x100", lambda: g.gensup_class1(100, 100, seed=1)),
                ("hier-50x20", lambda: g.hierarchical_2d(50, 20, seed=1))]
    return [*((f"gensup1-{n}x{n}", lambda n=n: g.gensup_class1(n, n, seed=1))
              for n in (250, 500, 750)),
            *((f"hier-{m}x{n}", lambda m=m, n=n: g.hierarchical_2d(m, n, seed=1))
              for m, n in ((200, 100), (400, 150)))]


def gap_benchmark(cases, *, time_limit: float = 60.0, on_row=None) -> list[dict]:
    """Per table: cspopt's branch-and-cut (bound and pattern), then each heuristic cleaned
    up, with its gap to that bound (``nan`` where it failed)."""
    rows = []
    for name, table in cases:
        t0 = time.perf_counter()
        exact = solve_branch_and_cut(table, time_limit=time_limit)
        row = dict(table=name, cells=table.num_cells, sensitive=int(table.sensitive.sum()),
                   lb=float(exact.lower_bound), bc_cost=float(exact.objective),
                   bc_status=exact.status, bc_s=time.perf_counter() - t0)
        for method in HEURISTICS:
            t0 = time.perf_counter()
            found = solve_heuristic(table, method=method, clean=True, time_limit=time_limit)
            failed = found.termination == "method_failed"
            cost = math.nan if failed else float(found.objective)
            row[f"{method}_cost"] = cost
            row[f"{method}_gap_pct"] = (100 * (cost - row["lb"]) / row["lb"] if row["lb"] > 0
                                        else math.nan)
            row[f"{method}_s"] = time.perf_counter() - t0
        rows.append(row)
        log.info("heuristics bench %s", row)
        if on_row is not None:
            on_row(rows)
    return rows


def scaling_benchmark(cases, *, time_limit: float = 600.0, on_row=None) -> list[dict]:
    """Per table and path heuristic: seconds (the heuristic alone, and the solve with its
    audit), paths, cost and the growth of the heuristic's time over the first table of its
    family (2-D, hierarchical)."""
    rows, first = [], {}
    for name, build in cases:
        table = build()
        for method in SCALING_METHODS:
            t0 = time.perf_counter()
            found = solve_heuristic(table, method=method, time_limit=time_limit)
            wall = time.perf_counter() - t0
            heuristic = found.timings.get("heuristic", math.nan)
            family = (method, name.split("-")[0])  # growth within 2-D, within hierarchical
            first.setdefault(family, heuristic)
            rows.append(dict(
                table=name, cells=table.num_cells, sensitive=int(table.sensitive.sum()),
                method=method, status=found.termination, cost=float(found.objective),
                paths=int(found.model_size.get("paths", 0)), heuristic_s=heuristic,
                ms_per_path=1000 * heuristic / max(found.model_size.get("paths", 0), 1),
                total_s=wall, growth=heuristic / first[family]))
            log.info("heuristics scaling %s", rows[-1])
            if on_row is not None:
                on_row(rows)
    return rows


def heuristics_summary(gaps: list[dict], time_limit: float) -> str:
    """Mean gap per heuristic and class, failures, and the share of the SP gap the best
    heuristic closes (the paper's Figs 7-9 report GenSup's)."""
    lines = ["", f"Gaps: each heuristic with delete-and-check clean-up, `*_gap_pct` = "
             f"(cost - lb) / lb with `lb` cspopt's branch-and-cut bound after at most "
             f"{time_limit:g} s (`bc_cost` its pattern); `nan`: the heuristic failed "
             "(a cell it cannot protect).", ""]
    for kind in (1, 2):
        mine = [r for r in gaps if r["table"].startswith(f"gensup{kind}-")]
        if not mine:
            continue
        parts, means = [], {}
        for method in HEURISTICS:
            ok = [r[f"{method}_gap_pct"] for r in mine if not math.isnan(r[f"{method}_cost"])]
            means[method] = sum(ok) / len(ok) if ok else math.nan
            parts.append(f"{method} {means[method]:.1f} % on {len(ok)} of {len(mine)}" if ok
                         else f"{method} failed on all {len(mine)}")
        bc = [100 * (r["bc_cost"] - r["lb"]) / r["lb"] for r in mine if r["lb"] > 0]
        bridged = (f"; GenSup bridged {100 * (1 - means['gensup'] / means['sp']):.0f} % of the "
                   "SP heuristic's mean gap" if means.get("sp", 0) > 0
                   and not math.isnan(means.get("gensup", math.nan)) else "")
        lines.append(f"- class {'I' * kind}: mean gap " + ", ".join(parts)
                     + f"; branch-and-cut {sum(bc) / max(len(bc), 1):.2f} %{bridged}.")
    return "\n".join(lines) + "\n"


def ga_cases(*, quick: bool = False) -> list[tuple]:
    """``(name, builder)``: Smith et al.'s Table II designs, 2 % and 10 % sensitive."""
    sizes = ((200, 5),) if quick else ((200, 5), (200, 50), (4000, 10))
    return [(f"smith-{m}x{n}-s{round(100 * share):02d}",
             lambda m=m, n=n, share=share: g.smith_factors(m, n, seed=1, sensitive=share))
            for m, n in sizes for share in (0.02, 0.10)]


#: Smith et al.'s (2012) order searches the GA bench runs: Table III's GA and local searches
ORDER_SEARCHES = (("ga", "adaptive"), ("ls", "swap"), ("ls", "insert"), ("ls", "invert"))
#: tables from which the GA bench also runs GA-group-K, as the paper did (§V)
_PAPER_GROUPING_FROM = 30_000


def ga_benchmark(cases, *, time_limit: float = 60.0, on_row=None) -> list[dict]:
    """Per table: the incremental attacker in decreasing weight order (Smith et al.'s
    baseline), then the self-adaptive GA and the local searches LS-Swap, LS-Insert and
    LS-Invert (Table III; seed 0) within ``time_limit`` each, or four baseline runs where
    one takes longer (a search needs whole evaluations), and on tables of more than 30,000
    cells GA-group-K (§V, 40 groups): improvements over the baseline."""
    rows = []
    for name, build in cases:
        table = build()
        inst = build_interval_instance(table)
        order = np.argsort(-inst.weights[inst.protected], kind="stable")
        t0 = time.perf_counter()
        baseline = float(inst.weights[incremental_attacker(inst, order=order)].sum())
        baseline_s = time.perf_counter() - t0
        limit = max(time_limit, 4 * baseline_s)
        row = dict(table=name, cells=table.num_cells, sensitive=int(table.sensitive.sum()),
                   exposed=int(inst.protected.size), weight_order_cost=baseline,
                   weight_order_s=baseline_s, limit_s=limit)
        searches = ORDER_SEARCHES + ((("ga", "adaptive", PAPER_GROUPS),)
                                     if table.num_cells > _PAPER_GROUPING_FROM else ())
        for method, operator, *groups in searches:
            found = solve_heuristic(table, method=method, operator=operator,
                                    groups=groups[0] if groups else None, time_limit=limit)
            key = (f"ga_group{groups[0]}" if groups else "ga" if method == "ga"
                   else f"ls_{operator}")
            row[f"{key}_pct"] = (100 * (baseline - found.objective) / baseline if baseline
                                 else 0.0)
            row[f"{key}_evals"] = int(found.model_size.get("paths", 0))
        rows.append(row)
        log.info("heuristics ga %s", rows[-1])
        if on_row is not None:
            on_row(rows)
    return rows

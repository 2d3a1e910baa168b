"""Benchmarks (``cspopt bench NAME``): results tables with a baseline measured in the same run.

``exact``: the design of Almeida & Carvalho (2005) Tables 2-4. The first data set uses
(P) with zero cells published; the second uses (P_N) under weights ``xi = a`` and
``xi = 1``; 10 tables a size. Each table is solved by the compact MIP alone (the baseline)
and by the certified pipeline, both in the same run, with the paper's columns.

``audit``: the LP audit (one HiGHS model, warm-started re-solves) against a baseline that
builds a fresh model for every cell, and the graph audit, on GenSup class II style 2-D tables
with a random pattern of complementary suppressions. Reports seconds, ms per LP, the speed-up
ratio and whether the LP, baseline and graph verdicts agree.

``interval``: cspopt's branch-and-cut against the peer pytauargus (tau-ARGUS OPT, run in a
subprocess, see :mod:`cspopt.bench.peer`) on generated 2-D tables (GenSup class I and II, Smith et
al.'s factors, a hierarchical 2-D table) and any table files given (``--instance``), same costs
and time limit, both patterns checked by cspopt's audit.
"""

from __future__ import annotations

import logging
import math
import platform
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np

from cspopt.audit import audit, graph_audit
from cspopt.audit.lp import AttackerLP
from cspopt.table import Table

__all__ = ["run_benchmark", "audit_benchmark", "exact_benchmark", "lagrangian_benchmark",
           "interval_benchmark", "interval_cases"]

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
        lp = AttackerLP(table, mask)
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
    from cspopt.models.exact import build_instance
    from cspopt.solving import solve_exact
    from cspopt.table.generators import almeida_carvalho_set1, almeida_carvalho_set2

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


def _warm_restarted(oracle, *, incumbent, max_iterations: int):
    """The bound-oracle use: half the iterations, then a second call warm-started from the
    first one's multipliers for the other half (no stop on a proof, like ``volume_strict``,
    which it should match)."""
    from cspopt.bounds import subgradient

    half = max_iterations // 2
    first = subgradient(oracle, incumbent=incumbent, max_iterations=half, stop_on_proof=False)
    second = subgradient(oracle, incumbent=first.incumbent, multipliers=first.warm_start(),
                         max_iterations=max_iterations - half, stop_on_proof=False)
    second.iterations += first.iterations
    second.dijkstra_calls += first.dijkstra_calls
    second.dijkstra_seconds += first.dijkstra_seconds
    return second


def _lagrangian_methods():
    from functools import partial

    from cspopt.bounds import cutting_plane, subgradient
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
    from cspopt.heuristics import exclusion_search, path_heuristic
    from cspopt.models.exact import PathOracle, build_instance
    from cspopt.solving import solve_exact
    from cspopt.table.generators import almeida_carvalho_set1, almeida_carvalho_set2

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


def interval_cases(*, quick: bool = False, instances: Sequence[str | Path] = ()) -> list[tuple]:
    """``(name, table)`` pairs of the interval benchmark: generated 2-D tables, then the
    table files ``instances`` (e.g. the CSPLIB tables; ``cspopt bench interval --instance
    FILE``)."""
    from cspopt.io import read_table
    from cspopt.table import generators as g

    if quick:
        cases = [("gensup2-10x10", g.gensup_class2(10, 10, seed=1))]
    else:
        cases = [("gensup2-20x20", g.gensup_class2(20, 20, seed=1)),
                 ("gensup2-40x40", g.gensup_class2(40, 40, seed=1)),
                 ("gensup2-60x40", g.gensup_class2(60, 40, seed=1)),
                 ("gensup1-50x50", g.gensup_class1(50, 50, seed=1)),
                 ("gensup1-100x100", g.gensup_class1(100, 100, seed=1)),
                 ("smith-30x30-s10", g.smith_factors(30, 30, seed=2, sensitive=0.10)),
                 ("smith-60x60-s02", g.smith_factors(60, 60, seed=2, sensitive=0.02)),
                 ("hier-20x10", g.hierarchical_2d(20, 10, seed=1))]
    return cases + [(Path(path).stem, read_table(path)) for path in instances]


def interval_benchmark(cases, *, time_limit: float = 60.0, on_row=None) -> list[dict]:
    """Both tools on each table with the same costs (the table's) and time limit."""
    import tempfile

    from cspopt.bench.peer import run_tauargus_opt
    from cspopt.io import read_jj, write_jj
    from cspopt.solving import solve_branch_and_cut

    rows = []
    for name, table in cases:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{name}.jj"
            write_jj(table, path)
            # Both tools solve the table as written (infinite a-priori bounds become finite).
            table = read_jj(path)
            costs = table.costs
            peer = run_tauargus_opt(path, minutes=max(1, math.ceil(time_limit / 60)),
                                    primary_cost=float(costs[table.sensitive].sum()))
        peer_pattern = [c for c in peer["suppressed"] if not table.sensitive[c]]
        peer_safe = (audit(table, peer_pattern, requirement="interval",
                           cells="sensitive").protected if peer["status"] in (
                               "optimal", "time_limit") else False)
        cpu0, t0 = time.process_time(), time.perf_counter()
        ours = solve_branch_and_cut(table, time_limit=time_limit)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        peer_cost = float(costs[peer_pattern].sum()) if peer_safe else math.nan
        both = ours.proven_optimal and peer["status"] == "optimal"
        rows.append(dict(
            table=name, cells=table.num_cells, sensitive=int(table.sensitive.sum()),
            cspopt_status=ours.status, cspopt_cost=float(ours.objective),
            cspopt_lb=float(ours.lower_bound), cspopt_gap_pct=100 * float(ours.gap),
            cspopt_s=wall, cspopt_cpu_s=cpu,
            cspopt_safe=bool(ours.audit is not None and ours.audit.protected),
            peer_status=peer["status"], peer_cost=peer_cost,
            peer_lb=float(peer["lower_bound"]),
            peer_gap_pct=100 * (peer_cost - peer["lower_bound"]) / peer_cost
            if peer_cost > 0 else math.nan,
            peer_s=float(peer["wall"]), peer_cpu_s=float(peer["cpu"]), peer_safe=peer_safe,
            same_cost=bool(both and abs(peer_cost - ours.objective) <= 1e-6 * max(
                1.0, abs(peer_cost))) if both else False,
            speedup=float(peer["wall"]) / wall if both else math.nan))
        log.info("interval bench %s", rows[-1])
        if on_row is not None:
            on_row(rows)
    return rows


def _interval_summary(rows: list[dict], time_limit: float) -> str:
    both = [r for r in rows if r["cspopt_status"] == "optimal" and r["peer_status"] == "optimal"]
    fails = [r for r in rows if r["peer_status"] not in ("optimal",)]
    ratio = float(np.median([r["speedup"] for r in both])) if both else math.nan
    lines = [
        "", f"Time limit {time_limit:g} s for cspopt (wall) and "
        f"{max(1, math.ceil(time_limit / 60))} CPU-minute(s) for pytauargus (its unit), 2 "
        "cores. Costs: the table's. `*_lb` are lower bounds without the sensitive cells' own "
        "cost; `*_safe` is cspopt's interval audit of each tool's pattern; `speedup` = peer "
        "wall / cspopt wall where both proved optimality.", "",
        f"Both proved optimal on {len(both)} of {len(rows)} tables, with equal cost on "
        f"{sum(r['same_cost'] for r in both)}; median speed-up {ratio:.1f}x.",
        "Where the peer did not prove optimality: " + ("; ".join(
            f"{r['table']}: peer {r['peer_status']}, cspopt {r['cspopt_status']} with a "
            f"certified gap of {r['cspopt_gap_pct']:.1f} %" for r in fails) or "none") + ".",
        "Where the peer claims optimality but cspopt holds a cheaper pattern that passes the "
        "audit: " + ("; ".join(
            f"{r['table']}: peer {r['peer_cost']:g}, cspopt {r['cspopt_cost']:g}"
            for r in rows if r["peer_status"] == "optimal" and r["cspopt_safe"]
            and r["cspopt_cost"] < r["peer_cost"] - 1e-6) or "none") + "."]
    return "\n".join(lines) + "\n"


def _lagrangian_summary(rows: list[dict]) -> str:
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


def _markdown(rows: list[dict], title: str) -> str:
    keys = list(rows[0])
    fmt = {float: "{:.4f}", bool: "{}", int: "{}", str: "{}"}
    lines = [f"# {title}", "",
             f"Machine: {platform.machine()}, {platform.python_implementation()} "
             f"{platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M')}", "",
             "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows:
        lines.append("| " + " | ".join(
            fmt.get(type(row[k]), "{}").format(row[k]) for k in keys) + " |")
    return "\n".join(lines) + "\n"


def run_benchmark(name: str, *, output: str | None = None, quick: bool = False,
                  tables: int = 10, time_limit: float = 60.0, max_cells: int = 10_201,
                  min_cells: int = 0, instances: Sequence[str | Path] = ()) -> int:
    """Run benchmark ``name``, print its Markdown table and write it to ``output``;
    ``instances`` are table files the interval benchmark adds to its generated tables."""
    if name == "audit":
        rows = audit_benchmark(((20, 10), (50, 50)) if quick else
                               ((20, 10), (50, 50), (100, 100), (200, 100)),
                               suppressed=60 if quick else 200, repeats=1 if quick else 3)
        text = _markdown(rows, "Audit benchmark (cspopt bench audit)") + (
            f"\nMedian speed-up of the warm-started audit over the per-cell baseline: "
            f"{float(np.median([r['speedup'] for r in rows])):.1f}x; all verdicts agree: "
            f"{all(r['agree'] for r in rows)}.\n")
        ok = all(r["agree"] for r in rows)
    elif name == "lagrangian":
        rows = lagrangian_benchmark(seeds=1 if quick else tables)
        summary = _lagrangian_summary(rows)
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
        ok = True
    elif name == "exact":
        def render(rows):
            return _markdown(rows, "Compact MIP vs certified pipeline on the design of "
                                   "Almeida & Carvalho (2005) Tables 2-4 "
                                   "(cspopt bench exact)") + (
                f"\nPer table: time limit {time_limit:g} s for each method; the compact MIP on "
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

        rows = exact_benchmark(tables=2 if quick else tables, time_limit=time_limit,
                               max_cells=600 if quick else max_cells, min_cells=min_cells,
                               on_row=partial(_save, output, render))
        text = render(rows)
        ok = True
    elif name == "interval":
        def render(rows):
            return _markdown(rows, "Interval protection: cspopt branch-and-cut vs pytauargus "
                                   "OPT (cspopt bench interval)") + _interval_summary(
                rows, time_limit)

        rows = interval_benchmark(interval_cases(quick=quick, instances=instances),
                                  time_limit=time_limit, on_row=partial(_save, output, render))
        text = render(rows)
        ok = all(r["cspopt_safe"] for r in rows)
    else:
        raise ValueError(f"unknown benchmark {name!r}")
    print(text, end="")
    _save(output, lambda _: text, None)
    return 0 if ok else 1


def _save(output: str | None, render, rows) -> None:
    """Write ``render(rows)`` to ``output`` (also for partial results of a long run)."""
    if output:
        Path(output).parent.mkdir(parents=True, exist_ok=True)
        Path(output).write_text(render(rows))

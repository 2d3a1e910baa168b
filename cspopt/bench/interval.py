"""The interval benchmark (``cspopt bench interval``).

cspopt's branch-and-cut against the peer pytauargus (tau-ARGUS OPT, run in a
subprocess, see :mod:`cspopt.bench.peer`) on generated 2-D tables (the GenSup class I and II
ladder of Almeida, Schuetz & Carvalho 2008 §6: 20x20 to 100x100, three seeds a size; Smith et
al.'s factors; a hierarchical 2-D table) and any table files given (``--instance``, e.g. the
CSPLIB tables), same costs and time limit, both patterns checked by cspopt's audit.
"""

from __future__ import annotations

import logging
import math
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cspopt.audit import interval_verdict
from cspopt.bench.peer import run_tauargus_opt
from cspopt.io import read_jj, read_table, write_jj
from cspopt.solving import solve_branch_and_cut
from cspopt.table import generators as g

__all__ = ["LADDER", "PEER_GRACE", "interval_cases", "interval_benchmark", "interval_summary"]

log = logging.getLogger(__name__)

#: seconds the peer may run past the time limit before it is killed: its limit is whole
#: CPU minutes and its initial heuristic ignores it
PEER_GRACE = 120.0

#: sizes (rows = columns) of the GenSup ladder
LADDER = (20, 40, 60, 80, 100)


def interval_cases(*, quick: bool = False, instances: Sequence[str | Path] = ()) -> list[tuple]:
    """``(name, table)`` pairs of the interval benchmark: generated 2-D tables, then the
    table files ``instances`` (e.g. the CSPLIB tables; ``cspopt bench interval --instance
    FILE``)."""

    if quick:
        cases = [("gensup2-10x10", g.gensup_class2(10, 10, seed=1))]
    else:
        cases = [(f"gensup{kind}-{n}x{n}-s{seed}", generate(n, n, seed=seed))
                 for kind, generate in ((1, g.gensup_class1), (2, g.gensup_class2))
                 for n in LADDER for seed in (1, 2, 3)]
        cases += [("gensup2-60x40", g.gensup_class2(60, 40, seed=1)),
                  ("smith-30x30-s10", g.smith_factors(30, 30, seed=2, sensitive=0.10)),
                  ("smith-60x60-s02", g.smith_factors(60, 60, seed=2, sensitive=0.02)),
                  *((f"hier-{m}x{n}", g.hierarchical_2d(m, n, seed=1))
                    for m, n in ((20, 10), (40, 20), (60, 30)))]
    return cases + [(Path(path).stem, read_table(path)) for path in instances]


def interval_benchmark(cases, *, time_limit: float = 60.0, on_row=None) -> list[dict]:
    """Both tools on each table with the same costs (the table's) and time limit."""

    rows = []
    for name, table in cases:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{name}.jj"
            write_jj(table, path)
            # Both tools solve the table as written (infinite a-priori bounds become finite).
            table = read_jj(path)
            costs = table.costs
            peer = run_tauargus_opt(path, minutes=max(1, math.ceil(time_limit / 60)),
                                    wall_limit=time_limit + PEER_GRACE,
                                    primary_cost=float(costs[table.sensitive].sum()))
        peer_pattern = [c for c in peer["suppressed"] if not table.sensitive[c]]
        peer_safe = (interval_verdict(table, peer_pattern).protected
                     if peer["status"] in ("optimal", "time_limit") else False)
        cpu0, t0 = _cpu_seconds(), time.perf_counter()
        ours = solve_branch_and_cut(table, time_limit=time_limit)
        wall, cpu = time.perf_counter() - t0, _cpu_seconds() - cpu0
        peer_cost = float(costs[peer_pattern].sum()) if peer_safe else math.nan
        both = ours.proven_optimal and peer["status"] == "optimal"
        rows.append(dict(
            table=name, cells=table.num_cells, sensitive=int(table.sensitive.sum()),
            cspopt_status=ours.status, cspopt_cost=float(ours.objective),
            cspopt_lb=float(ours.lower_bound), cspopt_gap_pct=100 * float(ours.gap),
            cspopt_secondaries=len(ours.suppressed)  # sensitive cells excluded
            if ours.has_pattern else math.nan,
            cspopt_s=wall, cspopt_cpu_s=cpu,
            cspopt_safe=bool(ours.audit is not None and ours.audit.protected),
            peer_status=peer["status"], peer_cost=peer_cost,
            peer_lb=float(peer["lower_bound"]),
            peer_secondaries=len(peer_pattern) if peer_safe else math.nan,
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


def interval_summary(rows: list[dict], time_limit: float) -> str:
    both = [r for r in rows if r["cspopt_status"] == "optimal" and r["peer_status"] == "optimal"]
    fails = [r for r in rows if r["peer_status"] not in ("optimal",)]
    ratio = float(np.median([r["speedup"] for r in both])) if both else math.nan
    lines = [
        "", *_ladder_lines(rows), "", f"Time limit {time_limit:g} s for cspopt (wall) and "
        f"{max(1, math.ceil(time_limit / 60))} CPU-minute(s) for pytauargus (its unit; "
        f"killed after {time_limit + PEER_GRACE:g} s wall), 2 cores: the peer runs one "
        "process; cspopt runs its neighbourhood searches in a second one on tables that "
        "are not networks (`cspopt_cpu_s` counts both). Costs: the table's. "
        "`*_lb` are lower bounds without the sensitive cells' own cost; `*_safe` is "
        "cspopt's interval audit of each tool's pattern; `*_secondaries` the cells each "
        "suppresses beside the sensitive ones; `speedup` = peer wall / cspopt wall where both "
        "proved optimality.", "",
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


def _ladder_lines(rows: list[dict]) -> list[str]:
    """The issue's targets on the GenSup ladder: class I proven, class II within 1 %."""
    lines = []
    for kind in (1, 2):
        mine = [r for r in rows if r["table"].startswith(f"gensup{kind}-")]
        if not mine:
            continue
        proven = sum(r["cspopt_status"] == "optimal" for r in mine)
        close = sum(r["cspopt_gap_pct"] <= 1.0 for r in mine)
        ran = [r for r in mine if r["peer_status"] != "not installed"]
        peer = sum(r["peer_status"] == "optimal" for r in ran)
        lines.append(f"GenSup class {'I' * kind}: cspopt proved {proven} of {len(mine)} "
                     f"tables optimal and certified {close} within 1 %; the peer proved "
                     f"{peer} of the {len(ran)} it ran.")
    return lines


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its ended children (the branch-and-cut's search
    process), as the peer's are counted."""
    try:
        import resource
    except ImportError:  # no resource module (Windows): this process only
        return time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime

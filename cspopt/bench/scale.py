"""The scale benchmark (``cspopt bench scale``): hierarchical tables beyond 2-D from seeded
microdata, protected by cspopt and by pytauargus (MOD and OPT) from the same records and
rules.

The microdata are :func:`cspopt.microdata.synthetic.hierarchical_survey` (the levels and
seeds are in :data:`SCALE_CASES`), rules ``P(15,1)|FREQ(3,10)``, costs the cells' values.
Every run happens in its own process (cspopt's too: its peak memory is that process's, its
Dask workers' included), and every pattern, cspopt's and the peer's, is judged on the whole
table by cspopt's audit (:func:`cspopt.audit.interval_verdict`; cspopt's runs hand it their
proofs, which it checks first). The baseline is cspopt's
branch-and-cut on the whole table, run in the same benchmark.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import tempfile
from pathlib import Path

import numpy as np

from cspopt.audit import interval_verdict, load_proofs
from cspopt.bench.peer import run_child, run_tauargus_protect
from cspopt.bench.protect import hrc_text, peer_rows_by_cell
from cspopt.errors import InputError
from cspopt.io import read_table
from cspopt.microdata.protect import sensitive_table
from cspopt.microdata.synthetic import hierarchical_survey

__all__ = ["SCALE_CASES", "TOOLS", "scale_cases", "scale_benchmark"]

log = logging.getLogger(__name__)

RULES = "P(15,1)|FREQ(3,10)"
#: name: (branching per level of each dimension, records, seed)
SCALE_CASES = {
    "3d-650": ({"region": (2, 3), "activity": (3, 3), "size": (4,)}, 2_000, 1),
    "3d-6.6k": ({"region": (4, 4), "activity": (5, 4), "size": (11,)}, 20_000, 1),
    "4d-6.5k": ({"region": (3, 4), "activity": (4, 3), "size": (5,), "legal": (3,)},
                20_000, 1),
    "3d-38k": ({"region": (6, 6), "activity": (8, 5), "size": (17,)}, 200_000, 1),
}
#: cspopt's runs: (label, method, workers)
RUNS = (("branch-and-cut", "branch-and-cut", None), ("modular", "modular", None),
        ("modular-2w", "modular", 2), ("hypercube", "hypercube", None))
#: the time-limited runs one can choose (``tools``): cspopt's, its default on table files,
#: and the peer's
TOOLS = (*(label for label, _, _ in RUNS), "auto", "MOD", "OPT")
#: a run's options beyond the defaults: the heuristic's pattern cleaned and its gap certified
_OPTIONS = {"hypercube": {"clean": True, "certify": True}}
#: the fixed-work runs (``subtable_seconds``): Modular on one worker, then on two
FIXED_RUNS = (("modular fixed work", "modular", None), ("modular-2w fixed work", "modular", 2))
#: a fixed-work run is killed after this many seconds
_FIXED_WALL = 6 * 3600.0

_CSPOPT_CHILD = r"""
import json, resource, sys, time
import cspopt
from cspopt.io import read_table
spec = json.load(open(sys.argv[1]))
options = dict(spec["options"], **({"workers": spec["workers"]} if spec["workers"] else {}))
started = time.perf_counter()
if "fixed" in spec:  # the same work on any number of workers: no limit, nor clean-up, nor bound
    from cspopt.microdata.protect import sensitive_table
    from cspopt.solving.modular import solve_modular
    table = (read_table(spec["table"]) if "table" in spec else sensitive_table(
        spec["columns"], spec["dims"], response="turnover", rules=spec["rules"],
        hierarchies=spec["hierarchies"])[0])
    r = solve_modular(table, subtable_time_limit=spec["fixed"], clean=False, certify=False,
                      workers=spec["workers"])
elif "table" in spec:
    r = cspopt.solve(read_table(spec["table"]), method=spec["method"],
                     time_limit=spec["time_limit"], **options)
else:
    r = cspopt.protect(spec["columns"], spec["dims"], response="turnover",
                       rules=spec["rules"], hierarchies=spec["hierarchies"],
                       method=spec["method"], time_limit=spec["time_limit"], **options).result
seconds = time.perf_counter() - started
from cspopt.audit import save_proofs
save_proofs(spec["proofs"], () if r.audit is None else r.audit.proofs)
peak = max(resource.getrusage(who).ru_maxrss for who in
           (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)) / 1024
print(json.dumps({"suppressed": [int(c) for c in r.suppressed], "status": r.status.value,
                  "objective": r.objective, "lower_bound": r.lower_bound, "seconds": seconds,
                  "rss_mb": peak, "timings": r.timings}))
"""


def scale_cases(*, quick: bool = False, max_cells: int | None = None,
                min_cells: int = 0) -> list[str]:
    """The names of the cases to run: the smallest only when ``quick``; those of
    ``min_cells`` to ``max_cells`` cells (by their levels) otherwise."""
    if quick:
        return ["3d-650"]
    return [name for name, (levels, _, _) in SCALE_CASES.items()
            if min_cells <= _cells(levels) <= (max_cells or _cells(levels))]


def _cells(levels: dict[str, tuple[int, ...]]) -> int:
    return math.prod(1 + sum(math.prod(b[:k + 1]) for k in range(len(b)))
                     for b in levels.values())


def scale_benchmark(names: list[str], *, time_limit: float = 300.0, instances=(),
                    on_row=None, subtable_seconds: float | None = None,
                    tools=()) -> list[dict]:
    """One row per case and tool: cspopt's :data:`RUNS` with ``time_limit`` each, then
    pytauargus ``MOD(1, m)`` and ``OPT(1, m)`` with ``m`` the limit in whole minutes; then
    cspopt's runs and ``auto`` on each table file of ``instances`` (the CSPLIB tables: no
    microdata, so no peer).

    With ``subtable_seconds``, the same work on one and two workers instead
    (:data:`FIXED_RUNS`): Modular without a time limit, each subtable's solve given
    ``subtable_seconds`` (``subtable_time_limit``), the repair's groups fixed by its number
    of cells, no clean-up and no capacity LP (both run to the call's limit); the two-worker
    row has the ``speedup`` (one worker's seconds over its own) and ``same_pattern``.

    ``tools``: only these of the time-limited runs (:data:`TOOLS`; all when empty), e.g. a
    38,000-cell table's Modular runs and MOD without the whole table's branch-and-cut."""
    rows = []
    fixed = subtable_seconds is not None
    unknown = sorted(set(tools) - set(TOOLS))
    if unknown or (tools and fixed):
        raise InputError(f"--tool {', '.join(unknown or tools)}: choose runs from "
                         f"{', '.join(TOOLS)}" + (" (the fixed work's two runs are not "
                                                  "chosen)" if fixed else ""))
    chosen = set(tools or TOOLS)
    runs = FIXED_RUNS if fixed else tuple(r for r in RUNS if r[0] in chosen)
    wall = _FIXED_WALL if fixed else 3 * time_limit + 120  # a run is killed past it
    extra = {"fixed": subtable_seconds} if fixed else {}  # the child's spec of a fixed run
    with tempfile.TemporaryDirectory(prefix="cspopt-scale-") as tmp:
        spec = Path(tmp) / "spec.json"
        for path in instances:
            table = read_table(path)
            common = dict(case=Path(path).stem, cells=table.num_cells, records=None,
                          primary=int(table.sensitive.sum()))
            for label, method, workers in (runs if fixed else (*runs, *(
                    [("auto", "auto", None)] if "auto" in chosen else []))):
                spec.write_text(json.dumps(dict(table=str(path), method=method,
                                                workers=workers, time_limit=time_limit,
                                                options=_OPTIONS.get(method, {}),
                                                **extra)))
                rows.append(_cspopt_row(table, spec, label, wall, common,
                                        rows[-1] if fixed and workers else None))
                _report(rows, on_row)
    for name in names:
        levels, records, seed = SCALE_CASES[name]
        columns, hierarchies = hierarchical_survey(levels, records=records, seed=seed)
        dims = list(levels)
        table, _, _ = sensitive_table(columns, dims, response="turnover", rules=RULES,
                                      hierarchies=hierarchies)
        common = dict(case=name, cells=table.num_cells, records=records,
                      primary=int(table.sensitive.sum()))
        with tempfile.TemporaryDirectory(prefix="cspopt-scale-") as tmp:
            spec = Path(tmp) / "spec.json"
            for label, method, workers in runs:
                spec.write_text(json.dumps(dict(
                    columns=columns, dims=dims, rules=RULES, hierarchies=hierarchies,
                    method=method, workers=workers, time_limit=time_limit,
                    options=_OPTIONS.get(method, {}), **extra)))
                rows.append(_cspopt_row(table, spec, label, wall, common,
                                        rows[-1] if fixed and workers else None))
                _report(rows, on_row)
            if fixed:
                continue
            hrc = {}
            for dim, parent in hierarchies.items():
                hrc[dim] = str(Path(tmp) / f"{dim}.hrc")
                Path(hrc[dim]).write_text(hrc_text(parent, "Total"))
            for peer in [p for p in ("MOD", "OPT") if p in chosen]:
                found = run_tauargus_protect(columns, dims, "turnover", RULES, hrc=hrc,
                                             minutes=max(1, math.ceil(time_limit / 60)),
                                             method=peer, wall_limit=6 * time_limit + 120)
                row = dict(common, tool=f"pytauargus {peer}", status=found["status"])
                if found["rows"]:
                    cells = peer_rows_by_cell(table, found["rows"], dims)
                    row.update(_judged(table, [c for c, r in cells.items()
                                               if c is not None and r["status"] == "M"]),
                               seconds=found["wall"], rss_mb=found.get("rss_mb", math.nan))
                rows.append(row)
                _report(rows, on_row)
    return rows


def _cspopt_row(table, spec: Path, label: str, wall_limit: float, common: dict,
                baseline: dict | None = None) -> dict:
    """The row of one cspopt run (the child reads ``spec``; killed past ``wall_limit``),
    its pattern judged and named by a digest; with the ``baseline`` row of the same work on
    one worker, the ``speedup`` over it and whether the pattern is the same."""
    proofs = spec.with_suffix(".proofs.npz")
    spec.write_text(json.dumps(dict(json.loads(spec.read_text()), proofs=str(proofs))))
    report, failed = run_child(_CSPOPT_CHILD, [str(spec)], wall_limit)
    row = dict(common, tool=f"cspopt {label}", status=(failed or report)["status"])
    if report is not None:
        row.update(_judged(table, report["suppressed"], load_proofs(proofs)),
                   lower_bound=float(report["lower_bound"]),
                   seconds=float(report["seconds"]), rss_mb=float(report["rss_mb"]),
                   pattern=hashlib.sha1(json.dumps(sorted(report["suppressed"])).encode())
                   .hexdigest()[:12])
    if baseline is not None and "seconds" in baseline and "seconds" in row:
        row.update(speedup=baseline["seconds"] / row["seconds"],
                   same_pattern=baseline["pattern"] == row["pattern"])
    return row


def _judged(table, suppressed, proofs=()) -> dict:
    """A pattern's cost, its number of secondaries and whether it protects every sensitive
    cell of the whole table by cspopt's audit, which checks the ``proofs`` that came with
    the pattern first (attacker completions: one that passes the check is a proof, whoever
    found it) and solves LPs for the sides they leave open: a 38,000-cell pattern's LPs
    over the whole table take 10-60 s each."""
    secondary = np.setdiff1d(np.asarray(suppressed, dtype=np.int64), table.sensitive_cells)
    pattern = np.union1d(secondary, table.sensitive_cells)
    return dict(cost=float(table.costs[secondary].sum()), secondaries=int(secondary.size),
                safe=bool(interval_verdict(table, pattern, completions=proofs).protected))


def _report(rows: list[dict], on_row) -> None:
    log.info("bench scale %s", rows[-1])
    if on_row is not None:
        on_row(rows)

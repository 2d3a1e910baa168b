"""Running the peer ``pytauargus`` (tau-ARGUS' Optimal method) on a JJ file, side by side.

``pytauargus`` is an optional benchmark dependency (``pip install -e ".[bench]"``), never a
runtime one. Its exact method is reached through the extension module
(``HiTaSCtrl.full_jj``); the documented entry points pass a time of 0 minutes and stop after
the initial heuristic. It can kill its process (segfaults seen on CSPLIB hier13, hier133a),
so every run happens in a subprocess and a crash is recorded as a failure. Its time limit is
whole minutes of process CPU time, and its initial heuristic ignores it, so the parent also
enforces a wall-clock limit. Bounds are read from ``cspSCIP.sta``, where they include the
sensitive cells' own cost; they are returned without it, as cspopt reports them.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["tauargus_available", "run_tauargus_opt", "run_tauargus_protect", "run_child"]

_CHILD = r"""
import json, resource, sys
from pytauargus import _tauargus as T
jj, out, minutes = sys.argv[1], sys.argv[2], int(sys.argv[3])
rc = T.HiTaSCtrl().full_jj(in_file_jj=jj, out_file=out + "/JJ.OUT", max_time=minutes,
                           out_dir=out + "/")
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rc": rc, "cpu": usage.ru_utime + usage.ru_stime}))
"""


def tauargus_available() -> bool:
    return importlib.util.find_spec("pytauargus") is not None


def run_tauargus_opt(jj_path: str | os.PathLike, *, minutes: int = 1,
                     wall_limit: float | None = None, primary_cost: float = 0.0) -> dict:
    """Run tau-ARGUS OPT on ``jj_path`` in a subprocess.

    Returns ``status`` (``optimal``, ``time_limit``, ``error``, ``crashed``, ``killed``,
    ``not installed``), ``suppressed`` (0-based cell ids of the secondaries), ``objective``
    and ``lower_bound`` as reported by the peer minus ``primary_cost`` (NaN when absent),
    ``wall`` and ``cpu`` seconds.
    """
    if not tauargus_available():
        return dict(status="not installed", suppressed=(), objective=math.nan,
                    lower_bound=math.nan, wall=math.nan, cpu=math.nan)
    wall_limit = wall_limit if wall_limit is not None else 3 * 60 * minutes + 60
    with tempfile.TemporaryDirectory(prefix="tauargus-") as out:
        report, failed = run_child(_CHILD, [str(Path(jj_path).resolve()), out,
                                            str(int(minutes))], wall_limit)
        if failed:
            return dict(failed, suppressed=(), objective=math.nan, lower_bound=math.nan)
        wall = report["wall"]
        rc = report["rc"]
        status = "optimal" if rc == 0 else "time_limit" if rc == 1 else "error"
        suppressed = _secondaries(Path(out) / "JJ.OUT")
        upper, lower = _bounds(Path(out) / "cspSCIP.sta")
        return dict(status=status, suppressed=suppressed,
                    objective=upper - primary_cost, lower_bound=lower - primary_cost,
                    wall=wall, cpu=float(report["cpu"]), returncode=rc)


_PROTECT_CHILD = r"""
import json, resource, sys
import pandas as pd
import pytauargus
spec = json.load(open(sys.argv[1]))
result = pytauargus.protect(pd.DataFrame(spec["columns"]), spec["dims"], spec["response"],
                            safety_rules=spec["rules"], suppress=spec["suppress"],
                            decimals=spec["decimals"], hrc=spec["hrc"] or None,
                            totcode=spec["total"], workdir=spec["workdir"])
usage = resource.getrusage(resource.RUSAGE_SELF)
rows = result.tables[0].rows
print(json.dumps({"rows": rows, "cpu": usage.ru_utime + usage.ru_stime,
                  "rss_mb": usage.ru_maxrss / 1024}, default=str))
"""


def run_tauargus_protect(columns: dict, dims: list[str], response: str, rules: str, *,
                         hrc: dict[str, str] | None = None, total: str = "Total",
                         minutes: int = 1, wall_limit: float | None = None,
                         method: str = "OPT") -> dict:
    """Run ``pytauargus.protect`` (tau-ARGUS from microdata: its safety rules, protection
    levels and suppression by ``method``: ``OPT(1, minutes)``, Optimal, or ``MOD(1,
    minutes)``, Modular with ``minutes`` per subtable) in a subprocess.

    Returns ``status`` (``done``, ``crashed``, ``killed``, ``not installed``), ``rows``
    (one dict per cell: codes, ``status`` U/M/S/..., ``lower``/``upper`` protection
    levels, ``cost``), ``wall`` and ``cpu`` seconds.
    """
    if not tauargus_available():
        return dict(status="not installed", rows=[], wall=math.nan, cpu=math.nan)
    wall_limit = wall_limit if wall_limit is not None else 3 * 60 * minutes + 60
    with tempfile.TemporaryDirectory(prefix="tauargus-") as out:
        spec = Path(out) / "spec.json"
        spec.write_text(json.dumps(dict(
            columns=columns, dims=dims, response=response, rules=rules,
            suppress=f"{method}(1,{int(minutes)})", decimals=6, hrc=hrc or {}, total=total,
            workdir=str(Path(out) / "work"))))
        report, failed = run_child(_PROTECT_CHILD, [str(spec)], wall_limit)
        if failed:
            return dict(failed, rows=[])
        return dict(status="done", rows=report["rows"], wall=report["wall"],
                    cpu=float(report["cpu"]), rss_mb=float(report["rss_mb"]))


def run_child(code: str, args: list[str], wall_limit: float) -> tuple[dict | None, dict]:
    """Run ``code`` in a fresh interpreter: its last JSON line with ``wall`` added, or a
    failure record (``killed`` past ``wall_limit``, ``crashed`` on a non-zero exit or no
    report: the peer can segfault)."""
    started = time.perf_counter()
    try:
        child = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                               text=True, timeout=wall_limit)
    except subprocess.TimeoutExpired:
        return None, dict(status="killed", wall=wall_limit, cpu=math.nan)
    wall = time.perf_counter() - started
    report = _last_json(child.stdout)
    if child.returncode != 0 or report is None:
        return None, dict(status="crashed", wall=wall, cpu=math.nan,
                          returncode=child.returncode)
    return dict(report, wall=wall), {}


def _last_json(text: str):
    for line in reversed(text.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def _secondaries(path: Path) -> tuple[int, ...]:
    if not path.exists():
        return ()
    return tuple(sorted(int(tok) for tok in path.read_text().split()))


def _bounds(path: Path) -> tuple[float, float]:
    """``opt`` (final upper bound) and ``BestLB`` from the last line of ``cspSCIP.sta``."""
    if not path.exists():
        return math.nan, math.nan
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    header, last = lines[0].split(), lines[-1].split()
    try:
        return float(last[header.index("opt")]), float(last[header.index("BestLB")])
    except (ValueError, IndexError):
        return math.nan, math.nan

"""The audit benchmark (``cspopt bench audit``).

The LP audit (one HiGHS model, warm-started re-solves) against a baseline that
builds a fresh model for every cell, and the graph audit, on GenSup class II style 2-D tables
with a random pattern of complementary suppressions. Reports seconds, ms per LP, the speed-up
ratio and whether the LP, baseline and graph verdicts agree.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from cspopt.audit import audit, graph_audit
from cspopt.audit.lp import AttackerLP
from cspopt.table import Table

__all__ = ["audit_benchmark"]

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

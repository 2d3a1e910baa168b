"""``cspopt bench limits``: is every time limit kept, preprocessing, clean-up and final audit
included, on the tables offices publish (3-D, thousands of cells)?

A solve may end later than its limit only by what no phase can stop: the promise is
``wall <= 1.1 limit + 5 s`` (issue #49: 120-s solves took 144-169 s on 3-D tables of 3,564
to 5,681 cells, and a 60-s solve of a 10,399-cell table had given nothing by 200 s). Each
row is one solve, timed from the call to its audited result; ``phases`` says where the time
went (:attr:`cspopt.SolveResult.timings`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

__all__ = ["limits_cases", "limits_benchmark", "cube_microdata_table", "within_limit"]

#: (codes per dimension, records) of the generated 3-D tables; the quick run takes the first
_SHAPES = (((8, 8, 8), 12_000), ((15, 15, 15), 50_000), ((20, 20, 12), 70_000),
           ((24, 20, 20), 130_000))


def within_limit(seconds: float, limit: float) -> bool:
    """The promise every solve keeps: ``seconds <= 1.1 limit + 5``."""
    return seconds <= 1.1 * limit + 5.0


def cube_microdata_table(codes: Sequence[int], records: int, *, seed: int = 1):
    """A 3-D magnitude table from seeded microdata: flat dimensions with ``codes`` codes
    each, ``records`` respondents with heavy-tailed turnovers (``-100 / log r``, Smith et
    al. 2012 §VII), sensitive by ``P(15)|FREQ(3,10)``, a-priori bounds ``[0, M]`` with
    ``M`` the sum of the turnovers (:func:`cspopt.microdata.protect.build_table`)."""
    from cspopt.microdata.protect import build_table
    from cspopt.microdata.rules import parse_rules
    from cspopt.microdata.tabulate import tabulate

    rng = np.random.default_rng(seed)
    columns = {f"d{k}": [f"c{v}" for v in rng.integers(0, size, records)]
               for k, size in enumerate(codes)}
    columns["turnover"] = np.round(-100 / np.log(rng.uniform(1e-12, 1, records)), 1).tolist()
    tabulation = tabulate(columns, list(columns)[:-1], response="turnover", depth=2)
    table, _ = build_table(tabulation, parse_rules("P(15)|FREQ(3,10)"),
                           name="x".join(map(str, codes)) + f"-{records}")
    return table


def limits_cases(*, quick: bool = False, instances: Sequence[str | Path] = ()) -> list:
    """``(name, make_table)`` pairs: the generated 3-D tables, then ``instances`` files."""
    from cspopt.io import read_table

    cases = [(f"cube {'x'.join(map(str, codes))}",
              lambda codes=codes, records=records: cube_microdata_table(codes, records))
             for codes, records in (_SHAPES[:1] if quick else _SHAPES)]
    return cases + [(Path(path).name, lambda path=path: read_table(path))
                    for path in instances]


def limits_benchmark(cases, *, time_limit: float,
                     on_row: Callable[[list[dict]], None] | None = None) -> list[dict]:
    """One row per case: the solve's wall time against ``time_limit``."""
    import cspopt

    rows = []
    for name, make in cases:
        table = make()
        started = time.perf_counter()
        result = cspopt.solve(table, time_limit=time_limit)
        seconds = time.perf_counter() - started
        rows.append(dict(
            table=name, cells=table.num_cells, sensitive=int(table.sensitive.sum()),
            limit_s=time_limit, wall_s=round(seconds, 1),
            ratio=round(seconds / time_limit, 3), kept=within_limit(seconds, time_limit),
            status=str(result.status), objective=float(result.objective),
            lower_bound=float(result.lower_bound),
            audited=bool(result.audit is not None and result.audit.protected),
            phases=", ".join(f"{k} {v:.1f}" for k, v in result.timings.items())))
        if on_row is not None:
            on_row(rows)
    return rows

"""The microdata benchmark (``cspopt bench protect``): the same respondents and rules through
tau-ARGUS (``pytauargus.protect``: its tabulation, safety rules, protection levels and
Optimal suppression) and :func:`cspopt.microdata.protect`, side by side.

Per case: whether both find the same primary cells and the same protection levels (any
difference listed), both patterns checked by cspopt's audit, both costs, cspopt's certified
gap, and the times. The microdata are seeded business surveys
(:func:`cspopt.microdata.synthetic.business_survey`) with a two-level region hierarchy,
given to tau-ARGUS as an ``.hrc`` file and to cspopt as a parent map.
"""

from __future__ import annotations

import logging
import math
import tempfile
import time
from pathlib import Path

import numpy as np

from cspopt.audit import audit
from cspopt.bench.peer import run_tauargus_protect
from cspopt.microdata import protect
from cspopt.microdata.synthetic import business_survey

__all__ = ["protect_cases", "protect_benchmark", "protect_summary", "peer_rows_by_cell",
           "hrc_text"]

log = logging.getLogger(__name__)

#: rule sets of the benchmark, in tau-ARGUS' spelling
RULES = ("P(15,1)", "NK(1,60)|NK(2,85)|FREQ(3,10)")
#: level differences below this (relative to the cell value, or absolute below 1) agree:
#: tau-ARGUS writes its levels with a fixed number of decimals
_LEVEL_TOLERANCE = 1e-4


def protect_cases(*, quick: bool = False) -> list[tuple[str, dict, dict, str]]:
    """``(name, columns, hierarchy, rules)``: surveys of 4 x 3 x 6 (119 cells) up to
    10 x 5 x 20 (1,281 cells) regions x provinces x activities, each rule set."""
    sizes = ((4, 3, 6, 1),) if quick else ((4, 3, 6, 1), (4, 3, 6, 2), (6, 4, 10, 1),
                                           (8, 4, 15, 1), (10, 5, 20, 1))
    cases = []
    for regions, provinces, activities, seed in sizes:
        columns, parent = business_survey(regions=regions, provinces=provinces,
                                          activities=activities, seed=seed)
        for rules in RULES[:1] if quick else RULES:
            name = f"survey-{regions}x{provinces}x{activities}-s{seed}"
            cases.append((name, columns, parent, rules))
    return cases


def hrc_text(parent: dict[str, str], total: str) -> str:
    """The parent map as a tau-ARGUS ``.hrc`` text (``@`` per level below the top)."""
    lines = []

    def visit(code: str, depth: int) -> None:
        for child in (c for c, p in parent.items() if p == code):
            lines.append("@" * depth + child)
            visit(child, depth + 1)
    visit(total, 0)
    return "\n".join(lines) + "\n"


def peer_rows_by_cell(table, rows: list[dict], dims: list[str]) -> dict:
    """tau-ARGUS' output ``rows`` keyed by the id of ``table``'s cell with their codes
    (``None`` for a row whose codes the table lacks): tau-ARGUS pads codes to a fixed
    width."""
    where = {label: i for i, label in enumerate(table.labels)}
    return {where.get(tuple(str(r[d]).strip() for d in dims)): r for r in rows}


def protect_benchmark(cases, *, time_limit: float = 60.0, on_row=None) -> list[dict]:
    """Both tools on each case, the peer with ``OPT(1, minutes)`` rounded up from
    ``time_limit``."""
    rows = []
    dims, response, total = ["province", "activity"], "turnover", "Total"
    for name, columns, parent, rules in cases:
        t0 = time.perf_counter()
        mine = protect(columns, dims, response=response, rules=rules,
                       hierarchies={"province": parent}, time_limit=time_limit)
        mine_s = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as tmp:
            hrc = Path(tmp) / "province.hrc"
            hrc.write_text(hrc_text(parent, total))
            peer = run_tauargus_protect(columns, dims, response, rules,
                                        hrc={"province": str(hrc)}, total=total,
                                        minutes=max(1, math.ceil(time_limit / 60)))
        table = mine.table
        peer_cells = peer_rows_by_cell(table, peer["rows"], dims)
        row = dict(case=name, rules=rules, cells=table.num_cells,
                   primary=int(table.sensitive.sum()), peer_status=peer["status"])
        if peer["rows"]:
            peer_primary = np.zeros(table.num_cells, dtype=bool)
            peer_secondary = []
            differences = []
            for cell, r in peer_cells.items():
                if cell is None:
                    differences.append(f"peer cell {r['province']},{r['activity']} unknown")
                    continue
                peer_primary[cell] = r["status"] == "U"
                if r["status"] == "M":
                    peer_secondary.append(cell)
                if peer_primary[cell] and table.sensitive[cell]:
                    scale = max(1.0, abs(table.values[cell]))
                    if abs(float(r["upper"]) - table.upper_protection[cell]) > (
                            _LEVEL_TOLERANCE * scale):
                        differences.append(f"{table.describe(cell)} level "
                                           f"{float(r['upper']):g} vs "
                                           f"{table.upper_protection[cell]:g}")
            for cell in np.flatnonzero(peer_primary != table.sensitive).tolist():
                differences.append(f"{table.describe(cell)} primary for "
                                   f"{'the peer' if peer_primary[cell] else 'cspopt'} only")
            peer_safe = audit(table, sorted(peer_secondary), requirement="interval").protected
            peer_cost = float(table.costs[peer_secondary].sum())
            row.update(same_primaries=bool((peer_primary == table.sensitive).all()),
                       differences="; ".join(differences[:5]) or "none",
                       peer_cost=peer_cost, peer_safe=peer_safe)
        else:
            row.update(same_primaries=False, differences="peer gave no table",
                       peer_cost=math.nan, peer_safe=False)
        result = mine.result
        row.update(cspopt_status=result.status.value if hasattr(result.status, "value")
                   else str(result.status), cspopt_cost=float(result.objective),
                   cspopt_lb=float(result.lower_bound), cspopt_gap_pct=100 * result.gap,
                   cspopt_safe=bool(audit(table, result.suppressed,
                                          requirement="interval").protected),
                   cspopt_s=mine_s, peer_s=peer["wall"], peer_cpu_s=peer["cpu"])
        rows.append(row)
        log.info("bench protect %s", row)
        if on_row is not None:
            on_row(rows)
    return rows


def protect_summary(rows: list[dict]) -> str:
    """The lines under the table: agreement on primaries and levels, safety, costs."""
    ran = [r for r in rows if r["peer_status"] == "done"]
    same = sum(r["same_primaries"] and r["differences"] == "none" for r in ran)
    cheaper = sum(r["cspopt_cost"] <= r["peer_cost"] + 1e-6 for r in ran)
    return (f"\nThe peer ran on {len(ran)} of {len(rows)} cases. Same primary cells and "
            f"protection levels on {same} of {len(ran)}; cspopt's pattern passes its audit "
            f"on {sum(r['cspopt_safe'] for r in rows)} of {len(rows)}, the peer's on "
            f"{sum(r['peer_safe'] for r in ran)} of {len(ran)}; cspopt's cost at most the "
            f"peer's on {cheaper} of {len(ran)}; cspopt proved optimality on "
            f"{sum(r['cspopt_status'] == 'optimal' for r in rows)} of {len(rows)}.\n")

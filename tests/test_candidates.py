"""Serpell et al. (2013) candidate sets, on the paper's own examples, and exactness of the
branch-and-cut that separates only for them."""

import numpy as np
import pytest
from oracles import tiny_interval_tables

from cspopt import Table, audit
from cspopt.models.interval import build_interval_instance
from cspopt.models.interval.candidates import candidate_primaries, unpicked
from cspopt.solving import solve_branch_and_cut

FIG1 = [[9, 51, 41, 47, 3, 48], [8, 1, 54, 44, 45, 12], [8, 70, 6, 76, 64, 21],
        [33, 46, 45, 27, 37, 60], [87, 51, 18, 35, 49, 72], [48, 59, 39, 65, 35, 58]]
FIG1_PRIMARIES = ["A1", "A5", "B1", "B2", "B5", "B6", "C3", "C6"]
FIG3 = [[100] * 4] * 4
FIG3_PRIMARIES = ["A1", "A2", "A3", "B2", "B3", "C1", "C4", "D1", "D4"]


def _table(values, primaries):
    values = np.array(values, dtype=float)
    sensitive = np.zeros(values.shape, dtype=bool)
    for name in primaries:
        sensitive["ABCDEF".index(name[0]), int(name[1:]) - 1] = True
    level = 0.1 * values
    return Table.from_array(values, sensitive=sensitive, lower_protection=level,
                            upper_protection=level, row_labels=list("ABCDEF"[:len(values)]),
                            col_labels=[str(j + 1) for j in range(len(values[0]))])


def _names(table, cells):
    n = int(np.sqrt(table.num_cells))  # both examples are square with margins
    return {f"{'ABCDEF'[c // n]}{c % n + 1}" for c in cells}


def test_figure_1_exposed_and_candidates():
    """§2.1 and §3.1.1.1: E = {B2, B5, B6, C3, C6}, K = {B2, B5, C3, C6}."""
    table = _table(FIG1, FIG1_PRIMARIES)
    exposed = build_interval_instance(table).protected
    assert _names(table, exposed) == {"B2", "B5", "B6", "C3", "C6"}
    chosen = candidate_primaries(table, exposed)
    assert _names(table, exposed[chosen]) == {"B2", "B5", "C3", "C6"}


def test_figure_3_needs_the_lp_attacker():
    """Cox's table (§2.1): A1 is exposed but cannot be unpicked, so it is in K_n."""
    table = _table(FIG3, FIG3_PRIMARIES)
    exposed = build_interval_instance(table).protected
    assert _names(table, exposed) == {"A1"}
    lower, upper = unpicked(table)
    a = table.values[table.sensitive_cells]
    assert np.all(upper >= a + 10 - 1e-9) and np.all(lower <= a - 10 + 1e-9)
    assert candidate_primaries(table, exposed).tolist() == [True]


def test_unpicking_bounds_are_valid():
    """Every bound unpicking derives holds for the true values (it only ever uses the
    relations), and it never beats the LP attacker."""
    table = _table(FIG1, FIG1_PRIMARIES)
    lower, upper = unpicked(table)
    a = table.values[table.sensitive_cells]
    assert np.all(lower <= a + 1e-9) and np.all(upper >= a - 1e-9)
    report = audit(table, (), requirement="interval", cells="sensitive")
    for cell, lo, hi in zip(table.sensitive_cells, lower, upper):
        entry = report.cell(int(cell))
        assert lo <= entry.low + 1e-6 and hi >= entry.high - 1e-6


def test_branch_and_cut_with_candidate_sets_is_exact():
    """Separation restricted to K, enforcement on all of E: the same optimum."""
    for table in tiny_interval_tables(3, 25):
        plain = solve_branch_and_cut(table)
        focused = solve_branch_and_cut(table, candidate_sets=True)
        assert focused.status == plain.status
        if plain.status == "optimal":
            assert focused.objective == pytest.approx(plain.objective)
            assert focused.audit.protected

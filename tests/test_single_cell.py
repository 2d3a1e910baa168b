"""The single-cell bound (cspopt.bounds.single_cell) as a proof: below the brute-force optimum
on every tiny table, equal to it where one cell is sensitive; inside the branch-and-cut, the
bound of a table whose sensitive grand total dominates, and the optimum kept wherever the
phase runs."""

import math

import numpy as np
import pytest
from oracles import brute_force_interval, tiny_interval_tables

from cspopt import Table, audit
from cspopt.bounds import single_cell
from cspopt.bounds.capacity import capacity_bound, capacity_lp
from cspopt.bounds.single_cell import dominant_cell, single_cell_bound
from cspopt.errors import InvalidCellError
from cspopt.models.interval import CapacityOracle, build_interval_instance
from cspopt.solving.branch_and_cut import solve_branch_and_cut
from cspopt.table.generators import gensup_class1, gensup_class2


def test_single_cell_bounds_are_valid_and_their_patterns_protect_their_cell():
    for table in tiny_interval_tables(11, 15):
        optimum = brute_force_interval(table)
        if math.isinf(optimum):
            continue
        inst = build_interval_instance(table)
        for cell in inst.protected.tolist():
            single = single_cell_bound(inst, cell)
            assert single.termination == "optimal"
            assert single.lower_bound <= optimum + 1e-6
            suppressed = inst.candidates[single.pattern > 0.5]
            exposed = audit(table, suppressed, requirement="interval", cells="sensitive").exposed
            assert cell not in exposed


def test_with_one_sensitive_cell_it_is_the_optimum():
    rng = np.random.default_rng(4)
    for _ in range(8):
        data = rng.integers(1, 30, size=(3, 3))
        sens = np.zeros((3, 3), bool)
        sens[rng.integers(3), rng.integers(3)] = True
        level = np.ceil(rng.uniform(0.2, 0.9) * data)
        table = Table.from_array(data, sensitive=sens, lower_protection=level,
                                 upper_protection=level, costs=rng.choice(["value", "unit"]))
        optimum = brute_force_interval(table)
        inst = build_interval_instance(table, preprocessing=False)
        single = single_cell_bound(inst, int(inst.protected[0]))
        assert single.lower_bound == pytest.approx(optimum, rel=1e-6, abs=1e-6)


def test_bad_cell_is_named():
    table = gensup_class2(6, 5, seed=8)
    inst = build_interval_instance(table)
    with pytest.raises(InvalidCellError, match="cell 0 is not a sensitive cell"):
        single_cell_bound(inst, 0)


def _root_cuts(table):
    inst = build_interval_instance(table)
    return inst, capacity_lp(inst, CapacityOracle(inst))[2]


@pytest.mark.slow
def test_a_sensitive_grand_total_bounds_the_solve():
    """GenSup class II 12x10 seed 3: the grand total needs the capacity of many cells (its
    cuts are knapsacks) and carries the capacity LP (18,112); its own MIP proves 25,165, the
    compact MIP's optimum, and the branch-and-cut starts its tree from that bound."""
    table = gensup_class2(12, 10, seed=3)
    total = table.num_cells - 1
    inst, cuts = _root_cuts(table)
    assert dominant_cell(inst, cuts) == total
    result = solve_branch_and_cut(table)  # a proof asserted: no wall-clock limit
    assert result.proven_optimal and result.objective == 25165
    assert result.audit.protected
    phases = {h["phase"]: h["lower_bound"] for h in result.history}
    assert phases["single cell"] == 25165 > phases["root lp"]
    bound = capacity_bound(table, time_limit=120)  # the bound oracle takes it too
    assert bound.lower_bound == 25165


def test_the_single_cell_phase_keeps_the_optimum(monkeypatch):
    """Every cell counted dominant: on tiny tables the branch-and-cut still proves the
    brute-force optimum (the floor is a valid bound, the joined pattern is pruned and
    audited)."""
    monkeypatch.setattr(single_cell, "DOMINANT_SHARE", 0.0)
    monkeypatch.setattr(single_cell, "KNAPSACK_COEFFICIENT", 2.0)
    ran = 0
    for table in tiny_interval_tables(12, 40):
        optimum = brute_force_interval(table)
        result = solve_branch_and_cut(table)
        if math.isinf(optimum):
            assert result.status == "infeasible"
            continue
        ran += "single_cell" in result.timings
        assert result.proven_optimal and result.objective == pytest.approx(optimum)
        assert result.audit.protected and result.lower_bound <= optimum + 1e-9
    assert ran >= 3  # the rest were proven at the root


@pytest.mark.parametrize("make", [lambda: gensup_class1(8, 6, seed=0),
                                  lambda: gensup_class2(6, 5, seed=8)])
def test_no_cell_is_chosen_where_the_tree_does_better(make):
    """Several cells share the bound (class I), or the grand total's cuts are covers of a
    few cells (a 6x5 table): no single-cell MIP."""
    inst, cuts = _root_cuts(make())
    assert dominant_cell(inst, cuts) is None

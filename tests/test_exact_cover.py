"""Exact disclosure beyond 2-D (cspopt.solving.exact_cover): the cover cuts' branch-and-cut
on 3-D and hierarchical tables, against brute force, its bound below the optimum, a table
where exact and interval protection differ, certify and bound, and the cells no pattern can
protect named before any solve. (Tiny random 3-D and hierarchical tables are also checked
against brute force by tests/test_fuzz.py.)"""

import json

import numpy as np
import pytest
from oracles import brute_force, cube_table, small_cube

import cspopt
from cspopt.audit import audit
from cspopt.cli import main
from cspopt.errors import InfeasibleProtectionError, InputError, NotNetworkError
from cspopt.io import write_table
from cspopt.models.exact.cover import ExactAttacker
from cspopt.table.generators import hierarchical_2d


def _exact(table):
    return table.replace(lower_protection=0.0, upper_protection=0.0)


def _margins(shape) -> list[int]:
    return [c for c in range(int(np.prod(shape)))
            if any(i == s - 1 for i, s in zip(np.unravel_index(c, shape), shape))]


@pytest.mark.parametrize("seed", range(4))
def test_a_3d_tables_optimum_is_brute_forces(seed):
    """2x2x2 internal cells of random values, two sensitive, the margins published (so
    brute force can try every pattern): the proven optimum is brute force's, audited."""
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 30, size=(2, 2, 2)).astype(float)
    sensitive = np.zeros(8, dtype=bool)
    sensitive[rng.choice(8, size=2, replace=False)] = True
    table = _exact(cube_table(values, sensitive.reshape(2, 2, 2), "value", 0.0, 1.0))
    margins = _margins((3, 3, 3))
    result = cspopt.solve(table, protection="exact", must_publish=margins)
    fixed = table.replace(status=np.where(np.isin(np.arange(27), margins), "z", table.status))
    optimum = brute_force(fixed, "exact")
    assert result.method == "bc(cover)/highs" and result.status == "optimal"
    assert result.objective == pytest.approx(optimum)
    assert result.lower_bound <= optimum + 1e-9
    assert audit(table, result.suppressed, requirement="exact").protected


def test_a_hierarchical_table_is_solved_and_certified():
    table = _exact(hierarchical_2d(4, 3, seed=1))
    assert not table.is_network
    result = cspopt.solve(table, protection="exact", time_limit=60)
    assert result.status == "optimal" and result.lower_bound == result.objective
    assert audit(table, result.suppressed, requirement="exact").protected
    certified = cspopt.certify(table, result.suppressed, protection="exact", time_limit=60)
    assert certified.audit.protected and certified.status == "optimal"
    assert certified.gap == 0 and certified.lower_bound <= result.objective
    bound = cspopt.bound(table, protection="exact", time_limit=60)
    assert bound.status == "bound_only" and bound.lower_bound <= result.objective + 1e-9


def test_exact_and_interval_protection_differ():
    """A sensitive cell of 100 among cells of 1: the 2x2x2 box of its neighbours stops exact
    disclosure (cost 7), but moves it by 1 only; its 50 % interval needs the margins."""
    values = np.ones((2, 2, 2))
    values[0, 0, 0] = 100
    sensitive = np.zeros((2, 2, 2), dtype=bool)
    sensitive[0, 0, 0] = True
    table = cube_table(values, sensitive, "value", 0.5, 1.0)
    exact = cspopt.solve(_exact(table), protection="exact")
    interval = cspopt.solve(table, protection="interval")
    assert exact.status == interval.status == "optimal"
    assert exact.objective == 7 < interval.objective
    assert not audit(table, exact.suppressed, requirement="interval").protected
    assert audit(_exact(table), interval.suppressed, requirement="exact").protected


def test_the_cuts_are_proofs():
    """At the primaries alone every sensitive cell of a cube is computable, and each cover
    the attacker gives leaves it computable with every other cell suppressed."""
    table = _exact(small_cube())
    candidates = np.flatnonzero(~table.sensitive)
    attacker = ExactAttacker(table, candidates)
    alone = attacker.is_sensitive.astype(float)
    assert attacker.computed(alone).tolist() == [0]
    cover = attacker.cover(alone, 0)
    assert cover is not None and cover.size
    outside = np.setdiff1d(candidates, cover)
    assert not audit(table, outside, requirement="exact").protected


def test_a_cell_no_pattern_protects_is_named():
    """Cell 0 of the cube is its line's only suppressible cell once cells 9 and 18 must be
    published; and a cell its bounds pin cannot move: both refused before any solve."""
    table = _exact(small_cube())
    with pytest.raises(InfeasibleProtectionError, match="cell 0") as error:
        cspopt.solve(table, protection="exact", must_publish=[9, 18])
    assert error.value.cell == 0
    with pytest.raises(InputError, match="0"):
        cspopt.solve(table.replace(apriori_lower=table.values, apriori_upper=table.values),
                     protection="exact")


def test_lagrangian_options_are_refused_beyond_2d():
    cube = _exact(small_cube())
    with pytest.raises(InputError, match="dual"):
        cspopt.solve(cube, protection="exact", dual="subgradient")
    with pytest.raises(InputError, match="max_iterations"):
        cspopt.solve(cube, protection="exact", max_iterations=5)
    for method in ("lp", "lagrangian"):
        with pytest.raises(NotNetworkError, match=f"bound method '{method}'.*'auto' or 'mip'"):
            cspopt.bound(cube, protection="exact", method=method)
    assert cspopt.bound(cube, protection="exact", method="mip").lower_bound > 0


def test_the_command_solves_exact_disclosure_on_a_3d_table(tmp_path, capsys):
    path = tmp_path / "cube.json"
    write_table(_exact(small_cube()), path)
    assert main(["solve", str(path), "--protection", "exact", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "optimal" and result["objective"] == 35


def test_the_exact_benchmark_runs_table_files():
    """``cspopt bench exact --instance FILE``: exact disclosure on each file, by the model
    its shape takes, every pattern through the exact audit."""
    from helpers import INSTANCES

    from cspopt.bench.exact import exact_instances_benchmark
    rows = exact_instances_benchmark([INSTANCES / "pp_shadow.jj", INSTANCES / "ex1.jj"],
                                     time_limit=30)
    assert [(r["table"], r["network"]) for r in rows] == [("pp_shadow", False), ("ex1", True)]
    assert rows[0]["method"] == "bc(cover)/highs"
    assert all(r["safe"] and r["status"] == "optimal" and r["lower_bound"] == r["cost"]
               for r in rows)
    for row in rows:  # the peer beside it where R has it, else a note saying why not
        assert ("gauss_note" in row) != ("gauss_cost" in row)
        assert "gauss_cost" not in row or row["cost"] <= row["gauss_cost"]


def test_the_benchmark_count_tables_are_hierarchical_frequency_tables():
    """``cspopt bench exact --counts``: seeded count tables, sensitive by FREQ(3,10), empty
    cells as each case says."""
    from cspopt.bench.exact import COUNT_CASES, count_table

    for name in ("counts-3d-585", "counts-3d-585-zeros"):
        table = count_table(name)
        empty = table.values == 0
        assert table.num_cells == 585 and not table.is_network and empty.any()
        assert np.all((table.values[table.sensitive] < 3) | empty[table.sensitive])
        protected = COUNT_CASES[name][3] == "protected"
        assert table.sensitive[empty].all() == protected
        assert table.must_publish[empty].all() != protected


def test_gaussian_elimination_peer_publishes_no_determined_cell():
    """GaussSuppression (R) on a 3-D table through the benchmark's driver: its pattern
    leaves no sensitive cell a linear combination of the published ones (the exact audit
    without bounds), in both of its orders, the cheaper reported."""
    from cspopt.bench.gauss import gauss_missing, run_gauss
    from cspopt.solving.exact_cover import exact_audit

    if gauss_missing():
        pytest.skip(gauss_missing())
    rng = np.random.default_rng(4)
    sensitive = np.zeros(27, dtype=bool)
    sensitive[rng.choice(27, size=3, replace=False)] = True
    table = _exact(cube_table(rng.integers(1, 30, size=(3, 3, 3)).astype(float),
                              sensitive.reshape(3, 3, 3), "value", 0.0, 1.0))
    run = run_gauss(table)
    assert run["order"] in ("cost", "value") and run["unsafe"] == []
    pattern = np.union1d(table.sensitive_cells, run["suppressed"])
    assert exact_audit(table, "P", pattern).protected
    assert run["cost"] >= cspopt.solve(table, protection="exact", model="P").objective


@pytest.mark.parametrize("seed, block", [(0, 64), (1, 64), (2, 64), (3, 1), (4, 3), (5, 7)])
def test_elimination_publishes_what_the_audit_lets_it(seed, block, monkeypatch):
    """Gaussian elimination in an order equals publishing the cells one by one in that
    order, each kept suppressed exactly when the exact audit (real completions, no bounds)
    says publishing it exposes a cell: the same pattern, found by linear algebra alone,
    whatever the rows decided per block."""
    from cspopt.heuristics import elimination
    from cspopt.heuristics.elimination import eliminate
    from cspopt.models.exact import modelled_table

    monkeypatch.setattr(elimination._Elimination, "BLOCK", block)
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 30, size=(3, 2, 2)).astype(float)
    sensitive = rng.random((3, 2, 2)) < 0.25
    sensitive[0, 0, 0] = True
    table = modelled_table(_exact(cube_table(values, sensitive, "value", 0.0, 1.0)), "P")
    candidates = np.flatnonzero(~table.sensitive)
    order = rng.permutation(candidates.size)
    found = eliminate(table, candidates, order)
    suppressed = np.ones(candidates.size, dtype=bool)
    for position in order:
        suppressed[position] = False
        if not audit(table, candidates[suppressed], requirement="exact",
                     integer=False).protected:
            suppressed[position] = True
    assert np.array_equal(found, suppressed)


@pytest.mark.parametrize("response", ["turnover", None])
def test_microdata_with_a_hierarchy_is_protected_from_exact_disclosure(response):
    """``protect(..., protection="exact")`` on province (in regions) x activity, magnitude
    and frequency (count) tables: the cover cuts' optimum, through the exact audit."""
    from helpers import INSTANCES

    protected = cspopt.protect(INSTANCES / "survey.csv", ["province", "activity"],
                               response=response, rules="FREQ(3,10)",
                               hierarchies={"province": INSTANCES / "province.hrc"},
                               protection="exact", time_limit=60)
    result = protected.result
    assert result.method == "bc(cover)/highs" and result.status == "optimal"
    assert result.lower_bound == result.objective
    assert audit(protected.table, result.suppressed, requirement="exact").protected


@pytest.mark.parametrize("seed", range(3))
def test_linked_count_tables_optimum_is_brute_forces(seed):
    """Two count tables of the same records sharing a margin (A x B and A x C), protected
    jointly from exact disclosure: the brute-force optimum, through the exact audit."""
    rng = np.random.default_rng(seed)
    data = {name: list(rng.choice([f"{name.lower()}1", f"{name.lower()}2"], 14))
            for name in "ABC"}
    protected = cspopt.protect(data, [["A", "B"], ["A", "C"]], rules="FREQ(3,10)",
                               protection="exact", costs="frequency")
    table, result = protected.table, protected.result
    assert not table.is_network and table.sensitive.any()
    assert result.method == "bc(cover)/highs" and result.status == "optimal"
    assert result.objective == brute_force(table, "exact") == result.lower_bound
    assert audit(table, result.suppressed, requirement="exact").protected


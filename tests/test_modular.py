"""Modular (cspopt.solving.modular) and the subtables it works on (cspopt.table.subtables):
the subtables hold every cell and relation, top-down; every pattern passes the whole table's
audit and costs at least the proven optimum; a table without dimensions is refused."""

import json

import numpy as np
import pytest
from helpers import INSTANCES, run

import cspopt
from cspopt.audit import audit
from cspopt.errors import InputError
from cspopt.io import read_table
from cspopt.solving import solve_branch_and_cut
from cspopt.table.generators import hierarchical_2d
from cspopt.table.subtables import subtables


def test_subtables_hold_every_cell_and_relation_top_down():
    table = hierarchical_2d(10, 6, seed=1)
    parts = subtables(table)
    assert [p.level for p in parts] == sorted(p.level for p in parts)
    assert parts[0].parents == tuple(d.total for d in table.dimensions)
    cells, relations = np.zeros(table.num_cells, bool), np.zeros(table.num_relations, bool)
    for part in parts:
        cells[part.cells] = True
        relations[part.relations] = True
        local = part.extract(table, fixed=part.cells[:2])  # additive, or it would raise
        assert local.num_cells == part.cells.size
        assert local.num_relations == part.relations.size
        held = ~table.sensitive[part.cells[:2]]
        assert local.sensitive[:2][held].all()
        assert (local.upper_protection[:2][held] == 0).all()
    assert cells.all() and relations.all()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_modular_patterns_pass_the_whole_tables_audit_and_cost_at_least_the_optimum(seed):
    table = hierarchical_2d(12, 6, seed=seed)
    found = cspopt.solve(table, method="modular")
    optimum = solve_branch_and_cut(table)
    assert optimum.proven_optimal
    assert found.audit.protected and audit(table, found.suppressed, requirement="interval",
                                           cells="sensitive").protected
    assert found.lower_bound <= optimum.objective + 1e-6 <= found.objective + 2e-6
    assert found.model_size["subtables"] == len(subtables(table))


def test_modular_protects_microdata_with_a_hierarchy():
    protected = cspopt.protect(INSTANCES / "survey.csv", ["province", "activity"],
                               response="turnover", rules="NK(1,60)|NK(2,85)|FREQ(3,10)",
                               hierarchies={"province": INSTANCES / "province.hrc"},
                               method="modular")
    result = protected.result
    assert result.has_pattern and audit(protected.table, result.suppressed,
                                        requirement="interval").protected
    assert result.lower_bound <= 144_222 <= result.objective  # the optimum (instances/README)


def test_modular_refuses_a_table_without_dimensions_and_options_it_does_not_take():
    from cspopt.table.table import Table
    no_product = Table([3, 1, 4, 2, 5, 1, 4], status=["u"] + ["s"] * 6, upper_protection=1,
                       relations=[
        [(0, 1), (1, 1), (2, -1)], [(0, 1), (3, 1), (4, -1)], [(0, 1), (5, 1), (6, -1)]])
    with pytest.raises(InputError, match="Modular needs the table's dimensions"):
        cspopt.solve(no_product, method="modular")
    with pytest.raises(InputError, match="not method 'modular'"):
        cspopt.solve(hierarchical_2d(12, 6, seed=1), method="modular", seed=3)


def test_a_plain_2d_table_with_relations_only_is_one_subtable():
    table = read_table(INSTANCES / "fuzz" / "fz_2d_111.jj")
    (part,) = subtables(table)
    assert part.cells.size == table.num_cells and part.relations.size == table.num_relations
    found = cspopt.solve(table, method="modular")
    assert found.audit.protected and found.lower_bound <= 9 <= found.objective  # optimum 9


def test_a_jj_tables_dimensions_are_recovered_from_its_relations():
    """The tiny 3-D two-hierarchy table written as JJ (cells and relations only) is cut
    into the same subtables as from its codes."""
    from cspopt.io.jj import format_jj, parse_jj
    from cspopt.microdata.protect import sensitive_table
    from cspopt.microdata.synthetic import hierarchical_survey
    from cspopt.table.recovered import product_structure
    levels = {"region": (2, 2), "activity": (2, 2), "size": (2,)}
    columns, hierarchies = hierarchical_survey(levels, records=120, seed=0)
    table, _, _ = sensitive_table(columns, list(levels), response="turnover",
                                  rules="P(15)|FREQ(3,10)", hierarchies=hierarchies)
    relations_only = parse_jj(format_jj(table))
    shape, breakdowns = product_structure(relations_only)
    assert shape == (7, 7, 3) and breakdowns[2] == [(2, (0, 1))]  # size: Total last
    assert ({frozenset(p.cells.tolist()) for p in subtables(relations_only)}
            == {frozenset(p.cells.tolist()) for p in subtables(table)})
    # tau-ARGUS' pp_shadow.jj: Size (9) x Region (18, two levels), instances/README.md
    pp = read_table(INSTANCES / "pp_shadow.jj")
    assert product_structure(pp)[0] == (9, 18) and len(subtables(pp)) == 5
    found = cspopt.solve(pp, method="modular")
    assert audit(pp, found.suppressed, requirement="interval").protected
    assert found.lower_bound <= 621 <= found.objective  # the proven optimum


def test_csplib_dimensions_without_a_tree_are_cut_by_their_breakdowns(shared_instances):
    """hier13x7x7d's first dimension groups its codes across (no tree): each breakdown is a
    subtable's; every relation lies in one, and Modular's pattern is audited and bounded by
    the branch-and-cut's known bound and pattern (docs/bench/interval.md)."""
    from cspopt.table.recovered import product_structure
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    shape, breakdowns = product_structure(table)
    assert shape == (13, 7, 7) and len(breakdowns[0]) == 7
    parts = subtables(table)
    covered = np.zeros(table.num_relations, dtype=bool)
    for part in parts:
        covered[part.relations] = True
    assert len(parts) == 7 and covered.all()
    found = cspopt.solve(table, method="modular", time_limit=30)
    assert audit(table, found.suppressed, requirement="interval", cells="sensitive").protected
    assert found.lower_bound <= 10_044 and found.objective >= 9_279


def test_hierarchical_survey_is_seeded_and_its_codes_lie_in_the_hierarchies():
    from cspopt.microdata.synthetic import hierarchical_survey
    levels = {"region": (2, 3), "activity": (3,), "size": (2, 2)}
    columns, hierarchies = hierarchical_survey(levels, records=200, seed=4)
    again, _ = hierarchical_survey(levels, records=200, seed=4)
    assert columns == again and len(columns["turnover"]) == 200
    assert set(hierarchies) == {"region", "size"}  # the flat activity needs none
    assert set(columns["region"]) <= {c for c in hierarchies["region"] if "." in c}
    assert len(hierarchies["region"]) == 2 + 6 and min(columns["turnover"]) >= 1


@pytest.mark.parametrize("seed", [0, 2])
def test_modular_on_a_3d_table_with_two_hierarchies_is_audited_and_never_below_the_optimum(
        seed):
    from cspopt.microdata.synthetic import hierarchical_survey
    levels = {"region": (2, 2), "activity": (2, 2), "size": (2,)}
    columns, hierarchies = hierarchical_survey(levels, records=120, seed=seed)
    found = cspopt.protect(columns, list(levels), response="turnover",
                           rules="P(15)|FREQ(3,10)", hierarchies=hierarchies,
                           method="modular")
    table, result = found.table, found.result
    assert table.num_cells == 7 * 7 * 3 and result.model_size["subtables"] == 9
    optimum = solve_branch_and_cut(table)
    assert optimum.proven_optimal
    assert audit(table, result.suppressed, requirement="interval").protected
    assert result.lower_bound <= optimum.objective + 1e-6 <= result.objective + 2e-6


def test_auto_takes_modular_on_a_large_hierarchical_table_beyond_2d(monkeypatch):
    from cspopt.microdata.synthetic import hierarchical_survey
    from cspopt.solving import modular
    levels = {"region": (2, 2), "activity": (2, 2), "size": (2,)}
    columns, hierarchies = hierarchical_survey(levels, records=120, seed=2)
    protected = cspopt.protect(columns, list(levels), response="turnover",
                               rules="P(15)|FREQ(3,10)", hierarchies=hierarchies)
    assert protected.result.method.startswith("bc")  # below MODULAR_FROM
    assert not modular.modular_fits(hierarchical_2d(60, 40, seed=1))  # 2-D: a network
    monkeypatch.setattr(modular, "MODULAR_FROM", 100)
    table = protected.table
    assert modular.modular_fits(table)
    assert cspopt.solve(table).method.startswith("modular")
    assert cspopt.solve(table, processes=2).method.startswith("bc")  # as asked
    from cspopt.io.jj import format_jj, parse_jj
    assert modular.modular_fits(parse_jj(format_jj(table)))  # dimensions from relations


def test_two_dask_workers_give_the_sequential_pattern():
    table = hierarchical_2d(12, 6, seed=2)
    alone = cspopt.solve(table, method="modular")
    spread = cspopt.solve(table, method="modular", workers=2)
    assert spread.suppressed == alone.suppressed and spread.audit.protected
    assert spread.model_size == alone.model_size


def test_each_subtable_gets_its_own_time_limit_and_the_same_pattern_on_two_workers():
    """``subtable_time_limit``: tau-ARGUS Modular's limit per subtable, the same whatever
    the number of workers (a share of ``time_limit`` grows with them), capped by what the
    subtables' share of a time limit has left; refused out of range or where no method goes
    subtable by subtable."""
    from cspopt.budget import Budget
    from cspopt.parallel import Workers
    from cspopt.solving.modular import _protect_subtables
    table = hierarchical_2d(12, 6, seed=2)
    parts = subtables(table)
    asked = []

    def record(local, seconds, weights, must_publish):
        asked.append(seconds)
        return ()

    for budget in (Budget(None), Budget(1000.0), Budget(3.0)):
        asked.clear()
        with Workers() as pool:
            _protect_subtables(table, parts, table.sensitive.copy(), budget, weights=None,
                               must_publish=None, rounds=1, pool=pool, solver=record,
                               seconds=7.0)
        if budget.limit == 3.0:  # what the budget has left (a busy machine leaves less)
            assert asked and all(seconds <= 3.0 for seconds in asked)
        else:
            assert asked and set(asked) == {7.0}
    alone = cspopt.solve(table, method="modular", subtable_time_limit=5)
    spread = cspopt.solve(table, method="modular", subtable_time_limit=5, workers=2)
    assert spread.suppressed == alone.suppressed and spread.audit.protected
    assert audit(table, spread.suppressed, requirement="interval",
                 cells="sensitive").protected
    optimum = solve_branch_and_cut(table)
    assert optimum.proven_optimal
    assert spread.lower_bound <= optimum.objective + 1e-6 <= spread.objective + 2e-6
    with pytest.raises(InputError, match="subtable_time_limit must be a number >= 1"):
        cspopt.solve(table, method="modular", subtable_time_limit=0.5)
    with pytest.raises(InputError, match="subtable_time_limit.*method='modular' or "
                                         "'hypercube'"):
        cspopt.solve(table, method="branch-and-cut", subtable_time_limit=5)


def test_a_repair_without_a_limit_protects_many_cells_in_groups(monkeypatch):
    """Without a time limit the repair's groups are fixed by the number of cells (not paced
    by a clock): more than ``_UNPACED_SINGLES`` cells go in groups of ``_UNPACED_GROUP``,
    dealt in turn; the pattern passes the audit."""
    from cspopt.heuristics import incremental
    from cspopt.models.interval import build_interval_instance
    from cspopt.solving import audited
    monkeypatch.setattr(audited, "_UNPACED_SINGLES", 2)
    monkeypatch.setattr(audited, "_UNPACED_GROUP", 2)
    orders = []
    attacker = incremental.incremental_attacker

    def spy(inst, **kwargs):
        orders.append(kwargs["order"])
        return attacker(inst, **kwargs)

    monkeypatch.setattr(incremental, "incremental_attacker", spy)
    table = hierarchical_2d(12, 6, seed=2)
    inst = build_interval_instance(table)
    y, checked, note = audited.repair_interval_pattern(inst, np.zeros(inst.candidates.size),
                                                       {})
    (order,) = orders
    cells = np.sort(np.concatenate(order))
    assert len(order) == -(-cells.size // 2) and all(group.size <= 2 for group in order)
    assert np.array_equal(order[0], cells[::len(order)])  # dealt in turn, not in runs
    assert checked.protected and audit(table, audited.pattern_cells(inst, y),
                                       requirement="interval").protected
    assert note.startswith("completed by the incremental attacker")


def test_waves_are_runs_of_subtables_sharing_no_cell():
    from cspopt.solving.modular import _waves
    parts = subtables(hierarchical_2d(10, 6, seed=1))
    waves = _waves(parts, list(range(len(parts))))
    assert [i for wave in waves for i in wave] == list(range(len(parts)))  # order kept
    for wave in waves:
        cells = np.concatenate([parts[i].cells for i in wave])
        assert np.unique(cells).size == cells.size
    assert len(waves) < len(parts)


def test_an_unreachable_scheduler_and_bad_workers_are_named():
    from cspopt.errors import ClusterError
    table = hierarchical_2d(12, 6, seed=1)
    with pytest.raises(ClusterError, match="tcp://127.0.0.1:9"):
        cspopt.solve(table, method="modular", scheduler="tcp://127.0.0.1:9")
    with pytest.raises(InputError, match="workers"):
        cspopt.solve(table, method="modular", workers=0)
    with pytest.raises(InputError, match="workers"):
        cspopt.solve(table, method="branch-and-cut", workers=2)


def test_the_cli_spreads_modular_over_workers_and_names_an_unreachable_scheduler(tmp_path):
    table = tmp_path / "t.json"
    made = run("generate", "hier", "--rows", "12", "--cols", "6", "--seed", "1", "-o",
               str(table))
    assert made.returncode == 0, made.stderr
    done = run("solve", str(table), "--method", "modular", "--workers", "2", "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    loaded = read_table(table)
    optimum = solve_branch_and_cut(loaded)
    assert optimum.proven_optimal
    assert audit(loaded, found["suppressed"], requirement="interval").protected
    assert found["lower_bound"] <= optimum.objective + 1e-6 <= found["objective"] + 2e-6
    refused = run("solve", str(table), "--method", "modular", "--scheduler", "tcp://127.0.0.1:9")
    assert refused.returncode != 0 and "tcp://127.0.0.1:9" in refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize("small_lps", [False, True])
def test_the_repair_protects_the_exposed_cells(monkeypatch, small_lps):
    """The repair on the exposed cells (survey.csv leaves five), or (``small_lps``, as on a
    large pattern) on those the audit's small LPs leave unproven."""
    from cspopt.audit import lp
    from cspopt.solving import audited
    if small_lps:
        monkeypatch.setattr(audited, "LOCAL_AUDIT_FROM", 0)
        monkeypatch.setattr(lp, "LOCAL_AUDIT_FROM", 0)
    protected = cspopt.protect(INSTANCES / "survey.csv", ["province", "activity"],
                               response="turnover", rules="NK(1,60)|NK(2,85)|FREQ(3,10)",
                               hierarchies={"province": INSTANCES / "province.hrc"},
                               method="modular")
    result = protected.result
    assert "completed by the incremental attacker" in result.message
    assert audit(protected.table, result.suppressed, requirement="interval").protected
    assert result.lower_bound <= 144_222 <= result.objective  # the optimum (instances/README)


def test_the_scale_benchmark_runs_table_files():
    """``cspopt bench scale --instance FILE``: cspopt's runs and ``auto`` on a table file,
    each in its own process, every pattern judged safe on the whole table."""
    from cspopt.bench.scale import scale_benchmark
    rows = scale_benchmark([], time_limit=20, instances=[INSTANCES / "pp_shadow.jj"])
    assert [r["tool"] for r in rows] == ["cspopt branch-and-cut", "cspopt modular",
                                         "cspopt modular-2w", "cspopt hypercube",
                                         "cspopt auto"]
    assert all(r["safe"] and r["cost"] >= 621 >= r["lower_bound"] for r in rows)


def test_the_scale_benchmarks_fixed_work_runs_on_one_and_two_workers():
    """``cspopt bench scale --fixed-work SECONDS``: Modular's same work (each subtable
    given SECONDS, no time limit) on one worker, then two: the same pattern, safe, and the
    two-worker row has the speedup."""
    from cspopt.bench.scale import scale_benchmark
    one, two = scale_benchmark([], instances=[INSTANCES / "pp_shadow.jj"],
                               subtable_seconds=5)
    assert [one["tool"], two["tool"]] == ["cspopt modular fixed work",
                                          "cspopt modular-2w fixed work"]
    assert one["safe"] and two["safe"] and "speedup" not in one
    assert all(r["lower_bound"] <= 621 <= r["cost"] for r in (one, two))  # the optimum
    assert two["same_pattern"] and two["pattern"] == one["pattern"]
    assert two["speedup"] == pytest.approx(one["seconds"] / two["seconds"])


def test_the_scale_benchmark_makes_the_runs_chosen():
    """``cspopt bench scale --tool RUN``: only the runs named (a 38,000-cell table's
    Modular without the whole table's branch-and-cut); an unknown one is refused, naming
    the choices, before any run."""
    from cspopt.bench.scale import scale_benchmark
    rows = scale_benchmark([], time_limit=20, instances=[INSTANCES / "pp_shadow.jj"],
                           tools=["modular", "auto"])
    assert [r["tool"] for r in rows] == ["cspopt modular", "cspopt auto"]
    assert all(r["safe"] and r["cost"] >= 621 >= r["lower_bound"] for r in rows)
    for tools, fixed in ((["modular", "tau"], None), (["modular"], 5)):
        with pytest.raises(InputError, match="choose runs from branch-and-cut"):
            scale_benchmark([], instances=[INSTANCES / "pp_shadow.jj"], tools=tools,
                            subtable_seconds=fixed)

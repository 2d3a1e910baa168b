"""The interval heuristics (Castro 2007; SP and hypercube, Almeida, Schütz & Carvalho 2008)
and the network view of 1H2D tables the path heuristics run on.

Results are checked as proofs: every pattern passes the interval audit, no pattern is
cheaper than the brute-force optimum, failures name the cell, and the reduced network of a
hierarchical table has exactly the table's completions.
"""

import json

import numpy as np
import pytest
from helpers import run
from oracles import brute_force, cube_table, small_cube

import cspopt
from cspopt.audit import audit
from cspopt.budget import Budget
from cspopt.errors import InputError, NotNetworkError
from cspopt.heuristics import sp_heuristic
from cspopt.io import write_jj
from cspopt.models.interval import CapacityOracle, build_interval_instance
from cspopt.models.suppression import candidate_mask
from cspopt.solving.heuristic import HEURISTICS
from cspopt.table import Table
from cspopt.table import generators as g
from cspopt.table.network import reduced_network


def _rank(matrix) -> int:
    return int(np.linalg.matrix_rank(matrix.toarray()))


@pytest.mark.parametrize("groups", [2, 4])
def test_reduced_network_of_a_hierarchical_table_keeps_its_completions(groups):
    table = g.hierarchical_2d(12, 5, seed=3, groups=groups)
    with pytest.raises(NotNetworkError):
        table.network()
    net, kept = reduced_network(table)
    matrix = table.relation_matrix
    assert kept.size < table.num_relations
    # same row space: the dropped relations are implied, so the completions are the same
    assert _rank(matrix[kept]) == _rank(matrix)
    # every cell is an arc between two of the kept relations (or the ground)
    assert net.tail.size == table.num_cells and np.all(net.tail != net.head)


def test_preprocessing_by_flows_on_a_hierarchical_table_agrees_with_the_audit():
    """The sensitive cells the primaries leave exposed: minimum cuts on the reduced network
    find exactly the cells the interval audit (attacker LPs) finds."""
    table = g.hierarchical_2d(12, 5, seed=4)
    inst = build_interval_instance(table)
    exposed = audit(table, (), requirement="interval", cells="sensitive").exposed
    assert set(inst.protected.tolist()) == set(exposed)


def test_reduced_network_refuses_a_three_dimensional_table():
    values = np.arange(1, 9, dtype=float).reshape(2, 2, 2)
    cube = Table.from_array(values[:, :, 0], sensitive=[[1, 0], [0, 0]])
    assert reduced_network(cube)[1].size == cube.num_relations  # 2-D: nothing dropped
    table = small_cube()
    with pytest.raises(NotNetworkError, match="implying"):
        reduced_network(table)


def _is_2d(table) -> bool:
    try:
        table.network()
    except NotNetworkError:
        return False
    return True


def _safe_or_named_failure(table, result) -> bool:
    """A pattern that passes the audit, or a failure naming the cell with no pattern."""
    if result.termination == "method_failed":
        assert result.status == "none" and not result.suppressed
        assert "could not protect" in result.message
        return False
    assert result.status in ("feasible", "optimal")
    assert audit(table, result.suppressed, requirement="interval").protected
    assert result.objective == pytest.approx(table.costs[list(result.suppressed)].sum())
    return True


@pytest.mark.parametrize("table", [
    g.gensup_class1(30, 30, seed=1), g.gensup_class2(20, 20, seed=3),
    g.smith_factors(20, 20, seed=2, sensitive=0.1), g.hierarchical_2d(30, 8, seed=2),
], ids=["gensup1", "gensup2", "smith", "hier"])
@pytest.mark.parametrize("method", sorted(HEURISTICS))
def test_patterns_pass_the_audit_and_the_clean_up_only_removes(table, method):
    if method == "pbp" and not _is_2d(table):
        with pytest.raises(InputError, match="2-D table"):
            cspopt.solve(table, method=method)
        return
    raw = cspopt.solve(table, method=method)
    cleaned = cspopt.solve(table, method=method, clean=True)
    if _safe_or_named_failure(table, raw):
        assert _safe_or_named_failure(table, cleaned)
        # the clean-up of raw's own pattern: two runs of a search whose LPs may pick other
        # optimal vertices on a busy machine are not compared as if deterministic
        inst = build_interval_instance(table)
        weights = inst.weights[inst.candidates]
        y = candidate_mask(table, inst.candidates, raw.suppressed).astype(float)
        pruned = inst.candidates[CapacityOracle(inst).prune(
            y, np.argsort(-weights, kind="stable")) > 0.5]
        assert set(pruned.tolist()) <= set(raw.suppressed)
        assert audit(table, pruned, requirement="interval").protected


def test_sp_flows_are_proofs_and_reuse_earlier_suppressions():
    """The SP heuristic's augmenting paths are attacker completions: its pattern protects
    every level without the incremental attacker's completion, even where Castro's disjoint
    cycles fail; already suppressed cells cost nothing, so a safe pattern is kept as is."""
    table = g.gensup_class2(5, 5, seed=16)
    result = cspopt.solve(table, method="sp")
    assert result.termination == "finished" and result.message == ""
    assert audit(table, result.suppressed, requirement="interval").protected
    inst = build_interval_instance(table)
    everything = np.zeros(table.num_cells, dtype=bool)
    everything[inst.candidates] = True
    kept = sp_heuristic(inst, suppressed=everything)
    assert kept.suppressed.all() and not kept.failed


@pytest.mark.parametrize("table", [g.gensup_class1(30, 30, seed=2),
                                   g.hierarchical_2d(16, 8, seed=1)], ids=["gensup1", "hier"])
def test_gensup_improves_on_its_seeds_reproducibly_with_a_valid_bound(table):
    """GenSup's population holds the cleaned SP pattern, so it is never worse; a seed gives
    one pattern; the bound it reports is its capacity LP's, at most the optimum."""
    optimum = cspopt.solve(table).objective
    sp = cspopt.solve(table, method="sp", clean=True)
    runs = [cspopt.solve(table, method="gensup", seed=7) for _ in range(2)]
    assert runs[0].suppressed == runs[1].suppressed
    assert optimum - 1e-9 <= runs[0].objective <= sp.objective + 1e-9
    assert 0 < runs[0].lower_bound <= optimum + 1e-9
    assert audit(table, runs[0].suppressed, requirement="interval").protected


def test_certify_gives_a_valid_bound_below_the_optimum():
    table = g.gensup_class1(20, 20, seed=2)
    optimum = cspopt.solve(table).objective
    heuristic = cspopt.solve(table, method="castro", certify=True)
    assert 0 < heuristic.lower_bound <= optimum + 1e-9 <= heuristic.objective + 1e-9
    assert heuristic.gap == pytest.approx(1 - heuristic.lower_bound / heuristic.objective)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method", sorted(HEURISTICS))
def test_never_below_brute_force_on_tiny_tables(seed, method):
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 20, size=(2, 3)).astype(float)
    sensitive = rng.random((2, 3)) < 0.3
    sensitive[seed % 2, seed % 3] = True
    table = Table.from_array(values, sensitive=sensitive, lower_protection=0.3 * values,
                             upper_protection=0.3 * values, apriori_upper=values.sum() * 4)
    result = cspopt.solve(table, method=method)
    optimum = brute_force(table, "interval")
    assert result.lower_bound <= optimum + 1e-9  # the line bound (or GenSup's LP) is valid
    if _safe_or_named_failure(table, result):
        assert result.objective >= optimum - 1e-9
    else:
        assert method != "sp"  # SP's paths reach every level the table can protect


def test_a_failure_names_the_cell_and_carries_no_pattern():
    # the grand total's lower protection needs cycles that share cells; Castro's disjoint
    # cycles (the TT list of his Fig. 6) cannot reach it
    table = g.gensup_class2(5, 5, seed=16)
    result = cspopt.solve(table, method="castro")
    assert result.termination == "method_failed" and result.status == "none"
    assert result.suppressed == () and "('Total', 'Total') (lower protection)" in result.message
    assert cspopt.solve(table).status == "optimal"  # the table itself has a safe pattern


def test_hypercube_fails_where_no_rectangle_is_wide_enough():
    # a row total whose lower protection no single rectangle covers (class II levels: 15 %)
    table = g.gensup_class2(20, 20, seed=1)
    result = cspopt.solve(table, method="hypercube")
    assert result.termination == "method_failed"
    assert "('18', 'Total') (lower protection)" in result.message
    assert cspopt.solve(table, method="sp").status == "feasible"


@pytest.mark.parametrize("method", sorted(HEURISTICS))
def test_heuristics_stop_at_the_deadline_and_the_solve_still_returns_a_safe_pattern(method):
    table = g.gensup_class1(40, 40, seed=1)
    inst = build_interval_instance(table)
    assert HEURISTICS[method](inst, budget=Budget.ending_at(0.0)).stopped
    result = cspopt.solve(table, method=method, time_limit=1e-6)
    assert result.status == "feasible" and "stopped at the time limit" in result.message
    assert audit(table, result.suppressed, requirement="interval").protected


@pytest.mark.parametrize("method", sorted(HEURISTICS))
def test_tables_without_a_network_get_a_typed_error(method):
    if method in ("ga", "ls", "capped", "hypercube"):  # attacker LPs, the compact model, or
        # (hypercube) n-D hypercubes subtable by subtable: any table of dimensions
        result = cspopt.solve(small_cube(), method=method)
        assert audit(small_cube(), result.suppressed, requirement="interval").protected
        return
    with pytest.raises(InputError, match="2-D table"):
        cspopt.solve(small_cube(), method=method)


def test_smith_ga_operators_keep_permutations_and_the_ga_beats_the_weight_order():
    """Order-based crossover and the three mutations return permutations; the GA's best
    is never worse than the incremental attacker in decreasing weight order, which is in
    its first population (Smith et al. 2012 §IV), and a seed gives one pattern."""
    from cspopt.heuristics import incremental_attacker
    from cspopt.heuristics.smith_ga import OPERATORS, mutate, order_crossover

    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 30):
        first, second = rng.permutation(n), rng.permutation(n)
        if n > 1:
            child = order_crossover(first, second, rng)
            assert sorted(child) == list(range(n))
        for operator in OPERATORS:
            assert sorted(mutate(first, operator, 0.5, rng)) == list(range(n))
    table = g.smith_factors(12, 10, seed=3, sensitive=0.1)
    inst = build_interval_instance(table)
    by_weight = np.argsort(-inst.weights[inst.protected], kind="stable")
    baseline = inst.weights[incremental_attacker(inst, order=by_weight)].sum()
    runs = [cspopt.solve(table, method="ga", seed=5) for _ in range(2)]
    assert runs[0].suppressed == runs[1].suppressed
    assert runs[0].objective <= baseline + 1e-9
    assert audit(table, runs[0].suppressed, requirement="interval").protected


@pytest.mark.parametrize("table", [g.smith_factors(12, 10, seed=3, sensitive=0.15),
                                   g.hierarchical_2d(12, 6, seed=2)], ids=["2d", "1h2d"])
def test_grouped_attacker_and_local_search_give_audited_patterns(table):
    """GA-group-K (Smith et al. 2012 §V): one attacker LP a group and side still protects
    every cell (the completion is the proof); the local searches (LS-*) and the grouped GA
    never end above the decreasing-weight order they start from."""
    from cspopt.heuristics import incremental_attacker
    from cspopt.heuristics.smith_ga import group_by_weight

    inst = build_interval_instance(table)
    groups = group_by_weight(inst, 3)
    assert sorted(np.concatenate(groups)) == list(range(inst.protected.size))
    assert [inst.weights[inst.protected[g]].max() for g in groups] == sorted(
        [inst.weights[inst.protected[g]].max() for g in groups], reverse=True)
    oracle = CapacityOracle(inst)
    for order in (groups, groups[::-1], [np.arange(inst.protected.size)]):
        pattern = incremental_attacker(inst, order=order)
        y = np.isin(inst.candidates, pattern).astype(float)
        assert oracle.protected_cells(y).all()
        assert audit(table, pattern, requirement="interval").protected
    by_weight = inst.weights[incremental_attacker(inst, order=np.concatenate(groups))].sum()
    grouped = inst.weights[incremental_attacker(inst, order=groups)].sum()
    for method, options in (("ls", dict(operator="swap")), ("ls", dict(operator="invert")),
                            ("ga", dict(groups=3)), ("ls", dict(groups=3, operator="insert"))):
        result = cspopt.solve(table, method=method, seed=1, **options)
        assert result.status in ("feasible", "optimal"), result.message
        assert audit(table, result.suppressed, requirement="interval").protected
        start = grouped if "groups" in options else by_weight
        assert result.objective <= start + 1e-9, (method, options)


def test_a_group_whose_lp_fails_is_split_in_halves(monkeypatch):
    """A group the attacker LP cannot move at once is protected in halves, down to pairs
    protected one cell at a time: every cell still protected, far fewer LPs than singly."""
    from cspopt.heuristics import incremental

    table = g.hierarchical_2d(12, 6, seed=2)
    inst = build_interval_instance(table)
    real, sizes = incremental._protect_together, []

    def groups_fail(inst, lp, group, *args, **kwargs):
        sizes.append(group.size)
        return group.size == 1 and real(inst, lp, group, *args, **kwargs)

    monkeypatch.setattr(incremental, "_protect_together", groups_fail)
    everyone = np.arange(inst.protected.size)
    assert everyone.size >= 8
    pattern = incremental.incremental_attacker(inst, order=[everyone[:8], everyone[8:]])
    assert sizes[:4] == [8, 4, 2, 1] and sizes.count(1) == everyone.size
    assert audit(table, pattern, requirement="interval").protected


@pytest.mark.parametrize("balanced", [True, False], ids=["taken", "refused"])
def test_a_groups_side_runs_through_the_pattern_by_any_point(monkeypatch, balanced):
    """A group's side that the pattern and the cells its other side moved can meet is solved
    over those cells alone by the interior point method without crossover (any feasible
    point is a completion; a vertex over the whole table took 140 s on a 37,926-cell
    table); a point that does not balance the relations is refused and the whole LP solved.
    Either way the pattern passes the audit, with the completions handed to it."""
    from cspopt.audit import interval_verdict
    from cspopt.heuristics import incremental

    rng = np.random.default_rng(4)
    sensitive = rng.random((4, 3, 3)) < 0.2
    table = cube_table(rng.integers(1, 30, (4, 3, 3)).astype(float), sensitive, "value",
                       0.2, 1.0)
    inst = build_interval_instance(table)
    monkeypatch.setattr(incremental, "_NEAR_FROM", 0)  # the large tables' LPs, here
    if not balanced:
        monkeypatch.setattr(incremental, "_BALANCED", -1.0)  # no point balances
    real, calls = incremental._ResolvedLP.solve_on_pattern, []

    def watched(self, cost, lo, hi, *, vertex=True):
        x = real(self, cost, lo, hi, vertex=vertex)
        calls.append((vertex, x is not None))
        return x

    monkeypatch.setattr(incremental._ResolvedLP, "solve_on_pattern", watched)
    kept: list = []
    pattern = incremental.incremental_attacker(inst, order=[np.arange(inst.protected.size)],
                                               completions=kept)
    assert (False, balanced) in calls and (False, not balanced) not in calls[1:]
    assert interval_verdict(table, pattern, completions=kept).protected
    assert audit(table, pattern, requirement="interval").protected


def test_order_search_options_are_checked(tmp_path):
    table = g.smith_factors(8, 6, seed=1, sensitive=0.1)
    write_jj(table, tmp_path / "t.jj")
    with pytest.raises(InputError, match="operator"):
        cspopt.solve(table, method="ga", operator="shuffle")
    with pytest.raises(InputError, match="groups"):
        cspopt.solve(table, method="ls", groups=0)
    with pytest.raises(InputError, match="groups"):
        cspopt.solve(table, method="sp", groups=4)
    done = run("solve", str(tmp_path / "t.jj"), "--method", "castro", "--operator", "swap")
    assert done.returncode == 2 and "--operator" in done.stderr


def test_heuristic_options_are_refused_elsewhere():
    table = g.gensup_class1(10, 10, seed=1)
    with pytest.raises(InputError, match="clean"):
        cspopt.solve(table, clean=True)
    with pytest.raises(InputError, match="castro"):
        cspopt.solve(table, method="castro", start=[0])


@pytest.mark.parametrize("method", sorted(HEURISTICS))
def test_cli_prints_one_json_document(tmp_path, method):
    path = tmp_path / "table.jj"
    table = (g.gensup_class1(20, 20, seed=2) if method in ("hypercube", "pbp")
             else g.hierarchical_2d(20, 10, seed=1))
    write_jj(table, path)
    extra = ["--seed", "3"] if method in ("ga", "ls", "gensup") else []
    done = run("solve", str(path), "--method", method, "--clean", "--certify", "--json",
               "--time-limit", "30", *extra)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "feasible" and result["audit"]["protected"]
    assert 0 < result["lower_bound"] <= result["objective"]


def test_pbp_phase_one_leaves_no_single_suppression_in_a_line_without_sensitive_cells():
    """Almeida et al. (2008) §3.1, the end of phase 1: interchanges and substitutions."""
    from cspopt.heuristics.pbp import no_single_suppressions
    from cspopt.table.network import bipartite_graph

    table = g.gensup_class1(12, 12, seed=3)
    graph = bipartite_graph(table)
    rng = np.random.default_rng(0)
    candidate = ~table.sensitive
    capacity = np.minimum(table.values - table.apriori_lower,
                          table.apriori_upper - table.values)
    for _ in range(20):
        suppressed = table.sensitive | (candidate & (rng.random(table.num_cells) < 0.08))
        no_single_suppressions(suppressed, graph, candidate, capacity, table.costs,
                                table.sensitive)
        for node in (graph.row_node, graph.col_node):
            for line in np.unique(node):
                members = node == line
                if not table.sensitive[members].any():
                    assert suppressed[members].sum() != 1


@pytest.mark.parametrize("seed", range(4))
def test_capped_mips_protect_3d_tables_and_never_beat_the_optimum(seed):
    """Moves capped at the requirement make the attacker weaker than the table's, so each
    cell's MIP pattern protects that cell against the real attacker: the union needs no
    completion, passes the audit and costs at least the compact MIP's optimum."""
    from cspopt.solving import solve_interval

    rng = np.random.default_rng(seed)
    values = rng.integers(1, 30, size=(3, 3, 2)).astype(float)
    sensitive = rng.random(values.shape) < 0.2
    sensitive[0, 0, 0] = True
    table = cube_table(values, sensitive, "value", 0.25, 1.0)
    result = cspopt.solve(table, method="capped", clean=True)
    assert result.audit.protected and result.message == ""
    assert result.objective >= solve_interval(table).objective - 1e-9


# --- the n-dimensional hypercube (GHMITER) -----------------------------------------------

@pytest.mark.parametrize("table", [g.gensup_class1(12, 9, seed=0),
                                   g.gensup_class2(10, 14, seed=1),
                                   g.almeida_carvalho_set1(20, 20, seed=2)],
                         ids=["gensup1", "gensup2", "ac1"])
def test_the_grid_hypercube_is_the_rectangle_on_2d_tables(table):
    from cspopt.heuristics import hypercube_heuristic
    from cspopt.heuristics.hypercube_grid import grid_totals, hypercube_grid
    inst = build_interval_instance(table)
    rectangle = hypercube_heuristic(inst)
    cube = hypercube_grid(inst, *grid_totals(table))
    assert np.array_equal(cube.suppressed, rectangle.suppressed)
    assert cube.failed == rectangle.failed


@pytest.mark.parametrize("seed", range(3))
def test_each_hypercube_of_a_3d_grid_is_an_attacker_completion(seed):
    """Without any repair, the hypercubes the method picks protect their cells by the
    audit: each is a completion of every relation (signs along each dimension)."""
    from cspopt.heuristics.hypercube_grid import grid_totals, hypercube_grid
    rng = np.random.default_rng(seed)
    internal = rng.integers(20, 60, size=(3, 4, 3)).astype(float)
    table = cube_table(internal, rng.random(internal.shape) < 0.15, "value", 0.2, 1.0)
    shape, totals = grid_totals(table)
    assert shape == (4, 5, 4) and totals == (3, 4, 3)
    inst = build_interval_instance(table)
    found = hypercube_grid(inst, shape, totals)
    assert not found.failed and not found.stopped
    pattern = inst.candidates[found.suppressed > 0.5]
    assert audit(table, pattern, requirement="interval", cells="sensitive").protected
    # the corners of each hypercube: a sensitive cell and 2^3 - 1 others at most each
    assert pattern.size <= 7 * int(table.sensitive.sum())


@pytest.mark.parametrize("seed", [0, 2])
def test_the_hypercube_on_two_hierarchies_is_audited_and_never_below_the_optimum(seed):
    """GHMITER's frame: hypercubes subtable by subtable in Modular's order, then the whole
    table's audit and repair; its bound (certify) never above the proven optimum."""
    from cspopt.microdata.synthetic import hierarchical_survey
    from cspopt.solving import solve_branch_and_cut
    levels = {"region": (2, 2), "activity": (2, 2), "size": (2,)}
    columns, hierarchies = hierarchical_survey(levels, records=120, seed=seed)
    found = cspopt.protect(columns, list(levels), response="turnover",
                           rules="P(15)|FREQ(3,10)", hierarchies=hierarchies,
                           method="hypercube", certify=True)
    table, result = found.table, found.result
    assert result.method == "heuristic(hypercube)/subtables"
    assert result.model_size["subtables"] == 9
    optimum = solve_branch_and_cut(table)
    assert optimum.proven_optimal
    assert audit(table, result.suppressed, requirement="interval").protected
    assert result.lower_bound <= optimum.objective + 1e-6 <= result.objective + 2e-6


def test_the_hypercube_takes_a_csplib_cube_and_refuses_a_table_without_dimensions(
        shared_instances):
    from cspopt.io import read_table
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    result = cspopt.solve(table, method="hypercube", clean=True)
    assert result.has_pattern and audit(table, result.suppressed,
                                        requirement="interval").protected
    # CSPLIB's best pattern and bound (test_modular)
    assert result.lower_bound <= 10_044 and result.objective >= 9_279
    no_grid = Table([3, 1, 4, 2, 5, 1, 4], status=["u"] + ["s"] * 6, upper_protection=1,
                    relations=[[(0, 1), (1, 1), (2, -1)], [(0, 1), (3, 1), (4, -1)],
                               [(0, 1), (5, 1), (6, -1)]])
    with pytest.raises(InputError, match="needs a table whose cells form a grid"):
        cspopt.solve(no_grid, method="hypercube")


@pytest.mark.parametrize("table", [g.smith_factors(12, 10, seed=3, sensitive=0.15),
                                   g.hierarchical_2d(12, 6, seed=2)], ids=["2d", "1h2d"])
def test_incremental_attacker_reuses_completions_and_paces_itself(table, monkeypatch,
                                                                  caplog):
    """A side an earlier LP's completion meets takes no LP; under a budget the pace
    regroups the cells left when one at a time would not fit (forced here by a huge
    slack), and the pattern, found in fewer LPs, still passes the audit."""
    import logging

    from cspopt.budget import Budget
    from cspopt.heuristics import incremental

    inst = build_interval_instance(table)
    solves = []
    solve = incremental._ResolvedLP.solve

    def counted(self, *args):
        solves.append(1)
        return solve(self, *args)

    monkeypatch.setattr(incremental._ResolvedLP, "solve", counted)
    with caplog.at_level(logging.INFO, logger="cspopt.heuristics.incremental"):
        reused = incremental.incremental_attacker(inst)
    sides = int((inst.table.upper_protection[inst.protected] > 0).sum()
                + (inst.table.lower_protection[inst.protected] > 0).sum())
    assert len(solves) < sides and "sides met by earlier LPs' completions" in caplog.text
    assert audit(table, reused, requirement="interval").protected
    solves.clear()
    monkeypatch.setattr(incremental, "_PACE_AFTER", 1)
    monkeypatch.setattr(incremental, "_PACE_SLACK", 1e12)
    with caplog.at_level(logging.INFO, logger="cspopt.heuristics.incremental"):
        paced = incremental.incremental_attacker(inst, budget=Budget(3600.0))
    assert "groups" in caplog.text
    assert audit(table, paced, requirement="interval").protected


def test_the_pace_deals_the_cells_left_into_groups_in_turn():
    """Where one LP a side does not fit the time left, the cells left are dealt into as
    many groups as fit, in turn (cells next to each other in the table's order pull against
    each other in one LP); every cell stays, once."""
    from types import SimpleNamespace

    from cspopt.heuristics import incremental

    inst = build_interval_instance(g.almeida_carvalho_set1(8, 8, seed=0))
    covered = incremental._Covered(inst)
    lp = SimpleNamespace(budget=Budget(30.0), solves=4, seconds=4.0)  # 1 s an LP
    pending = [np.array([k]) for k in range(40)]
    groups = incremental._paced(pending, lp, covered)
    assert 1 < len(groups) < 40
    assert sorted(np.concatenate(groups).tolist()) == list(range(40))
    assert all(np.all(np.diff(group) == len(groups)) for group in groups if group.size > 1)
    lp.budget = Budget(3600.0)  # time for every side one at a time: left as it is
    assert incremental._paced(pending, lp, covered) is pending


def test_a_neighbourhood_lp_is_kept_only_where_pricing_proves_it_optimal(monkeypatch):
    """The repair's LP over a cell's neighbourhood (column generation's test, Dantzig &
    Wolfe 1960): where it is kept, its cost is the whole LP's, and it is a completion of
    the whole table (A x = 0), moving the cell by its target; so is the LP over the
    suppressed cells alone, where it has a solution (cost 0, as the whole LP's), and the
    whole LP by the interior point method (large tables) has the simplex's optimum; the
    attacker's pattern passes the audit."""
    from cspopt.heuristics import incremental
    from cspopt.microdata.protect import sensitive_table
    from cspopt.microdata.synthetic import hierarchical_survey

    monkeypatch.setattr(incremental, "_NEAR_FROM", 500)
    levels = {"region": (3, 3), "activity": (3, 3), "size": (6,)}
    columns, hierarchies = hierarchical_survey(levels, records=3000, seed=1)
    table = sensitive_table(columns, list(levels), response="turnover",
                            rules="P(15,1)|FREQ(3,10)", hierarchies=hierarchies)[0]
    inst = build_interval_instance(table)
    rng = np.random.default_rng(4)
    rel, nf = inst.relations, inst.free.size
    lp = incremental._ResolvedLP(incremental.sp.hstack([rel, -rel]).tocsr())
    monkeypatch.setattr(incremental, "_INTERIOR_FROM", 500)
    interior = incremental._ResolvedLP(lp.matrix)
    assert interior.resolver.interior and not lp.resolver.interior
    suppressed = rng.random(nf) < 0.4
    kept = on_pattern = 0
    for k, cell in enumerate(inst.protected.tolist()):
        p = int(np.searchsorted(inst.free, cell))
        target = max(table.upper_protection[cell], table.sliding_protection[cell])
        hi = np.concatenate([inst.up_room[np.array([k])].max(axis=0), inst.down_room])
        lo = np.zeros(2 * nf)
        hi[nf + p], lo[p], hi[p] = 0.0, target, target
        cost = np.tile(np.where(suppressed, 0.0, inst.weights[inst.free]), 2)
        near, whole = lp.solve_near(p, cost, lo, hi), lp.solve(cost, lo, hi)
        by_ipm = interior.solve(cost, lo, hi)
        assert (by_ipm is None) == (whole is None)
        if whole is not None:
            assert cost @ by_ipm == pytest.approx(cost @ whole, rel=1e-7, abs=1e-6)
            assert np.abs(rel @ (by_ipm[:nf] - by_ipm[nf:])).max() <= 1e-6
        free = lp.solve_on_pattern(cost, lo, hi)  # the suppressed cells alone
        if free is not None:
            on_pattern += 1
            assert cost @ free == 0 and cost @ whole == pytest.approx(0, abs=1e-6)
            assert np.abs(rel @ (free[:nf] - free[nf:])).max() <= 1e-6
            assert free[p] == pytest.approx(target)
        if near is not None:
            kept += 1
            assert cost @ near == pytest.approx(cost @ whole, rel=1e-7, abs=1e-6)
            assert np.abs(rel @ (near[:nf] - near[nf:])).max() <= 1e-6
            assert near[p] == pytest.approx(target)
    assert kept >= 10 and on_pattern >= 1
    proofs = []  # its local LPs kept where they prove, the others by interior point
    pattern = incremental.incremental_attacker(inst, completions=proofs)
    assert audit(table, pattern, requirement="interval").protected
    suppressed = np.union1d(pattern, np.flatnonzero(table.sensitive))
    assert proofs and all(np.isin(cells, suppressed).all() for cells, _ in proofs)


def test_the_attackers_batches_give_one_pattern_on_one_or_two_workers():
    """A run over workers (Smith et al. 2012's LPs in batches, each against the pattern its
    batch started from) gives the same audited pattern here and on a two-worker Dask
    cluster, from an empty start and from a partial pattern."""
    from cspopt.heuristics import incremental
    from cspopt.microdata.protect import sensitive_table
    from cspopt.microdata.synthetic import hierarchical_survey
    from cspopt.parallel import Workers

    levels = {"region": (2, 3), "activity": (3, 2), "size": (4,)}
    columns, hierarchies = hierarchical_survey(levels, records=2000, seed=3)
    table = sensitive_table(columns, list(levels), response="turnover",
                            rules="P(15,1)|FREQ(3,10)", hierarchies=hierarchies)[0]
    inst = build_interval_instance(table)
    start = inst.candidates[np.random.default_rng(2).random(inst.candidates.size) < 0.2]
    runs = {}
    for workers in (1, 2):
        with Workers(workers=workers) as pool:
            runs[workers] = [incremental.incremental_attacker(inst, suppressed=given,
                                                              pool=pool)
                             for given in ((), start)]
            if pool.parallel:  # the workers outlive the run: its models are dropped
                models = pool._client.run(lambda: len(__import__(
                    "cspopt.heuristics.incremental", fromlist=["_"])._WORKER_MODEL))
                assert set(models.values()) == {0}
    assert [r.tolist() for r in runs[1]] == [r.tolist() for r in runs[2]]
    for given, pattern in zip(((), start), runs[1]):
        assert np.isin(given, pattern).all()
        assert audit(table, pattern, requirement="interval").protected


@pytest.mark.parametrize("seed", [0, 1])
def test_the_cells_left_at_the_deadline_get_one_lp_a_side_before_every_candidate(
        monkeypatch, seed):
    """At the repair's deadline the cells left are protected together, by one LP a side past
    it (a bounded overrun), where suppressing every candidate was the answer: the pattern
    passes the audit and costs less; a caller without the fallback still gets ``None``."""
    from cspopt.heuristics import incremental

    monkeypatch.setattr(incremental._ResolvedLP, "out_of_time",  # the deadline: 3 LPs
                        lambda self: self.budget is not None and self.solves >= 3)
    table = g.almeida_carvalho_set1(8, 8, seed=seed)
    inst = build_interval_instance(table)
    found = incremental.incremental_attacker(inst, budget=Budget(3600.0))
    weights = inst.weights
    assert weights[found].sum() < weights[inst.candidates].sum()
    assert audit(table, found, requirement="interval", cells="sensitive").protected
    assert incremental.incremental_attacker(inst, budget=Budget(3600.0),
                                            fallback=False) is None


def test_a_batch_job_that_starts_past_the_deadline_stops_at_once():
    """A batch's jobs share one deadline on the wall clock: a job that starts late, behind
    others on its worker, gets what is left of the time, not the whole of it."""
    import time

    from cspopt.heuristics import incremental

    inst = build_interval_instance(g.almeida_carvalho_set1(8, 8, seed=0))
    rel = inst.relations
    lp = incremental._ResolvedLP(incremental.sp.hstack([rel, -rel]).tocsr(), cold=True)
    sides = incremental._plan(inst, np.array([0]), incremental._Covered(inst))
    suppressed = inst.table.sensitive[inst.free].copy()
    found, solves, _, stopped = incremental._counted_sides(
        lp, sides, inst.weights[inst.free], suppressed, False, time.time() - 1.0)
    assert found is None and solves == 0 and stopped
    found, solves, _, stopped = incremental._counted_sides(
        lp, sides, inst.weights[inst.free], suppressed, False, time.time() + 3600.0)
    assert found and solves and not stopped

"""Branch-and-cut with capacity constraints: cut validity, optima, bounds, audits."""

import itertools
import math
import time

import numpy as np
import pytest
from helpers import INSTANCES
from oracles import (
    brute_force_interval,
    cube_table,
    small_cube,
    tiny_interval_tables,
    tiny_shapes,
)

from cspopt import Table, audit
from cspopt.bounds.capacity import capacity_bound, capacity_lp, tails_off
from cspopt.budget import Budget
from cspopt.errors import InputError, SolverError
from cspopt.io import read_table
from cspopt.models.interval import (
    CapacityOracle,
    build_interval_instance,
    root_separators,
)
from cspopt.solving import solve_branch_and_cut, solve_interval
from cspopt.table.generators import (
    gensup_class1,
    gensup_class2,
    hierarchical_2d,
    smith_factors,
)


@pytest.mark.parametrize("separation", ["network", "lp"])
def test_ex1_and_pp_shadow_optima(separation):
    ex1 = read_table(INSTANCES / "ex1.jj").replace(costs="value")
    result = solve_branch_and_cut(ex1, separation=separation)
    assert result.suppressed == (4, 10, 11) and result.objective == 1950
    assert result.proven_optimal and result.audit.protected and result.lower_bound == 1950
    # hierarchical rows: a network once the subtotal rows' relations are dropped
    pp = read_table(INSTANCES / "pp_shadow.jj")
    result = solve_branch_and_cut(pp, separation=separation)
    assert result.objective == 621 and result.proven_optimal and result.audit.protected
    assert result.method.endswith(separation)
    if separation == "lp":
        assert solve_branch_and_cut(pp, weights="value").objective == 521926


def test_network_separation_refuses_non_network_tables():
    with pytest.raises(InputError, match="network"):
        solve_branch_and_cut(small_cube(), separation="network")


def _all_patterns_judged(table, rng):
    """decide() and protects() agree with the audit on every 0/1 point, for both separations,
    and each cut separated at a random fractional point holds at every protecting 0/1
    point."""
    inst = build_interval_instance(table, preprocessing=False)
    ny = inst.candidates.size
    patterns = [np.array(bits, float) for bits in itertools.product((0, 1), repeat=ny)]
    safe = [y for y in patterns if audit(table, inst.candidates[y > 0.5],
                                         requirement="interval", cells="sensitive").protected]
    for method in ("network", "lp"):
        oracle = CapacityOracle(inst, method=method)
        for y in patterns:
            expected = any(np.array_equal(y, s) for s in safe)
            assert oracle.separate(y, decide=True)[0] == expected, (table.values, method, y)
            assert oracle.protects(y) == expected, (table.values, method, y)
        for _ in range(5):
            _, cuts = oracle.separate(rng.random(ny))
            for cut in cuts:
                assert all(cut.activity(s) >= 1 - 1e-9 for s in safe)


def test_capacity_cuts_are_valid_for_every_protecting_pattern():
    rng = np.random.default_rng(11)
    for table in tiny_interval_tables(3, 15, max_free=8):
        _all_patterns_judged(table, rng)


def test_sliding_protection_counts_the_cells_own_bounds():
    """A width ``spl`` beyond the room on one side of the cell (a zero cell cannot fall, a
    cell at its ``ub`` cannot rise): that side gives only its room. Regression: the minimum
    cut credited it with the other cells' flow and called exposing patterns protected."""
    rng = np.random.default_rng(2)
    shapes = tiny_shapes(rng, values=(0, 4), density=0.35, max_free=8)
    for _, (data, sens) in zip(range(12), shapes):
        table = Table.from_array(data, sensitive=sens, costs="unit")
        a = table.values
        rise = np.where(rng.random(a.size) < 0.5, a + 1, np.inf)
        _all_patterns_judged(table.replace(sliding_protection=np.where(table.sensitive, a + 1, 0),
                                           apriori_upper=rise), rng)


def test_optimum_equals_brute_force_and_compact_model():
    for table in tiny_interval_tables(7, 30):
        expected = brute_force_interval(table)
        for separation in ("network", "lp"):
            result = solve_branch_and_cut(table, separation=separation)
            if math.isinf(expected):
                assert result.status == "infeasible"
                continue
            assert result.proven_optimal and result.objective == pytest.approx(expected)
            assert result.audit.protected and result.lower_bound <= expected + 1e-9
            if np.array_equal(table.costs, np.round(table.costs)):  # a bound, rounded up
                assert result.lower_bound == result.objective
        root = capacity_bound(table)
        if math.isfinite(expected):
            assert solve_interval(table).objective == pytest.approx(expected)
            assert root.status == "bound_only" and root.lower_bound <= expected + 1e-9
        else:
            assert root.status == "infeasible"


@pytest.mark.parametrize("make", [lambda: gensup_class1(20, 10, seed=0),
                                  lambda: gensup_class2(8, 6, seed=3),
                                  lambda: hierarchical_2d(6, 4, seed=0),
                                  lambda: smith_factors(8, 6, seed=1),
                                  lambda: read_table(INSTANCES / "pp_shadow.jj")])
def test_lp_bounds_agree_with_the_compact_model(make):
    """Plain Benders cuts give the compact LP bound (both cap the rooms at the requirement on
    tables with a network form: ``IntervalInstance.rooms``); cuts capped at their
    right-hand side give at least that; the optimum of branch-and-cut equals the compact
    MIP's."""
    table = make()
    inst = build_interval_instance(table)
    compact_lp = solve_interval(table, relax=True).lower_bound
    plain, _, _, converged = capacity_lp(inst, CapacityOracle(inst, method="lp",
                                                              strengthen=False))
    # separation stops at violations below 1e-6 (relative), hence the tolerance
    assert converged and plain == pytest.approx(compact_lp, rel=1e-5, abs=1e-6)
    capped, _, _, converged = capacity_lp(inst, CapacityOracle(inst))
    assert converged and capped >= compact_lp - 1e-6
    compact = solve_interval(table)  # proofs asserted: no wall-clock limit
    bc = solve_branch_and_cut(table)
    assert compact.proven_optimal and bc.proven_optimal
    assert bc.objective == pytest.approx(compact.objective)
    assert capped <= bc.objective + 1e-6 and bc.audit.protected


def test_csplib_table8_optimum(shared_instances):
    table = read_table(shared_instances / "csplib" / "table8.jj")
    result = solve_branch_and_cut(table)  # a proof asserted: no wall-clock limit
    assert result.proven_optimal and result.objective == 103 and result.audit.protected
    assert result.history[0]["upper_bound"] >= 103  # bounds are reported as they move
    lows = [h["lower_bound"] for h in result.history]
    assert lows == sorted(lows) and max(lows) == 103


def test_start_pattern_must_protect():
    ex1 = read_table(INSTANCES / "ex1.jj").replace(costs="value")
    with pytest.raises(InputError, match="does not protect"):
        solve_branch_and_cut(ex1, mip_start=[4])
    from cspopt.errors import PatternError
    with pytest.raises(PatternError):
        solve_branch_and_cut(ex1, mip_start=[4, 99])
    result = solve_branch_and_cut(ex1, mip_start=[4, 10, 11, 12])
    assert result.objective == 1950 and result.history[0]["phase"] == "start"


def test_prune_equals_full_delete_and_check():
    """Re-judging only the cells whose proof used the removed cell gives the same pattern
    as re-checking everything after each removal, and the result is minimal."""
    rng = np.random.default_rng(4)
    for table in [gensup_class2(8, 6, seed=3), hierarchical_2d(6, 4, seed=0),
                  *tiny_interval_tables(9, 10)]:
        inst = build_interval_instance(table)
        for method in ("network", "lp"):
            try:
                oracle = CapacityOracle(inst, method=method)
            except InputError:
                continue
            ny = inst.candidates.size
            full = np.ones(ny)
            if not oracle.separate(full, decide=True)[0]:
                continue
            order = rng.permutation(ny)
            naive = full.copy()
            for j in order:
                naive[j] = 0.0
                if not oracle.separate(naive, decide=True)[0]:
                    naive[j] = 1.0
            pruned = oracle.prune(full, order)
            assert np.array_equal(pruned, naive)
            pattern = inst.candidates[pruned > 0.5]
            assert audit(table, pattern, requirement="interval", cells="sensitive").protected


def test_relation_cuts_hold_at_every_protecting_pattern():
    """The single-relation cuts of the first master are valid for binary ``y``: on tiny 2-D
    tables (attacker LPs) and 3-D tables with a-priori upper bounds of 1e6, as the CSPLIB
    tables (most cells published, so that every pattern of the rest is enumerated), each
    holds at every protecting pattern, and the root bound they start stays at most the
    optimum. On a whole cube some are violated at fractional points where separation finds
    nothing (capped, where the attacker LP's rooms are not; on tables with a network form
    both are capped); networks get none (minimum cuts cap already)."""
    rng = np.random.default_rng(5)
    checked = 0
    for table, published, inst, safe in _enumerated_tables(rng):
        oracle = CapacityOracle(inst, method="lp")
        cuts = oracle.relation_cuts()
        for cut in cuts:
            assert cut.rhs == 1.0 and cut.candidates.size
            assert all(cut.activity(s) >= 1 - 1e-9 for s in safe), (table.values, cut)
        checked += len(cuts)
        if published is None:
            assert CapacityOracle(inst, method="network").relation_cuts() == []
        bound = capacity_lp(inst, CapacityOracle(inst, method="lp"), max_rounds=50)[0]
        weights = inst.weights[inst.candidates]
        assert bound <= min((weights @ s for s in safe), default=math.inf) + 1e-6
    assert checked >= 40
    cube = small_cube().replace(apriori_upper=1e6)
    inst = build_interval_instance(cube, preprocessing=False)
    oracle = CapacityOracle(inst, method="lp")
    cuts = oracle.relation_cuts()
    beyond = 0
    for _ in range(8):
        y = rng.random(inst.candidates.size) * rng.uniform(0.01, 0.5)
        beyond += any(cut.activity(y) < 1 - 1e-6 for cut in cuts) and not oracle.separate(y)[1]
    assert beyond >= 1


def _enumerated_tables(rng):
    """``(table, published, instance, protecting patterns)``: tiny 2-D tables and 3-D tables
    with a-priori upper bounds of 1e6, as the CSPLIB tables, most cells published, so that
    every pattern of the rest is enumerated."""
    tables = [(t, None) for t in tiny_interval_tables(seed=4, count=8, max_free=8)]
    while len(tables) < 16:
        sensitive = rng.random((2, 2, 2)) < 0.25
        if not sensitive.any():
            continue
        cube = cube_table(rng.integers(1, 20, (2, 2, 2)), sensitive, "value", 0.3, 1.0)
        cube = cube.replace(apriori_upper=np.full(cube.values.size, 1e6))
        others = np.flatnonzero(~cube.sensitive)
        tables.append((cube, rng.choice(others, others.size - 7, replace=False)))
    for table, published in tables:
        inst = build_interval_instance(table, must_publish=published, preprocessing=False)
        ny = inst.candidates.size
        if not inst.protected.size or not ny:
            continue
        safe = [y for y in map(np.array, itertools.product((0.0, 1.0), repeat=ny))
                if audit(table, inst.candidates[y > 0.5], requirement="interval",
                         cells="sensitive").protected]
        yield table, published, inst, safe


def _protectable_cubes(rng, count: int):
    """``count`` of ``(table, published, instance, protecting patterns)``: 2x2x2 tables with
    every margin and a-priori upper bounds of 1e6, as the CSPLIB tables (whose relations
    have circuits that move a margin twice as far as a cell), the internal cells and three
    margins free, so that every pattern is enumerated, and some pattern protecting."""
    shape = (2, 2, 2)
    margin = np.ones(np.add(shape, 1), dtype=bool)
    margin[:2, :2, :2] = False
    margins = np.flatnonzero(margin.ravel())
    made = 0
    while made < count:
        sensitive = rng.random(shape) < 0.3
        if not sensitive.any():
            continue
        cube = cube_table(rng.integers(1, 20, shape), sensitive, "value", 0.3, 1.0)
        cube = cube.replace(apriori_upper=np.full(cube.values.size, 1e6))
        published = rng.choice(margins, margins.size - 3, replace=False)
        inst = build_interval_instance(cube, must_publish=published, preprocessing=False)
        ny = inst.candidates.size
        if not inst.protected.size or not CapacityOracle(inst).protects(np.ones(ny)):
            continue
        safe = [y for y in map(np.array, itertools.product((0.0, 1.0), repeat=ny))
                if audit(cube, inst.candidates[y > 0.5], requirement="interval",
                         cells="sensitive").protected]
        made += 1
        yield cube, published, inst, safe


def test_capped_search_cuts_hold_at_every_protecting_pattern():
    """The capped search (attacker moves capped at the requirement, then the true rooms
    where its cut is not violated) gives only capacity cuts built from true rooms: at
    random fractional points of :func:`_protectable_cubes` (where the cap is a search, not a
    relaxation) every cut is violated where it is returned and holds at every protecting
    pattern, and the loop's bound stays at most the optimum."""
    rng = np.random.default_rng(7)
    checked = 0
    for cube, _, inst, safe in _protectable_cubes(rng, 6):
        ny = inst.candidates.size
        oracle = CapacityOracle(inst)
        for _ in range(12):
            y = np.clip(rng.random(ny) * rng.uniform(0.1, 1.2), 0.0, 1.0)
            for cut in oracle.separate(y, capped_search=True)[1]:
                assert cut.activity(y) < cut.rhs
                assert all(cut.activity(s) >= cut.rhs - 1e-9 for s in safe), (cube.values, cut)
                checked += 1
        points = []
        oracle = CapacityOracle(inst)
        bound, y, _, converged = capacity_lp(
            inst, oracle, separators=root_separators(oracle, capped_search=True),
            points=points.append)
        optimum = min(inst.weights[inst.candidates] @ s for s in safe)
        assert converged and bound <= optimum + 1e-6 and np.array_equal(points[-1], y)
    assert checked >= 20


def test_a_round_cut_short_by_the_deadline_proves_nothing(shared_instances):
    """At its deadline the oracle stops a round with the cuts found so far: it claims no
    protection, and the loop claims no convergence, only the master's valid bound."""
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    inst = build_interval_instance(table)
    oracle = CapacityOracle(inst)
    past = Budget.ending_at(time.perf_counter() - 1.0)
    assert oracle.separate(np.ones(inst.candidates.size), budget=past) == (False, [])
    bound, _, cuts, converged = capacity_lp(inst, oracle, budget=past)
    assert not converged and 0.0 <= bound <= 10_044 and not cuts[len(  # a known pattern
        oracle.relation_cuts() + oracle.relation_bridgeless_cuts()):]


def test_relation_bridgeless_cuts_hold_at_every_minimal_pattern():
    """The single-relation bridgeless cuts ``y_i <= sum_{j in r, j != i} y_j`` cut off only
    patterns with a computable suppression: every protecting pattern, made minimal, still
    protects and meets them all, and the root bound they start stays at most the optimum;
    with the rest of its relation published, the audit finds each cut's cell computable."""
    checked = 0
    for table, _, inst, safe in _enumerated_tables(np.random.default_rng(5)):
        oracle = CapacityOracle(inst, method="lp")
        cuts = oracle.relation_bridgeless_cuts()
        # a sensitive cell left out of the requirements (a search's sub-instance) stays
        # suppressed: it holds its relations open as a protected one does
        part = inst.keep(np.arange(inst.protected.size) > 0)
        for s in safe:
            for minimal in (inst.minimal(s), part.minimal(s)):
                assert np.all(minimal <= s)
                assert audit(table, inst.candidates[minimal > 0.5], requirement="interval",
                             cells="sensitive").protected
            assert all(cut.activity(inst.minimal(s)) >= -1e-9 for cut in cuts)
        for cut in cuts:
            assert cut.rhs == 0.0 and inst.candidates[cut.candidates[-1]] == cut.cell
            pattern = np.setdiff1d(inst.candidates, inst.candidates[cut.candidates[:-1]])
            cell = audit(table, pattern, requirement="interval").cell(cut.cell)
            assert not cell.can_decrease and not cell.can_increase
        checked += len(cuts)
        bound = capacity_lp(inst, CapacityOracle(inst, method="lp"), max_rounds=50)[0]
        weights = inst.weights[inst.candidates]
        assert bound <= min((weights @ s for s in safe), default=math.inf) + 1e-6
    assert checked >= 40


def test_bridgeless_cuts_only_cut_off_computable_suppressions():
    """A bridgeless cut ``y_i <= sum_{j in S} y_j`` claims that with ``S`` published cell
    ``i`` is computable whatever else is suppressed: the audit's attacker LPs confirm it
    with every other candidate suppressed. At random fractional points of tiny 2-D tables
    (on attacker LPs) and 3-D tables; the root bound with these cuts stays at most the
    brute-force optimum. A separation whose budget has ended solves no LP; one within its
    budget finds the cuts an unbudgeted one does."""
    rng = np.random.default_rng(11)
    tables = list(tiny_interval_tables(seed=9, count=20)) + [
        cube_table(rng.integers(1, 20, (2, 3, 2)), rng.random((2, 3, 2)) < 0.3, "value",
                   0.25, 1.0) for _ in range(4)]
    checked = 0
    for table in tables:
        inst = build_interval_instance(table)
        if not inst.protected.size or not inst.candidates.size:
            continue
        oracle = CapacityOracle(inst, method="lp")
        unbudgeted = CapacityOracle(inst, method="lp")  # the same points, no budget
        for _ in range(8):
            y = np.clip(rng.random(inst.candidates.size) * rng.uniform(0.3, 1.5), 0.0, 1.0)
            before = oracle.num_lp_solves
            assert oracle.bridgeless_cuts(y, budget=Budget(1e-9)) == []  # ended: no LP
            assert oracle.num_lp_solves == before
            cuts = oracle.bridgeless_cuts(y, budget=Budget(600))
            assert [c.cell for c in cuts] == [c.cell for c in unbudgeted.bridgeless_cuts(y)]
            for cut in cuts:
                assert cut.rhs == 0.0 and cut.coefficients[-1] == -1.0
                assert inst.candidates[cut.candidates[-1]] == cut.cell
                pattern = np.setdiff1d(inst.candidates, inst.candidates[cut.candidates[:-1]])
                cell = audit(table, pattern, requirement="interval").cell(cut.cell)
                assert not cell.can_decrease and not cell.can_increase
                checked += 1
        if inst.candidates.size <= 12:
            bound, _, _, _ = capacity_lp(inst, CapacityOracle(inst, method="lp"))
            assert bound <= brute_force_interval(table) + 1e-6
    assert checked >= 20


def test_remembered_proofs_change_no_verdict_at_fractional_points():
    """A flow or LP point remembered from earlier points settles a cell only where ``y``
    leaves room for every move it makes: an oracle that has seen many points finds cuts for
    exactly the requirements a fresh oracle finds violated."""
    rng = np.random.default_rng(7)
    for table in [gensup_class1(20, 20, seed=2), gensup_class2(10, 8, seed=3),
                  hierarchical_2d(8, 6, seed=1)]:
        inst = build_interval_instance(table)
        ny = inst.candidates.size
        for method in ("network", "lp"):
            try:
                warmed = CapacityOracle(inst, method=method)
            except InputError:
                continue
            points = [np.clip(rng.random(ny) * rng.uniform(0.5, 2.0), 0, 1) for _ in range(40)]
            for y in points:
                warmed.separate(y)
            for y in points[::-1]:
                fresh = CapacityOracle(inst, method=method)
                verdict, cuts = warmed.separate(y)
                fresh_verdict, fresh_cuts = fresh.separate(y)
                assert verdict == fresh_verdict
                assert {(c.cell, c.requirement) for c in cuts} == {
                    (c.cell, c.requirement) for c in fresh_cuts}


def test_strict_ons_protection():
    """Smith et al. (2012) §II-A: ranges must pass a - lpl and a + upl strictly."""
    from cspopt.errors import InfeasibleProtectionError

    for table in (gensup_class2(8, 6, seed=3), read_table(INSTANCES / "ex1.jj")):
        strict = table.with_strict_protection()
        result = solve_branch_and_cut(strict)
        assert result.proven_optimal and result.audit.protected
        plain = solve_branch_and_cut(table)
        assert result.objective >= plain.objective
        verdict = audit(table, result.suppressed, requirement="interval", cells="sensitive")
        for cell in verdict.cells:
            if cell.sensitive and table.upper_protection[cell.cell] > 0:
                assert cell.high > cell.required_high and cell.low < cell.required_low
    tight = Table.from_array([[10, 20], [30, 40]], sensitive=[[1, 0], [0, 0]],
                             lower_protection=[[10, 0], [0, 0]])
    with pytest.raises(InfeasibleProtectionError, match="lower protection 11"):
        tight.with_strict_protection()
    with pytest.raises(InputError, match="explicit step"):
        Table.from_array([[1.5, 2]], sensitive=[[1, 0]],
                         upper_protection=[[1, 0]]).with_strict_protection()


def test_errors_inside_scip_callbacks_surface_and_the_incumbent_stands(monkeypatch):
    """An exception inside a SCIP callback stops the tree and is named in the result's
    message (termination ``error``); the pattern found before it is returned, audited."""
    import cspopt.solving.interval_phases as phases

    table = read_table(INSTANCES / "pp_shadow.jj")
    inside = {"scip": False}
    original, run_scip = CapacityOracle.separate, phases.run_capacity_scip

    def failing(self, y, **kw):
        if inside["scip"]:  # past the heuristics and the root LP
            raise RuntimeError("boom")
        return original(self, y, **kw)

    def entering(*args, **kw):
        inside["scip"] = True
        return run_scip(*args, **kw)

    monkeypatch.setattr(CapacityOracle, "separate", failing)
    monkeypatch.setattr(phases, "run_capacity_scip", entering)
    result = solve_branch_and_cut(table, weights="value")  # unit weights close at the root
    assert inside["scip"] and result.termination == "error" and "boom" in result.message
    assert result.has_pattern and audit(table, result.suppressed).protected


def test_top_level_solve_dispatches_interval_protection():
    import cspopt

    ex1 = read_table(INSTANCES / "ex1.jj")
    auto = cspopt.solve(ex1, weights="value")  # default: interval, as the CLI and certify
    assert auto.method.startswith("bc(FS)") and auto.objective == 1950 and auto.proven_optimal
    assert auto.audit.requirement == "interval"
    compact = cspopt.solve(ex1, protection="interval", method="mip", weights="value")
    assert compact.method.startswith("mip(FS)") and compact.objective == 1950
    exact = cspopt.solve(ex1, protection="exact", weights="value")
    assert exact.model in ("P", "PN") and exact.audit.protected
    with pytest.raises(InputError, match="method"):
        cspopt.solve(ex1, protection="interval", method="lagrangian")
    with pytest.raises(InputError, match="tau"):
        cspopt.solve(ex1, protection="interval", tau=1.0)


def test_publish_totals_and_zeros_apply_to_interval_protection():
    """They become must-publish cells (the CLI ignored them for intervals before)."""
    import cspopt
    from cspopt.cli import main
    from cspopt.table import total_cells

    table = hierarchical_2d(6, 4, seed=0)
    free = cspopt.solve(table)
    assert free.proven_optimal and total_cells(table)[list(free.suppressed)].any()
    kept = cspopt.solve(table, publish_totals=True)  # every pattern needs a total here
    ids = np.flatnonzero(total_cells(table))
    assert kept.status == cspopt.solve(table, must_publish=ids).status == "infeasible"
    both = cspopt.solve(table, publish_zeros=True)
    assert both.proven_optimal and both.audit.protected
    assert not (table.values[list(both.suppressed)] == 0).any()
    zeros = cspopt.solve(table, must_publish=np.flatnonzero(table.values == 0))
    assert both.objective == zeros.objective and both.lower_bound <= zeros.objective
    ex1 = str(INSTANCES / "ex1.jj")
    assert main(["solve", ex1, "--weights", "value", "--publish-totals"]) == 0
    assert main(["solve", ex1, "--tau", "1"]) == 2  # exact-disclosure flag: refused
    assert main(["certify", ex1, "--suppress", "4,10,11", "--iterations", "5"]) == 2


def test_lp_guided_attacker_is_safe_and_never_below_the_optimum(shared_instances):
    """The sequential heuristic guided by the root LP point (tau-ARGUS' engine): its pattern
    passes the audit on every tiny table, costs at least the brute-force optimum, and on
    hier13x7x7d starts the search below the plain incremental attacker's pattern."""
    from cspopt.heuristics import incremental_attacker, lp_guided_attacker

    for table in tiny_interval_tables(seed=21, count=25):
        inst = build_interval_instance(table)
        if not inst.protected.size:
            continue
        oracle = CapacityOracle(inst)
        _, y, _, _ = capacity_lp(inst, oracle)
        pattern = lp_guided_attacker(inst, y)
        checked = audit(table, pattern, requirement="interval", cells="sensitive")
        optimum = brute_force_interval(table)
        if math.isinf(optimum):
            continue
        assert checked.protected
        assert inst.weights[pattern].sum() >= optimum - 1e-9
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    inst = build_interval_instance(table)
    # the branch-and-cut's root point (no bridgeless cuts: it converges in seconds)
    oracle = CapacityOracle(inst)
    _, y, _, _ = capacity_lp(inst, oracle, budget=Budget(20),
                             separators=root_separators(oracle, bridgeless=False))
    guided, plain = lp_guided_attacker(inst, y), incremental_attacker(inst)
    assert audit(table, guided, requirement="interval", cells="sensitive").protected
    assert inst.weights[guided].sum() < inst.weights[plain].sum()
    # past its budget's end: no pattern
    assert lp_guided_attacker(inst, y, budget=Budget.ending_at(0.0)) is None


@pytest.mark.slow
def test_neighbourhood_search_is_safe_and_improves_hier13x7x7d(shared_instances):
    """The restricted branch-and-cut around the root LP's support and the incumbent: on tiny
    tables its pattern protects the whole table and costs at least the brute-force optimum;
    on hier13x7x7d it improves the LP-guided pattern it starts from (11,022 -> 10,697 in a
    150 s solve)."""
    from cspopt.heuristics import lp_guided_attacker
    from cspopt.solving.neighbourhoods import search_support

    def search(inst, seconds, time_limit=None):
        budget = Budget(seconds)
        oracle = CapacityOracle(inst, method="lp")
        _, y, _, _ = capacity_lp(  # the branch-and-cut's root point
            inst, oracle, budget=Budget(time_limit),
            separators=root_separators(oracle, bridgeless=False))
        guided = lp_guided_attacker(inst, y)
        start = np.isin(inst.candidates, guided).astype(float)
        return start, search_support(inst, y, [start], start, solve=solve_branch_and_cut,
                                     lower_bound=0.0, budget=budget)

    searched = 0
    for table in tiny_interval_tables(seed=5, count=25):
        inst = build_interval_instance(table)
        optimum = brute_force_interval(table)
        if not inst.protected.size or math.isinf(optimum):
            continue
        start, found = search(inst, None)
        if found is None:
            continue
        searched += 1
        pattern = inst.candidates[found > 0.5]
        assert audit(table, pattern, requirement="interval", cells="sensitive").protected
        assert inst.weights[inst.candidates] @ found >= optimum - 1e-9
    assert searched >= 5
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    inst = build_interval_instance(table)
    start, found = search(inst, 35, time_limit=20)
    weights = inst.weights[inst.candidates]
    assert found is not None and weights @ found < weights @ start
    assert audit(table, inst.candidates[found > 0.5], requirement="interval",
                 cells="sensitive").protected


@pytest.mark.slow
def test_balls_fix_the_rest_of_the_pattern_and_improve_hier13x7x7d(shared_instances):
    """``FixedOutside`` states the incumbent's restriction to a region as a problem of its
    own whose optimum, inverted, is the best pattern that agrees with the incumbent outside
    the region (brute force over the region's cells on tiny tables); the sweep of balls
    improves hier13x7x7d's incremental-attacker pattern, every pattern it offers
    protecting."""
    from cspopt.models.interval import FixedOutside
    from cspopt.solving.neighbourhoods import relation_ball, search_balls

    rng = np.random.default_rng(2)
    checked = 0
    for table in tiny_interval_tables(seed=8, count=30):
        inst = build_interval_instance(table, preprocessing=False)
        if not inst.protected.size or inst.candidates.size < 4:
            continue
        everything = audit(table, inst.candidates, requirement="interval", cells="sensitive")
        if not everything.protected:
            continue
        incumbent = inst.candidates  # suppressing every candidate protects
        region = rng.choice(inst.candidates, inst.candidates.size // 2, replace=False)
        local = FixedOutside(table, region, incumbent)
        local_table, must_publish = local.apply()
        found = solve_branch_and_cut(local_table, weights=inst.weights,
                                     must_publish=must_publish, mip_start=local.start)
        best = min((inst.weights[list(set(incumbent) - set(region)) + list(chosen)].sum()
                    for n in range(region.size + 1)
                    for chosen in itertools.combinations(region.tolist(), n)
                    if audit(table, list(set(incumbent) - set(region)) + list(chosen),
                             requirement="interval", cells="sensitive").protected))
        pattern = local.invert(found.suppressed)
        assert set(pattern) - set(region) == set(incumbent) - set(region)
        assert inst.weights[list(pattern)].sum() == pytest.approx(best)
        assert audit(table, pattern, requirement="interval", cells="sensitive").protected
        checked += 1
    assert checked >= 5
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    inst = build_interval_instance(table)
    by_relation = table.relation_matrix.tocsr()
    eligible = np.zeros(table.num_cells, bool)
    eligible[inst.candidates] = True
    ball = relation_ball(by_relation.tocsc(), by_relation, int(inst.protected[0]), eligible, 50,
                         rng)
    assert ball.size == 50 and eligible[ball].all()
    from cspopt.heuristics import incremental_attacker

    start = np.isin(inst.candidates, incremental_attacker(inst)).astype(float)
    offered = []

    def offer(pattern):
        assert audit(table, inst.candidates[pattern > 0.5], requirement="interval",
                     cells="sensitive").protected
        offered.append(pattern)
        return pattern

    search_balls(inst, start, solve=solve_branch_and_cut, offer=offer,
                 budget=Budget(40))
    weights = inst.weights[inst.candidates]
    assert offered and weights @ offered[-1] < weights @ start

    def failing(*args, **options):
        raise SolverError("SCIP failed inside a restriction")

    # a restriction that fails ends no solve: balls of each size are tried until they stall
    # (0.6, then 0.75 of the candidates) and nothing is offered
    from cspopt.solving.neighbourhoods import STALLED_BALLS

    offered.clear()
    assert search_balls(inst, start, solve=failing, offer=offer, budget=Budget()) == \
        2 * min(inst.protected.size, STALLED_BALLS)
    assert not offered


def test_batched_flows_equal_one_flow_per_cell_on_the_whole_network():
    """The flows of one separation run in one call on copies of the network of the cells
    with ``y > 0``: each copy's value is that cell's own maximum flow on the whole network
    (zero-capacity arcs included), capped at its requirement, and its minimum cut has the
    capacity of that flow."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    rng = np.random.default_rng(3)
    for table in [gensup_class1(20, 20, seed=2), gensup_class2(12, 9, seed=3)]:
        inst = build_interval_instance(table)
        oracle = CapacityOracle(inst, method="network")
        net, nf = oracle.network, oracle.num_free
        assert np.array_equal(inst.room_cap, inst.requirement_unit)
        for _ in range(5):
            y_candidates = np.where(rng.random(inst.candidates.size) < 0.3,
                                    rng.random(inst.candidates.size), 0.0)
            y = inst.free_levels(y_candidates)
            ks = list(range(inst.protected.size))
            batched = oracle.flows.sides(
                [(k, side) for k in ks for side in ("upper", "lower")], y)
            for k in ks:
                need = inst.room_cap[k]  # the largest requirement (no sliding ones here)
                down, up = inst.rooms(k)  # capped at it
                full = np.concatenate([up, down])
                scale = 1e6 / need  # an integer where it can be: integer data stay exact
                scale = np.floor(scale) if scale >= 1 else scale
                units = np.floor(full * np.concatenate([y, y]) * scale + 1e-6)
                p = oracle.position[k]
                units[[p, p + nf]] = 0
                arcs = (oracle.flows.arc_from, oracle.flows.arc_to)
                whole = csr_matrix((units.astype(np.int32), arcs),
                                   shape=(net.num_nodes, net.num_nodes))  # sums parallels
                whole = (whole + 0 * whole.T).tocsr()  # every arc's reverse present
                cell = inst.protected[k]
                for side, (s, t) in (("upper", (net.head[cell], net.tail[cell])),
                                     ("lower", (net.tail[cell], net.head[cell]))):
                    if side not in batched[k]:
                        continue
                    found = batched[k][side]
                    flow = min(maximum_flow(whole, int(s), int(t)).flow_value, 1e6) / scale
                    own = full[p] if side == "upper" else full[p + nf]  # p's own room
                    assert found.attained == pytest.approx(min(flow, own))
                    if found.attained < need - 1e-9 and own >= flow:
                        assert found.capacity @ y == pytest.approx(found.attained, rel=1e-5,
                                                                   abs=1e-6 * need)


def test_the_root_loop_tails_off_only_after_its_first_seconds():
    """The branch-and-cut's root loop stops when the last fifth of its time raised the
    master's value by less than 1 %, and never in its first 10 s (small tables converge
    there)."""
    flat = [1202686.0] * 40
    assert not tails_off([0.25 * i for i in range(40)], flat)  # 9.75 s
    assert tails_off([0.3 * i for i in range(40)], flat)  # 11.7 s
    # the last fifth of 11.7 s is 8 rounds: 1 % a round goes on, 0.1 % a round stops
    rising = [1e6 * (1 + 0.01 * i) for i in range(40)]
    assert not tails_off([0.3 * i for i in range(40)], rising)
    slow = [1e6 * (1 + 0.001 * i) for i in range(40)]
    assert tails_off([0.3 * i for i in range(40)], slow)


def _solved_cubes(seed: int):
    """The branch-and-cut's results on 3x3x2 tables with every margin and a-priori upper
    bounds of 1e6 (as the CSPLIB tables), each checked first: optimal, its pattern passes
    the audit, and bound <= the compact MIP's optimum <= its pattern's cost, both equal."""
    rng = np.random.default_rng(seed)
    while True:
        sensitive = rng.random((3, 3, 2)) < 0.2
        if not sensitive.any():
            continue
        cube = cube_table(rng.integers(1, 20, (3, 3, 2)), sensitive, "value", 0.3, 1.0)
        cube = cube.replace(apriori_upper=np.full(cube.values.size, 1e6))
        result = solve_branch_and_cut(cube)
        optimum = solve_interval(cube).objective
        assert result.status == "optimal" and result.audit.protected
        assert result.lower_bound <= optimum + 1e-6 <= result.objective + 2e-6
        assert result.objective == pytest.approx(optimum)
        yield result


def test_a_root_that_tails_off_goes_on_with_the_capped_search(monkeypatch):
    """Where the root loop tails off unconverged on a table that is not a network, the
    capped search goes on from its cuts (the root made to tail off after its first
    master), every time."""
    import cspopt.bounds.capacity as capacity

    monkeypatch.setattr(capacity, "tails_off", lambda times, values: True)
    for result in itertools.islice(_solved_cubes(seed=3), 6):
        assert "capped_search" in result.timings


def test_the_bridgeless_phase_with_the_capped_search():
    """Where the root converges, the bridgeless phase separates with the capped search
    too; its cuts keep the compact MIP's optimum (at least 4 of 8 tables go through it)."""
    through = sum("bridgeless" in result.timings
                  for result in itertools.islice(_solved_cubes(seed=5), 8))
    assert through >= 4

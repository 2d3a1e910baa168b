"""Interval protection (Fischetti–Salazar compact model): optima, routes, audits, errors."""

import math

import numpy as np
import pytest
from helpers import INSTANCES
from oracles import brute_force_interval, small_cube, tiny_interval_tables, tiny_shapes

from cspopt import Table, audit
from cspopt.errors import InputError
from cspopt.io import read_table
from cspopt.models.interval import (
    IntervalInstance,
    build_fs_model,
    build_interval_instance,
)
from cspopt.solving import solve_interval
from cspopt.table.generators import gensup_class2, hierarchical_2d


def test_ex1_optimum_is_1950_on_both_routes():
    t = read_table(INSTANCES / "ex1.jj").replace(costs="value")
    for route in ("matrix", "pyomo"):
        result = solve_interval(t, route=route)
        assert result.suppressed == (4, 10, 11) and result.objective == 1950
        assert result.proven_optimal and result.audit.protected
        assert result.audit.requirement == "interval"


def test_pp_shadow_hierarchical_optimum_beats_modular():
    t = read_table(INSTANCES / "pp_shadow.jj").replace(costs="value")
    result = solve_interval(t)
    assert result.proven_optimal and result.audit.protected
    assert result.objective == 521926  # tau-ARGUS Modular's pattern costs 2,524,351
    with_file_costs = solve_interval(read_table(INSTANCES / "pp_shadow.jj"))
    assert with_file_costs.objective == 621 and with_file_costs.proven_optimal
    assert with_file_costs.suppressed == (23, 96, 98, 114, 115, 133)


def test_optimum_equals_brute_force_on_tiny_tables():
    rng = np.random.default_rng(5)
    for _, (data, sens) in zip(range(40), tiny_shapes(rng)):
        prot = np.ceil(rng.uniform(0.1, 0.6) * data)
        t = Table.from_array(data, sensitive=sens, lower_protection=prot,
                             upper_protection=prot, costs=rng.choice(["value", "unit"]))
        expected = brute_force_interval(t)
        result = solve_interval(t, preprocessing=bool(rng.integers(2)))
        if math.isinf(expected):
            assert result.status == "infeasible"
        else:
            assert result.proven_optimal and result.objective == pytest.approx(expected)
            assert result.audit.protected
            assert solve_interval(t, relax=True).lower_bound <= expected + 1e-6


def test_network_rooms_are_capped_at_the_requirement():
    """On 2-D tables the compact model's rooms stop at the requirement
    (``IntervalInstance.rooms``): a-priori upper bounds of 1e9 give the LP bound of infinite
    ones, and the optimum is still brute force's, on both routes."""
    for table in tiny_interval_tables(17, 12):
        far = table.replace(apriori_upper=1e9)
        assert far.is_network
        inst = build_interval_instance(far)
        for k in range(inst.protected.size):
            assert np.all(np.concatenate(inst.rooms(k)) <= inst.requirement_unit[k])
        lp_far = solve_interval(far, relax=True).lower_bound
        assert lp_far == pytest.approx(solve_interval(table, relax=True).lower_bound, rel=1e-9)
        expected = brute_force_interval(far)
        for route in ("matrix", "pyomo"):
            result = solve_interval(far, route=route)
            if math.isinf(expected):
                assert result.status == "infeasible"
            else:
                assert result.proven_optimal and result.audit.protected
                assert result.objective == pytest.approx(expected)
                assert lp_far <= expected + 1e-6


def test_rooms_are_capped_on_hierarchical_tables(monkeypatch):
    """With one hierarchical dimension the relations left once the subtotal rows' are dropped
    form a network, and the rooms stop at the requirement there too
    (``IntervalInstance.room_cap``): the optimum is the one with the a-priori bounds as
    big-M, the LP bound at least that one's, and infinite bounds are accepted."""
    uncapped = property(lambda inst: np.full(inst.protected.size, np.inf))
    for seed in (1, 3, 5):
        table = hierarchical_2d(6, 3, seed=seed)
        far = table.replace(apriori_upper=2 * table.values.max())
        assert far.has_network_form and not far.is_network and far.sensitive.any()
        capped, capped_lp = solve_interval(far), solve_interval(far, relax=True)
        with monkeypatch.context() as patch:
            patch.setattr(IntervalInstance, "room_cap", uncapped)
            plain, plain_lp = solve_interval(far), solve_interval(far, relax=True)
        assert capped.proven_optimal and plain.proven_optimal and capped.audit.protected
        assert capped.objective == pytest.approx(plain.objective)
        assert plain_lp.lower_bound - 1e-6 <= capped_lp.lower_bound <= capped.objective + 1e-6
        unbounded = solve_interval(table.replace(apriori_upper=np.inf))
        assert unbounded.proven_optimal and unbounded.objective == pytest.approx(capped.objective)


def test_routes_agree_on_lp_bounds_and_sizes():
    # pp_shadow: its published empty cells leave deviation classes (rows `linked`). Its big-M
    # (ub = 1.5 x total) leaves the two HiGHS runs 1e-6 apart, with or without those rows.
    for table, rel in ((gensup_class2(6, 4, seed=1), 1e-9), (hierarchical_2d(6, 4, seed=0), 1e-9),
                       (read_table(INSTANCES / "ex1.jj"), 1e-9),
                       (read_table(INSTANCES / "pp_shadow.jj"), 1e-5)):
        a = solve_interval(table, relax=True)
        b = solve_interval(table, relax=True, route="pyomo")
        assert a.model_size["variables"] == b.model_size["variables"]
        assert a.model_size["constraints"] == b.model_size["constraints"]
        assert a.lower_bound == pytest.approx(b.lower_bound, rel=rel)
        mip = solve_interval(table, time_limit=60)
        assert mip.audit.protected and mip.lower_bound <= mip.objective


def test_sliding_protection_and_model_docs():
    t = Table.from_array([[10, 20, 5], [30, 40, 7]], sensitive=[[1, 0, 0], [0, 0, 0]],
                         sliding_protection=[[25, 0, 0], [0, 0, 0]])
    result = solve_interval(t)
    cell = audit(t, result.suppressed, requirement="interval").cell(0)
    assert cell.high - cell.low >= 25 and result.proven_optimal
    model = build_fs_model(t)
    assert "spl" in model.sliding.doc and "A x = 0" in model.relations.doc


def test_interval_errors():
    exact_only = Table.from_array([[1, 2], [3, 4]], sensitive=[[1, 0], [0, 0]])
    with pytest.raises(InputError, match="protection level"):
        solve_interval(exact_only)
    with pytest.raises(InputError, match="finite a-priori upper bounds"):
        solve_interval(small_cube().replace(apriori_upper=np.inf))  # no network form
    with pytest.raises(InputError):
        solve_interval(read_table(INSTANCES / "ex1.jj"), route="odbc")


def test_incremental_attacker_heuristic_is_safe_and_seeds_the_mip():
    from cspopt.heuristics import incremental_attacker

    tables = [read_table(INSTANCES / "ex1.jj"), read_table(INSTANCES / "pp_shadow.jj"),
              gensup_class2(8, 6, seed=3), hierarchical_2d(6, 4, seed=3)]
    for table in tables:
        inst = build_interval_instance(table)
        pattern = incremental_attacker(inst)
        assert audit(table, pattern, requirement="interval", cells="sensitive").protected
        result = solve_interval(table, time_limit=60)
        start = result.history[0]
        assert start["phase"] == "heuristic"
        assert start["upper_bound"] == pytest.approx(inst.weights[pattern].sum())
        assert result.objective <= start["upper_bound"] + 1e-9


def test_certify_tauargus_modular_pattern():
    import cspopt

    t = read_table(INSTANCES / "pp_shadow.jj").replace(costs="value")
    modular = [23, 50, 51, 73, 74, 86, 87, 96, 98, 114, 115, 133]
    result = cspopt.certify(t, modular)
    assert result.model == "FS" and result.audit.protected and result.audit.requirement == "interval"
    assert result.objective == 2524351 and result.lower_bound == 521926
    assert result.gap == pytest.approx(1 - 521926 / 2524351)
    # the search finished: the bound is the optimum, the pattern provably not optimal
    assert (result.termination, result.status) == ("optimal", "feasible")
    assert min(h["upper_bound"] for h in result.history) == 521926
    assert cspopt.certify(t, modular[:-1]).status == "none"  # unsafe: nothing certified
    exact = cspopt.certify(read_table(INSTANCES / "ex1.jj"), [4, 10, 11], protection="exact")
    assert exact.model == "PN" and exact.audit.requirement == "exact"
    worse = cspopt.certify(read_table(INSTANCES / "ex1.jj"), [4, 10, 11, 14], protection="exact")
    assert (worse.termination, worse.status) == ("optimal", "feasible")  # 1950 is proven
    with pytest.raises(InputError):
        cspopt.certify(t, modular, protection="interval", tau=2)


def test_bound_oracle_for_interval_protection():
    import cspopt

    for table in (read_table(INSTANCES / "ex1.jj"), gensup_class2(8, 6, seed=3)):
        optimum = solve_interval(table)
        assert optimum.proven_optimal
        lp = cspopt.bound(table, protection="interval", method="lp")
        capacity = cspopt.bound(table)  # auto: interval (protection levels), capacity cuts
        mip = cspopt.bound(table, protection="auto", method="mip", time_limit=60)
        assert lp.status == capacity.status == mip.status == "bound_only"
        assert lp.model == capacity.model == "FS" and "capacity" in capacity.method
        assert lp.lower_bound <= capacity.lower_bound + 1e-9  # capped cuts: stronger
        assert capacity.lower_bound <= mip.lower_bound <= optimum.objective + 1e-9
    ex1 = read_table(INSTANCES / "ex1.jj")
    # the optimum; so is the compact LP's, with the rooms capped on a network (69.7 without)
    assert cspopt.bound(ex1, weights="value").lower_bound == 1950
    assert cspopt.bound(ex1, weights="value", method="lp").lower_bound == pytest.approx(1950)
    # hierarchical: the compact LP's rooms are capped too (3,268 without), and the capacity
    # cuts, capped at their right-hand side, are a little stronger still; the optimum 521,926
    pp = read_table(INSTANCES / "pp_shadow.jj")
    compact_lp = cspopt.bound(pp, weights="value", method="lp").lower_bound
    assert 500_000 < compact_lp <= cspopt.bound(pp, weights="value").lower_bound <= 521_926
    with pytest.raises(InputError, match="exact"):
        cspopt.bound(ex1, method="lagrangian")
    assert cspopt.bound(ex1, protection="exact").model in ("P", "PN")


def test_incremental_attacker_without_warm_starts(monkeypatch):
    """The cold path (taken when warm starts turn out slower) protects as well."""
    from cspopt.backends.highs import Resolver
    from cspopt.heuristics import incremental as heuristic

    def cold(*args, **options):
        resolver = Resolver(*args, **options)
        resolver.warm = False
        return resolver

    monkeypatch.setattr(heuristic, "Resolver", cold)
    for table in (read_table(INSTANCES / "pp_shadow.jj"), gensup_class2(8, 6, seed=3)):
        pattern = heuristic.incremental_attacker(build_interval_instance(table))
        assert audit(table, pattern, requirement="interval", cells="sensitive").protected


def test_solve_starts_interval_methods_from_a_given_pattern():
    """``cspopt.solve(start=...)`` hands a worse safe pattern to either method, which still
    reaches the optimum; an unsafe start is an input error."""
    import cspopt

    table = read_table(INSTANCES / "ex1.jj")
    for method in ("auto", "mip"):
        result = cspopt.solve(table, weights="value", method=method, start=[4, 10, 11, 14])
        assert result.suppressed == (4, 10, 11) and result.proven_optimal
    with pytest.raises(InputError, match="does not protect"):
        cspopt.solve(table, weights="value", start=[4, 10])


def test_remembered_proofs_apply_where_y_reaches_their_levels_and_the_oldest_is_forgotten():
    """A proof of protection applies wherever ``y`` is at least its levels on the cells it
    moves; per side the farthest move among those that apply is returned, a proof that moves
    no cell applies everywhere, and beyond the store's size the least recently used proof
    is the one forgotten (its rows are overwritten in place, wider proofs widen the store)."""
    from cspopt.models.interval.proofs import PROOFS_KEPT, Proofs

    proofs = Proofs()
    assert proofs.best(np.ones(4)) == {}
    proofs.add("upper", np.array([0, 2]), np.array([0.5, 0.2]), 3.0)
    proofs.add("upper", np.array([1]), np.array([0.9]), 5.0)
    proofs.add("lower", np.array([], dtype=int), np.array([]), 1.0)
    y = np.array([0.6, 0.5, 0.2, 0.0])
    assert proofs.best(y) == {"upper": 3.0, "lower": 1.0}
    assert proofs.last_cells["upper"].tolist() == [0, 2]
    assert proofs.best(np.ones(4)) == {"upper": 5.0, "lower": 1.0}
    assert proofs.best(np.zeros(4)) == {"lower": 1.0}
    # fill the store: every later proof is kept, the least recently used is forgotten
    for i in range(PROOFS_KEPT):
        proofs.add("lower", np.array([3, 0, 1, 2][: 1 + i % 4]), np.full(1 + i % 4, 0.1),
                   10.0 + i)
    assert proofs.best(np.full(4, 0.1)) == {"lower": 10.0 + PROOFS_KEPT - 1}
    assert proofs.best(np.ones(4)) == {"lower": 10.0 + PROOFS_KEPT - 1}

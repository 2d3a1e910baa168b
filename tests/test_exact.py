"""(P) and (P_N): optima equal brute force, both routes agree, every pattern passes the audit."""

import math

import pytest
from helpers import INSTANCES
from oracles import brute_force_model, tiny_exact_tables

from cspopt import Table, audit, graph_audit
from cspopt.errors import InfeasibleProtectionError, InputError, NotNetworkError
from cspopt.io import read_table
from cspopt.models.exact import build_instance
from cspopt.models.exact.compact import build_p_model, build_pn_model
from cspopt.models.exact.instance import modelled_table
from cspopt.solving import solve_exact
from cspopt.table.generators import almeida_carvalho_set2


def test_mip_optimum_equals_brute_force_on_tiny_tables():
    for table in tiny_exact_tables(120, seed=3):
        optimum = {}
        for model in ("P", "PN"):
            expected = brute_force_model(table, model)
            result = solve_exact(table, model=model)
            if math.isinf(expected):
                assert result.termination == "infeasible", table.name
                continue
            assert result.proven_optimal and result.objective == pytest.approx(expected), (
                table.name, model)
            assert result.lower_bound <= result.objective
            assert result.audit.protected
            semantics = modelled_table(table, model)
            assert audit(semantics, result.suppressed, requirement="exact").protected
            lp = solve_exact(table, model=model, relax=True)
            assert lp.lower_bound <= expected + 1e-9
            optimum[model] = expected
        if len(optimum) == 2:
            assert optimum["P"] <= optimum["PN"] + 1e-9  # a P_N-feasible pattern is P-feasible


def test_pyomo_and_matrix_routes_agree():
    tables = [almeida_carvalho_set2(m, n, seed=s, costs=c)
              for (m, n, s, c) in [(6, 4, 0, "value"), (7, 5, 1, "unit"), (9, 6, 2, "value"),
                                   (5, 5, 3, "unit")]]
    tables.append(read_table(INSTANCES / "ex1.jj"))
    for table in tables:
        for model in ("P", "PN"):
            for relax in (True, False):
                a = solve_exact(table, model=model, relax=relax)
                b = solve_exact(table, model=model, relax=relax, route="pyomo")
                assert a.model_size["variables"] == b.model_size["variables"]
                assert a.model_size["constraints"] == b.model_size["constraints"]
                assert a.lower_bound == pytest.approx(b.lower_bound, rel=1e-9)
                if not relax:
                    assert a.objective == pytest.approx(b.objective)
                    assert b.audit.protected


def test_lp_bounds_are_pinned():
    """LP bounds of the shipped tables (regression pins; each is <= the brute-force optimum)."""
    ex1 = read_table(INSTANCES / "ex1.jj")
    fig3 = read_table(INSTANCES / "ac2005_fig3.jj").replace(costs="unit")
    assert solve_exact(ex1, model="P", relax=True).lower_bound == pytest.approx(7578)
    assert solve_exact(ex1, model="PN", relax=True).lower_bound == pytest.approx(7578)
    assert solve_exact(fig3, model="P", relax=True).lower_bound == pytest.approx(3)
    assert solve_exact(fig3, model="PN", relax=True).lower_bound == pytest.approx(3)
    t = almeida_carvalho_set2(9, 6, seed=1)
    assert solve_exact(t, model="P", relax=True).lower_bound == pytest.approx(699)
    assert solve_exact(t, model="PN", relax=True).lower_bound == pytest.approx(699)


def test_paper_examples_and_auto_model():
    fig3 = read_table(INSTANCES / "ac2005_fig3.jj")
    result = solve_exact(fig3)
    assert result.model == "PN" and result.suppressed == (2, 8, 10) and result.objective == 1
    ex1 = read_table(INSTANCES / "ex1.jj").replace(costs="value")
    result = solve_exact(ex1)
    assert result.suppressed == (4, 10, 11) and result.objective == 1950
    general = Table.from_array([[1, -2], [3, 4]], sensitive=[[1, 0], [0, 0]])
    assert solve_exact(general).model == "P"


def test_preprocessing_drops_cells_protected_by_sensitive_cells():
    t = Table.from_array([[5, 6, 9], [7, 8, 9]], sensitive=[[1, 1, 0], [1, 1, 0]])
    result = solve_exact(t)
    assert result.safe == (0, 1, 4, 5) and result.unsafe == () and result.suppressed == ()
    assert result.objective == 0 and result.proven_optimal
    unsafe = solve_exact(t, preprocessing=False)
    assert unsafe.objective == 0 and len(unsafe.unsafe) == 4


def test_options_publish_totals_zeros_and_must_publish():
    t = Table.from_array([[3, 0, 5], [2, 4, 6], [1, 7, 8]], sensitive=[[1, 0, 0], [0, 0, 0],
                                                                     [0, 0, 0]], costs="unit")
    base = solve_exact(t, model="P")
    totals = solve_exact(t, model="P", publish_totals=True)
    assert not set(totals.suppressed) & {3, 7, 11, 12, 13, 14, 15}
    assert totals.objective >= base.objective and totals.audit.protected
    zeros = solve_exact(t, model="P", publish_zeros=True)
    assert 1 not in zeros.suppressed and zeros.audit.protected
    forbidden = set(base.suppressed)
    other = solve_exact(t, model="P", must_publish=sorted(forbidden))
    assert not set(other.suppressed) & forbidden
    with pytest.raises(InputError):
        solve_exact(t, must_publish=[0])
    # one row: with the totals published the column total pins the sensitive cell
    iso = Table.from_array([[3, 5]], sensitive=[[1, 0]])
    result = solve_exact(iso, model="PN", publish_totals=True)
    assert result.termination == "infeasible" and result.status == "infeasible"
    assert result.lower_bound == math.inf and result.suppressed == ()


def test_tau_threshold_keeps_small_cells_off_paths():
    t = Table.from_array([[9, 1, 8], [7, 6, 9], [8, 9, 7]], sensitive=[[1, 0, 0], [0, 0, 0],
                                                                     [0, 0, 0]], costs="unit")
    loose = solve_exact(t, model="PN")
    tight = solve_exact(t, model="PN", tau=2)
    assert tight.audit.protected and tight.objective >= loose.objective
    low = audit(t, tight.suppressed).cell(0)
    assert low.high - low.low >= 2


def test_mip_start_and_bad_options():
    t = almeida_carvalho_set2(8, 5, seed=4)
    everything = build_instance(t, "PN").candidates
    started = solve_exact(t, mip_start=everything)
    assert started.proven_optimal
    assert started.objective == solve_exact(t).objective
    with pytest.raises(InputError, match="does not protect"):
        solve_exact(t, mip_start=[])
    for bad in (dict(model="Q"), dict(solver="cplex"), dict(route="x"), dict(time_limit=0),
                dict(gap=2)):
        with pytest.raises(InputError):
            solve_exact(t, **bad)
    with pytest.raises(InputError):
        solve_exact(Table.from_array([[1, -2], [3, 4]], sensitive=[[1, 0], [0, 0]]), model="PN")
    with pytest.raises(NotNetworkError):
        solve_exact(read_table(INSTANCES / "pp_shadow.jj"))
    fixed = Table([2.0, 1.0, 1.0], status=["s", "u", "s"], apriori_lower=[0, 1, 0],
                  apriori_upper=[9, 1, 9], relations=[[(0, -1), (1, 1), (2, 1)]])
    with pytest.raises(InfeasibleProtectionError):
        solve_exact(fixed, model="PN")


def test_pyomo_builders_carry_equation_numbers():
    t = read_table(INSTANCES / "ac2005_fig3.jj")
    p, pn = build_p_model(t), build_pn_model(t, relax=True)
    assert "(10)" in p.coupling.doc and "(3)" in p.y_ends.doc and "(1)" in p.obj.doc
    assert "(33)" in pn.coupling.doc and "(26)" in pn.alpha.doc and "(30)" in pn.w_ends.doc
    assert all(not v.is_binary() for v in pn.x.values())


@pytest.mark.parametrize("route", ["matrix", "pyomo"])
def test_scip_agrees_with_highs(route):
    for seed, costs in ((1, "value"), (2, "unit")):
        t = almeida_carvalho_set2(10, 6, seed=seed, costs=costs)
        for model in ("P", "PN"):
            highs = solve_exact(t, model=model)
            scip = solve_exact(t, model=model, solver="scip", route=route)
            assert scip.proven_optimal and scip.objective == pytest.approx(highs.objective)
            assert scip.audit.protected
            lp = solve_exact(t, model=model, solver="scip", route=route, relax=True)
            assert lp.lower_bound == pytest.approx(
                solve_exact(t, model=model, relax=True).lower_bound, rel=1e-7)
    start = solve_exact(t, solver="scip", mip_start=build_instance(t, "PN").candidates)
    assert start.objective == pytest.approx(solve_exact(t).objective)


def test_path_ends_count_net_flow():
    """Regression: with (3)-(4) as printed, 2-cycles on sensitive cells at both path ends
    met the end constraints without a path, and (P) returned an exposing pattern here."""
    data = [[6, 6, 8, 5], [8, 1, 8, 4], [4, 7, 5, 3], [1, 2, 1, 4]]
    sens = [[1, 0, 1, 0], [0, 1, 1, 0], [0, 0, 0, 1], [0, 1, 1, 0]]
    t = Table.from_array(data, sensitive=sens, costs="unit")
    for model in ("P", "PN"):
        for route in ("matrix", "pyomo"):
            result = solve_exact(t, model=model, route=route)
            assert result.audit.protected and result.proven_optimal
            assert result.objective == brute_force_small(t, model, result.objective)


def brute_force_small(table, model, incumbent):
    """No pattern cheaper than ``incumbent`` protects the table (checks optimality)."""
    from itertools import combinations

    inst = build_instance(table, model)
    semantics = modelled_table(table, model)
    cand = inst.candidates
    for size in range(int(incumbent)):
        for combo in combinations(cand.tolist(), size):
            assert not graph_audit(semantics, combo).protected
    return incumbent

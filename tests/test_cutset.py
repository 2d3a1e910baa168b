"""(P) and (P_N) by branch-and-cut on x: the interval statement is equivalent, optima equal
brute force and the compact MIP, the root LP equals the LP bound, patterns pass the audit."""

import math

import numpy as np
import pytest
from oracles import brute_force_model, tiny_exact_tables

import cspopt
from cspopt import Table, audit, graph_audit
from cspopt.bounds.capacity import capacity_lp
from cspopt.errors import InputError
from cspopt.models.exact import build_instance
from cspopt.models.exact.instance import modelled_table
from cspopt.models.interval import ExactAsInterval, build_interval_instance
from cspopt.models.interval.capacity import CapacityOracle
from cspopt.solving import solve_exact
from cspopt.solving.cutset import solve_cutset
from cspopt.table.generators import almeida_carvalho_set1, almeida_carvalho_set2


def test_interval_statement_protects_the_same_patterns():
    """Random patterns: the interval audit of the translated table and the exact audit of
    the modelled table give the same verdict, cell by cell."""
    rng = np.random.default_rng(0)
    for table in tiny_exact_tables(40, seed=5):
        for model in ("P", "PN"):
            inst = build_instance(table, model, preprocessing=False)
            interval, published = ExactAsInterval(inst).apply()
            semantics = modelled_table(table, model)
            for _ in range(8):
                pattern = inst.candidates[rng.random(inst.candidates.size) < 0.5]
                exact = audit(semantics, pattern, requirement="exact", integer=model == "PN",
                              cells="sensitive")
                translated = audit(interval, pattern, requirement="interval",
                                   cells="sensitive")
                assert exact.exposed == translated.exposed, (table.name, model)
            assert not np.isin(published, inst.candidates).any()


def test_optimum_equals_brute_force_on_tiny_tables():
    for table in tiny_exact_tables(60, seed=3):
        for model in ("P", "PN"):
            expected = brute_force_model(table, model)
            result = solve_cutset(build_instance(table, model))
            if math.isinf(expected):
                assert result.termination == "infeasible", table.name
                continue
            assert result.proven_optimal and result.objective == pytest.approx(expected), (
                table.name, model)
            assert result.audit.protected and result.model == model
            assert graph_audit(modelled_table(table, model), result.suppressed).protected


def _seeded():
    for seed in range(3):
        yield almeida_carvalho_set2(9, 7, seed=seed, costs="unit"), "PN", {}
        yield almeida_carvalho_set2(11, 6, seed=seed, costs="value"), "PN", {}
        yield almeida_carvalho_set1(12, 8, seed=seed), "P", dict(publish_zeros=True)


def test_root_lp_and_optimum_match_the_compact_model():
    """For (P) the cut-set LP is the projection of the compact LP onto x: the same bound.
    For (P_N) it is weaker: (33) lets the two directions of a K_2 cell share ``x``, the cuts
    of the two directions do not see that (0.75 of 3 on the first set 2 table). Same optimum."""
    for table, model, options in _seeded():
        inst = build_instance(table, model, **options)
        interval, published = ExactAsInterval(inst).apply()
        iinst = build_interval_instance(interval, weights=inst.weights, must_publish=published,
                                        preprocessing=False)
        root = capacity_lp(iinst, CapacityOracle(iinst))[0]
        compact_lp = solve_exact(table, model=model, relax=True, **options).lower_bound
        if model == "P":
            assert root == pytest.approx(compact_lp, rel=1e-7, abs=1e-7), table.name
        else:
            assert root <= compact_lp + 1e-7, table.name
        compact = solve_exact(table, model=model, **options)
        result = solve_cutset(inst)
        assert result.proven_optimal and result.audit.protected
        assert result.objective == pytest.approx(compact.objective), table.name


def test_nothing_to_protect():
    for sensitive in ([[0, 0, 0], [0, 0, 0]], [[1, 1, 0], [1, 1, 0]]):  # none; all safe
        table = Table.from_array([[5, 6, 9], [7, 8, 9]], sensitive=sensitive)
        result = cspopt.solve(table, protection="exact", method="branch-and-cut")
        assert result.proven_optimal and result.suppressed == () and result.objective == 0
        assert result.audit.protected


@pytest.mark.parametrize("options", [dict(publish_totals=True), dict(publish_zeros=True),
                                     dict(must_publish=[3, 17, 20]), dict(weights="log"),
                                     dict(weights="unit", preprocessing=False)])
def test_options_match_the_compact_model(options):
    for table in (almeida_carvalho_set1(10, 7, seed=1), almeida_carvalho_set2(10, 7, seed=2)):
        for model in ("P", "PN"):
            compact = solve_exact(table, model=model, **options)
            result = solve_cutset(build_instance(table, model, **options))
            if compact.status == "infeasible":
                assert result.status == "infeasible"
                continue
            assert result.proven_optimal and result.audit.protected
            assert result.objective == pytest.approx(compact.objective), (model, options)


def test_tau_threshold_is_kept():
    """Arcs the tau threshold removes give the cell no room in that direction."""
    table = almeida_carvalho_set2(9, 7, seed=1, costs="value")
    for tau in (5.0, 40.0):
        compact = solve_exact(table, model="PN", tau=tau)
        result = solve_cutset(build_instance(table, "PN", tau=tau))
        assert result.objective == pytest.approx(compact.objective)


@pytest.fixture(scope="module")
def open_gap_table():
    """Set 2, unit weights, 50x40, seed 5, where the heuristic stops at 13 and the optimum is
    12, and the pipeline's live records."""
    table = almeida_carvalho_set2(49, 39, seed=5, costs="unit")
    seen = []
    # no time limit: the proof is what is tested, however busy the machine
    result = cspopt.solve(table, protection="exact", model="PN", progress=seen.append)
    return table, result, seen


def test_pipeline_closes_the_gap_by_branch_and_cut(open_gap_table):
    """The Lagrangian and the heuristic stop at 12 < 13; the branch-and-cut finds and proves
    12 (the compact MIP did not in 300 s)."""
    table, result, seen = open_gap_table
    assert result.proven_optimal and result.proof == "branch-and-cut"
    assert result.objective == 12 and result.audit.protected
    assert [h["phase"] for h in result.history if "phase" in h][-1] == "branch-and-cut"
    # the live line keeps the Lagrangian bound while the branch-and-cut starts from 0
    lagrangian = max(h["lower_bound"] for h in seen if "phase" not in h)
    assert all(h["lower_bound"] >= lagrangian for h in seen if "phase" in h)
    assert [h["time"] for h in seen] == sorted(h["time"] for h in seen)
    with pytest.raises(InputError, match="method='mip'"):
        cspopt.solve(table, protection="exact", solver="scip")


def test_a_proven_lower_bound_stops_the_branch_and_cut_early(open_gap_table):
    """The pipeline hands its Lagrangian bound (12 here) to the branch-and-cut: started from
    a pattern at that bound, no SCIP search runs; started from 13, SCIP stops at the first
    incumbent of 12 (its primal limit) with the optimum proven."""
    table, optimum, _ = open_gap_table
    inst = build_instance(table, "PN")
    at_bound = solve_cutset(inst, mip_start=optimum.suppressed, lower_bound=12)
    assert at_bound.proven_optimal and at_bound.objective == 12
    assert "branch_and_cut" not in at_bound.timings and at_bound.audit.protected
    worse = cspopt.solve(table, protection="exact", model="PN", method="lagrangian")
    assert worse.objective == 13
    stopped = solve_cutset(inst, mip_start=worse.suppressed, lower_bound=12, time_limit=60)
    assert stopped.proven_optimal and stopped.objective == 12 and stopped.audit.protected
    assert stopped.lower_bound == 12


def test_every_method_starts_from_a_given_pattern(open_gap_table):
    """The optimum as ``start``: the Lagrangian alone then proves it (without the start its
    incumbent is 13); the other methods return it within a short budget. Unsafe starts and
    starts with forbidden cells are input errors."""
    table, optimum, _ = open_gap_table
    alone = cspopt.solve(table, protection="exact", model="PN", method="lagrangian")
    assert alone.objective == 13 and not alone.proven_optimal
    with_sensitive = optimum.suppressed + (int(table.sensitive_cells[0]),)  # ignored
    for method in ("lagrangian", "auto", "branch-and-cut", "mip"):
        # the start is the first incumbent, also where the limit stops the solver before
        # it took the start up (a busy machine); the short limit keeps the MIP's proof out
        result = cspopt.solve(table, protection="exact", model="PN", method=method,
                              start=with_sensitive, time_limit=3)
        assert result.objective == 12 and result.audit.protected, method
    assert cspopt.solve(table, protection="exact", model="PN", method="lagrangian",
                        start=optimum.suppressed).proof == "lagrangian"
    with pytest.raises(InputError, match="exposes sensitive cells"):
        cspopt.solve(table, protection="exact", start=optimum.suppressed[1:])
    zero = int(np.flatnonzero((table.values == 0) & ~table.sensitive)[0])
    with pytest.raises(InputError, match=f"cells \\[{zero}\\] that the options forbid"):
        cspopt.solve(table, protection="exact", publish_zeros=True,
                     start=optimum.suppressed + (zero,))


def test_certify_runs_the_branch_and_cut_then_the_lagrangian_if_time_is_left(
        open_gap_table, monkeypatch):
    """Exact certify: the branch-and-cut from the pattern settles both the optimum (proven)
    and the heuristic's pattern of 13 (the bound is the optimum 12). When it stops at its
    time limit, the Lagrangian adds its bound in the time left."""
    import cspopt.solving.api

    table, optimum, _ = open_gap_table
    best = cspopt.certify(table, optimum.suppressed, protection="exact", model="PN",
                          time_limit=None)  # the proofs, however busy the machine
    assert best.proven_optimal and best.multipliers is None
    heuristic = cspopt.solve(table, protection="exact", model="PN", method="lagrangian")
    worse = cspopt.certify(table, heuristic.suppressed, protection="exact", model="PN",
                           time_limit=None)
    assert (worse.termination, worse.status, worse.lower_bound) == ("optimal", "feasible", 12)

    def hurried(inst, *, time_limit=None, **kwargs):
        return solve_cutset(inst, time_limit=1e-3, **kwargs)

    monkeypatch.setattr(cspopt.solving.api, "solve_cutset", hurried)
    fallback = cspopt.certify(table, heuristic.suppressed, protection="exact", model="PN")
    assert fallback.termination != "optimal" and fallback.multipliers is not None
    assert heuristic.lower_bound <= fallback.lower_bound <= 12  # the Lagrangian's bound
    steps = [h["iteration"] for h in fallback.history]
    assert steps == list(range(len(steps)))
    assert [h["time"] for h in fallback.history] == sorted(h["time"] for h in fallback.history)

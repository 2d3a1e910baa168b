"""Tables on which cspopt once failed (issue #19, ``instances/fuzz/README.md``): every
pattern passes the audit, every bound is valid, no method crashes or claims a false proof."""

import math

import numpy as np
import pytest
from helpers import FUZZ
from oracles import brute_force

import cspopt
from cspopt.audit import audit
from cspopt.budget import Budget
from cspopt.errors import InvalidCellError
from cspopt.io import read_table
from cspopt.solving import solve_branch_and_cut, solve_exact, solve_interval


def check(result, table, requirement, optimum):
    """A result as a proof: audited pattern, valid bound, optimum where claimed."""
    assert audit(table, result.suppressed, requirement=requirement).protected
    assert result.lower_bound <= optimum + 1e-9
    assert result.objective == pytest.approx(optimum)
    assert result.proven_optimal and result.status == "optimal"


@pytest.mark.parametrize("name, optimum", [("nonint_min", 2.0), ("half_2d_105", 28.0)])
def test_exact_models_honour_binding_bounds(name, optimum):
    table = read_table(FUZZ / f"{name}.jj")
    if name == "nonint_min":
        assert brute_force(table, "exact") == optimum
    for result in (cspopt.solve(table, protection="exact"),
                   cspopt.solve(table, protection="exact", method="branch-and-cut"),
                   solve_exact(table)):
        assert result.model == "PN"
        check(result, table, "exact", optimum)
    assert cspopt.bound(table, protection="exact").lower_bound <= optimum + 1e-9


@pytest.mark.parametrize("name", ["fz_3d_0", "mm_3d_0_scale1e3"])
def test_compact_interval_model_on_3d_tables(name):
    table = read_table(FUZZ / f"{name}.jj")
    check(solve_interval(table), table, "interval", 16.0)
    check(solve_branch_and_cut(table), table, "interval", 16.0)
    assert cspopt.bound(table).lower_bound <= 16


@pytest.mark.parametrize("name, optimum", [("fz_2d_256", 385.0), ("fz_2d_298", 5836.0),
                                           ("fz_2d_111", 9.0)])
def test_interval_optima_on_2d_tables(name, optimum):
    table = read_table(FUZZ / f"{name}.jj")
    for separation in ("network", "lp"):
        check(solve_branch_and_cut(table, separation=separation), table, "interval", optimum)
    best = solve_interval(table)
    check(best, table, "interval", optimum)
    assert cspopt.bound(table).lower_bound <= optimum + 1e-9
    certified = cspopt.certify(table, best.suppressed)
    assert certified.audit.protected and certified.gap == 0 and certified.status == "optimal"


@pytest.mark.parametrize("scale", [1e6, 1e9])
def test_values_near_1e9(scale):
    """Values of 1e6-1e9 once ended in "attacker LP ... status Unknown" (exit 2)."""
    base = read_table(FUZZ / "fz_3d_0.jj")
    table = base.replace(**{field: getattr(base, field) * scale for field in (
        "values", "apriori_lower", "apriori_upper", "lower_protection", "upper_protection",
        "sliding_protection")})
    for separation in ("auto", "lp"):
        check(solve_branch_and_cut(table, separation=separation), table, "interval", 16.0)
    assert cspopt.bound(table).lower_bound <= 16


def test_no_suppressible_cell_is_infeasible_for_every_method():
    table = read_table(FUZZ / "allz_exact.jj")
    for result in (cspopt.solve(table), cspopt.solve(table, protection="exact"),
                   cspopt.solve(table, protection="exact", method="branch-and-cut"),
                   cspopt.bound(table), cspopt.bound(table, protection="exact")):
        assert (result.status, result.termination) == ("infeasible", "infeasible")
        assert result.lower_bound == math.inf and result.suppressed == ()


def test_protection_below_the_solvers_precision_is_refused():
    with pytest.raises(InvalidCellError, match="cell 0.*below") as error:
        read_table(FUZZ / "tiny_1e-12.jj")
    assert error.value.cell == 0


def test_incremental_attacker_fallbacks_are_safe():
    """Past its deadline the start heuristic protects every cell left by one LP a side
    (else it suppresses every candidate); completing an exposing pattern (the repair's last
    resort) keeps its cells. Both pass the audit and cost at least the optimum."""
    import time

    from cspopt.heuristics import incremental_attacker
    from cspopt.models.interval import build_interval_instance

    table = read_table(FUZZ / "fz_3d_0.jj")
    inst = build_interval_instance(table)
    late = incremental_attacker(inst, budget=Budget.ending_at(time.perf_counter() - 1.0))
    assert set(late.tolist()) <= set(inst.candidates.tolist())
    assert audit(table, late, requirement="interval").protected
    assert inst.weights[late].sum() >= 16  # at least the optimum
    partial = inst.candidates[:3]
    assert not audit(table, partial, requirement="interval").protected
    completed = incremental_attacker(inst, suppressed=partial)
    assert set(partial.tolist()) <= set(completed.tolist())
    assert audit(table, completed, requirement="interval").protected
    assert inst.weights[completed].sum() >= 16  # at least the optimum


def test_time_limited_solve_keeps_an_audited_incumbent(shared_instances):
    """A limit far below what the table needs: an audited pattern and a valid bound."""
    table = read_table(shared_instances / "csplib" / "hier13x7x7d.jj")
    result = solve_branch_and_cut(table, time_limit=2)
    assert result.status in ("optimal", "feasible") and result.suppressed
    assert audit(table, result.suppressed, requirement="interval").protected
    assert result.lower_bound <= result.objective


HIER3D = FUZZ / "hier3d_micro"


def _hier3d_table():
    """fuzz table hier3d_micro: 3-D microdata with two hierarchies (issue #49 item 2)."""
    from cspopt.microdata.protect import build_table
    from cspopt.microdata.rules import parse_rules
    from cspopt.microdata.tabulate import tabulate

    tabulation = tabulate(HIER3D / "micro.csv", ["region", "activity", "size"],
                          response="turnover", depth=2,
                          hierarchies={"region": HIER3D / "region.hrc",
                                       "activity": HIER3D / "activity.hrc"})
    return build_table(tabulation, parse_rules("P(15)|FREQ(3,10)"))[0]


def test_rooms_of_float_noise_are_zero():
    """The grand total of nonnegative microdata is its a-priori upper bound: its room up is
    float noise (2.3e-9), which reached HiGHS as a 1e-13 coefficient it rejected."""
    from cspopt.models.interval.build import build_interval_instance

    table = _hier3d_table()
    inst = build_interval_instance(table)
    a = np.abs(table.values[inst.free])
    up = inst.up_room[np.arange(inst.protected.size)]
    for room in (inst.down_room[None, :], up):
        assert not np.any((room != 0) & (np.abs(room) <= 1e-9 * np.maximum(1.0, a)))


def test_capped_mips_on_3d_microdata_with_two_hierarchies():
    from cspopt.heuristics.capped import capped_sequential
    from cspopt.models.interval.build import build_interval_instance

    table = _hier3d_table()
    inst = build_interval_instance(table)
    visited = np.arange(min(3, inst.protected.size))
    outcome = capped_sequential(inst, cell_seconds=10.0, order=visited)
    assert outcome.num_paths == visited.size  # every MIP was built and run
    # the union protects every cell visited (the capped attacker is the weaker one)
    checked = audit(table, inst.candidates[outcome.suppressed > 0.5], requirement="interval")
    assert all(checked.cell(int(c)).protected for c in inst.protected[visited])


def test_a_heuristic_that_cannot_build_its_model_steps_aside(monkeypatch):
    """A SolverError in the capped MIPs leaves the cell to the caller; the solve goes on and
    returns an audited pattern."""
    import cspopt.heuristics.capped as capped
    from cspopt.errors import SolverError

    def rejected(*args, **kwargs):
        raise SolverError("HiGHS rejected the model")

    monkeypatch.setattr(capped, "run_highs", rejected)
    table = read_table(FUZZ / "fz_3d_0.jj")
    result = cspopt.solve(table, method="capped")
    assert result.has_pattern and audit(table, result.suppressed).protected
    check(cspopt.solve(table), table, "interval", 16.0)

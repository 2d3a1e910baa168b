"""The attacker audits, checked against hand examples, brute force and each other."""

import itertools
import math

import numpy as np
import pytest
from helpers import INSTANCES
from oracles import cube_table, tiny_interval_tables

from cspopt import Table, audit, graph_audit
from cspopt.audit import interval_verdict
from cspopt.errors import InputError, NotNetworkError, PatternError
from cspopt.io.jj import read_jj
from cspopt.table.generators import gensup_class2

FIG1 = [[2, 3, 0], [1, 4, 1], [0, 5, 0]]
FIG3 = [[2, 3, 0], [1, 4, 1], [0, 5, 1]]
FIG4 = [[2, 3, 1], [1, 4, 1], [1, 5, 0]]
S2 = [2, 8, 10]  # cells (1,3), (3,1), (3,3) of the paper, 1-based, in a 4x4 grid
FIRST = [[1, 0, 0], [0, 0, 0], [0, 0, 0]]


def test_ex1_tauargus_pattern_is_protected_and_minimal():
    t = read_jj(INSTANCES / "ex1.jj")
    result = audit(t, [4, 10, 11])
    assert result.protected and result.requirement == "interval"
    cell = result.cell(5)
    assert cell.low <= 137 - 27.4 and cell.high >= 137 + 27.4
    for drop in (4, 10, 11):
        pattern = [c for c in (4, 10, 11) if c != drop]
        bad = audit(t, pattern)
        assert not bad.protected and bad.exposed == (5,)
        assert bad.cell(5).lower_shortfall > 0


def test_ex1_brute_force_optimum_with_cost_value():
    """Among all 2^14 patterns, the cheapest protected one (cost = value) is {4, 10, 11}."""
    t = read_jj(INSTANCES / "ex1.jj")
    free = [c for c in range(15) if c != 5]
    best = None
    for size in range(1, 6):
        for combo in itertools.combinations(free, size):
            cost = t.values[list(combo)].sum()
            if best is not None and cost >= best[0]:
                continue
            if cost > 1950:
                continue
            if audit(t, combo, cells="sensitive").protected:
                best = (cost, combo)
    assert best == (1950, (4, 10, 11))


def test_pp_shadow_modular_pattern_passes():
    t = read_jj(INSTANCES / "pp_shadow.jj")
    pattern = [23, 50, 51, 73, 74, 86, 87, 96, 98, 114, 115, 133]
    assert t.values[pattern].sum() == 2524351
    result = audit(t, pattern)
    assert result.protected and len(result.suppressed) == 21
    weaker = audit(t, pattern[:-1])
    assert weaker.exposed == (132,)


@pytest.mark.parametrize(
    "data, protected, down, up",
    [(FIG1, False, False, False), (FIG3, True, True, False), (FIG4, True, False, True)],
)
def test_almeida_carvalho_figures(data, protected, down, up):
    """Figs 1-6: the same pattern is unsafe or safe depending on the values (§4)."""
    t = Table.from_array(data, sensitive=FIRST)
    for result in (audit(t, S2), graph_audit(t, S2)):
        assert result.integer and result.requirement == "exact"
        assert result.protected is protected
        assert (result.cell(0).can_decrease, result.cell(0).can_increase) == (down, up)
    lp = audit(t, S2).cell(0)
    assert (lp.low, lp.high) == {False: (2, 2), True: (1, 2) if down else (2, 3)}[protected]
    # as a general table (no sign constraint) the circuit protects cell (1,1) in all three
    general = t.replace(nonnegative=False, apriori_lower=-np.inf)
    assert audit(general, S2).protected and graph_audit(general, S2).protected
    assert audit(general, S2).cell(0).low == -math.inf


def _random_case(rng, general):
    m, n = rng.integers(2, 6, size=2)
    data = rng.integers(0, 4, size=(m, n)) * (rng.random((m, n)) > 0.3)
    if general:
        data = data - rng.integers(0, 3, size=(m, n))
    sens = rng.random((m, n)) < 0.2
    sens[rng.integers(m), rng.integers(n)] = True
    t = Table.from_array(data, sensitive=sens, nonnegative=not general)
    if general:
        t = t.replace(apriori_lower=-np.inf)
    free = np.flatnonzero(~t.sensitive)
    pattern = free[rng.random(free.size) < rng.uniform(0.1, 0.6)]
    return t, pattern


@pytest.mark.parametrize("general", [False, True])
def test_lp_and_graph_audits_agree_on_random_tables(general):
    rng = np.random.default_rng(20261122 + general)
    exposed_seen = protected_seen = 0
    for _ in range(300):
        t, pattern = _random_case(rng, general)
        lp, gr = audit(t, pattern, requirement="exact"), graph_audit(t, pattern)
        assert lp.exposed == gr.exposed
        for k in t.sensitive_cells:
            a, b = lp.cell(k), gr.cell(k)
            assert (a.can_decrease, a.can_increase) == (b.can_decrease, b.can_increase)
        exposed_seen += not lp.protected
        protected_seen += lp.protected
    assert exposed_seen > 30 and protected_seen > 30  # both verdicts are exercised


def _integer_completions(t, mask, bound):
    """All integer completions with suppressed cells in [lb, min(ub, bound)] (brute force)."""
    cells = np.flatnonzero(mask)
    A = t.relation_matrix.toarray()
    fixed = A[:, ~mask] @ t.values[~mask]
    ranges = [range(int(t.apriori_lower[c]), int(min(t.apriori_upper[c], bound)) + 1)
              for c in cells]
    grid = np.array(list(itertools.product(*ranges)), dtype=float)
    ok = np.all(np.abs(grid @ A[:, cells].T + fixed) < 1e-9, axis=1)
    return cells, grid[ok]


def test_integer_audit_matches_enumeration_of_completions():
    """Nonnegative integer tables: low/high and the ±1 completions equal brute force."""
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 60:
        m, n = rng.integers(2, 4, size=2)
        data = rng.integers(0, 3, size=(m, n))
        sens = np.zeros((m, n), bool)
        sens[rng.integers(m), rng.integers(n)] = True
        t = Table.from_array(data, sensitive=sens)
        free = np.flatnonzero(~t.sensitive)
        pattern = free[rng.random(free.size) < 0.35]
        mask = t.pattern(pattern)
        if mask.sum() > 5:
            continue
        total = t.values.max()  # no cell of a completion exceeds the grand total when published
        if mask[np.argmax(t.values)]:
            continue
        cells, completions = _integer_completions(t, mask, total)
        result = audit(t, pattern)
        for j, c in enumerate(cells):
            a, got = t.values[c], result.cell(c)
            assert got.low == completions[:, j].min() and got.high == completions[:, j].max()
            assert got.can_decrease == bool(np.any(completions[:, j] <= a - 1))
            assert got.can_increase == bool(np.any(completions[:, j] >= a + 1))
        checked += 1


def test_integer_semantics_use_a_mip_when_the_lp_is_fractional():
    """2a + b = 3 with a = b = 1 and b <= 1: the LP reaches a = 1.5, no integer a exceeds 1."""
    t = Table([1.0, 1.0, 3.0], status=["u", "s", "s"], apriori_upper=[10, 1, 10],
              relations=[[(0, 2), (1, 1), (2, -1)]])
    continuous = audit(t, [1], integer=False)
    integer = audit(t, [1], integer=True)
    assert continuous.cell(0).high == pytest.approx(1.5) and continuous.protected
    assert integer.cell(0).high == pytest.approx(1.5) and not integer.protected
    assert integer.num_solves > continuous.num_solves  # the MIP was consulted
    with pytest.raises(NotNetworkError):
        graph_audit(t, [1])


def test_interval_requirements_including_sliding():
    t = Table.from_array([[10, 20], [30, 40]], sensitive=[[1, 0], [0, 0]],
                         lower_protection=3, upper_protection=3)
    # suppressing the whole 2x2 core lets cell (0,0) range over [0, 30]
    ok = audit(t, [1, 3, 4])
    assert ok.protected and ok.cell(0).low == 0 and ok.cell(0).high == 30
    wide = t.replace(sliding_protection=np.where(t.sensitive, 31.0, 0.0))
    bad = audit(wide, [1, 3, 4])
    assert not bad.protected and bad.cell(0).width_shortfall == pytest.approx(1)
    assert bad.cell(0).exact_protected


def _interval_cases(rng):
    """Tiny 2-D tables (some with sliding levels) and 3-D tables with random patterns, and
    GenSup class II tables whose sensitive cells protect one another."""
    for table in tiny_interval_tables(seed=11, count=40):
        free = np.flatnonzero(~table.sensitive)
        yield table, free[rng.random(free.size) < rng.uniform(0.1, 0.7)]
    for _ in range(20):
        sensitive = rng.random((3, 2, 2)) < 0.3
        cube = cube_table(rng.integers(0, 20, (3, 2, 2)), sensitive, "value", 0.2, 1.0)
        free = np.flatnonzero(~cube.sensitive)
        yield cube, free[rng.random(free.size) < rng.uniform(0.1, 0.6)]
    for size, seed in ((20, 1), (40, 2)):  # the second: all protected by the primaries
        yield gensup_class2(size, size, seed=seed), ()


def test_verdict_ranges_decide_as_the_exact_audit():
    """``ranges="verdict"`` skips the sides completions found for other cells prove: same
    verdict, same exposed cells with the same LP optima, and every end it does solve is the
    exact one; on GenSup class II (sensitive cells protecting each other) far fewer LPs."""
    rng = np.random.default_rng(8)
    verdicts = set()
    for table, pattern in _interval_cases(rng):
        exact = audit(table, pattern, requirement="interval", cells="sensitive")
        quick = audit(table, pattern, requirement="interval", cells="sensitive",
                      ranges="verdict")
        assert quick.protected == exact.protected and quick.exposed == exact.exposed
        assert interval_verdict(table, pattern).exposed == quick.exposed
        for got, want in zip(quick.cells, exact.cells):
            assert got.protected == want.protected and got.cell == want.cell
            assert (got.can_decrease, got.can_increase) == (
                want.can_decrease, want.can_increase)
            for end in ("low", "high"):
                mine = getattr(got, end)
                assert (math.isnan(mine) and got.protected) or mine == pytest.approx(
                    getattr(want, end), abs=1e-6)
        verdicts.add(exact.protected)
        if table.num_cells > 400:
            assert quick.num_solves < exact.num_solves / 4
    assert verdicts == {False, True}
    t = read_jj(INSTANCES / "ex1.jj")
    with pytest.raises(InputError, match="ranges"):
        audit(t, [4], ranges="some")


@pytest.mark.parametrize("integer", [False, True])
def test_exact_verdict_decides_as_the_exact_audit(integer):
    """Under the exact requirement ``ranges="verdict"`` stops at the first side that moves
    and takes a cell that an earlier (integral, for integer completions) completion moved
    as proven: the same verdict and exposed cells as both LP optima of every cell, with
    fewer solves on the larger tables."""
    rng = np.random.default_rng(9)
    verdicts = set()
    for table, pattern in _interval_cases(rng):
        table = table.replace(lower_protection=0.0, upper_protection=0.0,
                              sliding_protection=0.0)
        full = audit(table, pattern, requirement="exact", integer=integer, cells="sensitive")
        quick = audit(table, pattern, requirement="exact", integer=integer,
                      cells="sensitive", ranges="verdict")
        assert quick.protected == full.protected and quick.exposed == full.exposed
        first = audit(table, pattern, requirement="exact", integer=integer,
                      cells="sensitive", ranges="verdict", first_exposed=True)
        assert first.protected == full.protected
        assert first.exposed == full.exposed[:1]
        for got, want in zip(quick.cells, full.cells):
            assert got.cell == want.cell and got.protected == want.protected
            assert got.can_decrease <= want.can_decrease
            assert got.can_increase <= want.can_increase
        verdicts.add(full.protected)
        if table.num_cells > 400:
            assert quick.num_solves < full.num_solves / 2
    assert verdicts == {False, True}


def test_small_lps_first_decide_as_the_whole_pattern_and_never_prove_exposure(monkeypatch):
    """With the small LPs (AttackerLP.prove_locally) run on every pattern: the same verdict
    and exposed cells as the exact audit; the cells they leave unproven include every
    exposed one, and they prove most cells of 3-D tables with protection levels (a cube is
    three relations across; a side without a level is left to the whole LP)."""
    from cspopt.audit import lp, unproven_cells
    monkeypatch.setattr(lp, "LOCAL_AUDIT_FROM", 0)
    rng = np.random.default_rng(8)
    proven = total = 0
    for table, pattern in _interval_cases(rng):
        exact = audit(table, pattern, requirement="interval", cells="sensitive")
        assert interval_verdict(table, pattern).exposed == exact.exposed
        unproven = unproven_cells(table, pattern)
        assert set(exact.exposed) <= set(unproven.tolist())
        if table.num_cells == 4 * 3 * 3:  # the 3-D cubes' protected cells with levels
            leveled = set(np.flatnonzero(table.sensitive & (table.upper_protection > 0)))
            safe = leveled - set(exact.exposed)
            proven += len(safe - set(unproven.tolist()))
            total += len(safe)
    assert proven >= 0.8 * total > 0


def test_completions_given_are_checked_and_decide_as_the_audits_own_lps(monkeypatch):
    """Completions handed to the verdict (a repair's proofs) are checked before use: those
    the small LPs found on a sub-pattern are accepted on the whole pattern and spare LPs
    with the same verdict; forged ones (a relation broken, a bound passed, a published cell
    moved, malformed) are ignored, so an exposing pattern stays exposed."""
    from cspopt.audit import lp, unproven_cells
    monkeypatch.setattr(lp, "LOCAL_AUDIT_FROM", 0)
    rng = np.random.default_rng(8)
    spared = 0
    for table, pattern in _interval_cases(rng):
        found = []
        unproven_cells(table, pattern, completions=found)
        more = np.union1d(pattern, np.flatnonzero(~table.sensitive)[:3])
        plain = interval_verdict(table, more)
        reused = interval_verdict(table, more, completions=found)
        assert reused.exposed == plain.exposed
        spared += plain.num_solves - reused.num_solves
        for cell in plain.exposed:  # forgeries that would prove an exposed cell
            a, lpl = float(table.values[cell]), float(table.lower_protection[cell])
            upl = float(table.upper_protection[cell]) + float(table.sliding_protection[cell])
            published = np.setdiff1d(np.flatnonzero(~table.pattern(more)), [cell])
            forged = [([cell], [upl + 1.0]), ([cell], [-lpl - 1.0]),  # relations broken
                      ([cell], [table.apriori_upper[cell] - a + upl + 1e6]),
                      ([cell, -1], [1.0, 1.0]), ([cell], [1.0, 2.0]), ([cell], [np.nan]),
                      ([cell, cell], [upl + 1.0, -upl - 1.0])]  # cancels itself out
            if published.size:
                forged.append(([cell, int(published[0])], [upl + 1.0, -upl - 1.0]))
            assert cell in interval_verdict(table, more, completions=forged).exposed
    assert spared > 0


def test_audit_options_and_output():
    t = read_jj(INSTANCES / "ex1.jj")
    with pytest.raises(PatternError):
        audit(t, [15])
    with pytest.raises(InputError):
        audit(t, [4], requirement="strict")
    with pytest.raises(InputError):
        audit(t.replace(values=t.values + 0.5, apriori_upper=np.inf, relations=[]), [],
              integer=True)
    data = audit(t, [4, 10, 11]).to_dict()
    assert data["protected"] is True and data["suppressed"] == [4, 5, 10, 11]
    assert {c["cell"] for c in data["cells"]} == {4, 5, 10, 11}
    only = audit(t, [4, 10, 11], cells="sensitive")
    assert [c.cell for c in only.cells] == [5] and only.num_solves == 2


def test_audit_seconds_times_a_sample_of_the_sensitive_cells():
    """The estimate solvers keep time for their final audit by: a sample's LPs, scaled."""
    from cspopt.audit import audit_seconds
    from cspopt.table.generators import gensup_class2

    table = gensup_class2(20, 20, seed=1)  # 90 sensitive cells: a sample of 40
    expected = audit_seconds(table, np.flatnonzero(~table.sensitive), sample=40)
    assert math.isfinite(expected) and expected > 0
    nothing = Table.from_array([[1, 2], [3, 4]])
    assert 0 <= audit_seconds(nothing) < 1


def test_the_interval_preprocessing_of_many_primaries_keeps_every_exposed_cell(monkeypatch):
    """Fischetti-Salazar preprocessing on many primaries (here forced on small tables) keeps
    a superset of the cells the primaries leave exposed, drops only cells the audit finds
    protected by them, and the solve's pattern is the same audited one."""
    from cspopt.models.interval import build, build_interval_instance
    from cspopt.solving import solve_branch_and_cut
    rng = np.random.default_rng(5)
    dropped = 0
    for table, _ in _interval_cases(rng):
        exact = build_interval_instance(table)
        monkeypatch.setattr(build, "LOCAL_AUDIT_FROM", 0)
        many = build_interval_instance(table)
        monkeypatch.undo()
        assert set(exact.protected.tolist()) <= set(many.protected.tolist())
        safe = np.setdiff1d(table.sensitive_cells, many.protected)
        assert not set(safe.tolist()) & set(interval_verdict(table).exposed)
        dropped += safe.size
    assert dropped > 0
    table = gensup_class2(20, 20, seed=1)
    monkeypatch.setattr(build, "LOCAL_AUDIT_FROM", 0)
    solved = solve_branch_and_cut(table, time_limit=60)
    assert solved.proven_optimal and interval_verdict(table, solved.suppressed).protected
    monkeypatch.undo()
    assert solve_branch_and_cut(table, time_limit=60).objective == pytest.approx(
        solved.objective)

"""From microdata to a protected table (issue #23): tabulation, tau-ARGUS' rules and
protection levels against hand-computed values, audited patterns checked by brute force,
linked tables, the report and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import run
from oracles import brute_force

import cspopt
from cspopt.audit import audit
from cspopt.errors import InputError
from cspopt.microdata import (
    CellContributions,
    DominanceRule,
    FrequencyRule,
    PPercentRule,
    PQRule,
    ZeroRule,
    apply_rules,
    parse_rules,
    protect,
    tabulate,
)
from cspopt.microdata.synthetic import business_survey

pd = pytest.importorskip("pandas")


def _cells(*contributions):
    """Contributions of hand-made cells (each a list of respondents' values)."""
    depth = max(len(c) for c in contributions) or 1
    top = np.zeros((len(contributions), depth))
    for i, c in enumerate(contributions):
        top[i, :len(c)] = sorted(c, reverse=True)
    return CellContributions(np.array([sum(c) for c in contributions], float),
                             np.array([len(c) for c in contributions], float), top)


def test_rules_and_levels_by_hand():
    """A cell of 60 + 30 + 10 = 100, one of 0 + 0 (two zero contributions), one empty."""
    cells = _cells([60, 30, 10], [0, 0], [])
    cases = [  # rule, sensitive per cell, level of the first sensitive cell
        (DominanceRule(1, 50), [True, False, False], 100 / 50 * 60 - 100),  # 20
        (DominanceRule(2, 85), [True, False, False], 100 / 85 * 90 - 100),  # 5.88
        (DominanceRule(2, 95), [False, False, False], None),  # 90 <= 95
        (PPercentRule(15), [False, False, False], None),  # 10 >= 9
        (PPercentRule(20), [True, False, False], 12 - 10),
        (PPercentRule(10, 2), [True, False, False], 6 - 0),  # a coalition of two
        (PQRule(20, 50), [True, False, False], 0.4 * 60 - 10),  # p/q = 0.4
        (FrequencyRule(4, 10), [True, True, False], 10.0),  # 10 % of 100
        (ZeroRule(5), [False, True, False], 5.0),
    ]
    for rule, sensitive, level in cases:
        flagged, levels, names = apply_rules([rule], cells)
        assert flagged.tolist() == sensitive, rule
        if level is not None:
            first = sensitive.index(True)
            assert levels[first] == pytest.approx(level), rule
            assert names[first] == str(rule)
        assert levels[2] == 0 and names[2] == ""


def _by_hand(columns, parent, rule):
    """An independent oracle: each cell's respondents collected in plain Python (a record
    counts in its province, the province's region and the total, times its activity and
    the total), then the rule's textbook formula."""
    cells = {}
    for province, activity, x in zip(columns["province"], columns["activity"],
                                     columns["turnover"]):
        for p in (province, parent[province], "Total"):
            for a in (activity, "Total"):
                cells.setdefault((p, a), []).append(x)
    out = {}
    for label, xs in cells.items():
        xs, total = sorted(xs, reverse=True) + [0.0, 0.0, 0.0], sum(xs)
        name, args = rule
        if name == "NK":
            n, k = args
            top = sum(xs[:n])
            out[label] = (top > k / 100 * total, 100 / k * top - total)
        elif name in ("P", "PQ"):
            ratio = args[0] / (100 if name == "P" else args[1])
            n = args[-1] if len(args) == (2 if name == "P" else 3) else 1
            rest = total - sum(xs[:n + 1])
            out[label] = (rest < ratio * xs[0], ratio * xs[0] - rest)
        else:  # FREQ
            m, r = args
            count = len(xs) - 3
            out[label] = (0 < count < m, r / 100 * total)
    return out


@pytest.mark.parametrize("rule", [("NK", (1, 60)), ("NK", (2, 85)), ("NK", (3, 90)),
                                  ("P", (15,)), ("P", (10, 2)), ("PQ", (20, 50)),
                                  ("PQ", (10, 40, 2)), ("FREQ", (3, 10)), ("FREQ", (5, 15))])
def test_every_rule_on_a_generated_survey_against_a_hand_computation(rule):
    """Seeded business survey (skewed contributions, cells with one or two respondents,
    a two-level region hierarchy): every cell's flag and level as the oracle computes."""
    columns, parent = business_survey(seed=7, mean_respondents=2.5)
    text = f"{rule[0]}({','.join(str(a) for a in rule[1])})"
    tab = tabulate(columns, ["province", "activity"], response="turnover",
                   hierarchies={"province": parent}, depth=4)
    flagged, levels, _ = apply_rules(parse_rules(text), tab.contributions)
    expected = _by_hand(columns, parent, rule)
    counts = tab.contributions.count
    assert ((counts == 1) | (counts == 2)).sum() >= 5  # the design's small cells
    checked = 0
    for i, label in enumerate(tab.labels):
        if label not in expected:  # an empty cell
            assert counts[i] == 0 and not flagged[i]
            continue
        sensitive, level = expected[label]
        assert flagged[i] == sensitive, (text, label)
        if sensitive:
            assert levels[i] == pytest.approx(level), (text, label)
        checked += 1
    assert checked > 50 and flagged.any()


def test_magnitude_rules_take_precedence_over_frequency():
    """tau-ARGUS' order, checked against its engine: where a dominance or p%-rule flags a
    cell, its level is theirs even if the frequency rule's range asks more."""
    cells = _cells([690, 389])
    flagged, levels, names = apply_rules(parse_rules("P(10,1)|NK(1,60)|FREQ(3,20)"), cells)
    assert flagged[0] and names[0] == "P(10,1)|NK(1,60)|FREQ(3,20)"
    assert levels[0] == pytest.approx(690 / 0.6 - 1079)  # NK: 71, not FREQ's 215.8
    flagged, levels, names = apply_rules(parse_rules(["FREQ(4,20)", "P(1)"]),
                                         _cells([690, 389, 300]))
    assert names[0] == "FREQ(4,20)" and levels[0] == pytest.approx(0.2 * 1379)


@pytest.mark.parametrize("text", ["P15", "NK(3)", "NK(3,175)", "X(1)", "P(a)", "NK(2.5,80)",
                                  "FREQ(0,10)", "PQ(10,0)", "ZERO(-1)", "P(15,1,2)"])
def test_rules_that_do_not_parse_are_named(text):
    with pytest.raises(InputError, match=r"rule '.*'"):
        parse_rules(text)


def test_parse_rules_spellings():
    assert [str(r) for r in parse_rules("p(15)|nk(3, 75)")] == ["P(15,1)", "NK(3,75)"]
    assert [str(r) for r in parse_rules(["PQ(10,50,2)", FrequencyRule(3, 10)])] == [
        "PQ(10,50,2)", "FREQ(3,10)"]


def test_tabulation_with_a_hierarchy_by_hand():
    data = {"region": ["N1", "N1", "N2", "S1", "S1"], "kind": ["a", "b", "a", "a", "a"],
            "x": [5.0, 7.0, 1.0, 4.0, 2.0]}
    hierarchy = {"N1": "N", "N2": "N", "S1": "S", "N": "Total", "S": "Total"}
    tab = tabulate(data, ["region", "kind"], response="x", hierarchies={"region": hierarchy})
    cells = {label: i for i, label in enumerate(tab.labels)}
    c = tab.contributions
    for label, total, count, top in [(("N", "a"), 6, 2, [5, 1]), (("S1", "a"), 6, 2, [4, 2]),
                                     (("Total", "Total"), 19, 5, [7, 5]),
                                     (("S", "b"), 0, 0, [0, 0]), (("N1", "Total"), 12, 2, [7, 5])]:
        i = cells[label]
        assert (c.total[i], c.count[i], c.top[i].tolist()) == (total, count, top), label
    assert tab.empty.sum() == 3  # N2 b, S1 b, S b
    table = cspopt.Table.from_labels(tab.labels, c.total, tab.dimensions)  # additive
    assert table.num_relations > 0


@pytest.mark.parametrize("data, message", [
    ({"r": ["a", "b"], "x": [1.0, float("nan")]}, "record 1: response 'x'"),
    ({"r": ["a", None], "x": [1.0, 2.0]}, "record 1: dimension 'r' has no code"),
    ({"r": ["a", "b"], "x": [1.0, -2.0]}, "record 1: response 'x' is -2"),
    ({"r": ["a", "b"], "y": [1.0, 2.0]}, "response 'x' is not a column"),
])
def test_bad_microdata_is_named(data, message):
    with pytest.raises(InputError, match=message):
        protect(data, ["r"], response="x", rules="NK(1,60)")


def test_bad_hierarchy_codes_are_named(tmp_path):
    hrc = tmp_path / "r.hrc"
    hrc.write_text("N\n@N1\nS\n@S1\n")
    data = {"r": ["N1", "S2"], "x": [1.0, 2.0]}
    with pytest.raises(InputError, match="record 1: code 'S2' of dimension 'r' is not in"):
        protect(data, ["r"], response="x", rules="P(10)", hierarchies={"r": hrc})
    with pytest.raises(InputError, match="record 1: code 'N' .* subtotal"):
        protect({"r": ["N1", "N"], "x": [1.0, 2.0]}, ["r"], response="x", rules="P(10)",
                hierarchies={"r": hrc})
    with pytest.raises(InputError, match="record 1: code 'S2' of dimension 'r' is not in"):
        protect(data, ["r"], response="x", rules="P(10)",
                hierarchies={"r": {"N1": "N", "S1": "S", "N": "Total", "S": "Total"}})
    with pytest.raises(InputError, match="no sensitivity rule"):
        protect(data, ["r"], response="x")


def test_holdings_are_one_contributor():
    """Two records of holding H in one cell count once, with their sum: the cell of 50 +
    30 + 20 (H = 30 + 20) has two contributors of 50, so FREQ(3,10) flags it; a record
    without a holding code is its own holding."""
    data = {"r": ["a", "a", "a", "b", "b"], "x": [50.0, 30.0, 20.0, 10.0, 10.0],
            "h": ["", "H", "H", None, "G"]}
    alone = tabulate(data, ["r"], response="x")
    grouped = tabulate(data, ["r"], response="x", holding="h")
    a = alone.labels.index(("a",))
    assert alone.contributions.count[a] == 3 and grouped.contributions.count[a] == 2
    assert grouped.contributions.top[a].tolist() == [50, 50]
    assert grouped.contributions.total[a] == alone.contributions.total[a] == 100
    total = grouped.labels.index(("Total",))
    assert grouped.contributions.count[total] == 4  # '', H, None (own), G
    flagged, _, _ = apply_rules(parse_rules("FREQ(3,10)"), grouped.contributions)
    assert flagged[a] and not apply_rules(parse_rules("FREQ(3,10)"),
                                          alone.contributions)[0][a]


def _survey(seed=3, **kwargs):
    columns, parent = business_survey(seed=seed, **kwargs)
    return pd.DataFrame(columns), parent


def test_protect_a_hierarchical_survey_table():
    """Primaries are the rules', the pattern passes an independent audit, and the report
    says per cell what an attacker can derive."""
    df, parent = _survey()
    protected = protect(df, ["province", "activity"], response="turnover",
                        rules="NK(1,60)|FREQ(3,10)", hierarchies={"province": parent})
    table, result = protected.table, protected.result
    assert result.status == "optimal"
    assert audit(table, result.suppressed, requirement="interval").protected
    frame = protected.to_frame()
    assert len(frame) == table.num_cells == 17 * 7
    primary = frame[frame.status == "primary"]
    assert (primary.rules != "").all() and len(primary) == table.sensitive.sum()
    hidden = frame[frame.status.isin(["primary", "secondary"])]
    assert hidden.published.isna().all() and hidden.attacker_low.notna().all()
    assert (hidden.attacker_low <= hidden.value + 1e-6).all()
    assert frame[frame.status == "published"].published.notna().all()
    assert (frame[frame.status == "empty"].contributors == 0).all()
    reach = 1e-6 * np.maximum(1, primary.value)
    assert (primary.attacker_low <= primary.value - primary.lower_protection + reach).all()
    assert (primary.attacker_high >= primary.value + primary.upper_protection - reach).all()
    assert "primary" in protected.summary()


def test_protect_matches_brute_force_on_a_tiny_table():
    data = {"r": ["a", "a", "b", "b", "c", "c", "c"], "k": ["x", "y", "x", "y", "x", "y", "y"],
            "v": [50.0, 9.0, 12.0, 14.0, 8.0, 10.0, 11.0]}
    protected = protect(data, ["r", "k"], response="v", rules="P(20)")
    assert protected.table.sensitive.any()
    assert protected.result.status == "optimal"
    optimum = brute_force(protected.table, "interval")
    assert protected.result.objective == pytest.approx(optimum)
    assert protected.result.lower_bound <= optimum + 1e-9


def test_linked_tables_are_protected_jointly():
    """Two tables sharing the province margin: each protected alone, their patterns
    together leave a cell recoverable from the union of what they publish; protected
    jointly, as one linear system, none."""
    columns, _ = business_survey(regions=2, provinces=2, activities=3, mean_respondents=4,
                                 seed=4)
    rng = np.random.default_rng(4)
    columns["size"] = [f"S{int(s)}" for s in rng.integers(1, 3, len(columns["id"]))]
    tables = [["province", "activity"], ["province", "size"]]
    joint = protect(columns, tables, response="turnover", rules="P(20)")
    union = joint.table
    assert union.num_cells == 5 * 4 + 5 * 3 - 5  # the province margin once
    where = {label: i for i, label in enumerate(union.labels)}
    names = [d.name for d in union.dimensions]
    suppressed = set(np.flatnonzero(union.sensitive).tolist())
    for dims in tables:
        alone = protect(columns, dims, response="turnover", rules="P(20)")
        assert audit(alone.table, alone.result.suppressed, requirement="interval").protected
        for cell in alone.result.suppressed:
            code = dict(zip(dims, alone.table.labels[cell]))
            suppressed.add(where[tuple(code.get(v, "Total") for v in names)])
    assert not audit(union, sorted(suppressed), requirement="interval").protected
    assert joint.result.status == "optimal"
    assert audit(union, joint.result.suppressed, requirement="interval").protected


def test_pattern_pictures_of_linked_and_three_way_tables(tmp_path):
    pytest.importorskip("matplotlib")
    from cspopt.plot import plot_pattern

    columns, parent = business_survey(regions=2, provinces=2, activities=3, seed=4)
    columns["size"] = [f"S{i % 2 + 1}" for i in range(len(columns["id"]))]
    linked = protect(columns, [["province", "activity"], ["province", "size"]],
                     response="turnover", rules="P(20)", hierarchies={"province": parent})
    cube = protect(columns, ["size", "province", "activity"], response="turnover",
                   rules="P(20)", hierarchies={"province": parent})
    for name, protected in (("linked", linked), ("cube", cube)):
        protected.plot(tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(InputError, match="view"):
        plot_pattern(cube.table, (), tmp_path / "x.png", views=[["size", "colour"]])


def test_no_sensitive_cell_publishes_the_table_and_rules_need_a_response():
    data = {"r": ["a", "a", "b", "b", "b"], "x": [5.0, 5.0, 4.0, 3.0, 3.0]}
    protected = protect(data, ["r"], response="x", rules="NK(1,90)")
    assert protected.result.status == "optimal" and protected.result.suppressed == ()
    assert set(protected.to_frame().status) == {"published"}
    with pytest.raises(InputError, match="give a response"):
        protect(data, ["r"], rules="NK(1,60)|FREQ(3,10)")
    with pytest.raises(InputError, match="record 1: dimension 'r' has no code"):
        protect({"r": ["a", " "], "x": [1.0, 2.0]}, ["r"], response="x", rules="P(10)")


def test_frequency_table_with_exact_protection():
    df, _ = _survey(seed=5, regions=2, activities=4)
    protected = protect(df, ["province", "activity"], rules="FREQ(3,0)",
                        protection="exact")
    assert protected.table.sensitive.any()
    assert protected.result.status == "optimal"
    assert audit(protected.table, protected.result.suppressed, requirement="exact").protected
    assert protected.table.values[-1] == len(df)


#: a count table over A (regions r1 = a1 + a2, r2 = a3) x B with one empty cell, a3 x b1
_EMPTY_CELL = {("a1", "b1"): 1, ("a1", "b2"): 4, ("a2", "b1"): 5, ("a2", "b2"): 2,
               ("a3", "b2"): 6}


@pytest.mark.parametrize("zeros", ["published", "suppressible", "protected"])
def test_empty_cells_are_published_suppressible_or_protected(zeros):
    """``zeros``: empty cells published as tau-ARGUS does, candidates for secondary
    suppression, or primaries (GaussSuppression's protectZeros), each the brute-force
    optimum through the exact audit."""
    records = [cell for cell, count in _EMPTY_CELL.items() for _ in range(count)]
    data = {"A": [a for a, _ in records], "B": [b for _, b in records]}
    hierarchy = {"A": {"a1": "r1", "a2": "r1", "a3": "r2", "r1": "Total", "r2": "Total"}}
    protected = protect(data, ["A", "B"], rules="FREQ(3,10)", hierarchies=hierarchy,
                        protection="exact", zeros=zeros, costs="frequency")
    table, result, empty = protected.table, protected.result, protected.tabulation.empty
    assert empty.sum() == 2  # a3 x b1 and r2 x b1
    assert result.status == "optimal" and result.lower_bound == result.objective
    assert result.objective == brute_force(table, "exact", max_candidates=16)
    assert audit(table, result.suppressed, requirement="exact", cells="sensitive").protected
    assert np.array_equal(table.sensitive & empty, empty if zeros == "protected" else
                          np.zeros_like(empty))
    assert table.must_publish[empty].all() == (zeros == "published")
    if zeros == "protected":
        assert set(np.array(protected.rules_hit)[empty]) == {"zeros"}
        assert set(protected.status[empty]) == {"primary"}


def test_cli_protect_takes_the_zeros_choice(tmp_path):
    data = tmp_path / "counts.csv"
    data.write_text("A,B\n" + "".join(f"{a},{b}\n" for (a, b), count in _EMPTY_CELL.items()
                                      for _ in range(count)))
    out = tmp_path / "out.csv"
    done = run("protect", str(data), "--dims", "A,B", "--rule", "FREQ(3,10)",
               "--protection", "exact", "--zeros", "protected", "-o", str(out), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["primary"] == 3  # a1 x b1, a2 x b2 and the empty a3 x b1
    refused = run("protect", str(data), "--dims", "A,B", "--rule", "FREQ(3,10)",
                  "--zeros", "protected")
    assert refused.returncode == 2 and "needs protection='exact'" in refused.stderr


def test_protected_zeros_need_exact_protection_and_a_known_choice():
    data = {"A": ["a", "b", "b"], "B": ["x", "x", "y"]}
    with pytest.raises(InputError, match="needs protection='exact'"):
        protect(data, ["A", "B"], rules="FREQ(3,10)", zeros="protected")
    with pytest.raises(InputError, match="zeros must be one of published, suppressible, "
                                         "protected, not 'hidden'"):
        protect(data, ["A", "B"], rules="FREQ(3,10)", protection="exact", zeros="hidden")


def test_cli_protect_writes_the_report_and_one_json_document(tmp_path):
    df, parent = _survey(seed=2, regions=2)
    data = tmp_path / "survey.csv"
    df.to_csv(data, index=False)
    hrc = tmp_path / "province.hrc"
    hrc.write_text("".join(f"{r}\n" + "".join(f"@{p}\n" for p, q in parent.items() if q == r)
                           for r in sorted(set(parent.values()) - {"Total"})))
    out, picture = tmp_path / "out.csv", tmp_path / "pattern.png"
    done = run("protect", str(data), "--dims", "province,activity", "--response", "turnover",
               "--rule", "NK(1,60)", "--rule", "FREQ(3,10)", "--hrc", f"province={hrc}",
               "-o", str(out), "--plot", str(picture), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["audit"]["protected"] and result["primary"] > 0
    frame = pd.read_csv(out)
    assert len(frame) == result["cells"] and set(frame.status) <= {
        "published", "primary", "secondary", "empty"}
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run("protect", str(data), "--dims", "province", "--response", "turnover",
              "--rule", "NK(1)")
    assert bad.returncode == 2 and "NK" in bad.stderr and "Traceback" not in bad.stderr

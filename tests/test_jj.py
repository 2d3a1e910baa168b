"""JJ format: lossless round trip on every shared instance, and parse errors naming the line."""

import io
import math

import numpy as np
import pytest
from helpers import INSTANCES

from cspopt.audit import audit
from cspopt.errors import InvalidCellError, NonAdditiveError, TableFormatError
from cspopt.io.jj import finite_bound, format_jj, parse_jj, read_jj, write_jj
from cspopt.solving import solve_interval

#: shared tables refused by design (tests/test_fuzz_regressions.py)
REFUSED = {"tiny_1e-12.jj"}


def test_round_trip_every_shared_instance(shared_instances):
    files = sorted(shared_instances.glob("*/*.jj"))
    assert len(files) >= 6
    for path in files:
        if path.name in REFUSED:
            continue
        table = read_jj(path)
        again = parse_jj(format_jj(table))
        assert table.equals(again), path
        assert [again.relations.terms(r) for r in range(again.num_relations)] == [
            table.relations.terms(r) for r in range(table.num_relations)]


def test_ex1_fields():
    t = read_jj(INSTANCES / "ex1.jj")
    assert t.num_cells == 15 and t.num_relations == 8
    assert t.sensitive_cells.tolist() == [5]
    assert t.values[5] == 137 and t.lower_protection[5] == pytest.approx(27.4)
    assert t.apriori_upper[0] == 7719 and t.costs[0] == 20000
    assert t.relations.terms(0) == [(0, -1.0), (3, 1.0), (6, 1.0), (9, 1.0), (12, 1.0)]


def test_write_marks_secondaries_and_infinite_bounds(tmp_path):
    t = read_jj(INSTANCES / "ex1.jj").replace(apriori_upper=np.inf)
    out = tmp_path / "out.jj"
    write_jj(t, out, suppressed=[4, 10, 11], infinity=math.inf)
    back = read_jj(out)
    assert back.status[[4, 10, 11]].tolist() == ["m"] * 3 and back.status[5] == "u"
    assert np.all(np.isinf(back.apriori_upper))
    buffer = io.StringIO()
    write_jj(t, buffer, infinity=1e9)
    assert "1000000000" in buffer.getvalue() and "inf" not in buffer.getvalue()


def test_default_writes_a_finite_bound_tauargus_can_read(tmp_path):
    """pytauargus misreads ``inf`` silently, so the default writes a finite bound, far
    beyond what an attacker needs, and the optimum on the written table is unchanged."""
    t = read_jj(INSTANCES / "ex1.jj").replace(apriori_upper=np.inf)
    text = format_jj(t)
    assert "inf" not in text
    back = parse_jj(text)
    bound = finite_bound(t)
    assert np.all(back.apriori_upper == bound) and bound >= 10 * np.abs(t.values).sum()
    written = solve_interval(back, weights=t.values)
    assert written.objective == pytest.approx(solve_interval(t, weights=t.values).objective)
    # a pattern that protects the written table protects the original
    assert audit(t, written.suppressed, requirement="interval", cells="sensitive").protected


GOOD = """0
3
0 3 3 s 0 10 0 0 0
1 1 1 u 0 10 1 1 0
2 2 2 s 0 10 0 0 0
1
0 3 : 0 (-1) 1(1) 2 (1)
"""


def test_compact_terms_parse():
    t = parse_jj(GOOD)
    assert t.relations.terms(0) == [(0, -1.0), (1, 1.0), (2, 1.0)]


@pytest.mark.parametrize(
    "text, error, fragment",
    [
        ("", TableFormatError, "empty"),
        (GOOD.replace("0\n3\n", "1\n3\n", 1), TableFormatError, "t.jj:1"),
        (GOOD.replace("2 2 2 s", "1 2 2 s"), TableFormatError, "t.jj:5: cell id 1 is listed twice"),
        (GOOD.replace("2 2 2 s", "7 2 2 s"), TableFormatError, "t.jj:5"),
        (GOOD.replace("1 1 1 u", "1 1 1 q"), TableFormatError, "t.jj:4: cell 1: unknown status"),
        (GOOD.replace("1 1 1 u 0 10", "1 x 1 u 0 10"), TableFormatError, "t.jj:4"),
        (GOOD.replace("1 1 1 u 0 10 1 1 0", "1 1 1 u 0 10 1 1"), TableFormatError, "9 fields"),
        (GOOD.replace("0 3 :", "0 4 :"), TableFormatError, "t.jj:7"),
        (GOOD.replace("2 (1)", "9 (1)"), TableFormatError, "unknown cell 9"),
        (GOOD.replace("0 3 :", "0 3"), TableFormatError, "t.jj:7"),
        (GOOD.replace("\n1\n0 3", "\n2\n0 3"), TableFormatError, "ends early"),
        (GOOD.replace("1 1 1 u 0 10 1 1 0", "1 nan 1 u 0 10 1 1 0"), InvalidCellError,
         "t.jj:4"),
        (GOOD.replace("2 2 2 s", "2 5 2 s"), NonAdditiveError, "t.jj:7"),
        (GOOD.replace("1 1 1 u 0 10 1 1 0", "1 1 1 u 0 10 2 1 0"), InvalidCellError, "t.jj:4"),
    ],
)
def test_malformed_jj_names_the_line(text, error, fragment):
    with pytest.raises(error) as err:
        parse_jj(text, path="t.jj")
    assert fragment in str(err.value)

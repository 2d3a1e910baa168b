"""Property tests: lossless JJ/JSON round trips for arbitrary tables."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cspopt import Table
from cspopt.io.jj import format_jj, parse_jj
from cspopt.io.jsonio import table_from_dict, table_to_dict

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@st.composite
def tables(draw):
    parts = draw(st.lists(finite, min_size=1, max_size=6))
    values = [sum(parts)] + parts  # cell 0 is the total of the others
    n = len(values)
    status = draw(st.lists(st.sampled_from("szm"), min_size=n, max_size=n))
    costs = draw(st.lists(st.floats(0, 1e9, allow_nan=False), min_size=n, max_size=n))
    lower = [v - draw(st.floats(0, 1e6, allow_nan=False)) for v in values]
    upper = [v + draw(st.one_of(st.just(np.inf), st.floats(0, 1e6, allow_nan=False)))
             for v in values]
    relation = [(0, -1.0)] + [(i, 1.0) for i in range(1, n)]
    return Table(values, costs=costs, status=status, apriori_lower=lower, apriori_upper=upper,
                 relations=[relation], nonnegative=False, additivity_tolerance=1e-6)


@settings(max_examples=150, deadline=None)
@given(tables())
def test_jj_and_json_round_trips_are_lossless(table):
    text = format_jj(table, infinity=math.inf)  # the default writes a finite bound
    assert table.equals(parse_jj(text, additivity_tolerance=1e-6, nonnegative=False))
    assert table.equals(table_from_dict(table_to_dict(table)))

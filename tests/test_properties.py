"""Property tests: lossless JJ/JSON round trips for arbitrary tables; the safe LP bound."""

import math

import numpy as np
import pytest
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


@st.composite
def bounded_lps(draw):
    """``min c x, rl <= A x <= ru, 0 <= x <= u`` with mixed row kinds (always feasible at
    ``x0``)."""
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    small = st.integers(-4, 4)
    matrix = np.array(draw(st.lists(small, min_size=m * n, max_size=m * n)), float).reshape(m, n)
    x0 = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
    upper = x0 + np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    activity = matrix @ x0
    kinds = draw(st.lists(st.sampled_from("<>="), min_size=m, max_size=m))
    row_lower = np.where([k in ">=" for k in kinds], activity, -np.inf)
    row_upper = np.where([k in "<=" for k in kinds], activity, np.inf)
    cost = np.array(draw(st.lists(small, min_size=n, max_size=n)), float)
    return matrix, cost, upper, row_lower, row_upper


@settings(max_examples=150, deadline=None)
@given(bounded_lps(), st.floats(0.0, 1.0))
def test_dual_bound_is_valid_for_any_duals(lp, noise):
    """The safe bound meets the LP optimum at HiGHS's duals and stays below it when they are
    perturbed, as solver round-off would."""
    import highspy
    import scipy.sparse as sp

    from cspopt.backends.highs import dual_bound, new_highs

    matrix, cost, upper, row_lower, row_upper = lp
    h = new_highs(sp.csc_matrix(matrix), cost, np.zeros(cost.size), upper, row_lower,
                  row_upper)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    optimum = h.getInfo().objective_function_value
    assert dual_bound(h) == pytest.approx(optimum, abs=1e-7)
    solution = h.getSolution()
    rng = np.random.default_rng(int(noise * 1e6))
    duals = np.asarray(solution.row_dual) + noise * rng.normal(size=matrix.shape[0])
    solution.row_dual = list(duals)
    h.setSolution(solution)
    assert dual_bound(h) <= optimum + 1e-7

"""Table model: construction, 2-D constructor, bipartite graph, and typed validation errors."""

import math

import numpy as np
import pytest

from cspopt import CellStatus, Dimension, Table
from cspopt.errors import (
    CspoptError,
    InfeasibleProtectionError,
    InvalidCellError,
    InvalidRelationError,
    InvalidTableError,
    NonAdditiveError,
    NotNetworkError,
    PatternError,
)

FIG1 = [[2, 3, 0], [1, 4, 1], [0, 5, 0]]  # Almeida & Carvalho (2005) Fig. 1, internal cells


def test_from_array_computes_marginals_and_relations():
    t = Table.from_array(FIG1, sensitive=[[1, 0, 0], [0, 0, 0], [0, 0, 0]])
    assert t.grid_shape == (4, 4)
    np.testing.assert_array_equal(t.to_array(), [[2, 3, 0, 5], [1, 4, 1, 6], [0, 5, 0, 5],
                                                 [3, 12, 1, 16]])
    assert t.num_relations == 8  # 4 row relations, then 4 column relations
    assert t.relations.terms(0) == [(3, -1.0), (0, 1.0), (1, 1.0), (2, 1.0)]
    assert t.relations.terms(4) == [(12, -1.0), (0, 1.0), (4, 1.0), (8, 1.0)]
    assert t.sensitive_cells.tolist() == [0]
    assert t.nonnegative and t.is_integer
    assert t.apriori_lower.tolist() == [0.0] * 16 and np.all(np.isinf(t.apriori_upper))
    np.testing.assert_array_equal(t.costs, t.values)


def test_from_array_margins_given_are_checked():
    full = [[2, 3, 5], [1, 4, 5], [3, 7, 10]]
    t = Table.from_array(full, margins="given")
    assert t.values.tolist() == [2, 3, 5, 1, 4, 5, 3, 7, 10]
    with pytest.raises(NonAdditiveError) as err:
        Table.from_array([[2, 3, 5], [1, 4, 6], [3, 7, 11]], margins="given")
    assert "relation 1" in str(err.value)


def test_from_array_accepts_a_pandas_crosstab():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"region": ["a", "a", "b", "b", "b"], "sex": ["f", "m", "f", "f", "m"]})
    tab = pd.crosstab(frame["region"], frame["sex"], margins=True, margins_name="Total")
    t = Table.from_array(tab, margins="given")
    assert t.labels[0] == ("a", "f") and t.labels[-1] == ("Total", "Total")
    assert t.dimensions[0].name == "region" and t.values[-1] == 5


def test_cost_presets():
    t = Table.from_array([[1, 0], [3, 4]], costs="unit")
    assert set(t.costs.tolist()) == {1.0}
    t = Table.from_array([[1, 0], [3, 4]], costs="log")
    assert t.costs[0] == pytest.approx(math.log(2))
    t = Table.from_array([[1, 0], [3, 4]], costs=np.arange(9))
    assert t.costs.tolist() == list(range(9))
    with pytest.raises(InvalidTableError):
        Table.from_array([[1, 0], [3, 4]], costs="area")


def test_bipartite_graph_of_a_2d_table():
    t = Table.from_array(FIG1)
    g = t.bipartite_graph()
    assert (g.num_rows, g.num_cols) == (4, 4)
    # cell (i, j) is the edge between row node i and column node j
    assert g.row_node.tolist() == [i for i in range(4) for _ in range(4)]
    assert g.col_node.tolist() == [j for _ in range(4) for j in range(4)]
    nx_graph = g.to_networkx()
    assert nx_graph.number_of_edges() == 16 and nx_graph.number_of_nodes() == 8
    # increasing an internal cell points from its row to its column, as arc (i, j) of H
    net = t.network()
    assert net.side[net.tail[0]] == net.side[0] and net.side[net.head[0]] != net.side[0]


def test_hierarchical_table_is_not_a_network():
    region = Dimension("region", ("T", "A", "a1", "a2", "B"), {"A": "T", "a1": "A", "a2": "A",
                                                                "B": "T"})
    sex = Dimension.flat("sex", ["T", "f", "m"], total="T")
    labels = [(r, s) for r in region.codes for s in sex.codes]
    internal = {("a1", "f"): 1, ("a1", "m"): 2, ("a2", "f"): 3, ("a2", "m"): 4, ("B", "f"): 5,
                ("B", "m"): 6}

    def value(r, s):
        rs = [r] if r in ("a1", "a2", "B") else (["a1", "a2"] if r == "A" else ["a1", "a2", "B"])
        ss = [s] if s != "T" else ["f", "m"]
        return sum(internal[(x, y)] for x in rs for y in ss)
    t = Table.from_labels(labels, [value(r, s) for r, s in labels], (region, sex))
    assert t.num_relations == 5 + 2 * 3  # sex totals per region code, region totals per sex code
    with pytest.raises(NotNetworkError):
        t.network()


@pytest.mark.parametrize(
    "kwargs, error, fragment",
    [
        (dict(values=[]), InvalidTableError, "no cells"),
        (dict(values=[1.0, float("nan")]), InvalidCellError, "cell 1"),
        (dict(values=[1.0, float("inf")]), InvalidCellError, "cell 1"),
        (dict(values=[1.0, -2.0], nonnegative=True), InvalidCellError, "cell 1"),
        (dict(values=[1.0, 2.0], apriori_lower=[0, -1], nonnegative=True), InvalidCellError,
         "cell 1"),
        (dict(values=[1.0, 2.0], status=["s", "x"]), InvalidCellError, "unknown status"),
        (dict(values=[1.0, 2.0], costs=[1, -1]), InvalidCellError, "cell 1"),
        (dict(values=[5.0, 2.0], status=["u", "s"], lower_protection=[6, 0]),
         InfeasibleProtectionError, "cell 0"),
        (dict(values=[5.0, 2.0], status=["u", "s"], upper_protection=[3, 0],
              apriori_upper=[7, 9]), InfeasibleProtectionError, "cell 0"),
        (dict(values=[3.0, 1.0, 2.0], relations=[[(0, -1), (1, 1), (2, 1)], [(0, 1), (7, 1)]]),
         InvalidRelationError, "unknown cell 7"),
        (dict(values=[3.0, 1.0, 2.0], relations=[[(0, -1), (1, 1), (1, 1)]]),
         InvalidRelationError, "more than once"),
        (dict(values=[3.0, 1.0, 2.0], relations=[[(0, -1), (1, 1), (2, 1)], []]),
         InvalidRelationError, "relation 1"),
        (dict(values=[4.0, 1.0, 2.0], relations=[[(0, -1), (1, 1), (2, 1)]]), NonAdditiveError,
         "relation 0"),
        (dict(values=[1.0, 2.0], apriori_lower=[2, 0]), InvalidCellError, "outside"),
    ],
)
def test_bad_tables_raise_typed_errors(kwargs, error, fragment):
    values = kwargs.pop("values")
    with pytest.raises(error) as err:
        Table(values, **kwargs)
    assert fragment in str(err.value)
    assert isinstance(err.value, CspoptError) and isinstance(err.value, ValueError)


def test_additivity_tolerance_is_relative():
    big = 16847646.84
    Table([big, big - 0.84, 0.84], relations=[[(0, -1), (1, 1), (2, 1)]])
    with pytest.raises(NonAdditiveError) as err:
        Table([big, big - 0.84, 0.85], relations=[[(0, -1), (1, 1), (2, 1)]])
    assert err.value.relation == 0 and err.value.residual == pytest.approx(0.01)


def test_pattern_validation():
    t = Table.from_array(FIG1, sensitive=[[1, 0, 0], [0, 0, 0], [0, 0, 0]],
                         must_publish=[[0, 0, 0], [0, 1, 0], [0, 0, 0]])
    assert np.flatnonzero(t.pattern([2])).tolist() == [0, 2]
    with pytest.raises(PatternError) as err:
        t.pattern([2, 99])
    assert err.value.cells == (99,)
    with pytest.raises(PatternError, match="must be published"):
        t.pattern([5])
    with pytest.raises(PatternError):
        t.pattern([1.5])


def test_status_codes_and_replace():
    t = Table([3.0, 1.0, 2.0], status=["s", "sensitive", CellStatus.SECONDARY],
              relations=[[(0, -1), (1, 1), (2, 1)]])
    assert t.status.tolist() == ["s", "u", "m"]
    general = t.replace(nonnegative=False, apriori_lower=-np.inf)
    assert not general.nonnegative and np.all(np.isneginf(general.apriori_lower))
    assert not t.equals(general) and t.equals(t.replace())

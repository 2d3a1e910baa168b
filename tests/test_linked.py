"""Deviation classes (cells that move together): soundness against the null space, and the
optimum they leave unchanged (brute force, compact MIP, branch-and-cut)."""

import math

import numpy as np
import pytest
import scipy.linalg as sl
from helpers import INSTANCES
from oracles import brute_force_interval

from cspopt import Table
from cspopt.bounds.capacity import capacity_lp
from cspopt.io import read_table
from cspopt.models.interval import build_interval_instance
from cspopt.models.interval.capacity import CapacityOracle
from cspopt.models.interval.linked import deviation_classes
from cspopt.solving import solve_branch_and_cut, solve_interval


def table_with_copies(data, copies, *, sensitive, protection, costs="value"):
    """A 2-D table with marginals plus, per ``(i, j)`` in ``copies``, a cell ``c`` with the
    relation ``c - a_ij = 0`` (a hierarchy node with one child)."""
    base = Table.from_array(data, sensitive=sensitive, lower_protection=protection,
                            upper_protection=protection)
    n = base.num_cells
    cols = np.asarray(data).shape[1] + 1
    ids = [i * cols + j for i, j in copies]
    relations = [base.relations.terms(r) for r in range(len(base.relations))]
    relations += [[(n + k, 1.0), (cell, -1.0)] for k, cell in enumerate(ids)]
    extend = lambda a: np.r_[a, np.zeros(len(ids))]  # noqa: E731
    return Table(np.r_[base.values, base.values[ids]], costs=costs,
                 status=list(base.status) + ["s"] * len(ids), relations=relations,
                 lower_protection=extend(base.lower_protection),
                 upper_protection=extend(base.upper_protection),
                 apriori_upper=10 * base.values.max())  # finite: not a 2-D table any more


def assert_classes_sound(relations):
    labels = deviation_classes(relations)
    basis = sl.null_space(relations.toarray())
    assert np.allclose(basis[labels == -1], 0.0, atol=1e-9)
    for label in np.unique(labels[labels >= 0]):
        rows = basis[labels == label]
        assert np.linalg.matrix_rank(rows, tol=1e-8) == 1  # proportional deviations
    return labels


def test_chains_link_and_single_cell_relations_fix():
    # x0 = x1, x1 = 2 x2, x3 + x4 + x5 = 0, x6 = 0 (a relation with one cell)
    import scipy.sparse as sp
    rel = sp.csr_matrix(np.array([[1, -1, 0, 0, 0, 0, 0], [0, 1, -2, 0, 0, 0, 0],
                                  [0, 0, 0, 1, 1, 1, 0], [0, 0, 0, 0, 0, 0, 3]], float))
    labels = assert_classes_sound(rel)
    assert labels[0] == labels[1] == labels[2] >= 0 and labels[6] == -1
    assert len({labels[3], labels[4], labels[5], labels[0]}) == 4


def test_classes_are_sound_on_shipped_and_generated_tables():
    pp = read_table(INSTANCES / "pp_shadow.jj")
    assert_classes_sound(pp.relation_matrix)
    # its 43 empty cells are published: totals left with one unpublished part link to it
    labels = assert_classes_sound(build_interval_instance(pp).relations)
    assert np.bincount(labels[labels >= 0]).max() >= 2
    t = table_with_copies([[5, 8, 3], [7, 2, 9]], [(0, 0), (1, 2)], sensitive=[[1, 0, 0]] * 2,
                          protection=2)
    assert_classes_sound(t.relation_matrix)


def test_linked_cells_keep_the_optimum_and_raise_the_bound():
    rng = np.random.default_rng(11)
    checked = raised = 0
    while checked < 25:
        m, n = rng.integers(2, 4, size=2)
        data = rng.integers(1, 20, size=(m, n))
        sensitive = rng.random((m, n)) < 0.3
        copies = {(int(rng.integers(m)), int(rng.integers(n))) for _ in range(2)}
        if not sensitive.any() or (m + 1) * (n + 1) + len(copies) - sensitive.sum() > 13:
            continue
        protection = np.ceil(rng.uniform(0.1, 0.6) * data)
        t = table_with_copies(data, sorted(copies), sensitive=sensitive, protection=protection,
                              costs=str(rng.choice(["value", "unit"])))
        expected = brute_force_interval(t)
        compact = solve_interval(t)
        bc = solve_branch_and_cut(t)
        if math.isinf(expected):
            assert compact.status == bc.status == "infeasible"
        else:
            for result in (compact, bc):
                assert result.proven_optimal and result.objective == pytest.approx(expected)
                assert result.audit.protected
            inst = build_interval_instance(t)
            lp = solve_interval(t, relax=True).lower_bound
            root = capacity_lp(inst, CapacityOracle(inst))[0]
            assert lp <= expected + 1e-6 and root <= expected + 1e-6
            raised += inst.link_matrix().shape[0] > 0
        checked += 1
    assert raised > 10  # the copies produced links on most tables

"""The sparse kernel basis of a table's relations, and the attacker LP in its coordinates."""

import numpy as np
import scipy.sparse as sp
from oracles import cube_table

from cspopt.io import read_table
from cspopt.models.interval import build_interval_instance
from cspopt.models.interval.capacity import CapacityOracle
from cspopt.table.kernel import kernel_basis


def _check_basis(relations, dimension):
    basis = kernel_basis(relations)
    a = sp.csr_matrix(relations).toarray()
    assert basis is not None and basis.shape == (a.shape[1], dimension)
    assert np.abs(a @ basis.toarray()).max() < 1e-12
    assert np.linalg.matrix_rank(basis.toarray()) == dimension
    assert dimension == a.shape[1] - np.linalg.matrix_rank(a)
    return basis


def test_kernel_basis_of_a_3d_table_is_its_internal_cells():
    rng = np.random.default_rng(0)
    cube = cube_table(rng.integers(1, 9, (3, 2, 4)), np.zeros((3, 2, 4), bool), "value", 0, 1)
    basis = _check_basis(cube.relations.matrix(cube.values.size), 24)
    assert set(np.unique(basis.data)) == {1.0}
    # each cell adds up the internal cells below it: the grand total all 24
    assert np.diff(basis.indptr).max() == 24


def test_kernel_basis_where_a_total_has_two_breakdowns():
    """T = a + b and T = c + d (CSPLIB hier13 gives totals twice): the parts a, b, c, d are
    not free of each other; the leftover relation a + b = c + d is eliminated."""
    relations = sp.csr_matrix(np.array([[-1, 1, 1, 0, 0], [-1, 0, 0, 1, 1.0]]))
    _check_basis(relations, 3)


def test_kernel_basis_refuses_relations_that_are_not_sums():
    assert kernel_basis(sp.csr_matrix(np.array([[1, 1, -1, -1.0]]))) is None


def test_kernel_basis_of_csplib_hier13(shared_instances):
    table = read_table(shared_instances / "csplib" / "hier13.jj")
    basis = _check_basis(build_interval_instance(table).relations, 126)
    assert basis.nnz == 10_648 and set(np.unique(basis.data)) == {1.0}


def test_attacker_lp_in_kernel_coordinates_equals_the_relations_lp():
    """At wide points (every y_i > 0: the kernel form) and others, capped and with the true
    rooms, both forms attain the same move, and each capacity bounds it at the point."""
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(4):
        sensitive = rng.random((3, 3, 2)) < 0.25
        cube = cube_table(rng.integers(1, 30, (3, 3, 2)), sensitive, "value", 0.2, 1.0)
        inst = build_interval_instance(cube, preprocessing=False)
        kernel, relations = CapacityOracle(inst), CapacityOracle(inst)
        relations.lps.use_kernel = False
        assert kernel.lps.kernel_form()
        for _ in range(5):
            wide = rng.random() < 0.5
            y = rng.uniform(0.5, 1.0, kernel.num_free) if wide else (
                rng.random(kernel.num_free) * (rng.random(kernel.num_free) < 0.5))
            y[~kernel.is_candidate] = 1.0
            for k in range(inst.protected.size):
                unit = inst.requirement_unit[k]
                for upward in (True, False):
                    for capped in (True, False):
                        one = kernel.lps.side(k, upward, y, capped=capped)
                        other = relations.lps.side(k, upward, y, capped=capped)
                        assert abs(one.attained - other.attained) <= 1e-7 * unit
                        for side in (one, other):  # inf: the move's bound gives no cut
                            assert (np.isinf(side.capacity).all()
                                    or side.capacity @ y >= side.attained - 1e-7 * unit)
                        checked += 1
    assert checked >= 100

"""Publishing the suppressions no proof moves (cspopt.solving.unmoved): what the covering
proofs do not move is published, the smaller pattern passes the independent audit with them,
and proofs that leave a side unproven publish nothing."""

import numpy as np
import pytest

import cspopt
from cspopt import Table
from cspopt.audit import audit
from cspopt.models.interval import build_interval_instance
from cspopt.solving.audited import pattern_cells, repair_interval_pattern
from cspopt.audit.proofs import covering_proofs
from cspopt.solving.unmoved import publish_unmoved
from cspopt.table.generators import hierarchical_2d


def _two_rectangles():
    """A 4x4 table with margins (cells ``5 r + c``), cell (0, 0) sensitive with levels 5,
    suppressed with the rectangle it closes and a second, needless rectangle."""
    sensitive = np.zeros((4, 4), dtype=bool)
    sensitive[0, 0] = True
    table = Table.from_array(np.arange(1, 17).reshape(4, 4) * 10, sensitive=sensitive,
                             lower_protection=5, upper_protection=5)
    return table, [0, 1, 5, 6], [12, 13, 17, 18]


def test_the_suppressions_no_proof_moves_are_published():
    table, first, second = _two_rectangles()
    inst = build_interval_instance(table, preprocessing=False)
    y = np.isin(inst.candidates, first + second).astype(float)
    cycle = (np.array(first), np.array([5.0, -5.0, -5.0, 5.0]))  # (0,0) up by 5
    found = publish_unmoved(inst, y, [cycle])
    assert found is not None
    cleaned, checked, chosen = found
    assert sorted(pattern_cells(inst, cleaned)) == [1, 5, 6]
    assert checked.protected and checked.num_solves == 0  # the proofs alone settle it
    assert audit(table, pattern_cells(inst, cleaned), requirement="interval").protected
    assert len(chosen) == 2  # the cycle, and its negation for the lower side


@pytest.mark.parametrize("proofs", [[], [(np.array([0, 1, 5, 7]),  # 7 is published
                                          np.array([5.0, -5.0, -5.0, 5.0]))]])
def test_proofs_that_leave_a_side_unproven_publish_nothing(proofs):
    table, first, second = _two_rectangles()
    inst = build_interval_instance(table, preprocessing=False)
    y = np.isin(inst.candidates, first + second).astype(float)
    assert publish_unmoved(inst, y, proofs) is None
    assert covering_proofs(table, table.pattern(first + second), proofs,
                           np.ones(table.num_cells)) is None


@pytest.mark.parametrize("seed", [1, 2])
def test_a_repaired_pattern_cleaned_by_its_proofs_passes_the_audit(seed):
    """Modular's pattern with a needless block of suppressions added, repaired (its
    proofs kept), then cleaned: never dearer, always audited."""
    table = hierarchical_2d(12, 6, seed=seed)
    inst = build_interval_instance(table)
    start = cspopt.solve(table, method="modular").suppressed
    extra = inst.candidates[-10:]
    y = np.isin(inst.candidates, np.r_[start, extra]).astype(float)
    proofs = []
    y, checked, _ = repair_interval_pattern(inst, y, {}, proofs=proofs)
    assert checked.protected and proofs
    found = publish_unmoved(inst, y, proofs)
    assert found is not None
    cleaned = found[0]
    weights = inst.weights[inst.candidates]
    assert weights @ cleaned < weights @ y
    assert audit(table, pattern_cells(inst, cleaned), requirement="interval",
                 cells="sensitive").protected


def test_the_sliding_level_takes_proofs_that_span_it():
    """A sliding level of 12 over moves of 5 each way: the cover adds the proof that moves
    the cell furthest; proofs that span less leave it unproven."""
    sensitive = np.zeros((4, 4), dtype=bool)
    sensitive[0, 0] = True
    table = Table.from_array(np.arange(1, 17).reshape(4, 4) * 10, sensitive=sensitive,
                             lower_protection=5, upper_protection=5, sliding_protection=12)
    first = np.array([0, 1, 5, 6])
    small = (first, np.array([5.0, -5.0, -5.0, 5.0]))
    wide = (first, np.array([10.0, -10.0, -10.0, 10.0]))
    chosen = covering_proofs(table, table.pattern(first), [small, wide],
                             np.ones(table.num_cells))
    moves = [d[0] for _, d in chosen]
    assert max(moves) - min(moves) >= 12
    assert audit(table, [1, 5, 6], requirement="interval").protected
    assert covering_proofs(table, table.pattern(first), [small],
                           np.ones(table.num_cells)) is None

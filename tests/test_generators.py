"""Generators: seeded, documented rules hold, tables are valid and auditable."""

import numpy as np
import pytest

from cspopt import audit
from cspopt.errors import InputError
from cspopt.table import generators


@pytest.mark.parametrize("kind", sorted(generators.KINDS))
def test_generators_are_seeded_and_valid(kind):
    a = generators.generate(kind, 12, 7, seed=3)
    b = generators.generate(kind, 12, 7, seed=3)
    c = generators.generate(kind, 12, 7, seed=4)
    assert a.equals(b) and not a.equals(c)
    assert a.nonnegative and a.is_integer
    s = a.sensitive
    assert np.all(a.lower_protection[~s] == 0) and np.all(a.values[s] > 0)
    # suppressing everything that may be suppressed protects every sensitive cell here
    everything = np.flatnonzero(~a.must_publish)
    result = audit(a, everything, requirement="exact")
    assert result.protected or kind == "class1"


def test_class1_rules():
    t = generators.gensup_class1(30, 20, seed=1)
    grid = t.values.reshape(31, 21)
    internal = grid[:30, :20]
    sens = t.sensitive.reshape(31, 21)
    assert np.array_equal(sens[:30, :20], (internal >= 1) & (internal <= 4))
    assert not sens[30].any() and not sens[:, 20].any()
    assert internal.max() <= 499
    v = t.values[t.sensitive]
    assert np.array_equal(t.upper_protection[t.sensitive], v)
    assert np.array_equal(t.lower_protection[t.sensitive], v - 1)
    assert np.array_equal(t.must_publish, t.values == 0)


def test_class2_and_set2_rules():
    t = generators.gensup_class2(40, 40, seed=2)
    grid = t.sensitive.reshape(41, 41)
    assert 0.15 < grid[:40, :40].mean() < 0.25 and 0.03 < np.r_[grid[40], grid[:40, 40]].mean() < 0.2
    v = t.values[t.sensitive]
    assert np.array_equal(t.lower_protection[t.sensitive], np.ceil(0.15 * v))
    s2 = generators.almeida_carvalho_set2(49, 9, seed=0)
    assert s2.sensitive.sum() == round(0.05 * 49 * 9) + round(0.025 * 59)
    assert not s2.must_publish.any()  # zero cells may be suppressed in (P_N)


def test_set1_density_matches_almeida_carvalho_table2():
    p = [generators.almeida_carvalho_set1(99, 99, seed=s).sensitive.sum() for s in range(3)]
    assert 330 < np.mean(p) < 450  # Table 2 reports p = 385.0 at 100x100


def test_smith_factors_and_hierarchy():
    t = generators.smith_factors(200, 5, seed=0, sensitive=0.1, zeros=0.25)
    internal = t.values.reshape(201, 6)[:200, :5]
    assert 0.2 < (internal == 0).mean() < 0.3
    h = generators.hierarchical_2d(9, 4, seed=0)
    assert h.dimensions[0].children("T") == ["G1", "G2", "G3"]
    assert h.num_relations == 13 * 1 + 5 * 4  # row totals per row code; 4 parents x 5 cols
    with pytest.raises(InputError):
        generators.generate("nope", 3, 3)
    with pytest.raises(InputError):
        generators.smith_factors(3, 3, zeros=2)

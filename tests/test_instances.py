"""The optima recorded in instances/README.md, re-proven by enumeration with the graph audit."""

import numpy as np
import pytest
from helpers import INSTANCES

from cspopt import graph_audit
from cspopt.io import read_table


def _brute_force_optimum(table):
    free = np.flatnonzero(~table.sensitive & ~table.must_publish)
    best, patterns = None, []
    for mask in range(1 << free.size):
        pattern = free[[(mask >> i) & 1 == 1 for i in range(free.size)]]
        cost = table.costs[pattern].sum()
        if best is not None and cost > best:
            continue
        if graph_audit(table, pattern).protected:
            if best is None or cost < best:
                best, patterns = cost, [sorted(pattern.tolist())]
            else:
                patterns.append(sorted(pattern.tolist()))
    return best, patterns


@pytest.mark.parametrize("name, value_opt, unit_opt", [("ac2005_fig3", 1, 3), ("ac2005_fig4", 2, 3)])
def test_figure_tables_optima(name, value_opt, unit_opt):
    table = read_table(INSTANCES / f"{name}.jj")
    assert table.sensitive_cells.tolist() == [0] and table.values[0] == 2
    best, patterns = _brute_force_optimum(table)
    assert best == value_opt and patterns == [[2, 8, 10]]
    best, patterns = _brute_force_optimum(table.replace(costs="unit"))
    assert best == unit_opt and len(patterns) == 9
    general = table.replace(nonnegative=False, apriori_lower=-np.inf)
    assert _brute_force_optimum(general)[0] == value_opt

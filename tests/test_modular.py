"""Modular (cspopt.solving.modular) and the subtables it works on (cspopt.table.subtables):
the subtables hold every cell and relation, top-down; every pattern passes the whole table's
audit and costs at least the proven optimum; a table without dimensions is refused."""

import numpy as np
import pytest
from helpers import INSTANCES

import cspopt
from cspopt.audit import audit
from cspopt.errors import InputError
from cspopt.io import read_table
from cspopt.solving import solve_branch_and_cut
from cspopt.table.generators import hierarchical_2d
from cspopt.table.subtables import subtables


def test_subtables_hold_every_cell_and_relation_top_down():
    table = hierarchical_2d(10, 6, seed=1)
    parts = subtables(table)
    assert [p.level for p in parts] == sorted(p.level for p in parts)
    assert parts[0].parents == tuple(d.total for d in table.dimensions)
    cells, relations = np.zeros(table.num_cells, bool), np.zeros(table.num_relations, bool)
    for part in parts:
        cells[part.cells] = True
        relations[part.relations] = True
        local = part.extract(table, fixed=part.cells[:2])  # additive, or it would raise
        assert local.num_cells == part.cells.size
        assert local.num_relations == part.relations.size
        held = ~table.sensitive[part.cells[:2]]
        assert local.sensitive[:2][held].all()
        assert (local.upper_protection[:2][held] == 0).all()
    assert cells.all() and relations.all()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_modular_patterns_pass_the_whole_tables_audit_and_cost_at_least_the_optimum(seed):
    table = hierarchical_2d(12, 6, seed=seed)
    found = cspopt.solve(table, method="modular")
    optimum = solve_branch_and_cut(table)
    assert optimum.proven_optimal
    assert found.audit.protected and audit(table, found.suppressed, requirement="interval",
                                           cells="sensitive").protected
    assert found.lower_bound <= optimum.objective + 1e-6 <= found.objective + 2e-6
    assert found.model_size["subtables"] == len(subtables(table))


def test_modular_protects_microdata_with_a_hierarchy():
    protected = cspopt.protect(INSTANCES / "survey.csv", ["province", "activity"],
                               response="turnover", rules="NK(1,60)|NK(2,85)|FREQ(3,10)",
                               hierarchies={"province": INSTANCES / "province.hrc"},
                               method="modular")
    result = protected.result
    assert result.has_pattern and audit(protected.table, result.suppressed,
                                        requirement="interval").protected
    assert result.lower_bound <= 144_222 <= result.objective  # the optimum (instances/README)


def test_modular_refuses_a_table_without_dimensions_and_options_it_does_not_take():
    with pytest.raises(InputError, match="Modular needs the table's dimensions"):
        cspopt.solve(read_table(INSTANCES / "pp_shadow.jj"), method="modular")
    with pytest.raises(InputError, match="not method 'modular'"):
        cspopt.solve(hierarchical_2d(12, 6, seed=1), method="modular", seed=3)


def test_a_plain_2d_table_with_relations_only_is_one_subtable():
    table = read_table(INSTANCES / "fuzz" / "fz_2d_111.jj")
    (part,) = subtables(table)
    assert part.cells.size == table.num_cells and part.relations.size == table.num_relations
    found = cspopt.solve(table, method="modular")
    assert found.audit.protected and found.lower_bound <= 9 <= found.objective  # optimum 9

"""From microdata to a protected table: tabulation with hierarchies
(:mod:`~cspopt.microdata.tabulate`), tau-ARGUS' sensitivity rules and protection levels
(:mod:`~cspopt.microdata.rules`), and :func:`protect`, which solves the resulting table with
a certificate and reports cell by cell (:mod:`~cspopt.microdata.protect`).
"""

from cspopt.microdata.protect import CELL_STATUSES, ProtectedTable, build_table, protect
from cspopt.microdata.rules import (
    CellContributions,
    DominanceRule,
    FrequencyRule,
    PPercentRule,
    PQRule,
    Rule,
    ZeroRule,
    apply_rules,
    parse_rules,
)
from cspopt.microdata.release import Release, ReleasedTable, TableRequest, protect_many
from cspopt.microdata.tabulate import Tabulation, read_microdata, tabulate

__all__ = ["protect", "protect_many", "Release", "ReleasedTable", "TableRequest",
           "ProtectedTable", "build_table", "CELL_STATUSES", "tabulate",
           "Tabulation", "read_microdata", "parse_rules", "apply_rules", "Rule",
           "DominanceRule", "PPercentRule", "PQRule", "FrequencyRule", "ZeroRule",
           "CellContributions"]

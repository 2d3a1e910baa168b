"""The statistical table: cells, relations, structure, and its network view.

:class:`Table` holds the cells and their linear relations (any linear table);
:mod:`cspopt.table.structure` the dimensions and hierarchies that generate relations;
:mod:`cspopt.table.network` the directed-graph view of 2-D tables (Almeida & Carvalho 2005
§2); :mod:`cspopt.table.generators` seeded random tables of the papers' designs.
"""

from cspopt.table.network import BipartiteGraph, TableNetwork
from cspopt.table.structure import Dimension
from cspopt.table.table import (
                                COST_PRESETS,
                                CellStatus,
                                Relations,
                                Table,
                                cell_costs,
                                min_protection_level,
                                total_cells,
)

__all__ = ["Table", "CellStatus", "Relations", "Dimension", "TableNetwork", "BipartiteGraph",
           "COST_PRESETS", "cell_costs", "total_cells", "min_protection_level"]

"""cspopt: exact cell suppression for statistical tables.

The foundation layer: :class:`Table` (cells, protection levels, relations), readers and
writers (:func:`read_table`, :func:`write_table`), the independent attacker audits
(:func:`audit`, :func:`graph_audit`) and seeded instance generators (:mod:`cspopt.table.generators`).
"""

from cspopt.audit import AuditResult, CellAudit, audit, graph_audit
from cspopt.errors import CspoptError
from cspopt.result import SolveResult
from cspopt.solving import solve_exact
from cspopt.solving.api import bound, certify, solve
from cspopt.table import CellStatus, Table
from cspopt.table.structure import Dimension

__version__ = "0.1.0"

__all__ = [
    "Table", "CellStatus", "Dimension", "audit", "graph_audit", "AuditResult", "CellAudit",
    "CspoptError", "solve", "bound", "certify", "solve_exact", "SolveResult", "__version__",
]

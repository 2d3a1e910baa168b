"""cspopt: exact cell suppression for statistical tables.

The foundation layer: :class:`Table` (cells, protection levels, relations), readers and
writers (:func:`read_table`, :func:`write_table`), the independent attacker audits
(:func:`audit`, :func:`graph_audit`) and seeded instance generators (:mod:`cspopt.generators`).
"""

from cspopt.audit import AuditResult, CellAudit, audit, graph_audit
from cspopt.certified import bound, certify, solve
from cspopt.errors import CspoptError
from cspopt.formulations import solve_exact
from cspopt.result import SolveResult
from cspopt.structure import Dimension
from cspopt.table import CellStatus, Table

__version__ = "0.1.0"

__all__ = [
    "Table", "CellStatus", "Dimension", "audit", "graph_audit", "AuditResult", "CellAudit",
    "CspoptError", "solve", "bound", "certify", "solve_exact", "SolveResult", "__version__",
]

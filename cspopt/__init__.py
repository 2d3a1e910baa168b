"""cspopt: exact cell suppression for statistical tables.

The front door: :class:`Table` (cells, protection levels, relations; readers and writers in
:mod:`cspopt.io`), :func:`solve`, :func:`bound` and :func:`certify` (both protections, every
pattern audited, every bound valid), :func:`solve_exact` (the compact MIP of (P)/(P_N)),
:func:`protect` (microdata to a protected table: :mod:`cspopt.microdata`),
:func:`protect_many` (a release of tables, linked where they share cells), and the
independent attacker audits :func:`audit` and :func:`graph_audit`. The packages below
follow the data flow (docs/architecture.md): table, models, bounds and heuristics, solving,
audit.
"""

from cspopt.audit import AuditResult, CellAudit, audit, graph_audit
from cspopt.errors import CspoptError
from cspopt.microdata import protect, protect_many
from cspopt.result import SolveResult
from cspopt.solving import bound, certify, solve, solve_exact
from cspopt.table import CellStatus, Dimension, Table

__version__ = "0.1.0"

__all__ = [
    "Table", "CellStatus", "Dimension", "audit", "graph_audit", "AuditResult", "CellAudit",
    "CspoptError", "solve", "bound", "certify", "solve_exact", "SolveResult", "protect",
    "protect_many", "__version__",
]

"""Independent attacker audits of suppression patterns.

:func:`audit` solves the attacker's LPs for any linear table; :func:`graph_audit` answers the
exact-disclosure question by graph search on 2-D (network) tables. Neither uses any of
cspopt's optimisation models, so they can check every pattern cspopt or another tool returns.
A protected interval verdict keeps its proofs (:mod:`cspopt.audit.proofs`): attacker
completions any later audit checks without an LP.
"""

from cspopt.audit.graph import graph_audit
from cspopt.audit.lp import (
    LOCAL_AUDIT_FROM,
    audit,
    audit_seconds,
    interval_verdict,
    unproven_cells,
)
from cspopt.audit.proofs import load_proofs, save_proofs
from cspopt.audit.result import REQUIREMENTS, AuditResult, CellAudit

__all__ = ["audit", "audit_seconds", "interval_verdict", "unproven_cells", "graph_audit",
           "AuditResult", "CellAudit", "REQUIREMENTS", "LOCAL_AUDIT_FROM", "save_proofs",
           "load_proofs"]

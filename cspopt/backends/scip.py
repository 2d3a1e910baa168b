"""SCIP (pyscipopt): a model with cspopt's limits, and SCIP's statuses in cspopt's terms."""

from __future__ import annotations

__all__ = ["new_scip", "TERMINATION"]

TERMINATION = {"optimal": "optimal", "timelimit": "time_limit", "infeasible": "infeasible",
                "gaplimit": "gap_limit", "userinterrupt": "interrupted", "nodelimit": "interrupted",
                "sollimit": "interrupted", "bestsollimit": "interrupted",
                "totalnodelimit": "interrupted", "stallnodelimit": "interrupted",
                "memlimit": "interrupted", "primallimit": "interrupted"}


def new_scip(name: str, *, time_limit, gap: float, verbose: bool):
    """A SCIP model with cspopt's limits, silent unless ``verbose``."""
    from pyscipopt import Model

    model = Model(name)
    if not verbose:
        model.hideOutput()
    if time_limit is not None:
        model.setParam("limits/time", float(time_limit))
    model.setParam("limits/gap", float(gap))
    return model

"""Graph audit of exact disclosure for network (2-D) tables.

On a network table (see :mod:`cspopt.table.network`) a change of the suppressed cells keeps the
table additive exactly when it is a circulation on their arcs. Cell ``c`` may increase when
``a_c < ub_c`` (arc ``tail -> head``) and decrease when ``a_c > lb_c`` (arc ``head -> tail``).
A sensitive cell ``k`` can be moved up exactly when its increase arc lies on a directed cycle
of these arcs, i.e. when ``head_k`` reaches ``tail_k`` without using ``k`` itself; down
likewise with the roles swapped.

* With no a-priori bounds every arc exists in both directions and this is the circuit
  condition for general tables (Carvalho, Dellaert & Osorio 1994; Almeida & Carvalho 2005
  §3: a sensitive edge must lie on a circuit of suppressed edges).
* With ``lb = 0`` it is the directed-path condition in graph ``H`` for nonnegative integer
  tables (Almeida & Carvalho 2005 §4): zero cells give no decreasing arc; a unit step along
  the cycle is an integer completion, so continuous and integer answers coincide.

Cost: one breadth-first search per sensitive cell on ``|S|`` arcs.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from cspopt.audit.judge import assemble, judge_cell, resolve_options
from cspopt.audit.result import AuditResult

__all__ = ["graph_audit"]


def graph_audit(
    table,
    suppressed: Iterable[int] | np.ndarray = (),
    *,
    integer: bool | None = None,
) -> AuditResult:
    """Exact-disclosure audit of a network table by reachability.

    Parameters
    ----------
    table : Table
        Must be a network table (every 2-D table with marginals is).
    suppressed : iterable of int or bool mask
        Complementary suppressions; sensitive cells are always added.
    integer : bool, optional
        Recorded in the result; on network tables integer and continuous answers agree.

    Returns
    -------
    AuditResult
        ``requirement="exact"``, ``method="graph"``; ``low``/``high`` are ``nan``.

    Raises
    ------
    NotNetworkError
        If the table is not a network table.
    PatternError
        Unknown cell ids or suppressed must-publish cells.
    """
    started = time.perf_counter()
    _, integer = resolve_options(table, "exact", integer)
    net = table.network()
    mask = table.pattern(suppressed)
    cells = np.flatnonzero(mask)
    a, lo, hi = table.values[cells], table.apriori_lower[cells], table.apriori_upper[cells]
    up, down = a < hi, a > lo
    # arcs: one per feasible direction of each suppressed cell; remember its cell
    src = np.concatenate([net.tail[cells][up], net.head[cells][down]])
    dst = np.concatenate([net.head[cells][up], net.tail[cells][down]])
    owner = np.concatenate([cells[up], cells[down]])
    results = []
    for k in table.sensitive_cells.tolist():
        keep = owner != k
        graph = sp.csr_matrix((np.ones(int(keep.sum())), (src[keep], dst[keep])),
                              shape=(net.num_nodes, net.num_nodes))
        tail, head = int(net.tail[k]), int(net.head[k])
        can_inc = bool(table.values[k] < table.apriori_upper[k]) and _reaches(graph, head, tail)
        can_dec = bool(table.values[k] > table.apriori_lower[k]) and _reaches(graph, tail, head)
        results.append(judge_cell(table, k, np.nan, np.nan, can_dec, can_inc, "exact", 0.0))
    return assemble(table, mask, results, requirement="exact", integer=integer,
                    method="graph", num_solves=len(results), started=started)


def _reaches(graph: sp.csr_matrix, source: int, target: int) -> bool:
    if source == target:
        return True
    order = breadth_first_order(graph, source, directed=True, return_predecessors=False)
    return bool(np.any(order == target))

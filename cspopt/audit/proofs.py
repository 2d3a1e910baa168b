"""The proofs of an interval verdict: attacker completions, chosen, saved and read.

A pattern protects a sensitive cell's upper side when some attacker completion (a solution
of the attacker's system: every relation met, the published cells at their values, the
suppressed ones within their a-priori bounds; Fischetti & Salazar-Gonzalez 1999, Smith et
al. 2012 eqs 3-7) moves the cell at least its upper protection level up, and likewise down;
the sliding level asks the moves seen to span it. Those completions are the proofs of a
protected verdict: anyone can check one in a sparse product, with no LP solver (the audit's
:meth:`~cspopt.audit.lp.AttackerLP.accept`), where finding it took an LP over the whole
pattern (seconds to a minute each on a 38,000-cell table). So an audit that finds a pattern
protected keeps a covering set of them (:attr:`cspopt.audit.AuditResult.proofs`), and a
later audit of the same pattern, by cspopt or by a user, checks those first and solves LPs
only for what they leave open: the certificate of a returned pattern.

The covering set is chosen greedily, each side covered by the completion that moves the
least cost not yet moved (Chvátal 1979's greedy rule for set covering, side by side).
Proofs are stored as ``(cells, deviations)``: 0-based cell ids and the completion's
deviations from the table's values there (zero elsewhere).

Complexity: one sparse product over the completions covering each side.
"""

from __future__ import annotations

import zipfile

import numpy as np
import scipy.sparse as sp

from cspopt.audit.judge import TOLERANCE, side_proven, tolerance_for
from cspopt.errors import InputError

__all__ = ["covering_proofs", "save_proofs", "load_proofs"]


def save_proofs(path, proofs) -> None:
    """Write ``proofs`` (each ``(cells, deviations)``) to ``path`` as ``.npz``: the arrays
    ``cells`` and ``deviations`` of all of them in turn, and ``starts`` (where each begins,
    then the total), which :func:`load_proofs` reads back."""
    proofs = list(proofs)
    cells = [np.asarray(c, dtype=np.int64).ravel() for c, _ in proofs]
    deviations = [np.asarray(d, dtype=float).ravel() for _, d in proofs]
    starts = np.concatenate([[0], np.cumsum([c.size for c in cells], dtype=np.int64)])
    with open(path, "wb") as file:
        np.savez_compressed(file, cells=np.concatenate(cells or [np.zeros(0, np.int64)]),
                            deviations=np.concatenate(deviations or [np.zeros(0)]),
                            starts=starts)


def load_proofs(path) -> list[tuple[np.ndarray, np.ndarray]]:
    """Read what :func:`save_proofs` wrote, as a list of ``(cells, deviations)``; anything
    else is an :class:`InputError` naming ``path``. The proofs are not checked here: an audit
    given them checks each against its table and pattern (and ignores those that fail)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            cells, deviations, starts = data["cells"], data["deviations"], data["starts"]
    except OSError as exc:  # missing or unreadable
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, zipfile.BadZipFile):
        raise InputError(f"{path}: not a proofs file written by cspopt (.npz with arrays "
                         "'cells', 'deviations' and 'starts')") from None
    if (cells.ndim != 1 or cells.shape != deviations.shape or starts.ndim != 1
            or not starts.size or starts[0] != 0 or starts[-1] != cells.size
            or np.any(np.diff(starts) < 0) or not np.issubdtype(cells.dtype, np.integer)):
        raise InputError(f"{path}: its arrays 'cells', 'deviations' and 'starts' do not fit "
                         "together (a proofs file written by cspopt)")
    return [(cells[a:b], deviations[a:b]) for a, b in zip(starts[:-1].tolist(),
                                                          starts[1:].tolist())]


def covering_proofs(table, suppressed: np.ndarray, proofs: list,
                    cost: np.ndarray) -> list | None:
    """Completions from ``proofs`` (each ``(cells, deviations)``, taken with either sign where
    it stays within the a-priori bounds) that prove every side of every sensitive cell of
    ``table`` as the interval verdict asks (:meth:`cspopt.audit.AttackerLP.verdict`: moved
    strictly away from its value and at least its level on each side, the moves spanning its
    sliding level), chosen to move little ``cost`` (per cell) in total: the sides with fewest
    proofs first, each by the proof that adds the least cost to what the chosen ones move.
    ``None`` where ``proofs`` leave a side unproven. Only completions whose cells are all in
    ``suppressed`` (a mask) are used."""
    moves, signed = _signed_proofs(table, suppressed, proofs)
    sensitive = np.flatnonzero(table.sensitive)
    on_sensitive = moves[:, sensitive]
    by_cell, by_proof = on_sensitive.tocsc(), on_sensitive.tocsr()
    tol = tolerance_for(table.values[sensitive], TOLERANCE)
    up, down = table.upper_protection[sensitive], table.lower_protection[sensitive]
    width = table.sliding_protection[sensitive]
    support = moves.copy()
    support.data = np.ones_like(support.data)
    # per side (a cell's upward, then its downward): the proofs that cover it; a side
    # without a level needs none (the verdict's rule: the attacker's interval holds the value)
    covers = []
    for j in range(sensitive.size):
        where = slice(by_cell.indptr[j], by_cell.indptr[j + 1])
        r, d = by_cell.indices[where], by_cell.data[where]
        for move, level in ((d, up[j]), (-d, down[j])):
            covers.append(r[side_proven(move, level, tol[j])] if level > tol[j] else None)
    if any(c is not None and c.size == 0 for c in covers):
        return None
    chosen: list[int] = []
    open_cost = np.asarray(cost, dtype=float).copy()  # cost of cells no chosen proof moves
    high, low = np.zeros(sensitive.size), np.zeros(sensitive.size)

    def choose(r: int) -> None:
        chosen.append(r)
        open_cost[support.indices[support.indptr[r]:support.indptr[r + 1]]] = 0.0
        where = slice(by_proof.indptr[r], by_proof.indptr[r + 1])
        cells, d = by_proof.indices[where], by_proof.data[where]
        high[cells] = np.maximum(high[cells], d)
        low[cells] = np.minimum(low[cells], d)

    for side in np.argsort([0 if c is None else c.size for c in covers],
                           kind="stable").tolist():
        j, upward = side // 2, side % 2 == 0
        if covers[side] is None or (side_proven(high[j], up[j], tol[j]) if upward
                else side_proven(-low[j], down[j], tol[j])):
            continue
        candidates = covers[side]
        choose(int(candidates[np.argmin(support[candidates] @ open_cost)]))
    for j in np.flatnonzero(high - low < width - tol).tolist():  # the sliding level
        where = slice(by_cell.indptr[j], by_cell.indptr[j + 1])
        r, d = by_cell.indices[where], by_cell.data[where]
        if not r.size:
            return None
        for best in {int(r[np.argmax(d)]), int(r[np.argmin(d)])} - set(chosen):
            choose(best)
    if np.any(high - low < width - tol):
        return None
    return [signed[r] for r in chosen]


def _signed_proofs(table, suppressed: np.ndarray, proofs: list):
    """``(moves, signed)``: the completions of ``proofs`` within ``suppressed`` and their
    negations, those within the a-priori bounds (to the audit's slack), as a sparse matrix
    of deviations (one row each) and as ``(cells, deviations)``."""
    values = table.values
    slack = tolerance_for(np.abs(values), TOLERANCE)
    lower, upper = table.apriori_lower - values, table.apriori_upper - values
    signed, indptr, indices, data = [], [0], [], []
    for cells, deviations in proofs:
        cells = np.asarray(cells, dtype=np.int64)
        deviations = np.asarray(deviations, dtype=float)
        if not suppressed[cells].all():
            continue
        for d in (deviations, -deviations):
            if (np.all(d >= lower[cells] - slack[cells])
                    and np.all(d <= upper[cells] + slack[cells])):
                signed.append((cells, d))
                indices.append(cells)
                data.append(d)
                indptr.append(indptr[-1] + cells.size)
    moves = sp.csr_matrix((np.concatenate(data or [np.zeros(0)]),
                           np.concatenate(indices or [np.zeros(0, np.int64)]),
                           np.asarray(indptr)), shape=(len(signed), table.num_cells))
    return moves, signed

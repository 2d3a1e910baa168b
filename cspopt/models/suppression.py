"""Which cells a model may suppress and at what cost: the options every model shares.

Weights (a cost preset or vector), cells that must be published (given, totals, zeros), and
patterns given as cell ids turned into masks over a model's candidate cells, with the
errors that name the offending cell.
"""

from __future__ import annotations

import numpy as np

from cspopt.errors import InputError, InvalidTableError, PatternError
from cspopt.table import Table, cell_costs, total_cells

__all__ = ["suppression_options", "candidate_mask"]


def suppression_options(table: "Table", weights=None, must_publish=None, *,
                        publish_totals: bool = False,
                        publish_zeros: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Validated suppression weights (default: the table's costs) and the mask of cells that
    must be published (status ``z``, ``must_publish``, and totals or zero cells when asked),
    shared by every model builder. A sensitive cell among them is an :class:`InputError`."""
    n = table.num_cells
    weights = table.costs if weights is None else cell_costs(table.values, weights)
    if weights.shape != (n,) or np.any(~np.isfinite(weights)) or np.any(weights < 0):
        raise InvalidTableError("weights must be finite and >= 0, one per cell")
    published = table.must_publish.copy()
    if must_publish is not None:
        ids = np.asarray(must_publish, dtype=np.int64)
        if np.any((ids < 0) | (ids >= n)):
            raise PatternError(f"must_publish names unknown cells; cells are 0..{n - 1}")
        published[ids] = True
    if publish_totals:
        published |= total_cells(table)
    if publish_zeros:
        published |= table.values == 0
    clash = np.flatnonzero(published & table.sensitive)
    if clash.size:
        raise InputError(f"{table.describe(clash[0])} is sensitive but must be published")
    return np.asarray(weights, float), published


def candidate_mask(table: "Table", candidates: np.ndarray, cells,
                   what: str = "the pattern") -> np.ndarray:
    """A pattern (cell ids or mask; sensitive cells ignored) as a boolean mask over
    ``candidates``, the cells a model may suppress. A suppressed cell outside them (a
    published, zero or total cell under the options) is a :class:`PatternError` naming it.
    """
    mask = table.pattern(cells) & ~table.sensitive
    outside = np.setdiff1d(np.flatnonzero(mask), candidates)
    if outside.size:
        raise PatternError(f"{what} suppresses cells {outside.tolist()} that the options "
                           "forbid", cells=tuple(map(int, outside)))
    return mask[candidates]

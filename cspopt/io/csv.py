"""CSV tables: *tidy* (one row per cell) and *wide* (a 2-D grid of values).

Tidy CSV columns: one column per dimension (the cell's codes), then ``value`` and optionally
``cost``, ``status``, ``lb``, ``ub``, ``lpl``, ``upl``, ``spl``. Relations follow from the codes:
each dimension's total (``Total`` unless told) is the sum of its other codes, or of the children
given by a hierarchy (:class:`~cspopt.table.structure.Dimension`).

Wide CSV: a header ``corner,col1,...,coln[,Total]`` and rows ``label,v1,...,vn[,total]``; a
last row and column labelled with the total code are marginals and are checked.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Mapping, Sequence

import numpy as np

from cspopt.errors import InputError, TableFormatError
from cspopt.table import Table
from cspopt.table.structure import Dimension

__all__ = ["read_tidy_csv", "write_tidy_csv", "read_wide_csv", "write_wide_csv", "TIDY_FIELDS",
           "relation_set"]

#: tidy CSV column -> Table argument (``value`` is required)
TIDY_FIELDS = {"value": "values", "cost": "costs", "status": "status", "lb": "apriori_lower",
               "ub": "apriori_upper", "lpl": "lower_protection", "upl": "upper_protection",
               "spl": "sliding_protection"}


def _rows(path: str) -> list[list[str]]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            return [row for row in csv.reader(handle) if any(c.strip() for c in row)]
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None


def _float(text: str, what: str, path: str, line: int) -> float:
    try:
        return float(text)
    except ValueError:
        raise TableFormatError(f"{what} {text!r} is not a number", path=path, line=line) from None


def read_tidy_csv(
    path: str | os.PathLike,
    *,
    dimensions: Sequence[Dimension] | Mapping[str, Dimension] | None = None,
    total: str = "Total",
    **kwargs,
) -> Table:
    """Read a tidy CSV; ``dimensions`` (by position or by column name) give hierarchies.

    Dimensions not given are flat, with ``total`` as their total code.
    """
    path = os.fspath(path)
    rows = _rows(path)
    if not rows:
        raise TableFormatError("the file is empty", path=path)
    header = [h.strip() for h in rows[0]]
    if "value" not in header:
        raise TableFormatError("a tidy CSV needs a 'value' column", path=path, line=1)
    label_cols = [i for i, h in enumerate(header) if h not in TIDY_FIELDS]
    if not label_cols:
        raise TableFormatError("a tidy CSV needs at least one label column", path=path, line=1)
    labels, fields = [], {h: [] for h in header if h in TIDY_FIELDS}
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise TableFormatError(f"{len(row)} fields, the header has {len(header)}",
                                   path=path, line=lineno)
        labels.append(tuple(row[i].strip() for i in label_cols))
        for i, h in enumerate(header):
            if h == "status":
                fields[h].append(row[i].strip())
            elif h in TIDY_FIELDS:
                fields[h].append(_float(row[i].strip(), h, path, lineno))
    names = [header[i] for i in label_cols]
    if dimensions is None:
        dimensions = {}
    if isinstance(dimensions, Mapping):
        dims = []
        for d, name in enumerate(names):
            if name in dimensions:
                dims.append(dimensions[name])
            else:
                codes = list(dict.fromkeys(lab[d] for lab in labels))
                dims.append(Dimension.flat(name, codes, total=total))
    else:
        dims = list(dimensions)
    args = {TIDY_FIELDS[h]: v for h, v in fields.items()}
    kwargs.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    try:
        return Table.from_labels(labels, args.pop("values"), dims, **args, **kwargs)
    except InputError as exc:
        cell = getattr(exc, "cell", None)
        if cell is not None:
            exc.args = (f"{path}:{cell + 2}: {exc}",)
        raise


def write_tidy_csv(table: Table, path: str | os.PathLike, *, codes_only: bool = False) -> None:
    """Write a labelled table as tidy CSV (every field, one row per cell).

    A tidy CSV holds codes, not relations: :func:`read_tidy_csv` rebuilds them from flat
    dimensions with ``Total`` totals. A table whose relations that would not give back
    (a hierarchy, as read from tau-ARGUS' ``.tab`` with ``.hrc``; other totals; relations of
    its own) is refused before anything is written, naming the formats that hold them;
    ``codes_only=True`` writes it all the same, for a reader who passes the same
    ``dimensions`` back to :func:`read_tidy_csv`.
    """
    if table.labels is None or table.dimensions is None:
        raise InputError(f"{os.fspath(path)}: a tidy CSV needs a table with dimension labels "
                         "(this one has none); write .jj or .json, which hold any table")
    if not codes_only and not _rebuilt_from_codes(table):
        raise InputError(f"{os.fspath(path)}: a tidy CSV cannot hold this table's relations "
                         "(a hierarchy, totals not named 'Total', or relations of its own): "
                         "reading it back would give another table; write .jj or .json, "
                         "which hold the relations (or, in Python, write_tidy_csv(table, "
                         "path, codes_only=True) and read it back with its dimensions)")
    with open(os.fspath(path), "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow([d.name for d in table.dimensions] + list(TIDY_FIELDS))
        for c in range(table.num_cells):
            out.writerow(list(table.labels[c]) + [
                repr(float(getattr(table, attr)[c])) if attr != "status" else table.status[c]
                for attr in TIDY_FIELDS.values()])


def _rebuilt_from_codes(table: Table) -> bool:
    """Would :func:`read_tidy_csv` give ``table``'s relations back from its codes?"""
    try:
        dims = [Dimension.flat(d.name, list(dict.fromkeys(label[k] for label in table.labels)))
                for k, d in enumerate(table.dimensions)]
        rebuilt = Table.from_labels(table.labels, table.values, dims, nonnegative=False,
                                    additivity_tolerance=table.additivity_tolerance)
    except InputError:
        return False
    return relation_set(rebuilt) == relation_set(table)


def relation_set(table: Table) -> set:
    """The relations as a set of rows, each its sorted (cell, coefficient) pairs signed so
    that the first coefficient is positive."""
    rows = set()
    matrix = table.relation_matrix.tocsr()
    for r in range(matrix.shape[0]):
        cells, coefs = matrix.indices[matrix.indptr[r]:matrix.indptr[r + 1]], \
            matrix.data[matrix.indptr[r]:matrix.indptr[r + 1]]
        order = np.argsort(cells)
        cells, coefs = cells[order], coefs[order]
        if coefs.size and coefs[0] < 0:
            coefs = -coefs
        rows.add(tuple(zip(cells.tolist(), coefs.tolist())))
    return rows


def read_wide_csv(path: str | os.PathLike, *, total: str = "Total", **kwargs) -> Table:
    """Read a 2-D grid; marginals are taken as given when the last row and column are totals."""
    path = os.fspath(path)
    rows = _rows(path)
    if len(rows) < 2:
        raise TableFormatError("a wide CSV needs a header and at least one row", path=path)
    header = [h.strip() for h in rows[0]]
    col_labels = header[1:]
    row_labels, data = [], []
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise TableFormatError(f"{len(row)} fields, the header has {len(header)}",
                                   path=path, line=lineno)
        row_labels.append(row[0].strip())
        data.append([_float(v.strip(), f"cell ({row[0].strip()}, {col_labels[j]})", path, lineno)
                     for j, v in enumerate(row[1:])])
    given = row_labels[-1] == total and col_labels[-1] == total
    if (row_labels[-1] == total) != (col_labels[-1] == total):
        raise TableFormatError("give both a total row and a total column, or neither",
                               path=path, line=1)
    kwargs.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    return Table.from_array(np.array(data), margins="given" if given else "compute",
                            row_labels=row_labels,
                            col_labels=col_labels, total_label=total,
                            row_name=header[0] or "row", **kwargs)


def write_wide_csv(table: Table, path: str | os.PathLike) -> None:
    """Write the value grid of a flat 2-D table, totals last."""
    grid = table.to_array()
    rows = [lab[0] for lab in table.labels[:: grid.shape[1]]]
    cols = [lab[1] for lab in table.labels[: grid.shape[1]]]
    with open(os.fspath(path), "w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow([table.dimensions[0].name] + cols)
        for label, values in zip(rows, grid):
            out.writerow([label] + [repr(float(v)) for v in values])

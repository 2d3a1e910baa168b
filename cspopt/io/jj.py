"""The JJ format of tau-ARGUS / CSPLIB (whitespace separated).

::

    0                                     always 0
    N                                     number of cells
    idx value cost status lb ub lpl upl spl      N lines, idx 0-based, status s/u/z/m
    R                                     number of relations
    rhs k : i1 (c1) i2 (c2) ... ik (ck)   R lines: sum c * value = rhs

Cells may be listed in any order but each id ``0..N-1`` exactly once. A term may be written
``3 (1)`` or ``3(1)``. ``inf``/``-inf`` are read as infinite a-priori bounds, but the format
has no infinity: tau-ARGUS writes a finite bound (1.5 times the grand total), and pytauargus 0.6.0
misreads ``inf`` without an error (it reported "optimal" at a cost above a pattern that its own
audit accepts). So infinite bounds are written as the finite
:func:`finite_bound` unless ``infinity`` says otherwise. A finite bound only adds knowledge to the
attacker, so a pattern that protects the written table also protects the original one.
"""

from __future__ import annotations

import math
import os
import re
from typing import IO

import numpy as np

from cspopt.errors import InputError, TableFormatError
from cspopt.table import CellStatus, Relations, Table

__all__ = ["read_jj", "write_jj", "parse_jj", "format_jj", "finite_bound"]

_TERM = re.compile(r"(\S+?)\s*\(\s*([^)\s]+)\s*\)")


def read_jj(path: str | os.PathLike, *, nonnegative: bool | None = None, **kwargs) -> Table:
    """Read a JJ file. ``kwargs`` go to :class:`~cspopt.Table` (e.g. ``additivity_tolerance``)."""
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8-sig") as handle:
            text = handle.read()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    kwargs.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    return parse_jj(text, path=path, nonnegative=nonnegative, **kwargs)


def _number(token: str, what: str, path: str | None, line: int) -> float:
    try:
        return float(token)
    except ValueError:
        raise TableFormatError(f"{what} {token!r} is not a number", path=path, line=line) from None


def _integer(token: str, what: str, path: str | None, line: int) -> int:
    value = _number(token, what, path, line)
    if not math.isfinite(value) or value != int(value) or value < 0:
        raise TableFormatError(f"{what} {token!r} is not a nonnegative integer", path=path,
                               line=line)
    return int(value)


def parse_jj(text: str, *, path: str | None = None, nonnegative: bool | None = None,
             **kwargs) -> Table:
    """Parse JJ text into a :class:`~cspopt.Table`; errors name the file line."""
    lines = [(no, ln.strip()) for no, ln in enumerate(text.splitlines(), start=1) if ln.strip()]
    if not lines:
        raise TableFormatError("the file is empty", path=path)
    pos = 0

    def take() -> tuple[int, str]:
        nonlocal pos
        if pos >= len(lines):
            last = lines[-1][0] if lines else 0
            raise TableFormatError("the file ends early", path=path, line=last + 1)
        pos += 1
        return lines[pos - 1]

    no, first = take()
    if first != "0":
        raise TableFormatError(f"the first line must be 0, found {first!r}", path=path, line=no)
    no, count = take()
    num_cells = _integer(count, "cell count", path, no)
    if num_cells == 0:
        raise TableFormatError("the table has no cells", path=path, line=no)
    fields = np.full((num_cells, 8), np.nan)
    status: list[str | None] = [None] * num_cells
    seen_line = [0] * num_cells
    for _ in range(num_cells):
        no, line = take()
        tok = line.split()
        if len(tok) != 9:
            raise TableFormatError(f"a cell line needs 9 fields (idx value cost status lb ub lpl "
                                   f"upl spl), found {len(tok)}", path=path, line=no)
        idx = _integer(tok[0], "cell id", path, no)
        if idx >= num_cells:
            raise TableFormatError(f"cell id {idx} is out of range 0..{num_cells - 1}",
                                   path=path, line=no)
        if seen_line[idx]:
            raise TableFormatError(f"cell id {idx} is listed twice (first on line "
                                   f"{seen_line[idx]})", path=path, line=no)
        seen_line[idx] = no
        try:
            status[idx] = CellStatus.parse(tok[3]).value
        except ValueError:
            raise TableFormatError(f"cell {idx}: unknown status {tok[3]!r} (expected s, u, z "
                                   "or m)", path=path, line=no) from None
        names = ("value", "cost", None, "lb", "ub", "lpl", "upl", "spl")
        fields[idx] = [_number(t, f"cell {idx}: {w}", path, no) if w else 0.0
                       for t, w in zip(tok[1:], names)]
    no, count = take()
    num_rel = _integer(count, "relation count", path, no)
    rows, rhs, rel_lines = [], [], []
    for _ in range(num_rel):
        no, line = take()
        head, sep, body = line.partition(":")
        htok = head.split()
        if not sep or len(htok) != 2:
            raise TableFormatError("a relation line must read 'rhs k : i1 (c1) ... ik (ck)'",
                                   path=path, line=no)
        value = _number(htok[0], "right-hand side", path, no)
        k = _integer(htok[1], "term count", path, no)
        terms = _TERM.findall(body)
        leftover = _TERM.sub("", body).strip()
        if leftover:
            raise TableFormatError(f"cannot read {leftover!r} as 'cell (coefficient)' terms",
                                   path=path, line=no)
        if len(terms) != k:
            raise TableFormatError(f"the relation announces {k} terms but lists {len(terms)}",
                                   path=path, line=no)
        row = []
        for cell_tok, coef_tok in terms:
            cell = _integer(cell_tok, "cell id", path, no)
            if cell >= num_cells:
                raise TableFormatError(f"relation refers to unknown cell {cell} (cells are "
                                       f"0..{num_cells - 1})", path=path, line=no)
            row.append((cell, _number(coef_tok, f"coefficient of cell {cell}", path, no)))
        rows.append(row)
        rhs.append(value)
        rel_lines.append(no)
    if pos != len(lines):
        raise TableFormatError(f"unexpected text after the {num_rel} relations",
                               path=path, line=lines[pos][0])
    try:
        return Table(
            fields[:, 0], costs=fields[:, 1], status=status, apriori_lower=fields[:, 3],
            apriori_upper=fields[:, 4], lower_protection=fields[:, 5],
            upper_protection=fields[:, 6], sliding_protection=fields[:, 7],
            relations=Relations(rows, rhs), nonnegative=nonnegative, **kwargs)
    except InputError as exc:
        # point at the file line of the offending cell or relation; keep type and attributes
        cell, relation = getattr(exc, "cell", None), getattr(exc, "relation", None)
        line = (seen_line[cell] if cell is not None and 0 <= cell < num_cells
                else rel_lines[relation] if relation is not None and 0 <= relation < num_rel
                else None)
        if line is not None:
            exc.args = (f"{path or 'JJ'}:{line}: {exc}",)
        raise


def _fmt(x: float, infinity: float = math.inf) -> str:
    if math.isinf(x):
        x = math.copysign(infinity, x)
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def finite_bound(table: Table) -> float:
    """The finite value written for infinite a-priori bounds: a power of ten at least
    ten times the sum of the absolute cell values and protection levels, so that on tables
    whose relations are sums it is far beyond any value an attacker needs to reach."""
    scale = float(np.abs(table.values).sum() + table.lower_protection.sum()
                  + table.upper_protection.sum() + table.sliding_protection.sum())
    return 10.0 ** math.ceil(math.log10(10.0 * max(scale, 1.0)))


def format_jj(table: Table, *, infinity: float | None = None,
              status: np.ndarray | None = None) -> str:
    """The JJ text of ``table`` (``status`` overrides the status codes, e.g. with ``m``).

    Infinite a-priori bounds are written as ``infinity`` (default :func:`finite_bound`);
    ``infinity=math.inf`` writes ``inf``, which cspopt reads back but tau-ARGUS does not.
    """
    codes = table.status if status is None else status
    infinity = finite_bound(table) if infinity is None else infinity
    out = ["0", str(table.num_cells)]
    for c in range(table.num_cells):
        out.append(" ".join([str(c)] + [_fmt(float(v), infinity) for v in (
            table.values[c], table.costs[c])] + [str(codes[c])] + [_fmt(float(v), infinity) for v in (
                table.apriori_lower[c], table.apriori_upper[c], table.lower_protection[c],
                table.upper_protection[c], table.sliding_protection[c])]))
    out.append(str(table.num_relations))
    for r in range(table.num_relations):
        terms = table.relations.terms(r)
        body = " ".join(f"{cell} ({_fmt(coef)})" for cell, coef in terms)
        out.append(f"{_fmt(float(table.relations.rhs[r]))} {len(terms)} : {body}")
    return "\n".join(out) + "\n"


def write_jj(table: Table, path: str | os.PathLike | IO[str], *, infinity: float | None = None,
             suppressed=None) -> None:
    """Write ``table`` as JJ. With ``suppressed``, those free cells get status ``m``."""
    codes = None
    if suppressed is not None:
        mask = table.pattern(suppressed)
        codes = np.where(mask & ~table.sensitive, CellStatus.SECONDARY.value, table.status)
    text = format_jj(table, infinity=infinity, status=codes)
    if hasattr(path, "write"):
        path.write(text)
    else:
        with open(os.fspath(path), "w", encoding="utf-8") as handle:
            handle.write(text)

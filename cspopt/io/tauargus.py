"""tau-ARGUS tabular input: a ``.tab`` data file described by a ``.rda`` metadata file.

The ``.rda`` lists the ``.tab`` columns in order. Spanning variables carry ``<RECODEABLE>``
(with ``<TOTCODE>``, and for hierarchies ``<HIERARCHICAL>``, ``<HIERCODELIST>`` naming an
``.hrc`` file beside the ``.rda`` and ``<HIERLEADSTRING>``). The cell value is the
``<SHADOW>`` variable when there is one, otherwise the first ``<NUMERIC>``; ``<COSTVAR>``,
``<STATUS>``, ``<LOWERPL>`` and ``<UPPERPL>`` give costs, statuses and protection levels.
Numbers may use a decimal comma. Status letters: S safe, U unsafe (sensitive), P protected and
E empty (must be published), M secondary. Codes the data use but the ``.hrc`` omits hang
directly under the total, as tau-ARGUS does (the ``99`` region of its ``pp`` example).
"""

from __future__ import annotations

import csv
import os
import shlex
from dataclasses import dataclass, field

from cspopt.errors import InputError, TableFormatError
from cspopt.table import Table
from cspopt.table.structure import Dimension

__all__ = ["read_tauargus"]

_STATUS = {"S": "s", "U": "u", "P": "z", "E": "z", "M": "m", "D": "m"}


@dataclass
class _Variable:
    name: str
    tags: dict[str, str] = field(default_factory=dict)


def _read_rda(path: str) -> tuple[str, list[_Variable]]:
    separator = ","
    variables: list[_Variable] = []
    try:
        with open(path, encoding="utf-8-sig") as handle:
            lines = handle.read().splitlines()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            tokens = shlex.split(raw, posix=True)
        except ValueError as exc:
            raise TableFormatError(str(exc), path=path, line=lineno) from None
        if raw[0].isspace() or raw.lstrip().startswith("<"):
            if tokens[0] == "<SEPARATOR>":
                separator = tokens[1]
                continue
            if not variables:
                raise TableFormatError(f"tag {tokens[0]} before any variable", path=path,
                                       line=lineno)
            i = 0
            while i < len(tokens):
                tag = tokens[i]
                value = tokens[i + 1] if i + 1 < len(tokens) and not tokens[i + 1].startswith(
                    "<") else ""
                variables[-1].tags[tag] = value
                i += 2 if value else 1
        else:
            variables.append(_Variable(tokens[0]))
    return separator, variables


def read_tauargus(tab: str | os.PathLike, rda: str | os.PathLike | None = None,
                  **kwargs) -> Table:
    """Read a tau-ARGUS ``.tab`` file (``rda`` defaults to the same name with ``.rda``)."""
    tab = os.fspath(tab)
    rda = os.fspath(rda) if rda is not None else os.path.splitext(tab)[0] + ".rda"
    separator, variables = _read_rda(rda)
    names = [v.name for v in variables]

    def column(tag: str) -> int | None:
        hits = [i for i, v in enumerate(variables) if tag in v.tags]
        return hits[0] if hits else None

    spanning = [i for i, v in enumerate(variables) if "<RECODEABLE>" in v.tags
                or "<TOTCODE>" in v.tags or "<HIERARCHICAL>" in v.tags]
    value_col = column("<SHADOW>")
    if value_col is None:
        value_col = next((i for i, v in enumerate(variables) if "<NUMERIC>" in v.tags
                          and i not in spanning), None)
    if not spanning or value_col is None:
        raise TableFormatError("the .rda names no spanning variable or no numeric value",
                               path=rda)
    cost_col, status_col = column("<COSTVAR>"), column("<STATUS>")
    lpl_col, upl_col = column("<LOWERPL>"), column("<UPPERPL>")
    try:
        with open(tab, newline="", encoding="utf-8-sig") as handle:
            rows = [r for r in csv.reader(handle, delimiter=separator) if any(r)]
    except OSError as exc:
        raise InputError(f"cannot read {tab}: {exc.strerror}") from None

    def number(text: str, lineno: int, what: str) -> float:
        text = text.strip()
        if separator != ",":
            text = text.replace(",", ".")
        try:
            return float(text)
        except ValueError:
            raise TableFormatError(f"{what} {text!r} is not a number", path=tab,
                                   line=lineno) from None

    labels, values, costs, status, lpl, upl = [], [], [], [], [], []
    for lineno, row in enumerate(rows, start=1):
        if len(row) != len(variables):
            raise TableFormatError(f"{len(row)} fields, the .rda describes {len(variables)} "
                                   f"({', '.join(names)})", path=tab, line=lineno)
        labels.append(tuple(row[i].strip() for i in spanning))
        values.append(number(row[value_col], lineno, names[value_col]))
        if cost_col is not None:
            costs.append(number(row[cost_col], lineno, names[cost_col]))
        if status_col is not None:
            code = row[status_col].strip().upper()
            if code not in _STATUS:
                raise TableFormatError(f"unknown status {code!r} (expected one of "
                                       f"{''.join(_STATUS)})", path=tab, line=lineno)
            status.append(_STATUS[code])
        if lpl_col is not None:
            lpl.append(number(row[lpl_col], lineno, names[lpl_col]))
        if upl_col is not None:
            upl.append(number(row[upl_col], lineno, names[upl_col]))
    dims = []
    for d, i in enumerate(spanning):
        tags = variables[i].tags
        total = tags.get("<TOTCODE>", "Total")
        seen = list(dict.fromkeys(lab[d] for lab in labels))
        if "<HIERARCHICAL>" in tags and "<HIERCODELIST>" in tags:
            hrc = os.path.join(os.path.dirname(rda), tags["<HIERCODELIST>"])
            dims.append(Dimension.from_hrc(names[i], hrc, total=total,
                                           leadstring=tags.get("<HIERLEADSTRING>", "@"),
                                           codes=seen))
        else:
            dims.append(Dimension.flat(names[i], seen, total=total))
    status_arg = status or None
    # protection levels only matter for sensitive cells; tau-ARGUS fills the others too
    sensitive = [s == "u" for s in status] if status else [False] * len(values)
    kwargs.setdefault("name", os.path.splitext(os.path.basename(tab))[0])
    return Table.from_labels(
        labels, values, dims, costs=costs or "value", status=status_arg,
        lower_protection=[p if s else 0.0 for p, s in zip(lpl, sensitive)] if lpl else None,
        upper_protection=[p if s else 0.0 for p, s in zip(upl, sensitive)] if upl else None,
        **kwargs)

"""JSON tables: every field, relations and dimensions, for lossless exchange.

Infinite a-priori bounds are written as ``null`` (JSON has no infinity).
"""

from __future__ import annotations

import json
import math
import os

from cspopt.errors import InputError, TableFormatError
from cspopt.table import Relations, Table
from cspopt.table.structure import Dimension

__all__ = ["read_json", "write_json", "table_to_dict", "table_from_dict"]

FORMAT = "cspopt-table"
_ARRAYS = ("values", "costs", "status", "apriori_lower", "apriori_upper", "lower_protection",
           "upper_protection", "sliding_protection")


def _finite_or_none(x: float) -> float | None:
    return None if math.isinf(x) else x


def table_to_dict(table: Table) -> dict:
    data = {"format": FORMAT, "version": 1, "name": table.name,
            "nonnegative": table.nonnegative}
    for attr in _ARRAYS:
        values = getattr(table, attr).tolist()
        if attr.startswith("apriori"):
            values = [_finite_or_none(v) for v in values]
        data[attr] = values
    data["relations"] = [{"rhs": float(table.relations.rhs[r]),
                          "terms": [[c, v] for c, v in table.relations.terms(r)]}
                         for r in range(table.num_relations)]
    if table.labels is not None:
        data["labels"] = [list(lab) for lab in table.labels]
    if table.dimensions is not None:
        data["dimensions"] = [{"name": d.name, "codes": list(d.codes), "parent": dict(d.parent)}
                              for d in table.dimensions]
    return data


def table_from_dict(data: dict, *, source: str = "JSON") -> Table:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TableFormatError(f"not a {FORMAT} document", path=source)
    try:
        kwargs = {a: data[a] for a in _ARRAYS}
        for bound, inf in (("apriori_lower", -math.inf), ("apriori_upper", math.inf)):
            kwargs[bound] = [inf if v is None else v for v in kwargs[bound]]
        relations = Relations([[(int(c), float(v)) for c, v in r["terms"]]
                               for r in data["relations"]],
                              [float(r["rhs"]) for r in data["relations"]])
        dims = [Dimension(d["name"], tuple(d["codes"]), d["parent"])
                for d in data["dimensions"]] if "dimensions" in data else None
        labels = [tuple(lab) for lab in data["labels"]] if "labels" in data else None
    except (KeyError, TypeError, ValueError) as exc:
        raise TableFormatError(f"malformed {FORMAT} document: {exc!r}", path=source) from None
    values = kwargs.pop("values")
    return Table(values, relations=relations, labels=labels, dimensions=dims,
                 nonnegative=data.get("nonnegative"), name=data.get("name", ""), **kwargs)


def read_json(path: str | os.PathLike) -> Table:
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise TableFormatError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno) from None
    return table_from_dict(data, source=path)


def write_json(table: Table, path: str | os.PathLike) -> None:
    with open(os.fspath(path), "w", encoding="utf-8") as handle:
        json.dump(table_to_dict(table), handle)

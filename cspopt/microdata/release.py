"""A release: many tables from one microdata file, protected in one call.

Tables tabulating the same response (or all counting records) share cells: at least the
grand total, and every margin over the variables they have in common. An attacker who reads
them side by side solves their relations together, so they are protected jointly as linked
tables (:func:`~cspopt.microdata.tabulate.tabulate_linked`; de Wolf & Giessing 2009 on
linked tables); tables of different responses share no cell and are protected independently,
side by side on Dask workers (:class:`~cspopt.parallel.Workers`). Every table is tabulated,
and its rules and hierarchies checked against the data, before any solve starts, so a bad
request fails in seconds, not after the others have run.
"""

from __future__ import annotations

import math
import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from cspopt.errors import CspoptError, DimensionError, InputError, TableFormatError
from cspopt.jsondoc import dumps
from cspopt.methods import methods_for, shape_refusal
from cspopt.microdata.protect import (
    ProtectedTable,
    check_zeros,
    output_format,
    sensitive_table,
    solve_sensitive,
    write_report,
)
from cspopt.microdata.rules import parse_rules
from cspopt.microdata.tabulate import read_microdata
from cspopt.options import OPTIONS, Given, check_limits, check_options, refuse_inapplicable
from cspopt.parallel import Workers
from cspopt.result import SolveResult

__all__ = ["TableRequest", "table_request", "protect_many", "Release", "ReleasedTable",
           "REQUEST_KEYS", "SHARED_KEYS"]

log = logging.getLogger(__name__)

#: what a table of a release may set besides the solver's options, with the defaults of
#: :func:`cspopt.protect`
REQUEST_KEYS = {"name": None, "dimensions": None, "response": None, "rules": None,
                "hierarchies": None, "costs": "value", "total": "Total", "holding": None,
                "protection": "interval", "zeros": "published", "method": "auto",
                "time_limit": None, "output": None}
#: the solver's options a table may set: those with a value to check (not cell ids or
#: prebuilt objects), less the release's own ``workers`` and ``scheduler``
_SOLVER_KEYS = frozenset(name for name, option in OPTIONS.items()
                         if not isinstance(option.domain, Given)) - {"workers"}
#: what tables protected together (the same response) must agree on
SHARED_KEYS = ("rules", "costs", "total", "holding", "protection", "zeros", "method",
               "time_limit", "options")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class TableRequest:
    """One table of a release: what :func:`cspopt.protect` takes, a ``name`` (its output
    file's stem unless ``output`` names the file) and, from a manifest, where each key was
    written (``source``: key -> (file, line); ``""`` the table's header)."""

    name: str
    dimensions: tuple[str, ...]
    rules: str
    response: str | None = None
    hierarchies: Mapping[str, object] = field(default_factory=dict)
    costs: str = "value"
    total: str = "Total"
    holding: str | None = None
    protection: str = "interval"
    zeros: str = "published"
    method: str = "auto"
    time_limit: float | None = None
    options: Mapping[str, object] = field(default_factory=dict)
    output: str = ""
    source: Mapping[str, tuple[str, int]] = field(default_factory=dict, compare=False)

    def error(self, key: str, message: str) -> InputError:
        """An error about ``key`` of this table, located where the manifest wrote it."""
        where = self.source.get(key) or self.source.get("")
        text = f"table {self.name!r}: {message}"
        return TableFormatError(text, path=where[0], line=where[1]) if where else InputError(
            text)


def table_request(fields: Mapping[str, object], *,
                  source: Mapping[str, tuple[str, int]] | None = None) -> TableRequest:
    """A checked :class:`TableRequest` from ``fields`` (:data:`REQUEST_KEYS` and the solver's
    options by name); an :class:`InputError` naming the table and key (and, given
    ``source``, the manifest's file and line) for an unknown key or a value out of place."""
    source = dict(source or {})
    name = fields.get("name")
    probe = TableRequest(name=str(name), dimensions=(), rules="", source=source)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise probe.error("name", f"name must be letters, digits, '_', '.' or '-' (it names "
                                  f"the output file), not {name!r}")
    unknown = sorted(set(fields) - set(REQUEST_KEYS) - _SOLVER_KEYS)
    if unknown:
        why = ("the release's, set at the manifest's top level or by --workers/--scheduler"
               if set(unknown) <= {"workers", "scheduler"} else
               f"a table takes {', '.join(REQUEST_KEYS)} and the solver options "
               f"{', '.join(sorted(_SOLVER_KEYS))}")
        raise probe.error(unknown[0], f"unknown key(s) {', '.join(unknown)}: {why}")
    values = {k: fields.get(k, default) for k, default in REQUEST_KEYS.items()}
    dims = values["dimensions"]
    if (not isinstance(dims, (list, tuple)) or not dims
            or not all(isinstance(d, str) and d for d in dims) or len(set(dims)) < len(dims)):
        raise probe.error("dimensions", f"dimensions must be a list of distinct column "
                                        f"names, not {dims!r}")
    for key in ("rules", "response", "costs", "total", "holding", "protection", "zeros",
                "method", "output"):
        if values[key] is not None and not isinstance(values[key], str):
            raise probe.error(key, f"{key} must be a string, not {values[key]!r}")
    if not values["rules"]:
        raise probe.error("", "no rules: give rules, e.g. 'P(15)|FREQ(3,10)'")
    try:
        parse_rules(values["rules"])
    except InputError as error:
        raise probe.error("rules", str(error)) from None
    protection, method = values["protection"], values["method"]
    if protection not in ("interval", "exact"):
        raise probe.error("protection", f"protection must be 'interval' or 'exact', not "
                                        f"{protection!r}")
    try:
        check_zeros(values["zeros"], protection)
    except InputError as error:
        raise probe.error("zeros", str(error)) from None
    if method not in methods_for(protection):
        raise probe.error("method", f"method {method!r} does not solve {protection} "
                                    f"protection; the methods: "
                                    f"{', '.join(methods_for(protection))}")
    limit = values["time_limit"]
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float))):
        raise probe.error("time_limit", f"time_limit must be a number, not {limit!r}")
    hierarchies = values["hierarchies"] or {}
    if not isinstance(hierarchies, Mapping):
        raise probe.error("hierarchies", "hierarchies must map dimensions to .hrc files")
    options = {k: fields[k] for k in sorted(_SOLVER_KEYS & set(fields))}
    for key in ("time_limit", *options):
        try:
            if key == "time_limit":
                check_limits(time_limit=limit)
            else:
                check_options({key: options[key]})
                refuse_inapplicable({key: options[key]}, protection=protection, method=method)
        except InputError as error:
            raise probe.error(key, str(error)) from None
    name = values["name"]
    output = values["output"] or f"{name}.csv"
    try:
        output_format(output)
    except CspoptError as error:
        raise probe.error("output", str(error)) from None
    return TableRequest(name=name, dimensions=tuple(dims), rules=values["rules"],
                        response=values["response"], hierarchies=dict(hierarchies),
                        costs=values["costs"], total=values["total"],
                        holding=values["holding"], protection=protection,
                        zeros=values["zeros"], method=method,
                        time_limit=None if limit is None else float(limit),
                        options=options, output=output, source=source)


@dataclass(frozen=True)
class ReleasedTable:
    """One table of a :class:`Release`: its request, its cells in the jointly protected
    ``protected`` table (``cells``; all of them unless it was linked with others), and the
    error that left it without a pattern (``""`` if none)."""

    request: TableRequest
    protected: ProtectedTable | None
    cells: np.ndarray
    linked_with: tuple[str, ...] = ()
    error: str = ""

    @property
    def name(self) -> str:
        return self.request.name

    @property
    def has_pattern(self) -> bool:
        return self.protected is not None and self.protected.result.has_pattern

    def columns(self, group_columns: Mapping[str, list] | None = None) -> dict[str, list]:
        """:meth:`ProtectedTable.columns` of this table's cells, with its own dimensions
        (``group_columns``: the joint table's, computed once for all of its tables)."""
        full = group_columns if group_columns is not None else self.protected.columns()
        other = {d.name for d in self.protected.tabulation.dimensions} - set(
            self.request.dimensions)
        rows = self.cells.tolist()
        return {k: [v[r] for r in rows] for k, v in full.items() if k not in other}

    def summary(self) -> dict:
        """Counts and the solve of this table: its cells, primaries, secondaries and their
        cost; the (joint) solve's status, objective, lower bound and gap."""
        row = dict(table=self.name, output=self.request.output,
                   linked_with=list(self.linked_with), cells=int(self.cells.size))
        if self.protected is None:
            return dict(row, status="failed", error=self.error)
        table, result = self.protected.table, self.protected.result
        mine = np.zeros(table.num_cells, dtype=bool)
        mine[self.cells] = True
        suppressed = np.zeros(table.num_cells, dtype=bool)
        suppressed[list(result.suppressed)] = True
        secondary = mine & suppressed & ~table.sensitive
        return dict(row, status=result.status.value, primary=int((mine & table.sensitive).sum()),
                    secondary=int(secondary.sum()), cost=float(table.costs[secondary].sum()),
                    objective=result.objective, lower_bound=result.lower_bound,
                    gap=result.gap, seconds=result.timings.get("total"), error=self.error)


@dataclass(frozen=True)
class Release:
    """What :func:`protect_many` returns: one :class:`ReleasedTable` per requested table, in
    the order asked."""

    tables: tuple[ReleasedTable, ...]

    @property
    def complete(self) -> bool:
        """Whether every table has a pattern that passed its audit."""
        return all(t.has_pattern for t in self.tables)

    def to_dict(self) -> dict:
        return dict(complete=self.complete, tables=[t.summary() for t in self.tables])

    def summary(self) -> str:
        """One line per table, for people."""
        lines = []
        for t in self.tables:
            s = t.summary()
            if s["status"] == "failed":
                lines.append(f"{t.name}: no pattern ({t.error})")
                continue
            linked = f", linked with {', '.join(t.linked_with)}" if t.linked_with else ""
            gap = f", gap {100 * s['gap']:.1f} %" if math.isfinite(s["gap"]) else ""
            lines.append(f"{t.name}: {s['cells']} cells, {s['primary']} primary, "
                         f"{s['secondary']} secondary (cost {s['cost']:,.6g}); "
                         f"{s['status']}{gap}{linked} -> {t.request.output}")
        return "\n".join(lines)

    def write(self, directory) -> list[Path]:
        """Each table with a pattern to ``directory`` / its ``output`` (:meth:`ReleasedTable.
        columns`), and ``summary.json`` (:meth:`to_dict`, as :mod:`cspopt.jsondoc` writes
        it). Each file is written whole under a temporary name and then renamed, so no
        half-written file is ever left. Returns the paths written."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        written, computed = [], {}
        for t in self.tables:
            if not t.has_pattern:
                continue
            group = id(t.protected)
            if group not in computed:
                computed[group] = t.protected.columns()
            path = directory / t.request.output
            _replace(path, lambda tmp, t=t, group=group: write_report(
                t.columns(computed[group]), tmp, values=t.protected.table.values))
            written.append(path)
        path = directory / "summary.json"
        _replace(path, lambda tmp: Path(tmp).write_text(dumps(self.to_dict()) + "\n",
                                                         encoding="utf-8"))
        return [*written, path]


def _replace(path: Path, write) -> None:
    """``write(tmp)`` then rename ``tmp`` to ``path``: the file appears whole or not at
    all."""
    tmp = path.with_name(f".{path.name}.partial{path.suffix}")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def protect_many(data, tables: Sequence[TableRequest | Mapping], *,
                 workers: int | None = None, scheduler: str | None = None,
                 encoding: str = "utf-8") -> Release:
    """Protect a release: the tables ``tables`` of one microdata file ``data``.

    Each table is a :class:`TableRequest` or a mapping of its keys (:func:`table_request`:
    ``name``, ``dimensions``, ``response``, ``rules``, ``hierarchies``, ``costs``,
    ``total``, ``holding``, ``protection``, ``zeros``, ``method``, ``time_limit`` (the
    table's solve), ``output`` and the solver's options). Tables of the same response share
    cells, so they are protected jointly, as linked tables, and must agree on
    :data:`SHARED_KEYS` and on the hierarchy of each dimension they have in common; the
    others are independent and run side by side on ``workers`` processes (a local Dask
    cluster) or on the cluster at ``scheduler``. Every table is tabulated and its rules
    and hierarchies are checked against the data before the first solve; a table whose
    solve fails is reported in its :class:`ReleasedTable` and the others go on. Each
    pattern passes the audit of its (joint) table, as every pattern cspopt returns.

    Returns
    -------
    Release
        One :class:`ReleasedTable` per table, in the order given; :meth:`Release.write`
        writes one file per table and a summary.
    """
    requests = [t if isinstance(t, TableRequest) else table_request(t) for t in tables]
    if not requests:
        raise InputError("a release needs at least one table")
    _check_names(requests)
    columns = read_microdata(data, encoding=encoding)
    _check_columns(requests, list(columns))
    groups = _groups(requests)
    built = [_tabulated(columns, group, encoding) for group in groups]
    for group, (table, _, _) in zip(groups, built):
        refusal = shape_refusal(group[0].method, table)
        if refusal:
            raise group[0].error("method", refusal)
    with Workers(workers=workers, scheduler=scheduler) as pool:
        outcomes = pool.map(_solve_group, [(table, group[0]) for group, (table, _, _)
                                           in zip(groups, built)])
    released = {}
    for group, (table, tabulation, hit), outcome in zip(groups, built, outcomes):
        names = [r.name for r in group]
        failed = isinstance(outcome, str)
        protected = None if failed else ProtectedTable(table, outcome, tabulation, hit)
        for request in group:
            cells = _cells_of(tabulation, request) if len(group) > 1 else np.arange(
                table.num_cells)
            released[request.name] = ReleasedTable(
                request, protected, cells, tuple(n for n in names if n != request.name),
                outcome if failed else "")
    return Release(tuple(released[r.name] for r in requests))


def _check_names(requests: list[TableRequest]) -> None:
    """Refuse two tables of one name or of one output file."""
    for key in ("name", "output"):
        seen: dict[str, TableRequest] = {}
        for request in requests:
            value = getattr(request, key).lower()
            if value in seen:
                raise request.error(key, f"{key} {getattr(request, key)!r} is also table "
                                         f"{seen[value].name!r}'s")
            seen[value] = request


def _check_columns(requests: list[TableRequest], names: list[str]) -> None:
    """Refuse a dimension, response or holding that is not a column of the microdata."""
    known = set(names)
    for request in requests:
        for key in ("dimensions", "response", "holding"):
            value = getattr(request, key)
            for column in (value if key == "dimensions" else (value,) if value else ()):
                if column not in known:
                    raise request.error(key, f"{key} {column!r} is not a column of the "
                                             f"microdata (columns: {', '.join(names)})")


def _groups(requests: list[TableRequest]) -> list[list[TableRequest]]:
    """The tables protected together: those of one response, which share cells (the grand
    total at least). They must agree on :data:`SHARED_KEYS`."""
    by_response: dict[str | None, list[TableRequest]] = {}
    for request in requests:
        by_response.setdefault(request.response, []).append(request)
    for group in by_response.values():
        first = group[0]
        for request in group[1:]:
            for key in SHARED_KEYS:
                if getattr(request, key) != getattr(first, key):
                    what = (f"tabulate {first.response!r}" if first.response is not None
                            else "count records")
                    raise request.error(
                        key, f"it and table {first.name!r} both {what}, so they share cells "
                             f"and are protected together as linked tables: they must agree "
                             f"on {key} ({_shown(getattr(request, key))} against "
                             f"{_shown(getattr(first, key))})")
        for request in group[1:]:  # a dimension of two tables: one hierarchy
            for other in group[:group.index(request)]:
                for dim in set(request.dimensions) & set(other.dimensions):
                    mine, theirs = (r.hierarchies.get(dim) for r in (request, other))
                    if mine != theirs:
                        raise request.error("hierarchies", f"it and table {other.name!r} "
                                            f"are protected together (one response), and "
                                            f"dimension {dim!r} must have one hierarchy in "
                                            f"both ({mine!r} against {theirs!r})")
    return list(by_response.values())


def _shown(value) -> str:
    return repr(dict(value)) if isinstance(value, Mapping) else repr(value)


def _tabulated(columns, group: list[TableRequest], encoding: str):
    """``(table, tabulation, hit)`` of a group (:func:`sensitive_table`), an error naming
    its first table where the data refuse it."""
    first = group[0]
    dims = [list(r.dimensions) for r in group] if len(group) > 1 else list(first.dimensions)
    try:
        return sensitive_table(columns, dims, response=first.response, rules=first.rules,
                               hierarchies={d: h for r in group
                                            for d, h in r.hierarchies.items()},
                               costs=first.costs,
                               total=first.total, holding=first.holding,
                               protection=first.protection, zeros=first.zeros,
                               encoding=encoding)
    except DimensionError as error:  # at the hierarchy (else the dimensions) that gave it
        dim = error.dimension
        owner = next((r for r in group if dim in r.hierarchies), None)
        if owner is None:
            owner = next((r for r in group if dim in r.dimensions), first)
        raise owner.error(f"hierarchies.{dim}" if dim in owner.hierarchies else "dimensions",
                          f"{error}{_linked(group, owner)}") from None
    except InputError as error:
        raise first.error("", f"{error}{_linked(group, first)}") from None


def _linked(group: list[TableRequest], request: TableRequest) -> str:
    """`` (protected with ...)``: the tables of ``group`` besides ``request``, if any."""
    names = ", ".join(repr(r.name) for r in group if r is not request)
    return f" (protected with {names})" if names else ""


def _cells_of(tabulation, request: TableRequest) -> np.ndarray:
    """The cells of a linked tabulation that belong to ``request``'s table: those at the
    total code of every variable it does not have."""
    absent = [(k, d.total) for k, d in enumerate(tabulation.dimensions)
              if d.name not in request.dimensions]
    return np.array([c for c, label in enumerate(tabulation.labels)
                     if all(label[k] == total for k, total in absent)], dtype=np.int64)


def _solve_group(table, request: TableRequest) -> SolveResult | str:
    """The Dask task: one (joint) table's solve, or the message of the error that
    stopped it."""
    try:
        return solve_sensitive(table, protection=request.protection, method=request.method,
                               time_limit=request.time_limit, **request.options)
    except CspoptError as error:
        log.warning("table %s: %s", request.name, error)
        return f"{type(error).__name__}: {error}"

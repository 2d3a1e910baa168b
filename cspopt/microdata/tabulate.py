"""Tables from microdata: one record per respondent, explanatory variables and a response.

Every record contributes to each cell whose codes are its own codes or their ancestors in
the hierarchies (the total of every dimension included), as tau-ARGUS tabulates. The table
holds every combination of codes, so that all the relations of the hierarchies hold
(:func:`cspopt.table.structure.relations_from_labels`); a combination no record reaches is
an empty cell, published as empty (an attacker knows it holds nothing). Per cell the
tabulation keeps its number of contributors and its largest contributions, as deep as the
sensitivity rules read.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from cspopt.errors import DimensionError, InputError, MissingExtraError, TableFormatError
from cspopt.microdata.rules import CellContributions
from cspopt.table import Dimension
from cspopt.table.structure import relations_from_labels

__all__ = ["Tabulation", "tabulate", "tabulate_linked", "read_microdata"]


@dataclass(frozen=True)
class Tabulation:
    """Cells of a table built from microdata: ``labels`` (one code tuple per cell, in the
    order of the product of ``dimensions``' codes), ``contributions`` (totals, counts and
    largest contributions, :class:`~cspopt.microdata.rules.CellContributions`), and the
    per-cell sum of each extra column asked for (``sums``, e.g. a cost variable).
    ``magnitude`` is the sum of the absolute responses: no cell can exceed it.
    ``relations``: ``None`` where the labels imply them (one table, the full product of
    its codes), or the linked tables' relations (:func:`tabulate_linked`)."""

    dimensions: tuple[Dimension, ...]
    labels: tuple[tuple[str, ...], ...]
    contributions: CellContributions
    sums: Mapping[str, np.ndarray]
    response: str | None
    magnitude: float
    relations: tuple[tuple[tuple[int, float], ...], ...] | None = None
    tables: tuple[tuple[str, ...], ...] = ()  # linked tables: each one's variables

    @property
    def empty(self) -> np.ndarray:
        """Cells no record reaches."""
        return self.contributions.count == 0


def read_microdata(source, *, encoding: str = "utf-8") -> Mapping[str, Sequence]:
    """Columns of ``source``: a pandas DataFrame, a mapping of column -> values, a list of
    records (dicts), or a path to a CSV file (``,`` or ``;`` separated, header line, text in
    ``encoding``: e.g. ``"latin-1"`` for files saved by older statistical software; a
    UTF-8 byte-order mark is skipped) or a Parquet file (needs pandas and pyarrow)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file")
        if path.lower().endswith((".parquet", ".pq")):
            try:
                import pandas as pd
                return pd.read_parquet(path)
            except ImportError:
                raise MissingExtraError("Parquet needs pandas and pyarrow: pip install "
                                        "'cspopt[microdata]' pyarrow") from None
        with open(path, "rb") as handle:
            raw = handle.read()
        try:
            text = raw.decode("utf-8-sig" if _is_utf8(encoding) else encoding)
        except UnicodeDecodeError as error:
            line = raw[:error.start].count(b"\n") + 1
            raise TableFormatError(
                f"byte {raw[error.start]:#04x} is not {encoding} text; save the file as "
                "UTF-8, or name its encoding (encoding='latin-1', --encoding latin-1)",
                path=path, line=line) from None
        except LookupError:
            raise InputError(f"unknown text encoding {encoding!r}") from None
        delimiter = ";" if text[:4096].count(";") > text[:4096].count(",") else ","
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
        header = next(reader, None)
        if not header:
            raise InputError(f"{path}: no header line")
        rows = list(reader)
        for line, row in enumerate(rows, start=2):
            if len(row) != len(header):
                raise InputError(f"{path}:{line}: {len(row)} fields, the header has "
                                 f"{len(header)}")
        return {name.strip(): [row[i].strip() for row in rows] for i, name in enumerate(header)}
    if isinstance(source, Sequence) and not isinstance(source, str):
        names = list(source[0]) if len(source) else []
        return {name: [record.get(name) for record in source] for name in names}
    if hasattr(source, "columns") or isinstance(source, Mapping):
        return source
    raise InputError("microdata must be a DataFrame, a mapping of columns, a list of records "
                     f"or a CSV/Parquet path, not {type(source).__name__}")


#: the most decimals a response is taken to be written with
_MAX_DECIMALS = 10


def written_decimals(values) -> int | None:
    """The fewest decimals (at most :data:`_MAX_DECIMALS`) that write every value exactly
    (to 1e-12 relative), ``None`` where the values need more."""
    values = np.asarray(values, dtype=float)
    for decimals in range(_MAX_DECIMALS + 1):
        if np.all(np.abs(np.round(values, decimals) - values)
                  <= 1e-12 * np.maximum(1.0, np.abs(values))):
            return decimals
    return None


def _at_decimals(sums: np.ndarray, decimals: int | None) -> np.ndarray:
    """``sums`` rounded to the ``decimals`` their terms are written with
    (:func:`written_decimals`): a sum of numbers with ``k`` decimals has ``k`` decimals, and
    rounding removes only the float sum's error (so the table stays additive within far
    less than its tolerance). Unchanged where the terms need more decimals (``None``)."""
    return sums if decimals is None else np.round(sums, decimals)


def _is_utf8(encoding: str) -> bool:
    return encoding.lower().replace("_", "-") in ("utf-8", "utf8")


def _column(data, name: str, what: str) -> list:
    columns = list(data.columns) if hasattr(data, "columns") else list(data)
    if name not in columns:
        raise InputError(f"{what} {name!r} is not a column of the microdata (columns: "
                         f"{', '.join(map(str, columns))})")
    values = data[name]
    return list(values.tolist() if hasattr(values, "tolist") else values)


def _numbers(data, name: str, what: str) -> np.ndarray:
    values = _column(data, name, what)
    out = np.empty(len(values))
    for row, value in enumerate(values):
        try:
            out[row] = float(value)
        except (TypeError, ValueError):
            out[row] = math.nan
        if not math.isfinite(out[row]):
            raise InputError(f"record {row}: {what} {name!r} is {value!r}, not a finite number")
    return out


def _codes(values: list, name: str) -> list[str]:
    codes = []
    for row, value in enumerate(values):
        code = "" if value is None or (isinstance(value, float) and math.isnan(value)) \
            else str(value).strip()
        if not code:
            raise DimensionError(f"record {row}: dimension {name!r} has no code",
                                 dimension=name)
        codes.append(code)
    return codes


def _dimension(name: str, codes: list[str], hierarchy, total: str) -> Dimension:
    """The dimension of variable ``name``: flat over the codes seen, or the given hierarchy
    (a :class:`Dimension`, a mapping code -> parent code, or a tau-ARGUS ``.hrc`` path),
    whose leaves must hold every code seen."""
    seen = list(dict.fromkeys(codes))
    if hierarchy is None:
        if total in seen:
            raise DimensionError(f"dimension {name!r} has a code equal to the total code "
                                 f"{total!r}", dimension=name)
        return Dimension.flat(name, sorted(seen, key=_natural) + [total], total=total)
    if isinstance(hierarchy, Dimension):
        dim = hierarchy
    elif isinstance(hierarchy, Mapping):
        parent = {str(c).strip(): str(p).strip() for c, p in hierarchy.items()}
        ordered = list(dict.fromkeys([total, *parent.values(), *parent]))
        ordered.remove(total)
        dim = Dimension(name, (total, *ordered), parent)
    else:
        dim = Dimension.from_hrc(name, hierarchy, total=total)
    for row, code in enumerate(codes):
        if code not in dim.parent and code != dim.total:
            raise DimensionError(f"record {row}: code {code!r} of dimension {name!r} is not "
                                 "in its hierarchy", dimension=name)
        if not dim.is_leaf(code):
            raise DimensionError(f"record {row}: code {code!r} of dimension {name!r} is a "
                                 "subtotal of its hierarchy, not a bottom-level code",
                                 dimension=name)
    return dim


def _natural(code: str):
    return (0, int(code), code) if code.lstrip("-").isdigit() else (1, 0, code)


def _ancestors(dim: Dimension) -> tuple[np.ndarray, np.ndarray]:
    """Per code of ``dim`` (by position), the positions of itself and every ancestor, as
    rows of a matrix padded with -1, and each row's length."""
    where = {c: i for i, c in enumerate(dim.codes)}
    chains = []
    for code in dim.codes:
        chain, at = [where[code]], code
        while at != dim.total:
            at = dim.parent[at]
            chain.append(where[at])
        chains.append(chain)
    lengths = np.array([len(ch) for ch in chains])
    matrix = np.full((len(chains), lengths.max()), -1, dtype=np.int64)
    for i, chain in enumerate(chains):
        matrix[i, :len(chain)] = chain
    return matrix, lengths


def tabulate(data, dimensions: Sequence[str], *, response: str | None = None,
             hierarchies: Mapping[str, object] | None = None, total: str = "Total",
             depth: int = 2, sums: Sequence[str] = (), nonnegative: bool = False,
             holding: str | None = None) -> Tabulation:
    """Tabulate microdata over ``dimensions``.

    Parameters
    ----------
    data
        See :func:`read_microdata`.
    dimensions : list of str
        The explanatory variables.
    response : str, optional
        The variable summed in the cells; ``None``: counts (a frequency table).
    hierarchies : mapping dimension -> hierarchy, optional
        A :class:`~cspopt.table.Dimension`, a mapping code -> parent code, or the path of a
        tau-ARGUS ``.hrc`` file; other dimensions are flat (codes seen plus ``total``).
    depth : int
        How many of each cell's largest contributions to keep (what the rules read).
    sums : list of str
        Further numeric columns to sum per cell (e.g. a cost variable).
    nonnegative : bool
        Refuse negative responses, naming the record (the dominance and p%-rules assume
        nonnegative contributions).
    holding : str, optional
        A column grouping respondents into holdings (enterprise groups): within each cell,
        one holding's records are one contributor, their sum its contribution (records
        with no holding code are holdings of their own). The counts and largest
        contributions then describe holdings, so every rule applies at holding level.
    """
    data = read_microdata(data)
    dimensions = list(dimensions)
    if not dimensions:
        raise InputError("a table needs at least one dimension")
    if len(set(dimensions)) != len(dimensions):
        raise InputError(f"dimensions repeat a variable: {dimensions}")
    hierarchies = dict(hierarchies or {})
    unknown = sorted(set(hierarchies) - set(dimensions))
    if unknown:
        raise InputError(f"hierarchies given for {', '.join(unknown)}, which are not "
                         "dimensions of the table")
    codes = {d: _codes(_column(data, d, "dimension"), d) for d in dimensions}
    size = len(next(iter(codes.values())))
    if size == 0:
        raise InputError("the microdata have no records")
    values = np.ones(size) if response is None else _numbers(data, response, "response")
    if nonnegative:
        for row in np.flatnonzero(values < 0)[:1].tolist():
            raise InputError(f"record {row}: response {response!r} is {values[row]:g}, but "
                             "the dominance and p%-rules need nonnegative contributions")
    dims = tuple(_dimension(d, codes[d], hierarchies.get(d), total) for d in dimensions)
    owner = np.arange(size)  # the contributor each record belongs to
    if holding is not None:
        groups = _column(data, holding, "holding")
        named = {}
        for row, code in enumerate(groups):
            if code is not None and not (isinstance(code, float) and math.isnan(code)) \
                    and str(code).strip():
                owner[row] = named.setdefault(str(code).strip(), size + len(named))
    extra = {name: _numbers(data, name, "column") for name in sums}

    # every record x every combination of its codes' ancestors -> a cell id (mixed radix)
    cell = np.zeros(size, dtype=np.int64)
    record = np.arange(size)
    for dim, name in zip(dims, dimensions):
        chains, lengths = _ancestors(dim)
        where = {c: i for i, c in enumerate(dim.codes)}
        own = np.array([where[c] for c in codes[name]])[record]
        rows = chains[own]
        cell = np.repeat(cell, lengths[own]) * len(dim.codes) + rows[rows >= 0]
        record = np.repeat(record, lengths[own])
    num_cells = math.prod(len(d.codes) for d in dims)
    # sums at the records' own decimals: 67.65, not the float sum's 67.64999999999999
    decimals = written_decimals(values)
    totals = _at_decimals(np.bincount(cell, weights=values[record], minlength=num_cells),
                          decimals)
    sums_per_cell = {name: _at_decimals(np.bincount(cell, weights=col[record],
                                                    minlength=num_cells),
                                        written_decimals(col))
                     for name, col in extra.items()}
    pairs, at = np.unique(cell * (2 * size) + owner[record], return_inverse=True)
    # one contribution per cell and contributor
    x = _at_decimals(np.bincount(at, weights=values[record]), decimals)
    cell = pairs // (2 * size)
    count = np.bincount(cell, minlength=num_cells).astype(float)
    order = np.lexsort((-x, cell))  # by cell, largest contribution first
    ranked_cell, ranked_x = cell[order], x[order]
    starts = np.searchsorted(ranked_cell, np.arange(num_cells))
    rank = np.arange(ranked_cell.size) - starts[ranked_cell]
    top = np.zeros((num_cells, max(depth, 1)))
    keep = rank < top.shape[1]
    top[ranked_cell[keep], rank[keep]] = ranked_x[keep]
    labels = tuple(itertools.product(*(d.codes for d in dims)))
    return Tabulation(dims, labels, CellContributions(totals, count, top), sums_per_cell,
                      response, float(np.abs(values).sum()))


def tabulate_linked(data, tables: Sequence[Sequence[str]], **options) -> Tabulation:
    """Linked tables from the same microdata as one linear table.

    Each table of ``tables`` (a list of explanatory variables) is tabulated alone
    (:func:`tabulate`, same ``options``); a cell is labelled over the union of the
    variables, with the total code where its table lacks the variable, so that cells the
    tables share (common margins) are one cell. The relations are every table's own. An
    attacker who combines the published tables solves exactly this system, so a pattern
    that protects it protects the tables jointly (tau-ARGUS and sdcTable protect linked
    tables with heuristics that do not check the union).
    """
    variables = list(dict.fromkeys(v for t in tables for v in t))
    hierarchies = dict(options.pop("hierarchies", None) or {})
    unknown = sorted(set(hierarchies) - set(variables))
    if unknown:
        raise InputError(f"hierarchies given for {', '.join(unknown)}, which are not "
                         "dimensions of the linked tables")
    parts = [tabulate(data, list(t), hierarchies={d: hierarchies[d] for d in t
                                                  if d in hierarchies}, **options)
             for t in tables]
    dims = {d.name: d for part in parts for d in part.dimensions}
    for part in parts:
        for d in part.dimensions:
            if d != dims[d.name]:
                raise InputError(f"dimension {d.name!r} differs between linked tables")
    index: dict[tuple[str, ...], int] = {}
    source: list[tuple[int, int]] = []  # (part, cell in part) of each union cell
    relations = []
    for k, part in enumerate(parts):
        names = [d.name for d in part.dimensions]
        local = []
        for c, label in enumerate(part.labels):
            code = dict(zip(names, label))
            full = tuple(code.get(v, dims[v].total) for v in variables)
            if full not in index:
                index[full] = len(source)
                source.append((k, c))
            local.append(index[full])
        for terms in relations_from_labels(part.labels, part.dimensions):
            relations.append(tuple((local[c], coef) for c, coef in terms))
    relations = list(dict.fromkeys(relations))  # a common margin's relation once

    def gather(get):
        return np.array([get(parts[k])[c] for k, c in source])

    top = np.zeros((len(source), max(p.contributions.top.shape[1] for p in parts)))
    for i, (k, c) in enumerate(source):
        row = parts[k].contributions.top[c]
        top[i, :row.size] = row
    contributions = CellContributions(gather(lambda p: p.contributions.total),
                                      gather(lambda p: p.contributions.count), top)
    return Tabulation(tuple(dims[v] for v in variables), tuple(index), contributions,
                      {name: gather(lambda p, name=name: p.sums[name])
                       for name in parts[0].sums}, parts[0].response, parts[0].magnitude,
                      tuple(relations), tuple(tuple(t) for t in tables))

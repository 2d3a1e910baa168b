"""From microdata to a protected table in one call: tabulate, apply the sensitivity rules,
set the protection levels, solve with a certificate, and report cell by cell.

The table handed to the solver is an ordinary :class:`~cspopt.table.Table`: cells labelled
by their codes, relations from the hierarchies, sensitive cells with lower and upper
protection levels from the rules (:mod:`cspopt.microdata.rules`), empty cells published
(or, by choice, suppressible or protected).
Its pattern is audited like every pattern cspopt returns, and the report gives, for each
suppressed cell, the interval an attacker can derive from the published table.
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cspopt.audit import audit
from cspopt.errors import InputError, MissingExtraError
from cspopt.microdata.rules import Rule, apply_rules, parse_rules
from cspopt.microdata.tabulate import (
    Tabulation,
    read_microdata,
    tabulate,
    tabulate_linked,
    written_decimals,
)
from cspopt.options import check_limits
from cspopt.result import SolveResult
from cspopt.solving import solve
from cspopt.table import Table

__all__ = ["protect", "sensitive_table", "solve_sensitive", "write_report",
           "ProtectedTable", "build_table", "output_format",
           "CELL_STATUSES", "OUTPUT_FORMATS"]

#: what :meth:`ProtectedTable.to_frame` says of each cell
CELL_STATUSES = ("published", "primary", "secondary", "empty")
#: the cost choices besides a column name
_COSTS = ("value", "unit", "frequency", "log")
#: what an empty cell (no contributors) may be: published as empty (tau-ARGUS), a
#: candidate for secondary suppression, or protected as a primary (GaussSuppression's
#: ``protectZeros``, exact disclosure only)
ZEROS = ("published", "suppressible", "protected")


@dataclass(frozen=True)
class ProtectedTable:
    """A table built from microdata, its sensitive cells and the protecting pattern.

    ``table`` is what was solved; ``result`` the solve (pattern, cost, lower bound,
    certified gap, audit); ``tabulation`` the cells' contributions; ``rules_hit`` per cell
    the rules that made it sensitive (``""`` for none).
    """

    table: Table
    result: SolveResult
    tabulation: Tabulation
    rules_hit: tuple[str, ...]

    @property
    def status(self) -> np.ndarray:
        """Per cell one of :data:`CELL_STATUSES`."""
        out = np.full(self.table.num_cells, "published", dtype=object)
        out[self.tabulation.empty] = "empty"
        out[list(self.result.suppressed)] = "secondary"
        out[self.table.sensitive] = "primary"
        return out

    def columns(self) -> dict[str, list]:
        """One entry per cell in each column: its codes (one column per dimension),
        ``value``, ``contributors``, ``status``, the ``rules`` that flagged it, its
        ``lower_protection`` and ``upper_protection``, the attacker's interval
        (``attacker_low``, ``attacker_high``; NaN where published) and ``published``: the
        value, or NaN where suppressed. Plain lists: no pandas needed."""
        t, status = self.table, self.status
        low, high = self.attacker_intervals()
        hidden = np.isin(status, ("primary", "secondary"))
        out: dict[str, list] = {d.name: [label[k] for label in t.labels]
                                for k, d in enumerate(self.tabulation.dimensions)}
        out.update(value=t.values.tolist(),
                   contributors=self.tabulation.contributions.count.astype(int).tolist(),
                   status=status.tolist(), rules=list(self.rules_hit),
                   lower_protection=t.lower_protection.tolist(),
                   upper_protection=t.upper_protection.tolist(),
                   attacker_low=low.tolist(), attacker_high=high.tolist(),
                   published=np.where(hidden, np.nan, t.values).tolist())
        return out

    def to_frame(self):
        """:meth:`columns` as a pandas DataFrame (needs pandas), one row per cell."""
        try:
            import pandas as pd
        except ImportError:
            raise MissingExtraError("to_frame needs pandas: pip install "
                                    "'cspopt[microdata]'") from None
        return pd.DataFrame(self.columns())

    def write(self, path) -> None:
        """:meth:`columns` to ``path``, in the format its extension names
        (:data:`OUTPUT_FORMATS`: CSV, or Parquet with pandas and pyarrow;
        :func:`write_report`)."""
        write_report(self.columns(), path, values=self.table.values)

    def attacker_intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """Per cell, the lowest and highest value an attacker can derive from the published
        table (NaN for published cells): the attacker LPs of :func:`cspopt.audit` over
        every suppressed cell (the solve's own audit may have judged the sensitive ones
        only)."""
        low = np.full(self.table.num_cells, np.nan)
        high = np.full(self.table.num_cells, np.nan)
        hidden = set(self.result.suppressed) | set(self.table.sensitive_cells.tolist())
        judged = self.result.audit.cells if self.result.audit is not None else ()
        if {c.cell for c in judged if not np.isnan(c.low)} < hidden:
            judged = audit(self.table, self.result.suppressed).cells
        for cell in judged:
            low[cell.cell], high[cell.cell] = cell.low, cell.high
        return low, high

    def plot(self, path, *, title: str | None = None) -> None:
        """A PNG of the pattern on the table's grid (:func:`cspopt.plot.plot_pattern`;
        linked tables one by one; needs the ``plot`` extra)."""
        from cspopt.plot import plot_pattern

        plot_pattern(self.table, self.result.suppressed, path, empty=self.tabulation.empty,
                     title=title, views=[list(t) for t in self.tabulation.tables] or None)

    def summary(self) -> str:
        """A few lines for people: the cells, the rules' primaries, and the solve."""
        status = self.status
        counts = {s: int((status == s).sum()) for s in CELL_STATUSES}
        return (f"{self.table.num_cells} cells: {counts['primary']} primary, "
                f"{counts['secondary']} secondary, {counts['empty']} empty\n"
                + self.result.summary())


def write_report(columns: Mapping[str, Sequence], path, *, values: np.ndarray) -> None:
    """A report's ``columns`` (one entry per cell each, :meth:`ProtectedTable.columns`) to
    ``path``, in the format its extension names (:data:`OUTPUT_FORMATS`). A CSV file has one
    row per cell; a suppressed cell's ``published`` and a published cell's attacker
    interval are empty, and floats keep six decimals more than ``values`` (the cells')
    have."""
    if output_format(path) == "parquet":  # which refuses it without pandas and pyarrow
        import pandas as pd

        pd.DataFrame(dict(columns)).to_parquet(path, index=False)
        return
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        own = written_decimals(values)
        decimals = min((9 if own is None else own) + 6, 15)
        for row in zip(*columns.values()):
            writer.writerow([_csv_field(v, decimals) for v in row])


def _csv_field(value, decimals: int):
    """A report field: empty for NaN; a float rounded to ``decimals`` places (six more than
    the cell values have), which drops the float noise of sums and LP optima:
    31699.333333, not 31699.333333333343; 0.1, not 0.10000000000000142."""
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(round(value, decimals))
    return value


#: what :meth:`ProtectedTable.write` writes, by the file's extension
OUTPUT_FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def output_format(path) -> str:
    """The format of a report file (:data:`OUTPUT_FORMATS`), refused before any work where
    the extension is unknown or the format's packages are missing
    (:class:`MissingExtraError`)."""
    suffix = Path(path).suffix.lower()
    kind = OUTPUT_FORMATS.get(suffix)
    if kind is None:
        raise InputError(f"{path}: unknown report format {suffix or '(no extension)'!r}; "
                         f"use {', '.join(OUTPUT_FORMATS)}")
    if kind == "parquet":
        try:
            import pandas  # noqa: F401
            import pyarrow  # noqa: F401
        except ImportError as error:  # missing, or built for another NumPy
            raise MissingExtraError(f"{path}: Parquet needs pandas and pyarrow ({error}): "
                                    "pip install 'cspopt[microdata]', or write .csv") from None
    return kind


def build_table(tabulation: Tabulation, rules: Sequence[Rule], *, costs="value",
                name: str = "", zeros: str = "published") -> tuple[Table, tuple[str, ...]]:
    """The table to protect: cells, relations, sensitive cells with their protection
    levels (lower levels capped at what the attacker's a-priori bound allows: a cell
    cannot be shown to be below 0), empty cells as ``zeros`` says (:data:`ZEROS`; a
    protected empty cell is flagged ``"zeros"`` with level 0: exact disclosure). Returns it
    and the rules that flag each cell.

    A-priori bounds: ``[0, M]`` (nonnegative responses) or ``[-M, M]``, with ``M`` the sum
    of the absolute responses, which no cell can exceed. An attacker who knows only
    ``[0, inf)`` knows less, so a pattern that protects against these bounds protects
    against that attacker too; the finite ``M`` is what the interval model needs on tables
    that are not 2-D.
    """
    cells = tabulation.contributions
    sensitive, level, hit = apply_rules(rules, cells)
    empty = tabulation.empty
    if zeros == "protected":
        sensitive = sensitive | empty
        hit = [h or ("zeros" if e else "") for h, e in zip(hit, empty.tolist())]
    nonnegative = bool((cells.top >= 0).all() and (cells.total >= 0).all())
    lower = np.where(sensitive, np.minimum(level, cells.total) if nonnegative else level, 0.0)
    status = np.where(sensitive, "u", np.where(empty & (zeros == "published"), "z", "s"))
    if isinstance(costs, str) and costs in ("value", "unit", "log"):
        weights = costs
    elif isinstance(costs, str) and costs == "frequency":
        weights = cells.count
    elif isinstance(costs, str):
        if costs not in tabulation.sums:
            raise InputError(f"costs {costs!r} is neither one of {', '.join(_COSTS)} nor a "
                             "column tabulated with the table")
        weights = tabulation.sums[costs]
    else:
        weights = costs
    bound = max(tabulation.magnitude, 1.0)
    fields = dict(status=status, costs=weights, nonnegative=nonnegative,
                  apriori_lower=0.0 if nonnegative else -bound, apriori_upper=bound,
                  lower_protection=lower, upper_protection=np.where(sensitive, level, 0.0),
                  name=name)
    if tabulation.relations is None:
        table = Table.from_labels(tabulation.labels, cells.total, tabulation.dimensions,
                                  **fields)
    else:  # linked tables: the union of their relations
        table = Table(cells.total, relations=tabulation.relations, labels=tabulation.labels,
                      dimensions=tabulation.dimensions, **fields)
    return table, tuple(hit)


def protect(data, dimensions: Sequence[str] | Sequence[Sequence[str]], *,
            response: str | None = None, rules: str | Rule | Sequence[str | Rule] = (),
            hierarchies: Mapping[str, object] | None = None, costs="value",
            total: str = "Total", holding: str | None = None,
            protection: str = "interval", zeros: str = "published", method: str = "auto",
            time_limit: float | None = None, encoding: str = "utf-8",
            **options) -> ProtectedTable:
    """Protect the table of ``data`` over ``dimensions`` by cell suppression.

    Parameters
    ----------
    data
        Microdata: a pandas DataFrame, a mapping of columns, a list of records, or a CSV or
        Parquet path (:func:`~cspopt.microdata.tabulate.read_microdata`).
    encoding : str
        The text encoding of a CSV path (default UTF-8; e.g. ``"latin-1"``).
    dimensions : list of str, or list of lists of str
        The explanatory variables; a list of lists: linked tables from the same microdata,
        protected jointly as one linear system (:func:`~cspopt.microdata.tabulate.
        tabulate_linked`), so that no attacker combining them recovers a cell.
    response : str, optional
        The variable the cells sum; ``None`` for a frequency (count) table.
    rules : str or Rule or list
        Sensitivity rules in tau-ARGUS' spelling, e.g. ``"P(15)"``, ``"NK(3,75)|FREQ(3,10)"``
        (:func:`~cspopt.microdata.rules.parse_rules`).
    hierarchies : mapping, optional
        Per dimension a parent map, a tau-ARGUS ``.hrc`` path or a
        :class:`~cspopt.table.Dimension`.
    holding : str, optional
        A column of holding (enterprise group) codes: the rules then count holdings and
        read their summed contributions (:func:`~cspopt.microdata.tabulate.tabulate`).
        tau-ARGUS applies some rules to respondents and others to holdings (by the rules'
        positions); a holding aggregate is never smaller, so applying every rule to
        holdings flags at least the cells either level would, with levels at least as
        large.
    costs : {"value", "unit", "frequency", "log"} or column name or array
        Information loss of suppressing each cell (tau-ARGUS' default: the value).
    protection : {"interval", "exact"}
        Interval protection by the rules' levels (Fischetti & Salazar-Gonzalez), or exact
        disclosure only (frequency tables).
    zeros : {"published", "suppressible", "protected"}
        Empty cells (no contributors): published as empty, as tau-ARGUS does (default);
        candidates for secondary suppression; or protected like sensitive cells, so that no
        attacker proves a cell empty (GaussSuppression's ``protectZeros``; exact
        protection only: an empty cell has no interval level).
    method, time_limit, **options
        Passed to :func:`cspopt.solve`; ``time_limit`` is the whole call's, tabulation
        included.

    Returns
    -------
    ProtectedTable
        With ``result`` (audited pattern, certified gap) and :meth:`~ProtectedTable.to_frame`.
    """
    started = time.perf_counter()
    check_limits(time_limit=time_limit)
    table, tabulation, hit = sensitive_table(
        data, dimensions, response=response, rules=rules, hierarchies=hierarchies,
        costs=costs, total=total, holding=holding, protection=protection, encoding=encoding,
        zeros=zeros)
    if time_limit is not None:  # the limit is the whole call's: tabulation included
        time_limit = max(time_limit - (time.perf_counter() - started), 1e-3)
    result = solve_sensitive(table, protection=protection, method=method,
                             time_limit=time_limit, **options)
    return ProtectedTable(table, result, tabulation, hit)


def solve_sensitive(table: Table, *, protection: str, method: str,
                    time_limit: float | None, **options) -> SolveResult:
    """:func:`cspopt.solve` on a table of :func:`sensitive_table`; where no cell is
    sensitive, the table published whole (a proven optimum of cost 0)."""
    if table.sensitive.any():
        return solve(table, protection=protection, method=method, time_limit=time_limit,
                     **options)
    return SolveResult.build(method="protect", model=protection, termination="optimal",
                             lower_bound=0.0, suppressed=(), objective=0.0,
                             audit=audit(table, ()),
                             message="no cell is sensitive under the rules")


def check_zeros(zeros, protection: str) -> None:
    """An :class:`InputError` for a ``zeros`` choice not in :data:`ZEROS`, or ``protected``
    under interval protection."""
    if zeros not in ZEROS:
        raise InputError(f"zeros must be one of {', '.join(ZEROS)}, not {zeros!r}")
    if zeros == "protected" and protection != "exact":
        raise InputError("zeros='protected' needs protection='exact': an empty cell has no "
                         "interval protection level (the ZERO rule protects zero cells "
                         "with contributors)")


def sensitive_table(data, dimensions: Sequence[str] | Sequence[Sequence[str]], *,
                    response: str | None = None,
                    rules: str | Rule | Sequence[str | Rule] = (),
                    hierarchies: Mapping[str, object] | None = None, costs="value",
                    total: str = "Total", holding: str | None = None,
                    protection: str = "interval", encoding: str = "utf-8",
                    zeros: str = "published"):
    """The table :func:`protect` protects (its parameters): ``(table, tabulation, hit)``,
    the table with its sensitive cells and protection levels, the tabulation and which
    rules flagged each cell."""
    parsed = parse_rules(rules)
    if not parsed:
        raise InputError("no sensitivity rule given: pass rules=..., e.g. 'P(15)' or "
                         "'NK(3,75)|FREQ(3,10)'")
    if response is None:
        magnitude = [str(r) for r in parsed if r.magnitude]
        if magnitude:
            raise InputError(f"rule(s) {', '.join(magnitude)} read respondents' "
                             "contributions: give a response (a magnitude table); a "
                             "frequency table takes FREQ and ZERO rules")
    if protection not in ("interval", "exact"):
        raise InputError(f"protection must be 'interval' or 'exact', not {protection!r}")
    check_zeros(zeros, protection)
    extra = [costs] if isinstance(costs, str) and costs not in _COSTS else []
    data = read_microdata(data, encoding=encoding)
    linked = bool(dimensions) and not isinstance(dimensions[0], str)
    shape = dict(response=response, hierarchies=hierarchies, total=total, holding=holding,
                   depth=max((r.depth for r in parsed), default=1), sums=extra,
                   nonnegative=any(r.needs_nonnegative for r in parsed)
                   and response is not None)
    tabulation = (tabulate_linked(data, dimensions, **shape) if linked
                  else tabulate(data, dimensions, **shape))
    name = (" + ".join(" x ".join(t) for t in dimensions) if linked
            else " x ".join(dimensions))
    table, hit = build_table(tabulation, parsed, costs=costs, name=name, zeros=zeros)
    if protection == "exact":
        table = table.replace(lower_protection=np.zeros(table.num_cells),
                              upper_protection=np.zeros(table.num_cells))
    return table, tabulation, hit

"""The statistical table: cells, their attributes, and the linear relations between them.

A table is a vector of cells ``a_1..a_n`` with, per cell, a cost (the information loss of
suppressing it), a status, a-priori bounds ``[lb, ub]`` known to an attacker and, for
sensitive cells, protection levels ``lpl, upl, spl`` (absolute amounts, as in Fischetti &
Salazar-Gonzalez and the JJ format; Smith et al. 2012 §II-A), plus linear relations
``sum_i c_ri a_i = rhs_r``. This covers 2-D, 3-D and hierarchical tables; the 2-D case of
Almeida & Carvalho (2005) §2 is built by :meth:`Table.from_array`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from cspopt.errors import (
    InfeasibleProtectionError,
    InputError,
    InvalidCellError,
    InvalidRelationError,
    InvalidTableError,
    NonAdditiveError,
    NotNetworkError,
    PatternError,
)
from cspopt.table.network import (
    TableNetwork,
    bipartite_graph,
    reduced_network,
    table_network,
)
from cspopt.table.structure import Dimension, relations_from_labels

__all__ = ["CellStatus", "Relations", "Table", "cell_costs", "COST_PRESETS", "total_cells",
           "min_protection_level"]


class CellStatus(str, enum.Enum):
    """Status of a cell, with the one-letter codes of the JJ format."""

    FREE = "s"  #: may be suppressed
    SENSITIVE = "u"  #: primary suppression, must be protected
    PUBLISHED = "z"  #: must be published
    SECONDARY = "m"  #: suppressed by an earlier protection run; free for optimisation

    @classmethod
    def parse(cls, code: Any) -> CellStatus:
        if isinstance(code, CellStatus):
            return code
        text = str(code).strip().lower()
        aliases = {"free": "s", "sensitive": "u", "primary": "u", "published": "z",
                   "publish": "z", "secondary": "m"}
        return cls(aliases.get(text, text))


COST_PRESETS = ("value", "unit", "log")


def cell_costs(values: np.ndarray, costs: str | Iterable[float] | float) -> np.ndarray:
    """Costs from a preset or an explicit vector.

    ``"value"``: ``|a_i|`` (the usual choice, Almeida & Carvalho 2005 §2); ``"unit"``: 1,
    which minimises the number of suppressions; ``"log"``: ``log(1 + |a_i|)``, a compromise
    used by tau-ARGUS; anything else is taken as a custom vector (or scalar).
    """
    values = np.asarray(values, dtype=float)
    if isinstance(costs, str):
        if costs == "value":
            return np.abs(values)
        if costs == "unit":
            return np.ones_like(values)
        if costs == "log":
            return np.log1p(np.abs(values))
        raise InvalidTableError(f"unknown cost preset {costs!r}; use one of {COST_PRESETS}")
    try:
        out = np.broadcast_to(np.asarray(costs, dtype=float), values.shape)
    except ValueError:
        raise InvalidTableError(
            f"costs has {np.size(costs)} entries for {values.size} cells") from None
    return np.array(out, dtype=float)


def total_cells(table: "Table") -> np.ndarray:
    """Cells that are the total of some relation (coefficient -1 against +1 parts), a mask."""
    rel = table.relations
    mask = np.zeros(table.num_cells, dtype=bool)
    for r in range(len(rel)):
        lo, hi = rel.indptr[r], rel.indptr[r + 1]
        coefs = rel.coefficients[lo:hi]
        if np.count_nonzero(coefs < 0) == 1 and np.all(np.abs(coefs) == 1):
            mask[rel.cells[lo:hi][coefs < 0]] = True
    return mask


class Relations:
    """Linear relations ``sum_i c_ri a_i = rhs_r`` stored row by row (CSR, terms in file order).

    Parameters
    ----------
    rows : sequence of sequences of ``(cell, coefficient)``
    rhs : sequence of float, optional (zeros by default)
    """

    __slots__ = ("indptr", "cells", "coefficients", "rhs", "__dict__")

    def __init__(self, rows: Sequence[Sequence[tuple[int, float]]] = (),
                 rhs: Sequence[float] | None = None):
        lengths = [len(r) for r in rows]
        self.indptr = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(np.int64)
        flat = [term for r in rows for term in r]
        self.cells = np.array([int(c) for c, _ in flat], dtype=np.int64)
        self.coefficients = np.array([float(v) for _, v in flat], dtype=float)
        self.rhs = np.zeros(len(rows)) if rhs is None else np.asarray(rhs, dtype=float).copy()
        if len(self.rhs) != len(rows):
            raise InvalidTableError(f"{len(rows)} relations but {len(self.rhs)} right-hand sides")
        for arr in (self.indptr, self.cells, self.coefficients, self.rhs):
            arr.setflags(write=False)

    def __len__(self) -> int:
        return len(self.rhs)

    def terms(self, r: int) -> list[tuple[int, float]]:
        """The ``(cell, coefficient)`` terms of relation ``r`` in their stored order."""
        lo, hi = self.indptr[r], self.indptr[r + 1]
        return list(zip(self.cells[lo:hi].tolist(), self.coefficients[lo:hi].tolist()))

    def matrix(self, num_cells: int) -> sp.csr_matrix:
        """The relation matrix (relations x cells) as a new CSR matrix."""
        return sp.csr_matrix(
            (self.coefficients, self.cells, self.indptr), shape=(len(self), num_cells)
        )

    def equals(self, other: Relations) -> bool:
        return all(np.array_equal(a, b) for a, b in (
            (self.indptr, other.indptr), (self.cells, other.cells),
            (self.coefficients, other.coefficients), (self.rhs, other.rhs)))


def _vector(name: str, value: Any, n: int, default: float) -> np.ndarray:
    if value is None:
        value = default
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        arr = np.full(n, float(arr))
    arr = np.array(arr, dtype=float).reshape(-1)
    if arr.shape != (n,):
        raise InvalidTableError(f"{name} has {arr.size} entries for {n} cells")
    return arr


def min_protection_level(value: float) -> float:
    """The smallest positive protection level cspopt accepts for a cell of ``value``: ten
    times the audit's comparison slack (``1e-6 + 1e-9 |a|``). A smaller level would be
    "verified" within LP tolerances while the cell stays computable."""
    return 1e-5 + 1e-8 * abs(float(value))


class Table:
    """A statistical table to protect by cell suppression.

    Parameters
    ----------
    values : array_like, shape (n,)
        Cell values ``a_i``.
    costs : {"value", "unit", "log"} or array_like
        Information loss ``xi_i`` of suppressing each cell (see :func:`cell_costs`).
    status : sequence of str or CellStatus, optional
        ``"s"`` free, ``"u"`` sensitive, ``"z"`` must be published, ``"m"`` secondary of an
        earlier run. Default: all free.
    apriori_lower, apriori_upper : array_like, optional
        Bounds ``lb, ub`` an attacker knows. Default ``[0, inf)`` for nonnegative tables and
        ``(-inf, inf)`` otherwise.
    lower_protection, upper_protection, sliding_protection : array_like, optional
        ``lpl, upl, spl``: a sensitive cell must admit ``a - lpl`` and ``a + upl``, and an
        interval of width at least ``spl`` (Fischetti & Salazar-Gonzalez 1999).
    relations : Relations or sequence of term lists
        The linear relations; ``rhs`` gives their right-hand sides (zeros by default).
    labels, dimensions : optional
        Per-cell code tuples and the :class:`~cspopt.table.structure.Dimension` objects they refer to.
    nonnegative : bool, optional
        Declares that the attacker knows every value is ``>= 0``. ``None`` infers it from the
        values and ``apriori_lower``.
    additivity_tolerance : float
        A relation holds when ``|residual| <= tol * max(1, sum |c_ri a_i| + |rhs_r|)``.

    Raises
    ------
    InvalidTableError, InvalidCellError, InfeasibleProtectionError, InvalidRelationError,
    NonAdditiveError
        On any invalid field, naming the cell or relation.
    """

    def __init__(
        self,
        values: Iterable[float],
        *,
        costs: str | Iterable[float] | float = "value",
        status: Iterable[Any] | None = None,
        apriori_lower: Iterable[float] | float | None = None,
        apriori_upper: Iterable[float] | float | None = None,
        lower_protection: Iterable[float] | float | None = None,
        upper_protection: Iterable[float] | float | None = None,
        sliding_protection: Iterable[float] | float | None = None,
        relations: Relations | Sequence[Sequence[tuple[int, float]]] = (),
        rhs: Sequence[float] | None = None,
        labels: Sequence[tuple[str, ...]] | None = None,
        dimensions: Sequence[Dimension] | None = None,
        nonnegative: bool | None = None,
        name: str = "",
        additivity_tolerance: float = 1e-11,
    ):
        try:
            vals = np.array(np.asarray(values, dtype=float).reshape(-1))
        except (TypeError, ValueError) as exc:
            raise InvalidTableError(f"cell values are not numbers: {exc}") from None
        n = vals.size
        if n == 0:
            raise InvalidTableError("the table has no cells")
        for c in np.flatnonzero(~np.isfinite(vals)):
            raise InvalidCellError(f"cell {c}: value {vals[c]} is not a finite number", cell=int(c))
        self.values = vals
        self.costs = cell_costs(vals, costs)
        if status is None:
            codes = np.full(n, CellStatus.FREE.value)
        else:
            status = list(status)
            if len(status) != n:
                raise InvalidTableError(f"status has {len(status)} entries for {n} cells")
            codes = np.empty(n, dtype="<U1")
            for c, code in enumerate(status):
                try:
                    codes[c] = CellStatus.parse(code).value
                except ValueError:
                    raise InvalidCellError(f"cell {c}: unknown status {code!r}", cell=c) from None
        self.status = np.asarray(codes, dtype="<U1")
        lower_given = apriori_lower is not None
        low = _vector("apriori_lower", apriori_lower, n, 0.0)
        if nonnegative is None:
            nonnegative = bool(np.all(vals >= 0) and (not lower_given or np.all(low >= 0)))
        self.nonnegative = bool(nonnegative)
        if not lower_given:
            low[:] = 0.0 if self.nonnegative else -np.inf
        self.apriori_lower = low
        self.apriori_upper = _vector("apriori_upper", apriori_upper, n, np.inf)
        self.lower_protection = _vector("lower_protection", lower_protection, n, 0.0)
        self.upper_protection = _vector("upper_protection", upper_protection, n, 0.0)
        self.sliding_protection = _vector("sliding_protection", sliding_protection, n, 0.0)
        self.relations = relations if isinstance(relations, Relations) else Relations(relations, rhs)
        if labels is not None:
            labels = tuple(tuple(str(x) for x in lab) for lab in labels)
            if len(labels) != n:
                raise InvalidTableError(f"labels has {len(labels)} entries for {n} cells")
        self.labels = labels
        self.dimensions = tuple(dimensions) if dimensions is not None else None
        self.name = name
        self.additivity_tolerance = float(additivity_tolerance)
        for arr in (self.values, self.costs, self.status, self.apriori_lower, self.apriori_upper,
                    self.lower_protection, self.upper_protection, self.sliding_protection):
            arr.setflags(write=False)
        self._validate()

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        n = self.num_cells
        for field in ("costs", "lower_protection", "upper_protection", "sliding_protection"):
            arr = getattr(self, field)
            for c in np.flatnonzero(~np.isfinite(arr) | (arr < 0)):
                raise InvalidCellError(
                    f"{self.describe(c)}: {field} {arr[c]} must be a finite number >= 0", cell=int(c))
        lo, hi, a = self.apriori_lower, self.apriori_upper, self.values
        for c in np.flatnonzero(np.isnan(lo) | np.isnan(hi) | (lo == np.inf) | (hi == -np.inf)):
            raise InvalidCellError(f"{self.describe(c)}: a-priori bounds [{lo[c]}, {hi[c]}] "
                                   "are not valid", cell=int(c))
        if self.nonnegative:
            for c in np.flatnonzero(a < 0):
                raise InvalidCellError(f"{self.describe(c)}: value {a[c]} is negative in a table "
                                       "declared nonnegative", cell=int(c))
            for c in np.flatnonzero(lo < 0):
                raise InvalidCellError(f"{self.describe(c)}: a-priori lower bound {lo[c]} is "
                                       "negative in a table declared nonnegative", cell=int(c))
        slack = 1e-9 * np.maximum(1.0, np.abs(a))
        for c in np.flatnonzero((a < lo - slack) | (a > hi + slack)):
            raise InvalidCellError(f"{self.describe(c)}: value {a[c]} lies outside its a-priori "
                                   f"bounds [{lo[c]}, {hi[c]}]", cell=int(c))
        for c in self.sensitive_cells:
            lpl, upl, spl = (self.lower_protection[c], self.upper_protection[c],
                             self.sliding_protection[c])
            finest = min_protection_level(a[c])
            for name, level in (("lower", lpl), ("upper", upl), ("sliding", spl)):
                if 0 < level < finest:
                    raise InvalidCellError(
                        f"{self.describe(c)}: {name} protection {level:g} is below "
                        f"{finest:g}, the finest level the solvers' tolerances can verify at "
                        f"this value; give 0 (not computable exactly) or express the table in "
                        f"smaller units", cell=int(c))
            for name, level, room, what in (("lower", lpl, a[c] - lo[c], "value - lb"),
                                            ("upper", upl, hi[c] - a[c], "ub - value"),
                                            ("sliding", spl, hi[c] - lo[c], "ub - lb")):
                if level > room + slack[c]:
                    raise InfeasibleProtectionError(
                        f"{self.describe(c)}: {name} protection {level} exceeds {what} = "
                        f"{room}; no suppression pattern can protect it", cell=int(c))
        self._validate_relations(n)

    def _validate_relations(self, n: int) -> None:
        rel = self.relations
        if len(rel.indptr) != len(rel) + 1 or rel.indptr[-1] != len(rel.cells):
            raise InvalidTableError("relation storage is inconsistent")
        bad = np.flatnonzero((rel.cells < 0) | (rel.cells >= n))
        if bad.size:
            r = int(np.searchsorted(rel.indptr, bad[0], side="right") - 1)
            raise InvalidRelationError(
                f"relation {r} refers to unknown cell {rel.cells[bad[0]]} (cells are 0..{n - 1})",
                relation=r)
        for r in np.flatnonzero(~np.isfinite(rel.rhs)):
            raise InvalidRelationError(f"relation {r}: right-hand side is not finite", relation=int(r))
        row_of_term = np.repeat(np.arange(len(rel)), np.diff(rel.indptr))
        for t in np.flatnonzero(~np.isfinite(rel.coefficients) | (rel.coefficients == 0)):
            r = int(row_of_term[t])
            raise InvalidRelationError(
                f"relation {r}: coefficient of cell {rel.cells[t]} is {rel.coefficients[t]}",
                relation=r)
        for r in np.flatnonzero(np.diff(rel.indptr) == 0):
            raise InvalidRelationError(f"relation {r} has no terms", relation=int(r))
        keys = row_of_term * n + rel.cells
        uniq, counts = np.unique(keys, return_counts=True)
        if np.any(counts > 1):
            key = int(uniq[np.argmax(counts > 1)])
            raise InvalidRelationError(
                f"relation {key // n} names cell {key % n} more than once", relation=key // n)
        products = rel.coefficients * self.values[rel.cells]
        residual = np.add.reduceat(products, rel.indptr[:-1]) - rel.rhs if len(rel) else products
        scale = (np.add.reduceat(np.abs(products), rel.indptr[:-1]) + np.abs(rel.rhs)
                 if len(rel) else products)
        bad = np.flatnonzero(np.abs(residual) > self.additivity_tolerance * np.maximum(1.0, scale))
        for r in bad[:1]:
            terms = " ".join(f"{c:+g}*a[{i}]" for i, c in self.relations.terms(int(r))[:6])
            raise NonAdditiveError(
                f"relation {r} ({terms}{' ...' if len(self.relations.terms(int(r))) > 6 else ''}"
                f" = {rel.rhs[r]:g}) is violated by the cell values: residual {residual[r]:g}",
                relation=int(r), residual=float(residual[r]))

    # ------------------------------------------------------------------ properties
    @property
    def num_cells(self) -> int:
        return self.values.size

    @property
    def num_relations(self) -> int:
        return len(self.relations)

    @cached_property
    def sensitive(self) -> np.ndarray:
        """Boolean mask of the sensitive (primary) cells."""
        return self.status == CellStatus.SENSITIVE.value

    @cached_property
    def sensitive_cells(self) -> np.ndarray:
        """0-based ids of the sensitive cells."""
        return np.flatnonzero(self.sensitive)

    @cached_property
    def must_publish(self) -> np.ndarray:
        """Boolean mask of the cells that may not be suppressed."""
        return self.status == CellStatus.PUBLISHED.value

    @cached_property
    def is_integer(self) -> bool:
        """True when every value and every finite a-priori bound is an integer."""
        def integral(arr: np.ndarray) -> bool:
            finite = arr[np.isfinite(arr)]
            return bool(np.all(finite == np.round(finite)))
        return integral(self.values) and integral(self.apriori_lower) and integral(
            self.apriori_upper)

    @cached_property
    def has_interval_protection(self) -> bool:
        """True when some sensitive cell carries a positive lpl, upl or spl."""
        s = self.sensitive
        return bool(np.any(self.lower_protection[s] > 0) or np.any(self.upper_protection[s] > 0)
                    or np.any(self.sliding_protection[s] > 0))

    def with_strict_protection(self, step: float | None = None) -> Table:
        """The table whose protection levels ask for *strict* inequalities, as at the UK's
        ONS (Smith et al. 2012 §II-A): the attacker's range must go strictly beyond
        ``a - lpl`` and ``a + upl`` (and be strictly wider than ``spl``).

        Strictness is expressed as levels raised by ``step`` (positive levels only), the
        smallest difference that counts. On integer tables ``step`` defaults to 1, which is
        exact whenever the attacker's bounds are integers: integer completions
        (``audit(..., integer=True)``, the default on nonnegative integer tables) and 2-D
        tables with integer bounds, whose attacker LPs have integral optima. Other tables
        need an explicit ``step``. A raised level the a-priori bounds cannot meet raises
        :class:`InfeasibleProtectionError` naming the cell.
        """
        if step is None:
            if not self.is_integer:
                raise InputError("strict protection on a table with non-integer values needs "
                                 "an explicit step (the smallest difference that counts)")
            step = 1.0
        if not (np.isfinite(step) and step > 0):
            raise InputError(f"step must be a positive number, got {step}")
        raise_level = lambda levels: np.where(self.sensitive & (levels > 0), levels + step,
                                              levels)
        return self.replace(lower_protection=raise_level(self.lower_protection),
                            upper_protection=raise_level(self.upper_protection),
                            sliding_protection=raise_level(self.sliding_protection),
                            name=f"{self.name} (strict)".strip())

    @cached_property
    def relation_matrix(self) -> sp.csr_matrix:
        """Relations x cells coefficient matrix (read-only use)."""
        return self.relations.matrix(self.num_cells)

    def describe(self, cell: int) -> str:
        """``"cell 5"`` or ``"cell 5 ('Nr', '1')"`` for messages."""
        if self.labels is not None:
            return f"cell {int(cell)} {self.labels[int(cell)]}"
        return f"cell {int(cell)}"

    def network(self) -> TableNetwork:
        """The table as a directed graph of relations (see :mod:`cspopt.table.network`),
        built once per table.

        Raises
        ------
        NotNetworkError
            If the relations are not a network matrix (e.g. hierarchical or 3-D tables).
        """
        return _or_raise(self._network_or_reason)

    @cached_property
    def _network_or_reason(self) -> TableNetwork | NotNetworkError:
        try:
            return table_network(self)
        except NotNetworkError as exc:
            return exc

    def reduced_network(self) -> tuple[TableNetwork, np.ndarray]:
        """The table's network once implied relations are dropped (2-D tables, also with one
        hierarchical dimension; :func:`cspopt.table.network.reduced_network`) and the
        relations kept, built once per table.

        Raises
        ------
        NotNetworkError
            If no such network exists (e.g. 3-D tables).
        """
        return _or_raise(self._reduced_network_or_reason)

    @cached_property
    def _reduced_network_or_reason(self) -> tuple[TableNetwork, np.ndarray] | NotNetworkError:
        try:
            return reduced_network(self)
        except NotNetworkError as exc:
            return exc

    @property
    def is_network(self) -> bool:
        """Do the relations form a network matrix (a 2-D table with margins), so that
        :meth:`network` applies?"""
        try:
            self.network()
        except NotNetworkError:
            return False
        return True

    @property
    def has_network_form(self) -> bool:
        """Do the relations, once the implied ones are dropped, form a network (2-D tables,
        also with one hierarchical dimension), so that :meth:`reduced_network` applies?"""
        return not isinstance(self._reduced_network_or_reason, NotNetworkError)

    def bipartite_graph(self):
        """The bipartite row/column graph of Almeida & Carvalho (2005) §2."""
        return bipartite_graph(self)

    # ------------------------------------------------------------------ patterns
    def pattern(self, suppressed: Iterable[int] | np.ndarray) -> np.ndarray:
        """Boolean mask of the suppressed cells: ``suppressed`` plus every sensitive cell.

        Accepts cell ids or a boolean mask. Raises :class:`PatternError` for unknown ids and
        for cells that must be published.
        """
        arr = np.asarray(list(suppressed) if not isinstance(suppressed, np.ndarray) else suppressed)
        mask = self.sensitive.copy()
        if arr.dtype == bool:
            if arr.shape != (self.num_cells,):
                raise PatternError(f"a pattern mask needs {self.num_cells} entries, got {arr.size}")
            mask |= arr
        elif arr.size:
            if not np.issubdtype(arr.dtype, np.integer):
                if not np.all(np.asarray(arr, dtype=float) == np.round(np.asarray(arr, dtype=float))):
                    raise PatternError(f"cell ids must be integers, got {arr.tolist()}")
                arr = np.asarray(arr, dtype=float).astype(np.int64)
            bad = arr[(arr < 0) | (arr >= self.num_cells)]
            if bad.size:
                raise PatternError(
                    f"unknown cell id(s) {sorted(set(bad.tolist()))}: the table has cells "
                    f"0..{self.num_cells - 1}", cells=tuple(int(b) for b in bad))
            mask[arr] = True
        published = np.flatnonzero(mask & self.must_publish)
        if published.size:
            raise PatternError(
                f"the pattern suppresses cell(s) {published.tolist()} whose status is "
                "'must be published'", cells=tuple(int(c) for c in published))
        return mask

    # ------------------------------------------------------------------ copies
    def replace(self, **changes: Any) -> Table:
        """A new table with some constructor arguments changed (validated again)."""
        kwargs = dict(
            costs=self.costs, status=self.status, apriori_lower=self.apriori_lower,
            apriori_upper=self.apriori_upper, lower_protection=self.lower_protection,
            upper_protection=self.upper_protection, sliding_protection=self.sliding_protection,
            relations=self.relations, labels=self.labels, dimensions=self.dimensions,
            nonnegative=self.nonnegative, name=self.name,
            additivity_tolerance=self.additivity_tolerance)
        kwargs.update(changes)
        values = kwargs.pop("values", self.values)
        return Table(values, **kwargs)

    def equals(self, other: Table) -> bool:
        """Field-by-field equality (values, attributes, relations, labels)."""
        fields = ("values", "costs", "status", "apriori_lower", "apriori_upper",
                  "lower_protection", "upper_protection", "sliding_protection")
        return (isinstance(other, Table)
                and all(np.array_equal(getattr(self, f), getattr(other, f)) for f in fields)
                and self.relations.equals(other.relations)
                and self.nonnegative == other.nonnegative)

    def __repr__(self) -> str:
        kind = "nonnegative" if self.nonnegative else "general"
        return (f"<Table {self.name!r}: {self.num_cells} cells, {self.num_relations} relations, "
                f"{self.sensitive_cells.size} sensitive, {kind}>")

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_labels(
        cls,
        labels: Sequence[tuple[str, ...]],
        values: Iterable[float],
        dimensions: Sequence[Dimension],
        **kwargs: Any,
    ) -> Table:
        """A table whose relations follow from its cells' codes in ``dimensions``.

        Every combination of codes that a relation needs must be present; see
        :func:`cspopt.table.structure.relations_from_labels`.
        """
        labels = [tuple(str(x) for x in lab) for lab in labels]
        rows = relations_from_labels(labels, dimensions)
        return cls(values, relations=rows, labels=labels, dimensions=dimensions, **kwargs)

    @classmethod
    def from_array(
        cls,
        data: Any,
        *,
        margins: str = "compute",
        sensitive: Any = None,
        row_labels: Sequence[Any] | None = None,
        col_labels: Sequence[Any] | None = None,
        total_label: str = "Total",
        row_name: str = "row",
        col_name: str = "col",
        lower_protection: Any = None,
        upper_protection: Any = None,
        sliding_protection: Any = None,
        must_publish: Any = None,
        **kwargs: Any,
    ) -> Table:
        """A 2-D table with marginals, cells numbered row by row over ``(m+1) x (n+1)``.

        Parameters
        ----------
        data : array_like or pandas.DataFrame
            ``m x n`` internal cells (``margins="compute"``) or the full ``(m+1) x (n+1)``
            table whose last row and column are the totals (``margins="given"``; they are
            checked). A DataFrame (e.g. ``pandas.crosstab(..., margins=True)``) also gives
            the labels.
        sensitive, must_publish : array_like of bool, optional
            Masks shaped ``m x n`` (internal cells only) or ``(m+1) x (n+1)``.
        lower_protection, upper_protection, sliding_protection : scalar or array_like
            Absolute protection levels, shaped like ``sensitive`` or scalars.
        **kwargs
            Passed to :class:`Table` (``costs``, ``nonnegative``, bounds, ``name``...).

        Notes
        -----
        Cell ``(i, j)`` (0-based, totals at ``i = m`` and ``j = n``) has id ``i*(n+1) + j``.
        Row relations come first, then column relations, each ``-total + sum parts = 0``.
        """
        if hasattr(data, "to_numpy") and hasattr(data, "columns"):
            row_labels = list(data.index) if row_labels is None else row_labels
            col_labels = list(data.columns) if col_labels is None else col_labels
            row_name = str(data.index.name or row_name)
            col_name = str(data.columns.name or col_name)
            data = data.to_numpy()
        try:
            arr = np.array(data, dtype=float)
        except (TypeError, ValueError) as exc:
            raise InvalidTableError(f"table data are not numbers: {exc}") from None
        if arr.ndim != 2 or min(arr.shape) == 0:
            raise InvalidTableError(f"a 2-D table needs a non-empty matrix, got shape {arr.shape}")
        for i, j in zip(*np.nonzero(~np.isfinite(arr))):
            raise InvalidCellError(f"cell ({i}, {j}): value {arr[i, j]} is not a finite number",
                                   cell=int(i * arr.shape[1] + j))
        if margins == "compute":
            m, n = arr.shape
            full = np.zeros((m + 1, n + 1))
            full[:m, :n] = arr
            full[m, :n] = arr.sum(axis=0)
            full[:m, n] = arr.sum(axis=1)
            full[m, n] = arr.sum()
            labels_have_total = False
        elif margins == "given":
            full = arr
            m, n = arr.shape[0] - 1, arr.shape[1] - 1
            if m < 1 or n < 1:
                raise InvalidTableError("margins='given' needs at least 2 rows and 2 columns")
            labels_have_total = True
        else:
            raise InvalidTableError(f"margins must be 'compute' or 'given', not {margins!r}")

        def codes(given: Sequence[Any] | None, count: int) -> list[str]:
            if given is None:
                return [str(k + 1) for k in range(count)] + [total_label]
            given = [str(g) for g in given]
            expected = count + 1 if labels_have_total else count
            if len(given) != expected:
                raise InvalidTableError(f"{len(given)} labels for {expected} rows/columns")
            return given if labels_have_total else given + [total_label]

        rcodes, ccodes = codes(row_labels, m), codes(col_labels, n)
        rdim = Dimension(row_name, tuple(rcodes), {c: rcodes[-1] for c in rcodes[:-1]})
        cdim = Dimension(col_name, tuple(ccodes), {c: ccodes[-1] for c in ccodes[:-1]})
        labels = [(rc, cc) for rc in rcodes for cc in ccodes]

        def grid(name: str, mask: Any, default: Any, dtype: type) -> np.ndarray:
            if mask is None:
                mask = default
            g = np.asarray(mask, dtype=dtype)
            if g.ndim == 0:
                return np.full((m + 1) * (n + 1), g.item(), dtype=dtype)
            if g.shape == (m, n):
                out = np.zeros((m + 1, n + 1), dtype=dtype)
                out[:m, :n] = g
                return out.reshape(-1)
            if g.shape == (m + 1, n + 1):
                return g.reshape(-1)
            raise InvalidTableError(f"{name} has shape {g.shape}; expected ({m}, {n}) or "
                                    f"({m + 1}, {n + 1})")

        sens = grid("sensitive", sensitive, False, bool)
        publish = grid("must_publish", must_publish, False, bool)
        both = np.flatnonzero(sens & publish)
        if both.size:
            raise InvalidCellError(f"cell {both[0]} is both sensitive and must-publish",
                                   cell=int(both[0]))
        status = np.where(sens, "u", np.where(publish, "z", "s"))
        return cls.from_labels(
            labels, full.reshape(-1), (rdim, cdim), status=status,
            lower_protection=grid("lower_protection", lower_protection, 0.0, float),
            upper_protection=grid("upper_protection", upper_protection, 0.0, float),
            sliding_protection=grid("sliding_protection", sliding_protection, 0.0, float),
            **kwargs)

    def to_array(self) -> np.ndarray:
        """The ``(m+1) x (n+1)`` value grid of a table made by :meth:`from_array`."""
        shape = self.grid_shape
        return self.values.reshape(shape).copy()

    @cached_property
    def grid_shape(self) -> tuple[int, int]:
        """``(m+1, n+1)`` for a flat 2-D labelled table in row-major order."""
        dims = self.dimensions
        if (dims is None or len(dims) != 2 or self.labels is None
                or any(len(d.codes) != len(d.parent) + 1 or any(
                    p != d.total for p in d.parent.values()) for d in dims)):
            raise InvalidTableError("this table is not a flat 2-D table with row/column labels")
        rows = [c for c in dims[0].codes if c != dims[0].total] + [dims[0].total]
        cols = [c for c in dims[1].codes if c != dims[1].total] + [dims[1].total]
        expected = [(r, c) for r in rows for c in cols]
        if list(self.labels) != expected:
            raise InvalidTableError("cells are not in row-major order with totals last")
        return len(rows), len(cols)


def _or_raise(value):
    """A cached result, or the cached :class:`NotNetworkError` raised again."""
    if isinstance(value, NotNetworkError):
        raise value
    return value

"""Exception hierarchy of cspopt.

Every error cspopt raises on purpose derives from :class:`CspoptError`. Errors about
bad input also derive from :class:`ValueError` and name the cell, relation or file line
at fault, so a caller can report them without a traceback.
"""

from __future__ import annotations

__all__ = [
    "CspoptError",
    "InputError",
    "InvalidTableError",
    "InvalidCellError",
    "InfeasibleProtectionError",
    "InvalidRelationError",
    "NonAdditiveError",
    "TableFormatError",
    "DimensionError",
    "PatternError",
    "NotNetworkError",
    "MissingExtraError",
    "SolverError",
    "ClusterError",
    "OutOfTime",
]


class CspoptError(Exception):
    """Root of every error raised by cspopt."""


class InputError(CspoptError, ValueError):
    """The caller handed in something cspopt cannot accept."""


class InvalidTableError(InputError):
    """The table as a whole is malformed (empty, arrays of different lengths, ...)."""


class InvalidCellError(InputError):
    """A field of one cell is invalid. ``cell`` is its 0-based id."""

    def __init__(self, message: str, *, cell: int):
        super().__init__(message)
        self.cell = cell


class InfeasibleProtectionError(InvalidCellError):
    """A sensitive cell asks for more protection than its a-priori bounds allow."""


class InvalidRelationError(InputError):
    """A relation is malformed. ``relation`` is its 0-based index."""

    def __init__(self, message: str, *, relation: int):
        super().__init__(message)
        self.relation = relation


class NonAdditiveError(InvalidRelationError):
    """The cell values do not satisfy a relation within the tolerance."""

    def __init__(self, message: str, *, relation: int, residual: float):
        super().__init__(message, relation=relation)
        self.residual = residual


class TableFormatError(InputError):
    """A table file cannot be parsed. ``path`` and ``line`` (1-based) locate the fault."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        elif line is not None:
            where = f"line {line}: "
        super().__init__(where + message)
        self.path = path
        self.line = line


class DimensionError(InputError):
    """The data's codes and a dimension disagree (a record without a code, a code missing
    from its hierarchy or a subtotal of it, a code equal to the total). ``dimension`` names
    the dimension, so a caller can point at where its hierarchy was given."""

    def __init__(self, message: str, *, dimension: str):
        super().__init__(message)
        self.dimension = dimension


class PatternError(InputError):
    """A suppression pattern names unknown cells or cells that must be published."""

    def __init__(self, message: str, *, cells: tuple[int, ...] = ()):
        super().__init__(message)
        self.cells = cells


class NotNetworkError(CspoptError, ValueError):
    """The table's relations are not a network matrix, so a graph method does not apply."""


class SolverError(CspoptError, RuntimeError):
    """An LP/MIP solver returned a status that contradicts the table's own data."""


class MissingExtraError(CspoptError, ImportError):
    """An optional feature's package is not installed; the message names the extra to install
    (e.g. ``pip install 'cspopt[plot]'``)."""


class ClusterError(CspoptError, RuntimeError):
    """The Dask cluster work was handed to cannot be reached, did not start, or lost a task
    twice; the message names the address or the task."""


class OutOfTime(CspoptError):
    """A time budget ended inside a solve. Raised and caught inside the library: the step
    that set the budget stops there undecided (a user never sees it)."""

"""Dimensions of a labelled table and the linear relations they imply.

A dimension is a tree of codes: the root is the total, every code with children is the
sum of its children. A table over dimensions ``d_1 x ... x d_k`` holds one cell per
combination of codes; for each dimension ``d``, each non-leaf code ``p`` of ``d`` and each
combination of the other dimensions' codes there is one relation

    cell(..., p, ...) = sum_{c child of p} cell(..., c, ...),

written as in tau-ARGUS' JJ files: the total with coefficient -1 first, its parts with +1
and right-hand side 0. A 2-D table with flat dimensions gives the row and column relations of
Almeida & Carvalho (2005) §2; a hierarchical dimension gives the subtotal relations of
Castro (2007) Fig. 5; three dimensions give a 3-D table.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from cspopt.errors import InvalidTableError, TableFormatError

__all__ = ["Dimension", "relations_from_labels"]


@dataclass(frozen=True)
class Dimension:
    """A named tree of codes.

    Parameters
    ----------
    name : str
        Name of the dimension (column name in tidy CSV files).
    codes : tuple of str
        Every code of the dimension, the total included, in presentation order.
    parent : mapping code -> parent code
        The parent of every code but the total, which has none.
    """

    name: str
    codes: tuple[str, ...]
    parent: Mapping[str, str]

    def __post_init__(self) -> None:
        roots = [c for c in self.codes if c not in self.parent]
        if len(roots) != 1:
            raise InvalidTableError(
                f"dimension {self.name!r} must have exactly one total code, found {roots}"
            )
        if len(set(self.codes)) != len(self.codes):
            raise InvalidTableError(f"dimension {self.name!r} repeats a code")
        for code, par in self.parent.items():
            if par not in self.codes or code not in self.codes:
                raise InvalidTableError(
                    f"dimension {self.name!r}: code {code!r} has unknown parent {par!r}"
                )

    @property
    def total(self) -> str:
        """The root code."""
        return next(c for c in self.codes if c not in self.parent)

    def children(self, code: str) -> list[str]:
        """Direct children of ``code`` in presentation order."""
        return [c for c in self.codes if self.parent.get(c) == code]

    def is_leaf(self, code: str) -> bool:
        return not self.children(code)

    @classmethod
    def flat(cls, name: str, codes: Sequence[str], total: str = "Total") -> Dimension:
        """A one-level dimension: ``total`` is the sum of every other code."""
        codes = tuple(str(c) for c in codes)
        if total not in codes:
            raise InvalidTableError(f"dimension {name!r} has no total code {total!r}")
        return cls(name, codes, {c: total for c in codes if c != total})

    @classmethod
    def from_hrc(
        cls,
        name: str,
        source: str | os.PathLike,
        *,
        total: str = "Total",
        leadstring: str = "@",
        codes: Iterable[str] = (),
    ) -> Dimension:
        """Read a tau-ARGUS hierarchy file (``.hrc``).

        Each line is a code preceded by one ``leadstring`` per level below the top.
        Codes in ``codes`` (for instance all codes seen in the data) that the file does not
        list become direct children of the total, as tau-ARGUS does for codes of the codelist
        outside the hierarchy.
        """
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8-sig") as handle:
                lines = handle.read().splitlines()
        except OSError as error:
            raise TableFormatError(f"the hierarchy of dimension {name!r} cannot be read "
                                   f"({error.strerror})", path=path) from None
        except UnicodeDecodeError as error:
            raise TableFormatError(f"the hierarchy of dimension {name!r} is not UTF-8 text "
                                   f"({error.reason} at byte {error.start})", path=path
                                   ) from None
        ordered = [total]
        parent: dict[str, str] = {}
        stack = [total]  # stack[d] is the last code seen at depth d (total is depth 0)
        for lineno, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            depth = 0
            rest = raw
            while leadstring and rest.startswith(leadstring):
                depth += 1
                rest = rest[len(leadstring):]
            code = rest.strip()
            level = depth + 1
            if level > len(stack):
                raise TableFormatError(
                    f"code {code!r} is nested two levels below its predecessor",
                    path=path,
                    line=lineno,
                )
            if code in parent or code == total:
                raise TableFormatError(f"code {code!r} appears twice", path=path, line=lineno)
            del stack[level:]
            parent[code] = stack[level - 1]
            stack.append(code)
            ordered.append(code)
        for code in codes:
            code = str(code).strip()
            if code != total and code not in parent:
                parent[code] = total
                ordered.append(code)
        return cls(name, tuple(ordered), parent)


def relations_from_labels(
    labels: Sequence[tuple[str, ...]], dimensions: Sequence[Dimension]
) -> list[list[tuple[int, float]]]:
    """Relations implied by ``dimensions`` for cells carrying ``labels``.

    Returns one list of ``(cell, coefficient)`` terms per relation, the total first with
    -1, every right-hand side being 0. Relations of the last dimension come first, so in a
    2-D table (rows, columns) the row relations precede the column relations, as the node
    set ``R`` precedes ``C`` in Almeida & Carvalho (2005) §2.

    Raises
    ------
    InvalidTableError
        If a label uses an unknown code, two cells share a label, or a cell needed by a
        relation is missing.
    """
    index: dict[tuple[str, ...], int] = {}
    for cell, label in enumerate(labels):
        if len(label) != len(dimensions):
            raise InvalidTableError(
                f"cell {cell} has {len(label)} labels, expected {len(dimensions)}"
            )
        for dim, code in zip(dimensions, label):
            if code not in dim.parent and code != dim.total:
                raise InvalidTableError(
                    f"cell {cell}: code {code!r} is not in dimension {dim.name!r}"
                )
        if label in index:
            raise InvalidTableError(
                f"cells {index[label]} and {cell} have the same labels {label}"
            )
        index[label] = cell
    children = [{c: dim.children(c) for c in dim.codes} for dim in dimensions]
    relations = []
    for d in reversed(range(len(dimensions))):
        for cell, label in enumerate(labels):
            parts = children[d][label[d]]
            if not parts:
                continue
            terms = [(cell, -1.0)]
            for code in parts:
                key = label[:d] + (code,) + label[d + 1:]
                if key not in index:
                    raise InvalidTableError(
                        f"cell {key} is missing: cell {cell} {label} is its total "
                        f"in dimension {dimensions[d].name!r}"
                    )
                terms.append((index[key], 1.0))
            relations.append(terms)
    return relations

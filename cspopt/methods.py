"""The solving methods, declared once: the one table :func:`cspopt.solve`, the CLI's choices and
help, the options' takers (:mod:`cspopt.options`), the docs and the tests read.

Each :class:`Method` has its name, the protections it solves, the options of its own (beyond
those every method takes), whether it is randomised or starts from the capacity LP's point,
one line for the help, and for a heuristic its runner (``"module:function"``, loaded on first
use so that this table imports nothing). A new heuristic is one module under
:mod:`cspopt.heuristics` and one :class:`Method` here (pyomo.contrib.gdpopt keeps its
algorithms in one table in the same way).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Method", "METHOD_TABLE", "SHAPES", "SUBTABLE_OPTIONS", "methods_for",
           "heuristic_names", "taking", "method_help", "shape_refusal", "plain_2d"]

_BOTH = frozenset({"exact", "interval"})
_EXACT = frozenset({"exact"})
_INTERVAL = frozenset({"interval"})
_LAGRANGIAN = frozenset({"dual", "max_iterations", "multipliers"})
_COMPACT = frozenset({"solver", "threads", "route", "relax"})
_TREE = frozenset({"separation", "candidate_sets", "processes"})
_HEURISTIC = frozenset({"clean", "certify"})
#: the options of the methods that go subtable by subtable (Modular and its hypercube frame)
SUBTABLE_OPTIONS = ("workers", "scheduler", "subtable_time_limit")
_SPREAD = frozenset(SUBTABLE_OPTIONS)
_ORDER_SEARCH = _HEURISTIC | {"seed", "operator", "groups"}
#: the table shapes a method may need, in words: a network table (Castro 2007 Fig. 5: the
#: relations left once a hierarchical dimension's implied ones are dropped form a network)
#: or a plain 2-D grid (the rows and columns the method walks)
SHAPES = {"any": "any linear table",
          "network": "a 2-D table, possibly with one hierarchical dimension",
          "2-D": "a 2-D table without hierarchies",
          "grid": "a table whose cells form a grid of dimensions (2-D, or n-D with its "
                  "hierarchies given or shown by its relations)"}


@dataclass(frozen=True)
class Method:
    """One method of :func:`cspopt.solve`.

    ``runner``: for a heuristic, ``"module:function"`` of its core on an
    :class:`~cspopt.models.interval.IntervalInstance` (``budget=`` and the method's options
    as keywords), returning a :class:`~cspopt.heuristics.cell_arcs.PathsOutcome`.
    """

    name: str
    protections: frozenset[str]
    doc: str
    options: frozenset[str] = frozenset()
    runner: str = ""
    randomised: bool = False
    lp_guided: bool = False
    shape: str = "any"  # a key of SHAPES

    @property
    def heuristic(self) -> bool:
        return bool(self.runner)

    def load(self) -> Callable:
        """The heuristic's function."""
        module, _, function = self.runner.partition(":")
        return getattr(importlib.import_module(module), function)


def _heuristic(name: str, function: str, doc: str, *, options=_HEURISTIC, module: str = "",
               randomised: bool = False, lp_guided: bool = False,
               shape: str = "any") -> Method:
    return Method(name, _INTERVAL, doc, frozenset(options),
                  f"cspopt.heuristics.{module or name}:{function}", randomised, lp_guided,
                  shape)


#: every method, in the order the help lists them
METHOD_TABLE: tuple[Method, ...] = (
    Method("auto", _BOTH, "exact: heuristic + Lagrangian, then the branch-and-cut on x if a gap "
           "remains; interval: the branch-and-cut with capacity cuts (SCIP), or modular on "
           "hierarchical tables beyond 2-D from 2,000 cells",
           _LAGRANGIAN | _TREE),
    Method("lagrangian", _EXACT, "exact: heuristic + Lagrangian dual only (Almeida & Carvalho "
           "2005)", _LAGRANGIAN),
    Method("mip", _BOTH, "the compact MIP (exact: on --solver; interval: HiGHS)", _COMPACT),
    Method("branch-and-cut", _BOTH, "exact: on x with cut-set constraints; interval: on y with "
           "capacity cuts (SCIP)", _TREE),
    Method("modular", _INTERVAL, "interval: the hierarchical table subtable by subtable, each "
           "by the branch-and-cut, top-down with backtracking, then audited and repaired whole "
           "(de Wolf 2002's HiTaS; needs the table's dimensions)", _SPREAD),
    _heuristic("castro", "castro_heuristic", "Castro's (2007) shortest-paths heuristic (2-D "
               "tables, one hierarchical dimension allowed)", shape="network"),
    _heuristic("sp", "sp_heuristic", "the SP heuristic (2-D tables, one hierarchical "
               "dimension allowed)", module="shortest_paths", shape="network"),
    _heuristic("hypercube", "hypercube_heuristic", "the hypercube method (GHMITER's; n-D "
               "tables with their dimensions: subtable by subtable, then audited and "
               "repaired whole)", options=_HEURISTIC | _SPREAD, shape="grid"),
    _heuristic("pbp", "pbp_heuristic", "PBP (2-D tables)", shape="2-D"),
    _heuristic("gensup", "gensup_heuristic", "the genetic algorithm GenSup (2-D, one "
               "hierarchical dimension)", options=_HEURISTIC | {"seed"}, randomised=True,
               lp_guided=True, shape="network"),
    _heuristic("ga", "smith_ga", "Smith et al.'s (2012) GA over the incremental attacker's "
               "order (any table)", options=_ORDER_SEARCH, module="smith_ga", randomised=True),
    _heuristic("ls", "local_search", "Smith et al.'s local search over that order (any table)",
               options=_ORDER_SEARCH, module="smith_ga", randomised=True),
    _heuristic("capped", "capped_sequential", "single-cell MIPs against an attacker capped at "
               "the requirement, cell by cell (any table)"),
)

_BY_NAME = {method.name: method for method in METHOD_TABLE}


def methods_for(protection: str) -> tuple[str, ...]:
    """The names of the methods that solve ``protection``, in the table's order."""
    return tuple(m.name for m in METHOD_TABLE if protection in m.protections)


def heuristic_names() -> tuple[str, ...]:
    """The heuristics' names."""
    return tuple(m.name for m in METHOD_TABLE if m.heuristic)


def taking(option: str) -> frozenset[str]:
    """The methods with ``option`` of their own."""
    return frozenset(m.name for m in METHOD_TABLE if option in m.options)


def method_help() -> str:
    """The CLI's help of ``--method``, one clause a method."""
    return "; ".join(f"{m.name} = {m.doc}" for m in METHOD_TABLE)


def _fits(shape: str, table) -> str:
    """``""`` if ``table`` has ``shape``, else why not."""
    from cspopt.errors import InputError, NotNetworkError

    try:
        if shape == "network":
            table.reduced_network()
        elif shape == "2-D":
            table.bipartite_graph()  # the row/column graph, of the table's network
        elif shape == "grid" and _fits("2-D", table):
            from cspopt.table.subtables import subtables

            subtables(table)
    except (NotNetworkError, InputError) as error:
        return str(error)
    return ""


def plain_2d(table) -> bool:
    """Is ``table`` a 2-D table without hierarchies (the 2-D methods' rows and columns)?"""
    return not _fits("2-D", table)


def shape_refusal(name: str, table) -> str:
    """``""`` where method ``name`` takes ``table``'s shape; else one line saying what it
    needs, why this table is not that, and the methods of the same protection that fit."""
    needed = _BY_NAME[name].shape
    why = "" if needed == "any" else _fits(needed, table)
    if not why:
        return ""
    fitting = [m.name for m in METHOD_TABLE
               if m.heuristic and (m.shape == "any" or m.shape != needed and not _fits(
                   m.shape, table))]
    return (f"method {name!r} needs {SHAPES[needed]}, and this table is not one ({why}); "
            f"the heuristics for this table: {', '.join(fitting)} (or method='auto', the "
            f"branch-and-cut, for any table)")

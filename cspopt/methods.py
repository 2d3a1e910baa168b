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

__all__ = ["Method", "METHOD_TABLE", "methods_for", "heuristic_names", "taking", "method_help"]

_BOTH = frozenset({"exact", "interval"})
_EXACT = frozenset({"exact"})
_INTERVAL = frozenset({"interval"})
_LAGRANGIAN = frozenset({"dual", "max_iterations", "multipliers"})
_COMPACT = frozenset({"solver", "threads", "route", "relax"})
_TREE = frozenset({"separation", "candidate_sets", "processes"})
_HEURISTIC = frozenset({"clean", "certify"})
_ORDER_SEARCH = _HEURISTIC | {"seed", "operator", "groups"}


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

    @property
    def heuristic(self) -> bool:
        return bool(self.runner)

    def load(self) -> Callable:
        """The heuristic's function."""
        module, _, function = self.runner.partition(":")
        return getattr(importlib.import_module(module), function)


def _heuristic(name: str, function: str, doc: str, *, options=_HEURISTIC, module: str = "",
               randomised: bool = False, lp_guided: bool = False) -> Method:
    return Method(name, _INTERVAL, doc, frozenset(options),
                  f"cspopt.heuristics.{module or name}:{function}", randomised, lp_guided)


#: every method, in the order the help lists them
METHOD_TABLE: tuple[Method, ...] = (
    Method("auto", _BOTH, "exact: heuristic + Lagrangian, then the branch-and-cut on x if a gap "
           "remains; interval: the branch-and-cut with capacity cuts (SCIP)",
           _LAGRANGIAN | _TREE),
    Method("lagrangian", _EXACT, "exact: heuristic + Lagrangian dual only (Almeida & Carvalho "
           "2005)", _LAGRANGIAN),
    Method("mip", _BOTH, "the compact MIP (exact: on --solver; interval: HiGHS)", _COMPACT),
    Method("branch-and-cut", _BOTH, "exact: on x with cut-set constraints; interval: on y with "
           "capacity cuts (SCIP)", _TREE),
    _heuristic("castro", "castro_heuristic", "Castro's (2007) shortest-paths heuristic"),
    _heuristic("sp", "sp_heuristic", "the SP heuristic (2-D tables, one hierarchical "
               "dimension allowed)", module="shortest_paths"),
    _heuristic("hypercube", "hypercube_heuristic", "the hypercube method (2-D tables)"),
    _heuristic("pbp", "pbp_heuristic", "PBP (2-D tables)"),
    _heuristic("gensup", "gensup_heuristic", "the genetic algorithm GenSup (2-D, one "
               "hierarchical dimension)", options=_HEURISTIC | {"seed"}, randomised=True,
               lp_guided=True),
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


def method(name: str) -> Method:
    """The method called ``name`` (KeyError if none)."""
    return _BY_NAME[name]

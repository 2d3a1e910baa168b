"""Options every front door shares, declared once: the API validates with them, the CLI reads
its defaults and refusals from them, and the docs list them from here.

Each :class:`Option` says which protections and which methods take it. A caller that sets an
option (to other than its default) where it does not apply gets an :class:`InputError` naming
the option and who takes it, instead of an option silently ignored.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from types import MappingProxyType
from dataclasses import dataclass, field
from typing import Any

from cspopt.errors import InputError
from cspopt.methods import heuristic_names, taking

__all__ = ["Option", "OPTIONS", "INSTANCE_OPTIONS", "INTERVAL_OPTIONS", "HEURISTIC_SHARE",
           "AUDIT_SHARE", "check_limits", "check_options", "refuse_inapplicable",
           "given_options", "flag", "options_table", "Choice", "Integer", "Real", "Flag",
           "Given", "OPERATOR_CHOICES"]

_BOTH = frozenset({"exact", "interval"})
_EXACT = frozenset({"exact"})
_INTERVAL = frozenset({"interval"})
_HEURISTIC_USERS = ("the heuristics (method=" + ", ".join(f"'{m}'" for m in heuristic_names())
                    + ")")
_ORDER_SEARCH_USERS = "Smith et al.'s order searches (method='ga' or 'ls')"
_LAGRANGIAN_USERS = "the Lagrangian (method='lagrangian' or 'auto')"
_COMPACT_USERS = "the compact MIP (method='mip')"
_TREE_USERS = "the interval branch-and-cut (method='auto' or 'branch-and-cut')"
_SUBTABLES_USERS = "the methods that go subtable by subtable (method='modular' or 'hypercube')"
#: the mutations of Smith et al.'s order searches (:mod:`cspopt.heuristics.smith_ga`)
OPERATOR_CHOICES = ("adaptive", "swap", "insert", "invert")


# -- domains: what values an option takes, and its CLI flag's argparse keywords -------------
@dataclass(frozen=True)
class Choice:
    """One of ``values``."""

    values: tuple[str, ...]

    def refuse(self, value) -> str | None:
        return None if value in self.values else (
            f"must be one of {', '.join(map(repr, self.values))}, not {value!r}")

    def argparse(self) -> dict:
        return dict(choices=self.values)


@dataclass(frozen=True)
class Integer:
    """An integer of at least ``minimum``."""

    minimum: int

    def refuse(self, value) -> str | None:
        ok = (isinstance(value, numbers.Integral) and not isinstance(value, bool)
              and value >= self.minimum)
        return None if ok else f"must be an integer >= {self.minimum}, got {value!r}"

    def argparse(self) -> dict:
        return dict(type=int)


@dataclass(frozen=True)
class Real:
    """A finite number of at least ``minimum``."""

    minimum: float = -math.inf

    def refuse(self, value) -> str | None:
        ok = (isinstance(value, numbers.Real) and not isinstance(value, bool)
              and math.isfinite(value) and value >= self.minimum)
        return None if ok else f"must be a number >= {self.minimum:g}, got {value!r}"

    def argparse(self) -> dict:
        return dict(type=float)


@dataclass(frozen=True)
class Flag:
    """True or False."""

    def refuse(self, value) -> str | None:
        return None if isinstance(value, (bool, numbers.Integral)) and value in (0, 1) else (
            f"must be True or False, got {value!r}")

    def argparse(self) -> dict:
        return dict(action="store_true")


@dataclass(frozen=True)
class Given:
    """Anything the callee checks itself (weights, cell ids, prebuilt objects); on the CLI
    ``choices``, if any."""

    choices: tuple[str, ...] = ()

    def refuse(self, value) -> str | None:
        return None

    def argparse(self) -> dict:
        return dict(choices=self.choices) if self.choices else {}


@dataclass(frozen=True)
class Option:
    """One option: its default, the protections and methods that take it (``methods=None``:
    every method of those protections; else those of :data:`cspopt.methods.METHOD_TABLE`
    that list it), who that is in words, what it does, the values it takes (``domain``), and
    its CLI flag where that is not ``--name-with-dashes`` (``""``: the API only)."""

    default: Any
    protections: frozenset[str]
    methods: frozenset[str] | None
    takers: str
    doc: str
    cli_flag: str | None = None
    domain: Choice | Integer | Real | Flag | Given = field(default_factory=Given)


#: every option of :func:`cspopt.solve` / :func:`cspopt.bound` / :func:`cspopt.certify`
#: besides the table, the protection, the method and the limits
OPTIONS: dict[str, Option] = {
    "weights": Option(None, _BOTH, None, "every method",
                      "suppression costs: 'value', 'unit', 'log' or one per cell "
                      "(default: the table's costs)",
                      domain=Given(("value", "unit", "log"))),
    "must_publish": Option(None, _BOTH, None, "every method", "cell ids never suppressed",
                           cli_flag=""),
    "publish_totals": Option(False, _BOTH, None, "every method", "never suppress totals",
                             domain=Flag()),
    "publish_zeros": Option(False, _BOTH, None, "every method", "never suppress zero cells",
                            domain=Flag()),
    "preprocessing": Option(True, _BOTH, None, "every method",
                            "drop sensitive cells the others already protect", cli_flag="",
                            domain=Flag()),
    "model": Option("auto", _EXACT, None, "protection='exact'",
                    "(P) general tables, (P_N) nonnegative integer tables or tables where an "
                    "a-priori bound binds (Almeida & Carvalho 2005); 'auto' picks",
                    domain=Choice(("auto", "P", "PN"))),
    "tau": Option(0.0, _EXACT, None, "protection='exact'",
                  "protection width threshold of (P_N) (Almeida & Carvalho 2005 §6)",
                  domain=Real(0.0)),
    "instance": Option(None, _EXACT, None, "protection='exact'",
                       "a prebuilt ExactInstance (replaces model and the instance options)",
                       cli_flag=""),
    "dual": Option("volume", _EXACT, taking("dual"), _LAGRANGIAN_USERS,
                   "how the Lagrangian dual is maximised: 'volume', 'subgradient' "
                   "(Held-Wolfe-Crowder) or 'cutting-plane'",
                   domain=Choice(("volume", "subgradient", "cutting-plane"))),
    "max_iterations": Option(200, _EXACT, taking("max_iterations"), _LAGRANGIAN_USERS,
                             "Lagrangian iterations", cli_flag="--iterations",
                             domain=Integer(1)),
    "multipliers": Option(None, _EXACT, taking("multipliers"), _LAGRANGIAN_USERS,
                          "warm start: an earlier result's multipliers"),
    "solver": Option("highs", _EXACT, taking("solver"), _COMPACT_USERS,
                     "'highs' or 'scip' for the compact MIP of (P)/(P_N)",
                     domain=Choice(("highs", "scip"))),
    "threads": Option(None, _EXACT, taking("threads"), _COMPACT_USERS,
                      "threads of the compact MIP's solver", domain=Integer(1)),
    "route": Option("matrix", _BOTH, taking("route"), _COMPACT_USERS,
                    "how the compact model reaches the solver: 'matrix' or 'pyomo'",
                    domain=Choice(("matrix", "pyomo"))),
    "relax": Option(False, _BOTH, taking("relax"), _COMPACT_USERS,
                    "solve the compact model's LP relaxation (a bound, no pattern)",
                    domain=Flag()),
    "separation": Option("auto", _INTERVAL, taking("separation"), _TREE_USERS,
                         "capacity cuts from minimum cuts ('network', 2-D tables, one dimension "
                         "may be hierarchical) or "
                         "attacker LPs ('lp', any table)",
                         domain=Choice(("auto", "network", "lp"))),
    "candidate_sets": Option(False, _INTERVAL, taking("candidate_sets"), _TREE_USERS,
                             "separate only for Serpell et al.'s (2013) candidate primaries",
                             domain=Flag()),
    "processes": Option(None, _INTERVAL, taking("processes"), _TREE_USERS,
                        "processes the branch-and-cut may run: with 2, on tables that are not "
                        "networks and time limits of 30 s or more, its neighbourhood searches "
                        "run in a second process beside the tree; default: 2 where the machine "
                        "gives this process two cores and it is no Dask worker's task, "
                        "else 1", domain=Integer(1)),
    "clean": Option(False, _INTERVAL, taking("clean"), _HEURISTIC_USERS,
                    "delete-and-check clean-up of the heuristic's pattern (Almeida, Schütz & "
                    "Carvalho 2008 §5)", domain=Flag()),
    "certify": Option(False, _INTERVAL, taking("certify"), _HEURISTIC_USERS,
                      "add cspopt's capacity LP bound, so that the gap is certified",
                      domain=Flag()),
    "workers": Option(None, _INTERVAL, taking("workers"), _SUBTABLES_USERS,
                      "Dask workers: a local cluster of this many processes solves the "
                      "subtables that share no cell side by side, and the whole table's "
                      "repair LPs in batches (default: 1, here; the same pattern where "
                      "the subtables' solves end by proof)",
                      domain=Integer(1)),
    "scheduler": Option(None, _INTERVAL, taking("scheduler"), _SUBTABLES_USERS,
                        "address of a running Dask scheduler (tcp://HOST:PORT) to spread the "
                        "subtables and the repair's LPs over", cli_flag="--scheduler"),
    "subtable_time_limit": Option(None, _INTERVAL, taking("subtable_time_limit"),
                                  _SUBTABLES_USERS,
                                  "seconds each subtable's solve gets (tau-ARGUS Modular's "
                                  "limit per subtable; with a time limit, at most what the "
                                  "subtables' share has left); default: that share spread "
                                  "over the subtables. Fixed, the subtables' work does not "
                                  "depend on the number of workers", domain=Real(1.0)),
    "seed": Option(0, _INTERVAL, taking("seed"),
                   "the randomised heuristics (method='gensup', 'ga' or 'ls')",
                   "seed of its random choices: a seed gives one pattern", domain=Integer(0)),
    "operator": Option("adaptive", _INTERVAL, taking("operator"), _ORDER_SEARCH_USERS,
                       "mutation of the order: 'adaptive' (operator and probability are "
                       "genes, Smith et al. 2012 §IV-B) or one fixed operator, 'swap', "
                       "'insert' or 'invert' (with method='ls': LS-Swap, LS-Insert, "
                       "LS-Invert)", domain=Choice(OPERATOR_CHOICES)),
    "groups": Option(None, _INTERVAL, taking("groups"), _ORDER_SEARCH_USERS,
                     "protect the sensitive cells in this many groups by weight, one "
                     "attacker LP a group and side (GA-group-K, §V; the paper: 40 on tables "
                     "of more than 30,000 cells); default: one cell at a time",
                     domain=Integer(1)),
}

#: instance options of interval protection, passed as ``**options``
INTERVAL_OPTIONS = frozenset({"weights", "must_publish", "publish_totals", "publish_zeros",
                              "preprocessing"})
#: instance options of exact disclosure (a superset), passed as ``**options``
INSTANCE_OPTIONS = INTERVAL_OPTIONS | {"tau"}
#: share of a time limit a start heuristic may take before the bound gets the rest
HEURISTIC_SHARE = 0.3
#: share of a time limit kept for the final audit of the pattern, which always runs (the
#: branch-and-cut keeps less where it has timed an audit of its first incumbent)
AUDIT_SHARE = 0.2

_PROTECTION_WORDS = {"exact": "exact disclosure",
                     "interval": "interval protection (the table's sensitive cells carry "
                                 "protection levels, or protection='interval')"}


def given_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Those of ``options`` set to other than their declared default."""
    def differs(name, value):
        default = OPTIONS[name].default
        return value is not None if default is None else bool(value != default)
    return {k: v for k, v in options.items() if k in OPTIONS and differs(k, v)}


def flag(name: str) -> str:
    """The CLI flag of option ``name`` (``""`` if the API alone takes it)."""
    cli_flag = OPTIONS[name].cli_flag
    return "--" + name.replace("_", "-") if cli_flag is None else cli_flag


def refuse_inapplicable(options: Mapping[str, Any], *, protection: str, method: str,
                        flags: Mapping[str, str] | None = None) -> None:
    """Refuse, naming them and who takes them, the options of ``options``: unknown ones, and
    set ones the protection or the method does not take. Named as parameters, or, given
    ``flags`` (the CLI's; an option missing there is spelled by :func:`flag`), as flags."""
    cli = flags is not None

    def spell(name: str) -> str:
        return flags.get(name) or flag(name) if cli else name

    def chosen(p: str) -> str:
        return f"--protection {p}" if cli else f"protection='{p}'"

    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise InputError(f"unknown option(s) {', '.join(unknown)}; the options are "
                         f"{', '.join(sorted(OPTIONS))}")
    given = sorted(given_options(options))
    elsewhere = [spell(k) for k in given if protection not in OPTIONS[k].protections]
    if elsewhere:
        other = "exact" if protection == "interval" else "interval"
        raise InputError(f"{', '.join(elsewhere)}: for {chosen(other)}, but this is "
                         f"{_PROTECTION_WORDS[protection]}. Pass {chosen(other)} for "
                         f"{_PROTECTION_WORDS[other].split(' (')[0]}")
    refused = [k for k in given if OPTIONS[k].methods is not None
               and method not in OPTIONS[k].methods]
    if refused:  # named with the others that the same methods take
        takers = OPTIONS[refused[0]].takers
        names = [spell(k) for k in refused if OPTIONS[k].takers == takers]
        raise InputError(f"{', '.join(names)}: for {takers}, not method {method!r}")


def check_options(values: Mapping[str, Any], *, flags: Mapping[str, str] | None = None
                  ) -> Mapping[str, Any]:
    """Refuse, naming it (as a flag, given the CLI's ``flags``), the first of ``values`` outside
    its declared domain (an option at a default of None may stay None); else ``values``,
    frozen: what the methods behind the front door trust without checking again."""
    for name, value in values.items():
        option = OPTIONS[name]
        if value is None and option.default is None:
            continue
        refusal = option.domain.refuse(value)
        if refusal is not None:
            spelled = (flags.get(name) or flag(name)) if flags is not None else name
            raise InputError(f"{spelled} {refusal}")
    return MappingProxyType(dict(values))


def check_limits(options: dict | None = None, *, time_limit=None, gap: float = 1e-6,
                 threads: int | None = None, processes: int | None = None,
                 max_iterations: int = 1) -> None:
    """Refuse, naming it, an unknown instance option or a limit out of range, before any
    model is built."""
    unknown = sorted(set(options or ()) - INSTANCE_OPTIONS)
    if unknown:
        raise InputError(f"unknown option(s) {', '.join(unknown)}; the instance options are "
                         f"{', '.join(sorted(INSTANCE_OPTIONS))}")
    if time_limit is not None and not (time_limit > 0 and not math.isnan(time_limit)):
        raise InputError(f"time_limit must be positive, got {time_limit}")
    if not 0 <= gap < 1:
        raise InputError(f"gap must be in [0, 1), got {gap}")
    check_options(dict(threads=threads, processes=processes, max_iterations=max_iterations))


def options_table() -> str:
    """The options as a Markdown table (docs/solve.md holds it; a test keeps the two equal)."""
    rows = ["| option | CLI flag | default | protection | methods | what it does |",
            "|---|---|---|---|---|---|"]
    for name, option in OPTIONS.items():
        methods = "all" if option.methods is None else ", ".join(sorted(option.methods))
        cli = f"`{flag(name)}`" if flag(name) else "(API only)"
        rows.append(f"| `{name}` | {cli} | `{option.default!r}` | "
                    f"{', '.join(sorted(option.protections))} | {methods} | {option.doc} |")
    return "\n".join(rows) + "\n"

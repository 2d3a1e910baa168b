"""Command-line interface: ``cspopt info|audit|solve|bound|certify|protect|batch|generate|
convert|bench``.

Exit codes: 0 success (for ``audit``: every sensitive cell protected), 1 ``audit`` found an
exposed cell (``solve``: no pattern; ``certify``: the pattern is unsafe; ``batch``: a table
without a pattern), 2 bad input (one
line on stderr naming the cell, relation, line or option; no traceback), 3 a solver failed
or an internal error (one line on stderr; ``-v`` shows the traceback).

stdout carries only the result (with ``--json``: one JSON document): whatever solver
libraries write to C-level stdout is sent to stderr (:func:`cspopt.backends.console.result_stdout`).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from cspopt import __version__
from cspopt.backends.console import result_stdout
from cspopt.errors import CspoptError, InputError, PatternError, SolverError
from cspopt.jsondoc import dumps
from cspopt.methods import SUBTABLE_OPTIONS, method_help
from cspopt.options import OPTIONS, flag, refuse_inapplicable
from cspopt.solving.api import (
    DEFAULT_GAP,
    METHODS,
    bound,
    certify,
    resolve_protection,
    solve,
)

__all__ = ["main"]

log = logging.getLogger("cspopt")


def _parse_ids(spec: str) -> list[int]:
    """Cell ids from ``"4,10,11"``, or from a file of ids separated by commas/whitespace."""
    path = Path(spec)
    text = path.read_text() if path.is_file() else spec
    ids = []
    for token in text.replace(",", " ").split():
        try:
            ids.append(int(token))
        except ValueError:
            raise PatternError(f"cell id {token!r} is not an integer") from None
    return ids


def _cmd_info(args: argparse.Namespace) -> int:
    table = _load(args)
    sens = table.sensitive_cells
    info = {
        "name": table.name,
        "cells": table.num_cells,
        "relations": table.num_relations,
        "sensitive": int(sens.size),
        "must_publish": int(table.must_publish.sum()),
        "nonnegative": table.nonnegative,
        "integer": table.is_integer,
        "interval_protection": table.has_interval_protection,
        "total_cost": float(table.costs.sum()),
        "structure": _structure(table),
    }
    if args.json:
        print(dumps(info))
    else:
        for key, value in info.items():
            print(f"{key:>20}: {value}")
    return 0


def _structure(table) -> str:
    from cspopt.errors import NotNetworkError

    try:
        net = table.network()
    except NotNetworkError:
        return "general linear (not a network)"
    if net.side is not None:
        graph = table.bipartite_graph()
        return f"2-D ({graph.num_rows} x {graph.num_cols} incl. totals)"
    return "network"


def _cmd_audit(args: argparse.Namespace) -> int:
    from cspopt.audit import audit, graph_audit
    from cspopt.audit.judge import resolve_options
    table = _load(args)
    ids = _parse_ids(args.suppress) if args.suppress else []
    integer = {"auto": None, "yes": True, "no": False}[args.integer]
    requirement, _ = resolve_options(table, args.requirement, integer)  # "auto" resolved
    if args.method == "graph" and requirement == "interval":
        raise InputError("--method graph decides exact disclosure only, and this audit asks "
                         "for interval protection" + (
                             " (the table's sensitive cells carry protection levels)"
                             if args.requirement == "auto" else "")
                         + ": use --method lp, or --requirement exact")
    proofs = _proofs_flags(args)
    if proofs and (args.method == "graph" or requirement != "interval"):
        raise InputError(f"{proofs[0]} decides the interval requirement with attacker LPs: "
                         "give --requirement interval and --method lp")
    if args.verdict and args.method == "graph":
        raise InputError("--verdict decides with attacker LPs: give --method lp")
    verdict = args.verdict or bool(proofs)
    completions = _read_proofs(args)
    if args.method == "graph":
        result = graph_audit(table, ids, integer=integer)
    else:
        result = audit(table, ids, requirement=args.requirement, integer=integer,
                       **(dict(cells="sensitive", ranges="verdict",
                               completions=completions or ())
                          if verdict else {}))
    _write_proofs(args, result)
    if args.json:
        print(dumps(result.to_dict()))
    else:
        print(result.summary())
    return 0 if result.protected else 1


def _proofs_options(p: argparse.ArgumentParser, *, read: bool) -> None:
    """``--save-proofs`` (and, with ``read``, ``--proofs``): the certificate of an interval
    verdict (:mod:`cspopt.audit.proofs`)."""
    if read:
        p.add_argument("--proofs", metavar="FILE.npz",
                       help="attacker completions (a --save-proofs file) checked first: "
                            "the LPs solve only what they leave unproven (interval)")
    p.add_argument("--save-proofs", metavar="FILE.npz",
                   help="write the proofs of a protected interval verdict, attacker "
                        "completions any audit checks without an LP (a later --proofs)")


def _proofs_flags(args: argparse.Namespace) -> list[str]:
    """The proofs options given: ``--proofs`` (where the command has it), ``--save-proofs``."""
    return [flag for flag, value in (("--proofs", getattr(args, "proofs", None)),
                                     ("--save-proofs", args.save_proofs)) if value is not None]


def _read_proofs(args: argparse.Namespace, protection: str = "interval") -> list:
    """The proofs ``--proofs`` names (``None`` without it); ``--save-proofs``' file is checked
    writable here, before any work, and both are refused where ``protection`` (resolved) is
    exact disclosure, which keeps no proofs."""
    from cspopt.audit.proofs import load_proofs
    from cspopt.io import check_writable

    given = _proofs_flags(args)
    if given and protection != "interval":
        raise InputError(f"{given[0]}: proofs (attacker completions) come with interval "
                         "protection; this run judges exact disclosure")
    if args.save_proofs is not None:
        check_writable(args.save_proofs, "--save-proofs")
    return None if getattr(args, "proofs", None) is None else load_proofs(args.proofs)


def _write_proofs(args: argparse.Namespace, checked) -> None:
    """Write the proofs of the audit ``checked`` where ``--save-proofs`` asks (a verdict
    that is not protected has none: nothing is written, and the log says so)."""
    from cspopt.audit.proofs import save_proofs

    if args.save_proofs is None:
        return
    if checked is None or not checked.proofs:
        log.warning("--save-proofs %s: no proofs to write (no protected pattern)",
                    args.save_proofs)
        return
    save_proofs(args.save_proofs, checked.proofs)


#: the options every solving command has (their flags generated from cspopt.options)
_INSTANCE_FLAGS = ("model", "weights", "publish_totals", "publish_zeros", "tau",
                   "max_iterations")
#: the randomised heuristics' options (solve and protect)
_HEURISTIC_FLAGS = ("seed", "operator", "groups")
#: the options of cspopt solve besides those
_SPREAD_FLAGS = SUBTABLE_OPTIONS
_SOLVE_FLAGS = ("dual", "solver", "threads", "route", "relax", "separation", "candidate_sets",
                "processes", "clean", "certify", *_HEURISTIC_FLAGS, *_SPREAD_FLAGS)


def _add_options(p: argparse.ArgumentParser, names: Sequence[str]) -> None:
    """The flags of options ``names``, generated from their declarations
    (:data:`cspopt.options.OPTIONS`: flag, domain, default, what it does, who takes it)."""
    for name in names:
        option = OPTIONS[name]
        keywords = option.domain.argparse()
        if keywords.get("action") != "store_true":
            keywords["default"] = option.default
        takers = "" if option.methods is None else f" (for {option.takers})"
        p.add_argument(flag(name), dest=name, help=option.doc + takers, **keywords)


def _options(args: argparse.Namespace, names: Sequence[str] = _INSTANCE_FLAGS) -> dict:
    """The values of the options ``names`` given on the command line, by option name."""
    return {name: getattr(args, name) for name in names}


def _refuse(table, args: argparse.Namespace, method: str, options: dict,
            flags: dict[str, str] | None = None) -> None:
    """The API's refusal of options where they do not apply, naming the flags (``flags``:
    where an option came from another flag than its own)."""
    refuse_inapplicable(options, protection=resolve_protection(table, args.protection),
                        method=method, flags=flags or {})


def _load(args: argparse.Namespace):
    """Read the table, with strict (ONS) protection levels when ``--strict`` is given."""
    from cspopt.io import read_table

    table = read_table(args.table)
    strict = getattr(args, "strict", None)
    if strict is not None:
        table = table.with_strict_protection(None if strict == 0 else strict)
    return table


def _progress_printer(enabled: bool):
    """A live ``LB / UB / gap / time`` line on stderr (only on a terminal, or with -v)."""
    if not enabled:
        return None

    def show(record: dict) -> None:
        lb, ub = record["lower_bound"], record["upper_bound"]
        gap = (ub - lb) / ub * 100 if ub not in (0, float("inf")) else float("nan")
        phase = record.get("phase", f"it {record['iteration']}")
        print(f"\r  {phase:>8}  LB {lb:12.6g}  UB {ub:12.6g}  gap {gap:7.3f} %  "
              f"{record['time']:8.2f} s", end="", file=sys.stderr, flush=True)
    return show


def _print_result(result, as_json: bool) -> None:
    if as_json:
        print(dumps(result.to_dict()))
    else:
        print(result.summary())


def _check_plot(path: str | None) -> None:
    """Refuse a ``--plot`` that could not be drawn or written, before the solve."""
    if path:
        from cspopt.io import check_writable
        from cspopt.plot import require_matplotlib

        require_matplotlib()
        check_writable(path, "--plot")


def _cmd_solve(args: argparse.Namespace) -> int:
    table = _load(args)
    _check_plot(args.plot)
    start = _parse_ids(args.start) if args.start else None
    method = "mip" if args.relax and args.method == "auto" else args.method
    options = dict(_options(args), **_options(args, _SOLVE_FLAGS))
    _refuse(table, args, method, options)
    _read_proofs(args, resolve_protection(table, args.protection))
    progress = _progress_printer(sys.stderr.isatty() or args.verbose)
    result = solve(table, protection=args.protection, method=method,
                   time_limit=args.time_limit, gap=args.gap, start=start,
                   verbose=args.verbose, progress=progress, **options)
    if progress is not None:
        print(file=sys.stderr)
    if args.plot:
        from cspopt.plot import plot_bounds
        plot_bounds(result, args.plot)
    _write_proofs(args, result.audit)
    _print_result(result, args.json)
    return 0 if result.status in ("optimal", "feasible", "bound_only") else 1


def _cmd_bound(args: argparse.Namespace) -> int:
    table = _load(args)
    multipliers = None
    if args.multipliers is not None:
        from cspopt.bounds import Multipliers

        multipliers = Multipliers.load(args.multipliers)
    options = dict(_options(args), dual=args.dual, multipliers=multipliers)
    _refuse(table, args, args.method, options)
    if args.save_multipliers is not None:  # the Lagrangian's multipliers: where it runs only
        _refuse(table, args, args.method, {"multipliers": args.save_multipliers},
                flags={"multipliers": "--save-multipliers"})
    result = bound(table, protection=args.protection, method=args.method,
                   time_limit=args.time_limit, **options)
    if args.save_multipliers is not None and result.multipliers is not None:
        result.multipliers.save(args.save_multipliers)
    _print_result(result, args.json)
    return 0 if result.status == "bound_only" else 1


def _cmd_certify(args: argparse.Namespace) -> int:
    table = _load(args)
    _refuse(table, args, "auto", _options(args))
    proofs = _read_proofs(args, resolve_protection(table, args.protection))
    result = certify(table, _parse_ids(args.suppress), protection=args.protection,
                     time_limit=args.time_limit, proofs=proofs, **_options(args))
    _write_proofs(args, result.audit)
    _print_result(result, args.json)
    return 0 if result.audit.protected else 1


def _cmd_protect(args: argparse.Namespace) -> int:
    from cspopt.io import check_writable
    from cspopt.microdata import protect
    from cspopt.microdata.protect import output_format

    hierarchies = {}
    for item in args.hrc:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise InputError(f"--hrc {item!r}: expected DIMENSION=FILE.hrc")
        hierarchies[name] = path
    options = _options(args, _HEURISTIC_FLAGS + _SPREAD_FLAGS)
    if args.output:  # refused before the solve, not after it
        output_format(args.output)
        check_writable(args.output, "-o")
    _check_plot(args.plot)
    _read_proofs(args, args.protection)
    protected = protect(args.data, [d.strip() for d in args.dims.split(",") if d.strip()],
                        response=args.response, rules=args.rule, hierarchies=hierarchies,
                        costs=args.costs, total=args.total, holding=args.holding,
                        protection=args.protection, zeros=args.zeros,
                        encoding=args.encoding, method=args.method,
                        time_limit=args.time_limit, **options)
    if args.output:
        protected.write(args.output)
    _write_proofs(args, protected.result.audit)
    if args.plot:
        protected.plot(args.plot)
    if args.json:
        print(dumps(dict(protected.result.to_dict(), cells=protected.table.num_cells,
                         primary=protected.table.sensitive.sum(), output=args.output)))
    else:
        print(protected.summary())
    return 0 if protected.result.has_pattern else 1


def _cmd_batch(args: argparse.Namespace) -> int:
    from cspopt.io import check_writable
    from cspopt.io.manifest import read_manifest

    manifest = read_manifest(args.manifest)
    output = Path(args.output) if args.output else manifest.output
    try:  # refused before the solves, not after them
        output.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"-o {output}: cannot make the directory ({exc.strerror})") from None
    check_writable(output / "summary.json", "-o")
    release = manifest.protect(workers=args.workers, scheduler=args.scheduler)
    release.write(output)
    if args.json:
        print(dumps(dict(release.to_dict(), output=str(output))))
    else:
        print(release.summary())
    return 0 if release.complete else 1


def _cmd_generate(args: argparse.Namespace) -> int:
    from cspopt.io import write_table
    from cspopt.table import generators

    table = generators.generate(args.kind, args.rows, args.cols, seed=args.seed,
                                costs=args.costs)
    write_table(table, args.output)
    log.info("wrote %s", table)
    print(f"{args.output}: {table}")
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    from cspopt.io import read_table, write_table

    table = read_table(args.input)
    write_table(table, args.output)
    print(f"{args.output}: {table}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from cspopt.bench import run_benchmark

    return run_benchmark(args.name, output=args.output, quick=args.quick, tables=args.tables,
                         time_limit=args.time_limit, max_cells=args.max_cells,
                         min_cells=args.min_cells, instances=args.instance,
                         fixed_work=args.fixed_work, tools=args.tool, counts=args.counts)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cspopt", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"cspopt {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    # -v is also accepted after the subcommand (SUPPRESS: absent there, it keeps the above)
    verbose = argparse.ArgumentParser(add_help=False)
    verbose.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                         help="log progress and solver logs to stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    _table_commands(sub, verbose)
    _solving_commands(sub, verbose)
    _data_commands(sub, verbose)
    return parser


def _strict_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict", nargs="?", type=float, const=0.0, metavar="STEP",
                   help="ONS protection: the attacker's range must pass a-lpl and a+upl "
                        "strictly (levels raised by STEP; default 1 on integer tables)")


def _table_commands(sub, verbose: argparse.ArgumentParser) -> None:
    """``info`` and ``audit``."""
    p = sub.add_parser("info", parents=[verbose],
                       help="summarise a table")
    p.add_argument("table", help="JJ, CSV, JSON or tau-ARGUS .tab file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_cmd_info)

    p = sub.add_parser("audit", parents=[verbose],
                       help="check a suppression pattern against an attacker")
    p.add_argument("table")
    _strict_option(p)
    p.add_argument("--suppress", metavar="IDS", default="",
                   help="0-based cell ids, comma separated, or a file of ids (sensitive cells "
                        "are always included)")
    p.add_argument("--requirement", choices=["auto", "exact", "interval"], default="auto")
    p.add_argument("--method", choices=["lp", "graph"], default="lp",
                   help="attacker LPs (any table) or graph search (2-D tables, exact only)")
    p.add_argument("--integer", choices=["auto", "yes", "no"], default="auto",
                   help="judge exact disclosure over integer completions")
    p.add_argument("--verdict", action="store_true",
                   help="decide with as few attacker LPs as other cells' completions "
                        "allow (exact: one moving side per cell); only the sensitive cells "
                        "are reported, their interval ends null where not computed")
    _proofs_options(p, read=True)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=_cmd_audit)



def _solving_options(p: argparse.ArgumentParser) -> None:
    """The table argument and the options every solving command has."""
    p.add_argument("table")
    _strict_option(p)
    _add_options(p, _INSTANCE_FLAGS)
    p.add_argument("--time-limit", type=float, metavar="S")
    p.add_argument("--json", action="store_true")


def _solving_commands(sub, verbose: argparse.ArgumentParser) -> None:
    """``solve``, ``bound`` and ``certify``."""
    p = sub.add_parser("solve", parents=[verbose],
                       help="optimal complementary suppressions (exact disclosure)")
    _solving_options(p)
    p.add_argument("--protection", choices=["auto", "exact", "interval"], default="auto",
                   help="exact disclosure ((P)/(P_N)) or protection intervals "
                        "(Fischetti-Salazar); auto: interval when sensitive cells carry "
                        "lpl/upl/spl")
    p.add_argument("--method", choices=list(dict.fromkeys(METHODS["exact"]
                                                          + METHODS["interval"])),
                   default="auto", help=method_help())
    _add_options(p, _SOLVE_FLAGS)
    p.add_argument("--gap", type=float, default=DEFAULT_GAP,
                   help="relative gap a MIP or branch-and-cut stops at")
    p.add_argument("--start", metavar="IDS",
                   help="a safe pattern (e.g. another tool's) to start any method from")
    p.add_argument("--plot", metavar="FILE.png", help="plot lower/upper bound against time")
    _proofs_options(p, read=False)
    p.set_defaults(run=_cmd_solve)

    p = sub.add_parser("bound", parents=[verbose],
                       help="a valid lower bound (the bound oracle)")
    _solving_options(p)
    p.add_argument("--protection", choices=["auto", "exact", "interval"], default="auto")
    p.add_argument("--method", choices=["auto", "lagrangian", "lp", "capacity", "mip"],
                   default="auto",
                   help="exact: lagrangian (auto), lp or mip (dual bound of a time-limited "
                        "branch-and-cut); interval: capacity (auto; the LP over "
                        "strengthened capacity cuts, the branch-and-cut's root), lp (the "
                        "compact model's LP bound, weaker) or mip (dual bound of a "
                        "time-limited branch-and-cut)")
    _add_options(p, ("dual",))
    p.add_argument("--multipliers", metavar="FILE.npz",
                   help="warm start: the Lagrangian goes on from multipliers an earlier "
                        "call saved (its bound is at least theirs)")
    p.add_argument("--save-multipliers", metavar="FILE.npz",
                   help="save the Lagrangian's multipliers for a later --multipliers")
    p.set_defaults(run=_cmd_bound)

    p = sub.add_parser("certify", parents=[verbose],
                       help="audit an outside pattern and certify its gap")
    _solving_options(p)
    p.add_argument("--suppress", metavar="IDS", required=True)
    p.add_argument("--protection", choices=["auto", "exact", "interval"], default="auto")
    _proofs_options(p, read=True)
    p.set_defaults(run=_cmd_certify, time_limit=30.0)


def _data_commands(sub, verbose: argparse.ArgumentParser) -> None:
    """``protect``, ``generate``, ``convert`` and ``bench``."""
    from cspopt.microdata.protect import ZEROS
    from cspopt.table.generators import KINDS

    p = sub.add_parser("protect", parents=[verbose],
                       help="microdata to a protected table: tabulate, apply sensitivity "
                            "rules, suppress")
    p.add_argument("data", help="microdata: a CSV (header line, ',' or ';') or Parquet file")
    p.add_argument("--encoding", default="utf-8",
                   help="text encoding of a CSV file (default utf-8; e.g. latin-1)")
    p.add_argument("--dims", required=True, metavar="A,B",
                   help="explanatory variables, comma-separated")
    p.add_argument("--response", help="the variable the cells sum (default: counts)")
    p.add_argument("--rule", action="append", required=True, metavar="RULE",
                   help="tau-ARGUS sensitivity rule, e.g. 'P(15)', 'NK(3,75)', 'PQ(10,50)', "
                        "'FREQ(3,10)', 'ZERO(5)'; repeatable or joined by '|'")
    p.add_argument("--hrc", action="append", default=[], metavar="DIM=FILE.hrc",
                   help="a tau-ARGUS hierarchy file for a dimension (repeatable)")
    p.add_argument("--total", default="Total", help="the code of every dimension's total")
    p.add_argument("--holding", metavar="COLUMN",
                   help="holding (enterprise group) codes: the rules apply to holdings")
    p.add_argument("--costs", default="value",
                   help="value (default), unit, frequency, log, or a column to sum")
    p.add_argument("--protection", choices=["interval", "exact"], default="interval")
    p.add_argument("--zeros", choices=ZEROS, default="published",
                   help="empty cells: published (default, as tau-ARGUS), suppressible "
                        "(secondaries), or protected (GaussSuppression's protectZeros; "
                        "exact protection)")
    p.add_argument("--method", default="auto", choices=METHODS["interval"],
                   help="how to solve (as cspopt solve)")
    _add_options(p, _HEURISTIC_FLAGS + _SPREAD_FLAGS)
    p.add_argument("--time-limit", type=float, default=None, help="seconds for the solve")
    p.add_argument("-o", "--output", metavar="OUT.csv",
                   help="one row per cell: codes, value, status, protection, attacker's "
                        "interval, published value (.csv, or .parquet with pyarrow)")
    p.add_argument("--plot", metavar="FILE.png", help="a picture of the pattern")
    _proofs_options(p, read=False)
    p.add_argument("--json", action="store_true", help="the result as one JSON document")
    p.set_defaults(run=_cmd_protect)

    p = sub.add_parser("batch", parents=[verbose],
                       help="protect a release: the tables of a manifest (TOML) from one "
                            "microdata file, linked where they share cells")
    p.add_argument("manifest", help="the release's manifest (docs/batch.md)")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="directory of the outputs (default: the manifest's, else "
                        "MANIFEST-protected beside it): one file per table, summary.json")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--workers", type=int, metavar="N",
                       help="protect independent tables on a local Dask cluster of N "
                            "processes (default: the manifest's, else 1)")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="protect them on the running Dask cluster at ADDRESS")
    p.add_argument("--json", action="store_true", help="the summary as one JSON document")
    p.set_defaults(run=_cmd_batch)

    p = sub.add_parser("generate", parents=[verbose],
                       help="write a seeded random instance")
    p.add_argument("kind", choices=sorted(KINDS))
    p.add_argument("--rows", type=int, required=True, help="internal rows m")
    p.add_argument("--cols", type=int, required=True, help="internal columns n")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--costs", choices=["value", "unit", "log"], default="value")
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(run=_cmd_generate)

    p = sub.add_parser("convert", parents=[verbose],
                       help="convert between table formats (by file extension)")
    p.add_argument("input")
    p.add_argument("output")
    p.set_defaults(run=_cmd_convert)

    p = sub.add_parser("bench", parents=[verbose],
                       help="run a benchmark and write its results table")
    p.add_argument("name", choices=["audit", "exact", "heuristics", "interval", "lagrangian",
                                    "limits", "protect", "scale"])
    p.add_argument("--tables", type=int, default=10,
                   help="tables per size (exact; lagrangian: per size and data set; "
                        "heuristics: per size and class)")
    p.add_argument("--time-limit", type=float, default=60.0,
                   help="seconds per table (exact, interval, heuristics, limits, protect, "
                        "scale)")
    p.add_argument("--max-cells", type=int, default=10_201,
                   help="skip sizes with more cells (exact, scale)")
    p.add_argument("--min-cells", type=int, default=0,
                   help="skip sizes with fewer cells (exact, scale: split a long run by "
                        "size)")
    p.add_argument("--instance", action="append", default=[], metavar="FILE",
                   help="a table file the interval, limits and scale benchmarks add to "
                        "their generated tables (repeatable; e.g. the CSPLIB tables); exact: "
                        "exact disclosure on these files instead of the paper's design")
    p.add_argument("--counts", action="store_true",
                   help="exact: the generated hierarchical count tables (FREQ(3,10); "
                        "--quick: the smallest), beside any --instance files")
    p.add_argument("--tool", action="append", default=[], metavar="RUN",
                   help="scale: make only this run (repeatable; default all: "
                        "branch-and-cut, modular, modular-2w, hypercube, auto, MOD, OPT)")
    p.add_argument("--fixed-work", type=float, metavar="SECONDS",
                   help="scale: Modular's same work on one and two workers (each subtable "
                        "SECONDS, no time limit), timed, instead of the time-limited runs")
    p.add_argument("-o", "--output", help="results file (Markdown); default: print only")
    p.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    p.set_defaults(run=_cmd_bench)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(name)s: %(message)s")
    try:
        with result_stdout():
            return args.run(args)
    except SolverError as exc:
        print(f"cspopt {args.command}: solver failure: {exc}", file=sys.stderr)
        return 3
    except CspoptError as exc:
        print(f"cspopt {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. head
        return 0
    except OSError as exc:
        print(f"cspopt {args.command}: error: {exc.filename or ''}: {exc.strerror}",
              file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug or a solver library's own exception
        if args.verbose:
            raise
        print(f"cspopt {args.command}: internal error ({type(exc).__name__}: {exc}); "
              "please report it with the table (-v shows the traceback)", file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

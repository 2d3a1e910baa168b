"""Benchmarks (``cspopt bench NAME``), one module each, every results table with a baseline
measured in the same run: :mod:`~cspopt.bench.audit`, :mod:`~cspopt.bench.exact`,
:mod:`~cspopt.bench.lagrangian`, :mod:`~cspopt.bench.heuristics`,
:mod:`~cspopt.bench.interval` (against the peer tau-ARGUS, run through pytauargus by
:mod:`~cspopt.bench.peer`), and :mod:`~cspopt.bench.run`, which
runs one and writes its table. Table files come in as arguments; nothing is read from
outside the package."""

from cspopt.bench.audit import audit_benchmark
from cspopt.bench.exact import exact_benchmark
from cspopt.bench.interval import interval_benchmark, interval_cases
from cspopt.bench.lagrangian import lagrangian_benchmark
from cspopt.bench.run import run_benchmark

__all__ = ["run_benchmark", "audit_benchmark", "exact_benchmark", "lagrangian_benchmark",
           "interval_benchmark", "interval_cases"]

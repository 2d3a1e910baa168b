"""Benchmarks (``cspopt bench NAME``): results tables with a baseline measured in the same run
(:mod:`~cspopt.bench.suites`), and the peer tau-ARGUS run through pytauargus
(:mod:`~cspopt.bench.peer`). Table files come in as arguments; nothing is read from outside
the package."""

from cspopt.bench.suites import (
                                 audit_benchmark,
                                 exact_benchmark,
                                 interval_benchmark,
                                 interval_cases,
                                 lagrangian_benchmark,
                                 run_benchmark,
)

__all__ = ["run_benchmark", "audit_benchmark", "exact_benchmark", "lagrangian_benchmark",
           "interval_benchmark", "interval_cases"]

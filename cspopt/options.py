"""Options every front door shares, declared and validated once (the API, the CLI through it)."""

from __future__ import annotations

import math

from cspopt.errors import InputError

__all__ = ["INSTANCE_OPTIONS", "INTERVAL_OPTIONS", "HEURISTIC_SHARE", "AUDIT_SHARE",
           "check_limits"]

#: instance options of interval protection, passed as ``**options``
INTERVAL_OPTIONS = frozenset({"weights", "must_publish", "publish_totals", "publish_zeros"})
#: instance options of exact disclosure (a superset), passed as ``**options``
INSTANCE_OPTIONS = INTERVAL_OPTIONS | {"tau", "preprocessing"}
#: share of a time limit a start heuristic may take before the bound gets the rest
HEURISTIC_SHARE = 0.3
#: share of a time limit kept for the final audit of the pattern, which always runs
AUDIT_SHARE = 0.2


def check_limits(options: dict | None = None, *, time_limit=None, gap: float = 1e-6,
                 threads: int | None = None, max_iterations: int = 1) -> None:
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
    if threads is not None and not threads >= 1:
        raise InputError(f"threads must be >= 1, got {threads}")
    if not max_iterations >= 1:
        raise InputError(f"max_iterations must be >= 1, got {max_iterations}")

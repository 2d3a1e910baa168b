"""One clock for a call: the time limit, its shares and the timings they fill.

A :class:`Budget` is made once at the front door from ``time_limit`` and is the only time
argument below it: a phase gets ``budget.share(f)`` (a share of the *call's* limit, never past
its own end), asks ``expired()`` or ``remaining()``, and hands ``time_limit()`` to a solver.
``with budget.phase(name):`` adds the seconds spent to ``budget.timings[name]``. Every budget
made from one call shares that call's clock start, limit and timings, so the sum of the
phases is what the call spent (pyomo.contrib.gdpopt's timer plays the same role).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Budget"]


class Budget:
    """A time budget on :func:`time.perf_counter`.

    Parameters
    ----------
    seconds : float, optional
        The call's time limit; None for none (then every share is unlimited too, so that a
        solve to optimality is reproducible).
    """

    __slots__ = ("started", "limit", "end", "timings")

    def __init__(self, seconds: float | None = None):
        self.started = time.perf_counter()
        self.limit = None if seconds is None else float(seconds)
        self.end = None if seconds is None else self.started + float(seconds)
        self.timings: dict[str, float] = {}

    @classmethod
    def ending_at(cls, end: float | None) -> Budget:
        """A budget from now to the :func:`time.perf_counter` instant ``end`` (None: none)."""
        budget = cls()
        budget.end = end
        budget.limit = None if end is None else max(end - budget.started, 0.0)
        return budget

    def _child(self, end: float | None) -> Budget:
        child = object.__new__(Budget)
        child.started, child.limit, child.timings = self.started, self.limit, self.timings
        child.end = self.end if end is None else end if self.end is None else min(end, self.end)
        return child

    def share(self, fraction: float) -> Budget:
        """``fraction`` of the call's limit from now, never past this budget's end."""
        if self.limit is None:
            return self._child(None)
        return self._child(time.perf_counter() + fraction * self.limit)

    def opening(self, fraction: float) -> Budget:
        """The first ``fraction`` of the call's limit, counted from the call's start."""
        return self._child(None if self.limit is None else self.started + fraction * self.limit)

    def within(self, seconds: float | None) -> Budget:
        """At most ``seconds`` from now (None: this budget's end)."""
        return self._child(None if seconds is None else time.perf_counter() + seconds)

    def reserve(self, seconds: float) -> Budget:
        """Ending ``seconds`` before the call's end (what is kept for a last phase)."""
        return self if self.end is None else self._child(self.started + self.limit - seconds)

    def elapsed(self) -> float:
        """Seconds since the call started."""
        return time.perf_counter() - self.started

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit)."""
        return math.inf if self.end is None else self.end - time.perf_counter()

    def time_limit(self) -> float | None:
        """Seconds left, as a solver's time limit (None without a limit; never negative)."""
        return None if self.end is None else max(self.end - time.perf_counter(), 0.0)

    def expired(self) -> bool:
        """Whether the end has passed."""
        return self.end is not None and time.perf_counter() > self.end

    def fraction(self, fraction: float, *, floor: float = 0.0) -> float | None:
        """``fraction`` of the call's limit in seconds (None without a limit), at least
        ``floor``."""
        return None if self.limit is None else max(fraction * self.limit, floor)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the seconds the block takes to ``timings[name]``."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - t0

    def __repr__(self) -> str:
        return (f"Budget(limit={self.limit}, elapsed={self.elapsed():.3f}, "
                f"remaining={self.remaining():.3f})")

"""The neighbourhood searches in a second process, beside the tree (a parallel portfolio).

On tables that are not networks the branch-and-cut has two jobs that compete for one core:
the searches of :mod:`cspopt.solving.neighbourhoods` lower the incumbent, SCIP's tree raises
the bound, and in turn each gets only a share of the time limit. With a second core the
searches run in a child process for the whole time while the tree runs in the caller's (as
concurrent MIP solvers run a portfolio). Each pattern the child finds comes back over a
pipe; the parent checks it with its own oracle before it becomes the incumbent (a child is
a solver like any other: its word is not a proof), and the pattern passes the final audit
like every other. CSPLIB hier13x7x7d at 300 s, the two jobs side by side on two cores: balls
10,148 and the tree's bound 9,221 (9.1 %), against 10,257 / 9,194 (10.4 %) in turn
(docs/bench/history.md, sixteenth session).

The child is a fresh interpreter running :func:`_child_main`, not a fork
(which would copy HiGHS's thread pool in whatever state it is in) nor multiprocessing's
spawn (which re-imports the caller's main script). Its job arrives pickled on its stdin; its
messages leave pickled on a duplicate of its stdout, and whatever C code prints goes to the
null device, so a CLI's stdout carries only the result. It exits when its stdin closes: it
never outlives the solve.
"""

from __future__ import annotations

import logging
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

import numpy as np

from cspopt.models.interval import CapacityOracle, IntervalInstance

__all__ = ["SearchJob", "SearchProcess", "available_processes"]

log = logging.getLogger(__name__)

#: seconds a child may take to exit after its stdin closes before it is killed
_EXIT_SECONDS = 5.0


def available_processes() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@dataclass(frozen=True)
class SearchJob:
    """What the child searches: around ``incumbent`` (0/1 over ``instance.candidates``),
    with the root LP's point ``root_y`` and every pattern found so far, balls until
    ``balls_until`` and the support neighbourhood until ``until`` (both wall-clock times,
    :func:`time.time`, the clock the two processes share); ``separation`` as the parent's
    oracle."""

    instance: IntervalInstance
    incumbent: np.ndarray
    root_y: np.ndarray
    patterns: tuple
    lower_bound: float
    separation: str
    balls_until: float
    until: float


class SearchProcess:
    """The searches of ``job`` running in a child process; :meth:`patterns` collects what
    it found so far, :meth:`stop` ends it (also as a context manager), and ``seconds`` is
    then how long it ran.

    Raises :class:`OSError` when no child can be started (the caller then searches in turn).
    """

    def __init__(self, job: SearchJob):
        if not sys.executable:
            raise OSError("no Python executable to start a search process with")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self._started = time.perf_counter()
        self._child = subprocess.Popen(
            [sys.executable, "-c", f"from {__name__} import _child_main; _child_main()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self._messages: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            pickle.dump(job, self._child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._child.stdin.flush()
        except OSError:
            self.stop()
            raise
        self.seconds = 0.0

    def _read(self) -> None:
        """Move the child's messages to the queue until its pipe closes."""
        try:
            while True:
                self._messages.put(pickle.load(self._child.stdout))
        except (EOFError, OSError, pickle.UnpicklingError):
            pass

    def patterns(self) -> list[np.ndarray]:
        """The patterns (0/1 over the candidates) the child sent since the last call, cheapest
        last. A failure in the child is logged; the solve goes on without it."""
        found = []
        while True:
            try:
                kind, payload = self._messages.get_nowait()
            except queue.Empty:
                return found
            if kind == "pattern":
                found.append(payload)
            else:
                log.warning("the search process failed: %s", payload)

    @property
    def running(self) -> bool:
        """Whether the child is still searching."""
        return self._child.poll() is None

    def stop(self) -> None:
        """End the child (closing its stdin, then killing it if it lingers)."""
        if self._child.poll() is None:
            try:
                self._child.stdin.close()
            except OSError:
                pass
            try:
                self._child.wait(_EXIT_SECONDS)
            except subprocess.TimeoutExpired:
                self._child.kill()
                self._child.wait()
        self._reader.join(_EXIT_SECONDS)
        self.seconds = time.perf_counter() - self._started

    def __enter__(self) -> SearchProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _search(job: SearchJob, send) -> None:
    """The child's work: the searches of the branch-and-cut, every cheaper pattern checked
    and cleaned by the child's own oracle, then sent."""
    from cspopt.solving.branch_and_cut import solve_branch_and_cut
    from cspopt.solving.neighbourhoods import search_neighbourhoods

    inst = job.instance
    oracle = CapacityOracle(inst, method=job.separation)
    weights = inst.weights[inst.candidates]
    order = np.lexsort((-weights, job.root_y))  # least wanted by the LP first
    clock = time.perf_counter() - time.time()  # wall-clock times to this process's clock
    until = job.until + clock
    patterns = list(job.patterns)

    def offer(phase: str, y: np.ndarray) -> np.ndarray | None:
        if not oracle.separate(y, decide=True)[0]:
            return None
        cleaned = oracle.prune(y, order, until)
        patterns.append(cleaned)
        send(("pattern", cleaned))
        return cleaned

    search_neighbourhoods(inst, job.incumbent, job.root_y, patterns,
                          solve=solve_branch_and_cut, offer=offer,
                          lower_bound=job.lower_bound, balls_until=job.balls_until + clock,
                          support_seconds=None, until=until)


def _child_main() -> None:
    """Entry point of the child: read the job, search, send; exit when stdin closes."""
    channel = os.fdopen(os.dup(1), "wb")
    with open(os.devnull, "wb") as sink:
        os.dup2(sink.fileno(), 1)  # C-level output (solver banners) goes nowhere
    sys.stdout = sys.stderr
    job = pickle.load(sys.stdin.buffer)
    lock = threading.Lock()

    def send(message) -> None:
        with lock:
            pickle.dump(message, channel, protocol=pickle.HIGHEST_PROTOCOL)
            channel.flush()

    def exit_with_parent() -> None:
        sys.stdin.buffer.read()  # returns when the parent closes the pipe or dies
        os._exit(0)

    threading.Thread(target=exit_with_parent, daemon=True).start()
    try:
        _search(job, send)
    except Exception as error:  # noqa: BLE001 - reported to the parent, which goes on
        send(("error", f"{type(error).__name__}: {error}"))
    channel.close()
    os._exit(0)

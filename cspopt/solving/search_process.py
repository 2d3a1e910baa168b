"""The neighbourhood searches in a second process, beside the tree (a parallel portfolio).

On tables that are not networks the branch-and-cut has two jobs that compete for one core:
the searches of :mod:`cspopt.solving.neighbourhoods` lower the incumbent, SCIP's tree raises
the bound, and in turn each gets only a share of the time limit. With a second core the
searches run in a child process for the whole time while the tree runs in the caller's (as
concurrent MIP solvers run a portfolio): both the pattern and the bound end better than in
turn. There the balls run also where the root LP did not converge (in turn they took the
tree's time), the support neighbourhood only where it did. Before them the child runs
tau-ARGUS' sequential heuristic (the incremental attacker priced by an LP point,
:func:`~cspopt.heuristics.incremental.lp_guided_attacker`) from the root's point, and after them from the latest point of SCIP's LP the parent sends:
the engine runs it every 100 LPs, here it costs the tree nothing (and later points guide
it to cheaper patterns than the first).
Each pattern the child finds comes back over a pipe; the parent checks it with its own
oracle before it becomes the incumbent (a child is a solver like any other: its word is not
a proof), and the pattern passes the final audit like every other.

The child is a fresh interpreter running :func:`_child_main`, not a fork
(which would copy HiGHS's thread pool in whatever state it is in) nor multiprocessing's
spawn (which re-imports the caller's main script). Its job arrives pickled on its stdin; its
messages leave pickled on a duplicate of its stdout, and whatever C code prints goes to the
null device, so a CLI's stdout carries only the result. It exits when its stdin closes: it
never outlives the solve.
"""

from __future__ import annotations

import logging
import math
import os
import pickle
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cspopt.budget import Budget
from cspopt.heuristics.incremental import lp_guided_attacker
from cspopt.models.interval import CapacityOracle, IntervalInstance
from cspopt.models.suppression import candidate_mask
from cspopt.result import SolveResult
from cspopt.solving.neighbourhoods import search_neighbourhoods

__all__ = ["SearchJob", "SearchProcess", "available_processes"]

log = logging.getLogger(__name__)

#: seconds a child may take to exit after its stdin closes before it is killed
_EXIT_SECONDS = 5.0
#: the parent sends an LP point at most this often (a guided pattern can take half a minute)
POINT_SECONDS = 5.0
#: between balls, a guided pattern from SCIP's latest point once the balls have had this
#: multiple of the last guided pattern's time (balls alone stall where guided patterns go
#: on)
GUIDED_SPACING = 2.0


def available_processes() -> int:
    """The cores this process may run on (its CPU affinity where the system has one); 1
    inside a Dask worker, whose cluster shares the cores out already (a second process
    per task would put two solves on each core)."""
    if _in_dask_worker():
        return 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _in_dask_worker() -> bool:
    """Whether this runs as a task of a Dask worker (:class:`cspopt.parallel.Workers`)."""
    if "distributed" not in sys.modules:  # not imported: no worker here
        return False
    from distributed import get_worker

    try:
        get_worker()
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class SearchJob:
    """What the child searches: a pattern guided by the root LP's point ``root_y``, then
    around the best of it and ``incumbent`` (0/1 over ``instance.candidates``) with every
    pattern found so far, balls until ``balls_until`` and the support neighbourhood after
    them (if ``support``: the root LP converged), then patterns guided by the LP points the
    parent sends, until
    ``until`` (both wall-clock times, :func:`time.time`, the clock the two processes
    share); ``separation`` as the parent's oracle; ``solve`` solves the searches'
    restrictions (the branch-and-cut, a module-level function: pickled by name)."""

    instance: IntervalInstance
    incumbent: np.ndarray
    root_y: np.ndarray
    patterns: tuple
    lower_bound: float
    separation: str
    solve: Callable[..., SolveResult]
    balls_until: float
    until: float
    support: bool = True


class SearchProcess:
    """The searches of ``job`` running in a child process; :meth:`patterns` collects what
    it found so far, :meth:`stop` ends it (also as a context manager), and ``seconds`` is
    then how long it ran.

    Raises :class:`OSError` when no child can be started (the caller then searches in turn).
    The job and the points are written by a thread of their own, the child's messages read
    by another.
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
        # the latest LP point not yet written (None: stop writing)
        self._outbox: queue.Queue = queue.Queue(maxsize=1)
        self.seconds = 0.0
        self._last_point = -math.inf
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._writer = threading.Thread(target=self._write, args=(job,), daemon=True)
        self._reader.start()
        self._writer.start()

    def _write(self, job: SearchJob) -> None:
        """Write the job, then each LP point, to the child's stdin (a thread of its own: a
        child busy in C code does not read, and the tree must not wait for it)."""
        message = job
        while message is not None:
            try:
                pickle.dump(message, self._child.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                self._child.stdin.flush()
            except (OSError, ValueError):  # the child ended, or stop() closed the pipe
                return
            except (RecursionError, pickle.PicklingError) as error:  # seen once, under load
                log.warning("the search process could not be sent its %s (%s); the tree "
                            "goes on without it", type(message).__name__, error)
                return
            message = self._outbox.get()

    def send_point(self, y: np.ndarray) -> None:
        """Give the child an LP point (over the candidates) to guide its next pattern, at
        most one every :data:`POINT_SECONDS`; an older one not yet written is dropped."""
        now = time.perf_counter()
        if now - self._last_point >= POINT_SECONDS:
            self._last_point = now
            self._post(np.asarray(y, float))

    def _post(self, message) -> None:
        """Leave ``message`` for the writer in place of one it has not taken yet."""
        try:
            self._outbox.get_nowait()
        except queue.Empty:
            pass
        self._outbox.put_nowait(message)

    def _read(self) -> None:
        """Move the child's messages to the queue until its pipe closes."""
        try:
            while True:
                self._messages.put(pickle.load(self._child.stdout))
        except (EOFError, OSError, ValueError, pickle.UnpicklingError):
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
        """End the child: close its stdin (it exits when it sees that), or kill it where it
        lingers or does not read."""
        self._post(None)
        self._writer.join(_EXIT_SECONDS)
        if self._writer.is_alive():  # blocked writing to a child that does not read
            self._child.kill()
        elif self._child.poll() is None:
            try:
                self._child.stdin.close()
            except OSError:
                pass
            try:
                self._child.wait(_EXIT_SECONDS)
            except subprocess.TimeoutExpired:
                self._child.kill()
        self._child.wait()
        self._writer.join()
        self._reader.join(_EXIT_SECONDS)  # it reads to the end of the pipe the child closed
        for pipe in (self._child.stdin, self._child.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        self.seconds = time.perf_counter() - self._started

    def __enter__(self) -> SearchProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _search(job: SearchJob, send, next_point) -> None:
    """The child's work: a pattern guided by the root's LP point, the neighbourhood searches
    from the best pattern so far, then a pattern guided by each new LP point
    (``next_point(timeout)``: the latest point the parent sent, or None), every cheaper
    pattern checked and cleaned by the child's own oracle, then sent."""
    inst = job.instance
    oracle = CapacityOracle(inst, method=job.separation)
    weights = inst.weights[inst.candidates]
    clock = time.perf_counter() - time.time()  # wall-clock times to this process's clock
    until = job.until + clock
    budget = Budget.ending_at(until)
    patterns = list(job.patterns)
    best = [job.incumbent]

    def offer(phase: str, y: np.ndarray, guide: np.ndarray = job.root_y,
              dearest_too: bool = False) -> np.ndarray | None:
        if not oracle.protects(y):
            return None
        # least wanted by the LP first; for a guided pattern also the dearest first, the
        # cheaper kept (the two orders' results differ by several per cent)
        orders = [np.lexsort((-weights, guide))]
        if dearest_too:
            orders.append(np.argsort(-weights, kind="stable"))
        cleaned = min((oracle.prune(y, order, budget) for order in orders),
                      key=lambda pruned: float(weights @ pruned))
        patterns.append(cleaned)
        if weights @ cleaned < weights @ best[-1] - 1e-9:
            best.append(cleaned)
            send(("pattern", cleaned))
        return cleaned

    spent = [0.0, time.perf_counter()]  # the last guided pattern's seconds, its end

    def guided_by(point: np.ndarray) -> np.ndarray | None:
        """The pattern ``point`` guides, if it is the cheapest so far."""
        before, started = best[-1], time.perf_counter()
        guided = lp_guided_attacker(inst, point, budget=budget)
        if guided is not None:
            offer("lp-guided", candidate_mask(inst.table, inst.candidates, guided)
                  .astype(float), point, dearest_too=True)
        spent[:] = time.perf_counter() - started, time.perf_counter()
        return None if best[-1] is before else best[-1]

    def between_balls() -> np.ndarray | None:
        """A guided pattern from SCIP's latest point, when the balls have had twice the
        time the last one took since it ended."""
        if time.perf_counter() - spent[1] < GUIDED_SPACING * spent[0]:
            return None
        point = next_point(0.0)
        return None if point is None else guided_by(point)

    guided_by(job.root_y)
    search_neighbourhoods(inst, best[-1], job.root_y, patterns, solve=job.solve, offer=offer,
                          lower_bound=job.lower_bound,
                          balls=Budget.ending_at(job.balls_until + clock),
                          support_seconds=None if job.support else 0.0,
                          budget=budget,
                          interlude=between_balls)
    while (left := until - time.perf_counter()) > 0:
        point = next_point(left)
        if point is not None:
            guided_by(point)


def _child_main() -> None:
    """Entry point of the child: read the job, search, send; exit when stdin closes."""
    channel = os.fdopen(os.dup(1), "wb")
    with open(os.devnull, "wb") as sink:
        os.dup2(sink.fileno(), 1)  # C-level output (solver banners) goes nowhere
    sys.stdout = sys.stderr
    job = pickle.load(sys.stdin.buffer)
    points: queue.Queue = queue.Queue()

    def send(message) -> None:
        pickle.dump(message, channel, protocol=pickle.HIGHEST_PROTOCOL)
        channel.flush()

    def receive() -> None:
        """Queue the parent's LP points; exit when it closes the pipe (or dies)."""
        try:
            while True:
                points.put(pickle.load(sys.stdin.buffer))
        except (EOFError, OSError, pickle.UnpicklingError):
            os._exit(0)

    def next_point(timeout: float) -> np.ndarray | None:
        """The latest point the parent sent, waiting at most ``timeout`` seconds for one."""
        try:
            point = points.get(timeout=timeout)
        except queue.Empty:
            return None
        while not points.empty():
            point = points.get_nowait()
        return point

    threading.Thread(target=receive, daemon=True).start()
    try:
        _search(job, send, next_point)
    except Exception as error:  # noqa: BLE001 - reported to the parent, which goes on
        send(("error", f"{type(error).__name__}: {error}"))
    channel.close()
    os._exit(0)

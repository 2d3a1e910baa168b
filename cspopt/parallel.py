"""Work spread over processes and machines by Dask distributed.

One :class:`Workers` per call: with one worker (the default) the tasks run here, one after
another, in order; with ``workers=N`` on a Dask ``LocalCluster`` of ``N`` single-threaded
processes started for the call; with ``scheduler="tcp://HOST:PORT"`` on a running Dask
cluster. Either way :meth:`Workers.map` returns the tasks' results in the order given, so
a caller combines them exactly as it would sequential ones: the same tasks give the same
answer on any number of workers. A task whose worker dies is run again once (Dask's
``retries``); failing again, or failing on an error of its own, it raises here, before the
caller has written anything.

Tasks are module-level functions with picklable arguments; no solver object crosses a
process (each task builds its own HiGHS or SCIP model), and limits travel as seconds, not
clock readings (the workers' clocks are their own).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence

from cspopt.errors import ClusterError, InputError

__all__ = ["Workers"]

log = logging.getLogger(__name__)

#: seconds to wait for a scheduler given by address before saying it cannot be reached
CONNECT_SECONDS = 10.0


class Workers:
    """Where a call's independent tasks run: here (``workers=1``, no ``scheduler``), on a
    Dask ``LocalCluster`` of ``workers`` processes, or on the cluster at ``scheduler``.

    Use as a context manager: the cluster started for the call stops at its end (a cluster
    given by address is only disconnected from).

    Raises
    ------
    InputError
        If ``workers`` is not a positive integer, or both are given.
    ClusterError
        If the scheduler cannot be reached (naming its address) or the local cluster does
        not start.
    """

    def __init__(self, *, workers: int | None = None, scheduler: str | None = None):
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                    or workers < 1):
            raise InputError(f"workers must be a positive integer, not {workers!r}")
        if scheduler is not None and workers is not None:
            raise InputError("give workers (a local cluster) or scheduler (a running "
                             "cluster), not both")
        self.workers = workers or 1
        self.scheduler = scheduler
        self._client = self._cluster = self._log_level = None

    @property
    def parallel(self) -> bool:
        """Whether the tasks leave this process."""
        return self.scheduler is not None or self.workers > 1

    def __enter__(self) -> Workers:
        if not self.parallel:
            return self
        from distributed import Client, LocalCluster

        if self.scheduler is not None:
            try:
                self._client = Client(self.scheduler, timeout=CONNECT_SECONDS)
            except (OSError, TimeoutError, ValueError) as err:
                raise ClusterError(f"the Dask scheduler at {self.scheduler!r} cannot be "
                                   f"reached: {err}") from None
            return self
        quiet = logging.getLogger("distributed")
        self._log_level = quiet.level
        if not log.isEnabledFor(logging.INFO):  # Dask's own chatter only with cspopt's
            quiet.setLevel(logging.ERROR)
        try:
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                         processes=True, dashboard_address=None,
                                         silence_logs=logging.ERROR)
            self._client = Client(self._cluster)
        except Exception as err:  # noqa: BLE001 - a cluster that does not start, named
            self.__exit__(None, None, None)
            raise ClusterError(f"a local Dask cluster of {self.workers} workers did not "
                               f"start: {err}") from None
        return self

    def __exit__(self, *exc) -> None:
        for part in (self._client, self._cluster):
            if part is not None:
                part.close()
        self._client = self._cluster = None
        if self._log_level is not None:
            logging.getLogger("distributed").setLevel(self._log_level)
            self._log_level = None

    @property
    def size(self) -> int:
        """How many tasks run at once."""
        if self._client is None:
            return 1
        return max(1, len(self._client.nthreads()))

    def share(self, value):
        """``value`` as an argument for the tasks of :meth:`map`: sent to every worker once
        (Dask's ``scatter``) rather than with each task; ``value`` itself where the tasks
        run here."""
        if self._client is None:
            return value
        return self._client.scatter(value, broadcast=True, hash=False)

    def map(self, task: Callable, items: Iterable[Sequence]) -> list:
        """``[task(*item) for item in items]``, the items spread over the workers."""
        items = list(items)
        if self._client is None:
            return [task(*item) for item in items]
        futures = [self._client.submit(task, *item, pure=False, retries=1) for item in items]
        try:
            return self._client.gather(futures)
        except Exception as err:
            for future in futures:
                future.cancel()
            if isinstance(err, (InputError, ClusterError)):
                raise
            raise ClusterError(f"a task of {task.__name__} failed on a Dask worker: "
                               f"{type(err).__name__}: {err}") from err

    def on_every_worker(self, function: Callable, *args) -> None:
        """``function(*args)`` once on each worker (here, with one): to drop what a run left
        in the workers' memory. Best effort: a worker that cannot be reached is logged and
        skipped (it holds nothing a later run reuses wrongly)."""
        if self._client is None:
            function(*args)
            return
        try:
            self._client.run(function, *args)
        except Exception as err:  # noqa: BLE001 - a clean-up never fails the result
            log.warning("cleaning up on the Dask workers failed: %s: %s",
                        type(err).__name__, err)

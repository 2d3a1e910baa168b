"""Keeping C-level solver output off stdout, so that stdout carries only cspopt's result.

HiGHS 1.16 prints its banner from the ``Highs()`` constructor on the C library's stdout (file
descriptor 1), where neither ``output_flag`` nor Python's ``sys.stdout`` reaches it. Both
helpers work on file descriptors: :func:`quiet_c_stdout` for one library call, and
:func:`result_stdout` for a whole CLI command.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys

__all__ = ["quiet_c_stdout", "result_stdout"]


@contextlib.contextmanager
def _fd1_to(target_fd: int):
    """Point file descriptor 1 at ``target_fd`` for the block; yields the saved original."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(target_fd, 1)
        yield saved
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


@contextlib.contextmanager
def quiet_c_stdout():
    """Discard what C code writes to stdout in the block (Python's own prints are kept)."""
    with open(os.devnull, "w") as sink, _fd1_to(sink.fileno()):
        yield


@contextlib.contextmanager
def result_stdout():
    """For one CLI command: C-level stdout goes to stderr, ``sys.stdout`` to the real stdout.

    When ``sys.stdout`` is the process's own stdout, it is re-opened on a duplicate of the
    original descriptor; when it is something else (a test's capture), it is left alone.
    """
    try:
        own = sys.stdout.fileno() == 1
    except (AttributeError, OSError, io.UnsupportedOperation):
        own = False
    with _fd1_to(2) as original:
        if not own:
            yield
            return
        previous = sys.stdout
        stream = os.fdopen(os.dup(original), "w", encoding=previous.encoding or "utf-8",
                           errors=previous.errors or "strict", buffering=1)
        sys.stdout = stream
        try:
            yield
        finally:
            sys.stdout = previous
            with contextlib.suppress(OSError):  # a closed pipe (e.g. `| head`)
                stream.close()

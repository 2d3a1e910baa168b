"""Readers and writers, chosen by file extension.

======================  =========================================================
``.jj``                 tau-ARGUS / CSPLIB JJ (:mod:`cspopt.io.jj`)
``.json``               lossless cspopt JSON (:mod:`cspopt.io.jsonio`)
``.csv``                tidy CSV, one row per cell; read as wide if it has no
                        ``value`` column (:mod:`cspopt.io.csv`)
``.wide.csv``           wide 2-D grid (written explicitly)
``.tab``                tau-ARGUS tabular data with its ``.rda`` (read only)
======================  =========================================================
"""

from __future__ import annotations

import os

from cspopt.errors import InputError, TableFormatError
from cspopt.io.csv import read_tidy_csv, read_wide_csv, write_tidy_csv, write_wide_csv
from cspopt.io.jj import parse_jj, read_jj, write_jj
from cspopt.io.jsonio import read_json, write_json
from cspopt.io.tauargus import read_tauargus

__all__ = ["read_table", "write_table", "read_jj", "write_jj", "parse_jj", "read_json",
           "write_json", "read_tidy_csv", "write_tidy_csv", "read_wide_csv", "write_wide_csv",
           "read_tauargus", "check_writable"]


def check_writable(path: str | os.PathLike, what: str) -> None:
    """Refuse, before any work, a file that cannot be written (no such directory, a
    directory, no permission), naming ``what`` it is for (e.g. ``"-o"``). The file is
    created to prove it, and removed again if it did not exist."""
    path = os.fspath(path)
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise InputError(f"{what} {path}: cannot write it ({exc.strerror})") from None
    if not existed:
        os.remove(path)


def _kind(path: str) -> str:
    name = os.path.basename(path).lower()
    for suffix, kind in ((".wide.csv", "wide"), (".jj", "jj"), (".json", "json"),
                         (".csv", "csv"), (".tab", "tab")):
        if name.endswith(suffix):
            return kind
    raise InputError(f"{path}: unknown table format (use .jj, .json, .csv, .wide.csv or .tab)")


def read_table(path: str | os.PathLike, **kwargs):
    """Read a table in any supported format."""
    path = os.fspath(path)
    kind = _kind(path)
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    try:
        if kind == "csv":
            with open(path, encoding="utf-8-sig") as handle:
                header = handle.readline().lower().replace('"', "").split(",")
            kind = "csv" if "value" in [h.strip() for h in header] else "wide"
        reader = {"jj": read_jj, "json": read_json, "csv": read_tidy_csv, "wide": read_wide_csv,
                  "tab": read_tauargus}[kind]
        return reader(path, **kwargs)
    except UnicodeDecodeError as error:
        raise TableFormatError(f"byte {error.start} is not UTF-8 text ({error.reason}); "
                               "save the file as UTF-8", path=path) from None


def write_table(table, path: str | os.PathLike) -> None:
    """Write a table; the format follows the extension (``.tab`` is read only)."""
    path = os.fspath(path)
    kind = _kind(path)
    writers = {"jj": write_jj, "json": write_json, "csv": write_tidy_csv, "wide": write_wide_csv}
    if kind not in writers:
        raise InputError(f"{path}: cspopt reads tau-ARGUS .tab files but does not write them")
    writers[kind](table, path)

"""Release manifests (``cspopt batch MANIFEST.toml``): one microdata file and its tables.

A manifest is TOML::

    data = "survey.csv"          # the microdata (relative to the manifest)
    encoding = "utf-8"           # optional: the CSV's text encoding
    output = "protected"         # optional: the directory of the outputs
    workers = 2                  # optional: a local Dask cluster of this many processes
    scheduler = "tcp://host:8786"  # optional, instead: a running Dask cluster

    [hierarchies]                # optional: a tau-ARGUS .hrc file per dimension
    region = "region.hrc"

    [defaults]                   # optional: keys every table takes unless it sets its own
    response = "turnover"
    rules = "P(15)|FREQ(3,10)"
    time_limit = 300

    [[table]]                    # one per table: name, dimensions, and any key above
    name = "region_activity"     # (:data:`cspopt.microdata.release.REQUEST_KEYS` and the
    dimensions = ["region", "activity"]  # solver's options)

Every error names the manifest's file and the line of the key at fault.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from cspopt.errors import InputError, TableFormatError
from cspopt.microdata.release import Release, TableRequest, protect_many, table_request
from cspopt.parallel import Workers

__all__ = ["Manifest", "read_manifest", "MANIFEST_KEYS"]

#: the keys of a manifest's top level
MANIFEST_KEYS = ("data", "encoding", "output", "workers", "scheduler", "hierarchies",
                 "defaults", "table")
_HEADER = re.compile(r"\s*(\[\[?)\s*([A-Za-z0-9_.-]+)\s*\]\]?")
_KEY = re.compile(r"\s*([A-Za-z0-9_-]+|\"[^\"]*\")\s*=")
_KINDS = {str: "string", dict: "table ([section] or {...})", list: "list of [[table]]"}


@dataclass(frozen=True)
class Manifest:
    """A release read from a manifest: the microdata ``data``, its ``encoding``, the
    ``output`` directory, the Dask ``workers`` or ``scheduler``, and the ``tables``."""

    path: Path
    data: Path
    encoding: str
    output: Path
    tables: tuple[TableRequest, ...]
    workers: int | None = None
    scheduler: str | None = None

    def protect(self, *, workers: int | None = None, scheduler: str | None = None
                ) -> Release:
        """:func:`~cspopt.microdata.release.protect_many` of the manifest's tables
        (``workers`` or ``scheduler`` replace the manifest's own)."""
        if workers is None and scheduler is None:
            workers, scheduler = self.workers, self.scheduler
        return protect_many(self.data, self.tables, workers=workers, scheduler=scheduler,
                            encoding=self.encoding)


def read_manifest(path) -> Manifest:
    """The :class:`Manifest` in the TOML file ``path``; a :class:`TableFormatError` naming
    the file and line of a syntax error, an unknown key or a value out of place, before any
    table is tabulated."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise InputError(f"{path}: the manifest cannot be read ({error.strerror})") from None
    except UnicodeDecodeError as error:
        raise TableFormatError(f"not UTF-8 text ({error.reason} at byte {error.start})",
                               path=str(path)) from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"\(at line (\d+)", str(error))
        raise TableFormatError(f"not a TOML manifest: {str(error).split(' (at ')[0]}",
                               path=str(path), line=int(found[1]) if found else None
                               ) from None
    lines = _key_lines(text)

    def fail(section, key: str, message: str) -> TableFormatError:
        return TableFormatError(message, path=str(path), line=lines.get((section, key)))

    unknown = sorted(set(doc) - set(MANIFEST_KEYS))
    if unknown:
        raise fail("", unknown[0], f"unknown key(s) {', '.join(unknown)}; a manifest has "
                                   f"{', '.join(MANIFEST_KEYS)}")
    here = path.parent
    if not isinstance(doc.get("data"), str):
        raise fail("", "data", "data must name the microdata file (CSV or Parquet)")
    data = here / doc["data"]
    if not data.is_file():
        raise fail("", "data", f"the microdata file {str(data)!r} does not exist")
    for key, kind in (("encoding", str), ("output", str), ("scheduler", str),
                      ("hierarchies", dict), ("defaults", dict), ("table", list)):
        if key in doc and not isinstance(doc[key], kind):
            raise fail("", key, f"{key} must be a {_KINDS[kind]}, not {doc[key]!r}")
    workers, scheduler = doc.get("workers"), doc.get("scheduler")
    for key, spread in (("workers", dict(workers=workers)),  # Workers' own checks, located
                        ("scheduler", dict(workers=workers, scheduler=scheduler))):
        try:
            Workers(**spread)  # no cluster starts before it is entered
        except InputError as error:
            raise fail("", key, str(error)) from None
    hierarchies = {}
    for dim, file in doc.get("hierarchies", {}).items():
        if not isinstance(file, str) or not (here / file).is_file():
            raise fail("hierarchies", dim, f"the hierarchy of {dim!r}, {file!r}, is not a "
                                           f"file")
        hierarchies[dim] = str(here / file)
    defaults = doc.get("defaults", {})
    if "name" in defaults or "dimensions" in defaults:
        raise fail("defaults", "name" if "name" in defaults else "dimensions",
                   "defaults are what tables share: not a name or dimensions")
    tables = doc.get("table", [])
    if not tables:
        raise fail("", "", "no table: add one [[table]] section per table")
    requests = []
    for k, fields in enumerate(tables):
        merged = dict(defaults, **fields)
        own = merged.get("hierarchies") or {}
        dims = merged.get("dimensions")
        shared = {d: h for d, h in hierarchies.items()
                  if isinstance(dims, list) and d in dims}  # the manifest's: where used
        merged["hierarchies"] = (dict(shared, **_relative(own, here))
                                 if isinstance(own, dict) else own)  # else refused, named
        source = {key: (str(path), line) for (section, key), line in lines.items()
                  if section == ("table", k) or section == "defaults" and key not in fields}
        source[""] = (str(path), lines.get((("table", k), "")))
        for dim in merged["hierarchies"] if isinstance(own, dict) else ():
            # where each hierarchy was given (``hierarchies.DIM``, for the data's errors about
            # it): the table's own hierarchies, else the manifest's [hierarchies] line
            given = (source.get("hierarchies") if dim in own else
                     (str(path), lines[("hierarchies", dim)])
                     if ("hierarchies", dim) in lines else None)
            if given is not None:
                source[f"hierarchies.{dim}"] = given
        requests.append(table_request(merged, source=source))
    output = here / doc.get("output", f"{path.stem}-protected")
    return Manifest(path=path, data=data, encoding=doc.get("encoding", "utf-8"),
                    output=output, tables=tuple(requests), workers=workers,
                    scheduler=scheduler)


def _relative(files: dict, here: Path) -> dict:
    """A table's own hierarchies (an inline table of .hrc files), relative to the
    manifest."""
    return {dim: str(here / file) if isinstance(file, str) else file
            for dim, file in files.items()}


def _key_lines(text: str) -> dict[tuple, int]:
    """``(section, key) -> line`` of the keys written ``key = ...`` in ``text``: section
    ``""`` (the top), a table's name, or ``("table", k)`` for the ``k``-th ``[[table]]``
    (key ``""``: its header line)."""
    lines: dict[tuple, int] = {}
    section: object = ""
    arrays: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            name = header[2]
            if header[1] == "[[":
                arrays[name] = arrays.get(name, -1) + 1
                section = (name, arrays[name])
            else:
                section = name
            lines.setdefault((section, ""), number)
            continue
        key = _KEY.match(line)
        if key:
            lines.setdefault((section, key[1].strip('"')), number)
    return lines

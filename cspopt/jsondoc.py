"""The JSON documents cspopt writes: plain Python types only.

Every ``to_dict`` of a result and every document the CLI prints goes through :func:`plain`,
so that a numpy scalar (``int64`` from an index array, ``float64`` from a solver), an array,
an enum or a tuple never reaches :mod:`json` (which refuses numpy types), and a
non-finite number is written in one spelling: ``null`` for ``nan``, ``"inf"``/``"-inf"``
for infinities (JSON has no literal for either).
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

import numpy as np

__all__ = ["plain", "dumps"]


def plain(value: Any) -> Any:
    """``value`` with every container, number and enum made a plain JSON type.

    Mappings become dicts with string keys, sequences and arrays lists, numpy scalars
    Python ones, enums their values, paths strings; ``nan`` becomes ``None`` and
    ``±inf`` the strings ``"inf"``/``"-inf"``.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, np.generic):
        return plain(value.item())
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return float(value)
    if isinstance(value, Mapping):
        return {str(plain(k)) if not isinstance(k, str) else k: plain(v)
                for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if isinstance(value, PurePath):
        return str(value)
    raise TypeError(f"no JSON form for {type(value).__name__}")


def dumps(value: Any) -> str:
    """One JSON document (indented) of :func:`plain` ``(value)``; strict JSON, no
    ``NaN``/``Infinity`` literals."""
    return json.dumps(plain(value), indent=2, allow_nan=False)

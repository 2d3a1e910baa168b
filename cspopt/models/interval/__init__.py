"""Interval protection (Fischetti & Salazar-Gonzalez 2001) on any linear table.

:func:`build_interval_instance` validates a table into an :class:`IntervalInstance`;
:mod:`~cspopt.models.interval.compact` is the compact model (Castro 2007 eq. (3)),
:mod:`~cspopt.models.interval.capacity` the attacker problems and the capacity cuts of its
projection onto the suppression variables (over :mod:`~cspopt.models.interval.flows`,
:mod:`~cspopt.models.interval.attacker_lp`, :mod:`~cspopt.models.interval.proofs` and
:mod:`~cspopt.models.interval.cut_families`), :mod:`~cspopt.models.interval.separators` the
cut families as the loops take them, :mod:`~cspopt.models.interval.linked` the cells
that deviate together, :mod:`~cspopt.models.interval.candidates` Serpell et al.'s candidate
sets, :class:`ExactAsInterval` the reduction of exact disclosure to this problem and
:class:`FixedOutside` its restriction to a region of the cells.
"""

from cspopt.models.interval.build import build_interval_instance
from cspopt.models.interval.candidates import candidate_primaries, unpicked
from cspopt.models.interval.capacity import CapacityOracle
from cspopt.models.interval.compact import build_fs_matrix, build_fs_model
from cspopt.models.interval.cut_families import (
    CapacityCut,
    add_cut_rows,
    capacity_master,
    cut_rows,
)
from cspopt.models.interval.instance import IntervalInstance
from cspopt.models.interval.linked import deviation_classes
from cspopt.models.interval.reduction import ExactAsInterval, FixedOutside
from cspopt.models.interval.separators import (
    Bridgeless,
    CapacityCuts,
    Separator,
    root_separators,
)

__all__ = ["IntervalInstance", "build_interval_instance", "build_fs_matrix", "build_fs_model",
           "CapacityCut", "CapacityOracle", "cut_rows", "capacity_master", "add_cut_rows",
           "deviation_classes", "candidate_primaries", "unpicked", "ExactAsInterval",
           "FixedOutside", "Separator", "CapacityCuts", "Bridgeless", "root_separators"]

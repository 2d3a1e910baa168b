"""Problem transformations of the interval model, each an object with ``apply`` and ``invert``.

:class:`ExactAsInterval` states exact disclosure as interval protection;
:class:`FixedOutside` restricts an interval problem to a region of its cells.

Exact disclosure as interval protection:

Projecting the path variables out of (P) (Almeida & Carvalho 2005 §3, constraints (8)-(10))
leaves one constraint per protected cell ``k`` and node set ``U`` that holds the source of
``k``'s paths but not its sink:

    sum_{c : an arc of c leaves U} x_c  >=  1,

(max-flow min-cut on the network of §2; for (P_N) the arcs are directed, §4). These are
Fischetti & Salazar-Gonzalez's (1999) capacity constraints for a requirement no larger than
any arc's capacity, so the interval branch-and-cut solves (P) and (P_N) once the problem is
stated as an interval one (:meth:`ExactAsInterval.apply`); :meth:`ExactAsInterval.invert`
turns its result back into one of the exact instance.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from cspopt.models.exact import ExactInstance
from cspopt.result import SolveResult
from cspopt.table import CellStatus, Table, min_protection_level

__all__ = ["ExactAsInterval", "FixedOutside"]


@dataclass(frozen=True)
class ExactAsInterval:
    """(P) or (P_N) of :attr:`instance` as an interval-protection problem, and back.

    :meth:`apply` states the problem; :meth:`invert` turns a solve result of the stated
    problem into one of ``instance`` (its cells, model and preprocessing; the pattern and
    bound carry over unchanged, as the two problems have the same feasible patterns).
    """

    instance: ExactInstance

    def apply(self) -> tuple[Table, np.ndarray]:
        """``(table, must_publish)``: an interval problem with the same feasible patterns as
        :attr:`instance`.

        Every cell that may move up along a path gets the a-priori upper bound ``a + 1``, every
        cell that may move down gets ``a - 1``, and every other bound is ``a`` (1 here stands
        for :attr:`step`, and so it does in the requirements). On a network
        table an attacker's deviations are sums of ±1 circuits, so a sensitive cell's largest
        increase (decrease) is 0 or at least 1, and it is at least 1 exactly when a circuit of
        suppressed cells moves the cell that way, through arcs the model allows: (P), or (P_N)
        with its bounds and the ``tau`` threshold (arcs outside ``path_arc_mask`` get no room).
        The requirement of 1 is ``upl`` in (P), where the reverse circuit decreases the cell, so
        one direction says all and the cuts are those of (P)'s flows. In (P_N) it is ``upl`` or
        ``lpl`` for a cell that can move one way only (set ``K_1``) and the width ``spl`` for
        one that can move both ways (``K_2``: either direction protects). Only the cells
        ``instance`` still has to protect get a requirement: those its preprocessing found
        protected by the other sensitive cells stay so in every pattern (they are still
        suppressed and audited), and judging them again cost the interval preprocessing 2 s of
        the 4 s on a 200x150 table with 1,216 sensitive cells.
        """
        inst = self.instance
        table = inst.table
        a = table.values
        up = np.zeros(table.num_cells, bool)
        down = np.zeros(table.num_cells, bool)
        usable = inst.path_arc_mask
        up[inst.arc_cell[usable & inst.arc_increasing]] = True
        down[inst.arc_cell[usable & ~inst.arc_increasing]] = True
        sensitive = np.zeros(table.num_cells, bool)
        sensitive[inst.protected_cells] = True
        if inst.model == "P":
            upper, lower, width = sensitive, np.zeros_like(sensitive), np.zeros_like(sensitive)
        else:
            upper, lower = sensitive & up & ~down, sensitive & down & ~up
            width = sensitive & up & down
        step = self.step
        interval = table.replace(
            nonnegative=False, apriori_lower=np.where(down, a - step, a),
            apriori_upper=np.where(up, a + step, a), upper_protection=step * upper,
            lower_protection=step * lower, sliding_protection=step * width)
        in_model = np.zeros(table.num_cells, bool)
        in_model[inst.candidates] = True
        in_model[table.sensitive_cells] = True
        return interval, np.flatnonzero(~in_model)

    @functools.cached_property
    def step(self) -> float:
        """The unit of the stated problem's rooms and requirements: 1, or the smallest power
        of two at least twice the finest level the solvers can verify at the table's largest
        protected value (:func:`~cspopt.table.min_protection_level`; 8 for 396,000,000, fuzz
        table exact_scale1e6). Every room and requirement is the same multiple of it, and the
        attacker's deviations scale with them, so the feasible patterns do not depend on it;
        a unit of 1 there was refused as below the solvers' precision."""
        table = self.instance.table
        cells = self.instance.protected_cells
        if not cells.size:
            return 1.0
        finest = 2 * min_protection_level(float(np.abs(table.values[cells]).max()))
        return float(2.0 ** max(0, math.ceil(math.log2(finest))))

    def invert(self, result: SolveResult, *, method: str) -> SolveResult:
        """``result`` (of the stated problem) as a result of :attr:`instance`, named
        ``method``."""
        inst = self.instance
        size = dict(result.model_size, protected=int(inst.protected_cells.size))
        return dataclasses.replace(
            result, method=method, model=inst.model, model_size=size,
            proof="branch-and-cut" if result.proven_optimal else "",
            unsafe=tuple(map(int, inst.protected_cells)), safe=tuple(map(int, inst.safe_cells)))


@dataclass(frozen=True)
class FixedOutside:
    """The interval problem of :attr:`table` with every cell outside :attr:`region` fixed as
    :attr:`pattern` has it: the local problem of a large-neighbourhood search.

    :meth:`apply` states it as an interval problem of its own: a suppressed cell outside the
    region becomes a sensitive cell with no protection level (suppressed in every pattern,
    nothing to protect; the audit's interval requirement asks nothing of it), a published
    one joins ``must_publish``. Its patterns are those of :attr:`table` that agree with
    :attr:`pattern` outside the region, less the fixed suppressions (their cost is a
    constant left out of its objective); :meth:`invert` adds those back.
    """

    table: Table
    region: np.ndarray  # cell ids free to choose
    pattern: np.ndarray  # cell ids suppressed (sensitive cells may be left out)

    @functools.cached_property
    def fixed(self) -> np.ndarray:
        """The suppressed cells outside the region (sensitive ones left out)."""
        mask = self.table.pattern(self.pattern) & ~self.table.sensitive
        mask[self.region] = False
        return np.flatnonzero(mask)

    @property
    def start(self) -> np.ndarray:
        """The pattern's suppressions inside the region: a pattern of the local problem."""
        return np.intersect1d(self.pattern, self.region)

    def apply(self, must_publish=()) -> tuple[Table, np.ndarray]:
        """``(table, must_publish)`` of the local problem (``must_publish``: ids of the cells
        the original problem publishes, kept published)."""
        table, fixed = self.table, self.fixed
        status, levels = table.status.copy(), [table.lower_protection.copy(),
                                                 table.upper_protection.copy(),
                                                 table.sliding_protection.copy()]
        status[fixed] = CellStatus.SENSITIVE.value
        for level in levels:
            level[fixed] = 0.0
        local = table.replace(status=status, lower_protection=levels[0],
                              upper_protection=levels[1], sliding_protection=levels[2])
        free = np.zeros(table.num_cells, bool)
        free[self.region] = True
        free[fixed] = True
        free[table.sensitive_cells] = True
        free[np.asarray(must_publish, dtype=np.int64)] = False
        return local, np.flatnonzero(~free)

    def invert(self, suppressed) -> tuple[int, ...]:
        """A pattern of the local problem as one of :attr:`table` (sensitive cells left out)."""
        return tuple(int(c) for c in np.union1d(self.fixed, np.asarray(suppressed, np.int64)))

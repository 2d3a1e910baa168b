"""Capacity constraints: the attacker problems of a suppression vector and the cuts they give.

Fischetti & Salazar-Gonzalez (2001) (seed 002 §3, Castro 2007 eq. (3) projected onto ``y``).
For a protected cell ``p`` and suppression levels ``y`` (1 on sensitive cells, 0 on published
ones), the attacker's largest increase of ``p`` is the LP

    U_p(y) = max x_p   s.t.  A x = 0,   -(a_i - lb_i) y_i <= x_i <= M_i y_i,

and ``L_p(y)`` (the largest decrease) is the same with ``max -x_p``. A pattern protects ``p``
when ``U_p >= upl_p``, ``L_p >= lpl_p`` and ``U_p + L_p >= spl_p``. For any multipliers
``pi`` on ``A x = 0`` put ``q = e_p - A^T pi``; weak duality gives

    U_p(y) <= sum_i g_i y_i,        g_i = max(q_i, 0) M_i + max(-q_i, 0) (a_i - lb_i),

so every requirement implies the *capacity constraint* ``sum_i g_i y_i >= upl_p`` (and its
lower and sliding analogues). It is valid for every ``pi`` and tight at an optimal dual of the
LP at ``y``, hence a Benders cut of the compact model: adding all of them gives exactly its
LP bound. Sensitive cells (``y_i = 1``) move to the right-hand side ``b``, and for binary
``y`` the coefficients can be capped at ``b`` (a cell whose own capacity covers the requirement
satisfies it alone).

On network tables (2-D tables with margins; with one hierarchical dimension, the network of
the relations left once the implied subtotal-row relations are dropped, Castro 2007 Fig. 5,
:func:`cspopt.table.network.reduced_network`) ``pi`` can be taken as the indicator of the
source side ``S`` of a minimum cut: the attacker's problem is a maximum flow from the head of
``p`` back to its tail (seed 000 §2), arcs leaving ``S`` contribute ``M_i`` (cells that would
increase) and arcs entering ``S`` contribute ``a_i - lb_i``. Flows are computed by
:func:`scipy.sparse.csgraph.maximum_flow` on capacities scaled to integers and rounded down,
so the flow value is a valid *lower* bound on ``U_p`` (a proof of protection) and the cut
value a valid *upper* bound (a proof of exposure); when rounding leaves them on both sides of
the requirement the LP decides.

References
----------
M. Fischetti and J. J. Salazar-Gonzalez, "Solving the cell suppression problem on tabular
data with linear constraints", Management Science 47 (2001) 1008-1027.
J. Castro, "A shortest-paths heuristic for statistical data protection in positive tables",
INFORMS J. Computing 19 (2007) 520-533, eq. (3).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, maximum_flow

from cspopt.audit.judge import tolerance_for
from cspopt.backends.highs import Resolver, new_highs
from cspopt.errors import InputError, NotNetworkError, SolverError
from cspopt.models.interval.instance import IntervalInstance
from cspopt.table.kernel import kernel_basis

__all__ = ["CapacityCut", "CapacityOracle", "cut_rows"]

#: integer units a requirement is scaled to for scipy's integer maximum flow
_FLOW_UNITS = 1_000_000
#: units added before rounding capacities down: a capacity equal to the requirement scales to
#: 999999.9999999999 units in floats (43 * (1e6 / 43)), which would leave the flow a unit short
#: and send the verdict to the attacker LP (3,542 LPs in delete-and-check on a hierarchical
#: 60x30 table); a flow overstates by at most this per cut arc, 1e-12 of the requirement
_ROUNDING_SLACK = 1e-6
#: dense capacities (requirements x arcs of all free cells) one batch of flows may build:
#: 160 MB a matrix (2,000 cells of a 500x500 table at once would be 8 GB)
_DENSE_ENTRIES = 20_000_000
#: violation (in units of the requirement) a cut needs to refute a 0/1 point; cuts violated by
#: less (float noise: 1e-16 on fuzz table fz_2d_256) leave the verdict to the attacker LP
_DECIDING_VIOLATION = 1e-9
#: proofs of protection remembered per protected cell (both sides)
_PROOFS_KEPT = 40
#: entries of one batched flow graph (copies x entries per copy), which bounds its memory
_BATCH_ENTRIES = 400_000
#: capacity of the arcs into the super sink: never binding (sources carry _FLOW_UNITS each)
_SINK_UNITS = 2**30
#: the attacker problems (sides) each kind of requirement reads
_SIDES_OF = {"upper": ("upper",), "lower": ("lower",), "sliding": ("upper", "lower")}
#: the share of free cells with ``y_i > 0`` from which the attacker LP runs in the kernel's
#: coordinates (:meth:`CapacityOracle._kernel_lp`). CSPLIB hier13, ms an LP (kernel /
#: relations): 0/1 points with 20 % and 60 % suppressed 16-26 / 3, sparse fractional points
#: 18-26 / 3-6, points with every y_i >= 0.5 (the in-out probes) 7-17 / 60-145
_KERNEL_FROM = 0.9
#: relative slack on the levels a proof needs: an LP point sits on its bounds ``room * y`` up
#: to rounding, and should still prove protection at the point it came from
_LEVEL_SLACK = 1e-9


@dataclass(frozen=True)
class CapacityCut:
    """``sum coefficients[j] * y[candidates[j]] >= rhs``: a capacity cut normalised by its
    right-hand side (``rhs = 1``), or a bridgeless cut (``rhs = 0``).

    ``candidates`` index :attr:`IntervalInstance.candidates`; ``cell`` and ``requirement``
    (``"upper"``, ``"lower"``, ``"sliding"``, or ``"bridgeless"`` for the secondary it keeps
    movable) say what it enforces, and ``violation`` is ``rhs - activity`` at the point it was
    separated from.
    """

    cell: int
    requirement: str
    candidates: np.ndarray
    coefficients: np.ndarray
    violation: float
    rhs: float = 1.0  # 0 for a bridgeless cut

    def activity(self, y_candidates: np.ndarray) -> float:
        return float(self.coefficients @ y_candidates[self.candidates])


@dataclass
class _Side:
    """One attacker problem's answer: a proven attainable value, and, computed only when
    asked (a proof to remember, a cut to add), the suppression levels the attaining flow or
    LP point needs and a capacity vector."""

    attained: float  # lower bound on U_p or L_p (a flow, or the LP's primal value)
    level_of: Callable[[], np.ndarray]
    capacity_of: Callable[[], np.ndarray]
    # how far U_p or L_p may exceed ``attained``: a flow on capacities rounded down to whole
    # units loses less than a unit per arc of its minimum cut; unknown for an LP (its cut
    # decides)
    slack: float = math.inf

    @functools.cached_property
    def level(self) -> np.ndarray:
        """Per free cell, the least y_i the attaining solution fits in (0: unused)."""
        return self.level_of()

    @functools.cached_property
    def capacity(self) -> np.ndarray:
        """g over free cells: U_p(y) <= g . y for every y."""
        return self.capacity_of()


class _Proofs:
    """The proofs remembered for one protected cell: per proof, the side it moves the cell
    to (``"upper"``, ``"lower"``), how far, the cells the flow or LP point moves and the
    least ``y_i`` each needs. A proof applies wherever ``y`` is at least its levels. The
    proofs are rows of two padded matrices (cells, levels; padding at level ``-inf``), so
    that all are tested at once and a new proof overwrites one row: rebuilding a
    concatenation after every proof cost 2 of 11 s in a restriction of hier13x7x7d, whose
    attacker LPs share 69,000 proofs. The least recently used is forgotten first."""

    def __init__(self):
        self._cells = np.zeros((0, 0), dtype=np.int32)
        self._levels = np.zeros((0, 0))
        self._upper = np.zeros(0, dtype=bool)
        self._attained = np.zeros(0)
        self._sizes = np.zeros(0, dtype=np.int64)
        self._used = np.zeros(0, dtype=np.int64)  # the clock at each proof's last use
        self._count = 0
        self._clock = 0
        self.last_cells: dict[str, np.ndarray] = {}  # per side, of the proof used last

    def best(self, y: np.ndarray) -> dict[str, float]:
        """Per side, the farthest move a proof that applies at ``y`` makes."""
        count = self._count
        if not count:
            return {}
        applies = (y[self._cells[:count]] >= self._levels[:count]).all(axis=1)
        found: dict[str, float] = {}
        for side, on_side in (("upper", self._upper[:count]), ("lower", ~self._upper[:count])):
            hits = np.flatnonzero(applies & on_side)
            if hits.size:
                i = int(hits[np.argmax(self._attained[hits])])
                found[side] = float(self._attained[i])
                # a copy: the row may hold another proof by the time the caller reads it
                self._use(i, side, self._cells[i, :self._sizes[i]].copy())
        return found

    def add(self, side: str, cells: np.ndarray, levels: np.ndarray, attained: float) -> None:
        if self._count == _PROOFS_KEPT:
            i = int(self._used.argmin())
        else:
            i = self._count
            self._count += 1
        rows, width = self._cells.shape
        if i >= rows or cells.size > width:  # grow: rows double up to _PROOFS_KEPT
            rows = max(rows, min(_PROOFS_KEPT, max(2 * rows, 4)))
            self._resize(rows, max(width, cells.size))
        self._cells[i, :cells.size], self._cells[i, cells.size:] = cells, 0
        self._levels[i, :cells.size], self._levels[i, cells.size:] = levels, -np.inf
        self._upper[i], self._attained[i] = side == "upper", attained
        self._sizes[i] = cells.size
        self._use(i, side, cells)

    def _resize(self, rows: int, width: int) -> None:
        old_rows, old_width = self._cells.shape
        cells, levels = np.zeros((rows, width), np.int32), np.full((rows, width), -np.inf)
        cells[:old_rows, :old_width], levels[:old_rows, :old_width] = self._cells, self._levels
        self._cells, self._levels = cells, levels
        self._upper = np.resize(self._upper, rows)
        self._attained = np.resize(self._attained, rows)
        self._sizes = np.resize(self._sizes, rows)
        self._used = np.resize(self._used, rows)

    def _use(self, i: int, side: str, cells: np.ndarray) -> None:
        self._clock += 1
        self._used[i] = self._clock
        self.last_cells[side] = cells


class _Support:
    """The network of the cells with ``y_i > 0`` (both arcs of each), in CSR form: parallel
    arcs share one entry, ``entry_of_arc`` maps ``arcs`` to entries and :meth:`sum_parallel`
    adds their capacities. Built per separation; every arc's reverse is in it."""

    def __init__(self, num_nodes: int, arc_from: np.ndarray, arc_to: np.ndarray,
                 active: np.ndarray):
        nf = active.size
        cells = np.flatnonzero(active)
        self.arcs = np.concatenate([cells, cells + nf])
        key = arc_from[self.arcs] * num_nodes + arc_to[self.arcs]
        pairs, self.entry_of_arc = np.unique(key, return_inverse=True)
        self.num_nodes = num_nodes
        self.num_entries = pairs.size
        self.indices = (pairs % num_nodes).astype(np.int32)
        self.entry_row = pairs // num_nodes
        self.indptr = np.searchsorted(self.entry_row, np.arange(num_nodes + 1)).astype(np.int32)
        self.width = pairs.size + 2 * num_nodes  # entries of one copy in a _FlowBatch

    def sum_parallel(self, units: np.ndarray) -> np.ndarray:
        """Per row of ``units`` (copies x ``arcs``), the capacity of each entry."""
        copies, size = units.shape[0], self.num_entries
        index = self.entry_of_arc[None, :] + (np.arange(copies) * size)[:, None]
        return np.bincount(index.ravel(), weights=units.ravel(),
                           minlength=copies * size).reshape(copies, size)

    @functools.cached_property
    def by_head(self) -> np.ndarray:
        """The entries ordered by head node (then tail)."""
        return np.lexsort((self.entry_row, self.indices))

    def reach(self, open_: np.ndarray, sources: np.ndarray, *, backward: bool = False
              ) -> np.ndarray:
        """Per row of ``open_`` (copies x entries, a boolean mask of usable entries), the
        nodes reachable from ``sources[j]`` in that copy (``backward``: the nodes that reach
        it): one search from a super node joined to every copy's source, on disjoint copies
        of the network. The arcs go to scipy in CSR form directly: row-major ``nonzero``
        over the entries in tail order (backward: in head order) lists them row by row."""
        n, copies = self.num_nodes, open_.shape[0]
        if backward:
            copy, position = np.nonzero(open_[:, self.by_head])
            entry = self.by_head[position]
            tail, head = self.indices[entry], self.entry_row[entry]
        else:
            copy, entry = np.nonzero(open_)
            tail, head = self.entry_row[entry], self.indices[entry]
        row, col = tail + copy * n, head + copy * n
        size = copies * n + 1
        indices = np.r_[col, np.asarray(sources) + np.arange(copies) * n].astype(np.int32)
        indptr = np.r_[np.searchsorted(row, np.arange(size)), indices.size].astype(np.int32)
        arcs = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(size, size))
        reachable = np.zeros(size, dtype=bool)
        reachable[breadth_first_order(arcs, copies * n, directed=True,
                                      return_predecessors=False)] = True
        return reachable[:-1].reshape(copies, n)


class _FlowBatch:
    """``copies`` disjoint copies of a :class:`_Support` network and a super source ``S``
    and sink ``T`` joined to every node both ways, so that one
    :func:`~scipy.sparse.csgraph.maximum_flow` solves one flow per copy: arc
    ``S -> source_j`` of capacity ``_FLOW_UNITS`` (the requirement) and ``sink_j -> T``
    are the only super arcs with capacity. Copy ``j``'s flow is its own maximum flow capped
    at the requirement, and where it falls short its residual graph holds its minimum cut.
    """

    def __init__(self, support: _Support, copies: int):
        n, indptr, indices = support.num_nodes, support.indptr, support.indices
        degree = np.diff(indptr)
        row_start = np.concatenate([[0], np.cumsum(degree + 2)])  # each row ends with S, T
        width = int(row_start[-1])  # entries per copy
        own = np.arange(indices.size) + np.repeat(row_start[:-1] - indptr[:-1], degree)
        self.num_nodes = copies * n + 2
        self.source, self.sink = copies * n, copies * n + 1
        start = (np.arange(copies) * width)[:, None]
        index = np.empty((copies, width), dtype=np.int32)
        index[:, own] = indices[None, :] + (np.arange(copies) * n)[:, None]
        index[:, row_start[1:] - 2] = self.source
        index[:, row_start[1:] - 1] = self.sink
        nodes = np.arange(copies * n, dtype=np.int32)
        self.indices = np.concatenate([index.ravel(), nodes, nodes])
        self.indptr = np.concatenate([(row_start[:-1][None, :] + start).ravel(), [
            copies * width, copies * width + copies * n, copies * width + 2 * copies * n]
        ]).astype(np.int32)
        self.entry = own[None, :] + start  # copy x entry of the support
        self.from_source = copies * width + np.arange(copies) * n  # + node: S -> node
        self.to_sink = (row_start[1:] - 1)[None, :] + start  # copy x node: node -> T

    def solve(self, entry_units: np.ndarray, sources: np.ndarray,
              sinks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flows per copy and entry, and each copy's flow value (integer units)."""
        data = np.zeros(self.indices.size, dtype=np.int32)
        data[self.entry] = entry_units
        into = self.from_source + sources
        data[into] = _FLOW_UNITS
        data[self.to_sink[np.arange(sinks.size), sinks]] = _SINK_UNITS
        graph = sp.csr_matrix((data, self.indices, self.indptr),
                              shape=(self.num_nodes, self.num_nodes))
        flow = maximum_flow(graph, self.source, self.sink).flow
        if not (np.array_equal(flow.indptr, self.indptr)
                and np.array_equal(flow.indices, self.indices)):
            # not expected (every arc's reverse is in the graph): read it entry by entry
            rows = np.repeat(np.arange(self.num_nodes), np.diff(self.indptr))
            flat = np.asarray(flow.tocsr()[rows, self.indices]).ravel()
        else:
            flat = flow.data
        return flat[self.entry], flat[into].astype(float)


class CapacityOracle:
    """Attacker problems of one :class:`IntervalInstance` at any ``y``, and capacity cuts.

    Build once; :meth:`separate` is called thousands of times inside branch-and-cut and works
    on prebuilt arrays only. ``method="auto"`` uses minimum cuts on network tables and the
    attacker LP (one warm-started HiGHS model) elsewhere. A flow or LP point that proved a
    cell protected is remembered with the least ``y_i`` each cell it moves needs
    (``room_i y_i`` holds the move); at any later point, fractional or 0/1, that is at least
    those levels it proves the cell again without a new flow or LP (the attacker's problem
    only gains room as ``y`` grows).
    """

    def __init__(self, inst: IntervalInstance, *, method: str = "auto", strengthen: bool = True,
                 focus: np.ndarray | None = None):
        if method not in ("auto", "network", "lp"):
            raise InputError(f"method must be 'auto', 'network' or 'lp', not {method!r}")
        if not strengthen and method == "network":
            raise InputError("minimum cuts cap capacities at the requirement: plain Benders "
                             "cuts (strengthen=False) need method='lp'")
        self.strengthen = strengthen
        table = inst.table
        self.inst = inst
        self.num_free = nf = inst.free.size
        self.position = np.searchsorted(inst.free, inst.protected)
        self.is_candidate = ~table.sensitive[inst.free]
        self.requirements = []  # (k, kind, rhs)
        for k, cell in enumerate(inst.protected.tolist()):
            lpl, upl, spl = (float(table.lower_protection[cell]),
                             float(table.upper_protection[cell]),
                             float(table.sliding_protection[cell]))
            for kind, rhs in (("upper", upl), ("lower", lpl)):
                if rhs > 0:
                    self.requirements.append((k, kind, rhs))
            if spl > upl + lpl:  # otherwise the two sides imply it
                self.requirements.append((k, "sliding", spl))
        self._rows_of_cell: dict[int, list[int]] = {}
        for r, (k, _, _) in enumerate(self.requirements):
            self._rows_of_cell.setdefault(k, []).append(r)
        # per protected cell: the attacker problems its requirements ask for
        self._side_names: dict[int, list[str]] = {}
        for k, rows in self._rows_of_cell.items():
            kinds = {self.requirements[r][1] for r in rows}
            self._side_names[k] = [side for side, wanted in (
                ("upper", {"upper", "sliding"}), ("lower", {"lower", "sliding"}))
                if kinds & wanted]
        self._order = list(self._rows_of_cell)  # protected cells, recently exposed first
        # cells separated at fractional points (all are checked at 0/1 points)
        self._focus = (np.ones(inst.protected.size, dtype=bool) if focus is None
                       else np.asarray(focus, dtype=bool))
        # recent proofs per protected cell and side (flows or LP points) with the least y
        # each moved cell needs: a point at least those levels admits the same move
        self._proofs = {k: _Proofs() for k in self._rows_of_cell}
        # a sliding requirement asks for both sides at once: its cells are solved whole
        self._sliding = {k for k, rows in self._rows_of_cell.items()
                         if any(self.requirements[r][1] == "sliding" for r in rows)}
        self.tolerance = np.array([tolerance_for(float(table.values[inst.protected[k]]), 1e-6)
                                   for k, _, _ in self.requirements]) / 2
        # per side, the move that meets each protected cell's own requirement (inf: none, or
        # a sliding one), for the proofs that an attacker solution for another cell gives on
        # the way (the "sleeping" levels of tau-ARGUS' engine)
        self._side_need = {side: np.full(inst.protected.size, math.inf)
                           for side in ("upper", "lower")}
        for r, (k, kind, rhs) in enumerate(self.requirements):
            if kind != "sliding" and k not in self._sliding:
                self._side_need[kind][k] = rhs - self.tolerance[r]
        self.network = None
        if method == "network" or (method == "auto" and strengthen):
            try:
                self.network, _ = table.reduced_network()
            except NotNetworkError:
                if method == "network":
                    raise InputError("method='network' needs a table whose relations form a "
                                     "network (a 2-D table with margins, one dimension of "
                                     "which may be hierarchical)") from None
        if self.network is not None:
            net = self.network
            # arc j < nf raises free cell j (tail -> head), arc nf + j lowers it
            tail, head = net.tail[inst.free], net.head[inst.free]
            self._arc_from = np.concatenate([tail, head]).astype(np.int64)
            self._arc_to = np.concatenate([head, tail]).astype(np.int64)
            self._arc_cell = np.concatenate([np.arange(nf), np.arange(nf)])
        self._bridge = None
        self._lps: dict[tuple[bool, bool, bool], Resolver] = {}
        self._kernel = None  # a sparse kernel basis, False where the relations' LP is used
        self._capped_search = False  # set by separate(capped_search=True) for its call
        self._capped = bool(np.isfinite(inst.room_cap).any())
        self.num_lp_solves = 0
        self.num_flow_solves = 0

    # -- the attacker problems -------------------------------------------------------------
    def _lp_side(self, k: int, upward: bool, y: np.ndarray, *, capped: bool = False) -> _Side:
        """The attacker LP of protected cell ``k`` at ``y`` (``upward``: its largest increase).

        ``capped=True`` (separation on tables that are not networks) bounds every move by the
        requirement, ``|x_i| <= r_k y_i``, as minimum cuts do on networks. Without the cap, a
        cell at ``y_i = 0.001`` under a-priori bounds of 1e6 still gives the attacker 1,000,
        so the LP meets the requirement through thinly suppressed cells and finds no cut
        where the capped cuts are violated (CSPLIB hier13: the loop crept for 300 s without
        converging for one sensitive cell). The capped LP is only a search: its solution is
        a move within the true rooms (a proof where it meets the requirement), and its dual
        ``q`` gives the cut with the true rooms, valid for every ``q``; the caller asks the
        LP without the cap once the search finds no cut at all. With the cap the loop
        converges for that cell in 32 s, to the cost of the pattern the branch-and-cut finds
        (1,004,056).

        The move of cell ``k`` itself is bounded by its requirement: the LP stops once it is
        met, which is all a verdict or a cut needs. Each direction, capped or not, has a
        model of its own, warm-started from the last LP of that kind (an LP warm-started
        from the opposite objective is far from optimal), and the capped search runs primal
        simplex. CSPLIB hier13, 60 s of the capped loop: 1,622 LPs and a bound of 3.68
        million, against 345 and 3.20 million with one dual-simplex model; at points halfway
        to "suppress everything" dual simplex took 560 ms an LP, primal 40 ms.
        """
        inst = self.inst
        p = int(self.position[k])
        # deviations in units of the cell's largest requirement, as in the compact model: with
        # raw values of 1e6 and more HiGHS ended in "unknown" (fuzz tables scaled up)
        unit = inst.requirement_unit[k]
        down_room, up_room = inst.rooms(k)  # capped as the flows' are, on networks
        down_search, up_search = ((np.minimum(down_room, unit), np.minimum(up_room, unit))
                                  if capped else (down_room, up_room))
        up, down = up_search * y / unit, down_search * y / unit
        if upward:
            up[p] = min(up[p], 1.0)
        else:
            down[p] = min(down[p], 1.0)
        c = np.zeros(self.num_free)
        c[p] = 1.0 if upward else -1.0
        kernel = self._kernel_form() and np.mean(y > 0) >= _KERNEL_FROM
        solve = self._kernel_lp if kernel else self._relations_lp
        lp = self._lp_model(upward, capped, kernel)
        h = lp.h
        try:
            x, q = solve(lp, c, down, up, y, (down_search, up_search))
        except SolverError:
            raise SolverError(f"attacker LP of {inst.table.describe(inst.protected[k])} "
                              f"ended with status {h.modelStatusToString(h.getModelStatus())}"
                              ) from None
        # c x = q x for every completion x: (1 - c_p q_p) c_p x_p = sum_{i != p} q_i x_i, so
        # c x <= sum_{i != p} g_i y_i / (1 - c_p q_p) with the true rooms in g
        rising, falling = np.maximum(q, 0.0), np.maximum(-q, 0.0)
        capacity = rising * up_room + falling * down_room
        capacity[p] = 0.0
        spare = 1.0 - c[p] * q[p]
        capacity = capacity / spare if spare > 1e-9 else np.full(self.num_free, np.inf)
        moved = np.abs(x) > 1e-9
        room = np.where(x > 0, up_search, down_search)
        level = _levels(moved, np.abs(x) * unit, room)
        self._share(k, x * unit, level)
        return _Side(float(c @ x) * unit, _given(level), _given(capacity))

    def _kernel_form(self) -> bool:
        """Whether the attacker LPs run in the coordinates of a sparse kernel basis
        (:func:`~cspopt.table.kernel.kernel_basis`): where it has fewer columns than the
        relations have rows."""
        if self._kernel is None:
            basis = kernel_basis(self.inst.relations)
            self._kernel = (basis if basis is not None
                            and basis.shape[1] < self.inst.relations.shape[0] else False)
        return self._kernel is not False

    def _lp_model(self, upward: bool, capped: bool, kernel: bool) -> Resolver:
        """The HiGHS model of one direction's attacker LPs, capped or not, in the kernel's
        coordinates or not, with its re-solves (warm-started from the last LP of that kind:
        from the opposite objective it is far from optimal)."""
        key = (upward, capped, kernel)
        if key not in self._lps:
            nf = self.num_free
            if kernel:
                basis = self._kernel
                matrix = sp.hstack([basis.T, -basis.T])
                d = basis.shape[1]
                h = new_highs(matrix, np.zeros(2 * nf), np.zeros(2 * nf), np.full(2 * nf, np.inf),
                              np.zeros(d), np.zeros(d), presolve=False, what="attacker LP")
            else:
                m = self.inst.relations.shape[0]
                h = new_highs(self.inst.relations, np.zeros(nf), np.zeros(nf), np.zeros(nf),
                              np.zeros(m), np.zeros(m), presolve=False, what="attacker LP")
                if capped:
                    h.setOptionValue("simplex_strategy", 4)  # primal
            self._lps[key] = Resolver(h)
        return self._lps[key]

    def _run(self, lp: Resolver) -> None:
        """Solve ``lp`` warm, cold where that fails or crawls (:class:`~cspopt.backends.
        highs.Resolver`); SolverError unless optimal."""
        self.num_lp_solves += 1
        if lp.run() != highspy.HighsModelStatus.kOptimal:
            raise SolverError("attacker LP")

    def _relations_lp(self, lp, c, down, up, y, search) -> tuple[np.ndarray, np.ndarray]:
        """``max c x, A x = 0, -down <= x <= up`` over the free cells: its point and the
        ``q = c + sigma A^T pi`` of its duals that bounds it best at ``y`` with the search
        rooms (HiGHS's dual sign convention aside, both signs give valid capacities)."""
        h = lp.h
        p = int(np.flatnonzero(c)[0])
        h.changeColsBounds(self.num_free, np.arange(self.num_free, dtype=np.int32), -down, up)
        h.changeColCost(p, -c[p])  # minimise -c x
        try:
            self._run(lp)
            solution = h.getSolution()
            x = np.asarray(solution.col_value)
            at_pi = self.inst.relations_by_cell @ np.asarray(solution.row_dual)
        finally:
            h.changeColCost(p, 0.0)
        down_search, up_search = search
        return x, min((c + at_pi, c - at_pi), key=lambda q: (
            np.maximum(q, 0.0) * up_search + np.maximum(-q, 0.0) * down_search) @ y)

    def _kernel_lp(self, lp, c, down, up, y, search) -> tuple[np.ndarray, np.ndarray]:
        """The same LP's dual in the kernel's coordinates ``x = N z``: ``min up w+ + down w-``
        s.t. ``N^T (w+ - w-) = N^T c``, so ``q = w+ - w-`` directly; its row duals are ``z``.
        A row per kernel dimension: CSPLIB hier13's attacker LP at points halfway to
        "suppress everything", true rooms, took 6 ms against 300 ms."""
        h, kernel = lp.h, self._kernel
        nf = self.num_free
        rhs = kernel.T @ c
        h.changeColsCost(2 * nf, np.arange(2 * nf, dtype=np.int32), np.concatenate([up, down]))
        h.changeRowsBounds(rhs.size, np.arange(rhs.size, dtype=np.int32), rhs, rhs)
        self._run(lp)
        solution = h.getSolution()
        w = np.asarray(solution.col_value)
        x = kernel @ np.asarray(solution.row_dual)
        if c @ x < 0:  # HiGHS's dual sign convention
            x = -x
        return x, w[:nf] - w[nf:]

    def _share(self, k: int, x: np.ndarray, level: np.ndarray) -> None:
        """Remember the attacker solution ``x`` (per free cell) for cell ``k``, which needs
        ``level``, as a proof for every other protected cell it moves by that cell's own
        requirement. Where rooms are capped (networks, :meth:`IntervalInstance.rooms`) the
        levels are each cell's own, and a solution that moves a cell further than its caps
        allow proves nothing for it at fractional points (shared anyway, it sent the in-out
        loop of a hierarchical 6x4 table round forever at a core point it refuted)."""
        moves = x[self.position]
        cells = np.flatnonzero(level)
        amount, rising = np.abs(x[cells]), x[cells] > 0
        for side, sign in (("upper", 1.0), ("lower", -1.0)):
            receivers = np.flatnonzero(sign * moves >= self._side_need[side])
            receivers = receivers[receivers != k]
            if not receivers.size:
                continue
            if self._capped:  # rows: receivers; the moves each one's rooms hold
                down, up = self.inst.rooms(receivers, cells)
                room = np.where(rising, up, down)
                held = ~np.any(amount > room * (1 + _LEVEL_SLACK), axis=1)
                receivers, room = receivers[held], room[held]
                own = _levels(True, amount, room)
            else:  # every cell's rooms are the same
                own = np.broadcast_to(level[cells], (receivers.size, cells.size))
            attained = sign * moves[receivers]
            for q, levels, move in zip(receivers.tolist(), own, attained.tolist()):
                self._proofs[q].add(side, cells, levels, move)

    def _flow_sides(self, jobs: list[tuple[int, str]], y: np.ndarray,
                    support: _Support | None = None) -> dict[int, dict[str, _Side]]:
        """The attacker's answers for the sides ``jobs`` (protected cell, ``"upper"`` or
        ``"lower"``) by maximum flows that return the
        change of ``p``: from its head to its tail when it rises (``"upper"``), from tail to
        head when it falls (``"lower"``). The flows run on the arcs of cells with ``y_i > 0``
        only (others have no capacity; at LP and 0/1 points they are most cells), all in one
        call on disjoint copies of that network (:class:`_FlowBatch`), as scipy's work per
        call grows with the graph, not with the flow. The minimum cut (a residual search) is
        computed only when a requirement asks for its capacity vector. ``support``: that
        network for this ``y``, if the caller has built it."""
        found: dict[int, dict[str, _Side]] = {k: {} for k, _ in jobs}
        if not jobs:
            return found
        support = self._support(y) if support is None else support
        step = max(1, min(_BATCH_ENTRIES // support.width,
                          _DENSE_ENTRIES // (2 * self.num_free)))
        for first in range(0, len(jobs), step):
            self._solve_flows(jobs[first:first + step], y, support, found)
        return found

    def _support(self, y: np.ndarray) -> _Support:
        return _Support(self.network.num_nodes, self._arc_from, self._arc_to, y > 0)

    def _solve_flows(self, jobs: list[tuple[int, str]], y: np.ndarray, support: _Support,
                     found: dict) -> None:
        net, arcs = self.network, support.arcs
        ks = np.array([k for k, _ in jobs])
        # a flow carries at most the largest requirement; an integer scale keeps integer
        # rooms and levels exact (2/3 of a unit lost to rounding sent 28 cells of a 300x300
        # class I table to the attacker LP)
        scale = _FLOW_UNITS / self.inst.requirement_unit[ks]
        scale = np.where(scale >= 1.0, np.floor(scale), scale)
        # integer capacities of the support's arcs (rounded down); p's own arcs carry nothing
        arc_cell = self._arc_cell[arcs]
        down, up = self.inst.rooms(ks, arc_cell)
        units = np.floor(np.where(arcs < self.num_free, up, down) * y[arc_cell][None, :]
                         * scale[:, None] + _ROUNDING_SLACK)
        p = self.position[ks]
        units[arc_cell[None, :] == p[:, None]] = 0.0
        entry_units = support.sum_parallel(units)
        cells = self.inst.protected[ks]
        upper = np.array([side == "upper" for _, side in jobs])
        source = np.where(upper, net.head[cells], net.tail[cells])
        sink = np.where(upper, net.tail[cells], net.head[cells])
        entry_flow, value = _FlowBatch(support, len(jobs)).solve(entry_units, source, sink)
        self.num_flow_solves += len(jobs)
        # the two extreme minimum cuts' sides (reached from the source, reaching the sink),
        # found for every copy at once when the first cut is asked for (only refuted
        # requirements ask)
        source_sides = functools.cache(lambda: support.reach(entry_units - entry_flow > 0,
                                                             source))
        sink_sides = functools.cache(lambda: support.reach(entry_units - entry_flow > 0,
                                                           sink, backward=True))
        for j, (k, side) in enumerate(jobs):
            # k's rooms over all free cells, computed once for both lazy answers
            rooms = functools.cache(functools.partial(self.inst.rooms, k))
            level_of = functools.partial(self._flow_level, support, entry_flow[j], units[j],
                                         entry_units[j], rooms, scale[j])
            shrink_p, grow_p = self.inst.rooms(k, p[j])
            own = float(grow_p[0] if side == "upper" else shrink_p[0])
            attained = value[j] / scale[j]
            if own < attained:
                # p's own bound stops it first (a sliding requirement can exceed one side's
                # room): the change is exactly that room, a constant since p is suppressed
                g = np.zeros(self.num_free)
                g[p[j]] = own
                found[k][side] = _Side(own, level_of, _given(g), 0.0)
            else:
                found[k][side] = _Side(attained, level_of, functools.partial(
                    self._cut_capacity, source_sides, sink_sides, j, int(source[j]),
                    int(sink[j]), rooms, int(p[j])), arcs.size / scale[j])

    def _flow_level(self, support: _Support, entry_flow, units, entry_units,
                    rooms: Callable[[], tuple[np.ndarray, np.ndarray]],
                    scale: float) -> np.ndarray:
        """The levels (:func:`_levels`) a maximum flow needs: parallel arcs share their
        entry's flow in proportion to their capacity."""
        on_entry = np.maximum(entry_flow, 0)[support.entry_of_arc]
        arc_flow = np.zeros(2 * self.num_free)
        arc_flow[support.arcs] = np.divide(on_entry * units,
                                           entry_units[support.entry_of_arc],
                                           out=np.zeros_like(units), where=on_entry > 0)
        nf = self.num_free
        moved = np.maximum(arc_flow[:nf], arc_flow[nf:]) / scale
        shrink, grow = rooms()
        return _levels(moved > 0, moved, np.where(arc_flow[:nf] > 0, grow, shrink))

    def _cut_capacity(self, source_sides: Callable[[], np.ndarray],
                      sink_sides: Callable[[], np.ndarray], j: int, source: int, sink: int,
                      rooms: Callable[[], tuple[np.ndarray, np.ndarray]],
                      p: int) -> np.ndarray:
        """The capacity vector of a minimum cut of copy ``j``'s maximum flow: the (capped)
        rooms of all arcs (of any ``y``) leaving its source side, ``p`` excluded. Of the two
        extreme minimum cuts, what the residual graph reaches from the source and what
        cannot reach the sink, the one with fewer cells: a sparser row, cheaper for SCIP and
        stronger (GenSup I 50x50 seed 2: 847 cells a cut -> 357, 108 nodes -> 74).
        Any set holding the source and not the sink gives a valid cut. ``rooms``: the
        protected cell's (:meth:`IntervalInstance.rooms`)."""
        shrink, grow = rooms()
        full = np.concatenate([grow, shrink])
        g = self._leaving(source_sides()[j], full, p)
        other_side = ~sink_sides()[j]
        if other_side[source] and not other_side[sink]:
            other = self._leaving(other_side, full, p)
            if np.count_nonzero(other) < np.count_nonzero(g):
                return other
        return g

    def _leaving(self, side: np.ndarray, full: np.ndarray, p: int) -> np.ndarray:
        """Per free cell, the capped rooms of its arcs leaving the node set ``side``, ``p``
        excluded."""
        leaving = side[self._arc_from] & ~side[self._arc_to]
        g = np.bincount(self._arc_cell[leaving], weights=full[leaving], minlength=self.num_free)
        g[p] = 0.0
        return g

    def _sides(self, k: int, names, y: np.ndarray, *, exact: bool) -> dict[str, _Side]:
        """The attacker's answers for protected cell ``k``: minimum cuts on networks, else
        the LP (with moves capped at the requirement in a capped search, :meth:`_lp_side`);
        ``exact``: the LP with the true rooms."""
        if exact or self.network is None:
            capped = not exact and self._capped_search
            return {side: self._lp_side(k, side == "upper", y, capped=capped) for side in names}
        return self._flow_sides([(k, side) for side in names], y)[k]

    # -- separation ------------------------------------------------------------------------
    def separate(self, y_candidates: np.ndarray, *, decide: bool = False,
                 stop_after: int | None = None, min_violation: float = 1e-6,
                 capped_search: bool = False, deadline: float | None = None
                 ) -> tuple[bool, list[CapacityCut]]:
        """Capacity cuts violated by ``y`` (values on :attr:`IntervalInstance.candidates`).

        Returns ``(protected, cuts)``. ``protected`` is proven by attacker values (flows or LP
        primal values) meeting every requirement within half the audit's tolerance. With
        ``decide=True`` (integral ``y``) a requirement that the flow bounds leave open is
        settled by the LP, and every cut with a positive violation is returned.
        ``stop_after=n`` stops once ``n`` protected cells are found exposed (``1``: a
        feasibility check); cells found exposed are tried first next time.
        ``capped_search=True`` (fractional points, tables that are not networks) looks for
        cuts with the attacker LPs' moves capped at the requirement only (:meth:`_lp_side`;
        what it leaves open counts as exposed, without a cut: the caller asks the exact LPs
        once it finds nothing, as they mostly proved protection, at 280 ms an LP): the root
        loop of :func:`~cspopt.bounds.capacity.capacity_lp`
        converges where it crept (CSPLIB hier13, one sensitive cell); in the branch-and-cut
        it gave better bounds but dearer patterns (hier13x7x7d at 300 s: 10,279 and 10,689
        against 10,044), so the bound oracle uses it, the branch-and-cut only before its tree:
        after a root loop that stopped unconverged, and in its bridgeless phase
        (:func:`~cspopt.solving.solve_branch_and_cut`). At ``deadline`` (a
        :func:`time.perf_counter` value; fractional points) the round stops with the cuts
        found so far, and ``protected`` is False.
        """
        y = self._full(y_candidates)
        if decide:
            min_violation = _DECIDING_VIOLATION
        cuts: list[CapacityCut] = []
        self._capped_search = capped_search and not decide and self.strengthen
        try:
            exposed = self._judge_in_order(y, decide, cuts, min_violation, stop_after,
                                           deadline)
        finally:
            self._capped_search = False
        cut_short = deadline is not None and time.perf_counter() > deadline
        return not exposed and not cut_short, cuts

    def protects(self, y_candidates: np.ndarray, deadline: float | None = None) -> bool:
        """Exact verdict at a 0/1 point: ``separate(y, decide=True, stop_after=1)`` without
        its cuts. A requirement that a flow misses by more than the flow's rounding can
        explain is refuted without its minimum cut; only near misses ask for the cut (or the
        LP), as in :meth:`separate`. Past ``deadline`` (a :func:`time.perf_counter` value)
        the check stops undecided and answers False: not proven (a check of a pattern that
        suppresses nearly everything costs two attacker LPs a sensitive cell, 38 s on an
        11,025-cell 3-D table)."""
        exposed = self._judge_in_order(self._full(y_candidates), True, None,
                                       _DECIDING_VIOLATION, 1, deadline)
        return not exposed and not (deadline is not None and time.perf_counter() > deadline)

    def protected_cells(self, y_candidates: np.ndarray) -> np.ndarray:
        """Exact verdict per protected cell at a 0/1 point (boolean array), without cuts."""
        verdict = np.ones(self.inst.protected.size, dtype=bool)
        verdict[self._judge_all(list(self._rows_of_cell), self._full(y_candidates), True, None,
                                _DECIDING_VIOLATION)] = False
        return verdict

    def _judge_in_order(self, y: np.ndarray, decide: bool, cuts: list | None,
                        min_violation: float, stop_after: int | None,
                        deadline: float | None = None) -> list[int]:
        """:meth:`_judge_all` over every protected cell (``decide``) or the focus cells, the
        cells found exposed before first; the cells this call finds exposed move to the
        front."""
        exposed = self._judge_all([k for k in self._order if decide or self._focus[k]], y,
                                  decide, cuts, min_violation, stop_after, deadline)
        for k in exposed:
            self._order.remove(k)
            self._order.insert(0, k)
        return exposed

    def _judge_all(self, ks: list[int], y: np.ndarray, decide: bool, cuts: list | None,
                   min_violation: float, stop_after: int | None = None,
                   deadline: float | None = None) -> list[int]:
        """Judge protected cells ``ks`` in order (:meth:`_judge`); return those found
        exposed, stopping at ``stop_after`` of them (``cuts`` None: a verdict only). On
        network tables the flows of the cells no remembered proof settles are solved
        together: all at once, or, for a check that stops early, in batches doubling from two
        (on one support network)."""
        exposed: list[int] = []
        support = None
        size = len(ks) if stop_after is None else 2
        # the answers of a batch hold its dense capacities (two sides a cell): batches stay
        # within _DENSE_ENTRIES so that a large table's check fits in memory
        widest = max(1, _DENSE_ENTRIES // (4 * self.num_free))
        size = min(size, widest)
        first = 0
        while first < len(ks):
            batch, first, size = ks[first:first + size], first + size, min(2 * size, widest)
            flows = None
            if self.network is not None:
                jobs = [(k, side) for k in batch for side in self._unproven_sides(k, y)]
                if jobs and support is None:
                    support = self._support(y)
                flows = self._flow_sides(jobs, y, support)
            for k in batch:
                if deadline is not None and time.perf_counter() > deadline:
                    return exposed
                if flows is not None and k not in flows:
                    continue  # remembered proofs meet every requirement
                if not self._judge(k, y, decide, cuts, min_violation,
                                   None if flows is None else flows[k]):
                    exposed.append(k)
                    if len(exposed) == stop_after:
                        return exposed
        return exposed

    def _full(self, y_candidates: np.ndarray) -> np.ndarray:
        """``y`` on the free cells: candidates' values (LP noise clipped to [0, 1]), 1 on
        sensitive cells. A value below 0 would make the attacker LP infeasible."""
        y = np.ones(self.num_free)
        y[self.is_candidate] = np.clip(y_candidates, 0.0, 1.0)
        return y

    def _unproven_sides(self, k: int, y: np.ndarray) -> list[str]:
        """The sides of protected cell ``k`` to solve at ``y``: none where remembered proofs
        meet every requirement, else those without a proof that applies (both for a sliding
        requirement, which needs them at once)."""
        names = self._side_names[k]
        known = self._proofs[k].best(y)
        if len(known) == len(names) and not self._unmet(self._rows_of_cell[k], known):
            return []
        return list(names) if k in self._sliding else [s for s in names if s not in known]

    def _unmet(self, rows: list[int], attained: dict[str, float]) -> list[int]:
        """The requirements among ``rows`` that the sides' ``attained`` moves do not meet."""
        return [r for r in rows if sum(
            attained[s] for s in _SIDES_OF[self.requirements[r][1]]) < (
            self.requirements[r][2] - self.tolerance[r])]

    def _judge(self, k: int, y: np.ndarray, decide: bool, cuts: list | None,
               min_violation: float, sides: dict[str, _Side] | None = None) -> bool:
        """Are all requirements of protected cell ``k`` met at ``y``? Appends the cuts of
        those refuted (``cuts`` None: a verdict only). ``sides``: the attacker's answers at
        ``y`` for the sides remembered proofs leave open, if already computed."""
        if sides is None:
            names = self._unproven_sides(k, y)
            if not names:
                return True
            sides = self._sides(k, names, y, exact=False)
        # the requirements of the sides solved (the others' proofs meet theirs)
        rows = [r for r in self._rows_of_cell[k]
                if all(s in sides for s in _SIDES_OF[self.requirements[r][1]])]
        left, refuted = self._check(k, rows, sides, y, cuts, min_violation)
        # what the flows leave open at 0/1 points, the exact LP settles (what the capped
        # search leaves open stays open: its caller asks the exact LPs once it finds nothing)
        if left and decide and self.network is not None:
            sides = self._sides(k, list(sides), y, exact=True)
            left, more = self._check(k, left, sides, y, cuts, min_violation)
            refuted += more
        proven = not left and not refuted
        for side, answer in sides.items():
            if proven or (k not in self._sliding
                          and answer.attained >= self._side_need[side][k]):
                cells = np.flatnonzero(answer.level)
                self._proofs[k].add(side, cells, answer.level[cells], answer.attained)
        return proven

    def _proof_mask(self, k: int) -> np.ndarray:
        """Cells moved by the proofs that last settled protected cell ``k``."""
        mask = np.zeros(self.num_free, dtype=bool)
        for cells in self._proofs[k].last_cells.values():
            mask[cells] = True
        return mask

    @property
    def has_bridgeless(self) -> bool:
        """Whether :meth:`bridgeless_cuts` applies: attacker LPs (not minimum cuts, where they
        did not pay: docs/bench/history.md) under capped capacity cuts (binary ``y``)."""
        return self.network is None and self.strengthen

    def relation_cuts(self) -> list[CapacityCut]:
        """The capacity cut of every requirement through each relation of its cell, capped
        (tau-ARGUS' first constraint pool, ``init_constraint_pool`` in ``Cspmain.c``).

        Moving sensitive cell ``p`` by ``d`` moves the other cells of each relation ``r``
        through it by ``-a_rp d`` in all: each can give at most its room in the direction
        that balances ``r``, so ``sum_{i in r, i != p} room_i y_i >= d`` (the duals ``e_r``),
        capped at the right-hand side. Attacker LPs at a fractional point find a violated
        cut only where the attacker cannot meet a requirement with rooms ``room_i y_i``: with
        a-priori bounds of 1e6 (the CSPLIB tables) a cell at ``y_i = 0.001`` still gives it
        1,000, where the capped cut counts 0.001 of the requirement. So these rows, in the
        first master, lift the root bound where separation alone does not (CSPLIB
        hier13x7x7d: capacity root 8,445 -> 8,500-8,640, with bridgeless cuts 8,724 -> 8,915;
        tau-ARGUS' root 8,879). On networks minimum cuts cap rooms already: none there.
        """
        if self.network is not None or not self.strengthen:  # plain Benders stays plain
            return []
        inst = self.inst
        relations = inst.relations.tocsr()
        through = relations.tocsc()
        everywhere = np.ones(self.num_free)
        cuts: list[CapacityCut] = []
        for k, kind, rhs in self.requirements:
            if kind == "sliding":
                continue
            p, sign = int(self.position[k]), 1.0 if kind == "upper" else -1.0
            up_room = inst.up_room[k]  # built per index: once per requirement
            for row in through.indices[through.indptr[p]:through.indptr[p + 1]].tolist():
                lo, hi = relations.indptr[row], relations.indptr[row + 1]
                cells, coef = relations.indices[lo:hi], relations.data[lo:hi]
                move = -sign * coef / coef[cells == p][0]  # the others' per unit of p's
                move[cells == p] = 0.0
                capacity = np.zeros(self.num_free)
                capacity[cells] = (np.maximum(move, 0.0) * up_room[cells]
                                   + np.maximum(-move, 0.0) * inst.down_room[cells])
                cut = self._cut(int(inst.protected[k]), kind, rhs, capacity, everywhere)
                if cut is not None and cut.candidates.size:
                    cuts.append(cut)
        return cuts

    def relation_bridgeless_cuts(self) -> list[CapacityCut]:
        """The bridgeless cut of every candidate through each relation of it:
        ``y_i <= sum_{j in r, j != i} y_j`` (:meth:`bridgeless_cuts` with the blocking set
        read off one relation instead of an LP), for the first master.

        With the other cells of ``r`` published, ``r`` computes ``i``; some optimal pattern
        suppresses no computable cell, so these cuts are valid for the bound, not for every
        pattern (:meth:`~cspopt.models.interval.IntervalInstance.minimal` drops what they
        cut off). Relations through a sensitive cell (``y = 1``) give none, nor does a cell
        whose deviation class has another member in ``r`` (their moves may cancel there).
        They lift the LP where a fractional ``y`` suppresses a cell of a relation whose
        other cells it barely uses: CSPLIB hier13's root after 120 s, 1.19 -> 3.08 million;
        hier13x7x7d's root, with the separated bridgeless cuts after it, converges in 6 s
        instead of 85 s (8,909 against 8,920). Tables that are not networks, as
        :meth:`bridgeless_cuts`.
        """
        if not self.has_bridgeless:
            return []
        inst = self.inst
        relations = inst.relations.tocsr()
        candidate_of = np.cumsum(self.is_candidate) - 1
        cls = inst.deviation_class
        cuts: list[CapacityCut] = []
        seen: set[tuple[int, ...]] = set()  # relations with the same cells give the same cuts
        coefficients: dict[int, np.ndarray] = {}
        for row in range(relations.shape[0]):
            cells = relations.indices[relations.indptr[row]:relations.indptr[row + 1]]
            if not self.is_candidate[cells].all():
                continue
            cells = cells[cls[cells] >= 0]  # never deviating: y = 0
            key = tuple(sorted(cells.tolist()))
            if len(cells) < 2 or key in seen:
                continue
            seen.add(key)
            n = len(cells)
            # row k: the other cells, then cell k (its own class alone in r, else no cut)
            rows = np.empty((n, n), dtype=np.int64)
            rows[:, :-1] = np.broadcast_to(candidate_of[cells], (n, n))[
                ~np.eye(n, dtype=bool)].reshape(n, n - 1)
            rows[:, -1] = candidate_of[cells]
            alone = (cls[cells][:, None] == cls[cells][None, :]).sum(axis=1) == 1
            if n not in coefficients:
                coefficients[n] = np.r_[np.ones(n - 1), -1.0]
            cuts += [CapacityCut(int(inst.free[cells[k]]), "bridgeless", rows[k],
                                 coefficients[n], 0.0, rhs=0.0)
                     for k in np.flatnonzero(alone).tolist()]
        return cuts

    def bridgeless_cuts(self, y_candidates: np.ndarray, *, limit: int = 50,
                        min_violation: float = 1e-6) -> list[CapacityCut]:
        """Bridgeless cuts violated by ``y`` (Fischetti & Salazar-Gonzalez 1999; tau-ARGUS'
        ``Cspbridg.c``), at most ``limit``.

        A suppressed cell that no attacker solution moves is computable: publishing it
        changes no cell's range and saves its cost. So some optimal pattern keeps every
        suppressed candidate ``i`` movable, and then suppresses a cell of every set ``S``
        that blocks all of ``i``'s moves: ``y_i <= sum_{j in S} y_j``. ``S`` is read from
        the reduced costs of the LPs ``max`` and ``min x_i`` subject to ``A x = 0`` and
        ``|x_j| <= y_j`` (directions without room closed), ``x_i`` free, and a cut is kept
        only when, with ``S`` published and every other free cell suppressed, ``i`` indeed
        cannot move: the reduced costs' float noise cannot make it invalid. These cuts are
        valid for the bound, not for every pattern: they cut off patterns that keep a
        computable secondary. Attacker LPs on tables that are not networks.
        """
        inst = self.inst
        if self._bridge is None:
            m = inst.relations.shape[0]
            self._bridge = new_highs(inst.relations, np.zeros(self.num_free),
                                     np.zeros(self.num_free), np.zeros(self.num_free),
                                     np.zeros(m), np.zeros(m), presolve=False,
                                     what="bridgeless LP")
            self._can_fall = inst.down_room > 0
            self._can_rise = inst.up_room.room > 0
        y = self._full(y_candidates)
        candidate_of = np.cumsum(self.is_candidate) - 1
        free_of = np.flatnonzero(self.is_candidate)
        found = []  # (i, blocking set, violation): candidates for a cut, checked below
        # a cell that the two LP solutions of an earlier cell move by its whole room sleeps
        # for the round (tau-ARGUS' rule): its moves are rarely blocked by a cheap set
        sleeping = np.zeros(self.num_free, dtype=bool)
        self._set_rooms(y)
        for j in np.argsort(-y_candidates, kind="stable").tolist():
            if y_candidates[j] <= min_violation or len(found) == limit:
                break
            i = int(free_of[j])
            if sleeping[i]:
                continue
            blocking, moves = self._blocking(i, y, read=True)
            if len(moves) == 2:
                sleeping |= (np.abs(moves[0] - moves[1]) >= y - min_violation) & (
                    y > min_violation)
            if blocking is None or not self.is_candidate[blocking].all():
                continue  # i moves without bound, or a sensitive cell (y = 1) blocks it
            activity = float(y[blocking].sum())
            if activity < y[i] - min_violation:
                found.append((i, blocking, y[i] - activity))
        cuts: list[CapacityCut] = []
        for i, blocking, violation in found:
            level = np.ones(self.num_free)
            level[blocking] = 0.0
            self._set_rooms(level)
            if self._blocking(i, level, read=False)[0] is not None:  # i cannot move
                cuts.append(CapacityCut(int(inst.free[i]), "bridgeless",
                                        np.r_[candidate_of[blocking], candidate_of[i]],
                                        np.r_[np.ones(blocking.size), -1.0], violation,
                                        rhs=0.0))
        return cuts

    def _set_rooms(self, level: np.ndarray) -> None:
        """The bridgeless LP's bounds: ``|x_j| <= level_j``, directions without room closed."""
        nf = self.num_free
        self._bridge.changeColsBounds(nf, np.arange(nf, dtype=np.int32),
                                      np.where(self._can_fall, -level, 0.0),
                                      np.where(self._can_rise, level, 0.0))

    def _blocking(self, i: int, level: np.ndarray, *, read: bool
                  ) -> tuple[np.ndarray | None, list[np.ndarray]]:
        """Free cell ``i`` freed of its own bound in the bridgeless LP (rooms as set): with
        ``read``, the free cells with a nonzero reduced cost in the LPs moving ``i`` up and
        down, a set every move of ``i`` crosses; without, an empty array if ``i`` cannot
        move. None: no such set (``i`` unbounded, or it moves). Also the LPs' solutions."""
        h = self._bridge
        h.changeColBounds(i, -highspy.kHighsInf if self._can_fall[i] else 0.0,
                          highspy.kHighsInf if self._can_rise[i] else 0.0)
        blocking = np.zeros(self.num_free, dtype=bool)
        moves: list[np.ndarray] = []
        try:
            for sign, allowed in ((-1.0, self._can_rise[i]), (1.0, self._can_fall[i])):
                if not allowed:
                    continue
                h.changeColCost(i, sign)  # min -x_i (rise), then min x_i (fall)
                h.run()
                self.num_lp_solves += 1
                if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                    return None, moves
                if not read:
                    if -sign * h.getInfo().objective_function_value > 1e-9:
                        return None, moves  # i moves
                    continue
                solution = h.getSolution()
                blocking |= np.abs(np.asarray(solution.col_dual)) > 1e-9
                moves.append(np.asarray(solution.col_value))
        finally:
            h.changeColCost(i, 0.0)
            h.changeColBounds(i, -level[i] if self._can_fall[i] else 0.0,
                              level[i] if self._can_rise[i] else 0.0)
        blocking[i] = False
        return np.flatnonzero(blocking), moves

    def prune(self, y_candidates: np.ndarray, order: np.ndarray,
              deadline: float | None = None) -> np.ndarray:
        """Delete-and-check (seed 000 §5): drop the candidates in ``order`` whose removal
        keeps every cell protected. ``y_candidates`` must protect (if the check of that
        does not end by ``deadline``, it is returned as it is). A removal re-judges only
        the protected cells whose proving flow (or LP point) moved the removed cell. The
        result is :meth:`~cspopt.models.interval.IntervalInstance.minimal`: a deadline, or a class
        member dropped before the others, can leave suppressions no completion moves."""
        if not self.protects(y_candidates, deadline):
            if deadline is not None and time.perf_counter() > deadline:
                return np.asarray(y_candidates, dtype=float)  # no time to prove, nor to prune
            raise InputError("prune needs a protecting pattern")
        y = self._full(y_candidates)
        used = {k: self._proof_mask(k) for k in self._rows_of_cell}
        free_of = np.flatnonzero(self.is_candidate)
        for j in order.tolist():
            cell = free_of[j]
            if y[cell] < 0.5:
                continue
            if deadline is not None and time.perf_counter() > deadline:
                break
            y[cell] = 0.0
            affected = [k for k, mask in used.items() if mask[cell]]
            if self._judge_all(affected, y, True, None, _DECIDING_VIOLATION, 1):
                y[cell] = 1.0
            else:
                used.update({k: self._proof_mask(k) for k in affected})
        return self.inst.minimal(y[self.is_candidate])

    def _check(self, k, rows, sides, y, cuts, min_violation) -> tuple[list[int], int]:
        """Append the cuts of requirements ``rows`` of protected cell ``k`` that ``sides``
        refute; return the rows neither proven nor refuted, and how many were refuted.
        ``cuts`` None (a verdict only): a requirement missed by more than the sides' slack
        is refuted without a cut."""
        cell = int(self.inst.protected[k])
        left, refuted = [], 0
        for r in rows:
            _, kind, rhs = self.requirements[r]
            parts = [sides[s] for s in _SIDES_OF[kind]]
            if sum(s.attained for s in parts) >= rhs - self.tolerance[r]:
                continue
            if cuts is None and sum(s.attained + s.slack for s in parts) < (
                    rhs - self.tolerance[r]):
                refuted += 1
                continue
            cut = self._cut(cell, kind, rhs, sum(s.capacity for s in parts), y)
            if cut is not None and cut.violation > min_violation:
                if cuts is not None:
                    cuts.append(cut)
                refuted += 1
            else:
                left.append(r)
        return left, refuted

    def _cut(self, cell: int, kind: str, rhs: float, capacity: np.ndarray,
             y: np.ndarray) -> CapacityCut | None:
        """Move fixed cells to the right-hand side, cap, normalise; None if always met."""
        rest = rhs - float(capacity[~self.is_candidate].sum())
        if rest <= 0:
            return None
        coef = capacity[self.is_candidate] / rest
        if self.strengthen:  # binary y: one cell whose capacity covers the need suffices
            coef = np.minimum(coef, 1.0)
        support = np.flatnonzero(coef > 1e-12)
        coef = coef[support]
        violation = 1.0 - float(coef @ y[self.is_candidate][support])
        return CapacityCut(cell, kind, support, coef, violation)


def cut_rows(cuts: list[CapacityCut], num_columns: int) -> sp.csr_matrix:
    """The cuts' left-hand sides as rows of a model whose first columns are the candidates'
    ``y`` (each row ``>= cut.rhs``)."""
    indptr = np.r_[0, np.cumsum([c.candidates.size for c in cuts], dtype=np.int64)]
    index = np.concatenate([c.candidates for c in cuts]) if cuts else np.zeros(0, np.int64)
    value = np.concatenate([c.coefficients for c in cuts]) if cuts else np.zeros(0)
    return sp.csr_matrix((value, index, indptr), shape=(len(cuts), num_columns))


def capacity_master(inst: IntervalInstance, cuts: list[CapacityCut] = ()) -> highspy.Highs:
    """``min w y`` over the candidates' bounds (:meth:`IntervalInstance.candidate_bounds`),
    the deviation-class rows (:meth:`IntervalInstance.link_matrix`, first) and ``cuts``, on
    HiGHS with presolve off, so that it is re-solved warm as :func:`add_cut_rows` adds more
    (Fischetti & Salazar-Gonzalez 2001's master LP)."""
    links = inst.link_matrix()
    y_lower, y_upper = inst.candidate_bounds()
    zeros = np.zeros(links.shape[0])
    master = new_highs(links, inst.weights[inst.candidates], y_lower, y_upper, zeros, zeros,
                       presolve=False, what="capacity master LP")
    add_cut_rows(master, list(cuts))
    return master


def add_cut_rows(highs: highspy.Highs, cuts: list[CapacityCut]) -> None:
    """Append ``cuts`` as rows ``>= cut.rhs`` to a model whose first columns are ``y``."""
    if not cuts:
        return
    rows = cut_rows(cuts, highs.getNumCol())
    highs.addRows(len(cuts), np.array([c.rhs for c in cuts]), np.full(len(cuts), np.inf),
                  rows.nnz, rows.indptr[:-1].astype(np.int32), rows.indices.astype(np.int32),
                  rows.data)


def _given(value):
    """A :class:`_Side` field known at once, as the callable the field expects."""
    return lambda: value


def _levels(moved, amount: np.ndarray, room: np.ndarray) -> np.ndarray:
    """The least ``y_i`` whose room ``room_i y_i`` holds a move of ``amount_i`` (never 0 for a
    cell that moves, at most 1): where ``y`` is at least these levels, the same flow or LP
    point is still an attacker solution, so the protection it proved still holds. Arrays
    broadcast (rows of ``room``: one per protected cell the point is a proof for)."""
    level = np.divide(amount, room, out=np.ones(np.broadcast(amount, room).shape),
                      where=room > 0)
    return np.where(moved, np.clip(level * (1 - _LEVEL_SLACK), 1e-12, 1.0), 0.0)

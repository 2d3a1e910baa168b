"""The Lagrangian relaxation of (P) and (P_N): its value, multipliers and dual ascent.

Relaxing the coupling constraints (10) of (P), or (32)-(33) of (P_N), with multipliers
``lambda^k_c >= 0`` (Almeida & Carvalho 2005 §3.2, §4.2) gives

    z(lambda) = sum_c min(0, xi_c - sum_k lambda^k_c)  +  sum_k SP_k(lambda^k),

where ``SP_k`` is a shortest path from ``j_k`` to ``i_k`` (and, for ``k in K_2``, the shorter
of that and the reverse path ``i_k -> j_k``: problem P_N(alpha, mu)). Arc costs are
``lambda^k_c`` on both arcs of a candidate cell ``c`` and 0 on sensitive cells. Every
``z(lambda)`` is a lower bound. The best one equals the LP bound of (P) (the subproblems have
the integrality property), and for (P_N) it is at least the LP bound of (P_N).

This module evaluates ``z(lambda)`` (:func:`evaluate`), keeps the state of a run
(:class:`LagrangianState`) and what it leaves for the next (:class:`Multipliers`), and raises
a bound by Wong's (1984) dual ascent (:func:`dual_ascent`); :mod:`cspopt.bounds.dual`
maximises it.

Complexity per evaluation: ``|K| + |K_2|`` Dijkstra calls plus ``O(|K| |candidates|)`` array
work.
"""

from __future__ import annotations

import math
import time
import zipfile
from dataclasses import dataclass, field

import numpy as np

from cspopt.bounds.cut_packing import CutPool
from cspopt.errors import InputError
from cspopt.models.exact.paths import PathOracle

__all__ = ["LagrangianState", "Multipliers", "dual_ascent", "tight_multipliers", "end_multipliers",
           "initial_multipliers", "evaluate", "project_capped", "validated_start"]


@dataclass(frozen=True, eq=False)
class Multipliers:
    """What a Lagrangian run leaves for the next one (``SolveResult.multipliers``).

    Attributes
    ----------
    bound : ndarray, shape (protected cells, candidates)
        Capped multipliers whose Lagrangian value is the run's lower bound
        (``evaluate(oracle, bound)`` gives it again): a certificate of the bound.
    steps : ndarray, same shape
        The steps' own best point, where the next run's steps start. It differs from
        ``bound`` when the bound came from the dual ascent, whose saturated points the steps
        hardly leave. On the Table 2-4 design up to 60x40, 100 cold iterations and then 100
        warm-started ones (no stop on a proof) were within 0.5 % of the LP bound on 89 of 90
        tables, as 200 iterations in one call; with the steps started from ``bound``, on 85
        (``cspopt bench lagrangian``, ``volume_warm``; both before the cut packing, with which
        90 of 90).
    """

    bound: np.ndarray
    steps: np.ndarray

    def save(self, path) -> None:
        """Write both arrays to ``path`` as ``.npz`` (:meth:`load` reads it back)."""
        with open(path, "wb") as file:
            np.savez_compressed(file, bound=self.bound, steps=self.steps)

    @classmethod
    def load(cls, path) -> Multipliers:
        """Read what :meth:`save` wrote; anything else is an :class:`InputError`."""
        try:
            with np.load(path, allow_pickle=False) as data:
                return cls(bound=data["bound"], steps=data["steps"])
        except OSError as exc:  # missing or unreadable
            raise InputError(f"{path}: {exc.strerror or exc}") from None
        except (ValueError, KeyError, zipfile.BadZipFile):
            raise InputError(f"{path}: not a multipliers file written by cspopt (.npz with "
                             "arrays 'bound' and 'steps')") from None


@dataclass
class LagrangianState:
    """What the subgradient loop produced (mutable while it runs)."""

    multipliers: np.ndarray
    lower_bound: float = -math.inf
    best_multipliers: np.ndarray | None = None  # z(best_multipliers) = lower_bound
    step_multipliers: np.ndarray | None = None  # where the next run's steps start
    incumbent: np.ndarray | None = None  # candidate mask
    upper_bound: float = math.inf
    iterations: int = 0
    termination: str = "iteration_limit"
    history: list[dict] = field(default_factory=list)
    dijkstra_calls: int = 0
    dijkstra_seconds: float = 0.0

    def warm_start(self) -> Multipliers | None:
        """The multipliers to hand to the next run (``None`` if there are none)."""
        if self.best_multipliers is None:
            return None
        steps = self.best_multipliers if self.step_multipliers is None else self.step_multipliers
        return Multipliers(bound=self.best_multipliers, steps=steps)


def project_capped(lam: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Project every column of ``lam`` onto ``{v >= 0, sum v <= caps[c]}`` (in place).

    Restricting the dual to ``sum_k lambda^k_c <= xi_c`` loses nothing. Lowering the
    multipliers of a cell whose sum exceeds its weight by ``delta`` lowers the path terms by
    at most ``delta``, and raises the x-term by exactly ``delta``. Inside the set ``x = 0``
    and ``z = sum_k SP_k``, which removes the x-subproblem's oscillation.
    """
    np.maximum(lam, 0.0, out=lam)
    over = np.flatnonzero(lam.sum(axis=0) > caps + 1e-12)
    if over.size:
        v = lam[:, over]
        u = -np.sort(-v, axis=0)
        css = np.cumsum(u, axis=0) - caps[over]
        ind = np.arange(1, v.shape[0] + 1)[:, None]
        rho = np.maximum(np.count_nonzero(u - css / ind > 0, axis=0), 1)  # cap 0 -> all 0
        tau = css[rho - 1, np.arange(over.size)] / rho
        lam[:, over] = np.maximum(v - tau, 0.0)
    return lam


def validated_start(oracle: PathOracle, multipliers):
    """``(certificate, steps)``: a warm start validated and capped (copies).

    ``multipliers`` is an array (protected cells x candidates), which is ``steps`` (the
    certificate is then ``None``), or a previous run's :class:`Multipliers`, whose ``bound``
    is the certificate: a warm-started run starts its bound there, so it never reports less
    than the run it continues.
    """
    inst = oracle.inst
    weights = inst.weights[inst.candidates]
    shape = (inst.protected_cells.size, inst.candidates.size)

    def capped(lam):
        lam = np.array(lam, dtype=float)
        if lam.shape != shape:
            raise InputError(f"multipliers must have shape {shape} (protected cells x "
                             f"candidate cells of this instance), got {lam.shape}: were they "
                             "made for another table, model or options?")
        if np.any(~np.isfinite(lam)) or np.any(lam < 0):
            raise InputError("multipliers must be finite and >= 0")
        return project_capped(lam, weights)

    if isinstance(multipliers, Multipliers):
        return capped(multipliers.bound), capped(multipliers.steps)
    return None, capped(multipliers)


def end_multipliers(oracle: PathOracle) -> np.ndarray:
    """Starting multipliers that price the ends of every path.

    Every path of cell ``k`` leaves its source node and enters its sink node through an arc
    of some other cell (in a 2-D table: a cell of column ``j_k`` and one of row ``i_k``).
    Sharing each weight ``xi_c`` equally among the protected cells whose path ends touch ``c``
    gives ``z >= sum_k`` (cheapest priced cell at the source + at the sink) from the first
    iteration, and stays inside ``sum_k lambda^k_c <= xi_c``.
    """
    inst = oracle.inst
    num_k, num_x = inst.protected_cells.size, inst.candidates.size
    touch = np.zeros((num_k, num_x), dtype=bool)
    cand_arc = oracle.arc_x >= 0
    for p in range(num_k):
        source, sink = inst.source_sink(p, bool(inst.needs_up[p]))
        ends = cand_arc & ((inst.arc_tail == source) | (inst.arc_head == source)
                           | (inst.arc_tail == sink) | (inst.arc_head == sink))
        ends[oracle.own[p]] = False
        touch[p, oracle.arc_x[ends]] = True
    share = touch.sum(axis=0)
    weights = inst.weights[inst.candidates]
    return np.where(touch, weights / np.maximum(share, 1), 0.0)


def dual_ascent(oracle: PathOracle, lam: np.ndarray, *, max_rounds: int = 1000) -> np.ndarray:
    """Raise the multipliers cut by cut (Wong 1984's dual ascent, on the path relaxation).

    ``residual_c = xi_c - sum_k lambda^k_c``. For cell ``k`` let ``S`` be the nodes its
    source reaches through arcs that cannot be priced further (sensitive cells and cells with
    zero residual). If the sink is outside ``S``, every path leaves ``S`` through a
    candidate cell with positive residual. Raising ``lambda^k`` on all of them by the smallest
    residual raises ``SP_k`` by at least that much and saturates a cell. For ``K_2`` both
    directions' cuts are raised together. The multipliers stay in the capped set and the bound
    never decreases.
    """
    inst = oracle.inst
    weights = inst.weights[inst.candidates]
    residual = weights - lam.sum(axis=0)
    arc_x = oracle.arc_x
    for _ in range(max_rounds):
        progressed = False
        for p in range(inst.protected_cells.size):
            cut_cells = []
            for up, needed in ((True, inst.needs_up[p]), (False, inst.needs_down[p])):
                if not needed:
                    continue
                free = np.where(arc_x >= 0, residual[np.maximum(arc_x, 0)] <= 1e-9, True)
                cost = np.where(free, 0.0, 1.0)
                cost[oracle.blocked] = np.inf
                cost[oracle.own[p]] = np.inf
                source, sink = inst.source_sink(p, up)
                reach = oracle.distances(cost, source, limit=0.5)
                inside = np.isfinite(reach)
                if inside[sink]:
                    cut_cells = None
                    break
                crossing = inside[inst.arc_tail] & ~inside[inst.arc_head] & np.isfinite(cost)
                cut_cells.append(arc_x[crossing & (arc_x >= 0)])
            if not cut_cells:
                continue
            cells = np.unique(np.concatenate(cut_cells))
            if cells.size == 0:  # no path at all: evaluate() reports the cell infeasible
                continue
            delta = float(residual[cells].min())
            if delta <= 1e-9:
                continue
            lam[p, cells] += delta
            residual[cells] -= delta
            progressed = True
        if not progressed:
            break
    return lam


def tight_multipliers(oracle: PathOracle, lam: np.ndarray) -> np.ndarray:
    """The smallest multipliers with the same shortest-path lengths as ``lam``.

    For cell ``k`` let ``d`` be the distances from its source under ``lambda^k``, cut off at
    the sink's: ``d'(v) = min(d(v), SP_k)``. ``d'`` is a feasible potential, so
    ``lambda'^k_c = max(0, max over c's usable arcs u -> v of d'(v) - d'(u))`` is at most
    ``lambda^k_c`` and still prices every path at ``d'(sink) - d'(source) = SP_k`` or more.
    For ``K_2`` the larger requirement of the two directions is kept, so the shorter
    direction keeps its length too. ``z`` is unchanged; the capacity ``xi_c`` the other cells
    can use grows, which is what :func:`dual_ascent` needs. One Dijkstra call per cell and
    direction.
    """
    inst = oracle.inst
    tight = np.zeros_like(lam)
    usable_candidate = oracle.arc_x >= 0
    for p in range(inst.protected_cells.size):
        cost = oracle.arc_costs(lam[p])
        cost[oracle.own[p]] = np.inf
        arcs = np.flatnonzero(usable_candidate & np.isfinite(cost))
        for up, needed in ((True, inst.needs_up[p]), (False, inst.needs_down[p])):
            if not needed:
                continue
            source, sink = inst.source_sink(p, up)
            dist = oracle.distances(cost, source)
            if not np.isfinite(dist[sink]):  # no path: z is inf, nothing to keep
                continue
            dist = np.minimum(dist, dist[sink])
            rise = dist[inst.arc_head[arcs]] - dist[inst.arc_tail[arcs]]
            np.maximum.at(tight[p], oracle.arc_x[arcs], rise)
    return np.minimum(tight, lam)


def evaluate(oracle: PathOracle, lam: np.ndarray, state: LagrangianState | None = None,
             pool: CutPool | None = None):
    """``(sum_k SP_k(lambda^k), paths)``: the Lagrangian value for capped multipliers.

    ``paths[k]`` is ``(length, arcs)`` of cell ``k``'s shortest path (the shorter direction
    for ``K_2``). Among paths of equal ``lambda``-length the cheapest in weights is taken:
    Dijkstra runs on ``lambda + eps xi`` with ``eps = delta / sum(xi)``, so its distance
    overestimates ``SP_k`` by at most ``delta`` (a path uses a cell once), and ``length`` is
    that distance minus ``delta``, still a valid bound. Without the tie-break, paths wander
    through cells no multiplier prices yet; with it both the bound and the embedded
    heuristic's incumbents improve.
    Counts Dijkstra calls and time into ``state`` when given; ``pool`` receives every
    search's level-set cuts (its own time is not counted as Dijkstra's).
    """
    inst = oracle.inst
    tie = oracle.tie_eps * inst.weights[inst.candidates]
    total, paths = 0.0, []
    pooled = pool.seconds if pool is not None else 0.0
    for p in range(inst.protected_cells.size):
        t0 = time.perf_counter()
        length, arcs = oracle.best(p, oracle.arc_costs(lam[p] + tie), pool)
        if state is not None:
            state.dijkstra_seconds += time.perf_counter() - t0
            state.dijkstra_calls += int(inst.needs_up[p]) + int(inst.needs_down[p])
        length -= oracle.tie_slack
        total += length
        paths.append((length, arcs))
    if state is not None and pool is not None:
        state.dijkstra_seconds -= pool.seconds - pooled
    return total, paths


def initial_multipliers(oracle: PathOracle, state: LagrangianState | None = None):
    """The better (by ``z``) of :func:`dual_ascent` from zero and :func:`end_multipliers`.

    The ascent is strong under value weights, end pricing under unit weights.
    """
    inst = oracle.inst
    zero = np.zeros((inst.protected_cells.size, inst.candidates.size))
    best = None
    for lam in (dual_ascent(oracle, zero), end_multipliers(oracle)):
        z, paths = evaluate(oracle, lam, state)
        if best is None or z > best[1]:
            best = (lam, z, paths)
    return best

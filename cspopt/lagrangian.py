"""Lagrangian bounds and the embedded path heuristic for (P) and (P_N).

Relaxing the coupling constraints (10) of (P), or (32)-(33) of (P_N), with multipliers
``lambda^k_c >= 0`` (Almeida & Carvalho 2005 §3.2, §4.2) gives

    z(lambda) = sum_c min(0, xi_c - sum_k lambda^k_c)  +  sum_k SP_k(lambda^k),

where ``SP_k`` is a shortest path from ``j_k`` to ``i_k`` (and, for ``k in K_2``, the shorter
of that and the reverse path ``i_k -> j_k``: problem P_N(alpha, mu)). Arc costs are
``lambda^k_c`` on both arcs of a candidate cell ``c`` and 0 on sensitive cells. Every
``z(lambda)`` is a lower bound. The best one equals the LP bound of (P) (the subproblems have
the integrality property), and for (P_N) it is at least the LP bound of (P_N). The dual is
maximised by subgradient optimisation with the incumbent as target: the volume algorithm
(Barahona & Anbil 2000, averaged subgradients; the default) or the Held, Wolfe & Crowder
(1974) rule with step halving on stalls. Every few iterations Wong's (1984) dual ascent,
started from the tight form of the steps' best multipliers, raises the bound further, and so
does the best packing of the cuts the searches have revealed (:mod:`cspopt.cut_packing`).

The embedded heuristic (§5, after Carvalho, Dellaert & Osorio 1994) protects the cells one at
a time along shortest paths. Cells already suppressed cost 0. The first run uses the
weights; later runs also zero the weights of cells with ``x_c = 1`` in the current Lagrangian
solution. Each incumbent is cleaned by delete-and-check (Almeida, Schutz & Carvalho 2008
§5) and audited.

Complexity per iteration: ``|K| + |K_2|`` Dijkstra calls on the table's network
(``scipy.sparse.csgraph``, costs refilled in CSR order), plus ``O(|K| |candidates|)`` array
work.
"""

from __future__ import annotations

import logging
import math
import time
import zipfile
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from cspopt.cut_packing import CutPool
from cspopt.errors import InputError
from cspopt.formulations.instance import ExactInstance
from cspopt.result import integral_bound

__all__ = ["LagrangianState", "Multipliers", "PathOracle", "path_heuristic", "exclusion_search",
           "subgradient", "cutting_plane", "dual_ascent", "tight_multipliers",
           "end_multipliers", "initial_multipliers", "evaluate", "project_capped", "STEP_RULES"]

log = logging.getLogger(__name__)

#: Largest amount (relative to the largest weight) by which the weight tie-break of
#: :func:`evaluate` may lower a path's bound.
_TIE_BREAK = 1e-9


class PathOracle:
    """Shortest paths on the instance's arcs, one CSR structure for every protected cell.

    Parallel arcs (same end nodes) are collapsed to the cheapest one per call. A cell's own
    arcs and the arcs the ``tau`` threshold removes cost ``inf`` in its paths.
    """

    def __init__(self, inst: ExactInstance):
        self.inst = inst
        order = np.lexsort((inst.arc_head, inst.arc_tail))
        tail, head = inst.arc_tail[order], inst.arc_head[order]
        pairs = tail * inst.num_nodes + head
        starts = np.flatnonzero(np.r_[True, pairs[1:] != pairs[:-1]])
        self.order = order
        self.starts = starts
        self.parallel = starts.size != order.size
        self.graph = sp.csr_matrix(
            (np.zeros(starts.size), head[starts], np.searchsorted(
                tail[starts], np.arange(inst.num_nodes + 1))),
            shape=(inst.num_nodes, inst.num_nodes))
        self.group = {(u, v): order[s:e] for u, v, s, e in zip(
            tail[starts].tolist(), head[starts].tolist(), starts.tolist(),
            np.r_[starts[1:], order.size].tolist())}
        self.arc_x = inst.x_index[inst.arc_cell]  # -1 on sensitive cells' arcs
        self.own = [np.flatnonzero(inst.arc_cell == k) for k in inst.protected_cells]
        self.blocked = ~inst.path_arc_mask
        # weight tie-break of evaluate(): eps per unit weight, and the most it adds to a path
        weights = inst.weights[inst.candidates]
        self.tie_slack = _TIE_BREAK * max(1.0, float(weights.max(initial=0.0)))
        self.tie_eps = self.tie_slack / max(float(weights.sum()), 1.0)

    def arc_costs(self, cell_cost: np.ndarray) -> np.ndarray:
        """Arc costs from per-candidate costs (0 on sensitive cells, inf where blocked)."""
        cost = np.append(cell_cost, 0.0)[self.arc_x]  # arc_x = -1: a sensitive cell, cost 0
        cost[self.blocked] = np.inf
        return cost

    def shortest(self, position: int, arc_cost: np.ndarray, up: bool, pool=None):
        """``(length, arcs)`` of the cheapest path of a protected cell (``inf``, [] if none).

        ``pool`` (a :class:`~cspopt.cut_packing.CutPool`) receives the search's level-set cuts.
        """
        cost = arc_cost.copy()
        cost[self.own[position]] = np.inf
        sorted_cost = cost[self.order]
        self.graph.data = (np.minimum.reduceat(sorted_cost, self.starts) if self.parallel
                           else sorted_cost)
        source, sink = self.inst.source_sink(position, up)
        dist, pred = dijkstra(self.graph, directed=True, indices=source,
                              return_predecessors=True)
        if pool is not None:
            pool.add_levels(position, up, dist, cost)
        if not np.isfinite(dist[sink]):
            return math.inf, []
        arcs, v = [], sink
        while v != source:
            u = int(pred[v])
            group = self.group[(u, v)]
            arcs.append(int(group[np.argmin(cost[group])]))
            v = u
        return float(dist[sink]), arcs[::-1]

    def distances(self, arc_cost: np.ndarray, source: int, *, limit: float = np.inf):
        """Shortest distances from ``source`` (``inf`` beyond ``limit``)."""
        sorted_cost = arc_cost[self.order]
        self.graph.data = (np.minimum.reduceat(sorted_cost, self.starts) if self.parallel
                           else sorted_cost)
        return dijkstra(self.graph, directed=True, indices=source, limit=limit)

    def best(self, position: int, arc_cost: np.ndarray, pool=None):
        """The shorter of the modelled paths: (P) one path, (P_N) ``K_2`` either direction."""
        options = []
        if self.inst.needs_up[position]:
            options.append(self.shortest(position, arc_cost, True, pool))
        if self.inst.needs_down[position]:
            options.append(self.shortest(position, arc_cost, False, pool))
        return min(options, key=lambda o: o[0])


def path_heuristic(oracle: PathOracle, weights: np.ndarray, *, order=None,
                   clean: bool = True) -> np.ndarray | None:
    """Protect the cells one at a time along shortest paths; return the candidate mask.

    ``weights`` are per-candidate path costs (zero for cells to prefer). Cells already in the
    pattern cost 0 for the next paths. Returns ``None`` when some cell cannot be protected.
    """
    inst = oracle.inst
    chosen = np.zeros(inst.candidates.size, dtype=bool)
    witness: list[list[int]] = []
    positions = range(inst.protected_cells.size) if order is None else order
    for p in positions:
        length, arcs = oracle.best(p, oracle.arc_costs(np.where(chosen, 0.0, weights)))
        if not math.isfinite(length):
            return None
        xs = oracle.arc_x[arcs]
        chosen[xs[xs >= 0]] = True
        witness.append((p, arcs))
    if clean:
        _delete_and_check(oracle, chosen, dict(witness))
    return chosen


def exclusion_search(oracle: PathOracle, chosen: np.ndarray, weights: np.ndarray, *,
                     rounds: int = 3) -> np.ndarray:
    """Improve a pattern by excluding one secondary at a time (local search).

    For each suppressed candidate, most expensive first: forbid it, give the other
    suppressed cells cost 0, and rerun :func:`path_heuristic` (with its delete-and-check);
    keep the result when it is cheaper. Stops after ``rounds`` passes or a pass without
    improvement. Each move is one heuristic run (``|K|`` shortest paths). Measured on the
    Table 2-4 design up to 60x40: the first heuristic pattern drops from 9.6 % to 2.6 %
    above the LP bound on average, in at most 0.5 s.
    """
    best, cost = chosen.copy(), float(weights[chosen].sum())
    for _ in range(rounds):
        improved = False
        for x in sorted(np.flatnonzero(best).tolist(), key=lambda i: -weights[i]):
            if not best[x]:
                continue
            trial = np.where(best, 0.0, weights)
            trial[x] = np.inf
            candidate = path_heuristic(oracle, trial)
            if candidate is None:
                continue
            candidate_cost = float(weights[candidate].sum())
            if candidate_cost < cost - 1e-9:
                best, cost, improved = candidate, candidate_cost, True
        if not improved:
            break
    return best


def _delete_and_check(oracle: PathOracle, chosen: np.ndarray, witness: dict) -> None:
    """Drop secondaries, most expensive first, while every cell keeps a path.

    Only the cells whose current path uses the dropped cell are re-checked; a re-check looks
    for a path through suppressed cells only.
    """
    inst = oracle.inst
    weights = inst.weights[inst.candidates]
    uses: dict[int, set[int]] = {}
    for p, arcs in witness.items():
        for x in oracle.arc_x[arcs]:
            if x >= 0:
                uses.setdefault(int(x), set()).add(p)
    for x in sorted(np.flatnonzero(chosen).tolist(), key=lambda i: -weights[i]):
        chosen[x] = False
        zero_cost = oracle.arc_costs(np.where(chosen, 0.0, np.inf))
        replaced = {}
        for p in uses.get(x, ()):
            length, arcs = oracle.best(p, zero_cost)
            if not math.isfinite(length):
                chosen[x] = True
                break
            replaced[p] = arcs
        else:
            for p, arcs in replaced.items():
                for old in oracle.arc_x[witness[p]]:
                    if old >= 0:
                        uses[int(old)].discard(p)
                witness[p] = arcs
                for new in oracle.arc_x[arcs]:
                    if new >= 0:
                        uses.setdefault(int(new), set()).add(p)


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


def _validated_start(oracle: PathOracle, multipliers):
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
    through cells no multiplier prices yet; with it, measured on the Table 2-4 design up to
    60x40, the bound after 200 iterations is within 0.5 % of the LP bound on 17 tables instead
    of 14, and the embedded heuristic's incumbents are 0.4 % instead of 1.1 % above it.
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

    Measured: the ascent is strong under value weights, end pricing under unit weights.
    """
    inst = oracle.inst
    zero = np.zeros((inst.protected_cells.size, inst.candidates.size))
    best = None
    for lam in (dual_ascent(oracle, zero), end_multipliers(oracle)):
        z, paths = evaluate(oracle, lam, state)
        if best is None or z > best[1]:
            best = (lam, z, paths)
    return best


def _offer_heuristic(oracle: PathOracle, state: LagrangianState, weights: np.ndarray,
                     preferred: np.ndarray) -> None:
    """Rerun the path heuristic with zero weight on ``preferred`` cells; keep a better
    pattern after :func:`exclusion_search`."""
    candidate = path_heuristic(oracle, np.where(preferred, 0.0, weights))
    if candidate is not None and float(weights[candidate].sum()) < state.upper_bound - 1e-9:
        candidate = exclusion_search(oracle, candidate, weights)
        state.incumbent, state.upper_bound = candidate, float(weights[candidate].sum())


def _ascend(oracle: PathOracle, state: LagrangianState, lam: np.ndarray,
            pool: CutPool | None) -> None:
    """Raise the bound from ``lam`` by :func:`dual_ascent` after :func:`tight_multipliers`.

    The steps leave cells at their cap ``sum_k lambda^k_c = xi_c`` with multipliers no
    shortest path needs, so the ascent from ``lam`` itself finds little to raise; from the
    tight multipliers it closes much of the last gap. The steps go on from their own point:
    continuing from the ascent's, where cells are saturated again, was worse. Measured on the
    Table 2-4 design up to 60x40 with the stop on a proof switched off: see
    :func:`subgradient`. Keeps the result when its bound is better.
    """
    _offer_bound(oracle, state, dual_ascent(oracle, tight_multipliers(oracle, lam)), pool)


def _pack(oracle: PathOracle, state: LagrangianState, pool: CutPool,
          weights: np.ndarray) -> None:
    """Offer the bound of the best packing of the cuts pooled so far (:mod:`cspopt.cut_packing`).

    Measured on the Table 2-4 design up to 60x40 with the stop on a proof switched off: see
    :func:`subgradient`.
    """
    lam = pool.multipliers()
    if lam is not None:
        _offer_bound(oracle, state, project_capped(lam, weights), pool)


def _offer_bound(oracle: PathOracle, state: LagrangianState, lam: np.ndarray,
                 pool: CutPool | None) -> None:
    """Keep ``lam`` as the best multipliers when ``z(lam)`` beats the bound."""
    z, _ = evaluate(oracle, lam, state, pool)
    if z > state.lower_bound + 1e-9:
        state.lower_bound, state.best_multipliers = z, lam


def _finish_iteration(state: LagrangianState, *, started: float, t_iter: float,
                      weights: np.ndarray, on_iteration, max_iterations: int,
                      time_limit: float | None, stop_on_proof: bool = True,
                      **extra) -> bool:
    """Record the iteration and decide whether to stop (sets ``state.termination``)."""
    elapsed = time.perf_counter() - started
    state.history.append(dict(iteration=state.iterations, time=elapsed,
                              lower_bound=state.lower_bound, upper_bound=state.upper_bound,
                              ms=1000 * (time.perf_counter() - t_iter), **extra))
    if on_iteration is not None:
        on_iteration(state)
    if stop_on_proof and state.upper_bound <= integral_bound(state.lower_bound, weights) + 1e-9:
        state.termination = "optimal"
    elif state.iterations >= max_iterations:
        state.termination = "iteration_limit"
    elif time_limit is not None and elapsed >= time_limit:
        state.termination = "time_limit"
    else:
        return False
    return True


#: Step rules of :func:`subgradient`: (first step factor, growth on a better bound, shrink
#: after ``stall`` iterations without one, iterations without one before shrinking).
STEP_RULES = {
    "held-wolfe-crowder": (2.0, 1.0, 0.5, 15),
    "volume": (2.0, 1.1, 0.66, 10),
}


def subgradient(
    oracle: PathOracle,
    *,
    rule: str = "volume",
    multipliers: np.ndarray | None = None,
    incumbent: np.ndarray | None = None,
    max_iterations: int = 200,
    time_limit: float | None = None,
    step: float | None = None,
    stall: int | None = None,
    min_step: float = 1e-4,
    max_step: float = 100.0,
    averaging: float = 0.1,
    heuristic_every: int = 5,
    ascent_every: int = 5,
    cut_packing: bool = True,
    stop_on_proof: bool = True,
    on_iteration=None,
    started: float | None = None,
) -> LagrangianState:
    """Maximise the Lagrangian dual by subgradient optimisation.

    Both rules take a Polyak step towards the incumbent value ``UB`` (the target of Held,
    Wolfe & Crowder 1974) and project onto the capped set (:func:`project_capped`):

    ``"held-wolfe-crowder"``
        ``lambda <- P(lambda + theta (UB - z(lambda)) / ||g||^2 g)`` from the current point,
        with ``g`` its subgradient; ``theta`` is halved after ``stall`` iterations without a
        better bound.
    ``"volume"`` (default)
        The volume algorithm (Barahona & Anbil 2000): the step starts from the best point
        ``lambda_bar`` and follows ``g_bar``, an exponential average of the subgradients,
        ``g_bar <- a g + (1 - a) g_bar`` with ``a`` in ``[averaging / 10, averaging]``
        minimising ``||g_bar||``. ``g_bar`` is the path usage of an averaged (fractional)
        primal solution, so the direction does not zig-zag between the paths of successive
        iterations. The factor starts at 2, grows by 1.1 (up to ``max_step``) on a better
        bound and shrinks by 0.66 after ``stall`` = 10 iterations without one. Factors far
        above Polyak's 2 pay off: the incumbent is often already optimal, so ``UB - z`` is
        small, and steps capped at 2 crawl. With the factor capped at 2 (start 0.5, stall
        20), 50 of the 81 design tables of seeds 0-8 were within 0.5 % of the LP bound after
        200 iterations, or optimal; with the cap at 100, 86 of 90.

    Both rules also raise the bound every ``ascent_every`` iterations by :func:`dual_ascent`
    from the tight form (:func:`tight_multipliers`) of the steps' best point
    (:func:`_ascend`), and by the best packing of the level-set cuts of every search so far
    (:func:`_pack`, :mod:`cspopt.cut_packing`). Neither moves the steps. Measured on the
    Table 2-4 design up to 60x40 (``cspopt bench lagrangian``, 10 tables per size and data
    set, heuristic reruns on, the stop on a proof switched off): the volume rule is within
    0.5 % of the LP bound after 200 iterations on 90 of 90 tables (89 without the packing, 77
    without the ascent either; 88 with the ascent every 20 iterations). The packing closes
    the gap where the LP shares cells fractionally between protected cells, which no step or
    coordinate ascent reached (set 1 20x10 seed 9: 1.0 % below without it).

    Parameters
    ----------
    oracle : PathOracle
    rule : {"volume", "held-wolfe-crowder"}
    multipliers : ndarray, shape (protected cells, candidates), optional
        Starting ``lambda``, or a previous run's :class:`Multipliers`
        (``state.warm_start()``): the steps start from its ``steps`` and the bound from its
        ``bound`` (:func:`_validated_start`). Default
        :func:`end_multipliers` for the volume rule, :func:`initial_multipliers` for the
        halving rule. The volume rule does better from the end pricing even where the dual
        ascent's bound is higher (86 against 84 of the 90 design tables within 0.5 %, before
        ``ascent_every`` existed): the ascent saturates cells, and on set 2 60x40 (unit
        weights) seed 5 no step left its point in 160 iterations.
    incumbent : ndarray of bool, optional
        A feasible candidate mask giving the first upper bound (step target).
    max_iterations, time_limit, min_step
        Stop after ``max_iterations``, at ``time_limit`` seconds, or when the step factor
        falls below ``min_step``.
    step, stall : optional
        First step factor and stall length; defaults per rule in :data:`STEP_RULES`.
    max_step : float
        Largest step factor (reached by the volume rule only: the halving rule never grows).
    heuristic_every : int
        Rerun the embedded heuristic every so many iterations (0: never).
    ascent_every : int
        Run the ascent every so many iterations, and at ``max_iterations``, when the steps
        found a better point since the last one, and the cut packing when cuts arrived
        (0: neither).
    cut_packing : bool
        Pool the searches' level-set cuts and offer their best packing's bound. It costs
        about 1.7 times the time per iteration without it (pooling and the LP), measured
        with the stop on a proof switched off.
    stop_on_proof : bool
        Stop as soon as the incumbent is proven optimal (its cost is at most the bound,
        rounded up when the weights are integers). Off, the loop runs to its limits: for a
        bound oracle that wants the best bound, or to measure convergence.
    on_iteration : callable(state), optional
        Called after every iteration (progress display).
    """
    if rule not in STEP_RULES:
        raise InputError(f"rule must be one of {tuple(STEP_RULES)}, not {rule!r}")
    first_step, grow, shrink, default_stall = STEP_RULES[rule]
    theta = first_step if step is None else step
    stall = default_stall if stall is None else stall
    volume = rule == "volume"
    inst = oracle.inst
    started = time.perf_counter() if started is None else started
    weights = inst.weights[inst.candidates]
    num_k, num_x = inst.protected_cells.size, inst.candidates.size
    state = LagrangianState(multipliers=np.zeros((num_k, num_x)))
    pool = CutPool(oracle) if cut_packing else None
    evaluated = None  # (z, paths) of the starting point when already known
    if multipliers is not None:
        certificate, lam = _validated_start(oracle, multipliers)
        if certificate is not None:
            state.lower_bound, _ = evaluate(oracle, certificate, state, pool)
            state.best_multipliers = certificate
    elif volume:
        lam = end_multipliers(oracle)  # inside the capped set
    else:
        lam, *evaluated = initial_multipliers(oracle, state)
    state.multipliers = lam
    if incumbent is not None:
        state.incumbent = incumbent.copy()
        state.upper_bound = float(weights[incumbent].sum())
    since_better = 0
    z_path, path_best = -math.inf, lam  # the steps' own best point (the ascent's may be higher)
    ascent_due = False  # the steps found a better point since the last ascent
    center, z_center, direction = lam, -math.inf, None
    while True:
        t_iter = time.perf_counter()
        paths_total, paths = evaluated or evaluate(oracle, lam, state, pool)
        evaluated = None
        if not math.isfinite(paths_total):  # some cell cannot be protected at all
            state.lower_bound, state.termination = math.inf, "infeasible"
            return state
        g = np.zeros((num_k, num_x))
        for p, (_, arcs) in enumerate(paths):
            xs = oracle.arc_x[arcs]
            g[p, xs[xs >= 0]] = 1.0
        reduced = weights - lam.sum(axis=0)
        x = reduced < -1e-9  # empty inside the capped set (up to round-off)
        g -= x[None, :]
        z = float(np.minimum(reduced, 0.0).sum() + paths_total)
        state.iterations += 1
        better = z > z_path + 1e-9
        if better:
            z_path, path_best, ascent_due = z, lam.copy(), True
        if z > state.lower_bound + 1e-9:
            state.lower_bound, state.best_multipliers = z, path_best
        if ascent_every and (state.iterations % ascent_every == 0
                             or state.iterations >= max_iterations):
            if ascent_due:
                _ascend(oracle, state, path_best, pool)
                ascent_due = False
            if pool is not None:
                _pack(oracle, state, pool, weights)
        if heuristic_every and (state.iterations == 1 or
                                state.iterations % heuristic_every == 0):
            _offer_heuristic(oracle, state, weights, x | (g > 0).any(axis=0))
        if _finish_iteration(state, started=started, t_iter=t_iter, weights=weights,
                             on_iteration=on_iteration, max_iterations=max_iterations,
                             time_limit=time_limit, stop_on_proof=stop_on_proof, step=theta):
            break
        if volume and direction is not None:
            diff = direction - g
            dd = float((diff * diff).sum())
            a = averaging if dd == 0.0 else min(max(float((direction * diff).sum()) / dd,
                                                    averaging / 10), averaging)
            direction = a * g + (1.0 - a) * direction
        else:
            direction = g
        if not volume or z > z_center:
            center, z_center = lam, z
        norm = float((direction * direction).sum())
        if norm == 0.0:  # the relaxed solution is feasible and complementary
            state.termination = "optimal" if state.upper_bound <= z + 1e-9 else "stalled"
            break
        if better:
            since_better = 0
            theta = min(theta * grow, max_step)
        else:
            since_better += 1
            if since_better >= stall:
                theta *= shrink
                since_better = 0
                if theta < min_step:
                    state.termination = "stalled"
                    break
        target = (state.upper_bound if math.isfinite(state.upper_bound)
                  else 1.05 * max(z_center, 1.0))
        lam = project_capped(center + theta * max(target - z_center, 1e-9) / norm * direction,
                             weights)
        state.multipliers = lam
    if state.best_multipliers is None:
        state.best_multipliers = lam.copy()
    state.step_multipliers = path_best
    return state


def cutting_plane(
    oracle: PathOracle,
    *,
    multipliers: np.ndarray | None = None,
    incumbent: np.ndarray | None = None,
    max_iterations: int = 200,
    time_limit: float | None = None,
    smoothing: float = 0.7,
    heuristic_every: int = 5,
    on_iteration=None,
    started: float | None = None,
) -> LagrangianState:
    """Maximise the same Lagrangian dual by a stabilised cutting-plane method.

    The master LP is the Dantzig-Wolfe restricted master over the paths found so far:

        min sum_c xi_c x_c   s.t.  sum_P f^k_P = 1 (k),   sum_{P ni c} f^k_P - x_c <= 0 (k, c),
                                   f, x >= 0.

    Its coupling duals ``lambda_m`` satisfy ``sum_k lambda^k_c <= xi_c`` (``x`` has no upper
    bound). Plain Kelley pricing at ``lambda_m`` leaves unexplored cells at price 0 and gives
    weak bounds, so the pricing point is smoothed (Wentges 1997):
    ``lambda = smoothing * center + (1 - smoothing) * lambda_m``. The center is the best
    multipliers so far, starting from the better of :func:`dual_ascent` and
    :func:`end_multipliers`. Every pricing point is in the capped set, so each ``z(lambda)``
    (one shortest path per cell and direction) is a valid bound. When no path prices out at
    the smoothed point, pricing at ``lambda_m`` itself decides: no new path means
    ``z(lambda_m)`` equals the master value, i.e. the LP bound of (P), or the optimum of the
    P_N(alpha, mu) dual for (P_N).
    """
    import highspy

    from cspopt._highs import highs

    inst = oracle.inst
    started = time.perf_counter() if started is None else started
    weights = inst.weights[inst.candidates]
    num_k, num_x = inst.protected_cells.size, inst.candidates.size
    state = LagrangianState(multipliers=np.zeros((num_k, num_x)))
    if incumbent is not None:
        state.incumbent = incumbent.copy()
        state.upper_bound = float(weights[incumbent].sum())
    if multipliers is not None:  # the center is the best point: a Multipliers' certificate
        certificate, steps = _validated_start(oracle, multipliers)
        center = steps if certificate is None else certificate
        z0, center_paths = evaluate(oracle, center, state)
    else:
        center, z0, center_paths = initial_multipliers(oracle, state)
    if not math.isfinite(z0):
        state.lower_bound, state.termination = math.inf, "infeasible"
        return state
    state.lower_bound, state.best_multipliers = z0, center.copy()

    h = highs()
    inf = highspy.kHighsInf
    for _ in range(num_k):  # convexity rows 0..K-1
        h.addRow(1.0, 1.0, 0, np.array([], np.int32), np.array([]))
    x_col: dict[int, int] = {}
    coupling_row: dict[tuple[int, int], int] = {}
    counts = {"rows": num_k, "cols": 0}

    def add_path(p: int, arcs: list[int]) -> None:
        xs = sorted({int(x) for x in oracle.arc_x[arcs] if x >= 0})
        rows = [p]
        for x in xs:
            if x not in x_col:
                h.addCol(float(weights[x]), 0.0, inf, 0, np.array([], np.int32), np.array([]))
                x_col[x] = counts["cols"]
                counts["cols"] += 1
            if (p, x) not in coupling_row:
                h.addRow(-inf, 0.0, 1, np.array([x_col[x]], np.int32), np.array([-1.0]))
                coupling_row[p, x] = counts["rows"]
                counts["rows"] += 1
            rows.append(coupling_row[p, x])
        h.addCol(0.0, 0.0, inf, len(rows), np.array(rows, np.int32), np.ones(len(rows)))
        counts["cols"] += 1

    base = oracle.arc_costs(weights)
    for p in range(num_k):  # the master starts feasible: the cheapest path under the weights
        add_path(p, oracle.best(p, base)[1])
        add_path(p, center_paths[p][1])

    lam_m = np.zeros((num_k, num_x))
    while True:
        t_iter = time.perf_counter()
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError("cutting-plane master ended "
                               + h.modelStatusToString(h.getModelStatus()))
        duals = np.asarray(h.getSolution().row_dual)
        lam_m[:] = 0.0
        for (p, x), r in coupling_row.items():
            lam_m[p, x] = max(0.0, -duals[r])
        project_capped(lam_m, weights)  # guards against dual round-off above xi
        pi = duals[:num_k]
        master = h.getInfo().objective_function_value

        def improving(paths, lam):
            return [(p, arcs) for p, (length, arcs) in enumerate(paths)
                    if np.isfinite(length) and lam_m[p][np.maximum(oracle.arc_x[arcs], 0)][
                        oracle.arc_x[arcs] >= 0].sum() < pi[p] - 1e-9 * max(1.0, abs(pi[p]))]

        lam = smoothing * center + (1.0 - smoothing) * lam_m
        z, paths = evaluate(oracle, lam, state)
        if z > state.lower_bound + 1e-9:
            center, state.lower_bound, state.best_multipliers = lam, z, lam.copy()
        new = improving(paths, lam)
        if not new:  # mis-pricing at the smoothed point: price the master duals themselves
            z, paths = evaluate(oracle, lam_m, state)
            if z > state.lower_bound + 1e-9:
                center, state.lower_bound, state.best_multipliers = lam_m.copy(), z, lam_m.copy()
            new = improving(paths, lam_m)
        state.iterations += 1
        state.multipliers = lam
        if heuristic_every and (state.iterations == 1 or state.iterations % heuristic_every == 0):
            support = np.zeros(num_x, dtype=bool)
            sol = np.asarray(h.getSolution().col_value)
            for x, c in x_col.items():
                support[x] = sol[c] > 1e-6
            _offer_heuristic(oracle, state, weights, support)
        if _finish_iteration(state, started=started, t_iter=t_iter, weights=weights,
                             on_iteration=on_iteration, max_iterations=max_iterations,
                             time_limit=time_limit, master=master):
            break
        if not new:
            state.termination = "stalled"  # the dual is solved: z = master = LP bound
            break
        for p, arcs in new:
            add_path(p, arcs)
    return state

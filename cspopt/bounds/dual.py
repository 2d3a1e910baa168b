"""Maximising the Lagrangian dual of (P)/(P_N): subgradient and cutting-plane methods.

Almeida & Carvalho (2005) §3.2 maximise ``z(lambda)`` (:mod:`cspopt.bounds.lagrangian`) by
subgradient optimisation with the incumbent as target. Here: the volume algorithm (Barahona
& Anbil 2000, averaged subgradients; the default) or the Held, Wolfe & Crowder (1974) rule
with step halving on stalls; every few iterations Wong's (1984) dual ascent and the best
packing of the cuts the searches revealed (:mod:`cspopt.bounds.cut_packing`) raise the bound
further. :func:`cutting_plane` is the stabilised cutting-plane (Dantzig-Wolfe) alternative.
Both rerun the embedded path heuristic (§5, :mod:`cspopt.heuristics.path`) with costs from
the current Lagrangian solution, so the incumbent improves as the bound rises.
"""

from __future__ import annotations

import math
import time

import numpy as np

from cspopt.backends.highs import INF, OPTIMAL, highs
from cspopt.bounds.cut_packing import CutPool
from cspopt.bounds.lagrangian import (
    LagrangianState,
    dual_ascent,
    end_multipliers,
    evaluate,
    initial_multipliers,
    project_capped,
    tight_multipliers,
    validated_start,
)
from cspopt.errors import InputError
from cspopt.heuristics.path import exclusion_search, path_heuristic
from cspopt.models.exact.paths import PathOracle
from cspopt.result import integral_bound

__all__ = ["subgradient", "cutting_plane", "STEP_RULES"]


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
    continuing from the ascent's, where cells are saturated again, was worse. Keeps the
    result when its bound is better.
    """
    _offer_bound(oracle, state, dual_ascent(oracle, tight_multipliers(oracle, lam)), pool)


def _pack(oracle: PathOracle, state: LagrangianState, pool: CutPool,
          weights: np.ndarray) -> None:
    """Offer the bound of the best packing of the cuts pooled so far
    (:mod:`cspopt.bounds.cut_packing`)."""
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


class _Steps:
    """The steps of a rule of :data:`STEP_RULES` from ``center`` (the current point, or the
    volume rule's best) along ``direction`` (the subgradient, or the volume rule's average),
    scaled by ``theta``: grown on a better bound (up to ``max_step``), shrunk after ``stall``
    iterations without one. Factors far above Polyak's 2 pay off: the incumbent is often
    already optimal, so ``UB - z`` is small, and steps capped at 2 crawl."""

    def __init__(self, rule: str, lam: np.ndarray, *, step, stall, min_step: float,
                 max_step: float, averaging: float):
        first_step, self.grow, self.shrink, default_stall = STEP_RULES[rule]
        self.theta = first_step if step is None else step
        self.stall = default_stall if stall is None else stall
        self.min_step, self.max_step, self.averaging = min_step, max_step, averaging
        self.since_better = 0
        self.volume = rule == "volume"
        self.center, self.z_center, self.direction = lam, -math.inf, None

    def advance(self, state: LagrangianState, lam: np.ndarray, g: np.ndarray, z: float,
                better: bool, weights: np.ndarray) -> np.ndarray | None:
        """The next point, projected onto the capped set; None where the steps end (the
        termination set in ``state``)."""
        self.direction = (_averaged(self.direction, g, self.averaging)
                          if self.volume and self.direction is not None else g)
        if not self.volume or z > self.z_center:
            self.center, self.z_center = lam, z
        norm = float((self.direction * self.direction).sum())
        if norm == 0.0:  # the relaxed solution is feasible and complementary
            state.termination = "optimal" if state.upper_bound <= z + 1e-9 else "stalled"
            return None
        if self._after(better):
            state.termination = "stalled"
            return None
        target = (state.upper_bound if math.isfinite(state.upper_bound)
                  else 1.05 * max(self.z_center, 1.0))
        return project_capped(self.center + self.theta * max(target - self.z_center, 1e-9)
                              / norm * self.direction, weights)

    def _after(self, better: bool) -> bool:
        """Update after an iteration; True once the factor fell below ``min_step``."""
        if better:
            self.since_better = 0
            self.theta = min(self.theta * self.grow, self.max_step)
            return False
        self.since_better += 1
        if self.since_better < self.stall:
            return False
        self.theta *= self.shrink
        self.since_better = 0
        return self.theta < self.min_step


def _ascend_and_pack(oracle: PathOracle, state: LagrangianState, lam: np.ndarray, pool,
                     weights: np.ndarray, ascent_due: bool) -> bool:
    """The periodic bound raisers: the ascent from ``lam`` where the steps found a better
    point since the last one (``ascent_due``), the cut packing where a pool is kept; returns
    whether an ascent is still due (never)."""
    if ascent_due:
        _ascend(oracle, state, lam, pool)
    if pool is not None:
        _pack(oracle, state, pool, weights)
    return False


def _first_point(oracle: PathOracle, state: LagrangianState, pool, multipliers, volume: bool):
    """The steps' first ``lambda`` and, where already evaluated, its ``(z, paths)``: a given
    start (whose certificate sets the first bound), the end pricing (volume rule) or
    :func:`initial_multipliers`."""
    if multipliers is not None:
        certificate, lam = validated_start(oracle, multipliers)
        if certificate is not None:
            state.lower_bound, _ = evaluate(oracle, certificate, state, pool)
            state.best_multipliers = certificate
        return lam, None
    if volume:
        return end_multipliers(oracle), None  # inside the capped set
    lam, *evaluated = initial_multipliers(oracle, state)
    return lam, evaluated


def _subgradient_at(oracle: PathOracle, lam: np.ndarray, paths, paths_total: float,
                    weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """At ``lambda`` with the searches' ``paths``: the subgradient ``g`` (path usage minus the
    relaxed ``x``), that ``x``, and ``z(lambda)``."""
    g = np.zeros(lam.shape)
    for p, (_, arcs) in enumerate(paths):
        xs = oracle.arc_x[arcs]
        g[p, xs[xs >= 0]] = 1.0
    reduced = weights - lam.sum(axis=0)
    x = reduced < -1e-9  # empty inside the capped set (up to round-off)
    g -= x[None, :]
    return g, x, float(np.minimum(reduced, 0.0).sum() + paths_total)


def _averaged(direction: np.ndarray, g: np.ndarray, averaging: float) -> np.ndarray:
    """The volume algorithm's direction ``a g + (1 - a) direction``, ``a`` in
    ``[averaging / 10, averaging]`` minimising its norm."""
    diff = direction - g
    dd = float((diff * diff).sum())
    a = averaging if dd == 0.0 else min(max(float((direction * diff).sum()) / dd,
                                            averaging / 10), averaging)
    return a * g + (1.0 - a) * direction


def subgradient(oracle: PathOracle, *, rule: str = "volume",
                multipliers: np.ndarray | None = None, incumbent: np.ndarray | None = None,
                max_iterations: int = 200, time_limit: float | None = None,
                step: float | None = None, stall: int | None = None, min_step: float = 1e-4,
                max_step: float = 100.0, averaging: float = 0.1, heuristic_every: int = 5,
                ascent_every: int = 5, cut_packing: bool = True, stop_on_proof: bool = True,
                on_iteration=None, started: float | None = None) -> LagrangianState:
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
        bound and shrinks by 0.66 after ``stall`` = 10 iterations without one.

    Both rules also raise the bound every ``ascent_every`` iterations by :func:`dual_ascent`
    from the tight form of the steps' best point, and by the best packing of the level-set
    cuts of every search so far (:mod:`cspopt.bounds.cut_packing`: it closes the gap where
    the LP shares cells fractionally between protected cells); neither moves the steps.

    Parameters
    ----------
    oracle : PathOracle
    rule : {"volume", "held-wolfe-crowder"}
    multipliers : ndarray, shape (protected cells, candidates), optional
        Starting ``lambda``, or a previous run's :class:`Multipliers` (the steps start from
        its ``steps``, the bound from its ``bound``). Default :func:`end_multipliers` for the
        volume rule (better than the ascent's point, which saturates cells), else
        :func:`initial_multipliers`.
    incumbent : ndarray of bool, optional
        A feasible candidate mask giving the first upper bound (step target).
    max_iterations, time_limit, min_step
        Stop after ``max_iterations``, at ``time_limit`` seconds, or when the step factor
        falls below ``min_step``.
    step, stall, max_step : optional
        First and largest step factor, stall length (:data:`STEP_RULES`).
    heuristic_every : int
        Rerun the embedded heuristic every so many iterations (0: never).
    ascent_every : int
        Run the ascent (where the steps found a better point since) and the cut packing
        every so many iterations and at ``max_iterations`` (0: neither).
    cut_packing : bool
        Pool the searches' level-set cuts and offer their best packing's bound (pooling
        and the LP make iterations slower).
    stop_on_proof : bool
        Stop as soon as the incumbent is proven optimal (its cost is at most the bound,
        rounded up when the weights are integers). Off, the loop runs to its limits: for a
        bound oracle that wants the best bound, or to measure convergence.
    on_iteration : callable(state), optional
        Called after every iteration (progress display).
    """
    if rule not in STEP_RULES:
        raise InputError(f"rule must be one of {tuple(STEP_RULES)}, not {rule!r}")
    inst = oracle.inst
    started = time.perf_counter() if started is None else started
    weights = inst.weights[inst.candidates]
    state = LagrangianState(multipliers=np.zeros((inst.protected_cells.size,
                                                  inst.candidates.size)))
    pool = CutPool(oracle) if cut_packing else None
    lam, evaluated = _first_point(oracle, state, pool, multipliers, rule == "volume")
    state.multipliers = lam
    steps = _Steps(rule, lam, step=step, stall=stall, min_step=min_step, max_step=max_step,
                   averaging=averaging)
    if incumbent is not None:
        state.incumbent = incumbent.copy()
        state.upper_bound = float(weights[incumbent].sum())
    z_path, path_best = -math.inf, lam  # the steps' own best point (the ascent's may be higher)
    ascent_due = False  # the steps found a better point since the last ascent
    while True:
        t_iter = time.perf_counter()
        paths_total, paths = evaluated or evaluate(oracle, lam, state, pool)
        evaluated = None
        if not math.isfinite(paths_total):  # some cell cannot be protected at all
            state.lower_bound, state.termination = math.inf, "infeasible"
            return state
        g, x, z = _subgradient_at(oracle, lam, paths, paths_total, weights)
        state.iterations += 1
        better = z > z_path + 1e-9
        if better:
            z_path, path_best, ascent_due = z, lam.copy(), True
        if z > state.lower_bound + 1e-9:
            state.lower_bound, state.best_multipliers = z, path_best
        if ascent_every and (state.iterations % ascent_every == 0
                             or state.iterations >= max_iterations):
            ascent_due = _ascend_and_pack(oracle, state, path_best, pool, weights, ascent_due)
        if heuristic_every and (state.iterations == 1 or
                                state.iterations % heuristic_every == 0):
            _offer_heuristic(oracle, state, weights, x | (g > 0).any(axis=0))
        if _finish_iteration(state, started=started, t_iter=t_iter, weights=weights,
                             on_iteration=on_iteration, max_iterations=max_iterations,
                             time_limit=time_limit, stop_on_proof=stop_on_proof,
                             step=steps.theta):
            break
        advanced = steps.advance(state, lam, g, z, better, weights)
        if advanced is None:
            break
        lam = state.multipliers = advanced
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
    inst = oracle.inst
    started = time.perf_counter() if started is None else started
    weights = inst.weights[inst.candidates]
    num_k, num_x = inst.protected_cells.size, inst.candidates.size
    state = LagrangianState(multipliers=np.zeros((num_k, num_x)))
    if incumbent is not None:
        state.incumbent = incumbent.copy()
        state.upper_bound = float(weights[incumbent].sum())
    if multipliers is not None:  # the center is the best point: a Multipliers' certificate
        certificate, steps = validated_start(oracle, multipliers)
        center = steps if certificate is None else certificate
        z0, center_paths = evaluate(oracle, center, state)
    else:
        center, z0, center_paths = initial_multipliers(oracle, state)
    if not math.isfinite(z0):
        state.lower_bound, state.termination = math.inf, "infeasible"
        return state
    state.lower_bound, state.best_multipliers = z0, center.copy()

    h = _PathMaster(oracle, weights)
    base = oracle.arc_costs(weights)
    for p in range(num_k):  # the master starts feasible: the cheapest path under the weights
        h.add_path(p, oracle.best(p, base)[1])
        h.add_path(p, center_paths[p][1])
    while True:
        t_iter = time.perf_counter()
        lam_m, pi, master = h.solve()

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
            _offer_heuristic(oracle, state, weights, h.support())
        if _finish_iteration(state, started=started, t_iter=t_iter, weights=weights,
                             on_iteration=on_iteration, max_iterations=max_iterations,
                             time_limit=time_limit, master=master):
            break
        if not new:
            state.termination = "stalled"  # the dual is solved: z = master = LP bound
            break
        for p, arcs in new:
            h.add_path(p, arcs)
    return state


class _PathMaster:
    """The cutting-plane method's master LP on HiGHS (the Dantzig-Wolfe master of the path
    subproblems): a convexity row per protected cell, a column per path found, a coupling
    row per protected cell and candidate on a path, and a column per candidate ``x``."""

    def __init__(self, oracle: PathOracle, weights: np.ndarray):
        self.oracle, self.weights = oracle, weights
        self.num_k = oracle.inst.protected_cells.size
        self.h = h = highs()
        for _ in range(self.num_k):  # convexity rows 0..K-1
            h.addRow(1.0, 1.0, 0, np.array([], np.int32), np.array([]))
        self.x_col: dict[int, int] = {}
        self.coupling_row: dict[tuple[int, int], int] = {}
        self.rows, self.cols = self.num_k, 0

    def add_path(self, p: int, arcs: list[int]) -> None:
        h = self.h
        rows = [p]
        for x in sorted({int(x) for x in self.oracle.arc_x[arcs] if x >= 0}):
            if x not in self.x_col:
                h.addCol(float(self.weights[x]), 0.0, INF, 0, np.array([], np.int32),
                         np.array([]))
                self.x_col[x] = self.cols
                self.cols += 1
            if (p, x) not in self.coupling_row:
                h.addRow(-INF, 0.0, 1, np.array([self.x_col[x]], np.int32), np.array([-1.0]))
                self.coupling_row[p, x] = self.rows
                self.rows += 1
            rows.append(self.coupling_row[p, x])
        h.addCol(0.0, 0.0, INF, len(rows), np.array(rows, np.int32), np.ones(len(rows)))
        self.cols += 1

    def solve(self) -> tuple[np.ndarray, np.ndarray, float]:
        """The master's multipliers on the coupling rows (capped), on the convexity rows, and
        its value."""
        h = self.h
        h.run()
        if h.getModelStatus() != OPTIMAL:
            raise RuntimeError("cutting-plane master ended "
                               + h.modelStatusToString(h.getModelStatus()))
        duals = np.asarray(h.getSolution().row_dual)
        lam_m = np.zeros((self.num_k, self.weights.size))
        for (p, x), r in self.coupling_row.items():
            lam_m[p, x] = max(0.0, -duals[r])
        project_capped(lam_m, self.weights)  # guards against dual round-off above xi
        return lam_m, duals[:self.num_k], h.getInfo().objective_function_value

    def support(self) -> np.ndarray:
        """The candidates the master's solution uses."""
        support = np.zeros(self.weights.size, dtype=bool)
        sol = np.asarray(self.h.getSolution().col_value)
        for x, c in self.x_col.items():
            support[x] = sol[c] > 1e-6
        return support

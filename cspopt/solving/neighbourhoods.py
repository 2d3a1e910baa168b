"""Large-neighbourhood searches around an incumbent pattern, for the branch-and-cut.

Each search states a restricted problem, solves it with the branch-and-cut itself (passed in
as ``solve``, :func:`cspopt.solving.solve_branch_and_cut`) and returns a pattern of the whole
table; the caller audits and cleans it (every pattern of a restriction protects the whole
table, as a published or fixed cell is known to the attacker in both).

- :func:`search_support`: solution merging and a RINS-like neighbourhood (Danna, Rothberg &
  Le Pape 2005): only the cells some pattern found so far or the root LP uses may be
  suppressed (tau-ARGUS' engine restricts its sequential heuristic to the LP's support and
  the incumbent the same way).
- :func:`search_balls`: every cell outside a ball of the relation graph around one sensitive
  cell keeps the incumbent's choice (:class:`~cspopt.models.interval.FixedOutside`), the
  ball's cells are free (Shaw 1998's relatedness neighbourhood). Each restriction is small
  and solved to optimality in seconds, and a sweep over the sensitive cells ends at a
  pattern no ball improves (small balls stop at local optima too close to the start).

References
----------
E. Danna, E. Rothberg and C. Le Pape, "Exploring relaxation induced neighborhoods to improve
MIP solutions", Mathematical Programming 102 (2005) 71-90.
N. Mladenović and P. Hansen, "Variable neighborhood search", Computers & Operations
Research 24 (1997) 1097-1100.
P. Shaw, "Using constraint programming and local search methods to solve vehicle routing
problems", CP 1998, LNCS 1520, 417-431.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import numpy as np

from cspopt.budget import Budget
from cspopt.errors import CspoptError
from cspopt.models.interval import FixedOutside, IntervalInstance
from cspopt.models.suppression import candidate_mask
from cspopt.result import SolveResult

__all__ = ["search_neighbourhoods", "search_support", "search_balls", "relation_ball"]

log = logging.getLogger(__name__)

#: the largest share of the candidates a support neighbourhood keeps (larger ones were not
#: solved in a minute)
SUPPORT_CELLS = 1 / 2
#: the share of the candidates a ball frees (smaller balls stop at worse local optima)
BALL_CELLS = 0.6
#: balls are sized as shares of at most this many candidates: a ball of 350 free cells
#: solves in seconds, while balls of 0.6 of 1,900 candidates find nothing in minutes
BALL_SCALE = 600
#: the longest a ball's restriction may take (most take 5-24 s; the sweep's path is chaotic
#: in it)
BALL_SECONDS = 30.0
#: balls grow by this share of the candidates once STALLED_BALLS in a row found nothing
#: better, up to BALL_CELLS_MAX (larger balls go on from where smaller ones stop)
BALL_GROWTH = 0.15
BALL_CELLS_MAX = 0.75
STALLED_BALLS = 8

#: the options a restriction is solved with: it looks for patterns, fast, and the caller
#: judges what it finds
_LOCAL = dict(neighbourhood=False, bridgeless=False, final_audit=lambda suppressed: None)


def search_neighbourhoods(inst: IntervalInstance, incumbent: np.ndarray, root_y: np.ndarray,
                          patterns: list, *, solve: Callable[..., SolveResult],
                          offer: Callable[[str, np.ndarray], np.ndarray | None],
                          lower_bound: float, balls: Budget, support_seconds: float | None,
                          budget: Budget,
                          interlude: Callable[[], np.ndarray | None] | None = None
                          ) -> dict[str, float]:
    """Balls around the sensitive cells within ``balls`` (:func:`search_balls`), then the
    support neighbourhood of everything found (:func:`search_support`) for at most
    ``support_seconds`` and within ``budget``.

    Every cheaper pattern goes to ``offer(phase, y)`` (``phase`` ``"balls"`` or
    ``"neighbourhood"``), which returns it audited and cleaned, or None, and appends what
    it accepts to ``patterns`` (every pattern found so far, the support's cells);
    ``interlude`` goes to :func:`search_balls`. Returns the seconds each search took.
    """
    t0 = time.perf_counter()
    best = [incumbent]

    def offer_ball(y: np.ndarray) -> np.ndarray | None:
        cleaned = offer("balls", y)
        if cleaned is not None:
            best.append(cleaned)
        return cleaned

    search_balls(inst, incumbent, solve=solve, offer=offer_ball, budget=balls,
                 interlude=interlude)
    t1 = time.perf_counter()
    local = search_support(inst, root_y, patterns, best[-1], solve=solve,
                           lower_bound=lower_bound, budget=budget.within(support_seconds))
    if local is not None:
        offer("neighbourhood", local)
    return dict(balls=t1 - t0, neighbourhood=time.perf_counter() - t1)


def search_support(inst: IntervalInstance, root_y: np.ndarray, patterns: list,
                   incumbent: np.ndarray, *, solve: Callable[..., SolveResult],
                   lower_bound: float, budget: Budget) -> np.ndarray | None:
    """The best pattern among those that suppress only cells some pattern found so far
    suppresses or the root LP uses most.

    The LP's cells join in decreasing ``y*`` while the neighbourhood holds at most
    :data:`SUPPORT_CELLS` of the candidates (the patterns alone, or the incumbent alone
    where they hold more); every other candidate is published. The restricted problem is
    small, so it is often solved to optimality. ``lower_bound`` is valid for the
    restriction too (its optimum is no better); the result is over ``inst.candidates``, or
    None when nothing was found or no time is left.
    """
    cap = int(SUPPORT_CELLS * incumbent.size)
    keep = np.logical_or.reduce([p > 0.5 for p in patterns + [incumbent]])
    if keep.sum() > cap:
        keep = incumbent > 0.5
    by_lp = np.argsort(-root_y, kind="stable")
    by_lp = by_lp[(root_y[by_lp] > 1e-9) & ~keep[by_lp]]
    keep[by_lp[:max(cap - int(keep.sum()), 0)]] = True
    if keep.all():  # no smaller problem to solve
        return None
    left = budget.time_limit()
    if left is not None and left <= 0:
        return None
    table = inst.table
    published = np.setdiff1d(np.flatnonzero(~table.sensitive), inst.candidates[keep])
    found = _restricted(solve, table, time_limit=left, weights=inst.weights,
                        must_publish=published, mip_start=inst.candidates[incumbent > 0.5],
                        lower_bound=lower_bound)
    if found is None:  # the cells kept cannot protect them all, or no time was left
        return None
    log.info("support neighbourhood of %d cells: pattern of cost %g (%s)", int(keep.sum()),
             found.objective, found.status)
    return candidate_mask(table, inst.candidates, found.suppressed).astype(float)


def search_balls(inst: IntervalInstance, incumbent: np.ndarray, *,
                 solve: Callable[..., SolveResult],
                 offer: Callable[[np.ndarray], np.ndarray | None], budget: Budget,
                 seed: int = 0,
                 interlude: Callable[[], np.ndarray | None] | None = None) -> int:
    """Re-solve the incumbent inside balls around the sensitive cells, growing the balls at
    each local optimum (variable neighbourhood search, Mladenović & Hansen 1997), until the
    largest balls find nothing better or ``budget`` expires.

    The next centre is the one not tried since the last improvement whose relations hold the
    dearest suppressions of the incumbent: where a cheaper pattern is likeliest (better
    than a random order). A ball (:func:`relation_ball`) frees :data:`BALL_CELLS` of the
    candidates (of at most :data:`BALL_SCALE` of them) at first; when every cell has been a
    centre since the last improvement, or :data:`STALLED_BALLS` balls in a row found
    nothing better, balls grow by
    :data:`BALL_GROWTH` up to :data:`BALL_CELLS_MAX`. A ball's restriction
    (:class:`~cspopt.models.interval.FixedOutside`) starts from the incumbent and gets at
    most :data:`BALL_SECONDS`. A cheaper pattern goes to ``offer`` (over
    ``inst.candidates``), which returns it audited and cleaned, or None; that becomes the
    incumbent. ``interlude``, called before each ball, may return a cheaper pattern found
    otherwise (cleaned), which then becomes the incumbent. Returns the number of balls
    solved.
    """
    table = inst.table
    weights = inst.weights[inst.candidates]
    rng = np.random.default_rng(seed)
    by_relation = table.relation_matrix.tocsr()
    by_cell = by_relation.tocsc()
    eligible = np.zeros(table.num_cells, bool)
    eligible[inst.candidates] = True
    # per sensitive cell, the candidates sharing a relation with it (positions)
    position = np.full(table.num_cells, -1)
    position[inst.candidates] = np.arange(inst.candidates.size)
    near = [position[relation_ball(by_cell, by_relation, int(c), eligible, table.num_cells,
                                   rng, steps=1)] for c in inst.protected]
    share = BALL_CELLS
    published = np.setdiff1d(np.flatnonzero(~table.sensitive), inst.candidates)
    best, cost = incumbent, float(weights @ incumbent)
    untried = np.ones(inst.protected.size, bool)
    solved = stalled = 0
    while not budget.expired():
        better = None if interlude is None else interlude()
        if better is not None and weights @ better < cost - 1e-9:
            best, cost = better, float(weights @ better)
            untried[:], stalled = True, 0
        if not untried.any() or stalled >= STALLED_BALLS:  # a local optimum at this size
            if share >= BALL_CELLS_MAX:
                break
            share = min(share + BALL_GROWTH, BALL_CELLS_MAX)
            untried[:], stalled = True, 0
            log.info("balls grow to %.2f of the candidates", share)
        dearest = [float(weights[cells] @ best[cells]) if open_ else -1.0
                   for cells, open_ in zip(near, untried)]
        k = int(np.argmax(dearest))
        untried[k] = False
        solved += 1
        region = relation_ball(by_cell, by_relation, int(inst.protected[k]), eligible,
                               max(1, int(share * min(inst.candidates.size, BALL_SCALE))),
                               rng)
        local = FixedOutside(table, region, inst.candidates[best > 0.5])
        local_table, must_publish = local.apply(published)
        found = _restricted(solve, local_table, weights=inst.weights,
                            must_publish=must_publish, mip_start=local.start,
                            time_limit=min(budget.remaining(), BALL_SECONDS))
        stalled += 1
        if found is None:
            continue
        y = candidate_mask(table, inst.candidates, local.invert(found.suppressed))
        if weights @ y < cost - 1e-9:
            cleaned = offer(y.astype(float))
            if cleaned is not None and weights @ cleaned < cost - 1e-9:
                best, cost = cleaned, float(weights @ cleaned)
                untried[:], stalled = True, 0
                log.info("ball around cell %d: pattern of cost %g", inst.protected[k], cost)
    return solved


def _restricted(solve: Callable[..., SolveResult], table, **options) -> SolveResult | None:
    """``solve`` on a restriction, or None where it finds no pattern or fails: a search for
    a better pattern must not end a solve that holds one already (the failure is logged)."""
    try:
        found = solve(table, **options, **_LOCAL)
    except CspoptError as error:
        log.warning("a neighbourhood search's restriction failed: %s", error)
        return None
    return found if found.has_pattern else None


def relation_ball(by_cell, by_relation, centre: int, eligible: np.ndarray, size: int,
                  rng: np.random.Generator, *, steps: int | None = None) -> np.ndarray:
    """The ``size`` cells of ``eligible`` nearest to ``centre`` in the graph where cells
    sharing a relation are adjacent (breadth first, at most ``steps`` away; ties in random
    order).

    ``by_cell`` (CSC) and ``by_relation`` (CSR) are the relation matrix (relations x cells).
    """
    seen = np.zeros(eligible.size, bool)
    seen[centre] = True
    frontier, taken, count, step = np.array([centre]), [], 0, 0
    while count < size and frontier.size and (steps is None or step < steps):
        step += 1
        relations = np.unique(np.concatenate(
            [by_cell.indices[by_cell.indptr[c]:by_cell.indptr[c + 1]] for c in frontier]))
        cells = np.unique(np.concatenate(
            [by_relation.indices[by_relation.indptr[r]:by_relation.indptr[r + 1]]
             for r in relations])) if relations.size else np.zeros(0, np.int64)
        frontier = rng.permutation(cells[~seen[cells]])
        seen[frontier] = True
        layer = frontier[eligible[frontier]][:size - count]
        taken.append(layer)
        count += layer.size
    return np.sort(np.concatenate(taken)) if taken else np.zeros(0, np.int64)

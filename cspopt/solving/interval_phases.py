"""The phases of the interval branch-and-cut, and the schedule that runs them.

:func:`cspopt.solving.solve_branch_and_cut` builds one :class:`Run` (the instance, the capacity
oracle, the :class:`~cspopt.solving.incumbent.Incumbent`, the budgets) and runs
:data:`SCHEDULE` on it: each :class:`Phase` is a name, the share of the call's time limit it
may use (every share is declared in that table and nowhere else) and a function of the run and
its phase budget. A phase that does not apply (no gap left, a network table, no time) returns
at once. Fischetti & Salazar-Gonzalez (2001) for the model and its root LP; the start
heuristics are the incremental attacker (Smith et al. 2012), SP on networks (Almeida, Schütz &
Carvalho 2008 §3.1), rounding up the root point, and the incremental attacker guided by it
(tau-ARGUS' sequential heuristic); the neighbourhood searches are
:mod:`cspopt.solving.neighbourhoods`, in a second process where a core and the limit allow.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cspopt.audit import audit_seconds
from cspopt.backends.scip_capacity import run_capacity_scip
from cspopt.bounds.capacity import capacity_lp
from cspopt.bounds.single_cell import (
    SINGLE_CELL_SECONDS,
    dominant_cell,
    quiet_single_cell_bound,
)
from cspopt.bounds.star_cuts import star_bound
from cspopt.budget import Budget
from cspopt.errors import SolverError
from cspopt.heuristics.capped import capped_sequential
from cspopt.heuristics.cell_arcs import cell_arcs
from cspopt.heuristics.incremental import (
    incremental_attacker,
    lp_guided_attacker,
    lp_guided_costs,
)
from cspopt.heuristics.shortest_paths import sp_heuristic
from cspopt.models.interval import CapacityOracle, IntervalInstance, root_separators
from cspopt.models.suppression import candidate_mask
from cspopt.options import AUDIT_SHARE, HEURISTIC_SHARE
from cspopt.solving.audited import pattern_cells
from cspopt.solving.incumbent import Incumbent
from cspopt.solving.neighbourhoods import search_neighbourhoods
from cspopt.solving.search_process import SearchJob, SearchProcess, available_processes

__all__ = ["Phase", "Run", "SCHEDULE", "SHARES", "SEARCH_PROCESS_FROM", "network_heuristic"]

log = logging.getLogger(__name__)

#: every share of the call's time limit a phase may use, in one place
SHARES = {
    # the start heuristics (also each LP-guided pattern)
    "heuristic": HEURISTIC_SHARE,
    # the root's cutting-plane loop, counted from the call's start: it stops there where it
    # does not converge, or sooner once it tails off; SCIP's own root separates faster
    "root lp": 0.5,
    # a dominant cell's star cuts and its own MIP, each of the time left
    "single cell": 0.5,
    # the sweep of balls around the sensitive cells, and the support neighbourhood
    "balls": 0.2,
    "neighbourhood": 0.25,
    # the bridgeless cuts' rounds after a converged root, with the capped search
    "bridgeless": 0.4,
    # the capped search where the root did not converge (tables that are not networks)
    "capped search": 0.6,
    # kept for the final audit, which always runs (less where an audit was timed)
    "audit": AUDIT_SHARE,
    # each delete-and-check pass of an offered pattern
    "prune": 0.1,
}

#: the time kept for the final audit is measured (an audit of the first incumbent) when its
#: share of the limit would keep more than this many seconds; it is then this multiple of the
#: measured audit, and at least _AUDIT_FLOOR seconds
_TIMED_AUDIT_FROM = 20.0
_AUDIT_MARGIN = 2.0
_AUDIT_FLOOR = 5.0
#: on tables that are not networks with at most this many sensitive cells to protect, the
#: capped single-cell MIPs (:mod:`cspopt.heuristics.capped`) follow the first heuristic
_CAPPED_CELLS = 20
#: the shortest time limit at which the searches get a process of their own (starting one
#: takes about a second); without a time limit they run in turn, so that a solve to
#: optimality is reproducible
SEARCH_PROCESS_FROM = 30.0
#: seconds that must remain for a dominant cell's own bounds to start
_SINGLE_CELL_FLOOR = 1.0


@dataclass
class Run:
    """What the phases of one solve share: the instance and its oracle, the incumbent, the
    call's budget and the search's (which ends where the final audit's time begins), the
    options, and what the root leaves for the phases after it."""

    table: object
    inst: IntervalInstance
    oracle: CapacityOracle
    incumbent: Incumbent
    budget: Budget
    search: Budget
    gap: float
    verbose: bool
    separation: str
    neighbourhood: bool
    bridgeless: bool
    processes: int | None
    timed_audit: bool
    focus: np.ndarray | None = None
    solve: Callable | None = None  # the branch-and-cut itself, for the searches' restrictions
    root_y: np.ndarray | None = None
    lp_order: np.ndarray | None = None  # the candidates least wanted by the root LP first
    root_cuts: list = field(default_factory=list)
    converged: bool = False
    floor: float = 0.0  # a bound the capacity rows do not imply (a dominant cell's)
    searcher: SearchProcess | None = None
    termination: str = "optimal"
    message: str = ""

    @property
    def ny(self) -> int:
        return int(self.inst.candidates.size)

    @property
    def to_do(self) -> bool:
        """Whether there is anything to search for: candidates, cells to protect, a gap."""
        return bool(self.ny and self.inst.protected.size and self.incumbent.open)

    @functools.cached_property
    def dearest_first(self) -> np.ndarray:
        """The candidates, dearest first."""
        return np.argsort(-self.incumbent.weights)

    @property
    def beside(self) -> bool:
        """Whether the searches run in a second process (a core for it and a time limit of
        :data:`SEARCH_PROCESS_FROM` seconds or more, on tables that are not networks)."""
        processes = (min(2, available_processes()) if self.processes is None
                     else self.processes)
        return (self.neighbourhood and self.oracle.network is None
                and self.incumbent.y is not None and processes >= 2
                and self.budget.limit is not None and self.budget.limit >= SEARCH_PROCESS_FROM)

    def arrivals(self) -> list[np.ndarray]:
        """The search process's patterns since the last call that are cheaper than the
        incumbent and protect every cell by this process's oracle, recorded."""
        taken = []
        for y in self.searcher.patterns() if self.searcher is not None else ():
            if (self.incumbent.cost(y) < self.incumbent.upper - 1e-9
                    and self.oracle.protects(y, self.search)):
                self.incumbent.take("search process", y)
                taken.append(y)
        return taken


@dataclass(frozen=True)
class Phase:
    """One phase: its name (its ``timings`` key where ``timed``; untimed phases time their
    own parts), the share of the call's limit it may use from when it starts (from the call's
    start if ``from_start``; None: up to the search's end) and what it does."""

    name: str
    share: float | None
    run: Callable[[Run, Budget], None]
    from_start: bool = False
    timed: bool = True

    def budget(self, run: Run) -> Budget:
        """This phase's budget in ``run``, never past the search's end."""
        if self.share is None:
            return run.search
        return (run.search.opening(self.share) if self.from_start
                else run.search.share(self.share))


def network_heuristic(inst, oracle: CapacityOracle, budget: Budget,
                      costs: np.ndarray | None = None) -> np.ndarray | None:
    """The SP heuristic's pattern (Almeida, Schütz & Carvalho 2008 §3.1) on the oracle's
    network under ``costs`` (per cell; default the weights), as ``y`` over the candidates:
    ``None`` on tables that are not networks or when the budget stops it."""
    if oracle.network is None or not inst.protected.size:
        return None
    found = sp_heuristic(inst, costs=costs, arcs=cell_arcs(inst, "SP", oracle.network),
                         budget=budget)
    return None if found.stopped or found.failed else found.suppressed


def start_heuristics(run: Run, budget: Budget) -> None:
    """SP's paths on networks, else the incremental attacker (on the candidate set first,
    if focused), then the capped single-cell MIPs where few cells are to protect."""
    inst, oracle, incumbent = run.inst, run.oracle, run.incumbent
    paths = network_heuristic(inst, oracle, budget)
    if (paths is None or not incumbent.offer("heuristic", paths, run.dearest_first, budget)
            ) and run.ny and inst.protected.size:
        focus = run.focus
        for subset in ([inst.keep(focus)] if focus is not None else []) + [inst]:
            greedy = candidate_mask(inst.table, inst.candidates, incremental_attacker(
                subset, budget=budget)).astype(float)
            if incumbent.offer("heuristic", greedy, run.dearest_first, budget):
                break
    if oracle.network is None and run.ny and 0 < inst.protected.size <= _CAPPED_CELLS:
        capped = capped_sequential(inst, budget=budget)
        if not capped.stopped and incumbent.cost(capped.suppressed) < incumbent.upper:
            incumbent.offer("capped MIPs", capped.suppressed, run.dearest_first, budget)


def audit_estimate(run: Run, budget: Budget) -> None:
    """Where the audit's share of a long limit would keep more than it needs, keep a margin
    of what an audit of the first incumbent costs instead (the search's end moves)."""
    limit = run.budget.limit
    if not (run.timed_audit and run.incumbent.y is not None and limit is not None
            and SHARES["audit"] * limit > _TIMED_AUDIT_FROM):
        return
    with run.budget.phase("audit_estimate"):
        expected = audit_seconds(run.table, pattern_cells(run.inst, run.incumbent.y))
    run.search = run.budget.reserve(min(SHARES["audit"] * limit,
                                        max(_AUDIT_MARGIN * expected, _AUDIT_FLOOR)))


def root_lp(run: Run, budget: Budget) -> None:
    """The root's cutting-plane loop (:func:`capacity_lp`, without bridgeless cuts, stopped
    once it tails off), then its point rounded up as a pattern."""
    inst, incumbent = run.inst, run.incumbent
    bound, run.root_y, run.root_cuts, run.converged = capacity_lp(
        inst, run.oracle, budget=budget, tail_off=True,
        separators=root_separators(run.oracle, bridgeless=False))
    run.lp_order = np.lexsort((-incumbent.weights, run.root_y))  # dearest first among equals
    incumbent.record("root lp", lower=bound)
    if run.ny:  # the master's point, rounded up, often protects even before convergence
        incumbent.offer("rounding", (run.root_y > 1e-9).astype(float), run.lp_order,
                        run.search)


def root_guided(run: Run, budget: Budget) -> None:
    """The pattern the root's LP point guides (SP on networks, else the incremental
    attacker), offered as an incumbent (in the search process instead, where it runs)."""
    if not run.to_do or run.beside:
        return
    _guided_pattern(run, budget)


def _guided_pattern(run: Run, budget: Budget) -> None:
    inst = run.inst
    guided = network_heuristic(inst, run.oracle, budget, lp_guided_costs(inst, run.root_y))
    if guided is None:
        guided = lp_guided_attacker(inst, run.root_y, budget=budget)
        guided = None if guided is None else candidate_mask(
            inst.table, inst.candidates, guided).astype(float)
    if guided is not None:
        run.incumbent.offer("lp-guided", guided, run.lp_order, budget)


def single_cell(run: Run, budget: Budget) -> None:
    """Where one sensitive cell carries most of the bound, its star cuts (2-D tables) and its
    own MIP bound better than the tree, and their patterns, alone or joined to the incumbent
    and pruned, are better ones (:mod:`cspopt.bounds.single_cell`)."""
    inst, incumbent = run.inst, run.incumbent
    remaining = SINGLE_CELL_SECONDS if run.search.end is None else run.search.remaining()
    if not (run.ny and incumbent.open and remaining > _SINGLE_CELL_FLOOR):
        return
    cell = dominant_cell(inst, run.root_cuts)
    if cell is None:
        return
    seconds = SHARES["single cell"] * remaining

    def offer_cell_pattern(phase: str, y: np.ndarray) -> None:
        # the other cells' suppressions are dropped first, the cell's own last
        order = np.lexsort((-incumbent.weights, run.root_y, y))
        if not incumbent.offer(phase, y, order, run.search) and incumbent.y is not None:
            incumbent.offer(phase, np.maximum(y, incumbent.y), order, run.search)

    with run.budget.phase("star_cuts"):
        star = star_bound(inst, cell, time_limit=seconds)
        if star is not None:
            run.floor = star.lower_bound
            incumbent.record("star cuts", lower=run.floor)
            if star.pattern is not None:
                offer_cell_pattern("star cuts", star.pattern)
    if incumbent.open:
        with run.budget.phase("single_cell"):
            single = quiet_single_cell_bound(inst, cell, start=incumbent.y, time_limit=seconds)
            if single is not None:
                run.floor = max(run.floor, single.lower_bound)
                incumbent.record("single cell", lower=run.floor)
                if single.pattern is not None:
                    offer_cell_pattern("single cell", single.pattern)


def searches(run: Run, budget: Budget) -> None:
    """The neighbourhood searches around a converged root on tables that are not networks:
    in a second process beside the rest (which then also runs the LP-guided heuristic), or
    here in turn (balls, then the support neighbourhood)."""
    support = run.neighbourhood and run.oracle.network is None and run.converged
    incumbent = run.incumbent
    if run.beside and run.inst.protected.size and incumbent.open:
        run.searcher = _start_search_process(run, support=support)
        if run.searcher is None and run.to_do:  # the child would have run it: here, in turn
            _guided_pattern(run, run.search.share(SHARES["heuristic"]))
    if run.searcher is None and support and incumbent.open:
        run.budget.timings.update(search_neighbourhoods(
            run.inst, incumbent.y, run.root_y, incumbent.found, solve=run.solve,
            offer=lambda phase, y: (incumbent.found[-1] if incumbent.offer(
                phase, y, run.lp_order, run.search) else None),
            lower_bound=incumbent.lower, balls=run.search.share(SHARES["balls"]),
            support_seconds=run.budget.fraction(SHARES["neighbourhood"]), budget=run.search))


def _start_search_process(run: Run, *, support: bool) -> SearchProcess | None:
    """The LP-guided patterns and the searches in a second process until the search's end,
    the balls until the support neighbourhood's share of the limit is left; None where no
    process starts (the caller then searches in turn)."""
    to_wall = time.time() - time.perf_counter()
    end = run.search.end
    job = SearchJob(instance=run.inst, incumbent=run.incumbent.y, root_y=run.root_y,
                    patterns=tuple(run.incumbent.found), lower_bound=run.incumbent.lower,
                    separation=run.separation, solve=run.solve,
                    balls_until=end - SHARES["neighbourhood"] * run.budget.limit + to_wall,
                    until=end + to_wall, support=support)
    try:
        return SearchProcess(job)
    except (OSError, ValueError) as error:
        log.warning("no search process (%s): the searches run before the tree", error)
        return None


def root_more(run: Run, budget: Budget) -> None:
    """After a converged root, its bridgeless cuts' rounds with the capped search; where it
    stopped unconverged (tables that are not networks), the capped search from its cuts.
    Their master points guide the search process's patterns."""
    oracle, incumbent = run.oracle, run.incumbent
    points = None if run.searcher is None else run.searcher.send_point
    if not incumbent.open:
        return
    if run.bridgeless and oracle.has_bridgeless and run.converged:
        name, separators = "bridgeless", root_separators(oracle, capped_search=True)
    elif not run.converged and oracle.network is None:
        name = "capped search"
        separators = root_separators(oracle, capped_search=True, bridgeless=False)
    else:
        return
    with run.budget.phase(name.replace(" ", "_")):
        bound, _, run.root_cuts, converged = capacity_lp(
            run.inst, oracle, budget=run.search.share(SHARES[name]), cuts=run.root_cuts,
            separators=separators, points=points)
    if name == "capped search":
        run.converged = converged
    incumbent.record(name, lower=bound)


def tree(run: Run, budget: Budget) -> None:
    """SCIP's branch-and-cut from the root's cuts and the incumbent, for the search's time
    left (:func:`~cspopt.backends.scip_capacity.run_capacity_scip`); an error inside SCIP
    leaves the incumbent and the bound standing."""
    run.arrivals()
    incumbent = run.incumbent
    if not (incumbent.open and run.ny and run.inst.protected.size):
        return
    left = run.search.time_limit()
    if left is not None and left <= 0:
        run.termination = "time_limit"
        return
    try:
        with run.budget.phase("branch_and_cut"):
            run.termination, lower, y = run_capacity_scip(
                run.inst, run.oracle, run.root_cuts, incumbent.y,
                time_limit=left, gap=run.gap, verbose=run.verbose,
                record=incumbent.record, stop_at=incumbent.lower, objective_floor=run.floor,
                arrivals=run.arrivals if run.searcher else None,
                points=None if run.searcher is None else run.searcher.send_point)
        incumbent.record("scip", lower=lower, y=y)
    except SolverError as error:  # the incumbent and the bound still stand
        log.warning("%s; the best pattern found before is returned", error)
        run.termination, run.message = "error", str(error)


#: the phases in order; each timed under its name unless it times its own parts
SCHEDULE = (
    Phase("heuristic", SHARES["heuristic"], start_heuristics),
    Phase("audit_estimate", None, audit_estimate, timed=False),
    Phase("root_lp", SHARES["root lp"], root_lp, from_start=True),
    Phase("root_heuristic", SHARES["heuristic"], root_guided),
    Phase("single cell", None, single_cell, timed=False),
    Phase("searches", None, searches, timed=False),
    Phase("root more", None, root_more, timed=False),
    Phase("tree", None, tree, timed=False),
)

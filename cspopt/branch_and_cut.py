"""Branch-and-cut on the suppression variables only, with capacity constraints (SCIP).

Fischetti & Salazar-Gonzalez (1999, 2001): the compact model of :mod:`cspopt.interval` keeps
two deviation vectors per sensitive cell, so its size grows with (sensitive cells) x (cells).
Projected onto ``y`` it becomes

    min  sum_i w_i y_i   s.t.  every capacity constraint of :mod:`cspopt.capacity`,  y binary,

with exponentially many rows, added only when violated. The root LP is solved by a
cutting-plane loop on HiGHS (:func:`capacity_lp`); its cuts seed SCIP, where a constraint
handler separates more at fractional points (``conssepalp``), enforces them at integral ones
(``consenfolp``/``consenfops``), checks heuristic solutions (``conscheck``) and declares down-
locks on every ``y`` (``conslock``: a capacity row only asks for *more* suppression; without
locks SCIP's dual reductions would fix ``y`` to 0 and return wrong optima).

Incumbents: the incremental attacker heuristic (Smith et al. 2012) and rounding up the root LP
point, both cleaned of redundant suppressions and audited. The dual bound and the incumbent
are reported as they move (``progress``) and kept in ``history``.

Complexity per separation: one maximum flow (2-D tables) or one warm-started LP per protected
cell and side.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

import numpy as np
from pyscipopt import SCIP_EVENTTYPE, SCIP_PARAMSETTING, SCIP_RESULT, Conshdlr, Eventhdlr
from pyscipopt import quicksum

from cspopt._highs import new_highs
from cspopt.capacity import CapacityCut, CapacityOracle
from cspopt.errors import InputError, SolverError
from cspopt.formulations.scip import TERMINATION, new_scip
from cspopt.interval import (IntervalInstance, audit_interval_pattern, build_interval_instance,
                             incremental_attacker)
from cspopt.result import SolveResult, integral_bound, relative_gap

__all__ = ["capacity_lp", "solve_branch_and_cut"]

log = logging.getLogger(__name__)


def capacity_lp(inst: IntervalInstance, oracle: CapacityOracle, *, core=None,
                time_limit=None, max_rounds: int = 1000, deadline: float | None = None):
    """The LP relaxation of the projected model by stabilised cutting planes on HiGHS.

    Kelley's loop tails off on Benders cuts, so cuts are separated at a point between the
    master's optimum ``y*`` and a feasible *core* point (in-out separation, Ben-Ameur & Neto
    2007): when nothing is violated there the core moves to it and ``y*`` itself is
    separated. ``core`` defaults to suppressing every candidate.

    Returns ``(bound, y, cuts, converged)``: the master's last optimum (a valid lower bound
    at every round, since the master relaxes the projected LP), its point, every cut added,
    and whether separation at ``y*`` found nothing more (then ``bound`` is the projected LP's
    value, at least the compact model's LP bound, equal to it without coefficient capping).
    """
    started = time.perf_counter()
    if deadline is None and time_limit is not None:
        deadline = started + time_limit
    ny = inst.candidates.size
    weights = inst.weights[inst.candidates]
    master = new_highs(np.zeros((0, ny)), weights, np.zeros(ny), np.ones(ny), np.zeros(0),
                       np.zeros(0), presolve=False, what="capacity master LP")
    core = np.ones(ny) if core is None else np.asarray(core, float)
    cuts: list[CapacityCut] = []
    bound, y, converged = 0.0, np.zeros(ny), False
    for _ in range(max_rounds):
        master.run()
        y = np.clip(np.asarray(master.getSolution().col_value), 0.0, 1.0)
        bound = float(master.getInfo().objective_function_value)
        probe = 0.5 * (y + core)
        _, found = oracle.separate(probe)
        if not found:
            core = probe  # satisfies every capacity constraint
            _, found = oracle.separate(y)
            if not found:
                converged = True
                break
        _add_rows(master, found)
        cuts += found
        if deadline is not None and time.perf_counter() > deadline:
            break
    return bound, y, cuts, converged


def _add_rows(highs, cuts: list[CapacityCut]) -> None:
    starts = np.cumsum([0] + [c.candidates.size for c in cuts[:-1]]).astype(np.int32)
    index = np.concatenate([c.candidates for c in cuts]).astype(np.int32)
    value = np.concatenate([c.coefficients for c in cuts])
    highs.addRows(len(cuts), np.ones(len(cuts)), np.full(len(cuts), np.inf), index.size,
                  starts, index, value)


def solve_branch_and_cut(table, *, time_limit: float | None = None, gap: float = 1e-6,
                         verbose: bool = False, weights=None, must_publish=None,
                         preprocessing: bool = True, separation: str = "auto",
                         mip_start=None, instance: IntervalInstance | None = None,
                         progress: Callable[[dict], None] | None = None) -> SolveResult:
    """Solve the interval-protection problem by branch-and-cut on ``y`` (SCIP).

    ``separation``: ``"network"`` (minimum cuts, 2-D tables), ``"lp"`` (attacker LPs, any
    linear table) or ``"auto"``. The result has the fields of every cspopt solve; its
    pattern passes :func:`cspopt.audit` with ``requirement="interval"`` and its lower bound is
    SCIP's dual bound (rounded up under integer weights).
    """
    started = time.perf_counter()
    if time_limit is not None and not time_limit > 0:
        raise InputError(f"time_limit must be positive, got {time_limit}")
    deadline = None if time_limit is None else started + time_limit
    inst = instance or build_interval_instance(table, weights=weights, must_publish=must_publish,
                                               preprocessing=preprocessing)
    oracle = CapacityOracle(inst, method=separation)
    ny = inst.candidates.size
    if not oracle.separate(np.ones(ny), decide=True)[0]:  # not even suppressing everything
        return _result(table, inst, oracle, dict(y=None, upper=math.inf, lower=math.inf),
                       "infeasible", [], {}, started, num_root_cuts=0)
    weights_y = inst.weights[inst.candidates]
    history: list[dict] = []
    timings: dict[str, float] = {}
    best = dict(y=None, upper=math.inf, lower=0.0)

    def record(phase: str, lower: float | None = None, y=None) -> None:
        changed = False
        if y is not None and float(weights_y @ y) < best["upper"] - 1e-9:
            best["y"], best["upper"], changed = y.copy(), float(weights_y @ y), True
        if lower is not None and lower > best["lower"] + 1e-9:
            best["lower"], changed = lower, True
        if changed or not history:
            history.append(dict(iteration=len(history), time=time.perf_counter() - started,
                                lower_bound=best["lower"], upper_bound=best["upper"],
                                phase=phase))
            if progress is not None:
                progress(history[-1])

    if mip_start is not None:
        start = _candidate_vector(inst, mip_start)
        if not oracle.separate(start, decide=True)[0]:
            raise InputError("the given start pattern does not protect every sensitive cell")
        record("start", y=start)
    t0 = time.perf_counter()
    if ny and inst.protected.size:
        greedy = _candidate_vector(inst, incremental_attacker(inst))
        if oracle.separate(greedy, decide=True)[0]:
            record("heuristic", y=oracle.prune(greedy, np.argsort(-weights_y), deadline))
    timings["heuristic"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    root_bound, root_y, root_cuts, converged = capacity_lp(inst, oracle, deadline=deadline)
    timings["root_lp"] = time.perf_counter() - t0
    record("root lp", lower=integral_bound(root_bound, weights_y))
    if converged and ny:
        rounded = (root_y > 1e-9).astype(float)
        if oracle.separate(rounded, decide=True)[0]:
            order = np.lexsort((-weights_y, root_y))  # least wanted by the LP first
            record("rounding", y=oracle.prune(rounded, order, deadline))
    timings["root_heuristic"] = time.perf_counter() - t0 - timings["root_lp"]

    termination = "optimal"
    if best["upper"] > best["lower"] + 1e-9 and ny and inst.protected.size:
        remaining = None if deadline is None else deadline - time.perf_counter()
        if remaining is not None and remaining <= 0:
            termination = "time_limit"
        else:
            t0 = time.perf_counter()
            termination, lower, y = _run_scip(inst, oracle, root_cuts, best["y"],
                                              time_limit=remaining, gap=gap, verbose=verbose,
                                              record=record)
            timings["branch_and_cut"] = time.perf_counter() - t0
            record("scip", lower=lower, y=y)
    return _result(table, inst, oracle, best, termination, history, timings, started,
                   num_root_cuts=len(root_cuts))


def _result(table, inst, oracle, best, termination, history, timings, started, *,
            num_root_cuts: int) -> SolveResult:
    suppressed, objective, checked = (), math.nan, None
    lower = best["lower"]
    if best["y"] is not None:
        suppressed = tuple(int(c) for c in inst.candidates[best["y"] > 0.5])
        objective = best["upper"]
        checked = audit_interval_pattern(table, suppressed, timings, "branch-and-cut")
        lower = min(lower, objective)
    elif not inst.protected.size or not inst.candidates.size:
        suppressed, objective, lower = (), 0.0, 0.0
    proven = math.isfinite(objective) and objective <= lower + 1e-9
    if termination == "infeasible":
        lower = math.inf
    status = ("infeasible" if termination == "infeasible" else
              "none" if not math.isfinite(objective) else "optimal" if proven else "feasible")
    timings["total"] = time.perf_counter() - started
    return SolveResult(
        method=f"bc(FS)/scip/{'network' if oracle.network is not None else 'lp'}",
        termination="optimal" if proven else termination, status=status,
        suppressed=suppressed, objective=objective, lower_bound=float(lower),
        gap=relative_gap(objective, lower), proven_optimal=proven,
        proof=("lp" if history and history[-1]["phase"] != "scip" else "mip") if proven else "",
        model="FS", unsafe=tuple(map(int, inst.protected)), safe=tuple(map(int, inst.safe)),
        timings=timings, model_size=dict(candidates=int(inst.candidates.size),
                                         protected=int(inst.protected.size),
                                         root_cuts=num_root_cuts,
                                         attacker_lps=oracle.num_lp_solves,
                                         max_flows=oracle.num_flow_solves),
        history=tuple(history), audit=checked)


def _candidate_vector(inst: IntervalInstance, cells) -> np.ndarray:
    chosen = np.zeros(inst.candidates.size)
    cells = np.asarray(sorted(set(int(c) for c in cells) - set(map(int, inst.table.sensitive_cells))),
                       dtype=np.int64)
    pos = np.searchsorted(inst.candidates, cells)
    bad = cells[(pos >= inst.candidates.size) | (inst.candidates[np.minimum(
        pos, inst.candidates.size - 1)] != cells)]
    if bad.size:
        raise InputError(f"cells {bad.tolist()} cannot be suppressed under these options")
    chosen[pos] = 1.0
    return chosen


def _run_scip(inst, oracle, root_cuts, incumbent, *, time_limit, gap, verbose, record):
    ny = inst.candidates.size
    model = new_scip("cspopt-bc", time_limit=time_limit, gap=gap, verbose=verbose)
    # the capacity rows live in the handler; presolve could only aggregate y behind its back
    model.setPresolve(SCIP_PARAMSETTING.OFF)
    model.setParam("presolving/maxrestarts", 0)
    y = [model.addVar(name=f"y{c}", vtype="B", obj=float(w))
         for c, w in zip(inst.candidates.tolist(), inst.weights[inst.candidates].tolist())]
    for cut in root_cuts:
        model.addCons(quicksum(float(a) * y[j] for j, a in zip(cut.candidates.tolist(),
                                                               cut.coefficients.tolist())) >= 1.0,
                      removable=True)
    handler = _CapacityHandler(oracle, y)
    model.includeConshdlr(handler, "capacity", "Fischetti-Salazar capacity constraints",
                          sepapriority=1000, enfopriority=-1, chckpriority=-1, sepafreq=1,
                          needscons=False)
    model.includeEventhdlr(_Progress(record, y), "progress", "reports bounds as they move")
    if incumbent is not None:
        sol = model.createSol()
        for var, value in zip(y, incumbent.tolist()):
            model.setSolVal(sol, var, float(value))
        model.addSol(sol)
    model.optimize()
    status = model.getStatus()
    termination = TERMINATION.get(status)
    if termination is None:
        raise SolverError(f"SCIP ended with status {status}")
    lower = model.getDualbound()
    found = None
    if model.getNSols() > 0:
        sol = model.getBestSol()
        found = np.array([round(model.getSolVal(sol, v)) for v in y], dtype=float)
    log.info("branch-and-cut: %s, %d nodes, %d cuts", status, model.getNNodes(), handler.num_cuts)
    weights = inst.weights[inst.candidates]
    lower = integral_bound(lower, weights) if math.isfinite(lower) else (
        math.inf if termination == "infeasible" else 0.0)
    return termination, lower, found if found is not None and ny else None


class _CapacityHandler(Conshdlr):
    """SCIP constraint handler: capacity constraints separated and enforced on demand."""

    def __init__(self, oracle: CapacityOracle, variables):
        self.oracle = oracle
        self.variables = variables
        self._transformed = None
        self.num_cuts = 0

    def _vars(self):
        if self._transformed is None:
            self._transformed = [self.model.getTransformedVar(v) for v in self.variables]
        return self._transformed

    def _lp_values(self) -> np.ndarray:
        return np.array([v.getLPSol() for v in self._vars()])

    def _solution_values(self, solution) -> np.ndarray:
        """Rounded values in ``solution`` (None: the current LP or pseudo solution)."""
        return np.round([self.model.getSolVal(solution, v) for v in self.variables])

    def _add(self, cuts, *, force: bool) -> bool:
        """Add rows; True if one is infeasible at the node (the node can be cut off)."""
        tvars = self._vars()
        infeasible = False
        for cut in cuts:
            row = self.model.createEmptyRowUnspec(name=f"cap{self.num_cuts}", lhs=1.0,
                                                  rhs=None, local=False, removable=True)
            self.model.cacheRowExtensions(row)
            for j, a in zip(cut.candidates.tolist(), cut.coefficients.tolist()):
                self.model.addVarToRow(row, tvars[j], a)
            self.model.flushRowExtensions(row)
            infeasible |= bool(self.model.addCut(row, forcecut=force))
            self.model.addPoolCut(row)
            self.model.releaseRow(row)
            self.num_cuts += 1
        return infeasible

    def conssepalp(self, constraints, nusefulconss):
        _, cuts = self.oracle.separate(self._lp_values())
        if not cuts:
            return {"result": SCIP_RESULT.DIDNOTFIND}
        if self._add(cuts, force=False):
            return {"result": SCIP_RESULT.CUTOFF}
        return {"result": SCIP_RESULT.SEPARATED}

    def consenfolp(self, constraints, nusefulconss, solinfeasible):
        protected, cuts = self.oracle.separate(self._solution_values(None), decide=True)
        if protected:
            return {"result": SCIP_RESULT.FEASIBLE}
        if cuts:
            if self._add(cuts, force=True):
                return {"result": SCIP_RESULT.CUTOFF}
            return {"result": SCIP_RESULT.SEPARATED}
        return {"result": SCIP_RESULT.INFEASIBLE}

    def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
        protected, _ = self.oracle.separate(self._solution_values(None), decide=True,
                                            first=True)
        return {"result": SCIP_RESULT.FEASIBLE if protected else SCIP_RESULT.SOLVELP}

    def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason,
                  completely):
        protected, _ = self.oracle.separate(self._solution_values(solution), decide=True,
                                            first=True)
        return {"result": SCIP_RESULT.FEASIBLE if protected else SCIP_RESULT.INFEASIBLE}

    def conslock(self, constraint, locktype, nlockspos, nlocksneg):
        # a capacity row asks only for more suppression: rounding y down may break it
        for var in self.variables if self.model.getStage() == 1 else self._vars():
            self.model.addVarLocksType(var, locktype, nlockspos, nlocksneg)


class _Progress(Eventhdlr):
    """Report SCIP's dual bound and incumbent when either moves."""

    def __init__(self, record, variables):
        self.record = record
        self.variables = variables

    def eventinit(self):
        self.model.catchEvent(SCIP_EVENTTYPE.NODESOLVED | SCIP_EVENTTYPE.BESTSOLFOUND, self)

    def eventexec(self, event):
        m = self.model
        lower = m.getDualbound()
        y = None
        if event.getType() == SCIP_EVENTTYPE.BESTSOLFOUND:
            sol = m.getBestSol()
            y = np.round([m.getSolVal(sol, v) for v in self.variables])
        self.record("scip", lower=lower if math.isfinite(lower) else None, y=y)
        return {}

"""The SCIP engine of the interval branch-and-cut: capacity constraints as a constraint handler.

Fischetti & Salazar-Gonzalez (2001): the model projected onto ``y`` has exponentially many
capacity rows, added when violated. A constraint handler separates them at fractional points
(``conssepalp``, through its :class:`~cspopt.models.interval.Separator` list), enforces them at
integral ones (``consenfolp``/``consenfops``), checks heuristic solutions (``conscheck``) and
declares down-locks on every ``y`` (``conslock``: a capacity row only asks for *more*
suppression; without locks SCIP's dual reductions would fix ``y`` to 0 and return wrong
optima). Beside it, a round-and-prune node heuristic (Fischetti & Salazar's, simplified), a
heuristic that hands SCIP a second process's patterns, and an event handler that reports the
bounds as they move. :func:`run_capacity_scip` is the whole engine: the caller gets the
termination, SCIP's dual bound and its best pattern.
"""

from __future__ import annotations

import functools
import logging
import math

import numpy as np
from pyscipopt import (
    SCIP_EVENTTYPE,
    SCIP_HEURTIMING,
    SCIP_RESULT,
    Conshdlr,
    Eventhdlr,
    Heur,
    quicksum,
)

from cspopt.backends.scip import TERMINATION, new_scip
from cspopt.errors import SolverError
from cspopt.models.interval import CapacityCuts, CapacityOracle, Separator
from cspopt.result import integral_bound

__all__ = ["run_capacity_scip"]

log = logging.getLogger(__name__)

#: separation rounds at a node without a better LP value before SCIP branches, on network
#: tables (minimum cuts) and on others (attacker LPs, where a round costs more and more nodes
#: lift the bound faster)
_NODE_STALL_ROUNDS = 5
_LP_NODE_STALL_ROUNDS = 1

#: where separation solves attacker LPs (tables that are not networks), a round at a
#: fractional point stops once this many sensitive cells are found exposed: SCIP re-solves
#: its LP (milliseconds) between rounds instead of after an LP for every requirement, and
#: the rounds' points lead the cuts
_SEPARATION_BATCH = 20

#: depth frequency of the round-and-prune heuristic inside SCIP
_HEURISTIC_FREQUENCY = 5


def run_capacity_scip(inst, oracle: CapacityOracle, root_cuts, incumbent, *, time_limit, gap,
                      verbose, record, stop_at: float, objective_floor: float = 0.0,
                      arrivals=None, points=None):
    """Branch-and-cut on ``y`` with the capacity handler, from ``root_cuts`` and the
    ``incumbent`` pattern: ``(termination, lower bound, best y or None)``.

    ``record(phase, lower=, y=)`` hears of every bound and incumbent; ``stop_at`` is a bound
    proven before (an incumbent that cheap ends the search), ``objective_floor`` one the
    capacity rows do not imply; ``arrivals()`` returns patterns another process found, and
    ``points(y)`` hears every LP point separated. An error inside a callback is raised
    here as :class:`~cspopt.errors.SolverError`.
    """
    ny = inst.candidates.size
    model = new_scip("cspopt-bc", time_limit=time_limit, gap=gap, verbose=verbose)
    if stop_at > 0:  # an incumbent this cheap is optimal: the caller proved the bound
        model.setParam("limits/primal", stop_at + 1e-9 * max(1.0, stop_at))
    # presolve is safe with the handler's locks (and halves the time on 2-D tables); a
    # restart would re-create the variables the handler holds
    model.setParam("presolving/maxrestarts", 0)
    # capacity rows often leave a node's LP value unchanged for a round before they lift
    # it; SCIP's default (one stalled round, then branch) branched on weak node bounds (a
    # fifth more time, several times the nodes, on 2-D tables); where a round costs
    # attacker LPs, branching sooner pays
    model.setParam("separating/maxstallrounds", _NODE_STALL_ROUNDS
                   if oracle.network is not None else _LP_NODE_STALL_ROUNDS)
    # a check costs attacker problems: SCIP need not check solutions its heuristics and
    # strong branching find that could not become the incumbent (most checks improve
    # nothing)
    model.setParam("misc/improvingsols", True)
    # SCIP's strong dual reductions (which may cut off optima as long as one is kept) reason
    # from the rows it sees, not from capacity rows separated later: even with the
    # handler's locks they fixed y to 0 and cut off optimal patterns (fuzz tables). Weak
    # ones (reduced-cost and objective propagation) cut off only points worse than a bound
    # of a relaxation, which stays valid as rows are added: kept, they prove tables the
    # tree left open
    model.setParam("misc/allowstrongdualreds", False)
    y_lower, y_upper = inst.candidate_bounds()
    y = model.addMatrixVar((ny,), name="y", vtype="B", lb=y_lower, ub=y_upper,
                           obj=inst.weights[inst.candidates].astype(float))
    for i, j in zip(*(p.tolist() for p in inst.linked_pairs())):
        model.addCons(y[i] == y[j])  # a deviation class is suppressed whole
    for cut in root_cuts:
        terms = zip(cut.candidates.tolist(), cut.coefficients.tolist())
        model.addCons(quicksum(float(a) * y[j] for j, a in terms) >= cut.rhs, removable=True)
    if objective_floor > 0:  # a proven bound the capacity rows do not imply
        model.addCons(quicksum(float(w) * v for w, v in zip(
            inst.weights[inst.candidates].tolist(), y)) >= objective_floor)
    separators = [CapacityCuts(oracle, stop_after=None if oracle.network is not None
                               else _SEPARATION_BATCH)]
    handler = _CapacityHandler(oracle, y, separators, points)
    model.includeConshdlr(handler, "capacity", "Fischetti-Salazar capacity constraints",
                          sepapriority=1000, enfopriority=-1, chckpriority=-1, sepafreq=1,
                          needscons=False)
    model.includeEventhdlr(_Progress(record, y), "progress", "reports bounds as they move")
    heuristic = _RoundAndPrune(oracle, handler, inst.weights[inst.candidates])
    model.includeHeur(heuristic, "roundprune", "round the LP point up, then delete-and-check", "R",
                      priority=-1000, freq=_HEURISTIC_FREQUENCY,
                      timingmask=SCIP_HEURTIMING.AFTERLPNODE)
    plugins = [handler, heuristic]
    if arrivals is not None:
        plugins.append(_Arrivals(arrivals, y))
        model.includeHeur(plugins[-1], "arrivals", "patterns from the search process", "A",
                          priority=100_000, freq=1, timingmask=SCIP_HEURTIMING.BEFORENODE
                          | SCIP_HEURTIMING.DURINGLPLOOP)
    if incumbent is not None:
        sol = model.createSol()
        for var, value in zip(y, incumbent.tolist()):
            model.setSolVal(sol, var, float(value))
        model.addSol(sol)
    try:
        model.optimize()
        failure = None
    except Exception as error:  # noqa: BLE001 - pyscipopt raises a bare Exception
        failure = error
    for plugin in plugins:
        if plugin.error is not None:  # SCIP itself reports only "unspecified error"
            raise SolverError(f"branch-and-cut failed inside SCIP: {plugin.error}") \
                from plugin.error
    if failure is not None:
        raise SolverError(f"SCIP failed: {failure}") from failure
    status = model.getStatus()
    termination = TERMINATION.get(status)
    if termination is None:
        raise SolverError(f"SCIP ended with status {status}")
    lower = model.getDualbound()
    found = None
    if model.getNSols() > 0:
        sol = model.getBestSol()
        found = np.round(np.asarray(model.getSolVal(sol, y), float))
    log.info("branch-and-cut: %s, %d nodes, %d cuts", status, model.getNNodes(), handler.num_cuts)
    weights = inst.weights[inst.candidates]
    lower = integral_bound(lower, weights) if math.isfinite(lower) else (
        math.inf if termination == "infeasible" else 0.0)
    return termination, lower, found if found is not None and ny else None




def _guarded(callback, fallback=SCIP_RESULT.DIDNOTRUN):
    """Keep an exception raised inside a SCIP callback, stop the solve, and let
    :func:`run_capacity_scip` raise it (pyscipopt would only print it)."""
    def run(self, *args):
        if self.error is None:
            try:
                return callback(self, *args)
            except Exception as error:  # noqa: BLE001 - re-raised after optimize()
                self.error = error
                self.model.interruptSolve()
        return {"result": fallback}
    run.__name__, run.__doc__ = callback.__name__, callback.__doc__
    return run


def _key(y: np.ndarray) -> bytes:
    """A 0/1 point as a dictionary key."""
    return np.packbits(y > 0.5).tobytes()


class _CapacityHandler(Conshdlr):
    """SCIP constraint handler: capacity constraints separated and enforced on demand."""

    def __init__(self, oracle: CapacityOracle, variables, separators: list[Separator],
                 points=None):
        self.oracle = oracle
        self.separators = separators  # tried in turn at fractional points
        self.points = points  # called with each LP point separated (the search process's)
        self.variables = variables
        self._transformed = None
        self.num_cuts = 0
        self._verdicts: dict[bytes, bool] = {}  # SCIP checks the same 0/1 point repeatedly
        self.error: Exception | None = None

    def _protects(self, y: np.ndarray) -> bool:
        """Exact verdict on a 0/1 point, remembered (the oracle itself reuses proofs)."""
        verdict = self._verdicts.get(_key(y))
        if verdict is None:
            verdict = self.oracle.protects(y)
            self._remember(y, verdict)
        return verdict

    def _remember(self, y: np.ndarray, verdict: bool) -> None:
        if len(self._verdicts) > 100_000:
            self._verdicts.clear()
        self._verdicts[_key(y)] = verdict

    def _vars(self):
        if self._transformed is None:
            self._transformed = [self.model.getTransformedVar(v) for v in self.variables]
        return self._transformed

    def _lp_values(self) -> np.ndarray:
        return np.array([v.getLPSol() for v in self._vars()])

    def _solution_values(self, solution) -> np.ndarray:
        """Rounded values in ``solution`` (None: the current LP or pseudo solution)."""
        return np.round(np.asarray(self.model.getSolVal(solution, self.variables), float))

    def _add(self, cuts, *, force: bool) -> bool:
        """Add rows; True if one is infeasible at the node (the node can be cut off)."""
        tvars = self._vars()
        infeasible = False
        for cut in cuts:
            row = self.model.createEmptyRowUnspec(name=f"cap{self.num_cuts}", lhs=cut.rhs,
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

    @_guarded
    def conssepalp(self, constraints, nusefulconss):
        y = self._lp_values()
        if self.points is not None:
            self.points(y)
        cuts: list = []
        for separator in self.separators:
            cuts = separator.separate(y)
            if cuts:
                break
        if not cuts:
            return {"result": SCIP_RESULT.DIDNOTFIND}
        if self._add(cuts, force=False):
            return {"result": SCIP_RESULT.CUTOFF}
        return {"result": SCIP_RESULT.SEPARATED}

    @_guarded
    def consenfolp(self, constraints, nusefulconss, solinfeasible):
        y = self._solution_values(None)
        if self._verdicts.get(_key(y)):
            return {"result": SCIP_RESULT.FEASIBLE}
        protected, cuts = self.oracle.separate(y, decide=True)  # with cuts, unlike _protects
        self._remember(y, protected)
        if protected:
            return {"result": SCIP_RESULT.FEASIBLE}
        if cuts:
            if self._add(cuts, force=True):
                return {"result": SCIP_RESULT.CUTOFF}
            return {"result": SCIP_RESULT.SEPARATED}
        return {"result": SCIP_RESULT.INFEASIBLE}

    @_guarded
    def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
        protected = self._protects(self._solution_values(None))
        return {"result": SCIP_RESULT.FEASIBLE if protected else SCIP_RESULT.SOLVELP}

    @functools.partial(_guarded, fallback=SCIP_RESULT.INFEASIBLE)
    def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason,
                  completely):
        protected = self._protects(self._solution_values(solution))
        return {"result": SCIP_RESULT.FEASIBLE if protected else SCIP_RESULT.INFEASIBLE}

    def conslock(self, constraint, locktype, nlockspos, nlocksneg):
        # a capacity row asks only for more suppression: rounding y down may break it
        for var in self.variables if self.model.getStage() == 1 else self._vars():
            self.model.addVarLocksType(var, locktype, nlockspos, nlocksneg)


def _try_pattern(heuristic: Heur, variables, y: np.ndarray) -> bool:
    """Offer SCIP the 0/1 point ``y`` as ``heuristic``'s solution, in the original space
    (presolve may have fixed some ``y``); True if SCIP accepts it."""
    sol = heuristic.model.createOrigSol(heuristic)
    for var, value in zip(variables, y.tolist()):
        heuristic.model.setSolVal(sol, var, value)
    return bool(heuristic.model.trySol(sol))


class _RoundAndPrune(Heur):
    """Fischetti & Salazar's node heuristic, simplified: suppress every cell the LP point
    uses, then drop cells in increasing LP value while everything stays protected. The LP
    point satisfies the capacity cuts found so far, so rounding it up usually protects.
    After a call that finds nothing it backs off: it runs again 1, 2, 4, 8, ... calls after
    its last success (a delete-and-check costs a check per suppressed cell, and most calls
    deep in the tree find nothing: 2 of 93 on a 119-cell 1H2D survey table, 8.9 s of 16.9)."""

    def __init__(self, oracle: CapacityOracle, handler: _CapacityHandler, weights):
        self.oracle, self.handler, self.weights = oracle, handler, weights
        self.error: Exception | None = None
        self.calls = self.last_success = 0

    @_guarded
    def heurexec(self, heurtiming, nodeinfeasible):
        self.calls += 1
        since = self.calls - self.last_success
        if since & (since - 1):  # not a power of two
            return {"result": SCIP_RESULT.DIDNOTRUN}
        y_lp = np.clip(self.handler._lp_values(), 0.0, 1.0)
        rounded = (y_lp > 1e-6).astype(float)
        best = self.model.getPrimalbound()
        # pruning from far above the incumbent rarely beats it and costs a check per cell
        if self.weights @ rounded > 2 * best or not self.handler._protects(rounded):
            return {"result": SCIP_RESULT.DIDNOTFIND}
        pruned = self.oracle.prune(rounded, np.lexsort((-self.weights, y_lp)))
        if self.weights @ pruned >= best - 1e-9:
            return {"result": SCIP_RESULT.DIDNOTFIND}
        accepted = _try_pattern(self, self.handler.variables, pruned)
        if accepted:
            self.last_success = self.calls
        return {"result": SCIP_RESULT.FOUNDSOL if accepted else SCIP_RESULT.DIDNOTFIND}


class _Arrivals(Heur):
    """Hand SCIP the search process's patterns (checked by ``arrivals``) at every node and
    separation round."""

    def __init__(self, arrivals, variables):
        self.arrivals, self.variables = arrivals, variables
        self.error: Exception | None = None

    @_guarded
    def heurexec(self, heurtiming, nodeinfeasible):
        result = SCIP_RESULT.DIDNOTFIND
        for y in self.arrivals():
            if _try_pattern(self, self.variables, y):
                result = SCIP_RESULT.FOUNDSOL
        return {"result": result}


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
            y = np.round(np.asarray(m.getSolVal(sol, self.variables), float))
        self.record("scip", lower=lower if math.isfinite(lower) else None, y=y)
        return {}

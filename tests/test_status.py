"""The status contract (docs/solve.md): one place makes statuses consistent, for every method."""

import math

import pytest
from helpers import INSTANCES

import cspopt
from cspopt.audit import audit
from cspopt.io import read_table
from cspopt.result import SolutionStatus, SolveResult, TerminationCondition


def make(termination, status, objective, lower, audit_result=None, proven=True):
    return SolveResult(method="m", termination=termination, status=status, suppressed=(1,),
                       objective=objective, lower_bound=lower, gap=0.0, proven_optimal=proven,
                       proof="mip", model="P", unsafe=(), safe=(), audit=audit_result)


def test_optimal_only_when_proven():
    claimed = make("optimal", "optimal", 10.0, 1.0)  # a solver's "optimal" within gap=0.9
    assert claimed.status == SolutionStatus.feasible and not claimed.proven_optimal
    assert claimed.gap == pytest.approx(0.9) and claimed.proof == ""
    closed = make("gap_limit", "feasible", 10.0, 10.0, proven=False)
    assert (closed.termination, closed.status, closed.proven_optimal) == (
        "optimal", "optimal", True) and closed.gap == 0
    noise = make("optimal", "optimal", 1.5, 1.5 - 1e-16)
    assert noise.proven_optimal and noise.gap == 0.0


def test_infeasible_on_both_or_neither_and_unsafe_never_optimal():
    result = make("optimal", "infeasible", 0.0, 0.0)
    assert result.termination == TerminationCondition.infeasible
    assert result.suppressed == () and math.isnan(result.objective)
    assert result.lower_bound == math.inf
    table = read_table(INSTANCES / "ex1.jj")
    exposed = audit(table, [4], requirement="interval")
    assert not make("optimal", "optimal", 5.0, 5.0, exposed).proven_optimal


def test_every_method_keeps_the_contract():
    ex1 = read_table(INSTANCES / "ex1.jj")
    fig3 = read_table(INSTANCES / "ac2005_fig3.jj")
    results = [cspopt.solve(ex1), cspopt.solve(ex1, method="mip"), cspopt.bound(ex1),
               cspopt.certify(ex1, [4, 10, 11, 14]), cspopt.certify(ex1, [4])]
    for method in ("auto", "lagrangian", "mip", "branch-and-cut"):
        results.append(cspopt.solve(fig3, method=method))
    results += [cspopt.bound(fig3), cspopt.certify(fig3, [2, 8, 10])]
    for result in results:
        assert isinstance(result.status, SolutionStatus)
        assert isinstance(result.termination, TerminationCondition)
        assert (result.status == "optimal") == result.proven_optimal
        assert result.has_pattern == (result.status in ("optimal", "feasible"))
        if result.has_pattern:
            assert result.audit.protected and result.lower_bound <= result.objective + 1e-9
        assert result.to_dict()["status"] == result.status.value

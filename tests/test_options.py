"""Options are declared once (cspopt.options): every front door takes exactly the options that
apply and refuses the others, naming the option and who takes it."""

import inspect

import pytest
from helpers import INSTANCES

import cspopt
from cspopt.cli import main
from cspopt.errors import InputError
from cspopt.io import read_table
from cspopt.options import INSTANCE_OPTIONS, OPTIONS
from cspopt.table.generators import almeida_carvalho_set2

EX1 = read_table(INSTANCES / "ex1.jj").replace(costs="value")  # carries lpl/upl: interval


def test_every_declared_option_reaches_solve():
    parameters = set(inspect.signature(cspopt.solve).parameters)
    for name, option in OPTIONS.items():
        assert name in parameters or name in INSTANCE_OPTIONS, name
        if name in parameters:  # one default, the declared one
            assert inspect.signature(cspopt.solve).parameters[name].default == option.default


def test_interval_options_are_reachable_through_solve():
    for options in (dict(separation="lp"), dict(separation="network", candidate_sets=True),
                    dict(method="mip", route="pyomo"), dict(method="mip", route="matrix")):
        result = cspopt.solve(EX1, **options)
        assert result.proven_optimal and result.objective == 1950 and result.audit.protected
    relaxed = cspopt.solve(EX1, method="mip", relax=True)
    assert relaxed.status == "bound_only" and relaxed.lower_bound <= 1950


@pytest.mark.parametrize("call, message", [
    (dict(protection="exact", separation="lp"), "separation: for protection='interval'"),
    (dict(candidate_sets=True, protection="exact"), "candidate_sets: for protection='interval'"),
    (dict(method="mip", separation="lp"), "separation: for the interval branch-and-cut"),
    (dict(route="pyomo"), "route: for the compact MIP"),
    (dict(relax=True), "relax: for the compact MIP"),
    (dict(solver="scip"), "solver: for protection='exact'"),
    (dict(protection="exact", method="branch-and-cut", solver="scip", threads=2),
     "solver, threads: for the compact MIP"),
    (dict(wieghts="value"), "unknown option.*wieghts"),
    (dict(method="lagrangian"), "method 'lagrangian' is for protection='exact'"),
])
def test_inapplicable_options_are_refused_by_name(call, message):
    with pytest.raises(InputError, match=message):
        cspopt.solve(EX1, **call)


def test_bound_and_certify_refuse_as_solve_does():
    with pytest.raises(InputError, match="dual: for protection='exact'"):
        cspopt.bound(EX1, dual="subgradient")
    with pytest.raises(InputError, match="model: for protection='exact'"):
        cspopt.certify(EX1, [4, 10, 11], model="PN")
    t = almeida_carvalho_set2(8, 5, seed=1)
    with pytest.raises(InputError, match="dual: for the Lagrangian"):
        cspopt.bound(t, protection="exact", method="mip", dual="subgradient")
    with pytest.raises(InputError, match="method 'capacity' is for protection='interval'"):
        cspopt.bound(t, protection="exact", method="capacity")


def test_the_cli_refuses_by_flag(capsys):
    ex1 = str(INSTANCES / "ex1.jj")
    for argv, message in (
            (["--protection", "exact", "--separation", "lp"],
             "--separation: for --protection interval"),
            (["--method", "mip", "--candidate-sets"], "--candidate-sets: for the interval"),
            (["--dual", "subgradient"], "--dual: for --protection exact"),
            (["--protection", "exact", "--method", "mip", "--iterations", "9"],
             "--iterations: for the Lagrangian")):
        assert main(["solve", ex1, *argv]) == 2
        assert message in capsys.readouterr().err
    assert main(["solve", ex1, "--weights", "value", "--method", "mip", "--route", "pyomo",
                 "--json"]) == 0
    for argv, message in ((["--save-multipliers", "m.npz"],
                           "--save-multipliers: for --protection exact"),
                          (["--protection", "exact", "--method", "lp", "--save-multipliers",
                            "m.npz"], "--save-multipliers: for the Lagrangian")):
        assert main(["bound", ex1, *argv]) == 2
        assert message in capsys.readouterr().err


def test_the_docs_list_the_declared_options():
    from cspopt.options import options_table

    assert options_table() in (INSTANCES.parent / "docs" / "solve.md").read_text()

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


def test_the_method_table_is_what_solve_and_the_cli_offer():
    """One declaration (cspopt.methods): every heuristic loads, the API's methods and
    HEURISTICS are read from it, each option's takers are the methods listing it, and the
    order searches' operators are the heuristic's own."""
    from cspopt.heuristics.smith_ga import OPERATORS
    from cspopt.methods import METHOD_TABLE, heuristic_names, method_help, methods_for
    from cspopt.options import OPERATOR_CHOICES
    from cspopt.solving.api import METHODS
    from cspopt.solving.heuristic import HEURISTICS

    assert list(HEURISTICS) == list(heuristic_names())
    assert all(callable(m.load()) for m in METHOD_TABLE if m.heuristic)
    for protection in ("exact", "interval"):
        assert METHODS[protection] == methods_for(protection)
    for name, option in OPTIONS.items():
        if option.methods is not None:
            assert option.methods == {m.name for m in METHOD_TABLE if name in m.options}
    assert OPERATOR_CHOICES == ("adaptive", *OPERATORS)
    assert all(f"{m.name} = {m.doc}" in method_help() for m in METHOD_TABLE)


@pytest.mark.parametrize("call, message", [
    (lambda t: cspopt.solve(t, protection="interval", method="ga", operator="shuffle"),
     "operator must be one of 'adaptive', 'swap', 'insert', 'invert', not 'shuffle'"),
    (lambda t: cspopt.solve(t, protection="interval", method="gensup", seed=-1),
     "seed must be an integer >= 0, got -1"),
    (lambda t: cspopt.solve(t, protection="exact", dual="newton"),
     "dual must be one of"),
    (lambda t: cspopt.solve(t, protection="exact", method="mip", route="socket"),
     "route must be one of 'matrix', 'pyomo', not 'socket'"),
    (lambda t: cspopt.solve(t, protection="interval", separation="maybe"),
     "separation must be one of 'auto', 'network', 'lp', not 'maybe'"),
])
def test_option_values_are_checked_against_their_declared_domain(call, message):
    table = read_table(INSTANCES / "pp_shadow.jj")
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(table)

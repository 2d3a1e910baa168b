"""The installed ``cspopt`` executable, run as a user runs it: in a subprocess.

In-process calls of :func:`cspopt.cli.main` cannot see what solver libraries write to the C
library's stdout (HiGHS 1.16 prints its banner from the ``Highs()`` constructor), so these
tests parse the real process's stdout.
"""

import json

import pytest
from helpers import INSTANCES, run

EX1 = str(INSTANCES / "ex1.jj")
PP = str(INSTANCES / "pp_shadow.jj")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("gen") / "class2.jj"
    done = run("generate", "class2", "--rows", "6", "--cols", "5", "--seed", "2", "-o", str(path))
    assert done.returncode == 0, done.stderr
    return str(path)


COMMANDS = [
    ["info", "{table}", "--json"],
    ["audit", "{table}", "--suppress", "{pattern}", "--json"],
    ["solve", "{table}", "--json"],
    ["solve", "{table}", "--method", "mip", "--json"],
    ["solve", "{table}", "--protection", "exact", "--json"],
    ["bound", "{table}", "--json"],
    ["bound", "{table}", "--protection", "exact", "--json"],
    ["certify", "{table}", "--suppress", "{pattern}", "--json"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:1] + c[2:-1]))
@pytest.mark.parametrize("which", ["ex1", "pp_shadow", "generated"])
def test_json_stdout_is_one_document(command, which, request):
    """stdout parses as exactly one JSON document, whatever the solvers print."""
    table = {"ex1": EX1, "pp_shadow": PP}.get(which) or request.getfixturevalue("generated")
    pattern = {"ex1": "4,10,11", "pp_shadow": "23,96,98,114,115,133"}.get(which, "")
    if "{pattern}" in command and not pattern:
        optimum = json.loads(run("solve", table, "--json").stdout)
        pattern = ",".join(map(str, optimum["suppressed"])) or "0"
    if which == "pp_shadow" and "exact" in command:
        pytest.skip("pp_shadow is not a 2-D table: exact disclosure needs one")
    args = [a.format(table=table, pattern=pattern) for a in command]
    done = run(*args)
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(done.stdout)  # raises on any banner or log line
    assert isinstance(data, dict)
    assert "HiGHS" not in done.stdout


def test_plain_output_has_no_solver_chatter():
    done = run("solve", EX1, "--weights", "value")
    assert done.returncode == 0, done.stderr
    assert "HiGHS" not in done.stdout and "SCIP" not in done.stdout.replace("/scip", "")
    assert "proven optimal" in done.stdout


def test_bad_input_exit_2_and_nothing_on_stdout(tmp_path):
    bad = tmp_path / "bad.jj"
    bad.write_text("0\n3\n0 10 1 0 5 1 1\n")
    done = run("solve", str(bad), "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_verbose_logs_go_to_stderr():
    """-v (before or after the subcommand) shows solver logs, on stderr only."""
    for args in (["-v", "solve", PP, "--method", "mip", "--json"],
                 ["solve", PP, "--method", "mip", "-v", "--json"]):
        done = run(*args)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["status"] == "optimal"
        assert "HiGHS" in done.stderr  # the solver's own log, kept off stdout

"""Hostile input (issue #19): each is a typed CspoptError in Python and, on the command line,
one line on stderr naming the cell, relation, line or option, exit code 2, nothing on stdout."""

import pytest
from helpers import INSTANCES

import cspopt
from cspopt.cli import main
from cspopt.errors import InputError
from cspopt.io import read_table
from cspopt.solving import solve_exact

EX1 = str(INSTANCES / "ex1.jj")
GOOD = (INSTANCES / "ex1.jj").read_text().splitlines()


def _write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text)
    return str(path)


def _edit_cell(line: int, column: int, value: str) -> str:
    """ex1.jj with one field of one line replaced."""
    lines = list(GOOD)
    fields = lines[line].split()
    fields[column] = value
    lines[line] = " ".join(fields)
    return "\n".join(lines) + "\n"


FILES = [
    ("truncated.jj", "\n".join(GOOD[:8]) + "\n", ".jj:9:"),
    ("garbage.jj", "0\n3\nthis is not a table\n", "line"),
    ("nan.jj", _edit_cell(2, 1, "nan"), "cell 0"),
    ("inf.jj", _edit_cell(2, 1, "inf"), "cell 0"),
    ("nonadditive.jj", _edit_cell(2, 1, "1e15"), "cell 0"),
    ("empty.jj", "", ""),
    ("binary.jj", b"\xff\xfe\x00\x01latin\xe9\n", ""),
    ("latin1.csv", "r\xe9gion,value\n".encode("latin-1"), ""),
    ("bad.csv", "a,b\n1\n", ""),
]


@pytest.mark.parametrize("name, text, names", FILES, ids=[f[0] for f in FILES])
@pytest.mark.parametrize("command", [["info"], ["solve", "--json"], ["bound"]])
def test_malformed_files(tmp_path, capsys, name, text, names, command):
    path = _write(tmp_path, name, text, "wb" if isinstance(text, bytes) else "w")
    assert main([command[0], path, *command[1:]]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and names in captured.err
    with pytest.raises(InputError):
        read_table(path)


@pytest.mark.parametrize("args, names", [
    (["solve", EX1, "--time-limit", "0"], "time"),
    (["solve", EX1, "--time-limit", "-5"], "time"),
    (["solve", EX1, "--gap", "-1"], "gap"),
    (["solve", EX1, "--protection", "exact", "--gap", "2"], "gap"),
    (["solve", EX1, "--protection", "exact", "--threads", "-2"], "threads"),
    (["solve", EX1, "--protection", "exact", "--iterations", "-1"], "iterations"),
    (["solve", EX1, "--protection", "interval", "--processes", "0"], "processes"),
    (["solve", EX1, "--protection", "exact", "--processes", "2"], "--processes"),
    (["certify", EX1, "--suppress", "4,4,99"], "99"),
    (["audit", EX1, "--suppress", "-1"], "-1"),
])
def test_bad_options_name_themselves(capsys, args, names):
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and names in captured.err


def test_bad_options_in_python():
    table = read_table(EX1)
    for bad in (dict(time_limit=0), dict(time_limit=-1), dict(gap=-1), dict(gap=float("nan"))):
        with pytest.raises(InputError):
            cspopt.solve(table, **bad)
    with pytest.raises(InputError):
        solve_exact(table, threads=-2)
    with pytest.raises(InputError, match="processes"):
        cspopt.solve(table, protection="interval", processes=1.5)
    with pytest.raises(InputError, match="wieghts"):
        cspopt.solve(table, wieghts="value")

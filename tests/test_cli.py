"""The ``cspopt`` command: exit codes, JSON output, one-line errors."""

import json
import subprocess
import sys

import pytest
from helpers import INSTANCES

from cspopt.cli import main

EX1 = str(INSTANCES / "ex1.jj")


def test_audit_exit_codes_and_json(capsys, tmp_path):
    assert main(["audit", EX1, "--suppress", "4,10,11"]) == 0
    assert "PROTECTED" in capsys.readouterr().out
    assert main(["audit", EX1, "--suppress", "4,10", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["protected"] is False and data["exposed"] == [5]
    assert {c["cell"] for c in data["cells"]} == {4, 5, 10}
    ids = tmp_path / "ids.txt"
    ids.write_text("4\n10 11\n")
    assert main(["audit", EX1, "--suppress", str(ids), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["protected"] is True
    # ex1 carries protection levels: the graph audit (exact only) is asked for explicitly
    assert main(["audit", EX1, "--suppress", "4,10,11", "--method", "graph",
                 "--requirement", "exact"]) == 0
    capsys.readouterr()
    assert main(["audit", EX1, "--suppress", "4,10", "--verdict", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["exposed"] == [5] and [c["cell"] for c in data["cells"]] == [5]
    assert data["cells"][0]["low"] is not None  # an exposed cell gets both LP optima


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["audit", EX1, "--suppress", "4,99"], "unknown cell id(s) [99]"),
        (["audit", EX1, "--suppress", "4,x"], "'x' is not an integer"),
        (["audit", "missing.jj"], "no such file"),
        (["info", "table.xlsx"], "unknown table format"),
        (["audit", str(INSTANCES / "pp_shadow.jj"), "--method", "graph", "--requirement",
          "exact"], "not a network"),
        (["audit", EX1, "--requirement", "exact", "--method", "graph", "--verdict"],
         "--verdict decides with attacker LPs"),
        (["audit", EX1, "--requirement", "exact", "--save-proofs", "p.npz"],
         "--save-proofs decides the interval requirement"),
        (["solve", str(INSTANCES / "pp_shadow.jj"), "--protection", "exact", "--method",
          "lagrangian"], "solved by method 'auto' or 'branch-and-cut' (cover cuts)"),
        (["bound", str(INSTANCES / "pp_shadow.jj"), "--protection", "exact", "--method",
          "lp"], "bound method 'lp' of exact disclosure is stated on 2-D tables"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, args, fragment):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


def test_info_generate_convert(capsys, tmp_path):
    assert main(["info", EX1, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["cells"] == 15 and info["sensitive"] == 1 and info["structure"].startswith("2-D")
    out = tmp_path / "g.jj"
    assert main(["generate", "class2", "--rows", "8", "--cols", "5", "--seed", "1", "-o",
                 str(out)]) == 0
    assert main(["convert", str(out), str(tmp_path / "g.json")]) == 0
    assert main(["info", str(tmp_path / "g.json")]) == 0
    capsys.readouterr()
    assert main(["convert", EX1, str(tmp_path / "ex1.csv")]) == 2  # no labels for tidy CSV


def test_console_script_runs_as_a_process():
    run = subprocess.run([sys.executable, "-m", "cspopt.cli", "audit", EX1, "--suppress", "4"],
                         capture_output=True, text=True)
    assert run.returncode == 1 and "exposed cell 5" in run.stdout


def test_bench_audit_quick(tmp_path, capsys):
    out = tmp_path / "audit.md"
    assert main(["bench", "audit", "--quick", "-o", str(out)]) == 0
    assert "all verdicts agree: True" in out.read_text()


def test_solve_command(capsys):
    assert main(["solve", EX1, "--weights", "value", "--protection", "exact", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["suppressed"] == [4, 10, 11] and data["objective"] == 1950
    assert data["proven_optimal"] is True and data["lower_bound"] == 1950
    assert data["status"] == "optimal" and data["model"] == "PN"
    assert main(["solve", EX1, "--model", "P", "--relax", "--protection", "exact", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "bound_only" and data["suppressed"] == []
    assert main(["solve", EX1, "--solver", "scip", "--route", "pyomo", "--method", "mip",
                 "--protection", "exact"]) == 0
    assert "proven optimal" in capsys.readouterr().out
    # beyond 2-D, exact disclosure by the cover cuts (the Lagrangian's (P) is 2-D only)
    assert main(["solve", str(INSTANCES / "pp_shadow.jj"), "--protection", "exact",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == "bc(cover)/highs"


def test_exact_benchmark_smoke():
    from cspopt.bench import exact_benchmark

    rows = exact_benchmark(tables=1, max_cells=200, sets=("set1",), time_limit=30)
    assert [(r["m+1"], r["n+1"]) for r in rows] == [(20, 10)]
    row = rows[0]
    assert row["Cpl"] == 1 and row["Cpl+Lag"] == 1 and row["up"] <= row["p"]
    assert row["FGap"] <= row["IGap"] and row["ms_path"] > 0
    assert row["BC"] == 1 and row["BC_s"] > 0 and row["T_over_BC"] > 0


@pytest.mark.bench
def test_full_benchmarks(tmp_path):
    """The full tables (long): python -m pytest -m bench."""
    from cspopt.bench import run_benchmark

    assert run_benchmark("audit", output=str(tmp_path / "audit.md")) == 0
    assert run_benchmark("exact", output=str(tmp_path / "exact.md")) == 0


def test_solve_methods_plot_bound_certify(capsys, tmp_path):
    plot = tmp_path / "bounds.png"
    assert main(["solve", EX1, "--weights", "value", "--method", "lagrangian", "--json",
                 "--protection", "exact", "--plot", str(plot)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["proof"] == "lagrangian" and data["suppressed"] == [4, 10, 11]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["bound", EX1, "--weights", "value", "--protection", "exact", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "bound_only" and data["lower_bound"] == 1950
    assert main(["bound", EX1, "--weights", "value", "--method", "lp", "--protection", "exact",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lower_bound"] == 1950
    assert main(["bound", EX1, "--weights", "value", "--protection", "exact"]) == 0
    text = capsys.readouterr().out  # a bound has no pattern: no objective, gap or count
    assert "lower bound 1950 (a bound only" in text and "nan" not in text
    assert main(["bound", EX1, "--weights", "value", "--json"]) == 0  # interval LP bound
    data = json.loads(capsys.readouterr().out)
    assert data["model"] == "FS" and 0 < data["lower_bound"] <= 1950
    assert main(["bound", EX1, "--weights", "value", "--method", "mip", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lower_bound"] == 1950
    assert main(["bound", EX1, "--weights", "value", "--method", "mip", "--protection", "exact",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lower_bound"] == 1950
    assert main(["solve", EX1, "--weights", "value", "--method", "branch-and-cut",
                 "--protection", "exact", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["method"] == "bc(PN)/scip" and data["suppressed"] == [4, 10, 11]
    assert main(["certify", EX1, "--suppress", "4,10,11,14", "--weights", "value",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["gap"] == pytest.approx(793 / 2743) and data["audit"]["protected"]
    assert main(["certify", EX1, "--suppress", "4,10"]) == 1
    assert "EXPOSED" in capsys.readouterr().out
    assert main(["solve", EX1, "--weights", "value", "--start", "4,10,11,14", "--protection",
                 "exact", "--json"]) == 0  # a worse safe pattern to start from
    assert json.loads(capsys.readouterr().out)["suppressed"] == [4, 10, 11]
    assert main(["solve", EX1, "--start", "4,10", "--protection", "exact"]) == 2  # unsafe
    assert "exposes sensitive cells [5]" in capsys.readouterr().err
    assert main(["solve", EX1, "--protection", "exact", "--method", "mip", "--iterations",
                 "50"]) == 2  # a Lagrangian flag where the compact MIP runs
    assert "--iterations: for the Lagrangian" in capsys.readouterr().err


def test_bound_warm_start_through_files(capsys, tmp_path):
    """``cspopt bound --save-multipliers`` / ``--multipliers``: the bound oracle called as a
    program, continued across calls; the second bound is at least the first."""
    table = tmp_path / "s5.jj"
    assert main(["generate", "ac-set1", "--rows", "19", "--cols", "9", "--seed", "5", "-o",
                 str(table)]) == 0
    first, second = tmp_path / "first.npz", tmp_path / "second.npz"
    common = ["bound", str(table), "--protection", "exact", "--publish-zeros", "--json",
              "--iterations", "60"]
    capsys.readouterr()
    assert main(common + ["--save-multipliers", str(first)]) == 0
    cold = json.loads(capsys.readouterr().out)["lower_bound"]
    assert main(common + ["--multipliers", str(first), "--save-multipliers", str(second)]) == 0
    warm = json.loads(capsys.readouterr().out)["lower_bound"]
    assert cold <= warm <= 178  # the LP bound of (P): set 1 20x10 seed 5
    assert second.stat().st_size > 0
    (tmp_path / "junk.npz").write_text("junk")
    for args, message in (
            (["--multipliers", str(tmp_path / "junk.npz")], "not a multipliers file"),
            (["--multipliers", str(tmp_path / "missing.npz")], "No such file"),
            (["--multipliers", str(first), "--method", "lp"], "--multipliers: for the "
                                                              "Lagrangian"),
            (["--multipliers", str(first), "--model", "P"], None)):
        code = main(common + args)
        err = capsys.readouterr().err
        if message is None:  # (P) here has the same cells to protect and candidates
            assert code == 0
        else:
            assert code == 2 and message in err, err
    assert main(["bound", EX1, "--protection", "exact", "--multipliers", str(first)]) == 2
    assert "were they made for another table" in capsys.readouterr().err
    assert main(["bound", EX1, "--multipliers", str(first)]) == 2  # interval protection
    assert "--multipliers: for --protection exact" in capsys.readouterr().err


def test_interval_branch_and_cut_and_compact_from_the_cli(capsys):
    assert main(["solve", EX1, "--weights", "value", "--json"]) == 0
    bc = json.loads(capsys.readouterr().out)
    assert bc["method"].startswith("bc(FS)/scip") and bc["proven_optimal"]
    assert main(["solve", EX1, "--weights", "value", "--method", "mip", "--json"]) == 0
    compact = json.loads(capsys.readouterr().out)
    assert compact["method"].startswith("mip(FS)") and set(compact) == set(bc)
    assert bc["suppressed"] == compact["suppressed"] == [4, 10, 11]
    assert main(["solve", EX1, "--weights", "value", "--separation", "lp", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == "bc(FS)/scip/lp"
    assert main(["solve", EX1, "--method", "lagrangian"]) == 2  # interval: no Lagrangian


def test_solve_protection_modes(capsys):
    assert main(["solve", EX1, "--weights", "value", "--json"]) == 0  # ex1 carries lpl/upl
    data = json.loads(capsys.readouterr().out)
    assert data["model"] == "FS" and data["suppressed"] == [4, 10, 11]
    assert data["proven_optimal"] is True and data["objective"] == 1950
    assert main(["solve", EX1, "--weights", "value", "--protection", "exact", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "PN"
    assert main(["solve", str(INSTANCES / "pp_shadow.jj"), "--weights", "value", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["objective"] == 521926 and data["audit"]["protected"]
    assert main(["solve", EX1, "--method", "lagrangian"]) == 2

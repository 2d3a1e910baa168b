"""The peer runner (pytauargus in a subprocess) and the interval benchmark's quick mode."""

import math

import pytest
from helpers import INSTANCES

from cspopt.bench import run_benchmark
from cspopt.bench.peer import (
    _bounds,
    _secondaries,
    run_tauargus_opt,
    tauargus_available,
)
from cspopt.io import read_table

STA = """cells sums cells sums |P| pl0 l1u1 l1u0 l0u1 l0u0  tprep  theur0   UB0  theur1  theur*    UB1     LB1     time   opt   SUP   time  BestLB  nodes

 15   8  15   8   1   2   1   0   0   0      0.0      0.0     8110      0.0      0.0     8110   8110.0      0.0     8110    3      0.0  8110    1
"""


def test_reads_the_peers_output_files(tmp_path):
    (tmp_path / "cspSCIP.sta").write_text(STA)
    (tmp_path / "JJ.OUT").write_text("    4\n   10\n   11\n")
    assert _bounds(tmp_path / "cspSCIP.sta") == (8110.0, 8110.0)
    assert _secondaries(tmp_path / "JJ.OUT") == (4, 10, 11)
    assert all(math.isnan(v) for v in _bounds(tmp_path / "missing.sta"))


@pytest.mark.skipif(not tauargus_available(), reason="pytauargus is in the bench extra")
def test_peer_solves_ex1_like_cspopt():
    table = read_table(INSTANCES / "ex1.jj")
    primary = float(table.costs[table.sensitive].sum())
    result = run_tauargus_opt(INSTANCES / "ex1.jj", primary_cost=primary)
    assert result["status"] == "optimal" and result["suppressed"] == (4, 10, 11)
    assert result["objective"] == result["lower_bound"] == 7578  # ex1 optimum, file costs


def test_interval_benchmark_quick(tmp_path):
    out = tmp_path / "interval.md"
    assert run_benchmark("interval", quick=True, output=str(out)) == 0
    text = out.read_text()
    assert "| gensup2-10x10 |" in text and "median speed-up" in text
    header = next(line for line in text.splitlines() if line.startswith("| table |"))
    assert "| cspopt_secondaries |" in header and "| peer_secondaries |" in header

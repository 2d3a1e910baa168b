"""Every ``--json`` answer of the real executable is exactly one JSON document of plain types,
and ``status == "optimal"`` exactly when the answer carries a proof (issue #49 item 1: every
exact-disclosure compact MIP crashed with ``int64 is not JSON serializable``).

Each command runs in a subprocess, as a user runs it; the statuses are checked as proofs:
an optimal answer has an audited pattern whose cost equals its lower bound, which is at
most the table's known optimum.
"""

import json

import pytest
from helpers import INSTANCES, run

from cspopt.solving.api import BOUND_METHODS, METHODS

#: 2-D 4x7 with totals, protection levels; known optima by brute force and the compact MIP
FZ = str(INSTANCES / "fuzz" / "fz_2d_111.jj")
OPTIMUM = {"exact": 3.0, "interval": 9.0}
#: a budget that ends every method on this 28-cell table
LIMIT = ["--time-limit", "60"]


def _document(done) -> dict:
    """The one JSON document on stdout (``json.loads`` rejects a second one or a banner)."""
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(done.stdout)
    assert isinstance(data, dict)
    return data


def _check_statuses(data: dict, optimum: float) -> None:
    """Statuses as proofs: ``optimal`` iff an audited pattern meets a valid lower bound."""
    assert (data["status"] == "optimal") == data["proven_optimal"]
    if data["status"] in ("optimal", "feasible"):
        assert data["audit"]["protected"]
        assert data["objective"] >= optimum - 1e-9
    if data["status"] == "optimal":
        assert data["objective"] == pytest.approx(optimum)
        assert data["lower_bound"] == pytest.approx(data["objective"])
    if isinstance(data["lower_bound"], float):
        assert data["lower_bound"] <= optimum + 1e-6


@pytest.mark.parametrize("protection, method", [
    (protection, method) for protection in ("exact", "interval")
    for method in METHODS[protection]])
def test_every_solve_method_answers_one_json_document(protection, method):
    done = run("solve", FZ, "--protection", protection, "--method", method, "--json", *LIMIT)
    data = _document(done)
    _check_statuses(data, OPTIMUM[protection])
    if method in ("auto", "mip", "branch-and-cut"):  # exact methods prove this small table
        assert data["status"] == "optimal", data


@pytest.mark.parametrize("protection, method", [
    (protection, method) for protection in ("exact", "interval")
    for method in BOUND_METHODS[protection]])
def test_every_bound_method_answers_one_json_document(protection, method):
    data = _document(run("bound", FZ, "--protection", protection, "--method", method,
                         "--json", *LIMIT))
    assert data["status"] == "bound_only"
    assert data["lower_bound"] <= OPTIMUM[protection] + 1e-6


@pytest.mark.parametrize("protection", ["exact", "interval"])
def test_certify_and_audit_answer_one_json_document(protection):
    optimum = _document(run("solve", FZ, "--protection", protection, "--json"))
    pattern = ",".join(map(str, optimum["suppressed"])) or "0"
    data = _document(run("certify", FZ, "--suppress", pattern, "--protection", protection,
                         "--json"))
    _check_statuses(data, OPTIMUM[protection])
    audit = _document(run("audit", FZ, "--suppress", pattern, "--requirement", protection,
                          "--json"))
    assert audit["protected"] and audit["requirement"] == protection


def test_info_and_protect_answer_one_json_document(tmp_path):
    info = _document(run("info", FZ, "--json"))
    assert info["cells"] == 28 and info["sensitive"] == 7
    data = _document(run("protect", str(INSTANCES / "survey.csv"), "--dims",
                         "province,activity", "--response", "turnover", "--rule", "P(15)",
                         "--hrc", f"province={INSTANCES / 'province.hrc'}", "--json"))
    assert data["audit"]["protected"] and isinstance(data["primary"], int)

"""The proofs of an interval verdict (cspopt.audit.proofs): a protected verdict keeps
attacker completions that settle a later audit of the pattern without an LP, forged or
foreign ones are refused by the check (the verdict never changes), they survive a file, and
the commands write and read them."""

import json

import numpy as np
import pytest
from helpers import INSTANCES

import cspopt
from cspopt import Table
from cspopt.audit import audit, interval_verdict, load_proofs, save_proofs
from cspopt.audit.proofs import covering_proofs
from cspopt.cli import main
from cspopt.errors import InputError
from cspopt.table.generators import hierarchical_2d

EX1 = str(INSTANCES / "ex1.jj")


@pytest.fixture(scope="module")
def solved():
    table = hierarchical_2d(12, 6, seed=1)
    return table, cspopt.solve(table, method="modular")


def test_a_solves_proofs_settle_its_audit_without_an_lp(solved):
    table, result = solved
    assert result.audit.protected and result.audit.proofs
    again = interval_verdict(table, result.suppressed, completions=result.audit.proofs)
    assert again.protected and again.num_solves == 0
    # every proof is a completion of the pattern: its cells suppressed, relations met
    pattern = table.pattern(result.suppressed)
    for cells, deviations in result.audit.proofs:
        assert pattern[cells].all()
        full = np.zeros(table.num_cells)
        full[cells] = deviations
        assert np.abs(table.relation_matrix @ full).max() <= 1e-6


def test_forged_proofs_never_change_the_verdict(solved):
    """A completion that breaks a relation, or moves a published cell, is refused: an
    exposing pattern stays exposed, a protecting one is still judged by its LPs."""
    table, result = solved
    sensitive = table.sensitive_cells
    exposing = interval_verdict(table, ())  # the primaries alone
    assert not exposing.protected and exposing.proofs == ()
    forged = [(np.array([c]), np.array([1e9])) for c in sensitive]  # breaks its relations
    judged = interval_verdict(table, (), completions=forged)
    assert judged.exposed == exposing.exposed
    published = np.setdiff1d(np.arange(table.num_cells),
                             table.pattern(result.suppressed).nonzero()[0])[:1]
    moving_published = [(np.r_[cells, published], np.r_[d, 1.0])
                        for cells, d in result.audit.proofs]
    checked = interval_verdict(table, result.suppressed, completions=moving_published)
    assert checked.protected and checked.num_solves > 0


def test_proofs_survive_their_file_and_bad_files_are_named(solved, tmp_path):
    table, result = solved
    path = tmp_path / "proofs.npz"
    save_proofs(path, result.audit.proofs)
    read = load_proofs(path)
    assert len(read) == len(result.audit.proofs)
    for (cells, d), (cells2, d2) in zip(result.audit.proofs, read):
        assert np.array_equal(cells, cells2) and np.array_equal(d, d2)
    save_proofs(tmp_path / "none.npz", ())
    assert load_proofs(tmp_path / "none.npz") == []
    (tmp_path / "junk.npz").write_text("not a zip")
    np.savez(tmp_path / "unfit.npz", cells=np.arange(3), deviations=np.ones(2),
             starts=np.array([0, 3]))
    for name, fragment in (("missing.npz", "No such file"), ("junk.npz", "not a proofs file"),
                           ("unfit.npz", "do not fit together")):
        with pytest.raises(InputError, match=fragment) as error:
            load_proofs(tmp_path / name)
        assert name in str(error.value)


def test_a_side_without_a_level_needs_no_proof():
    """Cell (0, 0) asks 5 up and nothing down: the cycle that moves it up covers it alone,
    and the verdict's proofs are that cycle."""
    sensitive = np.zeros((4, 4), dtype=bool)
    sensitive[0, 0] = True
    table = Table.from_array(np.arange(1, 17).reshape(4, 4) * 10, sensitive=sensitive,
                             lower_protection=0, upper_protection=5)
    cycle = (np.array([0, 1, 5, 6]), np.array([5.0, -5.0, -5.0, 5.0]))
    chosen = covering_proofs(table, table.pattern([0, 1, 5, 6]), [cycle],
                             np.ones(table.num_cells))
    assert len(chosen) == 1 and chosen[0][1][0] == 5.0
    checked = interval_verdict(table, [1, 5, 6])
    assert checked.protected and checked.proofs
    assert interval_verdict(table, [1, 5, 6], completions=checked.proofs).num_solves == 0


def test_only_a_verdict_keeps_proofs(solved):
    table, result = solved
    assert audit(table, result.suppressed, requirement="interval").proofs == ()


def test_the_commands_write_and_read_proofs(capsys, tmp_path):
    proofs = tmp_path / "p.npz"
    assert main(["solve", EX1, "--json", "--save-proofs", str(proofs)]) == 0
    suppressed = json.loads(capsys.readouterr().out)["suppressed"]
    ids = ",".join(map(str, suppressed))
    assert main(["audit", EX1, "--suppress", ids, "--proofs", str(proofs), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["num_solves"] == 0
    again = tmp_path / "again.npz"
    assert main(["certify", EX1, "--suppress", ids, "--proofs", str(proofs),
                 "--save-proofs", str(again), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["audit"]["protected"] is True
    assert len(load_proofs(again)) == len(load_proofs(proofs))


@pytest.mark.parametrize("args, fragment", [
    (["audit", EX1, "--requirement", "exact", "--proofs", "p.npz"],
     "--proofs decides the interval requirement"),
    (["audit", EX1, "--method", "graph", "--requirement", "exact", "--save-proofs", "p.npz"],
     "--save-proofs decides the interval requirement"),
    (["audit", EX1, "--proofs", "missing.npz"], "missing.npz"),
    (["solve", EX1, "--save-proofs", "/no/such/dir/p.npz"], "--save-proofs /no/such/dir"),
    (["certify", EX1, "--suppress", "4,10,11", "--protection", "exact", "--proofs", "P"],
     "--proofs: proofs (attacker completions) come with interval protection"),
    (["solve", EX1, "--protection", "exact", "--save-proofs", "p.npz"],
     "--save-proofs: proofs (attacker completions) come with interval protection"),
])
def test_bad_proof_options_are_one_line_exit_2(capsys, tmp_path, args, fragment):
    save_proofs(tmp_path / "P", ())
    args = [str(tmp_path / "P") if a == "P" else a for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err

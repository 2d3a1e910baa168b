"""A release of many tables in one call: protect_many, the manifest and ``cspopt batch``.

Checked as proofs: every joint pattern passes the audit of the whole linked table (and each
table's cells passed alone through the audit of its standalone table), a table protected
alone equals :func:`cspopt.protect`, two workers give the sequential answer, and every
manifest error names its file and line before any solve.
"""

from __future__ import annotations

import csv
import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

import cspopt
from cspopt.audit import interval_verdict
from cspopt.bench.protect import hrc_text
from cspopt.cli import main
from cspopt.errors import CspoptError, InputError, TableFormatError
from cspopt.io.manifest import read_manifest
from cspopt.microdata import release as release_module
from cspopt.microdata.protect import sensitive_table
from cspopt.microdata.release import protect_many
from cspopt.microdata.synthetic import hierarchical_survey

RULES = "P(15)|FREQ(3,10)"


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    """Seeded 3-D microdata with a region hierarchy and a second response, written as a CSV
    with its .hrc beside it."""
    here = tmp_path_factory.mktemp("release")
    columns, hierarchies = hierarchical_survey({"region": (2, 3), "activity": (3,),
                                                "size": (3,)}, records=1500, seed=2)
    rng = np.random.default_rng(0)
    columns["employees"] = [int(x) for x in rng.integers(1, 50, len(columns["id"]))]
    with open(here / "survey.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(zip(*columns.values()))
    (here / "region.hrc").write_text(hrc_text(hierarchies["region"], "Total"))
    return here, columns


TABLES = [dict(name="region_activity", dimensions=["region", "activity"]),
          dict(name="region_size", dimensions=["region", "size"]),
          dict(name="activity_size", dimensions=["activity", "size"], response="employees",
               rules="FREQ(3,10)|P(10)")]


def _requests(here: Path, **extra) -> list[dict]:
    common = dict(response="turnover", rules=RULES,
                  hierarchies={"region": str(here / "region.hrc")}, time_limit=60)
    out = []
    for table in TABLES:
        fields = dict(common, **table, **extra)
        if "region" not in fields["dimensions"]:
            fields["hierarchies"] = {}
        out.append(fields)
    return out


@pytest.fixture(scope="module")
def released(survey):
    here, columns = survey
    return protect_many(columns, _requests(here))


def test_linked_tables_are_protected_jointly_and_audited(survey, released):
    here, columns = survey
    by_name = {t.name: t for t in released.tables}
    assert released.complete
    joint = by_name["region_activity"].protected
    assert joint is by_name["region_size"].protected  # one solve for the pair
    assert by_name["region_activity"].linked_with == ("region_size",)
    assert by_name["activity_size"].linked_with == ()
    assert joint.result.audit.protected
    optimum = cspopt.solve(joint.table, method="branch-and-cut")  # the joint table's own
    assert optimum.proven_optimal
    assert joint.result.lower_bound <= optimum.objective + 1e-6 <= joint.result.objective + 2e-6
    alone = by_name["activity_size"].protected.result
    assert alone.lower_bound <= alone.objective + 1e-6
    assert interval_verdict(joint.table, np.union1d(list(joint.result.suppressed),
                                                    joint.table.sensitive_cells)).protected
    for name in ("region_activity", "region_size"):  # each table's share, judged alone
        table = by_name[name]
        alone, _, _ = sensitive_table(columns, list(table.request.dimensions),
                                      response="turnover", rules=RULES,
                                      hierarchies={"region": str(here / "region.hrc")})
        assert table.cells.size == alone.num_cells
        rows = table.columns()
        hidden = {tuple(rows[d][k] for d in table.request.dimensions)
                  for k, s in enumerate(rows["status"]) if s in ("primary", "secondary")}
        pattern = [c for c, label in enumerate(alone.labels) if tuple(label) in hidden]
        assert set(alone.sensitive_cells) <= set(pattern)
        assert interval_verdict(alone, pattern).protected
    # the margin the two tables share has one status in both
    shared = {}
    for name in ("region_activity", "region_size"):
        rows = by_name[name].columns()
        other = "activity" if name == "region_activity" else "size"
        for k, code in enumerate(rows[other]):
            if code == "Total":
                shared.setdefault(rows["region"][k], set()).add(rows["status"][k])
    assert shared and all(len(statuses) == 1 for statuses in shared.values())


def test_a_table_alone_equals_protect(survey, released):
    here, columns = survey
    alone = cspopt.protect(columns, ["activity", "size"], response="employees",
                           rules="FREQ(3,10)|P(10)", time_limit=60)
    table = {t.name: t for t in released.tables}["activity_size"]
    assert table.protected.result.suppressed == alone.result.suppressed
    assert table.summary()["cells"] == alone.table.num_cells


def test_two_workers_give_the_sequential_patterns(survey, released):
    here, columns = survey
    spread = protect_many(columns, _requests(here), workers=2)
    assert [t.protected.result.suppressed for t in spread.tables] == [
        t.protected.result.suppressed for t in released.tables]


def test_a_failed_solve_is_reported_and_the_others_written(survey, monkeypatch, tmp_path):
    here, columns = survey
    solve = release_module.solve_sensitive

    def failing(table, **options):
        if "employees" in table.name or table.num_cells < 20:
            raise CspoptError("the solver went away")
        return solve(table, **options)

    monkeypatch.setattr(release_module, "solve_sensitive", failing)
    found = protect_many(columns, _requests(here))
    assert not found.complete
    failed = {t.name: t.error for t in found.tables if not t.has_pattern}
    assert failed == {"activity_size": "CspoptError: the solver went away"}
    written = found.write(tmp_path)
    assert sorted(p.name for p in written) == ["region_activity.csv", "region_size.csv",
                                               "summary.json"]
    assert "no pattern (CspoptError" in found.summary()


def test_an_output_is_written_whole_or_not_at_all(released, monkeypatch, tmp_path):
    def broken(columns, path, *, values):
        Path(path).write_text("half")
        raise OSError("disk full")

    monkeypatch.setattr(release_module, "write_report", broken)
    with pytest.raises(OSError, match="disk full"):
        released.write(tmp_path)
    assert list(tmp_path.iterdir()) == []


MANIFEST = """\
data = "survey.csv"
output = "out"

[hierarchies]
region = "region.hrc"

[defaults]
response = "turnover"
rules = "P(15)|FREQ(3,10)"
time_limit = 60

[[table]]
name = "region_activity"
dimensions = ["region", "activity"]

[[table]]
name = "region_size"
dimensions = ["region", "size"]

[[table]]
name = "activity_size"
dimensions = ["activity", "size"]
response = "employees"
rules = "FREQ(3,10)|P(10)"
"""


def test_cli_batch_writes_one_file_per_table_and_a_summary(survey, released, tmp_path,
                                                           capsys):
    here, _ = survey
    manifest = here / "release.toml"
    manifest.write_text(MANIFEST)
    assert main(["batch", str(manifest), "--json", "-o", str(tmp_path / "o")]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    report = json.loads(out)
    assert report["complete"] and [t["table"] for t in report["tables"]] == [
        t["name"] for t in TABLES]
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["tables"] == report["tables"]
    for table, expected in zip(report["tables"], released.tables):
        with open(tmp_path / "o" / table["output"], newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == table["cells"] == expected.cells.size
        assert sum(r["status"] == "secondary" for r in rows) == table["secondary"]
        assert set(rows[0]) >= set(expected.request.dimensions) | {"status", "published"}
    assert read_manifest(manifest).output == here / "out"


@pytest.mark.parametrize("edit, line, match", [
    (("time_limit = 60", "time_limit = 60\nmethod = 'pbp'"), 11, "needs a 2-D table"),
    (('output = "out"', 'output = "out"\nsheets = 3'), 3, "unknown key.*sheets"),
    (('name = "region_size"', 'name = "region_size"\ncolour = "red"'), 18, "colour"),
    (('dimensions = ["region", "size"]', 'dimensions = ["region", "nope"]'), 18,
     "region_size.*'nope' is not a column"),
    (('rules = "FREQ(3,10)|P(10)"', 'rules = "FREQ(3,10)|P(10"'), 24, "does not parse"),
    (('name = "region_size"', 'name = "region_size"\nseed = -1'), 18, "seed"),
    (('name = "region_size"', 'name = "region_size"\nclean = true'), 18, "clean"),
    (('name = "region_size"', 'name = "region_size"\nworkers = 2'), 18, "release's"),
    (('name = "region_size"', 'name = "region_activity"'), 17, "also table"),
    (('name = "region_size"', 'name = "region_size"\nrules = "P(20)"'), 18,
     "both tabulate 'turnover'.*agree on rules"),
    (('name = "region_size"', 'name = "region_size"\nmethod = "nonesuch"'), 18,
     "does not solve interval"),
    (('name = "region_size"', 'name = "region_size"\nzeros = "protected"'), 18,
     "zeros='protected' needs protection='exact'"),
    (('region = "region.hrc"', 'region = "missing.hrc"'), 5, "is not a file"),
    (('data = "survey.csv"', 'data = "nothing.csv"'), 1, "does not exist"),
    (('output = "out"', 'output = "out"\nworkers = 2\nscheduler = "tcp://127.0.0.1:9"'), 4,
     "not both"),
    (('[[table]]\nname = "region_size"', '[[table]\nname = "region_size"'), 16,
     "not a TOML manifest"),
])
def test_manifest_errors_name_the_file_and_line(survey, edit, line, match, monkeypatch):
    here, _ = survey
    path = here / "bad.toml"
    path.write_text(MANIFEST.replace(*edit, 1))
    monkeypatch.setattr(release_module, "solve_sensitive", _no_solve)
    with pytest.raises(TableFormatError, match=match) as caught:
        read_manifest(path).protect()
    assert caught.value.path == str(path) and caught.value.line == line
    assert str(caught.value).startswith(f"{path}:{line}: ")


def _no_solve(*args, **kwargs):
    raise AssertionError("a bad manifest reached a solve")


def test_cli_batch_error_is_one_line(survey, capsys):
    here, _ = survey
    path = here / "worse.toml"
    path.write_text(MANIFEST.replace('output = "out"', 'output = "out"\nworkers = 0'))
    assert main(["batch", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip().count("\n") == 0
    assert f"{path}:3: workers must be a positive integer" in err


def test_protect_many_refuses_before_reading(survey):
    _, columns = survey
    with pytest.raises(InputError, match="at least one table"):
        protect_many(columns, [])
    with pytest.raises(InputError, match="table 'x y': name must be"):
        protect_many(columns, [dict(name="x y", dimensions=["region"], rules=RULES)])
    with pytest.raises(InputError, match="dimensions must be a list"):
        protect_many(columns, [dict(name="t", dimensions="region", rules=RULES)])


def test_manifest_documented_example_reads(tmp_path):
    """The example in docs/batch.md is a manifest read_manifest accepts."""
    text = (Path(__file__).parents[1] / "docs" / "batch.md").read_text()
    example = textwrap.dedent(text.split("```toml\n")[1].split("```")[0])
    (tmp_path / "survey.csv").write_text("region,activity,size,turnover,employees\n")
    (tmp_path / "region.hrc").write_text("A\n")
    (tmp_path / "activity.hrc").write_text("B\n")
    (tmp_path / "release.toml").write_text(example)
    manifest = read_manifest(tmp_path / "release.toml")
    assert manifest.tables and all(t.name for t in manifest.tables)


def test_linked_protect_takes_a_hierarchy_one_table_lacks(survey):
    here, columns = survey
    protected = cspopt.protect(columns, [["region", "activity"], ["activity", "size"]],
                               response="turnover", rules=RULES,
                               hierarchies={"region": str(here / "region.hrc")},
                               time_limit=60)
    assert protected.result.has_pattern and protected.result.audit.protected
    with pytest.raises(InputError, match="hierarchies given for legal"):
        cspopt.protect(columns, [["region", "activity"], ["activity", "size"]],
                       response="turnover", rules=RULES, hierarchies={"legal": "x.hrc"})


def test_a_missing_hierarchy_file_is_named(survey):
    _, columns = survey
    with pytest.raises(TableFormatError, match="no/such.hrc: the hierarchy of dimension "
                                               "'region' cannot be read"):
        cspopt.protect(columns, ["region", "activity"], response="turnover", rules=RULES,
                       hierarchies={"region": "/no/such.hrc"})


def test_a_hierarchy_the_data_do_not_fit_is_named_where_it_was_given(survey, monkeypatch):
    """A code of the data missing from a linked group's hierarchy: the error points at the
    line that gave that hierarchy (the manifest's [hierarchies], or the table's own), not
    at the group's first table."""
    here, _ = survey
    text = (here / "region.hrc").read_text()
    (here / "short.hrc").write_text("\n".join(text.splitlines()[:-1]) + "\n")  # a leaf less
    monkeypatch.setattr(release_module, "solve_sensitive", _no_solve)
    shared = MANIFEST.replace('region = "region.hrc"', 'region = "short.hrc"')
    own = MANIFEST.replace('region = "region.hrc"', '').replace(
        'dimensions = ["region", "size"]',
        'dimensions = ["region", "size"]\nhierarchies = { region = "short.hrc" }').replace(
        'dimensions = ["region", "activity"]',
        'dimensions = ["region", "activity"]\nhierarchies = { region = "short.hrc" }')
    for name, manifest, line in (("shared", shared, 5), ("own", own, 15)):
        path = here / f"{name}.toml"
        path.write_text(manifest)
        with pytest.raises(TableFormatError, match="of dimension 'region' is not in its "
                                                   "hierarchy") as caught:
            read_manifest(path).protect()
        assert (caught.value.path, caught.value.line) == (str(path), line)
        assert "protected with 'region_size'" in str(caught.value)

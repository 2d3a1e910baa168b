"""CSV, JSON and tau-ARGUS readers/writers, and format dispatch."""

import json

import numpy as np
import pytest
from helpers import INSTANCES

from cspopt import Dimension, Table
from cspopt.errors import InputError, NonAdditiveError, TableFormatError
from cspopt.io import read_table, write_table, write_tidy_csv
from cspopt.io.jj import read_jj
from cspopt.table.generators import hierarchical_2d


def _same_relations(a, b):
    rel = lambda t: sorted(tuple(sorted(t.relations.terms(r))) for r in range(t.num_relations))
    return rel(a) == rel(b)


def test_tauargus_tab_matches_its_jj_export(shared_instances):
    tab = read_table(shared_instances / "tauargus" / "pp.tab")
    jj = read_jj(INSTANCES / "pp_shadow.jj")
    np.testing.assert_array_equal(tab.values, jj.values)
    np.testing.assert_array_equal(tab.status, jj.status)
    s = jj.sensitive
    np.testing.assert_array_equal(tab.lower_protection[s], jj.lower_protection[s])
    np.testing.assert_array_equal(tab.upper_protection[s], jj.upper_protection[s])
    assert _same_relations(tab, jj)
    region = tab.dimensions[1]
    assert region.children("Nr") == ["1", "2", "3"] and region.parent["99"] == "Total"


@pytest.mark.parametrize("suffix", [".json", ".csv", ".jj"])
def test_round_trip_labelled_tables(tmp_path, suffix):
    table = hierarchical_2d(6, 3, seed=4)
    path = tmp_path / f"t{suffix}"
    if suffix == ".csv":  # codes cannot hold the hierarchy: refused unless asked for
        with pytest.raises(InputError, match="cannot hold this table's relations"):
            write_table(table, path)
        write_tidy_csv(table, path, codes_only=True)
    else:
        write_table(table, path)
    kwargs = {"dimensions": {"row": table.dimensions[0]}, "total": "T"} if suffix == ".csv" else {}
    back = read_table(path, **kwargs)
    if suffix == ".csv":  # relations are rebuilt from the codes, in the same order
        assert back.labels == table.labels
    assert back.equals(table)


def test_json_keeps_infinite_bounds_and_general_tables(tmp_path):
    t = Table.from_array([[1, -2], [3, 4]], sensitive=[[1, 0], [0, 0]], nonnegative=False)
    assert np.all(np.isneginf(t.apriori_lower))
    write_table(t, tmp_path / "g.json")
    data = json.loads((tmp_path / "g.json").read_text())
    assert data["apriori_lower"][0] is None
    back = read_table(tmp_path / "g.json")
    assert back.equals(t) and not back.nonnegative


def test_wide_csv_with_and_without_margins(tmp_path):
    (tmp_path / "a.csv").write_text("region,f,m\nA,1,2\nB,3,4\n")
    t = read_table(tmp_path / "a.csv")
    assert t.to_array().tolist() == [[1, 2, 3], [3, 4, 7], [4, 6, 10]]
    assert t.labels[0] == ("A", "f") and t.dimensions[0].name == "region"
    write_table(t, tmp_path / "b.wide.csv")
    assert read_table(tmp_path / "b.wide.csv").equals(t)
    (tmp_path / "c.csv").write_text("region,f,m,Total\nA,1,2,3\nB,3,4,8\nTotal,4,6,11\n")
    with pytest.raises(NonAdditiveError):
        read_table(tmp_path / "c.csv")


def test_tidy_csv_errors_name_the_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("r,c,value,status\nTotal,Total,3,s\nTotal,x,1,s\nTotal,y,oops,s\n")
    with pytest.raises(TableFormatError, match="t.csv:4"):
        read_table(path)
    path.write_text("r,value,status\nTotal,3,s\nx,1,u\ny,2,q\n")
    with pytest.raises(InputError, match="t.csv:4.*unknown status"):
        read_table(path)
    path.write_text("r,value\nTotal,3\nx,1\n")
    with pytest.raises(NonAdditiveError):
        read_table(path)
    path.write_text("r,c,value\nTotal,Total,3\nTotal,x,3\nA,x,3\n")
    with pytest.raises(InputError, match="missing"):
        read_table(path)


def test_dispatch_errors(tmp_path):
    with pytest.raises(InputError, match="unknown table format"):
        read_table(tmp_path / "t.xlsx")
    with pytest.raises(InputError, match="no such file"):
        read_table(tmp_path / "absent.jj")
    with pytest.raises(InputError):
        write_table(read_jj(INSTANCES / "ex1.jj"), tmp_path / "x.csv")  # no labels
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(TableFormatError, match="bad.json:1"):
        read_table(tmp_path / "bad.json")


def test_hrc_parsing(tmp_path):
    hrc = tmp_path / "h.hrc"
    hrc.write_text("A\n@a1\n@a2\n@@a21\nB\n")
    dim = Dimension.from_hrc("d", hrc, total="T", codes=["A", "a1", "Z"])
    assert dim.children("T") == ["A", "B", "Z"] and dim.children("a2") == ["a21"]
    hrc.write_text("A\n@@a1\n")
    with pytest.raises(TableFormatError, match="h.hrc:2"):
        Dimension.from_hrc("d", hrc)

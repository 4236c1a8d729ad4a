"""The CSV loader against a corpus of nasty and unusual files, each with its expected outcome."""

import numpy as np
import pandas as pd
import pytest
from support.csv_corpus import CORPUS, LOADS, REFUSED

from cae.data.csvio import (
    CSVLoadError,
    Limits,
    escape_markdown,
    range_warning,
    read_csv,
    safe_csv_cell,
    scale,
    to_safe_csv,
)


def test_corpus_is_complete():
    names = {p.name for p in CORPUS.iterdir()}
    assert names == set(LOADS) | set(REFUSED)
    assert len(names) >= 20


@pytest.mark.parametrize("name", sorted(LOADS))
def test_corpus_loads(name):
    table, report = read_csv(CORPUS / name)
    for key, want in LOADS[name].items():
        assert getattr(report, key) == want, key
    assert len(table) == report.rows_read - report.short_rows_dropped
    for c in table.numeric_columns:
        assert table.frame[c].dtype == float


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_corpus_refused(name):
    with pytest.raises(CSVLoadError, match=REFUSED[name].replace("(", r"\(")):
        read_csv(CORPUS / name)


def test_values_parsed_exactly():
    t, _ = read_csv(CORPUS / "03_semicolon_decimal_comma.csv")
    np.testing.assert_array_equal(t.frame["a"], np.arange(10) + 0.5)
    t, _ = read_csv(CORPUS / "07_thousands_quoted.csv")
    assert t.frame["amount"].tolist()[:2] == [1201.5, 2202.5]
    t, _ = read_csv(CORPUS / "30_exponents.csv")
    assert t.frame["a"].tolist() == [1e-3, -32.0, 4.0] and t.frame["b"].tolist() == [25000.0, 0.5, 7.0]
    t, _ = read_csv(CORPUS / "01_utf8_bom.csv")
    assert t.frame.columns[0] == "x"  # no BOM left in the name


def test_missing_rows_dropped_and_counted():
    t, _ = read_csv(CORPUS / "11_missing_values.csv")
    sel = t.select()
    assert sel.X.tolist() == [[1, 2], [9, 10], [11, 12]]
    assert sel.rows_dropped == 6
    assert sel.drop_reasons == {"missing or NaN value": 4, "infinite value": 2}
    np.testing.assert_array_equal(sel.row_index, [0, 7, 8])


def test_mixed_column_is_reported_not_coerced():
    _, rep = read_csv(CORPUS / "28_mixed_column.csv")
    assert any("'six' on line 3" in w for w in rep.warnings)


def test_one_bad_cell_can_be_read_as_missing():
    """A single "abc" in a numeric column: by default the column is text (and said so, with the cell); on
    request the cell is missing, the column a feature, and only that row is dropped, counted as unparsable."""
    t, rep = read_csv(CORPUS / "33_one_bad_cell.csv")
    assert "petal" not in t.numeric_columns and rep.unparsable_rows == 1
    assert rep.unparsable_list() == [(8, "petal", "abc")]
    assert any("'abc' on line 8" in w for w in rep.warnings)
    t2, rep2 = read_csv(CORPUS / "33_one_bad_cell.csv", unparsable="missing")
    assert t2.numeric_columns == ["sepal", "petal"] and t2.text_columns == ["species"]
    assert rep2.unparsable_as_missing and not rep2.warnings
    assert ("cells that are not numbers, in mostly numeric columns", "1 in 1 row(s) — treated as missing") in (
        rep2.summary_rows()
    )
    sel = t2.select(["sepal", "petal"], label="species")
    assert sel.drop_reasons == {"unparsable value": 1} and sel.rows_dropped == 1 and len(sel.X) == 19
    assert 6 not in sel.row_index and t2.lines[6] == 8  # the dropped row is the one on line 8
    # the other numbers are exactly those of the default reading
    np.testing.assert_array_equal(sel.X[:, 0], t.frame["sepal"].to_numpy()[sel.row_index])
    # a missing cell and an unparsable one are counted apart; a column chosen without its bad cells drops nothing
    t3, _ = read_csv(b"a,b\n1,2\n3,x\n,4\n5,6\n7,8\n", unparsable="missing")
    assert t3.select(["a", "b"]).drop_reasons == {"unparsable value": 1, "missing or NaN value": 1}
    assert t3.select(["b"]).drop_reasons == {"unparsable value": 1}
    assert t3.select(["a"]).drop_reasons == {"missing or NaN value": 1}
    # a text column stays text: only mostly numeric columns are offered
    t4, rep4 = read_csv(CORPUS / "22_text_label.csv", unparsable="missing")
    assert "species" in t4.text_columns and not rep4.unparsable_cells
    with pytest.raises(ValueError, match="unparsable"):
        read_csv(CORPUS / "22_text_label.csv", unparsable="drop")


def test_text_label_and_missing_label():
    t, _ = read_csv(CORPUS / "22_text_label.csv")
    sel = t.select(label="species")
    assert sel.label_names == ["setosa", "versicolor", "virginica"] and sel.y.tolist()[:3] == [0, 1, 2]
    t, _ = read_csv(CORPUS / "32_label_with_missing.csv")
    sel = t.select(label="cls")
    assert sel.drop_reasons == {"missing label": 1} and len(sel.X) == 3


def test_huge_values_refused_unscaled_and_scaled_exactly():
    t, _ = read_csv(CORPUS / "20_huge_values.csv")
    with pytest.raises(CSVLoadError, match="overflow"):
        t.select(scaling="none")
    sel = t.select(scaling="minmax")
    assert np.all(np.isfinite(sel.X))
    np.testing.assert_allclose(sel.X[:, 0], [1.0, 0.0, 0.75, 0.5])
    z = t.select(scaling="zscore").X
    assert np.all(np.isfinite(z)) and abs(z[:, 0].mean()) < 1e-12


def test_select_errors():
    t, _ = read_csv(CORPUS / "22_text_label.csv")
    with pytest.raises(CSVLoadError, match="not numeric"):
        t.select(["species"])
    with pytest.raises(CSVLoadError, match="at least one"):
        t.select([])
    with pytest.raises(CSVLoadError, match="scaling"):
        t.select(scaling="log")


def test_manual_overrides():
    t, rep = read_csv(CORPUS / "06_no_header.csv", header=True)
    assert rep.header and rep.rows_read == 29
    with pytest.raises(CSVLoadError, match="delimiter"):
        read_csv(b"a,b\n1,2\n", delimiter=":")
    _, rep = read_csv(CORPUS / "04_tab.tsv", delimiter="\t")
    assert rep.delimiter_name == "tab"


def test_limits():
    with pytest.raises(CSVLoadError, match="larger than"):
        read_csv(b"a\n" + b"1\n" * 1000, limits=Limits(max_bytes=100))
    with pytest.raises(CSVLoadError, match="rows"):
        read_csv(b"a\n" + b"1\n" * 1000, limits=Limits(max_rows=100))


def test_scaling_and_range_warning():
    X = np.array([[0.0, 0.0], [1.0, 1000.0], [2.0, 500.0]])
    np.testing.assert_allclose(scale(X, "minmax"), [[0, 0], [0.5, 1], [1, 0.5]])
    assert "500x" in range_warning(X, ["small", "wide"]) and "wide" in range_warning(X, ["small", "wide"])
    assert range_warning(scale(X, "minmax")) is None
    np.testing.assert_allclose(scale(X, "zscore").std(axis=0), [1, 1])


def test_wine_raw_gets_the_warning():
    from sklearn.datasets import load_wine

    assert range_warning(load_wine().data) is not None


def test_safe_csv_export():
    t, _ = read_csv(CORPUS / "23_formula_injection.csv")
    out = to_safe_csv(pd.DataFrame({"note": t.frame["note"], "label": [-1, 0, 1, 2]})).decode()
    lines = out.splitlines()
    assert lines[0] == "note,label"
    assert lines[1].startswith("\"'=HYPERLINK") and lines[2] == "'@cmd,0" and lines[3] == "'+1+2,1"
    assert lines[4] == "'-2+3,2"
    assert safe_csv_cell("\tx") == "'\tx" and safe_csv_cell(3.5) == 3.5


def test_names_are_escaped_for_markdown():
    _, rep = read_csv(CORPUS / "24_html_in_names.csv")
    shown = escape_markdown(rep.numeric_columns[0])
    assert "<" not in shown and ">" not in shown
    assert escape_markdown("**bold**") == "\\*\\*bold\\*\\*"


def test_numeric_label_column():
    t, _ = read_csv(b"a,b,label\n1,2,0\n3,4,1\n5,6,\n7,8,1\n")
    sel = t.select(["a", "b"], label="label")
    assert sel.y.tolist() == [0, 1, 1] and sel.label_names == ["0", "1"]
    assert sel.drop_reasons == {"missing label": 1}

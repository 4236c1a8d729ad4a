"""Reading a CSV in chunks (cae/data/csvstream.py): the same table whatever the block size, the fast way equal to
the cell-by-cell rules, gzip, standard input, and the line of whatever is refused."""

import gzip
import io
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.csv_corpus import CORPUS

from cae.data import csvstream
from cae.data.csvio import FeatureReader, Scaling, ScalingStats, read_csv, scale
from cae.data.csvstream import CSVLoadError, CSVStream, EncodingChanged, LoadReport, parse_block


def _result(data, **kw):
    """Everything read_csv returns, as comparable text (NaN included), or the message it refuses with."""
    try:
        t, r = read_csv(data, **kw)
    except CSVLoadError as exc:
        return ("refused", str(exc))
    return repr((t.frame.to_dict("list"), t.lines.tolist(), t.numeric_columns, t.text_columns, t.unparsable, r))


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.iterdir()))
def test_the_corpus_reads_the_same_in_blocks_of_any_size(name):
    data = (CORPUS / name).read_bytes()
    for unparsable in ("text", "missing"):
        whole = _result(data, unparsable=unparsable)
        for block in (16, 37, 200):
            assert _result(data, unparsable=unparsable, block_bytes=block) == whole, (block, unparsable)


TOKENS = [
    "1", "2.5", "-3", "+4", ".5", "5.", "1e3", "1E-2", "-0", "NA", "na", " n/a ", "", " ", "-", "?", "nan", "NaN",
    "null", "None", "#N/A", "inf", "-Infinity", "INF", "abc", "x y", "1.2.3", "1e", "+", ".", "1,234", "1,234.5",
    "1.234,5", "1,5", " 7 ", "0x10", "1_0", "e5", "--1", "TRUE", "false", "True", "1e400", '"q"', '"1,5"', '"a\nb"',
]  # fmt: skip


@st.composite
def csv_texts(draw):
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    width = draw(st.integers(1, 4))
    rows = [delimiter.join(f"c{j}" for j in range(width))] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(1, 25))):
        k = width + draw(st.sampled_from([0, 0, 0, 0, 0, 0, -1, 1]))
        cell = st.one_of(st.sampled_from(TOKENS), st.floats(-1e6, 1e6).map(repr))
        rows.append(delimiter.join(draw(st.lists(cell, min_size=max(k, 1), max_size=max(k, 1)))))
    return "\n".join(rows) + draw(st.sampled_from(["\n", "", "\r\n"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=csv_texts(), block=st.integers(16, 300))
def test_any_file_reads_the_same_in_blocks(text, block):
    data = text.encode("utf-8")
    for unparsable in ("text", "missing"):
        assert _result(data, unparsable=unparsable, block_bytes=block) == _result(data, unparsable=unparsable)


@settings(max_examples=200, deadline=None)
@given(text=csv_texts())
def test_the_fast_way_equals_the_rules_cell_by_cell(text):
    """parse_block (pandas' parser for the plain lines) gives what the cell-by-cell rules give."""
    text = text.replace("\r\n", "\n")
    delimiter = next((d for d in ",;\t|" if d in text.split("\n")[0]), ",")
    width = len(text.split("\n")[0].split(delimiter))
    names = [f"c{j}" for j in range(width)]
    as_text = names[:1]
    fast, slow = LoadReport(), LoadReport()
    try:
        a = parse_block(text, 1, names, ".", delimiter, as_text, fast)
    except CSVLoadError as exc:
        with pytest.raises(CSVLoadError, match=str(exc.line)):
            csvstream._rows_slowly(csvstream._numbered_rows(text, delimiter), names, ".", as_text, slow)
        return
    b = csvstream._rows_slowly(csvstream._numbered_rows(text, delimiter), names, ".", as_text, slow)
    assert a.lines.tolist() == b.lines.tolist()
    for n in names:
        np.testing.assert_array_equal(a.numbers[n], b.numbers[n])  # NaN equal to NaN, bit for bit otherwise
        assert a.bad.get(n, np.zeros(len(a), bool)).tolist() == b.bad.get(n, np.zeros(len(b), bool)).tolist()
    assert a.texts == b.texts and sorted(a.bad_cells.items()) == sorted(b.bad_cells.items())
    assert fast == slow


def test_words_pandas_reads_as_booleans_are_not_numbers():
    """pandas' parser reads TRUE as 1.0 in a column of floats that holds nothing else; the rules say it is not
    a number (blocks of every size put it alone in its block somewhere)."""
    data = b"a,b\n" + b"1,2\n" * 6 + b"3,TRUE\n4,false\n" * 2 + b"5,8\n" * 6
    for block in range(16, 40):
        t, rep = read_csv(data, unparsable="missing", block_bytes=block)
        assert [line for line, _ in rep.unparsable_cells["b"]] == [8, 9, 10, 11], block
        assert np.isnan(t.frame["b"][6:10]).all()


def test_a_bad_row_split_by_a_block_boundary_is_refused_with_its_line():
    body = "".join(f"{i},{i + 1}\n" for i in range(40))
    data = ("x,y\n" + body + "1,2,3\n" + body).encode()
    for block in range(16, 120):
        with pytest.raises(CSVLoadError, match="line 42 has 3 fields but the header has 2") as err:
            read_csv(data, block_bytes=block)
        assert err.value.line == 42


def test_a_file_that_loses_a_column_midway_keeps_the_rows_that_fit_and_counts_the_others():
    data = ("a,b,c\n" + "1,2,3\n" * 5 + "4,5\n" * 3 + "6,7,8\n").encode()
    t, rep = read_csv(data, block_bytes=20)
    assert len(t) == 6 and rep.short_rows_dropped == 3 and rep.short_row_lines == [7, 8, 9]
    assert rep.rows_read == 9


def test_gzip_and_standard_input(monkeypatch, tmp_path):
    data = (CORPUS / "22_text_label.csv").read_bytes()
    path = tmp_path / "f.csv.gz"
    path.write_bytes(gzip.compress(data))
    assert _result(path) == _result(data)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(data))))
    with CSVStream("-") as s:
        got = [c.lines.tolist() for c in s.chunks()]
    assert got == [read_csv(data)[0].lines.tolist()]


def test_header_only_and_empty():
    with pytest.raises(CSVLoadError, match="header row but no data rows"):
        read_csv(b"x,y\n", block_bytes=16)
    with pytest.raises(CSVLoadError, match="the file is empty"):
        CSVStream(b"  \n")


def test_a_later_line_that_is_not_utf8():
    data = ("x,name\n" + "1,a\n" * 30000 + "2,caf\xe9\n").encode("latin-1")  # the first lines are ASCII
    t, rep = read_csv(data, limits=csvstream.UNLIMITED)  # bytes can be read again: as Latin-1, as before
    assert rep.encoding == "latin-1" and t.frame["name"].iloc[-1] == "café"
    with pytest.raises(EncodingChanged, match="line 30002 is not valid utf-8") as err, CSVStream(io.BytesIO(data)) as s:
        list(s.chunks())
    assert err.value.line == 30002


def test_row_and_size_caps_while_streaming():
    data = b"x\n" + b"1\n" * 100
    with pytest.raises(CSVLoadError, match="more than 50 data rows"):
        read_csv(data, limits=csvstream.Limits(max_rows=50), block_bytes=16)
    with pytest.raises(CSVLoadError, match="larger than 0 MB"):
        read_csv(data, limits=csvstream.Limits(max_bytes=100))


def test_feature_reader_refuses_a_bad_cell_with_its_line_or_drops_its_row():
    data = b"x,y\n" + b"1,2\n" * 10 + b"3,abc\n" + b"4,5\n"
    with pytest.raises(csvstream.CSVLoadError, match="line 12: 'abc' in the column 'y' is not a number"):
        list(FeatureReader(CSVStream(data, block_bytes=16)))
    r = FeatureReader(CSVStream(data, block_bytes=16), unparsable="missing")
    lines = np.concatenate([lines for lines, _ in r])
    assert 12 not in lines and len(lines) == 11 and r.reasons == {"unparsable value": 1}


def test_scaling_from_chunks_is_the_scaling_of_the_whole():
    X = np.random.default_rng(0).normal(3, 2, (1000, 3)) * [1, 1e3, 1e-3]
    stats = ScalingStats()
    for part in np.array_split(X, 7):
        stats.update(part)
    assert stats.result("minmax") == Scaling.of(X, "minmax")
    np.testing.assert_array_equal(stats.result("minmax").apply(X), scale(X, "minmax"))
    np.testing.assert_allclose(stats.result("zscore").apply(X), scale(X, "zscore"), atol=1e-12)

"""The CSV corpus (``tests/csv_corpus``): each file with the report it loads with, or the message it is refused with."""

from conftest import ROOT

CORPUS = ROOT / "tests" / "csv_corpus"

# file -> expected report fields (loaded) ...
LOADS = {
    "01_utf8_bom.csv": dict(
        encoding="utf-8 (with BOM)", delimiter=",", header=True, rows_read=30, numeric_columns=["x", "y"]
    ),
    "02_latin1_semicolon_decimal_comma.csv": dict(
        encoding="latin-1",
        delimiter=";",
        decimal=",",
        numeric_columns=["température", "poids"],
        text_columns=["espèce"],
    ),
    "03_semicolon_decimal_comma.csv": dict(delimiter=";", decimal=",", rows_read=10),
    "04_tab.tsv": dict(delimiter="\t", numeric_columns=["a", "b", "c"], rows_read=12),
    "05_pipe.csv": dict(delimiter="|", rows_read=8),
    "06_no_header.csv": dict(header=False, numeric_columns=["column_1", "column_2"], rows_read=30),
    "07_thousands_quoted.csv": dict(numeric_columns=["id", "amount"], thousands_separators_removed=8),
    "08_duplicate_headers.csv": dict(
        numeric_columns=["x", "x_2", "y", "column_4"],
        renamed_columns={"x": "x_2", "(empty name, column 4)": "column_4"},
    ),
    "09_empty_column.csv": dict(numeric_columns=["a", "b"], empty_columns_dropped=["empty"]),
    "10_constant_column.csv": dict(constant_columns=["c"]),
    "11_missing_values.csv": dict(rows_read=9, numeric_columns=["a", "b"]),
    "12_ragged_short.csv": dict(rows_read=5, short_rows_dropped=2, short_row_lines=[3, 6]),
    "14_trailing_delimiter.csv": dict(trailing_empty_fields_trimmed=3, numeric_columns=["a", "b"]),
    "20_huge_values.csv": dict(rows_read=4),
    "22_text_label.csv": dict(numeric_columns=["sepal", "petal"], text_columns=["species"]),
    "23_formula_injection.csv": dict(numeric_columns=["=SUM(A1)", "value"], text_columns=["note"]),
    "24_html_in_names.csv": dict(numeric_columns=["<script>alert(1)</script>", "**bold**"], text_columns=["label"]),
    "25_crlf.csv": dict(rows_read=3),
    "26_blank_lines_and_spaces.csv": dict(rows_read=3, numeric_columns=["a", "b"]),
    "27_utf16.csv": dict(encoding="utf-16", rows_read=5),
    "28_mixed_column.csv": dict(numeric_columns=["a", "b"], text_columns=["c"]),
    "29_quoted_newline_label.csv": dict(rows_read=3, text_columns=["label"]),
    "30_exponents.csv": dict(rows_read=3),
    "32_label_with_missing.csv": dict(text_columns=["cls"]),
    "33_one_bad_cell.csv": dict(
        rows_read=20,
        numeric_columns=["sepal"],
        text_columns=["petal", "species"],
        unparsable_cells={"petal": [(8, "abc")]},
    ),
}
# ... or file -> the message it is refused with
REFUSED = {
    "13_ragged_long.csv": "line 4 has 3 fields but the header has 2",
    "15_empty.csv": "the file is empty",
    "16_header_only.csv": "header row but no data rows",
    "17_text_only.csv": "no column contains numbers",
    "18_binary_garbage.bin": "binary data",
    "19_one_row.csv": "only one data row",
    "21_wide_2000_columns.csv": "2000 columns; at most 1000",
    "31_only_delimiters.csv": "no data",
}

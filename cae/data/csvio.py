"""Reading people's CSV files honestly, scaling features, and writing safe CSV.

:func:`read_csv` turns the bytes of an uploaded file into a :class:`Table`
and a :class:`LoadReport`, or raises :class:`CSVLoadError` with a message a
person understands. It never guesses silently: every row or column it drops,
renames or reinterprets is counted in the report.

Rules
-----
- Encoding: UTF-8 (a byte-order mark is removed), UTF-16 with a BOM, else Latin-1.
- Delimiter: sniffed among ``,`` ``;`` tab ``|`` (the one that splits the
  most lines into the same number of fields), or given.
- Decimal separator: ``.``, or ``,`` when the delimiter is not a comma and
  numbers like ``3,14`` appear (or given). Thousands separators inside
  numbers (``"1,234.5"`` or ``1.234,5``) are removed.
- Header: detected (a first row with a non-numeric field over numeric rows) or given.
  Duplicate names get ``_2``, ``_3`` ...; empty names become ``column_N``.
- Missing values: empty cells and ``NA``, ``N/A``, ``NaN``, ``null``, ``None``,
  ``?``, ``-`` (any case). ``inf``/``-inf`` parse as infinities.
- Columns: a column whose every non-missing cell is a number is numeric (a
  feature candidate); any other column is text (a label candidate, or
  ignored). Columns with no value at all are dropped; constant numeric columns
  are reported.
- Unparsable cells: a column that is mostly numbers (at most half of its
  cells are not) is text by default, and its cells that are not numbers are
  listed in the report (``unparsable_cells``: line and text). With
  ``unparsable="missing"`` such a column is numeric, those cells are missing,
  and :meth:`Table.select` drops their rows, counted as "unparsable value".
- Ragged rows: a row with fewer fields than the header is dropped and counted
  (its line numbers are listed); a row with more fields is accepted only if the
  extra fields are empty (a trailing delimiter); otherwise the file is refused
  with the line number, since its columns cannot be aligned safely.
- Limits: file size, rows and columns are capped (:class:`Limits`).
- Rows with a missing, NaN or infinite value in a chosen feature column are
  dropped at :meth:`Table.select` and counted.
- Values beyond 1e150 in magnitude would overflow CAE's squared distances:
  they are refused without scaling, and handled exactly with min-max or
  z-score scaling (columns are first divided by their largest magnitude).

Examples
--------
>>> t, rep = read_csv(b"a;b;kind\\n1,5;2;x\\n3,0;4;y\\n2,5;NA;x\\n")
>>> rep.delimiter, rep.decimal, t.numeric_columns, t.text_columns
(';', ',', ['a', 'b'], ['kind'])
>>> sel = t.select(["a", "b"], label="kind")
>>> sel.X.tolist(), sel.y.tolist(), sel.rows_dropped
([[1.5, 2.0], [3.0, 4.0]], [0, 1], 1)
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "CSVLoadError",
    "Limits",
    "LoadReport",
    "Table",
    "Selection",
    "read_csv",
    "scale",
    "range_warning",
    "safe_csv_cell",
    "to_safe_csv",
    "escape_markdown",
    "SCALINGS",
]

SCALINGS = ("none", "minmax", "zscore")
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
MISSING = {"", "na", "n/a", "nan", "null", "none", "?", "-", "#n/a"}
MAX_ABS = 1e150


class CSVLoadError(ValueError):
    """A file that cannot be read as a table of numbers; the message says why."""


@dataclass(frozen=True)
class Limits:
    """Caps on what :func:`read_csv` accepts."""

    max_bytes: int = 50 * 1024 * 1024
    max_rows: int = 250_000
    max_columns: int = 1_000


@dataclass
class LoadReport:
    """What :func:`read_csv` read, kept and dropped, and why."""

    encoding: str = ""
    delimiter: str = ","
    decimal: str = "."
    header: bool = True
    rows_read: int = 0
    columns_read: int = 0
    numeric_columns: list[str] = field(default_factory=list)
    text_columns: list[str] = field(default_factory=list)
    empty_columns_dropped: list[str] = field(default_factory=list)
    constant_columns: list[str] = field(default_factory=list)
    renamed_columns: dict[str, str] = field(default_factory=dict)
    short_rows_dropped: int = 0
    short_row_lines: list[int] = field(default_factory=list)
    trailing_empty_fields_trimmed: int = 0
    thousands_separators_removed: int = 0
    unparsable_cells: dict[str, list[tuple[int, str]]] = field(default_factory=dict)  # column -> [(line, text)]
    unparsable_rows: int = 0  # rows with at least one such cell
    unparsable_as_missing: bool = False
    warnings: list[str] = field(default_factory=list)

    @property
    def delimiter_name(self) -> str:
        return DELIMITERS.get(self.delimiter, repr(self.delimiter))

    def summary_rows(self) -> list[tuple[str, str]]:
        """(item, value) pairs for display as a table (values are plain text)."""
        rows = [
            ("encoding", self.encoding),
            ("delimiter", self.delimiter_name),
            ("decimal separator", self.decimal),
            ("header row", "yes" if self.header else "no (columns numbered)"),
            ("data rows read", str(self.rows_read)),
            ("columns read", str(self.columns_read)),
            ("numeric columns", str(len(self.numeric_columns))),
            ("text columns", ", ".join(self.text_columns) or "none"),
        ]
        if self.short_rows_dropped:
            lines = ", ".join(map(str, self.short_row_lines[:10])) + (" ..." if len(self.short_row_lines) > 10 else "")
            rows.append(("short rows dropped", f"{self.short_rows_dropped} (lines {lines})"))
        if self.empty_columns_dropped:
            rows.append(("empty columns dropped", ", ".join(self.empty_columns_dropped)))
        if self.constant_columns:
            rows.append(("constant columns", ", ".join(self.constant_columns)))
        if self.renamed_columns:
            rows.append(("renamed columns", ", ".join(f"{a} -> {b}" for a, b in self.renamed_columns.items())))
        if self.thousands_separators_removed:
            rows.append(("thousands separators removed", f"in {self.thousands_separators_removed} cells"))
        if self.trailing_empty_fields_trimmed:
            rows.append(("trailing empty fields trimmed", f"on {self.trailing_empty_fields_trimmed} rows"))
        if self.unparsable_cells:
            n = sum(len(v) for v in self.unparsable_cells.values())
            rows.append(
                (
                    "cells that are not numbers, in mostly numeric columns",
                    f"{n} in {self.unparsable_rows} row(s)"
                    + (" — treated as missing" if self.unparsable_as_missing else " — those columns are text"),
                )
            )
        return rows

    def unparsable_list(self, limit: int = 10) -> list[tuple[int, str, str]]:
        """The cells that are not numbers in mostly numeric columns, as ``(line, column, text)``, at most ``limit``.

        The text is as in the file (escape it before showing it as Markdown).
        """
        cells = sorted((line, col, text) for col, v in self.unparsable_cells.items() for line, text in v)
        return cells[:limit]


@dataclass
class Selection:
    """The matrix chosen from a table: features ``X``, optional labels ``y``."""

    X: np.ndarray
    y: np.ndarray | None
    features: list[str]
    label: str | None
    label_names: list[str]
    row_index: np.ndarray  # positions of the kept rows in the table
    rows_dropped: int
    drop_reasons: dict[str, int]
    scaling: str
    warnings: list[str]


class Table:
    """The parsed columns of a CSV: numeric ones as float arrays, text ones as strings."""

    def __init__(
        self,
        frame: pd.DataFrame,
        numeric_columns: Sequence[str],
        text_columns: Sequence[str],
        lines: ArrayLike,
        unparsable: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.frame = frame
        self.numeric_columns = list(numeric_columns)
        self.text_columns = list(text_columns)
        self.lines = np.asarray(lines)  # the file line of each row (1-based)
        #: numeric column -> boolean mask of the cells that were not numbers (read as missing)
        self.unparsable = dict(unparsable or {})

    def __len__(self) -> int:
        return len(self.frame)

    def _checked(self, features: Sequence[str] | None, label: str | None, scaling: str) -> list[str]:
        """The features chosen (default: every numeric column), checked with the label and the scaling."""
        if scaling not in SCALINGS:
            raise CSVLoadError(f"unknown scaling {scaling!r}; choose one of {', '.join(SCALINGS)}")
        features = list(self.numeric_columns if features is None else features)
        if not features:
            raise CSVLoadError("choose at least one numeric feature column")
        bad = [f for f in features if f not in self.numeric_columns]
        if bad:
            raise CSVLoadError(f"not numeric feature columns: {', '.join(map(str, bad))}")
        if label is not None and label not in self.frame.columns:
            raise CSVLoadError(f"no column named {label!r}")
        if label is not None and label in features:
            raise CSVLoadError("the label column cannot also be a feature")
        return features

    def _usable_rows(self, X: NDArray[np.float64], features: list[str], reasons: dict[str, int]) -> NDArray[np.bool_]:
        """The rows whose features are all numbers (finite, read); the others counted in ``reasons`` by why."""
        bad_rows = np.zeros(len(X), bool)
        for f in features:
            if f in self.unparsable:
                bad_rows |= self.unparsable[f]
        nan_rows = np.isnan(X).any(axis=1) & ~bad_rows
        inf_rows = np.isinf(X).any(axis=1) & ~nan_rows & ~bad_rows
        if bad_rows.any():
            reasons["unparsable value"] = int(bad_rows.sum())
        if nan_rows.any():
            reasons["missing or NaN value"] = int(nan_rows.sum())
        if inf_rows.any():
            reasons["infinite value"] = int(inf_rows.sum())
        return ~(nan_rows | inf_rows | bad_rows)

    def _labelled_rows(self, label: str, keep: NDArray[np.bool_], reasons: dict[str, int]) -> NDArray[np.bool_]:
        """The rows with a label; those among ``keep`` without one counted in ``reasons``."""
        col = self.frame[label]
        miss = col.isna().to_numpy().copy()
        if label in self.numeric_columns:
            miss |= ~np.isfinite(col.to_numpy(float, na_value=np.nan))
        lab_missing = miss & keep
        if lab_missing.any():
            reasons["missing label"] = int(lab_missing.sum())
        return ~miss

    def select(
        self, features: Sequence[str] | None = None, label: str | None = None, scaling: str = "none"
    ) -> Selection:
        """Features (default: every numeric column) and an optional label column.

        Rows with a missing, NaN or infinite feature value, or a missing
        label, are dropped and counted.

        Raises
        ------
        CSVLoadError
            No features, an unknown column, fewer than 2 rows left, or values
            too large for CAE without scaling.
        """
        features = self._checked(features, label, scaling)
        X = self.frame[features].to_numpy(dtype=float)
        reasons: dict[str, int] = {}
        keep = self._usable_rows(X, features, reasons)
        y = None
        names: list[str] = []
        if label is not None:
            keep &= self._labelled_rows(label, keep, reasons)
        idx = np.flatnonzero(keep)
        X = X[idx]
        if len(X) < 2:
            raise CSVLoadError(
                f"only {len(X)} usable row(s) left after dropping rows with missing values; need at least 2"
            )
        if label is not None:
            vals = self.frame[label].to_numpy()[idx]
            y, names = _encode_labels(vals)
        warnings: list[str] = []
        if scaling == "none" and np.max(np.abs(X)) > MAX_ABS:
            raise CSVLoadError(
                f"some values exceed {MAX_ABS:g} in magnitude; CAE's distances would overflow. "
                "Choose min-max or z-score scaling."
            )
        X = scale(X, scaling)
        w = range_warning(X, features) if scaling == "none" else None
        if w:
            warnings.append(w)
        return Selection(
            X=X,
            y=y,
            features=features,
            label=label,
            label_names=names,
            row_index=idx,
            rows_dropped=int(len(self.frame) - len(idx)),
            drop_reasons=reasons,
            scaling=scaling,
            warnings=warnings,
        )


def _encode_labels(vals: NDArray[Any]) -> tuple[NDArray[np.int64], list[str]]:
    s = pd.Series(vals)
    try:
        num = pd.to_numeric(s)
        uniq = np.unique(num.to_numpy())
        y = np.searchsorted(uniq, num.to_numpy())
        names = [_fmt_num(u) for u in uniq]
    except (ValueError, TypeError):
        uniq, y = np.unique(s.astype(str).to_numpy(), return_inverse=True)
        names = [str(u) for u in uniq]
    return y.astype(np.int64), names


def _fmt_num(value: float) -> str:
    v = float(value)
    return str(int(v)) if v.is_integer() else repr(v)


# ------------------------------------------------------------------- scaling
def scale(X: ArrayLike, how: str = "none") -> NDArray[np.float64]:
    """Scale each feature: 'none', 'minmax' (to [0, 1]) or 'zscore' (mean 0, std 1).

    Constant features become 0. Columns are first divided by their largest
    magnitude, so values near 1e308 scale without overflowing.

    Examples
    --------
    >>> scale(np.array([[0.0, 1e308], [10.0, -1e308]]), "minmax").tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    X = np.asarray(X, dtype=float)
    if how == "none":
        return X.copy()
    if how not in SCALINGS:
        raise ValueError(f"unknown scaling {how!r}")
    m = np.max(np.abs(X), axis=0)
    m[m == 0] = 1.0
    Z = X / m
    if how == "minmax":
        lo, hi = Z.min(axis=0), Z.max(axis=0)
        span = hi - lo
        span[span == 0] = 1.0
        return (Z - lo) / span
    mu, sd = Z.mean(axis=0), Z.std(axis=0)
    sd[sd == 0] = 1.0
    return (Z - mu) / sd


def range_warning(X: ArrayLike, names: Sequence[str] | None = None, ratio: float = 100.0) -> str | None:
    """A warning when feature ranges differ by more than ``ratio`` times, else None.

    CAE's kernel bandwidth is the median over features of a per-feature
    Silverman bandwidth, so one feature with a much wider range dominates every
    distance (raw Wine never gets a threshold at all).
    """
    X = np.asarray(X, float)
    if X.ndim != 2 or X.shape[1] < 2:
        return None
    ranges = X.max(axis=0) - X.min(axis=0)
    pos = ranges[ranges > 0]
    if len(pos) < 2 or pos.max() <= ratio * pos.min():
        return None
    names = names or [f"x{i}" for i in range(X.shape[1])]
    wide = names[int(np.argmax(ranges))]
    narrow = names[int(np.flatnonzero(ranges == pos.min())[0])]
    return (
        f"feature ranges differ by {pos.max() / pos.min():.0f}x (widest: {wide}, narrowest: {narrow}). "
        "CAE's kernel bandwidth is a median over features, so the wide features dominate; "
        "consider min-max or z-score scaling."
    )


# ------------------------------------------------------------------- reading
def _decode(data: bytes) -> tuple[str, str]:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict"), "utf-8 (with BOM)"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            raise CSVLoadError("the file starts like UTF-16 text but is not valid UTF-16") from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def _looks_binary(data: bytes) -> bool:
    sample = data[:8192]
    if b"\x00" in sample:
        return True
    ctrl = sum(1 for b in sample if b < 32 and b not in (9, 10, 13, 12))
    return len(sample) > 0 and ctrl / len(sample) > 0.05


_NUM = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_NUM_COMMA = re.compile(r"^[+-]?(\d+,?\d*|,\d+)([eE][+-]?\d+)?$")
_THOUSANDS_DOT = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")  # 1,234,567.5
_THOUSANDS_COMMA = re.compile(r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$")  # 1.234.567,5
_SPECIAL = {
    "inf": np.inf,
    "+inf": np.inf,
    "-inf": -np.inf,
    "infinity": np.inf,
    "+infinity": np.inf,
    "-infinity": -np.inf,
}


def _sniff(lines: list[str]) -> str:
    best, best_score = None, (-1, -1)
    for d in DELIMITERS:
        counts = [len(row) for row in csv.reader(lines, delimiter=d)]
        if not counts:
            continue
        vals, freq = np.unique(counts, return_counts=True)
        mode = vals[np.argmax(freq)]
        if mode < 2:
            continue
        score = (int(freq.max()), int(mode))
        if score > best_score:
            best, best_score = d, score
    return best or ","


def _parse_number(cell: str, decimal: str, stats: list[int]) -> tuple[float | None, bool]:
    s = cell.strip()
    low = s.lower()
    if low in MISSING:
        return np.nan, True
    if low in _SPECIAL:
        return _SPECIAL[low], True
    if decimal == ".":
        if _NUM.match(s):
            return float(s), True
        if _THOUSANDS_DOT.match(s):
            stats[0] += 1
            return float(s.replace(",", "")), True
    else:
        if _NUM_COMMA.match(s):
            return float(s.replace(",", ".")), True
        if _THOUSANDS_COMMA.match(s):
            stats[0] += 1
            return float(s.replace(".", "").replace(",", ".")), True
        if _NUM.match(s) and "." in s:  # 1.5 in a decimal-comma file: ambiguous with thousands (1.500)
            return None, False
    return None, False


def _text(source: bytes | str | os.PathLike[str] | IO[bytes], limits: Limits) -> tuple[str, str]:
    """The file's text (newlines as ``\\n``) and its encoding; an empty or binary file is refused."""
    data = _read_bytes(source, limits)
    if not data.strip():
        raise CSVLoadError("the file is empty")
    if not data.startswith((b"\xff\xfe", b"\xfe\xff")) and _looks_binary(data):
        raise CSVLoadError("this does not look like a text CSV file (it contains binary data)")
    text, encoding = _decode(data)
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def _nonblank_rows(text: str, delimiter: str, limits: Limits) -> list[tuple[int, list[str]]]:
    """The rows with any non-blank field, each with its line number (at most ``limits.max_rows`` + 1)."""
    numbered = []
    try:
        reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=False)
        for r in reader:
            if any(c.strip() for c in r):
                numbered.append((reader.line_num, r))
            if len(numbered) > limits.max_rows + 1:
                raise CSVLoadError(f"the file has more than {limits.max_rows:,} data rows; that is the most supported")
    except csv.Error as exc:
        raise CSVLoadError(f"the file is not valid CSV: {exc}") from None
    if not numbered:
        raise CSVLoadError("the file has no data")
    return numbered


def _decimal(numbered: list[tuple[int, list[str]]], delimiter: str, decimal: str | None) -> str:
    """The decimal separator given, checked, or detected."""
    if decimal is None:
        decimal = _detect_decimal(numbered, delimiter)
    elif decimal not in (".", ","):
        raise CSVLoadError("the decimal separator must be '.' or ','")
    if decimal == "," and delimiter == ",":
        raise CSVLoadError("a comma cannot be both the delimiter and the decimal separator")
    return decimal


def _names_and_body(
    numbered: list[tuple[int, list[str]]], header: bool, limits: Limits
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The column names (the header's, or ``column_1``…) and the data rows, within the limits."""
    if header:
        _, names = numbered[0]
        body = numbered[1:]
    else:
        names = [f"column_{i + 1}" for i in range(len(numbered[0][1]))]
        body = numbered
    names = [n.strip() for n in names]
    if len(names) > limits.max_columns:
        raise CSVLoadError(f"the file has {len(names)} columns; at most {limits.max_columns} are supported")
    if not body:
        raise CSVLoadError("the file has a header row but no data rows")
    if len(body) > limits.max_rows:
        raise CSVLoadError(f"the file has {len(body)} data rows; at most {limits.max_rows:,} are supported")
    return names, body


def _aligned(body: list[tuple[int, list[str]]], width: int, report: LoadReport) -> tuple[list[list[str]], list[int]]:
    """The rows with as many fields as the header (trailing empty fields trimmed, short rows dropped) and their
    line numbers; a row with more non-empty fields than the header is refused."""
    kept, lines_kept = [], []
    for line_no, r in body:
        if len(r) > width:
            extra = r[width:]
            if any(c.strip() for c in extra):
                raise CSVLoadError(
                    f"line {line_no} has {len(r)} fields but the header has {width}; "
                    "the columns cannot be aligned (check the delimiter or quoting)"
                )
            r = r[:width]
            report.trailing_empty_fields_trimmed += 1
        elif len(r) < width:
            report.short_rows_dropped += 1
            report.short_row_lines.append(line_no)
            continue
        kept.append(r)
        lines_kept.append(line_no)
    if not kept:
        raise CSVLoadError("no row has as many fields as the header")
    return kept, lines_kept


@dataclass
class _Columns:
    """The columns read so far: values by name, which are numeric and which text, the cells read as missing."""

    frame: dict[str, Any]
    numeric: list[str]
    textual: list[str]
    masks: dict[str, np.ndarray]
    bad_any: np.ndarray
    stats: list[int]


def _numbers(col: Sequence[str], decimal: str, stats: list[int]) -> tuple[np.ndarray, list[int]]:
    """A column's cells as numbers (NaN where not one) and the rows of the cells that are not numbers."""
    values = np.empty(len(col))
    bad = []
    for i, c in enumerate(col):
        v, good = _parse_number(c, decimal, stats)
        if not good:
            bad.append(i)
            v = np.nan
        values[i] = v
    return values, bad


def _read_column(
    name: str,
    col: Sequence[str],
    decimal: str,
    lines_kept: list[int],
    unparsable: str,
    report: LoadReport,
    out: _Columns,
) -> None:
    """One column: numeric (its cells that are not numbers listed, and read as missing when asked), text, or
    dropped (empty)."""
    if all(not c.strip() for c in col):
        report.empty_columns_dropped.append(name)
        return
    values, bad = _numbers(col, decimal, out.stats)
    ok = not bad
    if bad and len(bad) <= 0.5 * len(col) and not np.all(np.isnan(values)):
        i = bad[0]
        report.unparsable_cells[name] = [(lines_kept[k], col[k].strip()) for k in bad]
        out.bad_any[bad] = True
        if unparsable == "missing":
            out.masks[name] = np.zeros(len(col), bool)
            out.masks[name][bad] = True
            ok = True
        else:
            report.warnings.append(
                f"column {name!r} is mostly numbers but has {len(bad)} text value(s) "
                f"(first: {col[i].strip()[:40]!r} on line {lines_kept[i]}); it is treated as a text column unless "
                "such cells are read as missing"
            )
    if ok and not np.all(np.isnan(values)):
        out.frame[name] = values
        out.numeric.append(name)
        return
    texts = [c.strip() if c.strip().lower() not in MISSING else None for c in col]
    if all(t is None for t in texts):
        report.empty_columns_dropped.append(name)
        return
    out.frame[name] = pd.Series(texts, dtype=object)
    out.textual.append(name)


def read_csv(
    source: bytes | str | os.PathLike[str] | IO[bytes],
    delimiter: str | None = None,
    decimal: str | None = None,
    header: bool | None = None,
    limits: Limits = Limits(),
    unparsable: str = "text",
) -> tuple[Table, LoadReport]:
    """Read a CSV (bytes, str path or binary file) into a :class:`Table` and a :class:`LoadReport`.

    Parameters
    ----------
    source : bytes, str, pathlib.Path or binary file object
    delimiter : {',', ';', '\\t', '|'} or None
        None sniffs it.
    decimal : {'.', ','} or None
        None detects it.
    header : bool or None
        None detects it.
    limits : Limits
    unparsable : {'text', 'missing'}
        A column that is mostly numbers but has cells that are not: 'text'
        keeps it a text column; 'missing' makes it numeric with those cells
        missing (their rows are dropped when it is a feature). Either way the
        cells are listed in ``report.unparsable_cells``.

    Examples
    --------
    >>> t, rep = read_csv(b"x,y\\n1,2\\n3,abc\\n5,6\\n")
    >>> t.numeric_columns, rep.unparsable_cells
    (['x'], {'y': [(3, 'abc')]})
    >>> t, rep = read_csv(b"x,y\\n1,2\\n3,abc\\n5,6\\n", unparsable="missing")
    >>> sel = t.select()
    >>> t.numeric_columns, sel.X.tolist(), sel.drop_reasons
    (['x', 'y'], [[1.0, 2.0], [5.0, 6.0]], {'unparsable value': 1})

    Raises
    ------
    CSVLoadError
        Empty, binary, too large, header only, no numeric column, a single
        data row, or a row with more fields than the header.
    """
    if unparsable not in ("text", "missing"):
        raise ValueError("unparsable must be 'text' or 'missing'")
    text, encoding = _text(source, limits)
    report = LoadReport(encoding=encoding)
    if delimiter is None:
        delimiter = _sniff(text.split("\n", 200)[:200])
    elif delimiter not in DELIMITERS:
        raise CSVLoadError(f"unsupported delimiter {delimiter!r}; use one of , ; tab |")
    report.delimiter = delimiter
    numbered = _nonblank_rows(text, delimiter, limits)
    decimal = report.decimal = _decimal(numbered, delimiter, decimal)
    if header is None:
        header = _detect_header(numbered, decimal)
    report.header = bool(header)
    names, body = _names_and_body(numbered, header, limits)
    kept, lines_kept = _aligned(body, len(names), report)
    report.rows_read = len(body)
    report.columns_read = len(names)
    names = _unique_names(names, report)
    out = _Columns({}, [], [], {}, np.zeros(len(kept), bool), [0])
    for name, col in zip(names, zip(*kept)):
        _read_column(name, col, decimal, lines_kept, unparsable, report, out)
    report.thousands_separators_removed = out.stats[0]
    report.unparsable_rows = int(out.bad_any.sum())
    report.unparsable_as_missing = unparsable == "missing" and bool(report.unparsable_cells)
    if not out.numeric:
        raise CSVLoadError("no column contains numbers; CAE needs at least one numeric feature")
    if len(kept) < 2:
        raise CSVLoadError("the file has only one data row; CAE needs at least 2 samples")
    df = pd.DataFrame(out.frame)
    for name in out.numeric:
        v = df[name].to_numpy(float)
        f = v[np.isfinite(v)]
        if len(f) and np.all(f == f[0]):
            report.constant_columns.append(name)
    report.numeric_columns = out.numeric
    report.text_columns = out.textual
    return Table(df, out.numeric, out.textual, lines_kept, unparsable=out.masks), report


def _read_bytes(source: bytes | str | os.PathLike[str] | IO[bytes], limits: Limits) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    elif hasattr(source, "read"):
        data = source.read(limits.max_bytes + 1)
        if isinstance(data, str):
            data = data.encode("utf-8")
    else:
        with open(source, "rb") as fh:
            data = fh.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise CSVLoadError(f"the file is larger than {limits.max_bytes / 1024 / 1024:.0f} MB")
    return data


def _detect_decimal(numbered: list[tuple[int, list[str]]], delimiter: str) -> str:
    if delimiter == ",":
        return "."
    comma = dot = 0
    for _, r in numbered[:200]:
        for c in r:
            s = c.strip()
            if _NUM_COMMA.match(s) and "," in s:
                comma += 1
            elif _NUM.match(s) and "." in s:
                dot += 1
    return "," if comma > dot else "."


def _detect_header(numbered: list[tuple[int, list[str]]], decimal: str) -> bool:
    """A header when some column is numeric below a non-numeric first cell,
    or when the first row has no number at all."""
    stats = [0]

    def is_num(c: str) -> bool:
        s = c.strip()
        return bool(s) and s.lower() not in MISSING and _parse_number(s, decimal, stats)[1]

    first = numbered[0][1]
    below = [r for _, r in numbered[1:101]]
    if not any(is_num(c) for c in first):
        return True
    for j, c in enumerate(first):
        if is_num(c) or not c.strip():
            continue
        col = [r[j] for r in below if j < len(r) and r[j].strip()]
        if col and sum(is_num(v) for v in col) >= 0.5 * len(col):
            return True
    return False


def _unique_names(names: Sequence[str], report: LoadReport) -> list[str]:
    seen: dict[str, bool] = {}
    out: list[str] = []
    for i, n in enumerate(names):
        base = n if n else f"column_{i + 1}"
        name = base
        k = 1
        while name in seen:
            k += 1
            name = f"{base}_{k}"
        if name != n:
            report.renamed_columns[n if n else f"(empty name, column {i + 1})"] = name
        seen[name] = True
        out.append(name)
    return out


# ------------------------------------------------------------------- writing
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_csv_cell(value: Any) -> Any:
    """A text cell made safe for spreadsheets: a leading ``'`` when it starts with = + - @ (or tab/CR).

    Numbers are not text and are returned unchanged.

    Examples
    --------
    >>> safe_csv_cell("=HYPERLINK(1)"), safe_csv_cell("-x"), safe_csv_cell("ok"), safe_csv_cell(-1)
    ("'=HYPERLINK(1)", "'-x", 'ok', -1)
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_safe_csv(frame: pd.DataFrame) -> bytes:
    """Write a DataFrame as UTF-8 CSV with every text cell (and header) made safe.

    Examples
    --------
    >>> to_safe_csv(pd.DataFrame({"=a": ["@x", "y"], "n": [-1, 2]})).decode()
    "'=a,n\\n'@x,-1\\ny,2\\n"
    """
    out = frame.copy()
    for c in out.columns:
        if out[c].dtype == object or pd.api.types.is_string_dtype(out[c]):
            out[c] = out[c].map(safe_csv_cell)
    out.columns = [safe_csv_cell(str(c)) for c in out.columns]
    buf = io.StringIO()
    out.to_csv(buf, index=False, lineterminator="\n")
    return buf.getvalue().encode("utf-8")


def escape_markdown(text: object) -> str:
    """Text from a file, escaped so Markdown renders it literally (no links, HTML or formatting).

    Examples
    --------
    >>> escape_markdown("<b>*x*</b>")
    '&lt;b&gt;\\\\*x\\\\*&lt;/b&gt;'
    """
    s = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|~$])", r"\\\1", s)

"""Reading people's CSV files honestly, scaling features, and writing safe CSV.

:func:`read_csv` turns the bytes of an uploaded file into a :class:`Table`
and a :class:`LoadReport`, or raises :class:`CSVLoadError` with a message a
person understands. It never guesses silently: every row or column it drops,
renames or reinterprets is counted in the report. It reads through
:class:`~cae.data.csvstream.CSVStream` (a file in chunks, the rules below applied
to each); :class:`FeatureReader` gives a stream's rows as feature matrices with
:meth:`Table.select`'s checks, chunk by chunk (the command line, :mod:`cae.cli`).

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

import io
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .csvstream import BLOCK_BYTES, Chunk, CSVLoadError, CSVStream, EncodingChanged, Limits, LoadReport

_LIMITS = Limits()  # the app's caps

__all__ = [
    "CSVLoadError",
    "Limits",
    "LoadReport",
    "Table",
    "Selection",
    "read_csv",
    "usable_rows",
    "scale",
    "Scaling",
    "ScalingStats",
    "FeatureReader",
    "UnparsableCell",
    "range_warning",
    "safe_csv_cell",
    "to_safe_csv",
    "escape_markdown",
    "SCALINGS",
]

SCALINGS = ("none", "minmax", "zscore")
MAX_ABS = 1e150


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
        keep = usable_rows(X, [self.unparsable[f] for f in features if f in self.unparsable], reasons)
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


def usable_rows(
    X: NDArray[np.float64], unparsable: Sequence[NDArray[np.bool_]], reasons: dict[str, int]
) -> NDArray[np.bool_]:
    """The rows whose features are all numbers (finite, read); the others counted in ``reasons`` by why.

    ``unparsable``: masks of the rows whose cell in a feature was not a number (read as missing).

    Examples
    --------
    >>> reasons = {}
    >>> usable_rows(np.array([[1.0, np.nan], [np.inf, 2.0], [3.0, 4.0]]), [], reasons).tolist(), reasons
    ([False, False, True], {'missing or NaN value': 1, 'infinite value': 1})
    """
    bad_rows = np.zeros(len(X), bool)
    for mask in unparsable:
        bad_rows |= mask
    nan_rows = np.isnan(X).any(axis=1) & ~bad_rows
    inf_rows = np.isinf(X).any(axis=1) & ~nan_rows & ~bad_rows
    for why, rows in (("unparsable value", bad_rows), ("missing or NaN value", nan_rows), ("infinite value", inf_rows)):
        if rows.any():
            reasons[why] = reasons.get(why, 0) + int(rows.sum())
    return ~(nan_rows | inf_rows | bad_rows)


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
    return Scaling.of(X, how).apply(X)


@dataclass
class Scaling:
    """A feature scaling with its numbers: ``x' = (x / divisor − offset) / span``, per feature.

    ``divisor`` is the feature's largest magnitude (so that values near 1e308 scale without overflowing),
    ``offset`` and ``span`` the minimum and the range (min–max) or the mean and the standard deviation
    (z-score) of ``x / divisor``; constant features become 0. :meth:`of` takes them from an array,
    :class:`ScalingStats` from a stream read in chunks (the same min–max numbers to the last bit; z-score's to
    rounding). A model learned by ``cae learn`` keeps them (``input_scaling_``), so that what it labels is
    scaled as what it learned.

    Examples
    --------
    >>> s = Scaling.of(np.array([[0.0, 4.0], [10.0, 8.0]]), "minmax")
    >>> s.apply(np.array([[5.0, 6.0]])).tolist(), Scaling.from_dict(s.as_dict(), 2) == s
    ([[0.5, 0.5]], True)
    """

    how: str
    divisor: NDArray[np.float64]
    offset: NDArray[np.float64]
    span: NDArray[np.float64]

    @classmethod
    def of(cls, X: NDArray[np.float64], how: str) -> Scaling:
        """The scaling of the columns of ``X`` (as :func:`scale` always computed it)."""
        if how not in SCALINGS or how == "none":
            raise ValueError(f"unknown scaling {how!r}")
        m = np.max(np.abs(X), axis=0)
        m[m == 0] = 1.0
        Z = X / m
        if how == "minmax":
            lo = Z.min(axis=0)
            return cls(how, m, lo, _nonzero(Z.max(axis=0) - lo))
        return cls(how, m, Z.mean(axis=0), _nonzero(Z.std(axis=0)))

    def apply(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """``X`` scaled (a new array)."""
        return (np.asarray(X, dtype=float) / self.divisor - self.offset) / self.span

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON values (a model file's metadata)."""
        return {"how": self.how, **{k: [float(v) for v in getattr(self, k)] for k in ("divisor", "offset", "span")}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], n_features: int) -> Scaling:
        """The scaling :meth:`as_dict` wrote; ValueError when it is not one for ``n_features`` features."""
        from .._storage import check_input_scaling

        problem = check_input_scaling(dict(d), n_features)
        if problem:
            raise ValueError(problem)
        return cls(str(d["how"]), *(np.asarray(d[k], dtype=float) for k in ("divisor", "offset", "span")))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scaling) and self.as_dict() == other.as_dict()

    __hash__ = None  # type: ignore[assignment]


def _nonzero(a: NDArray[np.float64]) -> NDArray[np.float64]:
    a[a == 0] = 1.0
    return a


class ScalingStats:
    """What a scaling needs, gathered chunk by chunk: minima and maxima, and (with ``moments``) counts, means
    and sums of squared deviations (combined as Chan et al. do).

    Examples
    --------
    >>> X = np.array([[0.0, 4.0], [10.0, 8.0], [5.0, 5.0]])
    >>> st = ScalingStats()
    >>> st.update(X[:2]).update(X[2:]).result("minmax") == Scaling.of(X, "minmax")
    True
    >>> bool(np.allclose(st.result("zscore").apply(X), scale(X, "zscore")))
    True
    """

    def __init__(self, moments: bool = True) -> None:
        self.moments = moments
        self.n = 0
        self.low = self.high = self.mean = self.m2 = np.zeros(0)

    def update(
        self, X: NDArray[np.float64], low_high: tuple[NDArray[np.float64], NDArray[np.float64]] | None = None
    ) -> ScalingStats:
        """Add the rows of ``X`` (``low_high``: their minima and maxima, when already known)."""
        if not len(X):
            return self
        lo, hi = (X.min(axis=0), X.max(axis=0)) if low_high is None else low_high
        first = not self.n
        self.low = lo if first else np.minimum(self.low, lo)
        self.high = hi if first else np.maximum(self.high, hi)
        if self.moments:
            mean = X.mean(axis=0)
            m2 = ((X - mean) ** 2).sum(axis=0)
            n = self.n + len(X)
            delta = mean - (mean if first else self.mean)
            self.mean = mean if first else self.mean + delta * (len(X) / n)
            self.m2 = m2 if first else self.m2 + m2 + delta**2 * (self.n * len(X) / n)
        self.n += len(X)
        return self

    def result(self, how: str) -> Scaling:
        """The scaling of everything seen (ValueError before any row)."""
        if not self.n:
            raise ValueError("no rows to scale by")
        m = _nonzero(np.maximum(np.abs(self.low), np.abs(self.high)))
        if how == "minmax":
            lo = self.low / m
            return Scaling(how, m, lo, _nonzero(self.high / m - lo))
        if how == "zscore" and self.moments:
            return Scaling(how, m, self.mean / m, _nonzero(np.sqrt(self.m2 / self.n) / m))
        raise ValueError(f"unknown scaling {how!r}")


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
def read_csv(
    source: bytes | str | os.PathLike[str] | IO[bytes],
    delimiter: str | None = None,
    decimal: str | None = None,
    header: bool | None = None,
    limits: Limits = _LIMITS,
    unparsable: str = "text",
    block_bytes: int = BLOCK_BYTES,
) -> tuple[Table, LoadReport]:
    """Read a CSV (bytes, str path or binary file) into a :class:`Table` and a :class:`LoadReport`.

    The file is read in chunks by :class:`~cae.data.csvstream.CSVStream` (the checks every reader of this
    project applies); what a column is — numbers, mostly numbers, text or empty — is then decided on the whole
    file. A column that looked like numbers in the first lines and turns out to be text is read again as text;
    a file whose later lines are not UTF-8 is read again as Latin-1.

    Parameters
    ----------
    source : bytes, str, pathlib.Path or binary file object
        ``.gz`` compressed or not.
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
    block_bytes : int
        The bytes read at a time (the result does not depend on it).

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
    options = dict(delimiter=delimiter, decimal=decimal, header=header, limits=limits, block_bytes=block_bytes)
    encoding, as_text = None, None
    while True:
        try:
            out = _read_table(source, options, encoding, as_text, unparsable)
        except EncodingChanged:
            if encoding is not None or not _rewind(source):
                raise
            encoding, as_text = "latin-1", None
            continue
        if isinstance(out, tuple):
            return out
        as_text = out
        if not _rewind(source):  # pragma: no cover - a file object that cannot seek is read once
            raise CSVLoadError("the file must be read twice (a column turned out to be text) but cannot be")


def _rewind(source: object) -> bool:
    """Whether ``source`` can be read again (bytes, a path, a seekable file object, rewound)."""
    if isinstance(source, (bytes, bytearray, memoryview, str, os.PathLike)):
        return os.fspath(source) != "-" if isinstance(source, (str, os.PathLike)) else True
    try:
        source.seek(0)  # type: ignore[attr-defined]
        return True
    except (AttributeError, OSError, ValueError):
        return False


def _all_rows(stream: CSVStream, as_text: list[str]) -> Chunk:
    """Every chunk's rows in one."""
    parts = list(stream.chunks(as_text))
    if not parts:
        return Chunk(np.zeros(0, np.int64), {k: np.zeros(0) for k in stream.names}, texts={k: [] for k in as_text})
    n = [len(p) for p in parts]
    bad = {}
    for k in {k for p in parts for k in p.bad}:
        bad[k] = np.concatenate([p.bad.get(k, np.zeros(m, bool)) for p, m in zip(parts, n)])
    return Chunk(
        np.concatenate([p.lines for p in parts]),
        {k: np.concatenate([p.numbers[k] for p in parts]) for k in stream.names},
        bad,
        {k: [c for p in parts for c in p.bad_cells.get(k, [])] for k in bad},
        {k: [t for p in parts for t in p.texts[k]] for k in as_text},
    )


def _read_table(
    source: Any, options: dict[str, Any], encoding: str | None, as_text: list[str] | None, unparsable: str
) -> tuple[Table, LoadReport] | list[str]:
    """The table, or the columns to read again as text (they looked like numbers in the first lines only)."""
    with CSVStream(source, encoding=encoding, **options) as stream:
        as_text = list(stream.text_columns if as_text is None else as_text)
        rows = _all_rows(stream, as_text)
        report, names = stream.report, stream.names
    if report.rows_read == 0:
        raise CSVLoadError("the file has a header row but no data rows" if report.header else "the file has no data")
    if not len(rows):
        raise CSVLoadError("no row has as many fields as the header")
    out = _Columns({}, [], [], {}, np.zeros(len(rows), bool))
    again = [n for n in names if not _read_column(n, rows, unparsable, report, out) and n not in as_text]
    if again:
        return as_text + again
    report.unparsable_rows = int(out.bad_any.sum())
    report.unparsable_as_missing = unparsable == "missing" and bool(report.unparsable_cells)
    if not out.numeric:
        raise CSVLoadError("no column contains numbers; CAE needs at least one numeric feature")
    if len(rows) < 2:
        raise CSVLoadError("the file has only one data row; CAE needs at least 2 samples")
    df = pd.DataFrame(out.frame)
    for name in out.numeric:
        v = df[name].to_numpy(float)
        f = v[np.isfinite(v)]
        if len(f) and np.all(f == f[0]):
            report.constant_columns.append(name)
    report.numeric_columns = out.numeric
    report.text_columns = out.textual
    return Table(df, out.numeric, out.textual, rows.lines, unparsable=out.masks), report


@dataclass
class _Columns:
    """The columns decided so far: values by name, which are numeric and which text, the cells read as missing."""

    frame: dict[str, Any]
    numeric: list[str]
    textual: list[str]
    masks: dict[str, np.ndarray]
    bad_any: np.ndarray


def _read_column(name: str, rows: Chunk, unparsable: str, report: LoadReport, out: _Columns) -> bool:
    """One column, decided on the whole file: numeric (its cells that are not numbers listed, and read as
    missing when asked), text, or dropped (empty). False when it is text but was not read as text."""
    values = rows.numbers[name]
    bad = rows.bad.get(name, np.zeros(len(values), bool))
    n_bad = int(bad.sum())
    all_missing = bool(np.all(np.isnan(values)))
    ok = not n_bad
    if n_bad and n_bad <= 0.5 * len(values) and not all_missing:
        cells = sorted(rows.bad_cells[name])
        if unparsable == "missing":
            out.masks[name] = bad
            ok = True
        elif name not in rows.texts:
            return False
        else:
            report.warnings.append(
                f"column {name!r} is mostly numbers but has {n_bad} text value(s) "
                f"(first: {cells[0][1][:40]!r} on line {cells[0][0]}); it is treated as a text column unless "
                "such cells are read as missing"
            )
        report.unparsable_cells[name] = cells
        out.bad_any |= bad
    if ok and not all_missing:
        out.frame[name] = values
        out.numeric.append(name)
        return True
    if not n_bad:  # every cell blank or a missing value
        report.empty_columns_dropped.append(name)
        return True
    if name not in rows.texts:
        return False
    out.frame[name] = pd.Series(rows.texts[name], dtype=object)
    out.textual.append(name)
    return True


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


# ------------------------------------------------------------------- feature rows of a stream
class UnparsableCell(CSVLoadError):
    """A cell that is not a number in a feature column, read from a stream (the whole file is not known)."""


class FeatureReader:
    """The rows of a :class:`~cae.data.csvstream.CSVStream` as feature matrices, chunk by chunk: the checks
    of :meth:`Table.select` applied to each chunk, the counts summed.

    Iterating yields ``(lines, X)``: the file line of each usable row and its features (scaled with
    ``scaling`` when given). Rows with a missing, NaN or infinite feature are dropped and counted in
    ``reasons``; a feature cell that is not a number stops the reading (:class:`UnparsableCell`, naming the
    line) unless ``unparsable="missing"``, which drops its row (counted as "unparsable value"). ``stats``
    gathers the ranges of the rows kept, before scaling.

    Parameters
    ----------
    stream : CSVStream
    features : list of str or None
        None: every column of the first lines that is not text, except ``label``.
    label : str or None
        A column left out of the default features.
    unparsable : {'error', 'missing'}
    scaling : Scaling or None
    moments : bool
        Gather the means and deviations too (for a z-score scaling).

    Examples
    --------
    >>> from cae.data.csvstream import CSVStream
    >>> r = FeatureReader(CSVStream(b"x,y,kind\\n1,2,a\\n3,,b\\n5,6,a\\n"), label="kind")
    >>> [(lines.tolist(), X.tolist()) for lines, X in r], r.features, r.reasons
    ([([2, 4], [[1.0, 2.0], [5.0, 6.0]])], ['x', 'y'], {'missing or NaN value': 1})
    """

    def __init__(
        self,
        stream: CSVStream,
        features: Sequence[str] | None = None,
        label: str | None = None,
        unparsable: str = "error",
        scaling: Scaling | None = None,
        moments: bool = False,
    ) -> None:
        if unparsable not in ("error", "missing"):
            raise ValueError("unparsable must be 'error' or 'missing'")
        self.stream, self.unparsable, self.scaling = stream, unparsable, scaling
        self.features = self._checked(list(features) if features is not None else None, label)
        self.reasons: dict[str, int] = {}
        self.rows_kept = 0
        self.stats = ScalingStats(moments)

    def _checked(self, features: list[str] | None, label: str | None) -> list[str]:
        names, text = self.stream.names, self.stream.text_columns
        if label is not None and label not in names:
            raise CSVLoadError(f"no column named {label!r}; the columns are {', '.join(names)}")
        if features is None:
            features = [n for n in names if n not in text and n != label]
        unknown = [f for f in features if f not in names]
        if unknown:
            raise CSVLoadError(f"no column named {', '.join(map(repr, unknown))}; the columns are {', '.join(names)}")
        textual = [f for f in features if f in text]
        if textual:
            raise CSVLoadError(
                f"the column(s) {', '.join(map(repr, textual))} hold text, not numbers, in the first lines"
            )
        if not features:
            raise CSVLoadError("no column contains numbers; CAE needs at least one numeric feature")
        if label is not None and label in features:
            raise CSVLoadError("the label column cannot also be a feature")
        return features

    def _unparsable(self, chunk: Chunk) -> list[NDArray[np.bool_]]:
        """The masks of the rows whose feature cell is not a number (or the first such cell, refused)."""
        masks = [chunk.bad[f] for f in self.features if f in chunk.bad]
        if masks and self.unparsable == "error":
            line, text, col = min(chunk.bad_cells[f][0] + (f,) for f in self.features if f in chunk.bad)
            raise UnparsableCell(
                f"line {line}: {text[:40]!r} in the column {col!r} is not a number; correct it, leave the column "
                "out of the features, or read such cells as missing (their rows are dropped)",
                line=line,
            )
        return masks

    def __iter__(self) -> Iterator[tuple[NDArray[np.int64], NDArray[np.float64]]]:
        for chunk in self.stream.chunks():
            yield self.rows(chunk)

    def rows(self, chunk: Chunk) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """One chunk's usable rows: their lines and features (scaled when asked); the counts updated."""
        columns = [chunk.numbers[f] for f in self.features]
        masks = self._unparsable(chunk)
        X, lines = np.column_stack(columns), chunk.lines
        if masks or not all(np.isfinite(c).all() for c in columns):
            keep = usable_rows(X, masks, self.reasons)
            X, lines = X[keep], lines[keep]
            columns = [X[:, j] for j in range(X.shape[1])]
        if not len(X):
            return lines, X
        lo, hi = np.array([c.min() for c in columns]), np.array([c.max() for c in columns])
        if self.scaling is None and max(-lo.min(), hi.max()) > MAX_ABS:
            line = int(lines[np.flatnonzero(np.abs(X).max(axis=1) > MAX_ABS)[0]])
            raise CSVLoadError(
                f"line {line}: a value exceeds {MAX_ABS:g} in magnitude; CAE's distances would overflow. "
                "Choose min-max or z-score scaling.",
                line=line,
            )
        self.stats.update(X, (lo, hi))
        self.rows_kept += len(X)
        return lines, (X if self.scaling is None else self.scaling.apply(X))

    def constant_features(self) -> list[str]:
        """The features that held one value in every row kept so far."""
        if not self.stats.n:
            return []
        return [f for f, lo, hi in zip(self.features, self.stats.low, self.stats.high) if lo == hi]

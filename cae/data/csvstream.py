"""Reading a CSV of any size in chunks: the checks every reader of this project applies, chunk by chunk.

:class:`CSVStream` opens a file (a path, ``.gz`` or not, ``-`` for standard input, bytes or a binary file
object), settles what kind of CSV it is from its first lines (encoding, delimiter, decimal separator, header,
column names, which columns hold numbers) and then reads its rows in blocks of a few megabytes, each block
parsed into a :class:`Chunk`: every column as numbers (NaN where a cell is missing or not a number), the
cells that are not numbers with their lines, text columns as text, the file line of every row. The
:class:`LoadReport` is summed over the chunks. Memory stays that of one block whatever the file's size.

The rules are those of :mod:`cae.data.csvio` (its docstring lists them); that module's
:func:`~cae.data.csvio.read_csv` (the app's *Your data*) and the command line (:mod:`cae.cli`) both read
through this one. Per block, lines that are plain — no quote, as many fields as the header, not blank —
are parsed by pandas' C parser (numbers parsed exactly, as Python's ``float`` does); any other line, and
every line of a block that has a quote or a cell pandas does not read as a number, goes through the rules
cell by cell (:func:`parse_number`): both ways give the same values, tested against each other.

What the first lines settle holds for the whole file: a header row, the delimiter and decimal separator are
detected on the first 200 lines, and the encoding on the first lines too — a later line that is not UTF-8
where the first were is refused, naming the line, unless the file can be read again (a path or bytes: then
it is read again as Latin-1, as a whole-file reader would).

Examples
--------
>>> s = CSVStream(b"x;y;kind\\n1,5;2;a\\n3;4;b\\n")
>>> s.report.delimiter, s.report.decimal, s.names, s.text_columns
(';', ',', ['x', 'y', 'kind'], ['kind'])
>>> [(c.lines.tolist(), c.numbers["x"].tolist(), c.texts["kind"]) for c in s.chunks()]
[([2, 3], [1.5, 3.0], ['a', 'b'])]
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import itertools
import os
import re
import sys
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = [
    "CSVLoadError",
    "Limits",
    "LoadReport",
    "CSVStream",
    "Chunk",
    "Dialect",
    "parse_number",
    "BLOCK_BYTES",
    "DELIMITERS",
    "MISSING",
]

DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
MISSING = {"", "na", "n/a", "nan", "null", "none", "?", "-", "#n/a"}
#: the size of a block read at a time (bytes of the file): one block's rows are one chunk
BLOCK_BYTES = 2 << 20
#: the lines the first look reads (delimiter, decimal separator, header and column kinds are settled on them)
HEAD_LINES = 202
#: the longest line read (bytes of text): a row of numbers is far shorter, so a longer line is not a table of
#: numbers (one 50 MB line took 1.2 GB of memory before it was refused)
LINE_BYTES = 1 << 20
_GZIP_MAGIC = b"\x1f\x8b"

Source = bytes | str | os.PathLike[str] | IO[bytes]


class CSVLoadError(ValueError):
    """A file that cannot be read as a table of numbers; the message says why (``line``: where, when known)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Limits:
    """Caps on what a reader accepts (None: no cap)."""

    max_bytes: int | None = 50 * 1024 * 1024
    max_rows: int | None = 250_000
    max_columns: int | None = 1_000


#: no cap on size or rows (the command line); columns stay capped
UNLIMITED = Limits(max_bytes=None, max_rows=None)


@dataclass
class LoadReport:
    """What a reader read, kept and dropped, and why."""

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


# ------------------------------------------------------------------- one cell
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


def parse_number(cell: str, decimal: str, stats: list[int]) -> tuple[float | None, bool]:
    """A cell as a number: ``(value, True)`` (NaN when missing), or ``(None, False)`` when it is not one.

    ``stats[0]`` counts the cells whose thousands separators were removed.

    Examples
    --------
    >>> parse_number(" 1,234.5 ", ".", [0]), parse_number("N/A", ".", [0]), parse_number("1.5", ",", [0])
    ((1234.5, True), (nan, True), (None, False))
    """
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


def _numbers(col: Sequence[str], decimal: str, stats: list[int]) -> tuple[NDArray[np.float64], list[int]]:
    """A column's cells as numbers (NaN where not one) and the rows of the cells that are not numbers."""
    values = np.empty(len(col))
    bad = []
    for i, c in enumerate(col):
        v, good = parse_number(c, decimal, stats)
        if not good:
            bad.append(i)
            v = np.nan
        values[i] = v
    return values, bad


# ------------------------------------------------------------------- the first look
def _decode(data: bytes) -> tuple[str, str, str]:
    """The text of the first bytes, the encoding's name as reported and its Python codec."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict"), "utf-8 (with BOM)", "utf-8-sig"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return codecs.getincrementaldecoder("utf-16")().decode(data), "utf-16", "utf-16"
        except UnicodeDecodeError:
            raise CSVLoadError("the file starts like UTF-16 text but is not valid UTF-16") from None
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(data), "utf-8", "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1", "latin-1"


def _looks_binary(data: bytes) -> bool:
    sample = data[:8192]
    if b"\x00" in sample:
        return True
    ctrl = sum(1 for b in sample if b < 32 and b not in (9, 10, 13, 12))
    return len(sample) > 0 and ctrl / len(sample) > 0.05


def _sniff(lines: list[str]) -> str:
    best, best_score = None, (-1, -1)
    for d in DELIMITERS:
        try:
            counts = [len(row) for row in csv.reader(lines, delimiter=d)]
        except csv.Error:  # a field longer than the csv module takes, read with this delimiter: not this one
            continue
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


def _decimal(numbered: list[tuple[int, list[str]]], delimiter: str, decimal: str | None) -> str:
    """The decimal separator given, checked, or detected."""
    if decimal is None:
        decimal = _detect_decimal(numbered, delimiter)
    elif decimal not in (".", ","):
        raise CSVLoadError("the decimal separator must be '.' or ','")
    if decimal == "," and delimiter == ",":
        raise CSVLoadError("a comma cannot be both the delimiter and the decimal separator")
    return decimal


def _detect_header(numbered: list[tuple[int, list[str]]], decimal: str) -> bool:
    """A header when some column is numeric below a non-numeric first cell,
    or when the first row has no number at all."""
    stats = [0]

    def is_num(c: str) -> bool:
        s = c.strip()
        return bool(s) and s.lower() not in MISSING and parse_number(s, decimal, stats)[1]

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


def _numbered_rows(text: str, delimiter: str, first_line: int = 1) -> list[tuple[int, list[str]]]:
    """The rows of ``text`` with any non-blank field, each with the file line it ends on."""
    numbered = []
    try:
        reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=False)
        for r in reader:
            if any(c.strip() for c in r):
                numbered.append((first_line - 1 + reader.line_num, r))
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            line = first_line - 1 + reader.line_num
            raise CSVLoadError(
                f"line {line:,} holds a field of more than {csv.field_size_limit():,} characters: a number is far "
                "shorter, so this is not a table of numbers",
                line=line,
            ) from None
        raise CSVLoadError(f"the file is not valid CSV: {exc}") from None
    return numbered


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
                    "the columns cannot be aligned (check the delimiter or quoting)",
                    line=line_no,
                )
            r = r[:width]
            report.trailing_empty_fields_trimmed += 1
        elif len(r) < width:
            report.short_rows_dropped += 1
            report.short_row_lines.append(line_no)
            continue
        kept.append(r)
        lines_kept.append(line_no)
    return kept, lines_kept


# ------------------------------------------------------------------- opening
class _Prefixed(io.RawIOBase):
    """A binary file read from ``head`` (bytes already read) and then from ``rest``."""

    def __init__(self, head: bytes, rest: IO[bytes] | None) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if len(self._head):
            k = len(self._head) if n < 0 else min(n, len(self._head))
            out = bytes(self._head[:k])
            self._head = self._head[k:]
            return out
        if self._rest is None:
            return b""
        return self._rest.read(n) or b""


@dataclass
class _Opened:
    """A source opened for reading: its bytes (gzip undone), what to close, and how far it has been read."""

    stream: IO[bytes]
    raw: IO[bytes] | None  # the file underneath (for the progress: ``tell()`` of the compressed bytes)
    close: list[Any]
    total: int | None  # the source's size in bytes (compressed where it is), when known
    reopenable: bool

    def position(self) -> int | None:
        try:
            return None if self.raw is None else int(self.raw.tell())
        except (OSError, ValueError):
            return None


def _open(source: Source) -> _Opened:
    """Open a path (``-``: standard input), bytes or a binary file object; gzip is recognised by its bytes."""
    closers: list[Any] = []
    total = None
    reopenable = False
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw: IO[bytes] = io.BytesIO(bytes(source))
        total, reopenable = len(source), True
    elif isinstance(source, (str, os.PathLike)) and os.fspath(source) == "-":
        raw = sys.stdin.buffer
    elif isinstance(source, (str, os.PathLike)):
        try:
            raw = open(source, "rb")  # noqa: SIM115 - closed by the stream
        except OSError as exc:
            raise CSVLoadError(f"cannot open the file: {exc.strerror or exc}") from None
        closers.append(raw)
        total, reopenable = os.fstat(raw.fileno()).st_size, True
    else:
        raw = source
    magic = raw.read(2) or b""
    stream: IO[bytes] = _Prefixed(magic, raw)  # type: ignore[assignment]
    if magic == _GZIP_MAGIC:
        gz = gzip.GzipFile(fileobj=stream, mode="rb")
        closers.append(gz)
        stream = _Gunzipped(gz)  # type: ignore[assignment]
    return _Opened(stream, raw, closers, total, reopenable)


def truncated_gzip() -> CSVLoadError:
    """The error of a gzip-compressed file that ends early (Python's gzip raises ``EOFError``)."""
    return CSVLoadError(
        "the gzip-compressed file ends before its end marker: it is truncated (an interrupted download or copy?); "
        "compress or fetch it again"
    )


class _Gunzipped(io.RawIOBase):
    """A gzip stream whose damage is said as a :class:`CSVLoadError` (a truncated file raised ``EOFError``)."""

    def __init__(self, gz: gzip.GzipFile) -> None:
        self._gz = gz

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        try:
            return self._gz.read(n)
        except EOFError:
            raise truncated_gzip() from None
        except (gzip.BadGzipFile, zlib.error) as exc:
            raise CSVLoadError(f"the gzip-compressed file is damaged ({exc}); compress or fetch it again") from None


def _too_long(line: int) -> CSVLoadError:
    return CSVLoadError(
        f"line {line:,} goes on for more than {LINE_BYTES // 2**20} MB without an end: a row of numbers is far "
        "shorter, so this is not a table of numbers (a file of another kind, or one whose line ends were lost?)",
        line=line,
    )


def _read_head(stream: IO[bytes], limit: int | None) -> tuple[bytes, bool]:
    """The first :data:`HEAD_LINES` lines' bytes (at least 64 KB when there are), and whether that is all."""
    parts: list[bytes] = []
    size = lines = since_newline = 0
    while lines < HEAD_LINES or size < 65536:
        b = stream.read(65536)
        if not b:
            return b"".join(parts), True
        parts.append(b)
        size += len(b)
        nl = b.rfind(b"\n")
        since_newline = len(b) - nl - 1 if nl >= 0 else since_newline + len(b)
        lines += b.count(b"\n")
        if since_newline > LINE_BYTES:
            raise _too_long(lines + 1)
        if limit is not None and size > limit:
            break
        if size > (64 << 20):
            break
    return b"".join(parts), False


# ------------------------------------------------------------------- a chunk of rows
@dataclass
class Chunk:
    """One block's rows, checked: ``lines`` (each row's file line), ``numbers`` (every column as numbers, NaN
    where missing or not a number), ``bad`` (column -> the rows whose cell is not a number, as a boolean mask,
    for the columns that have such a cell), ``bad_cells`` (column -> ``(line, text)`` of those cells) and
    ``texts`` (the columns asked as text: each cell stripped, None where missing)."""

    lines: NDArray[np.int64]
    numbers: dict[str, NDArray[np.float64]]
    bad: dict[str, NDArray[np.bool_]] = field(default_factory=dict)
    bad_cells: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    texts: dict[str, list[str | None]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.lines)

    def take(self, order: NDArray[np.intp]) -> Chunk:
        """The rows at ``order``."""
        texts = {k: [v[i] for i in order] for k, v in self.texts.items()}
        return Chunk(
            self.lines[order],
            {k: v[order] for k, v in self.numbers.items()},
            {k: v[order] for k, v in self.bad.items()},
            self.bad_cells,
            texts,
        )


def _concat(a: Chunk, b: Chunk, names: Sequence[str]) -> Chunk:
    """Two chunks' rows in line order."""
    if not len(b):
        return a
    if not len(a):
        return b
    out = Chunk(
        np.concatenate([a.lines, b.lines]),
        {k: np.concatenate([a.numbers[k], b.numbers[k]]) for k in names},
        {
            k: np.concatenate([a.bad.get(k, np.zeros(len(a), bool)), b.bad.get(k, np.zeros(len(b), bool))])
            for k in set(a.bad) | set(b.bad)
        },
        {k: sorted(a.bad_cells.get(k, []) + b.bad_cells.get(k, [])) for k in set(a.bad_cells) | set(b.bad_cells)},
        {k: a.texts[k] + b.texts[k] for k in a.texts},
    )
    return out.take(np.argsort(out.lines, kind="stable"))


def _empty_chunk(names: Sequence[str], as_text: Sequence[str]) -> Chunk:
    return Chunk(np.zeros(0, np.int64), {k: np.zeros(0) for k in names}, texts={k: [] for k in as_text})


def _cells_as_text(cells: Sequence[str]) -> list[str | None]:
    return [c.strip() if c.strip().lower() not in MISSING else None for c in cells]


def _rows_slowly(
    numbered: list[tuple[int, list[str]]],
    names: Sequence[str],
    decimal: str,
    as_text: Sequence[str],
    report: LoadReport,
) -> Chunk:
    """Rows checked field by field: aligned with the header (:func:`_aligned`), each cell by :func:`parse_number`."""
    kept, lines = _aligned(numbered, len(names), report)
    stats = [0]
    chunk = Chunk(np.asarray(lines, dtype=np.int64), {})
    columns = list(zip(*kept)) if kept else [()] * len(names)
    for name, col in zip(names, columns):
        values, bad = _numbers(col, decimal, stats)
        chunk.numbers[name] = values
        if bad:
            mask = np.zeros(len(col), bool)
            mask[bad] = True
            chunk.bad[name] = mask
            chunk.bad_cells[name] = [(lines[k], col[k].strip()) for k in bad]
        if name in as_text:
            chunk.texts[name] = _cells_as_text(col)
    report.thousands_separators_removed += stats[0]
    return chunk


# ------------------------------------------------------------------- the fast way for plain lines
_NA_TOKENS = sorted({"".join(p) for t in MISSING for p in itertools.product(*[(c.lower(), c.upper()) for c in t])})


#: words pandas' parser reads as numbers (1 and 0) that are not numbers to this project
_BOOLEANS = re.compile(rb"true|false")  # in the lowered text


def _plain_lines(data: bytes, delimiter: int, width: int) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """The end of each line of ``data`` (which ends with a newline) and whether it is plain: as many
    delimiters as the header has, some field not blank, and no word that pandas reads as a boolean."""
    buf = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(buf == 10)
    starts = np.concatenate([[0], ends[:-1] + 1])
    per_line = np.diff(np.searchsorted(np.flatnonzero(buf == delimiter), ends), prepend=0)
    spaces: NDArray[np.intp] | int = 0
    if any(c in data for c in (b" ", b"\t", b"\x0c") if ord(c) != delimiter):
        blank = (buf == 32) | (buf == 12) if delimiter == 9 else (buf == 32) | (buf == 9) | (buf == 12)
        spaces = np.diff(np.searchsorted(np.flatnonzero(blank), ends), prepend=0)
    plain = (per_line == width - 1) & (ends - starts - per_line - spaces > 0)
    low = data.lower()
    if b"true" in low or b"false" in low:
        plain[np.searchsorted(ends, [m.start() for m in _BOOLEANS.finditer(low)])] = False
    return ends, plain


def _rows_fast(
    data: bytes, lines: NDArray[np.int64], names: Sequence[str], decimal: str, delimiter: str, as_text: Sequence[str]
) -> tuple[Chunk, int] | None:
    """Plain lines (no quote, as many fields as the header, not blank) parsed by pandas' C parser, and the
    count of thousands separators removed; None when a cell is not a number there (the caller then checks
    the lines cell by cell)."""
    idx = list(range(len(names)))
    text_idx = [i for i, n in enumerate(names) if n in as_text]
    try:
        frame = pd.read_csv(
            io.BytesIO(data),
            sep=delimiter,
            header=None,
            names=idx,
            dtype={i: (object if i in text_idx else np.float64) for i in idx},
            na_values={i: _NA_TOKENS for i in idx if i not in text_idx},
            keep_default_na=False,
            decimal=decimal,
            quoting=csv.QUOTE_NONE,
            skip_blank_lines=False,
            engine="c",
            encoding="utf-8",
        )
    except (ValueError, pd.errors.ParserError):
        return None
    if len(frame) != len(lines):
        return None
    chunk = Chunk(lines, {})
    for i, name in enumerate(names):
        if i in text_idx:
            continue
        chunk.numbers[name] = frame[i].to_numpy(np.float64)
    thousands = sum(_text_column(chunk, names[i], frame[i].to_numpy(object), decimal) for i in text_idx)
    return chunk, thousands


def _text_column(chunk: Chunk, name: str, cells: NDArray[Any], decimal: str) -> int:
    """A column read as text: its cells stripped (None where missing) and as numbers, each distinct cell
    checked once by :func:`parse_number`; returns how many cells had thousands separators removed."""
    codes, uniques = pd.factorize(cells)
    counts = np.bincount(codes, minlength=len(uniques))
    values = np.empty(len(uniques))
    good = np.ones(len(uniques), bool)
    thousands = 0
    for k, u in enumerate(uniques):
        stats = [0]
        v, ok = parse_number(str(u), decimal, stats)
        values[k] = np.nan if v is None else v
        good[k] = ok
        thousands += stats[0] * int(counts[k])
    chunk.numbers[name] = values[codes]
    bad = ~good[codes]
    if bad.any():
        chunk.bad[name] = bad
        chunk.bad_cells[name] = [(int(chunk.lines[k]), str(cells[k]).strip()) for k in np.flatnonzero(bad)]
    stripped = _cells_as_text([str(u) for u in uniques])
    chunk.texts[name] = [stripped[c] for c in codes]
    return thousands


def parse_block(
    text: str, first_line: int, names: Sequence[str], decimal: str, delimiter: str, as_text: Sequence[str],
    report: LoadReport,
) -> Chunk:  # fmt: skip
    """The rows of a block of whole lines (``text``, starting at file line ``first_line``): plain lines the
    fast way, the others (and every line of a block with a quote, or with a cell pandas does not read as a
    number) field by field; the report counts what was trimmed, dropped or converted."""
    if '"' in text or not text:
        return _rows_slowly(_numbered_rows(text, delimiter, first_line), names, decimal, as_text, report)
    data = text.encode("utf-8")
    if not data.endswith(b"\n"):
        data += b"\n"
    ends, plain = _plain_lines(data, ord(delimiter), len(names))
    lines = first_line + np.arange(len(ends), dtype=np.int64)
    if plain.all():
        fast = _rows_fast(data, lines, names, decimal, delimiter, as_text)
    else:
        starts = np.concatenate([[0], ends[:-1] + 1])
        keep = np.repeat(plain, ends - starts + 1)
        fast = _rows_fast(
            np.frombuffer(data, np.uint8)[keep].tobytes(), lines[plain], names, decimal, delimiter, as_text
        )
    if fast is None:
        return _rows_slowly(_numbered_rows(text, delimiter, first_line), names, decimal, as_text, report)
    report.thousands_separators_removed += fast[1]
    if plain.all():
        return fast[0]
    odd = [
        (int(lines[k]), row)
        for k in np.flatnonzero(~plain)
        for row in [data[(ends[k - 1] + 1 if k else 0) : ends[k]].decode("utf-8").split(delimiter)]
        if any(c.strip() for c in row)
    ]
    return _concat(fast[0], _rows_slowly(odd, names, decimal, as_text, report), names)


# ------------------------------------------------------------------- the stream
@dataclass
class Dialect:
    """What a CSV's first lines settled (see :meth:`CSVStream.dialect`)."""

    encoding: str
    codec: str
    delimiter: str
    decimal: str
    header: bool
    names: list[str]
    text_columns: list[str]
    header_lines: int  # the lines to skip at the start (the header's), 0 for a part after the first
    first_line: int  # the file line the part starts on


class EncodingChanged(CSVLoadError):
    """A line that is not UTF-8 after first lines that were: a reader that can read the file again reads it
    as Latin-1 (as :func:`cae.data.csvio.read_csv` does); a stream already consumed cannot."""


def _cut(text: str, force: bool) -> int:
    """Where a block of ``text`` ends: after its last newline outside quotes (0: none yet; with ``force``, the
    last newline whatever the quotes, for a stray quote that would otherwise hold everything after it)."""
    if '"' not in text:
        return text.rfind("\n") + 1
    parts = text.split('"')
    offset = len(text)
    for i in range(len(parts) - 1, -1, -1):
        offset -= len(parts[i])
        if i % 2 == 0 and "\n" in parts[i]:
            return offset + parts[i].rfind("\n") + 1
        offset -= 1  # the quote before this part
    return text.rfind("\n") + 1 if force else 0


def _header_cut(text: str, lines: int) -> int:
    """The position in ``text`` after its first ``lines`` lines (``len(text)`` when it has fewer)."""
    pos = 0
    for _ in range(lines):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return pos


class CSVStream:
    """A CSV file read in chunks (see the module docstring); use it as a context manager, or :meth:`close` it.

    Parameters
    ----------
    source : path (``-``: standard input), bytes or binary file object; gzip-compressed or not
    delimiter : {',', ';', '\\t', '|'} or None
        None sniffs it on the first lines.
    decimal : {'.', ','} or None
        None detects it.
    header : bool or None
        None detects it.
    encoding : str or None
        A Python codec; None detects UTF-8 (a byte-order mark removed), UTF-16 with a byte-order mark, else Latin-1.
    limits : Limits
        Caps on bytes (of the file as read, uncompressed), rows and columns.
    block_bytes : int
        The bytes read at a time (a chunk holds one block's rows).

    Attributes
    ----------
    report : LoadReport
        What was read so far: the dialect once opened, the counts summed over the chunks read.
    names : list of str
        The columns (unique names).
    text_columns : list of str
        The columns whose first rows are mostly not numbers: :meth:`chunks` gives their text.

    Raises
    ------
    CSVLoadError
        On opening (empty, binary, no data, too many columns, a bad delimiter or decimal separator) and while
        reading (a row with more fields than the header, limits; ``line`` says where).
    """

    def __init__(
        self,
        source: Source,
        *,
        delimiter: str | None = None,
        decimal: str | None = None,
        header: bool | None = None,
        encoding: str | None = None,
        limits: Limits = Limits(),
        block_bytes: int = BLOCK_BYTES,
        dialect: Dialect | None = None,
    ) -> None:
        if delimiter is not None and delimiter not in DELIMITERS:
            raise CSVLoadError(f"unsupported delimiter {delimiter!r}; use one of , ; tab |")
        self.limits = limits
        self.block_bytes = max(16, int(block_bytes))
        self.bytes_read = 0
        self.first_line = 1
        self._opened = _open(source)
        try:
            if dialect is None:
                self._look(delimiter, decimal, header, encoding)
            else:
                self._known(dialect)
        except BaseException:
            self.close()
            raise

    def dialect(self, first_line: int = 1) -> Dialect:
        """What the first lines settled, for reading a part of the same file that starts at ``first_line``
        (``CSVStream(part, dialect=...)``: a dask task's block)."""
        r = self.report
        header_lines = self.header_lines if first_line == 1 else 0
        return Dialect(
            self.encoding_name, self.codec, r.delimiter, r.decimal, r.header, list(self.names),
            list(self.text_columns), header_lines, first_line,
        )  # fmt: skip

    def _known(self, d: Dialect) -> None:
        self.encoding_name, self.codec, self.names, self.text_columns = d.encoding, d.codec, d.names, d.text_columns
        self.header_lines, self.first_line = d.header_lines, d.first_line
        self.report = LoadReport(d.encoding, d.delimiter, d.decimal, d.header, columns_read=len(d.names))

    # -- opening
    def _head_text(self, encoding: str | None) -> tuple[bytes, bool, str]:
        """The first lines' bytes, whether that is the whole file, and their text (newlines as ``\\n``)."""
        head, whole = _read_head(self._opened.stream, self.limits.max_bytes)
        self._check_size(len(head))
        if not head.strip():
            raise CSVLoadError("the file is empty")
        if not head.startswith((b"\xff\xfe", b"\xfe\xff")) and _looks_binary(head):
            raise CSVLoadError("this does not look like a text CSV file (it contains binary data)")
        upto = head if whole else head[: head.rfind(b"\n") + 1] or head
        if encoding is None:
            text, self.encoding_name, self.codec = _decode(upto)
        else:
            try:
                text = codecs.getincrementaldecoder(encoding)().decode(upto)
            except (UnicodeDecodeError, LookupError) as exc:
                raise CSVLoadError(f"the file's first lines cannot be read as {encoding}: {exc}") from None
            self.encoding_name, self.codec = encoding, encoding
        self._opened.stream = _Prefixed(head, self._opened.stream)  # type: ignore[assignment]
        return head, whole, _newlines(text)

    def _look(self, delimiter: str | None, decimal: str | None, header: bool | None, encoding: str | None) -> None:
        """Settle the dialect, the names and which columns hold text, from the first lines."""
        _, whole, text = self._head_text(encoding)
        self.report = report = LoadReport(encoding=self.encoding_name)
        report.delimiter = delimiter = delimiter or _sniff(text.split("\n", 200)[:200])
        numbered = _numbered_rows(text, delimiter)
        if not whole and len(numbered) > 1:
            numbered = numbered[:-1]  # the last row read may go on in the rest of the file
        if not numbered:
            raise CSVLoadError("the file has no data")
        report.decimal = _decimal(numbered, delimiter, decimal)
        report.header = bool(_detect_header(numbered, report.decimal) if header is None else header)
        names = [n.strip() for n in numbered[0][1]] if report.header else []
        names = names or [f"column_{i + 1}" for i in range(len(numbered[0][1]))]
        if self.limits.max_columns is not None and len(names) > self.limits.max_columns:
            raise CSVLoadError(f"the file has {len(names)} columns; at most {self.limits.max_columns} are supported")
        self.header_lines = numbered[0][0] if report.header else 0
        report.columns_read = len(names)
        self.names = _unique_names(names, report)
        body = numbered[1:] if report.header else numbered
        self.text_columns = self._mostly_text(body)

    def _mostly_text(self, body: list[tuple[int, list[str]]]) -> list[str]:
        """The columns more than half of whose first rows' cells (of 1,000 at most) are not numbers."""
        rows = [r[: len(self.names)] for _, r in body[:1000] if len(r) >= len(self.names)]
        out = []
        for name, col in zip(self.names, zip(*rows) if rows else [()] * len(self.names)):
            _, bad = _numbers(col, self.report.decimal, [0])
            if len(bad) > 0.5 * len(col):
                out.append(name)
        return out

    def _check_size(self, n: int) -> None:
        cap = self.limits.max_bytes
        if cap is not None and max(n, self._opened.total or 0) > cap:
            raise CSVLoadError(f"the file is larger than {cap / 1024 / 1024:.0f} MB")

    # -- reading
    def progress(self) -> tuple[int, int | None]:
        """``(bytes read, total)`` of the source as stored (compressed where it is; total None for a pipe)."""
        pos = self._opened.position()
        return (self.bytes_read if pos is None else pos), self._opened.total

    def _decoded(self) -> Iterator[tuple[str, bool]]:
        """The file's text in pieces of about a block, newlines as ``\\n`` (a ``\\r\\n`` never split), and
        whether the piece is the last."""
        decoder = codecs.getincrementaldecoder(self.codec)()
        lines, carry = 0, ""
        while True:
            raw = self._opened.stream.read(self.block_bytes)
            self.bytes_read += len(raw)
            self._check_size(self.bytes_read)
            try:
                s = carry + decoder.decode(raw, final=not raw)
            except UnicodeDecodeError as exc:
                line = lines + 1 + raw[: exc.start].count(b"\n")
                raise EncodingChanged(
                    f"line {line} is not valid {self.encoding_name} although the first lines are; save the file "
                    "in one encoding (UTF-8), or give its encoding (e.g. latin-1)",
                    line=line,
                ) from None
            carry = "\r" if raw and s.endswith("\r") else ""
            s = _newlines(s[:-1] if carry else s)
            lines += s.count("\n")
            yield s, not raw
            if not raw:
                return

    def _blocks(self) -> Iterator[tuple[str, int]]:
        """Blocks of whole lines (never cut inside a quoted field) and the file line each starts on."""
        pending, line = "", self.first_line
        for piece, last in self._decoded():
            pending += piece
            if len(pending) - pending.rfind("\n") - 1 > LINE_BYTES:
                raise _too_long(line + pending.count("\n"))
            cut = len(pending) if last else _cut(pending, force=len(pending) > 16 * self.block_bytes)
            if cut:
                block, pending = pending[:cut], pending[cut:]
                yield block, line
                line += block.count("\n")

    def chunks(self, as_text: Sequence[str] | None = None) -> Iterator[Chunk]:
        """The rows, a block at a time (empty blocks skipped); ``as_text``: the columns to give as text too
        (default :attr:`text_columns`). The report's counts grow as the chunks are read."""
        as_text = list(self.text_columns if as_text is None else as_text)
        skip = self.header_lines
        for text, first in self._blocks():
            if skip:
                cut = _header_cut(text, skip)
                skip -= text.count("\n", 0, cut)
                first += text.count("\n", 0, cut)
                text = text[cut:]
            if not text.strip():
                continue
            short = self.report.short_rows_dropped
            chunk = parse_block(
                text, first, self.names, self.report.decimal, self.report.delimiter, as_text, self.report
            )
            self.report.rows_read += len(chunk) + self.report.short_rows_dropped - short
            cap = self.limits.max_rows
            if cap is not None and self.report.rows_read > cap:
                raise CSVLoadError(f"the file has more than {cap:,} data rows; that is the most supported")
            if len(chunk):
                yield chunk

    def close(self) -> None:
        for c in reversed(self._opened.close):
            c.close()

    def __enter__(self) -> CSVStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

"""The paper's 12 real-world datasets and the authors' 2-D data, fetched from their public sources and checked.

``python -m cae.data fetch [--to DIR]`` writes every dataset of the paper's Table (Iris … Skin) as
``DIR/<stem>.csv`` in the layout the experiments read — a header ``f0,…,f{d-1},label``, one row per
sample, every value written as Python's ``repr`` of the source's float, ``label`` an integer class id
0 … C−1 — and the authors' 2-D file as ``DIR/paper2d/paper_2d_6class_90000.csv`` (``x0,x1,label``).
``DIR`` defaults to the per-user data folder (:func:`default_folder`: ``$CAE_EXPLORER_DATA``, else
``~/.local/share/cae-explorer/datasets``), which is where the experiments look by default. The raw
downloads stay in ``DIR/sources/`` (a second ``fetch`` does not download again) and ``DIR/MANIFEST.json``
records, per dataset, its source, the class mapping (label → the source's class name) and the checks.

Where each dataset comes from (:data:`PAPER_DATASETS`):

* **OpenML**, through :func:`sklearn.datasets.fetch_openml` (which checks the MD5 OpenML publishes for the
  file), by data id: Ionosphere 59, Pima (``diabetes``) 37, Yeast 181, Semeion 1501, Image Segmentation
  (``segment``) 36, Phoneme 1489, Texture 40499, PenBased (``pendigits``) 32, Letter 6, Skin
  (``skin-segmentation``) 1502.
* **Iris**: scikit-learn's bundled copy (no download). OpenML's Iris (61) is the UCI file with its two
  known errata (1-based rows 35 and 38); the corrected values are the authors' (their ``Iris.mat``) and
  scikit-learn's.
* **Binalpha** is on neither OpenML nor UCI: Sam Roweis' ``binaryalphadigs.mat`` (the source the paper's
  copies derive from); image ``k`` of class ``c`` becomes one row, its 20×16 pixels in column-major order.
* **The authors' 2-D data**: ``2Ddataset6C_90000_withLabel.data`` of ``Masuyama-lab/CAE``, checked by MD5.

Every file is checked before it is kept (:func:`check_file`): rows, features and classes against the
paper's table, the class sizes against this project's copies (which catches a wrong class mapping), and
the content against this project's copies — by MD5 (byte-identical, same row order) or, where a source
orders its rows differently, by an order-free fingerprint (the same rows and labels). A file whose
numbers do not match the paper is not kept; one that matches the paper but not this project's copies is
kept and said so (its runs will not repeat ours number for number). Each failure says why: no network
(the host cannot be reached), a moved source (HTTP 404, or OpenML no longer knows the id), a checksum
mismatch, or the source's content.

``python -m cae.data fetch --from DIR`` takes the files from a local folder of CSVs in this layout
instead (checked the same way), and ``python -m cae.data check [DIR]`` checks a folder.

Examples
--------
>>> spec = PAPER_DATASETS["iris"]
>>> spec.name, spec.rows, spec.features, spec.classes
('Iris', 150, 4, 3)
>>> [PAPER_DATASETS[s].source.describe() for s in ("letter", "iris")]
["OpenML dataset 6 ('letter')", "scikit-learn's bundled copy (sklearn.datasets.load_iris)"]
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import socket
import tempfile
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
from numpy.typing import ArrayLike

from .._paths import user_data_dir

__all__ = [
    "PAPER_DATASETS",
    "AUTHORS_2D",
    "PaperDataset",
    "OpenMLSource",
    "BundledSource",
    "FileSource",
    "FetchError",
    "Check",
    "Outcome",
    "default_folder",
    "fetch",
    "check_file",
    "check_folder",
    "write_labelled_csv",
    "read_labelled_csv",
    "rows_fingerprint",
    "download",
    "authors_2d_path",
]

#: what a source gives: the bytes of the file to write as they are, or ``(X, y)`` to write
_Content = bytes | tuple[np.ndarray, np.ndarray]

PAPER2D_FILE = "paper_2d_6class_90000.csv"
PAPER2D_DIR = "paper2d"
MANIFEST = "MANIFEST.json"
SOURCES_DIR = "sources"


class FetchError(Exception):
    """A dataset could not be obtained; ``kind`` is ``"no network"``, ``"moved"``, ``"checksum"`` or
    ``"content"`` (the source's data do not match the paper), ``"missing"`` (not in a local folder)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


# ------------------------------------------------------------------ sources
@dataclass(frozen=True)
class OpenMLSource:
    """An OpenML dataset by id; ``classes`` are the source's class names in the order of our labels."""

    data_id: int
    name: str
    classes: tuple[str, ...]

    def describe(self) -> str:
        return f"OpenML dataset {self.data_id} ('{self.name}')"

    host = "www.openml.org"


@dataclass(frozen=True)
class BundledSource:
    """A dataset that ships with scikit-learn (no download)."""

    loader: str

    def describe(self) -> str:
        return f"scikit-learn's bundled copy (sklearn.datasets.{self.loader})"

    host = None


@dataclass(frozen=True)
class FileSource:
    """A file downloaded from the first of ``urls`` that answers, checked against ``md5`` when known,
    and converted by the parser named ``parser`` (a key of :data:`PARSERS`)."""

    urls: tuple[str, ...]
    filename: str
    parser: str
    md5: str | None = None
    page: str = ""

    def describe(self) -> str:
        return f"{self.urls[0]}" + (f" (md5 {self.md5})" if self.md5 else "")

    @property
    def host(self) -> str | None:
        return urlparse(self.urls[0]).hostname


@dataclass(frozen=True)
class PaperDataset:
    """One dataset of the paper's table, where it comes from, and what its file must hold.

    ``rows``, ``features`` and ``classes`` are the paper's; ``class_sizes`` (label 0 … C−1), ``md5`` and
    ``rows_sha256`` (:func:`rows_fingerprint`) describe the copy this project's results were computed
    with; ``class_names[k]`` names label ``k``.
    """

    name: str
    stem: str
    rows: int
    features: int
    classes: int
    class_sizes: tuple[int, ...]
    md5: str
    rows_sha256: str
    source: OpenMLSource | BundledSource | FileSource
    class_names: tuple[str, ...] = field(default=())

    @property
    def filename(self) -> str:
        return f"{self.stem}.csv"


def _letters() -> tuple[str, ...]:
    return tuple(chr(ord("A") + i) for i in range(26))


def _digits() -> tuple[str, ...]:
    return tuple(str(i) for i in range(10))


_ROWEIS = "https://cs.nyu.edu/~roweis/data/binaryalphadigs.mat"

#: the paper's 12 real-world datasets, in its table's order (file stem → dataset)
PAPER_DATASETS = {
    d.stem: d
    for d in (
        PaperDataset(
            "Iris",
            "iris",
            150,
            4,
            3,
            (50, 50, 50),
            "14436e57e6f4a526aebb948f96734a3f",
            "8979bc4785b3c40037b3674a4a97aa08",
            BundledSource("load_iris"),
            ("setosa", "versicolor", "virginica"),
        ),
        PaperDataset(
            "Ionosphere",
            "ionosphere",
            351,
            34,
            2,
            (225, 126),
            "5a235f5e9548be603e260ea3374b98f9",
            "ff94d8ad60e79017abd229fd06ef20ec",
            OpenMLSource(59, "ionosphere", ("g", "b")),
            ("g (good)", "b (bad)"),
        ),
        PaperDataset(
            "Pima",
            "pima",
            768,
            8,
            2,
            (500, 268),
            "9739cf1c82349fe8fe9f263dcac0ca14",
            "cb04f3d84c73c1878193bcfdef6351eb",
            OpenMLSource(37, "diabetes", ("tested_negative", "tested_positive")),
            ("negative", "positive"),
        ),
        PaperDataset(
            "Binalpha",
            "binalpha",
            1404,
            320,
            36,
            (39,) * 36,
            "27bc4c5bf39b57a326ff3ab27c16baba",
            "93142cb901286eb8a3ef892e42af7421",
            FileSource((_ROWEIS,), "binaryalphadigs.mat", "roweis_binalpha", page="https://cs.nyu.edu/~roweis/data/"),
            _digits() + _letters(),
        ),
        PaperDataset(
            "Yeast",
            "yeast",
            1484,
            8,
            10,
            (463, 429, 244, 163, 51, 44, 35, 30, 20, 5),
            "9a347ecef83e08cd4d7bf590967d39e3",
            "c2e6caaa62a666aadd019f60c703b2e4",
            OpenMLSource(181, "yeast", ("CYT", "NUC", "MIT", "ME3", "ME2", "ME1", "EXC", "VAC", "POX", "ERL")),
            ("CYT", "NUC", "MIT", "ME3", "ME2", "ME1", "EXC", "VAC", "POX", "ERL"),
        ),
        PaperDataset(
            "Semeion",
            "semeion",
            1593,
            256,
            10,
            (161, 162, 159, 159, 161, 159, 161, 158, 155, 158),
            "67149f368d6d35d6083005e63966ce12",
            "56f13ca054158667e9838ed4e7d6b35a",
            # OpenML's Class is the 1-based position of the one-hot digit: '1' is the digit 0
            OpenMLSource(1501, "semeion", tuple(str(i) for i in range(1, 11))),
            _digits(),
        ),
        PaperDataset(
            "Image Segmentation",
            "segment",
            2310,
            19,
            7,
            (330,) * 7,
            "7ea69d45d423d2d3d37db63671db18bb",
            "125e6123dfe20f7bceafa0d01fb5d7bb",
            OpenMLSource(36, "segment", ("brickface", "sky", "foliage", "cement", "window", "path", "grass")),
            ("brickface", "sky", "foliage", "cement", "window", "path", "grass"),
        ),
        PaperDataset(
            "Phoneme",
            "phoneme",
            5404,
            5,
            2,
            (3818, 1586),
            "92efd6255d50495dd88d6d82d6a88684",
            "d9ac5abdcc1dfc5d4030977ee108efbe",
            OpenMLSource(1489, "phoneme", ("1", "2")),
            ("nasal", "oral"),
        ),
        PaperDataset(
            "Texture",
            "texture",
            5500,
            40,
            11,
            (500,) * 11,
            "6ca8dc8b6b78a61382308ddf6f3cf754",
            "79520268b5066f2a61b68c99291e8d23",
            # KEEL's class codes; our label is their rank
            OpenMLSource(40499, "texture", ("2", "3", "4", "6", "7", "8", "9", "10", "12", "13", "14")),
            ("2", "3", "4", "6", "7", "8", "9", "10", "12", "13", "14"),
        ),
        PaperDataset(
            "PenBased",
            "penbased",
            10992,
            16,
            10,
            (1143, 1143, 1144, 1055, 1144, 1055, 1056, 1142, 1055, 1055),
            "18831979197f5d23d00ca1d9eaad7111",
            "5e508fc280621199d8e8d0fd33af20e9",
            OpenMLSource(32, "pendigits", _digits()),
            _digits(),
        ),
        PaperDataset(
            "Letter",
            "letter",
            20000,
            16,
            26,
            (789, 766, 736, 805, 768, 775, 773, 734, 755, 747, 739, 761, 792)
            + (783, 753, 803, 783, 758, 748, 796, 813, 764, 752, 787, 786, 734),
            "466c14552c16040fdda4830c4210047c",
            "69c7431c2ad7851402db8f481c2b6d12",
            OpenMLSource(6, "letter", _letters()),
            _letters(),
        ),
        PaperDataset(
            "Skin",
            "skin",
            245057,
            3,
            2,
            (50859, 194198),
            "f6f26c41c8c823c64e868261ac964baa",
            "ca03597105fee9437694371db1df19f3",
            OpenMLSource(1502, "skin-segmentation", ("1", "2")),
            ("skin", "non-skin"),
        ),
    )
}

_CAE_RAW = "https://raw.githubusercontent.com/Masuyama-lab/CAE/{}/2Ddataset6C_90000_withLabel.data"
#: the authors' 2-D file: six distributions of 15,000 points in [0, 1]², no header, ``x,y,class``
AUTHORS_2D = PaperDataset(
    "the authors' 2-D data",
    "paper2d",
    90000,
    2,
    6,
    (15000,) * 6,
    # our file: the header line x0,x1,label, then the authors' bytes unchanged
    "67887c15bcc5cbae61f24cdba2cb4b65",
    "",
    FileSource(
        tuple(_CAE_RAW.format(ref) for ref in ("e799e7cd0f835444cf6a0bd65b29423d4d0f309b", "main", "master")),
        "2Ddataset6C_90000_withLabel.data",
        "authors_2d",
        md5="e87ede2f295b91d3792d9d2360b82f60",
        page="https://github.com/Masuyama-lab/CAE",
    ),
    ("blob (left)", "blob (right)", "outer ring", "inner ring", "sine (upper)", "sine (lower)"),
)


def default_folder() -> Path:
    """Where ``fetch`` writes and the experiments read by default (nothing is created here)."""
    return Path(user_data_dir(create=False))


def authors_2d_path(folder: str | os.PathLike[str] | None = None) -> Path:
    """The fetched authors' 2-D file in ``folder`` (default :func:`default_folder`)."""
    return Path(folder or default_folder()) / PAPER2D_DIR / PAPER2D_FILE


# ------------------------------------------------------------------ the file layout
def write_labelled_csv(
    path: str | os.PathLike[str], X: ArrayLike, y: ArrayLike, header: list[str] | None = None
) -> None:
    """Write features and integer labels in the experiments' layout (atomically: a temporary file, then a rename).

    Every value is written as Python's ``repr`` of the float, so the numbers are exactly the source's.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "tiny.csv"
    >>> write_labelled_csv(p, [[1, 0.5], [2.25, -3e-7]], [1, 0])
    >>> print(p.read_text(), end="")
    f0,f1,label
    1.0,0.5,1
    2.25,-3e-07,0
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or len(X) != len(y):
        raise ValueError(f"X must be 2-D with one row per label, got {X.shape} and {y.shape}")
    header = header or [f"f{i}" for i in range(X.shape[1])] + ["label"]
    buf = io.StringIO()
    buf.write(",".join(header) + "\n")
    for row, lab in zip(X.tolist(), y.tolist()):
        buf.write(",".join(map(repr, row)) + f",{int(lab)}\n")
    _atomic_write(Path(path), buf.getvalue().encode())


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, _umask_mode())  # mkstemp's 0600 would hide the file from other users
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_labelled_csv(path: str | os.PathLike[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(X, y, header)`` of a file in the experiments' layout; ValueError when it is not in that layout."""
    import pandas as pd

    try:
        df = pd.read_csv(path)
    except Exception as exc:  # noqa: BLE001  (any unreadable file gets the same message)
        raise ValueError(f"not a readable CSV: {exc}") from None
    header = [str(c) for c in df.columns]
    if not header or header[-1] != "label":
        raise ValueError(f"the last column must be 'label', got {header[-1:]}")
    try:
        X = df.iloc[:, :-1].to_numpy(np.float64)
    except (TypeError, ValueError):
        raise ValueError("the features are not all numbers") from None
    labels = df["label"].to_numpy()
    if not np.issubdtype(labels.dtype, np.integer):
        raise ValueError("the labels are not integers")
    return X, labels.astype(np.int64), header


def rows_fingerprint(X: ArrayLike, y: ArrayLike) -> str:
    """An order-free fingerprint of a labelled dataset: SHA-256 (first 32 hex digits) of its rows
    ``[features, label]`` sorted lexicographically, as little-endian float64.

    Examples
    --------
    >>> a = rows_fingerprint([[1.0, 2.0], [0.5, 1.0]], [0, 1])
    >>> a == rows_fingerprint([[0.5, 1.0], [1.0, 2.0]], [1, 0]), a == rows_fingerprint([[0.5, 1.0], [1.0, 2.0]], [0, 1])
    (True, False)
    """
    A = np.column_stack([np.asarray(X, np.float64), np.asarray(y, np.float64)])
    order = np.lexsort(A.T[::-1])
    return hashlib.sha256(np.ascontiguousarray(A[order], dtype="<f8").tobytes()).hexdigest()[:32]


def _md5_bytes(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def _md5_file(path: str | os.PathLike[str]) -> str:
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# ------------------------------------------------------------------ checks
@dataclass
class Check:
    """The outcome of :func:`check_file`.

    ``problems`` (the file does not hold the paper's dataset: empty when ``ok``), ``identity``
    (``"identical"``: byte for byte this project's copy; ``"same rows"``: the same rows and labels in
    another order; ``"different"``: the paper's numbers, other content), ``summary`` (one line).
    """

    ok: bool
    problems: list[str]
    identity: str
    summary: str


def check_file(path: str | os.PathLike[str], spec: PaperDataset) -> Check:
    """Check a file against the paper's table and this project's copy of the dataset ``spec``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sklearn.datasets import load_iris
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "iris.csv"
    >>> b = load_iris()
    >>> write_labelled_csv(p, b.data, b.target)
    >>> c = check_file(p, PAPER_DATASETS["iris"])
    >>> c.ok, c.identity
    (True, 'identical')
    >>> write_labelled_csv(p, b.data[:-1], b.target[:-1])
    >>> check_file(p, PAPER_DATASETS["iris"]).problems
    ['149 rows, the paper has 150', 'class sizes (50, 50, 49), this project has (50, 50, 50)']
    """
    path = Path(path)
    if not path.is_file():
        return Check(False, [f"{path} does not exist"], "", f"{path.name}: missing")
    if _md5_file(path) == spec.md5:
        return Check(True, [], "identical", _summary(spec, "identical to this project's copy (MD5)"))
    try:
        if spec.stem == AUTHORS_2D.stem:
            X, y, _ = read_labelled_csv(path)
        else:
            X, y, header = read_labelled_csv(path)
            want = [f"f{i}" for i in range(X.shape[1])] + ["label"]
            if header != want:
                return Check(False, [f"the header is not f0,…,f{X.shape[1] - 1},label"], "", f"{path.name}: bad header")
    except ValueError as exc:
        return Check(False, [str(exc)], "", f"{path.name}: {exc}")
    problems = []
    if len(X) != spec.rows:
        problems.append(f"{len(X):,} rows, the paper has {spec.rows:,}")
    if X.shape[1] != spec.features:
        problems.append(f"{X.shape[1]} features, the paper has {spec.features}")
    if not np.all(np.isfinite(X)):
        problems.append("missing or infinite values")
    classes = np.unique(y)
    if len(classes) != spec.classes:
        problems.append(f"{len(classes)} classes, the paper has {spec.classes}")
    elif classes.tolist() != list(range(spec.classes)):
        problems.append(f"labels {classes.tolist()[:5]}…, expected 0 … {spec.classes - 1}")
    else:
        sizes = tuple(np.bincount(y, minlength=spec.classes).tolist())
        if sizes != tuple(spec.class_sizes):
            problems.append(f"class sizes {sizes}, this project has {tuple(spec.class_sizes)}")
    if problems:
        return Check(False, problems, "", f"{path.name}: " + "; ".join(problems))
    if spec.rows_sha256 and rows_fingerprint(X, y) == spec.rows_sha256:
        return Check(
            True, [], "same rows", _summary(spec, "the same rows and labels as this project's copy, another order")
        )
    return Check(
        True,
        [],
        "different",
        _summary(spec, "matches the paper's table, but its values differ from this project's copy"),
    )


def _summary(spec: PaperDataset, what: str) -> str:
    return f"{spec.rows:,} × {spec.features}, {spec.classes} classes; {what}"


def check_folder(
    folder: str | os.PathLike[str] | None = None, names: str | Sequence[str] | None = None
) -> dict[str, Check]:
    """:func:`check_file` for every dataset (or the stems in ``names``) in ``folder``: ``{stem: Check}``."""
    folder = Path(folder or default_folder())
    out = {}
    for spec in _selected(names):
        path = authors_2d_path(folder) if spec is AUTHORS_2D else folder / spec.filename
        out[spec.stem] = check_file(path, spec)
    return out


def _selected(
    names: str | Sequence[str] | None, datasets: Mapping[str, PaperDataset] | None = None
) -> list[PaperDataset]:
    table = dict(datasets or PAPER_DATASETS)
    table.setdefault(AUTHORS_2D.stem, AUTHORS_2D)
    if not names:
        return list(table.values())
    wanted = [n.strip() for n in (names.split(",") if isinstance(names, str) else names) if n.strip()]
    unknown = [n for n in wanted if n not in table]
    if unknown:
        raise ValueError(f"unknown dataset {', '.join(unknown)}; choose among {', '.join(table)}")
    return [table[n] for n in wanted]


# ------------------------------------------------------------------ downloads
def _network_reason(exc: BaseException) -> str:
    """The reason of a connection failure, in words."""
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, socket.gaierror):
        return f"the name cannot be resolved ({reason.strerror or reason})"
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return "the connection timed out"
    if isinstance(reason, ConnectionRefusedError):
        return "the connection was refused"
    return str(reason)


def download(urls: Sequence[str], dest: str | os.PathLike[str], md5: str | None = None, timeout: float = 60) -> str:
    """Download the first of ``urls`` that answers to ``dest``; returns the URL used.

    The file is written under a temporary name and renamed only once complete and, if ``md5`` is
    given, once its MD5 matches. Raises :class:`FetchError` saying, for every URL, why it failed:
    ``"no network"`` (the host cannot be reached), ``"moved"`` (an HTTP error such as 404), or
    ``"checksum"`` (the file arrived but is not the expected one; it is not kept).
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    failures = []
    for url in urls:
        fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
        h = hashlib.md5()
        try:
            req = urllib.request.Request(url, headers={"User-Agent": "cae-explorer (python urllib)"})
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(req, timeout=timeout) as r:
                for chunk in iter(lambda: r.read(1 << 20), b""):
                    h.update(chunk)
                    out.write(chunk)
        except urllib.error.HTTPError as exc:
            failures.append(("moved", f"{url} answered HTTP {exc.code} {exc.reason} (moved or removed)"))
            Path(tmp).unlink(missing_ok=True)
            continue
        except (urllib.error.URLError, OSError) as exc:
            host = urlparse(url).hostname
            failures.append(("no network", f"cannot reach {host}: {_network_reason(exc)}"))
            Path(tmp).unlink(missing_ok=True)
            continue
        got = h.hexdigest()
        if md5 and got != md5:
            failures.append(("checksum", f"{url}: checksum mismatch (MD5 {got}, expected {md5}); not kept"))
            Path(tmp).unlink(missing_ok=True)
            continue
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, dest)
        return url
    kinds = {k for k, _ in failures}
    kind = "checksum" if "checksum" in kinds else "moved" if "moved" in kinds else "no network"
    raise FetchError(kind, "; ".join(dict.fromkeys(m for _, m in failures)))


# ------------------------------------------------------------------ converters
def _from_openml(spec: PaperDataset, sources: Path, timeout: float) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import fetch_openml

    src = spec.source
    assert isinstance(src, OpenMLSource)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sklearn's "retrying" warnings: our message says what failed
            bunch = fetch_openml(
                data_id=src.data_id,
                data_home=str(sources),
                as_frame=True,
                parser="pandas",
                n_retries=1,
                delay=1.0,
            )
    except urllib.error.HTTPError as exc:
        raise FetchError("moved", f"OpenML answered HTTP {exc.code} {exc.reason} for dataset {src.data_id}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise FetchError("no network", f"cannot reach {src.host}: {_network_reason(exc)}") from None
    except ValueError as exc:  # OpenMLError (an unknown id) is a ValueError, and so is a checksum mismatch
        text = str(exc)
        if "md5" in text.lower():
            raise FetchError("checksum", f"OpenML dataset {src.data_id}: {text}") from None
        raise FetchError("moved", f"OpenML dataset {src.data_id} ('{src.name}'): {text}") from None
    data, target = bunch.data, bunch.target
    try:
        X = data.astype(np.float64).to_numpy()
    except (TypeError, ValueError):
        raise FetchError("content", f"OpenML dataset {src.data_id} has non-numeric features") from None
    names = [_class_name(v) for v in target.tolist()]
    return X, _encode(names, src.classes, src.describe())


def _class_name(v: object) -> str:
    """A class value as text: numbers that are whole written without a decimal point (2.0 -> '2')."""
    s = str(v).strip()
    try:
        f = float(s)
    except ValueError:
        return s
    return str(int(f)) if f.is_integer() else s


def _encode(names: list[str], classes: Sequence[str], where: str) -> np.ndarray:
    index = {c: k for k, c in enumerate(classes)}
    unknown = sorted(set(names) - set(index))
    if unknown:
        raise FetchError(
            "content",
            f"{where} has classes {sorted(set(names))[:12]}, expected {list(classes)[:12]}: the source has changed",
        )
    return np.array([index[n] for n in names], dtype=np.int64)


def _from_bundle(spec: PaperDataset) -> tuple[np.ndarray, np.ndarray]:
    from sklearn import datasets as skd

    assert isinstance(spec.source, BundledSource)
    b = getattr(skd, spec.source.loader)()
    return np.asarray(b.data, np.float64), np.asarray(b.target, np.int64)


def _parse_roweis_binalpha(path: Path, spec: PaperDataset | None) -> tuple[np.ndarray, np.ndarray]:
    """Roweis' ``binaryalphadigs.mat``: ``dat`` is a 36 × 39 cell array of 20 × 16 images, one row per class
    ('0' … '9', 'A' … 'Z'); row ``c * 39 + k`` is image ``k`` of class ``c``, pixels in column-major order."""
    from scipy.io import loadmat

    try:
        dat = loadmat(str(path))["dat"]
    except Exception as exc:  # noqa: BLE001  (a corrupt or foreign file)
        raise FetchError("content", f"{path.name} is not the expected MATLAB file ({exc})") from None
    if dat.ndim != 2:
        raise FetchError("content", f"{path.name}: 'dat' has shape {dat.shape}, expected classes × images")
    rows, labels = [], []
    for c in range(dat.shape[0]):
        for k in range(dat.shape[1]):
            img = np.asarray(dat[c, k], dtype=np.float64)
            rows.append(img.flatten(order="F"))
            labels.append(c)
    return np.vstack(rows), np.array(labels, dtype=np.int64)


PARSERS = {"roweis_binalpha": _parse_roweis_binalpha}


def _convert_file(spec: PaperDataset, raw: Path) -> _Content:
    """The content of a downloaded (or local) source file ``raw``: the bytes to write, or ``(X, y)``."""
    assert isinstance(spec.source, FileSource)
    if spec.source.parser == "authors_2d":  # the authors' bytes unchanged, under our header
        return b"x0,x1,label\n" + Path(raw).read_bytes()
    return PARSERS[spec.source.parser](Path(raw), spec)


# ------------------------------------------------------------------ fetch
@dataclass
class Outcome:
    """What :func:`fetch` did for one dataset: ``status`` is ``"fetched"`` (written: downloaded, copied from a
    local folder, or taken from scikit-learn's bundled copy, ``bundled``), ``"present"`` (already there and
    checked), or ``"failed"``; ``kind`` the failure's kind (see :class:`FetchError`)."""

    stem: str
    name: str
    status: str
    message: str
    path: Path | None = None
    kind: str = ""
    identity: str = ""
    bundled: bool = False


def fetch(
    names: str | Sequence[str] | None = None,
    to: str | os.PathLike[str] | None = None,
    force: bool = False,
    from_folder: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    datasets: Mapping[str, PaperDataset] | None = None,
    timeout: float = 60,
    log: Callable[[str], object] | None = print,
) -> list[Outcome]:
    """Fetch, convert, check and write the paper's datasets; returns one :class:`Outcome` per dataset.

    Parameters
    ----------
    names : str or list of str, optional
        File stems (``"iris,letter"``, ``"paper2d"`` for the authors' 2-D file); default: all 13.
    to : path, optional
        The folder to write (default :func:`default_folder`).
    force : bool
        Fetch again even when a checked file is already there.
    from_folder : path or list of paths, optional
        Take the files from these folders (CSVs in this layout; the 2-D file as ``paper2d/…``, at the top,
        or the authors' own file) instead of the network; they are checked the same way.
    datasets : dict, optional
        Replaces :data:`PAPER_DATASETS` (tests use it to point a dataset at another source).
    timeout : float
        Seconds to wait for a server.
    log : callable or None
        Receives one line per dataset as it finishes.

    A dataset that fails does not stop the others. When a host cannot be reached, the remaining
    datasets from it are not tried again (the message says so).
    """
    folder = Path(to) if to else Path(user_data_dir())
    folder.mkdir(parents=True, exist_ok=True)
    sources = folder / SOURCES_DIR
    unreachable: dict[str, str] = {}
    outcomes = []
    manifest = _read_manifest(folder)
    for spec in _selected(names, datasets):
        dest = authors_2d_path(folder) if spec.stem == AUTHORS_2D.stem else folder / spec.filename
        t0 = time.perf_counter()
        out = None
        if dest.exists() and not force:
            c = check_file(dest, spec)
            if c.ok:
                out = Outcome(spec.stem, spec.name, "present", c.summary, dest, identity=c.identity)
        if out is None:
            host = getattr(spec.source, "host", None)
            try:
                if from_folder is None and host in unreachable:
                    raise FetchError("no network", f"not tried: {unreachable[host]}")
                data = _obtain(spec, sources, from_folder, timeout)
                c = _write_checked(spec, data, dest)
                bundled = from_folder is None and isinstance(spec.source, BundledSource)
                out = Outcome(spec.stem, spec.name, "fetched", c.summary, dest, identity=c.identity, bundled=bundled)
                manifest[spec.stem] = _manifest_entry(spec, dest, c, from_folder)
            except FetchError as exc:
                if exc.kind == "no network" and host and not str(exc).startswith("not tried"):
                    unreachable[host] = str(exc)
                out = Outcome(spec.stem, spec.name, "failed", str(exc), None, exc.kind)
        outcomes.append(out)
        if log:
            log(_line(out, time.perf_counter() - t0))
    _write_manifest(folder, manifest)
    return outcomes


def _obtain(
    spec: PaperDataset,
    sources: Path,
    from_folder: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None,
    timeout: float,
) -> _Content:
    """The dataset's content: the bytes of the file to write as they are, or ``(X, y)`` to write."""
    src = spec.source
    if from_folder is not None:
        bases = [Path(from_folder)] if isinstance(from_folder, (str, os.PathLike)) else [Path(f) for f in from_folder]
        names = [spec.filename]
        if spec.stem == AUTHORS_2D.stem:
            assert isinstance(src, FileSource)
            names = [f"{PAPER2D_DIR}/{PAPER2D_FILE}", PAPER2D_FILE, src.filename]
        candidates = [b / n for b in bases for n in names]
        for p in candidates:
            if p.is_file():
                if isinstance(src, FileSource) and p.name == src.filename:  # the source's own (raw) file
                    if src.md5 and _md5_file(p) != src.md5:
                        raise FetchError("checksum", f"{p}: checksum mismatch (MD5 {_md5_file(p)}, expected {src.md5})")
                    return _convert_file(spec, p)
                return p.read_bytes()
        raise FetchError("missing", f"not in {', '.join(map(str, bases))} (looked for {', '.join(names)})")
    if isinstance(src, BundledSource):
        return _from_bundle(spec)
    if isinstance(src, OpenMLSource):
        return _from_openml(spec, sources, timeout)
    raw = sources / src.filename
    if not (raw.is_file() and (src.md5 is None or _md5_file(raw) == src.md5)):
        download(src.urls, raw, md5=src.md5, timeout=timeout)
    return _convert_file(spec, raw)


def _write_checked(spec: PaperDataset, data: _Content, dest: Path) -> Check:
    """Write the content under a temporary name, check it, and rename it into place only if it passes."""
    tmp = dest.with_name(f".{dest.name}.checking")
    try:
        if isinstance(data, bytes):
            _atomic_write(tmp, data)
        else:
            write_labelled_csv(tmp, *data)
        c = check_file(tmp, spec)
        if not c.ok:
            raise FetchError("content", "does not match the paper: " + "; ".join(c.problems) + "; not kept")
        os.replace(tmp, dest)
        return c
    finally:
        tmp.unlink(missing_ok=True)


def _manifest_entry(spec: PaperDataset, dest: Path, check: Check, from_folder: object) -> dict[str, object]:
    return {
        "dataset": spec.name,
        "file": str(dest.name),
        "source": "a local copy" if from_folder is not None else spec.source.describe(),
        "rows": spec.rows,
        "features": spec.features,
        "classes": {str(k): n for k, n in enumerate(spec.class_names)},
        "md5": _md5_file(dest),
        "identity": check.identity,
        "checked": check.summary,
        "fetched": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _read_manifest(folder: Path) -> dict[str, object]:
    try:
        return json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}


def _write_manifest(folder: Path, manifest: dict[str, object]) -> None:
    if manifest:
        _atomic_write(folder / MANIFEST, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode())


def _line(o: Outcome, seconds: float) -> str:
    mark = {"fetched": "✓", "present": "✓", "failed": "✗"}[o.status]
    fetched = "bundled with scikit-learn, written (no download)" if o.bundled else "fetched"
    what = {"fetched": fetched, "present": "already there", "failed": f"FAILED ({o.kind})"}[o.status]
    return f"{mark} {o.name:<22s} {what}: {o.message}" + (f"  [{seconds:.1f} s]" if o.status == "fetched" else "")


def remove_sources(folder: str | os.PathLike[str]) -> None:
    """Delete the raw downloads kept in ``folder/sources`` (the converted files stay)."""
    shutil.rmtree(Path(folder) / SOURCES_DIR, ignore_errors=True)

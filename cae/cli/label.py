"""``cae label FILE --model MODEL --out LABELS.csv``: label every row, on this machine or a dask cluster.

On this machine the file is read in chunks while the chunk before is labelled (``predict`` runs on every
core for large chunks, :func:`cae._jit.threads`). With ``--dask ADDRESS`` the file is cut into blocks of
whole lines (``dask.bytes.read_bytes``), each block a task of a ``dask.dataframe`` that reads it with the
same checks (:class:`~cae.data.csvstream.CSVStream` given the dialect of the file's first lines) and labels
it with the model; the client writes the blocks' labels in file order. The workers must see the file at the
same path (a shared or copied folder).
"""

from __future__ import annotations

import argparse
import io
import time
from typing import IO, Any

import numpy as np
import pandas as pd

from ..data.csvio import FeatureReader, Scaling
from ..data.csvstream import UNLIMITED, CSVLoadError, CSVStream, Dialect, truncated_gzip
from . import UsageError, feature_list, stream_options
from ._tools import Progress, prefetch, write_atomically
from .learn import report_lines

__all__ = ["run", "label_block", "predict", "write_labels"]

HEADER = b"line,cluster\n"


def run(args: argparse.Namespace) -> int:
    from ..algorithms import load_model

    model = load_model(args.model)
    scaling = _scaling(model)
    t0 = time.perf_counter()
    with CSVStream(args.file, **stream_options(args)) as stream:  # type: ignore[arg-type]
        reader = FeatureReader(stream, _features(model, args), None, args.unparsable, scaling)
        _check_width(model, reader)
        if args.dask:
            n = _label_on_dask(args, stream.dialect(), reader.features)
        else:
            n = _label_here(args, model, stream, reader)
    seconds = time.perf_counter() - t0
    print(f"labelled {n:,} rows of {args.file} in {seconds:.1f} s ({n / max(seconds, 1e-9):,.0f} rows/s) -> {args.out}")
    if not args.dask:
        for line in report_lines(stream.report, reader):
            print(line)
    return 0


def _scaling(model: Any) -> Scaling | None:
    d = getattr(model, "input_scaling_", None)
    return None if d is None else Scaling.from_dict(d, model.n_features_in_)


def _features(model: Any, args: argparse.Namespace) -> list[str] | None:
    """The model's feature names (or those given); the count is checked against the model."""
    given = feature_list(args.features)
    names = getattr(model, "feature_names_in_", None)
    features = given or (None if names is None else [str(n) for n in names])
    if features is not None and len(features) != model.n_features_in_:
        raise UsageError(f"the model takes {model.n_features_in_} feature(s); --features names {len(features)}")
    return features


def predict(model: Any, X: np.ndarray) -> np.ndarray:
    """``model.predict`` on rows of its features (by name when it has names)."""
    names = getattr(model, "feature_names_in_", None)
    if not len(X):
        return np.zeros(0, np.int64)
    return np.asarray(model.predict(X if names is None else pd.DataFrame(X, columns=list(names))))


def write_labels(fh: IO[bytes], lines: np.ndarray, labels: np.ndarray) -> None:
    """``line,cluster`` rows (pyarrow's CSV writer: 8x pandas' to_csv here, docs/performance.md)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    table = pa.table({"line": np.asarray(lines, np.int64), "cluster": np.asarray(labels, np.int64)})
    pacsv.write_csv(table, fh, pacsv.WriteOptions(include_header=False))


def _label_here(args: argparse.Namespace, model: Any, stream: CSVStream, reader: FeatureReader) -> int:
    progress = Progress("labelling")
    n = 0
    with write_atomically(args.out) as fh:
        fh.write(HEADER)
        for lines, X in prefetch(reader):
            write_labels(fh, lines, predict(model, X))
            n += len(lines)
            progress.update(n, *stream.progress())
        progress.clear()
    return n


def _check_width(model: Any, reader: FeatureReader) -> None:
    if len(reader.features) != model.n_features_in_:
        raise UsageError(
            f"the model takes {model.n_features_in_} feature(s) and the file has {len(reader.features)} numeric "
            f"column(s) ({', '.join(reader.features)}): name the model's with --features"
        )


# ------------------------------------------------------------------- on a dask cluster
def label_block(
    block: bytes, dialect: Dialect, features: list[str], model_file: bytes, unparsable: str
) -> pd.DataFrame:
    """One block of whole lines read with the file's dialect and labelled: ``line`` and ``cluster``."""
    from ..algorithms import load_model

    if block.count(b'"') % 2:
        raise CSVLoadError(
            f"line {dialect.first_line}: a quoted field goes on past the end of a block; label this file without "
            "--dask (or with a larger --blocksize)",
            line=dialect.first_line,
        )
    model = load_model(io.BytesIO(model_file))
    with CSVStream(block, dialect=dialect, limits=UNLIMITED) as stream:
        reader = FeatureReader(stream, features, None, unparsable, _scaling(model))
        parts = [(lines, predict(model, X)) for lines, X in reader]
    lines = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
    labels = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
    return pd.DataFrame({"line": lines.astype(np.int64), "cluster": labels.astype(np.int64)})


def _count_lines(block: bytes) -> int:
    return block.count(b"\n")


def _blocks(args: argparse.Namespace, dialect: Dialect) -> list[Any]:
    from dask.bytes import read_bytes

    if dialect.codec not in ("utf-8", "utf-8-sig", "latin-1"):
        raise UsageError(f"--dask reads files in UTF-8 or Latin-1; this one is {dialect.encoding}")
    if args.file == "-":
        raise UsageError("--dask reads a file the workers can open, not standard input")
    gz = args.file.endswith(".gz")
    _, blocks = read_bytes(
        args.file, delimiter=b"\n", blocksize=None if gz else args.blocksize, compression="gzip" if gz else None
    )
    return list(blocks[0])


def _label_on_dask(args: argparse.Namespace, dialect: Dialect, features: list[str]) -> int:
    try:
        import dask
        import dask.dataframe as dd
        from dask.distributed import Client
    except ImportError:
        raise UsageError("--dask needs dask.distributed: pip install 'cae-explorer[experiments]'") from None

    with open(args.model, "rb") as fh:
        model_file = fh.read()
    try:
        return _on_dask(args, dialect, features, model_file, Client, dask, dd)
    except EOFError:  # dask's own gzip reading of a truncated file, in a worker
        raise truncated_gzip() from None


def _on_dask(
    args: argparse.Namespace, dialect: Dialect, features: list[str], model_file: bytes, Client: Any, dask: Any, dd: Any
) -> int:
    with Client(args.dask) as client:
        blocks = _blocks(args, dialect)
        counts = dask.compute(*[dask.delayed(_count_lines)(b) for b in blocks])
        starts = np.concatenate([[1], 1 + np.cumsum(counts)[:-1]]).astype(int)
        model = dask.delayed(model_file, pure=True)
        parts = [
            dask.delayed(label_block)(b, _part(dialect, int(s)), features, model, args.unparsable)
            for b, s in zip(blocks, starts)
        ]
        meta = pd.DataFrame({"line": pd.Series([], dtype=np.int64), "cluster": pd.Series([], dtype=np.int64)})
        frame = dd.from_delayed(parts, meta=meta, verify_meta=False)
        futures = client.compute(frame.to_delayed())
        n = 0
        with write_atomically(args.out) as fh:
            fh.write(HEADER)
            for f in futures:  # in file order, as each block is done
                part = f.result()
                write_labels(fh, part["line"].to_numpy(), part["cluster"].to_numpy())
                n += len(part)
                f.release()
    return n


def _part(d: Dialect, first_line: int) -> Dialect:
    """The dialect of the block that starts at ``first_line`` (the first block keeps the header to skip)."""
    from dataclasses import replace

    return replace(d, first_line=first_line, header_lines=d.header_lines if first_line == 1 else 0)

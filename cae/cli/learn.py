"""``cae learn FILE --out MODEL``: learn a model from a CSV read in chunks, and write it atomically."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from ..at_scale import (
    CHECK_FROM_ROWS,
    TRACE_ROWS,
    ClusterTrace,
    MergeCheck,
    SampleRuns,
    UniformSample,
    check_merge,
    learn_on_samples,
    sample_size,
    uses_samples,
)
from ..data.csvio import FeatureReader, Scaling, ScalingStats, range_warning
from ..data.csvstream import CSVLoadError, CSVStream, LoadReport
from . import UsageError, feature_list, stream_options
from ._tools import Progress, prefetch, write_atomically


def run(args: argparse.Namespace) -> int:
    model = _model(args.algorithm, args.param)
    watched = _on_samples_possible(model)
    if args.sampled and not watched:
        raise UsageError(f"--sampled learns CAE or CAEA on samples of the rows; {args.algorithm} learns every row")
    t0 = time.perf_counter()
    scaling = _first_pass(args) if args.scale != "none" and not args.range else None
    progress = Progress("learning")
    trace = ClusterTrace()
    with CSVStream(args.file, **stream_options(args)) as stream:  # type: ignore[arg-type]
        reader = FeatureReader(stream, feature_list(args.features), args.label, args.unparsable, scaling)
        reader.scaling = scaling or _given_range(args, len(reader.features))
        sample = UniformSample(sample_size(len(reader.features), args.samples, args.sample_rows), args.sample_seed)
        learned = 0
        for _, X in prefetch(reader):
            a = 0
            while a < len(X):  # in pieces that end at every TRACE_ROWS rows, where the trace notes the clusters
                piece = X[a : a + TRACE_ROWS - learned % TRACE_ROWS]
                _learn(model, piece, reader.features)
                if watched:
                    sample.add(piece)
                learned += len(piece)
                a += len(piece)
                if learned % TRACE_ROWS == 0:
                    trace.record(learned, model)
            extra = f"{trace.clusters[-1]:,} clusters" if trace.rows else ""
            progress.update(reader.rows_kept, *stream.progress(), extra=extra)
        progress.clear()
    _something(reader, stream.report)
    if not trace.rows or trace.rows[-1] != learned:
        trace.record(learned, model)
    model.end_batch()
    model.cluster_trace_ = trace.as_list()  # type: ignore[attr-defined]
    if reader.scaling is not None:
        model.input_scaling_ = reader.scaling.as_dict()  # type: ignore[attr-defined]
    runs, check = None, None
    if watched and uses_samples(reader.rows_kept):
        runs = learn_on_samples(
            lambda: _model(args.algorithm, args.param), sample.rows(), args.samples, args.sample_seed
        )
        check = check_merge(model, runs, sample.rows(), reader.rows_kept)
    out = model
    if args.sampled and runs is not None:
        out = _sampled_model(model, runs, reader.rows_kept)
    with write_atomically(args.out) as fh:
        out.save(fh)  # type: ignore[attr-defined]
    _summary(args, model, reader, stream.report, time.perf_counter() - t0, out is not model)
    print(trace.text())
    if args.sampled:
        _sampled_summary(args, out, model, runs, check, reader.rows_kept)
    elif check is not None and check.merged:
        print("warning: " + check.sentence("learning again with --sampled"), file=sys.stderr)
    return 0


def _on_samples_possible(model: object) -> bool:
    """Whether ``model`` is CAE or CAEA, which the merge check watches and --sampled learns on samples."""
    from ..algorithms.cae import CAE

    return isinstance(model, CAE)


def _sampled_model(plain: object, runs: SampleRuns, rows: int) -> object:
    """The samples' network, with what the file's model keeps besides (features, scaling, the trace) and how
    it was learned."""
    out = runs.model
    for name in ("feature_names_in_", "input_scaling_", "cluster_trace_"):
        if hasattr(plain, name):
            setattr(out, name, getattr(plain, name))
    out.learned_on_ = runs.provenance(rows, plain_clusters=int(plain.n_clusters_))  # type: ignore[attr-defined]
    return out


def _sampled_summary(
    args: argparse.Namespace, out: object, plain: object, runs: SampleRuns | None, check: MergeCheck | None, rows: int
) -> None:
    """What --sampled wrote, with the answer of every row beside it."""
    if runs is None:
        print(
            f"--sampled: the file has {rows:,} rows; samples are for more than {CHECK_FROM_ROWS:,} rows "
            f"(the merge needs a longer stream), so {args.out} was learned on every row"
        )
        return
    o, p = out, plain
    print(
        f"--sampled: {args.out} holds the network of sample {runs.chosen + 1} of {runs.n_runs} uniform samples of "
        f"{runs.rows_per_sample:,} of the {rows:,} rows (the one the others agree with most: mean NMI "
        f"{runs.agreement[runs.chosen]:.3f}): {len(o.nodes_):,} nodes, {o.n_clusters_} clusters "  # type: ignore[attr-defined]
        f"({_large_count(o)} large); learned on every row: {len(p.nodes_):,} nodes, "  # type: ignore[attr-defined]
        f"{p.n_clusters_} clusters ({_large_count(p)} large)"  # type: ignore[attr-defined]
    )
    if check is not None and check.merged:
        print(
            f"the network of every row joined clusters that the samples keep apart ({check.plain_clusters} large "
            f"against {check.sample_clusters}): the samples' answer is the one to use"
        )
    elif check is not None and not check.stable:
        print(
            f"the {runs.n_runs} samples agree only to NMI {check.samples_agreement:.2f} among themselves: CAE's answer "
            "on this file depends on the rows it sees, so neither answer is the reference; compare the two"
        )


def _large_count(model: object) -> int:
    from ..at_scale import _large_clusters

    return _large_clusters(model)


def _model(algorithm: str, given: list[str]) -> object:
    from ..registry import make_algorithm

    params: dict[str, object] = {}
    for item in given:
        name, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"--param {item!r}: write NAME=VALUE, e.g. --param deletion_interval=80")
        try:
            params[name.strip()] = float(value)
        except ValueError:
            raise UsageError(f"--param {item!r}: {value!r} is not a number") from None
    try:
        return make_algorithm(algorithm, **params)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _learn(model: object, X: np.ndarray, features: list[str]) -> None:
    import pandas as pd

    try:
        model.learn_many(pd.DataFrame(X, columns=features))  # type: ignore[attr-defined]
    except ValueError as exc:  # e.g. Fuzzy ART's [0, 1] inputs
        raise UsageError(f"{type(model).__name__} cannot learn these rows: {exc}") from None


def _given_range(args: argparse.Namespace, n: int) -> Scaling | None:
    """The min-max scaling of ``--range LO:HI[,LO:HI...]`` (one pair for every feature, or one for each)."""
    if not args.range:
        return None
    if args.scale != "minmax":
        raise UsageError("--range gives min-max ranges: use it with --scale minmax")
    try:
        pairs = [tuple(float(v) for v in p.split(":")) for p in args.range.split(",")]
    except ValueError:
        pairs = []
    if len(pairs) == 1:
        pairs = pairs * n
    if len(pairs) != n or any(len(p) != 2 or not p[0] < p[1] for p in pairs):
        raise UsageError(f"--range: give LO:HI with LO < HI, once or once for each of the {n} features")
    return ScalingStats().update(np.array(pairs, dtype=float).T).result("minmax")


def _first_pass(args: argparse.Namespace) -> Scaling:
    """The features' ranges (or means and deviations), from a first reading of the whole file."""
    if args.file == "-":
        raise UsageError(
            f"--scale {args.scale} reads the file twice (first for the ranges) and standard input can be read "
            "once: give the ranges with --range LO:HI (min-max), or learn from a file"
        )
    progress = Progress("reading the ranges")
    with CSVStream(args.file, **stream_options(args)) as stream:  # type: ignore[arg-type]
        reader = FeatureReader(stream, feature_list(args.features), args.label, args.unparsable, moments=True)
        for _ in prefetch(reader):
            progress.update(reader.rows_kept, *stream.progress())
        progress.clear()
    _something(reader, stream.report)
    return reader.stats.result(args.scale)


def _something(reader: FeatureReader, report: LoadReport) -> None:
    """Refuse a file that gave no row to learn, saying why."""
    if not report.rows_read:
        raise CSVLoadError("the file has a header row but no data rows" if report.header else "the file has no data")
    if not reader.rows_kept:
        raise CSVLoadError("no row has a number in every feature: nothing to learn")


def report_lines(report: LoadReport, reader: FeatureReader) -> list[str]:
    """What the reading kept and dropped, in a few lines (also for ``cae label``)."""
    out = []
    dropped = sum(reader.reasons.values())
    if dropped:
        out.append(f"dropped {dropped:,} row(s): " + ", ".join(f"{v:,} with {k}" for k, v in reader.reasons.items()))
    for item, value in report.summary_rows()[8:]:
        out.append(f"{item}: {value}")
    constant = reader.constant_features()
    if constant:
        out.append(f"constant features (one value in every row): {', '.join(constant)}")
    return out


def _summary(
    args: argparse.Namespace, model: object, reader: FeatureReader, report: LoadReport, s: float, sampled: bool
) -> None:
    m = model
    where = "" if sampled else f" -> {args.out}"
    print(
        f"learned {reader.rows_kept:,} rows x {len(reader.features)} features ({', '.join(reader.features)}) "
        f"of {args.file} in {s:.1f} s ({reader.rows_kept / max(s, 1e-9):,.0f} rows/s): "
        f"{len(m.nodes_):,} nodes, {m.n_clusters_} clusters{where}"  # type: ignore[attr-defined]
    )
    for line in report_lines(report, reader):
        print(line)
    if reader.scaling is None and reader.stats.n:
        w = range_warning(np.vstack([reader.stats.low, reader.stats.high]), reader.features)
        if w:
            print("warning: " + w.replace("consider min-max", "consider --scale minmax"), file=sys.stderr)

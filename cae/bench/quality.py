"""CAE's answer as a file grows: ``python -m cae.bench --csv-quality`` (this module's options after it).

For each case and each number of rows, the rows are generated, shuffled, and learned three ways, as
``cae learn`` learns a file (chunks of 100,000 rows, :mod:`cae.at_scale` beside it):

* **all rows** — CAE learns every row (``cae learn``, the default);
* **samples** — CAE learns 5 disjoint uniform samples of 20,000 rows and keeps the network the others
  agree with most (``cae learn --sampled``, :func:`cae.at_scale.learn_on_samples`);
* **first 50k** — CAE learns the first 50,000 rows (the reference the issue set: the size of stream the
  paper studies).

Every row is then labelled by each network; it prints NMI against the true classes (noise rows not scored,
as in the paper), the large clusters (≥ 1 % of the rows) and all clusters, nodes and edges, whether the
merge check (:func:`cae.at_scale.check_merge`) spoke, and the seconds each took. ``--out`` writes the
table as CSV (``results/long_streams.csv``), ``--svg`` the picture of NMI against rows
(``docs/long-streams.svg``); :func:`markdown_table` renders the CSV as ``docs/long-streams.md`` shows it.

The cases: the paper's six 2-D distributions (:func:`cae.data.make_paper2d`) and five Gaussian blobs (σ 0.6,
centres 4.2 or more apart), each with 10 % uniform noise and without noise.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..at_scale import ClusterTrace, UniformSample, check_merge, learn_on_samples, sample_size, uses_samples
from ..evaluation import nmi

CASES = {
    "paper2d-noise": "the paper's 2-D distributions + 10 % uniform noise",
    "paper2d-clean": "the paper's 2-D distributions, no noise",
    "blobs-noise": "5 Gaussian blobs (σ 0.6) + 10 % uniform noise",
    "blobs-clean": "5 Gaussian blobs (σ 0.6), no noise",
}
SIZES = (10_000, 100_000, 1_000_000, 3_000_000)
CHUNK = 100_000
FIRST = 50_000
_BLOB_CENTRES = np.array([[0.0, 0.0], [4.2, 0.0], [0.0, 4.2], [4.2, 4.2], [8.4, 2.1]])


def make_case(case: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``n`` shuffled rows of ``case`` and their classes; the noise label (scored as no class).

    >>> X, y, noise = make_case("blobs-noise", 1000, 0)
    >>> X.shape, int((y == noise).sum())
    ((1000, 2), 100)
    """
    from ..data.synthetic import NOISE_LABEL, make_paper2d

    if case not in CASES:
        raise ValueError(f"unknown case {case!r}: {', '.join(CASES)}")
    noisy = case.endswith("noise")
    rng = np.random.default_rng(seed + 1000)
    if case.startswith("paper2d"):
        per = math.ceil(n / (6 * (1.1 if noisy else 1.0)))
        d = make_paper2d(n_per_class=per, noise_fraction=0.1 if noisy else 0.0, seed=seed)
        p = rng.permutation(len(d.X))[:n]
        return d.X[p], d.y[p], NOISE_LABEL
    n_noise = int(round(0.1 * n)) if noisy else 0
    labels = rng.integers(0, 5, n - n_noise)
    X = _BLOB_CENTRES[labels] + rng.normal(0, 0.6, (n - n_noise, 2))
    if n_noise:
        lo, hi = _BLOB_CENTRES.min(0) - 2.5, _BLOB_CENTRES.max(0) + 2.5
        X = np.vstack([X, rng.uniform(lo, hi, (n_noise, 2))])
        labels = np.concatenate([labels, np.full(n_noise, 5)])
    p = rng.permutation(n)
    return X[p], labels[p], 5


def _score(y: np.ndarray, labels: np.ndarray, noise: int) -> float:
    keep = y != noise
    return nmi(y[keep], labels[keep])


def _large(labels: np.ndarray) -> int:
    _, c = np.unique(labels, return_counts=True)
    return int((c >= 0.01 * len(labels)).sum())


def run_case(case: str, n: int, seed: int) -> dict[str, object]:
    """One row of the table: the three ways of learning ``n`` rows of ``case``."""
    from ..algorithms.cae import CAE

    X, y, noise = make_case(case, n, seed)
    out: dict[str, object] = {"case": case, "rows": n, "seed": seed}
    t0 = time.perf_counter()
    plain, trace = CAE(), ClusterTrace()
    sample = UniformSample(sample_size(X.shape[1]), seed=0)
    for a in range(0, n, CHUNK):
        plain.learn_many(X[a : a + CHUNK])
        sample.add(X[a : a + CHUNK])
        trace.record(min(n, a + CHUNK), plain)
    plain.end_batch()
    out["all_seconds"] = time.perf_counter() - t0
    labels = plain.predict(X)
    out.update(
        all_nmi=_score(y, labels, noise),
        all_large=_large(labels),
        all_clusters=int(plain.n_clusters_),
        all_nodes=len(plain.nodes_),
        all_edges=len(plain.edges_),
        trace_falling=trace.falling(),
    )
    if uses_samples(n):
        t0 = time.perf_counter()
        runs = learn_on_samples(CAE, sample.rows())
        check = check_merge(plain, runs, sample.rows(), n)
        out["samples_seconds"] = time.perf_counter() - t0
        slab = runs.model.predict(X)
        out.update(
            samples_nmi=_score(y, slab, noise),
            samples_large=_large(slab),
            samples_clusters=int(runs.model.n_clusters_),
            samples_nodes=len(runs.model.nodes_),
            check_spoke=check.merged,
            agreement=check.agreement,
        )
    else:  # learned whole: the samples' answer is the answer of every row
        out.update(
            samples_nmi=out["all_nmi"],
            samples_large=out["all_large"],
            samples_clusters=out["all_clusters"],
            samples_nodes=out["all_nodes"],
            check_spoke=False,
            agreement=1.0,
            samples_seconds=0.0,
        )
    first = CAE().learn_many(X[:FIRST])
    out["first50k_nmi"] = _score(y, first.predict(X), noise)
    return out


def run_dataset(path: str, seed: int) -> dict[str, object]:
    """One of the paper's real-world datasets (min-max scaled, rows shuffled with ``seed``, as the paper's stationary
    study): all rows and, past 50,000 rows, the samples and the check; below, the samples' answer is every row's."""
    from ..algorithms.cae import CAE
    from ..experiments.protocol import load_dataset

    d = load_dataset(path, "minmax")
    order = np.random.default_rng(seed).permutation(len(d.X))
    X, y = d.X[order], d.y[order]
    n = len(X)
    t0 = time.perf_counter()
    plain = CAE()
    sample = UniformSample(sample_size(X.shape[1]), seed=0)
    for a in range(0, n, CHUNK):
        plain.learn_many(X[a : a + CHUNK])
        sample.add(X[a : a + CHUNK])
    plain.end_batch()
    out: dict[str, object] = {"dataset": d.name, "rows": n, "features": X.shape[1], "seed": seed}
    out["all_seconds"] = time.perf_counter() - t0
    labels = plain.predict(X)
    out.update(all_nmi=nmi(y, labels), all_large=_large(labels), all_clusters=int(plain.n_clusters_))
    if uses_samples(n):
        runs = learn_on_samples(CAE, sample.rows())
        check = check_merge(plain, runs, sample.rows(), n)
        slab = runs.model.predict(X)
        out.update(samples_nmi=nmi(y, slab), samples_large=_large(slab), samples_clusters=int(runs.model.n_clusters_))
        out.update(sampled=True, check_spoke=check.merged)
    else:
        out.update(samples_nmi=out["all_nmi"], samples_large=out["all_large"], samples_clusters=out["all_clusters"])
        out.update(sampled=False, check_spoke=False)
    return out


def markdown_datasets(frame: pd.DataFrame) -> str:
    """The real-world table as ``docs/long-streams.md`` shows it (median over the seeds)."""
    lines = [
        "| dataset | rows × features | all rows: NMI | large / all clusters | --sampled: NMI | check spoke |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, g in frame.groupby("dataset", sort=False):
        sampled = f"{g.samples_nmi.median():.3f}" if g.sampled.all() else "= all rows (≤ 50,000 rows: learned whole)"
        lines.append(
            f"| {name} | {int(g.rows.iloc[0]):,} × {int(g.features.iloc[0])} | {g.all_nmi.median():.3f} "
            f"| {g.all_large.median():.0f} / {g.all_clusters.median():.0f} | {sampled} "
            f"| {int(g.check_spoke.sum())} of {len(g)} |"
        )
    return "\n".join(lines)


def markdown_table(frame: pd.DataFrame) -> str:
    """The table as ``docs/long-streams.md`` shows it: per case and rows, the median NMI over the seeds
    (and their range), clusters, how often the check spoke."""
    lines = [
        "| case | rows | all rows: NMI (min–max) | large / all clusters | nodes · edges | samples: NMI (min–max) "
        "| first 50k: NMI | check spoke |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for (case, rows), g in frame.groupby(["case", "rows"], sort=False):
        lines.append(
            f"| {case} | {rows:,} | {g.all_nmi.median():.3f} ({g.all_nmi.min():.3f}–{g.all_nmi.max():.3f}) "
            f"| {g.all_large.median():.0f} / {g.all_clusters.median():.0f} "
            f"| {g.all_nodes.median():.0f} · {g.all_edges.median():.0f} "
            f"| {g.samples_nmi.median():.3f} ({g.samples_nmi.min():.3f}–{g.samples_nmi.max():.3f}) "
            f"| {g.first50k_nmi.median():.3f} | {int(g.check_spoke.sum())} of {len(g)} |"
        )
    return "\n".join(lines)


def svg(frame: pd.DataFrame, width: int = 860, height: int = 380) -> str:
    """NMI (median over the seeds) against rows, log scale, in two panels: CAE on all rows (``cae learn``) and on
    samples (``cae learn --sampled``), a colour and a dash per case. Plain SVG, no plotting library."""
    styles = {
        "paper2d-noise": ("#0072B2", ""),
        "paper2d-clean": ("#56B4E9", ' stroke-dasharray="7 4"'),
        "blobs-noise": ("#D55E00", ""),
        "blobs-clean": ("#E69F00", ' stroke-dasharray="7 4"'),
    }
    rows = sorted(frame.rows.unique())
    lo, hi = math.log10(min(rows)), math.log10(max(rows))
    top, bottom, gap, legend = 40, 50, 70, 170
    pw = (width - 60 - gap - legend) / 2
    ph = height - top - bottom
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        'font-size="13">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for k, (col, title) in enumerate((("all_nmi", "cae learn: all rows"), ("samples_nmi", "cae learn --sampled"))):
        left = 60 + k * (pw + gap)

        def x(r: float, left: float = left) -> float:
            return left + pw * (math.log10(r) - lo) / max(hi - lo, 1e-9)

        def y(v: float) -> float:
            return top + ph * (1 - v)

        out.append(
            f'<text x="{left + pw / 2:.1f}" y="{top - 14}" text-anchor="middle" font-weight="bold">{title}</text>'
        )
        for v in (0, 0.25, 0.5, 0.75, 1.0):
            out.append(f'<line x1="{left:.1f}" y1="{y(v):.1f}" x2="{left + pw:.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
            out.append(f'<text x="{left - 6:.1f}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
        out.append(f'<line x1="{left:.1f}" y1="{top + ph}" x2="{left + pw:.1f}" y2="{top + ph}" stroke="#333"/>')
        out.append(f'<line x1="{left:.1f}" y1="{top}" x2="{left:.1f}" y2="{top + ph}" stroke="#333"/>')
        for r in rows:
            label = f"{r / 1e6:g}M" if r >= 1e6 else f"{r / 1e3:g}k"
            out.append(f'<text x="{x(r):.1f}" y="{top + ph + 18}" text-anchor="middle">{label}</text>')
        out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 10}" text-anchor="middle">rows (log scale)</text>')
        for case, g in frame.groupby("case", sort=False):
            med = g.groupby("rows")[col].median()
            c, dash = styles.get(str(case), ("#333", ""))
            pts = " ".join(f"{x(r):.1f},{y(v):.1f}" for r, v in med.items())
            out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="3"{dash}/>')
    out.append(
        f'<text x="16" y="{top + ph / 2}" text-anchor="middle" transform="rotate(-90 16 {top + ph / 2})">'
        "NMI, median of 3 seeds (noise not scored)</text>"
    )
    lx, ly = width - legend + 15, top + 10
    for case, (c, dash) in styles.items():
        if case in set(frame.case):
            out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 28}" y2="{ly}" stroke="{c}" stroke-width="3"{dash}/>')
            out.append(f'<text x="{lx + 34}" y="{ly + 4}">{case}</text>')
            ly += 22
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(
        prog="python -m cae.bench --csv-quality",
        description="CAE's answer as the file grows: NMI, clusters, nodes and edges at each size, learned on "
        "all rows, on samples (cae learn --sampled) and on the first 50,000 rows.",
    )
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated cases ({', '.join(CASES)})")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated numbers of rows")
    ap.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (data and row order)")
    ap.add_argument("--out", help="write the table as CSV here (e.g. results/long_streams.csv)")
    ap.add_argument("--svg", help="write the picture here (e.g. docs/long-streams.svg)")
    ap.add_argument(
        "--datasets",
        help="instead: the paper's real-world datasets in this folder (CSV, features then label), min-max scaled "
        "and shuffled as in the paper's stationary study",
    )
    args = ap.parse_args(argv)
    if args.datasets:
        return _datasets(args)
    rows = []
    for case in args.cases.split(","):
        for n in (int(float(s)) for s in args.sizes.split(",")):
            for seed in (int(s) for s in args.seeds.split(",")):
                r = run_case(case, n, seed)
                rows.append(r)
                print(
                    f"{case:14s} {n:>10,} seed {seed}: all rows NMI {r['all_nmi']:.3f} "
                    f"({r['all_large']} large / {r['all_clusters']} clusters, {r['all_nodes']} nodes, "
                    f"{r['all_edges']} edges, {r['all_seconds']:.1f} s) · samples NMI {r['samples_nmi']:.3f} "
                    f"({r['samples_large']} large, {r['samples_seconds']:.2f} s) · first 50k {r['first50k_nmi']:.3f}"
                    f" · check {'spoke' if r['check_spoke'] else 'silent'}",
                    flush=True,
                )
    frame = pd.DataFrame(rows)
    print()
    print(markdown_table(frame))
    if args.out:
        frame.to_csv(args.out, index=False, float_format="%.4f")
        frame = pd.read_csv(
            args.out
        )  # the picture from the numbers as written (docs/long-streams.md's test redraws it)
    if args.svg:
        Path(args.svg).write_text(svg(frame), encoding="utf-8")
    return frame


def _datasets(args: argparse.Namespace) -> pd.DataFrame:
    rows = []
    for path in sorted(Path(args.datasets).glob("*.csv")):
        for seed in (int(v) for v in args.seeds.split(",")):
            r = run_dataset(str(path), seed)
            rows.append(r)
            print(
                f"{r['dataset']:22s} {r['rows']:>8,} rows seed {seed}: all rows NMI {r['all_nmi']:.3f} "
                f"({r['all_large']} large / {r['all_clusters']} clusters) · samples NMI {r['samples_nmi']:.3f}"
                f"{'' if r['sampled'] else ' (learned whole)'} · check {'spoke' if r['check_spoke'] else 'silent'}",
                flush=True,
            )
    frame = pd.DataFrame(rows)
    print()
    print(markdown_datasets(frame))
    if args.out:
        frame.to_csv(args.out, index=False, float_format="%.4f")
    return frame

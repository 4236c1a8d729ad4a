"""*How often?* One Playground setting over many seeds: the spread of NMI and #clusters, and how often clusters merge.

A single run is one draw: at the paper's size (15,000 points per distribution, 10 % noise) CAE's seed 0 bridges
the blobs and the rings (4 clusters, NMI 0.70) while seeds 1, 2 and 4 reach 0.997–0.998; the authors' own code
merges as often (``cae/experiments/paper_tables/README.md``). This module runs a setting to the end for seeds
0 … N−1 and says what is typical and how often it fails, so that noise level and chance become part of the
lesson. No Streamlit here: the page starts a :class:`HowOften` job (a background thread; the kernels release
the GIL) and draws what it reports.

What is counted (:func:`cae.evaluation.partition_outcome`), on the stream's points that belong to a true class (the uniform
noise is learned but never a class to find):

* the **home cluster** of a true class is the cluster holding most of its points;
* a run **merges** when two or more true classes share a home cluster (e.g. the two rings bridged into one);
* a run **splits** when a true class is the majority class of two or more *large* clusters — clusters holding
  at least 1 % of the points (small fragments do not count);
* #clusters is CAE's number of connected components; "large clusters" are those holding ≥ 1 % of the points.

Examples
--------
>>> y = [0, 0, 0, 1, 1, 1, 2, 2, 2]
>>> out = partition_outcome(y, [5, 5, 5, 5, 5, 5, 7, 7, 7])  # classes 0 and 1 in one cluster
>>> out["merged"], out["merged_classes"], out["split"], out["n_large"]
(True, [(0, 1)], False, 2)
>>> partition_outcome(y, [1, 1, 2, 3, 3, 3, 4, 4, 4])["split_classes"]  # class 0 in two large clusters
[0]
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from ..evaluation import (
    MERGE_DEFINITION,
    MIN_SHARE,
    RunOutcome,
    partition_outcome,
    score_run,
    summarize_runs,
    typical_seed,
)
from .jobs import SeedJob
from .streams import make_stream

__all__ = [
    "MIN_SHARE",
    "MERGE_DEFINITION",
    "partition_outcome",
    "RunOutcome",
    "run_setting",
    "typical_seed",
    "summarize_runs",
    "HowOften",
    "outcome_rows",
    "spread_words",
    "spread_short",
    "same_setting",
    "spread_figure",
]


def _model(cfg):
    """A fresh model of the configuration's algorithm (any the Playground offers) with its parameters."""
    from ..algorithms import CAE
    from ..registry import ALGORITHMS
    from .explainable import entry, model_params

    algo = cfg.get("algo", "CAE")
    if algo == "CAEA":
        return CAE(deletion_interval=int(cfg["lam"]), max_edge_age=int(cfg["amax"]))
    if entry(algo).is_cae:
        return CAE()
    return ALGORITHMS[algo].make(**model_params(cfg))


def _setting_keys(cfg):
    """The configuration keys that make a setting (the seed apart): the data's, the algorithm and its parameters."""
    from .explainable import entry

    return ["source", "n_per_class", "noise", "algo"] + [k for k, _ in entry(cfg.get("algo", "CAE")).params]


def run_setting(cfg, seed, score_noise=False, progress=None, should_stop=None, chunk=5000):
    """Run a Playground configuration (``source``, ``n_per_class``, ``noise``, ``seed``, ``algo`` — CAE, CAEA,
    Fuzzy ART or GNG —, ``lam``, ``amax`` and the other algorithms' parameters) with ``seed`` to the end of its stream and score the partition of every point.

    NMI and ARI leave the noise out unless ``score_noise`` (as the Playground's live metrics do); merges and
    splits always leave it out. ``progress(fraction)`` is called after each chunk; ``should_stop()`` returning
    True abandons the run (returns None).

    Examples
    --------
    >>> cfg = dict(source="paper2d-ns", n_per_class=250, noise=0.1, algo="CAE")
    >>> out = run_setting(cfg, seed=0)
    >>> out.seed, 0.0 <= out.nmi <= 1.0, out.kind in ("clean", "merge", "split", "merge and split")
    (0, True, True)
    """
    t0 = time.perf_counter()
    stream = make_stream({**cfg, "seed": int(seed)})
    model = _model(cfg)
    n = len(stream.X)
    for a in range(0, n, chunk):
        if should_stop is not None and should_stop():
            return None
        model.learn_many(stream.X[a : a + chunk])
        if progress is not None:
            progress(min(n, a + chunk) / n)
    model.end_batch()
    return score_run(model, stream, seed, score_noise=score_noise, seconds=time.perf_counter() - t0)


class HowOften(SeedJob):
    """A background job: one setting over seeds 0 … N−1, one run after another, in a thread.

    The page keeps the job in its session, asks :meth:`words` and :attr:`outcomes` on each rerun, and may
    :meth:`cancel` it. Nothing here touches Streamlit.

    Examples
    --------
    >>> job = HowOften(dict(source="paper2d-ns", n_per_class=250, noise=0.1, algo="CAE"), n_seeds=2).start()
    >>> job.wait(120)
    True
    >>> [o.seed for o in job.outcomes], job.words()
    ([0, 1], 'Done: 2 runs (seeds 0–1).')
    """

    thread_name = "cae-how-often"

    def __init__(self, cfg, n_seeds=20, score_noise=False):
        super().__init__(n_seeds)
        self.cfg = {k: cfg[k] for k in ("lam", "amax", *_setting_keys(cfg)) if k in cfg}
        self.score_noise = bool(score_noise)
        self.outcomes = []
        self.fraction = 0.0  # of the current run

    def _run_seed(self, seed):
        self.fraction = 0.0
        out = run_setting(
            self.cfg,
            seed,
            score_noise=self.score_noise,
            progress=lambda f: setattr(self, "fraction", f),
            should_stop=self._stop.is_set,
        )
        if out is not None:
            self.outcomes = self.outcomes + [out]  # a new list: readers never see it half-built

    def same_setting(self, cfg, score_noise=False):
        """Whether this job ran ``cfg``'s setting (the seed aside), scored the same way."""
        return self.score_noise == bool(score_noise) and same_setting(self.cfg, cfg)

    def words(self):
        """Where the job is, in a sentence."""
        done, total = len(self.outcomes), len(self.seeds)
        if self.error:
            return f"Stopped by an error after {done} of {total} runs: {self.error}"
        merged = sum(o.merged for o in self.outcomes)
        so_far = f"{done} of {total} runs done" + (f", {merged} merged so far" if done else "")
        if self.running:
            cur = self.current
            elapsed = time.perf_counter() - self.started
            left = ""
            if done:
                left = f"; about {max(1, round(elapsed / done * (total - done)))} s left"
            now = f"running seed {cur}: {self.fraction:.0%} of its stream" if cur is not None else "starting"
            return f"{so_far} — {now}{left}."
        if self.cancelled and done < total:
            return f"Stopped: {so_far}."
        last = self.seeds[-1] if self.seeds else 0
        return f"Done: {done} runs (seeds 0–{last})."


# ---------------------------------------------------------------- what the page shows
KIND_COLOURS = {"clean": "#2ca02c", "split": "#ff7f0e", "merge": "#d62728", "merge and split": "#9467bd"}


def outcome_rows(outcomes):
    """Plain rows ``{seed, nmi, n_clusters, n_large, kind}`` from :class:`RunOutcome` objects or such dicts
    (the stored measurement of the default setting, ``sample_data/home_model.json``, has them)."""
    rows = []
    for o in outcomes:
        if isinstance(o, dict):
            rows.append({k: o[k] for k in ("seed", "nmi", "n_clusters", "n_large", "kind")})
        else:
            rows.append(
                {"seed": o.seed, "nmi": o.nmi, "n_clusters": o.n_clusters, "n_large": o.n_large, "kind": o.kind}
            )
    return sorted(rows, key=lambda r: r["seed"])


def _as_outcomes(rows):
    return [
        RunOutcome(
            r["seed"],
            r["nmi"],
            float("nan"),
            0,
            r["n_clusters"],
            r["n_large"],
            "merge" in r["kind"],
            "split" in r["kind"],
            [],
            [],
            0.0,
        )
        for r in rows
    ]


def spread_words(outcomes, seed=None):
    """The spread in two or three sentences (plain text, Markdown-safe), and where ``seed`` falls.

    Examples
    --------
    >>> rows = [dict(seed=s, nmi=v, n_clusters=k, n_large=k, kind=c) for s, v, k, c in
    ...         [(0, 0.70, 4, "merge"), (1, 0.99, 6, "clean"), (2, 0.97, 6, "clean"), (3, 0.93, 7, "split")]]
    >>> print(spread_words(rows, seed=0))
    Over seeds 0–3: median NMI 0.950 (middle half 0.873–0.975, lowest 0.700); 1 of 4 runs merge, 1 split, 2 clean. Typical: seed 2 (clean, NMI 0.970, 6 clusters). Seed 0: merge (NMI 0.700, 4 clusters).
    """
    rows = outcome_rows(outcomes)
    if not rows:
        return ""
    v = np.array([r["nmi"] for r in rows])
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    n = len(rows)
    merged = sum("merge" in r["kind"] for r in rows)
    split = sum("split" in r["kind"] for r in rows)
    clean = sum(r["kind"] == "clean" for r in rows)
    seeds = [r["seed"] for r in rows]
    span = (
        f"{min(seeds)}–{max(seeds)}" if seeds == list(range(min(seeds), max(seeds) + 1)) else ", ".join(map(str, seeds))
    )
    typ = typical_seed(_as_outcomes(rows))
    t = next(r for r in rows if r["seed"] == typ)
    text = (
        f"Over seeds {span}: median NMI {med:.3f} (middle half {q1:.3f}–{q3:.3f}, lowest {v.min():.3f}); "
        f"{merged} of {n} runs merge, {split} split, {clean} clean. "
        f"Typical: seed {typ} ({t['kind']}, NMI {t['nmi']:.3f}, {t['n_clusters']} clusters)."
    )
    me = next((r for r in rows if r["seed"] == seed), None)
    if me is not None and seed != typ:
        text += f" Seed {seed}: {me['kind']} (NMI {me['nmi']:.3f}, {me['n_clusters']} clusters)."
    elif me is not None:
        text += f" Seed {seed} is this typical run."
    return text


def spread_short(outcomes, seed=None):
    """One line for beside the live metrics.

    Examples
    --------
    >>> rows = [dict(seed=s, nmi=v, n_clusters=k, n_large=k, kind=c) for s, v, k, c in
    ...         [(0, 0.70, 4, "merge"), (1, 0.99, 6, "clean"), (2, 0.97, 6, "clean"), (3, 0.93, 7, "split")]]
    >>> spread_short(rows, seed=2), spread_short(rows, seed=0)
    ('How often? Over seeds 0–3: median NMI 0.950; 1 of 4 merge, 1 split. Seed 2 is the typical run.', 'How often? Over seeds 0–3: median NMI 0.950; 1 of 4 merge, 1 split. Seed 0: merge.')
    """
    rows = outcome_rows(outcomes)
    if not rows:
        return ""
    seeds = [r["seed"] for r in rows]
    med = float(np.median([r["nmi"] for r in rows]))
    merged = sum("merge" in r["kind"] for r in rows)
    split = sum("split" in r["kind"] for r in rows)
    text = f"How often? Over seeds {min(seeds)}–{max(seeds)}: median NMI {med:.3f}; {merged} of {len(rows)} merge, {split} split."
    me = next((r for r in rows if r["seed"] == seed), None)
    if me is not None:
        typ = typical_seed(_as_outcomes(rows))
        text += f" Seed {seed} is the typical run." if seed == typ else f" Seed {seed}: {me['kind']}."
    return text


def same_setting(a, b):
    """Whether two Playground configurations describe the same setting (everything but the seed)."""
    keys = [k for k in _setting_keys(a) if k != "noise"]
    return all(a.get(k) == b.get(k) for k in keys) and abs(float(a["noise"]) - float(b["noise"])) < 1e-9


def spread_figure(outcomes, seed=None, height=300):
    """Two panels: the final NMI of each seed (coloured by outcome; ``seed`` ringed), and how many runs end
    with each number of large clusters."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    rows = outcome_rows(outcomes)
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.62, 0.38],
        horizontal_spacing=0.12,
        subplot_titles=("final NMI of each seed", "runs by #clusters holding ≥ 1 % of the points"),
    )
    for kind, colour in KIND_COLOURS.items():
        sel = [r for r in rows if r["kind"] == kind]
        if not sel:
            continue
        fig.add_trace(
            go.Scatter(
                x=[r["seed"] for r in sel],
                y=[r["nmi"] for r in sel],
                mode="markers",
                marker=dict(size=10, color=colour),
                name=kind,
                customdata=[[r["n_clusters"], r["n_large"]] for r in sel],
                hovertemplate="seed %{x}: NMI %{y:.3f}, %{customdata[0]} clusters (%{customdata[1]} large)"
                + f"<extra>{kind}</extra>",
            ),
            row=1,
            col=1,
        )
    me = next((r for r in rows if r["seed"] == seed), None)
    if me is not None:
        fig.add_trace(
            go.Scatter(
                x=[me["seed"]],
                y=[me["nmi"]],
                mode="markers",
                marker=dict(size=18, color="rgba(0,0,0,0)", line=dict(color="black", width=2)),
                name=f"seed {seed} (shown)",
                hoverinfo="skip",
            ),
            row=1,
            col=1,
        )
    counts = Counter(r["n_large"] for r in rows)
    ks = sorted(counts)
    fig.add_trace(
        go.Bar(x=[str(k) for k in ks], y=[counts[k] for k in ks], marker_color="#7f7f7f", showlegend=False),
        row=1,
        col=2,
    )
    span = max(r["seed"] for r in rows) - min(r["seed"] for r in rows) if rows else 0
    fig.update_xaxes(title_text="seed", dtick=max(1, -(-span // 10)), row=1, col=1)  # whole seeds only
    fig.update_yaxes(title_text="NMI", row=1, col=1)
    fig.update_xaxes(title_text="#clusters (≥ 1 %)", type="category", row=1, col=2)
    fig.update_yaxes(title_text="runs", dtick=max(1, -(-max(counts.values(), default=1) // 5)), row=1, col=2)
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=40, b=10),
        legend=dict(orientation="h", yanchor="top", y=-0.25, x=0),
    )
    return fig

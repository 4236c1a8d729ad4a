"""The *Lineage* lesson: Fuzzy ART and GNG with their fixed parameters beside CAEA and CAE, on one drifting stream.

CAE is what happens when Fuzzy ART (a fixed vigilance ρ) meets Growing Neural Gas (a fixed insertion interval λ
and edge-age limit a_max) and their fixed parameters are estimated from the data instead. This module runs, on
the paper's 2-D non-stationary stream (distributions #1 → #6 presented one after another, with its uniform
noise throughout; :func:`cae.app.streams.make_stream`), every setting of :data:`SETTINGS`:

* Fuzzy ART with ρ too low (boxes grow over neighbouring classes: merges), its default, and ρ too high (each
  class breaks into many small boxes: fragments);
* GNG with λ too small (a node every few samples: the network fills up on the noise), its default, and λ too
  large (too few insertions to follow the drift) — with n_max = 1,000 (:data:`GNG_MAX_NODES`) so that the
  default cap of 100 nodes does not hide what a small λ does;
* CAEA with the paper's grid-searched λ and a_max for this stream, and CAE with no parameter;

over seeds 0 … N−1, one run after another in a background thread (:class:`LineageJob`, as
:class:`cae.app.how_often.HowOften`: the page stays usable), and reports per setting NMI, ARI, #clusters and
merges as mean ± sd over the seeds (:func:`summary_table`), with one sentence each on what the fixed parameter
did (:func:`setting_sentence`). No Streamlit here.

What is counted, on the stream's points that belong to a true class (the noise is learned but never a class):

* NMI and ARI of the model's partition (its ``predict``) against the true classes;
* #clusters: the model's clusters (Fuzzy ART's categories, GNG's and CAE's connected components);
* **merges** (:func:`merged_classes`): the true classes whose majority cluster — the cluster holding most of
  their points — is also the majority cluster of another class; 0 when every class has a cluster of its own,
  2 when two classes share one, 6 when all six do;
* nodes on noise: the share of the model's nodes (Fuzzy ART: its boxes' centres) whose nearest stream point is
  a noise point.

Examples
--------
>>> merged_classes([0, 0, 1, 1, 2, 2], [5, 5, 5, 5, 7, 7])  # classes 0 and 1 share cluster 5
2
>>> run = run_one(SETTINGS[-1], seed=0, n_per_class=250)
>>> run.setting, 0 <= run.nmi <= 1, run.n_clusters >= 1
('CAE', True, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..evaluation import ari, nmi
from ..registry import ALGORITHMS
from .jobs import SeedJob
from .streams import make_stream, paper_setting

__all__ = [
    "Setting",
    "SETTINGS",
    "SOURCE",
    "NOISE",
    "N_PER_CLASS",
    "GNG_MAX_NODES",
    "MERGE_WORDS",
    "merged_classes",
    "LineageRun",
    "run_one",
    "LineageJob",
    "summary_table",
    "setting_sentence",
    "models_at",
    "TABLE_COLUMNS",
    "run_all",
    "write_runs",
    "read_runs",
    "markdown",
]

#: the stream: the paper's 2-D data, distributions #1 → #6 one after another, 10 % uniform noise throughout
SOURCE = "paper2d-ns"
NOISE = 0.10
#: points per distribution: 1,500 (9,900 samples with the noise): every setting runs in well under a second
N_PER_CLASS = 1500

MERGE_WORDS = (
    "Merges: the true classes whose majority cluster (the cluster holding most of their points) is also another "
    "class's majority cluster — 0 when every class has a cluster of its own, 2 when two classes share one."
)


@dataclass(frozen=True)
class Setting:
    """One run of the lesson: an algorithm of the registry with its parameters.

    ``key`` names it in the table (``"Fuzzy ART ρ = 0.5"``), ``role`` says which it is (``"too low"``,
    ``"default"``, …) and ``fixed`` names the parameter the lesson varies (its symbol), if any.
    """

    key: str
    algorithm: str
    params: dict[str, Any] = field(default_factory=dict)
    role: str = "default"
    fixed: str = ""

    def make(self):
        return ALGORITHMS[self.algorithm].make(**self.params)


#: GNG's n_max in the lesson: its default 100 would stop λ = 10 and λ = 100 at the same 100 nodes and hide what a
#: small λ does on a noisy stream (λ = 10 makes about 990 nodes here)
GNG_MAX_NODES = 1000

_CAEA = paper_setting("CAEA", SOURCE)  # the paper's grid-searched λ and a_max for this stream (50 and 40)

#: the lesson's settings, in the table's order
SETTINGS = (
    Setting("Fuzzy ART ρ = 0.5", "Fuzzy ART", {"vigilance": 0.5}, "too low", "ρ"),
    Setting("Fuzzy ART ρ = 0.75", "Fuzzy ART", {"vigilance": 0.75}, "default", "ρ"),
    Setting("Fuzzy ART ρ = 0.95", "Fuzzy ART", {"vigilance": 0.95}, "too high", "ρ"),
    Setting("GNG λ = 10", "GNG", {"insertion_interval": 10, "max_nodes": GNG_MAX_NODES}, "too small", "λ"),
    Setting("GNG λ = 100", "GNG", {"insertion_interval": 100, "max_nodes": GNG_MAX_NODES}, "default", "λ"),
    Setting("GNG λ = 1000", "GNG", {"insertion_interval": 1000, "max_nodes": GNG_MAX_NODES}, "too large", "λ"),
    Setting(
        f"CAEA λ = {_CAEA['deletion_interval']:g}, a_max = {_CAEA['max_edge_age']:g}",
        "CAEA",
        dict(_CAEA),
        "the paper's setting",
        "λ, a_max",
    ),
    Setting("CAE", "CAE", {}, "no parameter", ""),
)


def merged_classes(y_true, y_pred):
    """How many true classes share their majority cluster with another class (see the module's docstring).

    The majority cluster of a class is the cluster holding most of its points (ties: the smallest label).

    >>> merged_classes([0, 0, 0, 1, 1, 1, 2, 2, 2], [1, 1, 1, 2, 2, 2, 3, 3, 3])
    0
    >>> merged_classes([0, 0, 0, 1, 1, 1, 2, 2, 2], [4, 4, 9, 4, 4, 4, 4, 8, 8])  # 0 and 1 in 4; 2's home is 8
    2
    """
    y, p = np.asarray(y_true), np.asarray(y_pred)
    home = {}
    for c in np.unique(y):
        labels, counts = np.unique(p[y == c], return_counts=True)
        home[c] = labels[np.argmax(counts)]
    shared = pd.Series(list(home.values())).value_counts()
    return int(sum(shared[h] > 1 for h in home.values()))


@dataclass(frozen=True)
class LineageRun:
    """One setting run to the end of one seed's stream, scored on the points of true classes."""

    setting: str
    seed: int
    nmi: float
    ari: float
    n_clusters: int
    merges: int
    n_nodes: int
    on_noise: float
    n_samples: int
    seconds: float


def _nodes_on_noise(model, stream):
    """The share of the model's nodes whose nearest stream point is a noise point."""
    Y = np.asarray(model.nodes_, float)
    if not len(Y) or stream.noise_label is None:
        return 0.0
    X = stream.X
    nearest = np.empty(len(Y), dtype=np.int64)
    for a in range(0, len(Y), 256):  # nodes × points in blocks: a few MB at most
        d = ((Y[a : a + 256, None, :] - X[None, :, :]) ** 2).sum(-1)
        nearest[a : a + 256] = d.argmin(1)
    return float(np.mean(stream.y[nearest] == stream.noise_label))


def _stream(seed, n_per_class):
    return make_stream(dict(source=SOURCE, n_per_class=int(n_per_class), noise=NOISE, seed=int(seed)))


def run_one(setting, seed, n_per_class=N_PER_CLASS, stream=None):
    """Run ``setting`` over seed ``seed``'s stream (or the ``stream`` given) and score it (:class:`LineageRun`)."""
    t0 = time.perf_counter()
    stream = stream if stream is not None else _stream(seed, n_per_class)
    model = setting.make()
    model.learn_many(stream.X)
    model.end_batch()
    n = len(stream.X)
    pred = model.predict(stream.X) if len(model.nodes_) else np.full(n, -1)
    clean = stream.y != stream.noise_label if stream.noise_label is not None else np.ones(n, bool)
    y, p = stream.y[clean], pred[clean]
    return LineageRun(
        setting=setting.key,
        seed=int(seed),
        nmi=nmi(y, p),
        ari=ari(y, p),
        n_clusters=int(model.n_clusters_) if len(model.nodes_) else 0,
        merges=merged_classes(y, p),
        n_nodes=len(model.nodes_),
        on_noise=_nodes_on_noise(model, stream),
        n_samples=n,
        seconds=time.perf_counter() - t0,
    )


class LineageJob(SeedJob):
    """A background job: every setting over seeds 0 … N−1, seed by seed, in a thread (the kernels release the
    GIL). The page keeps it in its session, reads :attr:`runs` and :meth:`words` on each rerun, and may
    :meth:`cancel` it. Nothing here touches Streamlit.

    Examples
    --------
    >>> job = LineageJob(n_seeds=1, n_per_class=250).start()
    >>> job.wait(120), len(job.runs) == len(SETTINGS), job.words()
    (True, True, 'Done: 8 settings over 1 seed (seed 0).')
    """

    thread_name = "cae-lineage"

    def __init__(self, n_seeds=5, n_per_class=N_PER_CLASS, settings=SETTINGS):
        super().__init__(n_seeds)
        self.n_per_class = int(n_per_class)
        self.settings = tuple(settings)
        self.runs: list[LineageRun] = []

    def _run_seed(self, seed):
        stream = _stream(seed, self.n_per_class)
        for s in self.settings:
            if self._stop.is_set():
                return
            self.runs = self.runs + [run_one(s, seed, stream=stream)]  # a new list: never seen half-built

    @property
    def fraction(self):
        """The share of the runs done."""
        return len(self.runs) / max(1, len(self.seeds) * len(self.settings))

    def words(self):
        """Where the job is, in a sentence."""
        total = len(self.seeds) * len(self.settings)
        done = len(self.runs)
        if self.error:
            return f"Stopped by an error after {done} of {total} runs: {self.error}"
        if self.running:
            return f"{done} of {total} runs done — running seed {self.current}."
        if self.cancelled and done < total:
            return f"Stopped: {done} of {total} runs done."
        n = len(self.seeds)
        span = f"seed {self.seeds[0]}" if n == 1 else f"seeds {self.seeds[0]}–{self.seeds[-1]}"
        return f"Done: {len(self.settings)} settings over {n} seed{'s' if n != 1 else ''} ({span})."


#: the table's columns (:func:`summary_table`)
TABLE_COLUMNS = ["algorithm", "setting", "seeds", "NMI", "ARI", "#clusters", "merges", "#nodes", "nodes on noise"]


def _pm(v, digits):
    v = np.asarray(v, float)
    sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
    return f"{v.mean():.{digits}f} ± {sd:.{digits}f}"


def _by_setting(runs, settings=SETTINGS):
    out = []
    for s in settings:
        mine = [r for r in runs if r.setting == s.key]
        if mine:
            out.append((s, mine))
    return out


def summary_table(runs, settings=SETTINGS):
    """Per setting (in the lesson's order; those with runs): NMI, ARI, #clusters, merges, #nodes as mean ± sd
    over the seeds run, and the mean share of nodes on the noise (:data:`TABLE_COLUMNS`)."""
    rows = []
    for s, mine in _by_setting(runs, settings):
        rows.append(
            {
                "algorithm": s.algorithm,
                "setting": f"{s.key[len(s.algorithm) :].strip() or '—'} ({s.role})",
                "seeds": len(mine),
                "NMI": _pm([r.nmi for r in mine], 3),
                "ARI": _pm([r.ari for r in mine], 3),
                "#clusters": _pm([r.n_clusters for r in mine], 1),
                "merges": _pm([r.merges for r in mine], 1),
                "#nodes": _pm([r.n_nodes for r in mine], 0),
                "nodes on noise": f"{np.mean([r.on_noise for r in mine]):.0%}",
            }
        )
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def setting_sentence(setting, runs):
    """One sentence (plain text, Markdown-safe) on what the fixed parameter did in this setting's runs."""
    mine = [r for r in runs if r.setting == setting.key]
    if not mine:
        return ""
    k = np.mean([r.n_clusters for r in mine])
    m = np.mean([r.merges for r in mine])
    v = np.mean([r.nmi for r in mine])
    nodes = np.mean([r.n_nodes for r in mine])
    noise = np.mean([r.on_noise for r in mine])
    n = mine[0].n_samples
    p = setting.params
    if setting.algorithm == "Fuzzy ART":
        rho = p["vigilance"]
        grow = f"a box may grow until its sides sum to 2 (1 − ρ) = {2 * (1 - rho):.2g}"
        what = {
            "too low": f"ρ = {rho:g} is too low: {grow}, so boxes swallow neighbouring classes",
            "too high": f"ρ = {rho:g} is too high: {grow}, so every class breaks into many small boxes",
        }.get(setting.role, f"ρ = {rho:g} (the usual default): {grow}")
        return f"{what} — {k:.0f} categories for 6 classes, {m:.1f} classes merged on average, NMI {v:.3f}."
    if setting.algorithm == "GNG":
        lam = p["insertion_interval"]
        amax = ALGORITHMS["GNG"].defaults()["max_edge_age"]
        what = {
            "too small": f"λ = {lam:g} is too small: a node every {lam:g} samples, {nodes:.0f} nodes for {n:,} samples, "
            f"{noise:.0%} of them on the noise",
            "too large": f"λ = {lam:g} is too large: one node per {lam:g} samples, {nodes:.0f} nodes for {n:,} samples, "
            "too few to follow the stream from one distribution to the next",
        }.get(setting.role, f"λ = {lam:g} (the default): {nodes:.0f} nodes, {noise:.0%} of them on the noise")
        return (
            f"{what}; with a fixed a_max = {amax:g} the noise keeps edges between the classes alive — "
            f"{k:.1f} cluster(s), {m:.1f} classes merged, NMI {v:.3f}."
        )
    if setting.algorithm == "CAEA":
        return (
            f"The paper's grid-searched λ = {p['deletion_interval']:g} and a_max = {p['max_edge_age']:g} for this "
            f"stream (fixed, found by trying many): {k:.1f} clusters, {m:.1f} classes merged, NMI {v:.3f}."
        )
    return (
        f"No parameter: the threshold V is estimated from the data (as Fuzzy ART's ρ is not) and λ from the nodes' "
        f"diversity (as GNG's λ is not): {k:.1f} clusters, {m:.1f} classes merged, NMI {v:.3f}."
    )


def models_at(step, seed=0, n_per_class=N_PER_CLASS, settings=None):
    """Each setting's model after the first ``step`` samples of seed ``seed``'s stream, for drawing side by side.

    Returns ``(stream, [(setting, model, record of the last step or None)])``; ``step`` is clamped to
    0 … the stream's length. ``settings`` defaults to one per algorithm (each one's default; CAEA the paper's).
    """
    stream = _stream(seed, n_per_class)
    step = int(min(max(int(step), 0), len(stream.X)))
    if settings is None:
        settings = [s for s in SETTINGS if s.role in ("default", "the paper's setting", "no parameter")]
    out = []
    for s in settings:
        model = s.make()
        rec = None
        if step > 1:
            model.learn_many(stream.X[: step - 1])
        if step >= 1:
            rec = model.learn_one(stream.X[step - 1])
        out.append((s, model, rec))
    return stream, out


def run_all(n_seeds=10, n_per_class=N_PER_CLASS, settings=SETTINGS, progress=None):
    """Every setting over seeds 0 … ``n_seeds`` − 1, in this thread (what ``python -m cae.experiments lineage``
    runs); ``progress(run)`` is called after each run."""
    runs = []
    for seed in range(int(n_seeds)):
        stream = _stream(seed, n_per_class)
        for s in settings:
            runs.append(run_one(s, seed, stream=stream))
            if progress is not None:
                progress(runs[-1])
    return runs


def write_runs(runs, path):
    """The runs, one row each, as CSV (the numbers :func:`markdown` reads back)."""
    from dataclasses import asdict

    pd.DataFrame([asdict(r) for r in runs]).to_csv(path, index=False)


def read_runs(path):
    """The runs of a CSV written by :func:`write_runs`."""
    df = pd.read_csv(path)
    return [
        LineageRun(**{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()})
        for row in df.to_dict("records")
    ]


def markdown(runs, settings=SETTINGS):
    """The lesson's table (mean ± sd over the seeds) and one sentence per setting, as Markdown: the block of
    docs/algorithms.md that ``python -m cae.experiments lineage --markdown`` prints.

    >>> runs = [LineageRun("CAE", 0, 0.9, 0.8, 6, 0, 40, 0.05, 1000, 0.1), LineageRun("CAE", 1, 1.0, 1.0, 6, 0, 42, 0.0, 1000, 0.1)]
    >>> print(markdown(runs).splitlines()[2])
    | CAE | — (no parameter) | 2 | 0.950 ± 0.071 | 0.900 ± 0.141 | 6.0 ± 0.0 | 0.0 ± 0.0 | 41 ± 1 | 2% |
    """
    table = summary_table(runs, settings)
    lines = ["| " + " | ".join(table.columns) + " |", "|" + " --- |" * len(table.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in table.itertuples(index=False)]
    n = max((r.n_samples for r in runs), default=0)
    lines += [
        "",
        f"{n:,} samples per run (the paper's 2-D stream #1 → #6, {NOISE:.0%} uniform noise, not scored). {MERGE_WORDS}",
        "",
    ]
    lines += [f"- **{s.key}**: {setting_sentence(s, runs)}" for s, _ in _by_setting(runs, settings)]
    return "\n".join(lines) + "\n"

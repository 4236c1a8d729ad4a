"""The *Lineage* lesson: the paper's two families meeting in CAE, each parameter shown doing what it does.

The CAE paper (Masuyama et al. 2026, §1-§3) tells a lineage whose every step is in the registry:

* **ART family** — Fuzzy ART (a fixed vigilance ρ) → TCA (similarity by CIM; the topology construction cycle λ
  and the initial bandwidth σ_init, grid-searched) → CAEA (λ: λ/2 active nodes set the threshold V and isolated
  nodes go every λ samples; the edge-age limit a_max; both grid-searched) → CAE (V, λ and a_max estimated);
* **GNG family** — GNG (the insertion interval λ and a_max, fixed) → ASOINN (the denoising cycle λ and a_max,
  grid-searched) → SOINN+ (no parameter: edge deletion from the edges' ages, p75 + 2·IQR) → CAE's a_max
  ("inspired by SOINN+": q3 + 1·IQR, over s1's own edges only).

:data:`STEPS` are those steps, each with what it fixed, estimated or removed. :data:`SETTINGS` vary every
parameter of the line (ρ, λ, a_max, σ_init) at a low value, the usual one (:data:`USUAL`: the paper's
grid-searched values for this stream where it has them) and a high one, one parameter at a time; CAE and
SOINN+ have none. Each setting runs on two streams (:data:`STREAMS`): the paper's 2-D stream #1 → #6 with its 10 %
uniform noise, and the same stream without noise, where topology is the point — so that every algorithm is seen
where it works and where it fails — over seeds 0 … N−1 (:func:`run_all`, or :class:`LineageJob` in the
background). :func:`summary_table` gives the table (mean ± sd over the seeds) and :func:`setting_sentence` one
sentence per row, whose every number is a :class:`Quote` of the runs (:func:`sentence_quotes`).

What is counted, on the stream's points that belong to a true class (the noise is learned but never scored):
NMI and ARI of the model's partition; #clusters (Fuzzy ART's categories, the networks' connected components);
merges (:func:`merged_classes`); #nodes; nodes on noise (the share of nodes whose nearest stream point is noise);
#edges, and the edges across classes — those joining two nodes whose nearest class points belong to different
classes (a network that has learned the topology has none); small clusters (of at most 3 nodes); the λ in force
at the end (CAE's estimate) and the edges deleted by age (CAE's and CAEA's count). No Streamlit here.

Examples
--------
>>> merged_classes([0, 0, 1, 1, 2, 2], [5, 5, 5, 5, 7, 7])  # classes 0 and 1 share cluster 5
2
>>> [s.key for s in SETTINGS if s.algorithm == "GNG"]
['GNG λ = 100, a_max = 50', 'GNG λ = 10', 'GNG λ = 1000', 'GNG a_max = 5', 'GNG a_max = 500']
>>> run = run_one(setting("CAE"), seed=0, stream_name="noise-free", n_per_class=250)
>>> run.setting, run.stream, 0 <= run.nmi <= 1, run.n_clusters >= 1
('CAE', 'noise-free', True, True)
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from ..evaluation import ari, nmi
from ..registry import ALGORITHMS
from .jobs import SeedJob
from .streams import make_stream, paper_setting

__all__ = [
    "SOURCE",
    "STREAMS",
    "N_PER_CLASS",
    "GNG_MAX_NODES",
    "SMALL_CLUSTER",
    "USUAL",
    "VARIED",
    "Setting",
    "SETTINGS",
    "setting",
    "Step",
    "STEPS",
    "step_of",
    "MERGE_WORDS",
    "merged_classes",
    "LineageRun",
    "run_one",
    "LineageJob",
    "run_all",
    "TABLE_COLUMNS",
    "TABLE_GROUPS",
    "summary_table",
    "Quote",
    "MEANINGS",
    "sentence_quotes",
    "setting_sentence",
    "sentences",
    "models_at",
    "usual_setting",
    "write_runs",
    "read_runs",
    "markdown",
]

#: the stream: the paper's 2-D data, distributions #1 → #6 one after another
SOURCE = "paper2d-ns"
#: the two streams every setting runs on, with their share of uniform noise: the paper's, and none
STREAMS = {"noisy": 0.10, "noise-free": 0.0}
#: points per distribution: 1,500 (9,900 samples with the noise, 9,000 without)
N_PER_CLASS = 1500
#: GNG's n_max in the lesson: its default 100 would stop λ = 10 and λ = 100 at the same 100 nodes and hide what a
#: small λ does
GNG_MAX_NODES = 1000
#: a cluster of at most this many nodes is counted as small (fragments: lone nodes and pairs left by the noise)
SMALL_CLUSTER = 3

#: the usual value of each parameter the lesson varies: the paper's grid-searched values for this stream (TCA,
#: CAEA, ASOINN), Fritzke 1995's (GNG, as the registry's defaults), the registry's default ρ (Fuzzy ART)
USUAL = {
    "Fuzzy ART": {"vigilance": ALGORITHMS["Fuzzy ART"].defaults()["vigilance"]},
    "TCA": paper_setting("TCA", SOURCE),
    "CAEA": paper_setting("CAEA", SOURCE),
    "GNG": {k: ALGORITHMS["GNG"].defaults()[k] for k in ("insertion_interval", "max_edge_age")},
    "ASOINN": paper_setting("ASOINN", SOURCE),
}
#: the low and the high value of each parameter: the ends of the paper's grid where the usual value lies inside
#: it, else well beyond it (a tenth, ten times), so that each shows what the parameter does
VARIED = {
    "Fuzzy ART": {"vigilance": (0.5, 0.95)},
    "TCA": {"reconstruction_interval": (50, 5000), "sigma_init": (0.03, 0.5)},
    "CAEA": {"deletion_interval": (10, 500), "max_edge_age": (2, 400)},
    "GNG": {"insertion_interval": (10, 1000), "max_edge_age": (5, 500)},
    "ASOINN": {"deletion_interval": (50, 2500), "max_edge_age": (2, 100)},
}
#: where the usual values come from, in the table's setting column
_USUAL_WORDS = {"TCA": "the paper's", "CAEA": "the paper's", "ASOINN": "the paper's", "GNG": "Fritzke's"}
_FIXED = {"GNG": {"max_nodes": GNG_MAX_NODES}}

MERGE_WORDS = (
    "Merges: the true classes whose majority cluster (the cluster holding most of their points) is also another "
    "class's majority cluster — 0 when every class has a cluster of its own, 2 when two classes share one."
)


def _symbol(algorithm, name):
    return ALGORITHMS[algorithm].param(name).symbol


@dataclass(frozen=True)
class Setting:
    """One row of the lesson: an algorithm of the registry with its parameters.

    ``varies`` names the parameter this row sets apart from the usual ones (its argument name; "" for the usual
    row and for CAE and SOINN+), ``level`` is ``"low"``, ``"usual"``, ``"high"`` or ``"none"`` (no parameter).
    """

    algorithm: str
    params: dict[str, Any] = field(default_factory=dict)
    varies: str = ""
    level: str = "none"

    @property
    def shown(self):
        """The parameters this row names: the one it varies, or all of the usual row's."""
        names = [self.varies] if self.varies else list(USUAL.get(self.algorithm, {}))
        return {n: self.params[n] for n in names}

    @property
    def key(self):
        """Its name in the CSV and the sentences: ``"GNG λ = 10"``, ``"TCA λ = 500, σ_init = 0.1"``, ``"CAE"``."""
        vals = ", ".join(f"{_symbol(self.algorithm, n)} = {v:g}" for n, v in self.shown.items())
        return f"{self.algorithm} {vals}".strip()

    @property
    def role(self):
        """``"low"``, ``"high"``, ``"usual"`` (``"usual: the paper's"`` where the paper grid-searched it) or
        ``"no parameter"``."""
        if self.level == "none":
            return "no parameter"
        usual = _USUAL_WORDS.get(self.algorithm)
        return f"usual: {usual}" if self.level == "usual" and usual else self.level

    @property
    def label(self):
        """The table's setting column: ``"λ = 10 (low)"``, ``"λ = 500, σ_init = 0.1 (usual: the paper's)"``."""
        vals = self.key[len(self.algorithm) :].strip()
        return f"{vals or '—'} ({self.role})"

    def make(self):
        return ALGORITHMS[self.algorithm].make(**{**_FIXED.get(self.algorithm, {}), **self.params})


def _settings():
    out = []
    for algorithm in ("Fuzzy ART", "TCA", "CAEA", "CAE", "GNG", "ASOINN", "SOINN+"):
        usual = USUAL.get(algorithm)
        if usual is None:
            out.append(Setting(algorithm))
            continue
        rows = [Setting(algorithm, dict(usual), "", "usual")]
        for name, (low, high) in VARIED[algorithm].items():
            rows += [Setting(algorithm, {**usual, name: v}, name, level) for level, v in (("low", low), ("high", high))]
        if len(VARIED[algorithm]) == 1:  # one parameter: low, usual, high in that order
            rows = [rows[1], rows[0], rows[2]]
        out += rows
    return tuple(out)


#: the lesson's settings, in the table's order: the ART family, CAE, then the GNG family
SETTINGS = _settings()


def setting(key):
    """The setting called ``key`` (KeyError if there is none)."""
    for s in SETTINGS:
        if s.key == key:
            return s
    raise KeyError(f"no lineage setting {key!r}")


@dataclass(frozen=True)
class Step:
    """One step of the lineage: ``before`` → ``after`` in a ``family``, and what the step changed."""

    family: str
    before: str
    after: str
    change: str

    @property
    def key(self):
        return f"{self.before} → {self.after}"


#: the lineage's steps, as the paper tells them (§1-§3) and the reference code does them
STEPS = (
    Step(
        "ART",
        "Fuzzy ART",
        "TCA",
        "TCA keeps ART's vigilance test but measures similarity by CIM with a kernel bandwidth σ per node, whose "
        "mean σ̄ is the vigilance, and joins its winners by edges into a topology: ρ is gone; σ_init and the topology "
        "construction cycle λ are given (the paper grid-searches both).",
    ),
    Step(
        "ART",
        "TCA",
        "CAEA",
        "CAEA sets its threshold V from the pairwise CIM of λ/2 active nodes, ages its edges and deletes those older "
        "than a_max, and deletes isolated nodes every λ samples: σ_init is gone; λ and a_max are given "
        "(grid-searched).",
    ),
    Step(
        "ART",
        "CAEA",
        "CAE",
        "CAE estimates what CAEA is given: λ once, by the DPP diversity test (λ = 2K when det R < 1e−6), and a_max "
        "from the ages of s1's edges at every step; nothing is given.",
    ),
    Step(
        "GNG",
        "GNG",
        "ASOINN",
        "ASOINN inserts a node where a sample falls outside its two winners' similarity thresholds, not every λ "
        "samples: λ becomes the denoising cycle (nodes with at most one neighbour and few wins are deleted), a_max "
        "stays the edge-age limit; both are given (grid-searched).",
    ),
    Step(
        "GNG",
        "ASOINN",
        "SOINN+",
        "SOINN+ has no parameter: it deletes an edge of s1 older than a threshold estimated from the ages of its "
        "component's edges (p75 + 2·IQR), deletes isolated nodes by an estimated unutility, and a trust test "
        "decides whether it links its winners.",
    ),
    Step(
        "GNG",
        "SOINN+",
        "CAE",
        "CAE's a_max is SOINN+'s rule with two changes (paper §3): the IQR's coefficient is 1 instead of 2, and only "
        "s1's own edges count, not every edge reachable from s1.",
    ),
)


def step_of(key):
    """The step called ``key`` (``"TCA → CAEA"``; KeyError if there is none)."""
    for s in STEPS:
        if s.key == key:
            return s
    raise KeyError(f"no lineage step {key!r}")


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
    stream: str
    seed: int
    nmi: float
    ari: float
    n_clusters: int
    merges: int
    n_nodes: int
    on_noise: float
    n_edges: int
    edges_across: int
    small_clusters: int
    lam: float
    edges_deleted: float
    n_samples: int
    seconds: float


def _nearest(Y, X):
    """The index of each row of ``Y``'s nearest row of ``X`` (a k-d tree over ``X``)."""
    return cKDTree(X).query(Y)[1]


def _network_counts(model, stream):
    """nodes on noise, #edges, edges across classes, small clusters (see the module's docstring)."""
    Y = np.asarray(model.nodes_, float)
    if not len(Y):
        return 0.0, 0, 0, 0
    noise = stream.y == stream.noise_label if stream.noise_label is not None else np.zeros(len(stream.y), bool)
    on_noise = float(np.mean(noise[_nearest(Y, stream.X)]))
    cls = stream.y[~noise][_nearest(Y, stream.X[~noise])]
    E = np.asarray(getattr(model, "edges_", np.zeros((0, 2), int)), dtype=np.int64).reshape(-1, 2)
    across = int(np.sum(cls[E[:, 0]] != cls[E[:, 1]])) if len(E) else 0
    _, sizes = np.unique(np.asarray(model.node_labels_), return_counts=True)
    return on_noise, len(E), across, int(np.sum(sizes <= SMALL_CLUSTER))


def _stream(seed, n_per_class, stream_name):
    noise = STREAMS[stream_name]
    return make_stream(dict(source=SOURCE, n_per_class=int(n_per_class), noise=noise, seed=int(seed)))


def run_one(setting, seed, stream_name="noisy", n_per_class=N_PER_CLASS, stream=None):
    """Run ``setting`` over seed ``seed``'s stream ``stream_name`` (or the ``stream`` given) and score it."""
    t0 = time.perf_counter()
    stream = stream if stream is not None else _stream(seed, n_per_class, stream_name)
    model = setting.make()
    model.learn_many(stream.X)
    model.end_batch()
    n = len(stream.X)
    fitted = len(model.nodes_) > 0
    pred = model.predict(stream.X) if fitted else np.full(n, -1)
    clean = stream.y != stream.noise_label if stream.noise_label is not None else np.ones(n, bool)
    y, p = stream.y[clean], pred[clean]
    on_noise, n_edges, across, small = _network_counts(model, stream)
    lam = getattr(model, "deletion_interval_", None)
    deleted = getattr(model, "n_deleted_edges_", None)  # CAE and CAEA count the edges their a_max deleted
    return LineageRun(
        setting=setting.key,
        stream=stream_name,
        seed=int(seed),
        nmi=nmi(y, p),
        ari=ari(y, p),
        n_clusters=int(model.n_clusters_) if fitted else 0,
        merges=merged_classes(y, p),
        n_nodes=len(model.nodes_),
        on_noise=on_noise,
        n_edges=n_edges,
        edges_across=across,
        small_clusters=small,
        lam=float(lam) if lam is not None else float("nan"),
        edges_deleted=float(deleted) if deleted is not None else float("nan"),
        n_samples=n,
        seconds=time.perf_counter() - t0,
    )


def _run_seed(seed, n_per_class, settings, stop=None):
    """Every setting on both streams of one seed, one run after another (a generator: the job stops between
    runs)."""
    for name in STREAMS:
        stream = _stream(seed, n_per_class, name)
        for s in settings:
            if stop is not None and stop.is_set():
                return
            yield run_one(s, seed, name, stream=stream)


class LineageJob(SeedJob):
    """A background job: every setting on both streams over seeds 0 … N−1, seed by seed, in a thread (the kernels
    release the GIL). The page keeps it in its session, reads :attr:`runs` and :meth:`words` on each rerun, and may
    :meth:`cancel` it. Nothing here touches Streamlit.

    Examples
    --------
    >>> job = LineageJob(n_seeds=1, n_per_class=100, settings=SETTINGS[:2]).start()
    >>> job.wait(120), len(job.runs), job.words()
    (True, 4, 'Done: 2 settings on 2 streams over 1 seed (seed 0).')
    """

    thread_name = "cae-lineage"

    def __init__(self, n_seeds=5, n_per_class=N_PER_CLASS, settings=SETTINGS):
        super().__init__(n_seeds)
        self.n_per_class = int(n_per_class)
        self.settings = tuple(settings)
        self.runs: list[LineageRun] = []

    def _run_seed(self, seed):
        for run in _run_seed(seed, self.n_per_class, self.settings, self._stop):
            self.runs = self.runs + [run]  # a new list: never seen half-built

    @property
    def total(self):
        return len(self.seeds) * len(self.settings) * len(STREAMS)

    @property
    def fraction(self):
        """The share of the runs done."""
        return len(self.runs) / max(1, self.total)

    def words(self):
        """Where the job is, in a sentence."""
        done, total = len(self.runs), self.total
        if self.error:
            return f"Stopped by an error after {done} of {total} runs: {self.error}"
        if self.running:
            return f"{done} of {total} runs done — running seed {self.current}."
        if self.cancelled and done < total:
            return f"Stopped: {done} of {total} runs done."
        n = len(self.seeds)
        span = f"seed {self.seeds[0]}" if n == 1 else f"seeds {self.seeds[0]}–{self.seeds[-1]}"
        return (
            f"Done: {len(self.settings)} settings on {len(STREAMS)} streams over {n} seed{'s' if n != 1 else ''} "
            f"({span})."
        )


def run_all(n_seeds=10, n_per_class=N_PER_CLASS, settings=SETTINGS, progress=None):
    """Every setting on both streams over seeds 0 … ``n_seeds`` − 1, in this thread (what ``python -m
    cae.experiments lineage`` runs); ``progress(run)`` is called after each run."""
    runs = []
    for seed in range(int(n_seeds)):
        for run in _run_seed(seed, n_per_class, settings):
            runs.append(run)
            if progress is not None:
                progress(run)
    return runs


# ------------------------------------------------------------------ the table
#: the numbers of the table, per stream: (field, column name, digits)
_TABLE_FIELDS = (
    ("nmi", "NMI", 3),
    ("n_clusters", "#clusters", 1),
    ("n_nodes", "#nodes", 0),
    ("edges_across", "edges across classes", 1),
)
#: the table's columns (:func:`summary_table`): a column per number and stream
TABLE_COLUMNS = ["algorithm", "setting"] + [f"{name}, {s}" for _, name, _ in _TABLE_FIELDS for s in STREAMS]
#: the table's numbers, each with its streams (the grouped headings of the page's table)
TABLE_GROUPS = {name: list(STREAMS) for _, name, _ in _TABLE_FIELDS}


def _values(runs, key, stream, name):
    return np.array([getattr(r, name) for r in runs if r.setting == key and r.stream == stream], dtype=float)


def _pm(v, digits):
    if not len(v):
        return "—"
    sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
    return f"{v.mean():.{digits}f} ± {sd:.{digits}f}"


def _with_runs(runs, settings=SETTINGS):
    keys = {r.setting for r in runs}
    return [s for s in settings if s.key in keys]


def summary_table(runs, settings=SETTINGS):
    """Per setting (in the lesson's order; those with runs): NMI, #clusters, #nodes and edges across classes on
    each stream, as mean ± sd over the seeds run (:data:`TABLE_COLUMNS`)."""
    rows = []
    for s in _with_runs(runs, settings):
        row = {"algorithm": s.algorithm, "setting": s.label}
        for name, column, digits in _TABLE_FIELDS:
            for stream in STREAMS:
                row[f"{column}, {stream}"] = _pm(_values(runs, s.key, stream, name), digits)
        rows.append(row)
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


# ------------------------------------------------------------------ the sentences
@dataclass(frozen=True)
class Quote:
    """A number a sentence quotes: the mean of ``field`` over the runs of ``setting`` on ``stream``, as ``text``."""

    setting: str
    stream: str
    field: str
    text: str


#: how a sentence writes each number (the mean over the seeds): digits, or "%" for a share
_DIGITS = {"nmi": 3, "ari": 3, "n_clusters": 1, "merges": 1, "n_nodes": 0, "n_edges": 0, "edges_across": 1}
_DIGITS.update({"small_clusters": 1, "on_noise": "%", "lam": 0, "edges_deleted": 1})


def _quote(runs, s, stream, name):
    v = _values(runs, s.key, stream, name)
    digits = _DIGITS[name]
    m = float(np.nanmean(v)) if len(v) and not np.all(np.isnan(v)) else float("nan")
    text = f"{m:.0%}" if digits == "%" else f"{m:,.{digits}f}"
    return Quote(s.key, stream, name, text)


#: what each parameter is, per algorithm (checked against the paper and the reference code; see docs/algorithms.md)
MEANINGS = {
    (
        "Fuzzy ART",
        "vigilance",
    ): "ρ is Fuzzy ART's vigilance: a category learns a sample when |I ∧ w|/|I| ≥ ρ, in 2-D when "
    "its box, stretched to hold the sample, has sides summing to at most 2 (1 − ρ)",
    ("TCA", "reconstruction_interval"): "λ is TCA's topology construction cycle: every λ samples it deletes the nodes "
    "without edges, the unreliable nodes (ErrCIM > 2σ̄) and crossing edges",
    ("TCA", "sigma_init"): "σ_init is TCA's initial kernel bandwidth: every node's σ stays between 0.5 and 1.5 σ_init, "
    "and their mean σ̄ is both the winner search's bandwidth and the vigilance threshold",
    ("CAEA", "deletion_interval"): "λ is given to CAEA: λ/2 active nodes set the threshold V (the mean of their "
    "smallest pairwise CIM), and isolated nodes are deleted every λ samples",
    ("CAEA", "max_edge_age"): "a_max is given to CAEA: an edge of s1 older than a_max is deleted",
    ("GNG", "insertion_interval"): "λ is GNG's insertion interval: a node goes in beside the node of largest error "
    "every λ signals after the two start nodes, while there are fewer than n_max = 1,000",
    ("GNG", "max_edge_age"): "a_max is GNG's edge-age limit: an edge of s1 older than a_max is removed, with a node it "
    "leaves without edges",
    ("ASOINN", "deletion_interval"): "λ is ASOINN's denoising cycle: every λ samples the nodes with at most one "
    "neighbour and fewer wins than the mean are deleted",
    ("ASOINN", "max_edge_age"): "a_max is ASOINN's maximum edge age: an edge of s1 older than a_max is removed (never "
    "a node)",
    ("CAE", ""): "no parameter: λ is estimated once by the DPP diversity test, V from the pairwise CIM of the λ/2 "
    "active nodes, a_max from the ages of s1's edges and of the edges deleted before (q3 + 1·IQR, after SOINN+)",
    ("SOINN+", ""): "no parameter: an edge of s1 goes when older than a threshold estimated from the ages of its "
    "component's edges and of the edges deleted before (p75 + 2·IQR), an isolated node by an estimated unutility, "
    "and a trust test decides whether the winners are linked",
}


def _meaning(s):
    if s.level == "none":
        return MEANINGS[(s.algorithm, "")]
    names = [s.varies] if s.varies else list(s.params)
    return "; ".join(MEANINGS[(s.algorithm, n)] for n in names)


def _numbers(runs, s, stream, with_noise):
    """The numbers of one stream, as (text, quotes)."""
    q = {name: _quote(runs, s, stream, name) for name in _DIGITS}
    if s.algorithm == "Fuzzy ART":
        parts = [
            f"NMI {q['nmi'].text}",
            f"{q['n_clusters'].text} categories for 6 classes",
            f"{q['merges'].text} classes merged",
        ]
        used = ["nmi", "n_clusters", "merges"]
    else:
        parts = [f"NMI {q['nmi'].text}", f"{q['n_clusters'].text} clusters"]
        parts += [f"{q['edges_across'].text} of {q['n_edges'].text} edges across classes", f"{q['n_nodes'].text} nodes"]
        used = ["nmi", "n_clusters", "edges_across", "n_edges", "n_nodes"]
        if with_noise:
            parts[-1] += f" ({q['on_noise'].text} on the noise)"
            used.append("on_noise")
        if s.algorithm in ("CAE", "CAEA"):
            parts.append(f"{q['edges_deleted'].text} edges deleted by age")
            used.append("edges_deleted")
    return ", ".join(parts), [q[u] for u in used]


def _extra(runs, s):
    """What a row adds to its numbers: CAE's estimated λ and small clusters, SOINN+'s small clusters, the
    reason Fuzzy ART's boxes score as they do, why GNG's noisy stream is one component."""
    if s.algorithm in ("CAE", "SOINN+"):
        q = [_quote(runs, s, stream, "small_clusters") for stream in STREAMS]
        text = f"; {q[0].text} (noisy) and {q[1].text} (noise-free) clusters of at most {SMALL_CLUSTER} nodes"
        if s.algorithm == "CAE":
            lam = [_quote(runs, s, stream, "lam") for stream in STREAMS]
            text = f"; λ estimated at {lam[0].text} (noisy) and {lam[1].text} (noise-free)" + text
            q = lam + q
        return text, q
    if s.algorithm == "Fuzzy ART" and s.level != "usual":
        return "; NMI counts a class split over many boxes against a model, as it counts merged classes", []
    if s.algorithm == "GNG":
        return "; every sample, noise too, links its two nearest nodes", []
    return "", []


def sentence_quotes(s, runs):
    """The sentence of setting ``s`` and the :class:`Quote` of every number it takes from the runs."""
    if not any(r.setting == s.key for r in runs):
        return "", []
    noisy, q1 = _numbers(runs, s, "noisy", True)
    clean, q2 = _numbers(runs, s, "noise-free", False)
    extra, q3 = _extra(runs, s)
    head = s.key if s.level == "none" else f"{s.key} ({s.level})"
    text = f"{head}: {_meaning(s)} — noisy stream: {noisy}; noise-free: {clean}{extra}."
    return text, q1 + q2 + q3


def setting_sentence(s, runs):
    """One sentence (plain text, Markdown-safe) on setting ``s``: what its parameter is and what the runs show."""
    return sentence_quotes(s, runs)[0]


def sentences(runs, settings=SETTINGS):
    """``[(setting, sentence)]`` for every setting with runs, in the table's order."""
    return [(s, setting_sentence(s, runs)) for s in _with_runs(runs, settings)]


# ------------------------------------------------------------------ the pictures
def models_at(step, seed=0, n_per_class=N_PER_CLASS, stream_name="noisy", settings=None):
    """Each setting's model after the first ``step`` samples of seed ``seed``'s stream, for drawing side by side.

    Returns ``(stream, [(setting, model, record of the last step or None)])``; ``step`` is clamped to
    0 … the stream's length. ``settings`` defaults to the usual setting of each algorithm.
    """
    stream = _stream(seed, n_per_class, stream_name)
    step = int(min(max(int(step), 0), len(stream.X)))
    if settings is None:
        settings = [s for s in SETTINGS if s.level in ("usual", "none")]
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


def usual_setting(algorithm):
    """The usual setting of ``algorithm`` (its only one for CAE and SOINN+)."""
    return next(s for s in SETTINGS if s.algorithm == algorithm and s.level in ("usual", "none"))


# ------------------------------------------------------------------ files
def write_runs(runs, path):
    """The runs, one row each, as CSV (the numbers :func:`markdown` and the sentences read back)."""
    pd.DataFrame([asdict(r) for r in runs]).to_csv(path, index=False)


def read_runs(path):
    """The runs of a CSV written by :func:`write_runs`; ValueError if it is not one (an older lesson's file)."""
    df = pd.read_csv(path)
    names = [f.name for f in fields(LineageRun)]
    missing = [n for n in names if n not in df.columns]
    if missing:
        raise ValueError(
            f"{path} is not this lesson's file (no column {', '.join(missing)}): run `python -m cae.experiments "
            "lineage` to write it again"
        )
    return [
        LineageRun(**{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()})
        for row in df[names].to_dict("records")
    ]


def markdown(runs, settings=SETTINGS):
    """The lesson's table (mean ± sd over the seeds) and one sentence per setting, as Markdown: the block of
    docs/algorithms.md that ``python -m cae.experiments lineage --markdown`` prints."""
    table = summary_table(runs, settings)
    lines = ["| " + " | ".join(table.columns) + " |", "|" + " --- |" * len(table.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in table.itertuples(index=False)]
    seeds = sorted({r.seed for r in runs})
    n = {name: max((r.n_samples for r in runs if r.stream == name), default=0) for name in STREAMS}
    lines += [
        "",
        f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''}; {n['noisy']:,} samples a run on the noisy stream (the "
        f"paper's 2-D stream #1 → #6 with {STREAMS['noisy']:.0%} uniform noise, learned but not scored), "
        f"{n['noise-free']:,} on the noise-free one. {MERGE_WORDS}",
        "",
    ]
    lines += [f"- {text}" for _, text in sentences(runs, settings)]
    return "\n".join(lines) + "\n"

"""The *Lineage* lesson's runs: each parameter of the paper's two families shown doing what it does, in numbers.

The lesson itself — the families as the paper draws them, every arrow with its source, the seven steps and what the
paper says where the reference code does otherwise — is :mod:`cae.app.lineage_lesson`. Here are its runs:
:data:`SETTINGS` vary every parameter of the line (ρ, λ, a_max, σ_init) at a low value, the usual one (:data:`USUAL`:
the paper's grid-searched values for its 2-D stream where it has them, else the algorithm's common default) and a
high one, one parameter at a time; CAE and SOINN+ have none. Each setting runs on two streams (:data:`STREAMS`): the
app's copy of the paper's 2-D stream #1 → #6 (1,500 points per distribution; the paper has 15,000) with its 10 %
uniform noise, and the same stream without noise, where topology is the point — so that every algorithm is seen
where it works and where it fails — over seeds 0 … N−1 (:func:`run_all`, or :class:`LineageJob` in the background).

A teacher reads the numbers out (:func:`say`): the value every seed has; else a score's or a share's mean, where the
seeds spread no wider than it; else the median and the range — a count stays a count, and no sentence reads the mean
of a column whose seeds spread wider than the mean (:func:`is_wide`). :func:`summary_table` gives the table in the same way (:func:`cell`) and :func:`setting_sentence`
one sentence per row, whose every number is a :class:`Quote` of the runs (:func:`sentence_quotes`) that the tests
read back from the CSV.

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
    "MERGE_WORDS",
    "merged_classes",
    "LineageRun",
    "run_one",
    "LineageJob",
    "run_all",
    "TABLE_COLUMNS",
    "TABLE_GROUPS",
    "TABLE_WORDS",
    "by_seed",
    "spread",
    "is_wide",
    "statistic",
    "number_text",
    "Quote",
    "quote",
    "say",
    "cell",
    "summary_table",
    "MEANINGS",
    "meaning",
    "meanings",
    "sentence_quotes",
    "setting_sentence",
    "sentences",
    "models_at",
    "usual_setting",
    "write_runs",
    "read_runs",
    "markdown_table",
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
_USUAL_WORDS = {
    "TCA": "the paper's grid search",
    "CAEA": "the paper's grid search",
    "ASOINN": "the paper's grid search",
    "GNG": "Fritzke 1995",
    "Fuzzy ART": "the app's default",
}
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
        """``"low"``, ``"high"``, ``"usual: …"`` (where the usual value comes from: ``"usual: the paper's grid
        search"`` where the paper's experiments searched it) or ``"no parameter"``."""
        if self.level == "none":
            return "no parameter"
        usual = _USUAL_WORDS.get(self.algorithm)
        return f"usual: {usual}" if self.level == "usual" and usual else self.level

    @property
    def label(self):
        """The table's setting column: ``"λ = 10 (low)"``, ``"λ = 500, σ_init = 0.1 (usual: the paper's grid search)"``."""
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


# ------------------------------------------------------------------ the numbers: what a teacher reads out
#: the score columns (written with 3 digits) and the share column (a percentage); every other column is a count
_SCORES = ("nmi", "ari")
_SHARES = ("on_noise",)


def by_seed(runs, key, stream, name):
    """``{seed: value}`` of column ``name`` over the runs of setting ``key`` on ``stream``, in seed order (a NaN, a
    quantity the run does not have, left out)."""
    out = {
        r.seed: float(getattr(r, name))
        for r in runs
        if r.setting == key and r.stream == stream and not np.isnan(float(getattr(r, name)))
    }
    return dict(sorted(out.items()))


def spread(values):
    """How far the seeds spread: the highest value less the lowest (0 for fewer than two)."""
    v = np.asarray(list(values), dtype=float)
    return float(v.max() - v.min()) if len(v) else 0.0


def is_wide(values):
    """Whether a column's seeds spread wider than its mean (max − min > |mean|): its mean is no number to read out,
    its median and range are."""
    v = np.asarray(list(values), dtype=float)
    return bool(len(v) and spread(v) > abs(float(v.mean())))


def statistic(values_by_seed, stat, seed=None):
    """``stat`` of a column's values: ``"mean"``, ``"median"``, ``"min"``, ``"max"``, ``"all"`` (the one value every
    seed has) or ``"seed"`` (seed ``seed``'s value)."""
    v = np.asarray(list(values_by_seed.values()), dtype=float)
    if stat == "seed":
        return float(values_by_seed[seed])
    if stat == "all":
        if spread(v):
            raise ValueError("the seeds differ: no one value for all")
        return float(v[0])
    return float({"mean": np.mean, "median": np.median, "min": np.min, "max": np.max}[stat](v))


def number_text(name, stat, value):
    """A number as a sentence writes it: a score with 3 digits, a share as a percentage, a count's mean with one
    decimal (as the paper's tables write #nodes), any other count as a whole number (a median of an even number of
    seeds may end in .5)."""
    if name in _SCORES:
        return f"{value:.3f}"
    if name in _SHARES:
        return f"{value:.0%}"
    if stat == "mean" or not float(value).is_integer():
        return f"{value:,.1f}"
    return f"{value:,.0f}"


@dataclass(frozen=True)
class Quote:
    """A number a sentence quotes, and what it is: ``stat`` (see :func:`statistic`) of column ``field`` over the runs
    of ``setting`` on ``stream`` (``seed``: the seed a ``"seed"`` quote reads), written as ``text``."""

    setting: str
    stream: str
    field: str
    text: str
    stat: str = "mean"
    seed: int = -1


def quote(runs, key, stream, name, stat, seed=-1):
    """The :class:`Quote` of one number of the runs."""
    value = statistic(by_seed(runs, key, stream, name), stat, seed)
    return Quote(key, stream, name, number_text(name, stat, value), stat, int(seed))


def say(runs, key, stream, name, unit=("", "")):
    """One column of one setting and stream as a teacher reads it out, ``(text, quotes)``: the value every seed has;
    else, where the seeds spread no wider than the mean, a score's or a share's mean and a count's range (``"7–11
    clusters"``: a count stays a count); else the median and the range (``"median 2 clusters (1–105)"``).
    ``unit``: (singular, plural) after the number; ``("—", [])`` when the runs have none."""
    v = by_seed(runs, key, stream, name)
    if not v:
        return "—", []
    if not spread(v.values()):
        q = quote(runs, key, stream, name, "all")
        return f"{q.text} {unit[0] if q.text == '1' else unit[1]}".strip(), [q]
    if not is_wide(v.values()):
        if name in _SCORES + _SHARES:
            q = quote(runs, key, stream, name, "mean")
            return f"{q.text} {unit[1]}".strip(), [q]
        lo, hi = (quote(runs, key, stream, name, stat) for stat in ("min", "max"))
        return f"{lo.text}–{hi.text} {unit[1]}".strip(), [lo, hi]
    med, lo, hi = (quote(runs, key, stream, name, stat) for stat in ("median", "min", "max"))
    word = unit[0] if med.text == "1" else unit[1]
    return f"median {med.text} {word}".rstrip() + f" ({lo.text}–{hi.text})", [med, lo, hi]


# ------------------------------------------------------------------ the table
#: the numbers of the table, per stream: (field, column name)
_TABLE_FIELDS = (
    ("nmi", "NMI"),
    ("n_clusters", "#clusters"),
    ("n_nodes", "#nodes"),
    ("edges_across", "edges across classes"),
)
#: the table's columns (:func:`summary_table`): a column per number and stream
TABLE_COLUMNS = ["algorithm", "setting"] + [f"{name}, {s}" for _, name in _TABLE_FIELDS for s in STREAMS]
#: the table's numbers, each with its streams (the grouped headings of the page's table)
TABLE_GROUPS = {name: list(STREAMS) for _, name in _TABLE_FIELDS}
#: how to read a cell of the table
TABLE_WORDS = (
    "A cell is the mean ± sd over the seeds, or the median [lowest–highest] where the seeds spread wider than the "
    "mean, or the one value every seed has."
)


def _values(runs, key, stream, name):
    return np.array([getattr(r, name) for r in runs if r.setting == key and r.stream == stream], dtype=float)


def cell(values, name):
    """A cell of the table: the value every seed has (``"6"``), ``"0.978 ± 0.021"`` (mean ± sd), ``"2 [1–105]"``
    (median [range], where the seeds spread wider than the mean; :func:`is_wide`), ``"—"`` for none.

    >>> cell([0.5, 0.7], "nmi"), cell([105, 3, 2, 2, 1], "n_clusters"), cell([6, 6], "n_clusters")
    ('0.600 ± 0.141', '2 [1–105]', '6')
    """
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if not len(v):
        return "—"
    if not spread(v):
        return number_text(name, "all", float(v[0]))
    if is_wide(v):
        med, lo, hi = (number_text(name, "median", f(v)) for f in (np.median, np.min, np.max))
        return f"{med} [{lo}–{hi}]"
    sd = float(v.std(ddof=1)) if len(v) > 1 else 0.0
    digits = 3 if name in _SCORES else 1 if name != "n_nodes" else 0
    return f"{v.mean():.{digits}f} ± {sd:.{digits}f}"


def _with_runs(runs, settings=SETTINGS):
    keys = {r.setting for r in runs}
    return [s for s in settings if s.key in keys]


def summary_table(runs, settings=SETTINGS):
    """Per setting (in the lesson's order; those with runs): NMI, #clusters, #nodes and edges across classes on
    each stream, each a :func:`cell` over the seeds run (:data:`TABLE_COLUMNS`)."""
    rows = []
    for s in _with_runs(runs, settings):
        row = {"algorithm": s.algorithm, "setting": s.label}
        for name, column in _TABLE_FIELDS:
            for stream in STREAMS:
                row[f"{column}, {stream}"] = cell(_values(runs, s.key, stream, name), name)
        rows.append(row)
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


# ------------------------------------------------------------------ the rows' sentences
#: what each parameter is, per algorithm (checked against the paper, the specification and the reference code; see
#: docs/algorithms.md). Where the paper's text and the code differ, both are said.
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
    ("CAEA", "deletion_interval"): "λ is given to CAEA: its active nodes set the threshold V (the mean of their "
    "smallest pairwise CIM) — λ/2 of them in the code and in the paper's Algorithms 1–2, λ in its notation table "
    "[ref] — and isolated nodes are deleted every λ samples",
    ("CAEA", "max_edge_age"): "a_max is given to CAEA: an edge of s1 older than a_max is deleted",
    ("GNG", "insertion_interval"): "λ is GNG's insertion interval: a node goes in beside the node of largest error "
    "every λ signals after the two start nodes, while there are fewer than n_max = 1,000",
    ("GNG", "max_edge_age"): "a_max is GNG's edge-age limit: an edge of s1 older than a_max is removed, with a node it "
    "leaves without edges",
    ("ASOINN", "deletion_interval"): "λ is ASOINN's denoising cycle: every λ samples the nodes with at most one "
    "neighbour and fewer wins than the mean are deleted",
    ("ASOINN", "max_edge_age"): "a_max is ASOINN's maximum edge age: an edge of s1 older than a_max is removed (never "
    "a node)",
    ("CAE", ""): "no parameter: λ is estimated by the DPP diversity test (once in the code; the paper computes it "
    "again after deletions [ref]), V from the pairwise CIM of the active nodes, a_max from the ages of s1's edges and "
    "of the edges deleted before (the code's Tukey hinges q3 + 1·(q3 − q1) where the paper writes the 75th "
    "percentile [ref])",
    ("SOINN+", ""): "no parameter: an edge of s1 goes when older than a threshold estimated from the ages of its "
    "component's edges and of the edges deleted before (p75 + 2·IQR), an isolated node by an estimated unutility, "
    "and a trust test decides whether the winners are linked",
}


def meaning(s):
    """What the parameter a setting varies is (all of its usual row's; CAE's and SOINN+'s estimates)."""
    if s.level == "none":
        return MEANINGS[(s.algorithm, "")]
    names = [s.varies] if s.varies else list(s.params)
    return "; ".join(MEANINGS[(s.algorithm, n)] for n in names)


def meanings(settings):
    """``[(head, text)]``: each parameter the ``settings`` vary (and CAE's and SOINN+'s estimates), once."""
    out = {}
    for s in settings:
        names = [""] if s.level == "none" else list(USUAL.get(s.algorithm, {}))
        for n in names:
            head = s.algorithm if not n else f"{s.algorithm} {_symbol(s.algorithm, n)}"
            out.setdefault(head, MEANINGS[(s.algorithm, n)])
    return list(out.items())


def _numbers(runs, s, stream, with_noise):
    """The numbers of one stream, as (text, quotes)."""
    parts, quotes = [], []

    def add(text, qs):
        parts.append(text)
        quotes.extend(qs)

    k = s.key
    text, q = say(runs, k, stream, "nmi")
    add(f"NMI {text}", q)
    if s.algorithm == "Fuzzy ART":
        add(*say(runs, k, stream, "n_clusters", ("category", "categories")))
        parts[-1] += " for 6 classes"
        add(*say(runs, k, stream, "merges", ("class merged", "classes merged")))
        return ", ".join(parts), quotes
    add(*say(runs, k, stream, "n_clusters", ("cluster", "clusters")))
    across, qa = say(runs, k, stream, "edges_across", ("edge across classes", "edges across classes"))
    edges, qe = say(runs, k, stream, "n_edges", ("edge", "edges"))
    add(f"{across} (of {edges})", qa + qe)
    add(*say(runs, k, stream, "n_nodes", ("node", "nodes")))
    if with_noise:
        noise, qn = say(runs, k, stream, "on_noise")
        parts[-1] += f" ({noise} on the noise)"
        quotes.extend(qn)
    if s.algorithm in ("CAE", "CAEA"):
        add(*say(runs, k, stream, "edges_deleted", ("edge deleted by age", "edges deleted by age")))
    return ", ".join(parts), quotes


def _extra(runs, s):
    """What a row adds to its numbers: CAE's estimated λ (its range: step 3 lists every seed) and small clusters,
    SOINN+'s small clusters, the reason Fuzzy ART's boxes score as they do, why GNG's noisy stream is one component."""
    if s.algorithm in ("CAE", "SOINN+"):
        texts, quotes = [], []
        for stream in STREAMS:
            t, q = say(runs, s.key, stream, "small_clusters")
            texts.append(f"{t} ({stream})")
            quotes += q
        text = f"; clusters of at most {SMALL_CLUSTER} nodes: " + " and ".join(texts)
        if s.algorithm == "CAE" and all(by_seed(runs, s.key, stream, "lam") for stream in STREAMS):
            lam = [[quote(runs, s.key, stream, "lam", stat) for stat in ("min", "max")] for stream in STREAMS]
            text = (
                f"; λ estimated between {lam[0][0].text} and {lam[0][1].text} (noisy) and between {lam[1][0].text} "
                f"and {lam[1][1].text} (noise-free) — every seed's in step 3" + text
            )
            quotes = lam[0] + lam[1] + quotes
        return text, quotes
    if s.algorithm == "Fuzzy ART" and s.level != "usual":
        return "; NMI counts a class split over many boxes against a model, as it counts merged classes", []
    if s.algorithm == "GNG":
        return "; every sample, noise too, links its two nearest nodes", []
    return "", []


def sentence_quotes(s, runs):
    """The sentence of setting ``s`` (its numbers on both streams) and the :class:`Quote` of every number it takes
    from the runs. What its parameter is, is :func:`meaning`."""
    if not any(r.setting == s.key for r in runs):
        return "", []
    noisy, q1 = _numbers(runs, s, "noisy", True)
    clean, q2 = _numbers(runs, s, "noise-free", False)
    extra, q3 = _extra(runs, s)
    head = s.key if s.level == "none" else f"{s.key} ({s.level})"
    return f"{head} — noisy stream: {noisy}; noise-free: {clean}{extra}.", q1 + q2 + q3


def setting_sentence(s, runs):
    """One sentence (plain text, Markdown-safe) on setting ``s``: what the runs show on both streams."""
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


def markdown_table(runs, settings=SETTINGS):
    """The table, what each parameter is and one sentence per setting, as Markdown (the part of the lesson's
    Markdown, :func:`cae.app.lineage_lesson.markdown`, that is the runs')."""
    table = summary_table(runs, settings)
    lines = ["| " + " | ".join(table.columns) + " |", "|" + " --- |" * len(table.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in table.itertuples(index=False)]
    seeds = sorted({r.seed for r in runs})
    n = {name: max((r.n_samples for r in runs if r.stream == name), default=0) for name in STREAMS}
    lines += [
        "",
        f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''}; {n['noisy']:,} samples a run on the noisy stream (the "
        f"app's copy of the paper's 2-D stream #1 → #6, {n['noise-free'] // 6:,} points per distribution, with "
        f"{STREAMS['noisy']:.0%} uniform noise, learned but not scored), {n['noise-free']:,} on the noise-free one. "
        f"{TABLE_WORDS} {MERGE_WORDS}",
        "",
    ]
    lines += [f"- **{head}**: {text}." for head, text in meanings(_with_runs(runs, settings))]
    lines += [""] + [f"- {text}" for _, text in sentences(runs, settings)]
    return "\n".join(lines) + "\n"

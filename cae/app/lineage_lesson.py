"""The *Lineage* lesson as the paper tells it: the two families with every arrow's source, seven steps a teacher gives
in ten minutes, and what the paper says wherever the reference code does otherwise.

The families as the CAE paper (Masuyama et al. 2026; sections numbered as in its LaTeX source) draws them:

* **ART-based** (§5.1: "TCA, CAEA, and CAE are ART-based algorithms") — Fuzzy ART, the classic ART (Carpenter,
  Grossberg & Rosen 1991; the paper cites ART as [carpenter88, carpenter91b] and runs no Fuzzy ART) → the CIM-based
  ARTs (§1: CIM, "a notable development"): TCA [masuyama19b] and CAEA [masuyama22a], side by side — the paper draws no
  line from one to the other → CAE, which "is an extension of CAEA" (§4.1);
* **GNG-based** (§5.1: "ASOINN and SOINN+ are GNG-based algorithms") — GNG [fritzke95] → SOINN [furao06] (not in the
  registry: drawn, with what it added) → ASOINN, "Adjusted SOINN" [shen08] (§1) → SOINN+ [wiwatcharakoses20], "an
  ASOINN-based algorithm" (§2), whose edge deletion inspired CAE's a_max (§1, §4.7).

:data:`LINKS` and :data:`GROUPS` are those arrows and groupings, each with its :class:`Source` (the paper's section
and its words, or the publication it cites). :data:`STEPS` are the lesson's seven steps: what each says (every
claim with its source), the two networks it draws, the table's rows it shows, and its numbers
(:func:`step_quotes`: every number a :class:`~cae.app.lineage.Quote` of the runs, read out as
:func:`cae.app.lineage.say` does). :data:`NOTES` say, beside a quantity, what the paper says and what the code does
where the two differ (the [ref] points of the specification and of docs/cae-algorithm.md). No box or sentence states
as an algorithm's property what is an experiment's choice: a parameter is "given" (by the user); "grid-searched" is
how the paper's experiments set it.

Examples
--------
>>> [s.title for s in STEPS][:3]
['Fuzzy ART → CIM-based ART', 'TCA · CAEA', 'CAEA → CAE']
>>> link("ASOINN", "SOINN+").source.quote
'an ASOINN-based algorithm'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from .lineage import SETTINGS, STREAMS, Quote, by_seed, markdown_table, quote, say, statistic, usual_setting

__all__ = [
    "Source",
    "Link",
    "Group",
    "LINKS",
    "GROUPS",
    "link",
    "FAMILY_WORDS",
    "Note",
    "NOTES",
    "Step",
    "STEPS",
    "step_quotes",
    "step_text",
    "notes_text",
    "heading",
    "step_words",
    "step_settings",
    "lam_per_seed",
    "step_markdown",
    "markdown",
    "MAX_WORDS",
]

#: the most words a step may take (its sentence, its numbers and its paper-says/code-does notes): ten minutes for
#: seven steps
MAX_WORDS = 150


@dataclass(frozen=True)
class Source:
    """Where a claim comes from: ``where`` is a section of the paper (``"§4.1"``, as its LaTeX numbers them) or a
    publication (``"[furao06]"``, the key the paper cites it by); ``quote`` the paper's own words there (``""`` for a
    publication)."""

    where: str
    quote: str = ""

    @property
    def in_paper(self):
        return self.where.startswith("§")


@dataclass(frozen=True)
class Link:
    """An arrow of the lineage: ``a`` → ``b``, what it says (``words``) and its source; ``dashed``: an idea taken,
    not an algorithm extended."""

    a: str
    b: str
    words: str
    source: Source
    dashed: bool = False


@dataclass(frozen=True)
class Group:
    """A grouping the paper makes: ``name``, its ``members`` and its source."""

    name: str
    members: tuple[str, ...]
    source: Source


#: the lineage's arrows, as the paper (or the publication it cites) draws them
LINKS = (
    Link("Fuzzy ART", "CIM-based ART", "CIM", Source("§1", "A notable development is the use of the Correntropy")),
    Link("CAEA", "CAE", "extension", Source("§4.1", "The proposed CAE algorithm is an extension of CAEA")),
    Link("GNG", "SOINN", "", Source("[furao06]")),
    Link("SOINN", "ASOINN", "adjusted", Source("§1", "Adjusted SOINN (ASOINN)")),
    Link("ASOINN", "SOINN+", "based on", Source("§2", "an ASOINN-based algorithm")),
    Link(
        "SOINN+",
        "CAE",
        "its a_max",
        Source("§4.7", "inspired by the edge deletion mechanism of SOINN+"),
        dashed=True,
    ),
)
#: the groupings the paper makes
GROUPS = (
    Group("ART-based", ("TCA", "CAEA", "CAE"), Source("§5.1", "TCA, CAEA, and CAE are ART-based algorithms")),
    Group("CIM-based ART", ("TCA", "CAEA"), Source("§1", "algorithms employing CIM")),
    Group("GNG-based", ("ASOINN", "SOINN+"), Source("§5.1", "ASOINN and SOINN+ are GNG-based algorithms")),
)
#: the families in words (the diagram's text for a screen reader, and the docs)
FAMILY_WORDS = (
    "The ART-based family (§5.1): Fuzzy ART, the classic ART; then, with CIM (§1), TCA and CAEA, two CIM-based ARTs "
    "side by side; then CAE, an extension of CAEA (§4.1). The GNG-based family (§5.1): GNG, then SOINN [furao06], then "
    "ASOINN, Adjusted SOINN (§1), then SOINN+, an ASOINN-based algorithm (§2), whose edge deletion inspired CAE's "
    "a_max (§4.7)."
)


def link(a, b):
    """The arrow ``a`` → ``b`` (KeyError if the lineage has none)."""
    for x in LINKS:
        if (x.a, x.b) == (a, b):
            return x
    raise KeyError(f"no arrow {a} → {b}")


# ------------------------------------------------------------------ paper says / code does
@dataclass(frozen=True)
class Note:
    """A quantity where the paper's text and the authors' code (which produced the paper's numbers, and which the
    app follows) differ: what each says. ``source``: the paper's words; ``doc``: the words of docs/cae-algorithm.md
    that mark the point [ref]."""

    quantity: str
    paper: str
    code: str
    source: Source
    doc: str


#: the [ref] points the lesson touches (the project's specification marks them, and docs/cae-algorithm.md)
NOTES = {
    "active": Note(
        "nodes that set V",
        "λ (notation table, §4.3)",
        "λ/2 (as in Algorithms 1–2)",
        Source("§4.1", "number of active nodes"),
        "**n_active = λ/2** **[ref]**",
    ),
    "again": Note(
        "λ after deletions",
        "“calculated again” (§4.2)",
        "never",
        Source("§4.2", "is calculated again"),
        "λ is estimated once and **never re-estimated** **[ref]**",
    ),
    "k10": Note(
        "the DPP test",
        "from any K (Algorithm 2)",
        "from K = 10",
        Source("§4.2", "the value of $\\lambda$ is set as twice the number of nodes"),
        "When D < 1e−6 **and K ≥ 10** **[ref]**",
    ),
    "hinges": Note(
        "a_thr",
        "75th percentile + IQR (§4.7)",
        "Tukey's upper hinge q3 + (q3 − q1)",
        Source("§4.7", "the 75th percentile"),
        "The quartiles are **Tukey's hinges**, not percentiles **[ref]**",
    ),
    "when": Note(
        "a_max updated",
        "at every learning step (Algorithm 1)",
        "in Cases II and III only",
        Source("§4.1", "Estimate an edge deletion threshold"),
        "Right after, still only in Cases II and III **[ref]**",
    ),
}


def notes_text(keys):
    """The paper-says/code-does line of ``keys`` (:data:`NOTES`), ``""`` for none."""
    if not keys:
        return ""
    parts = [f"{NOTES[k].quantity}: paper {NOTES[k].paper}, code {NOTES[k].code}" for k in keys]
    return "Paper says / code does ([ref], docs/cae-algorithm.md): " + "; ".join(parts) + "."


# ------------------------------------------------------------------ the steps
class _Numbers:
    """What a step's numbers sentence is written with: the runs, and every :class:`Quote` it took."""

    def __init__(self, runs):
        self.runs = runs
        self.quotes: list[Quote] = []

    def say(self, algorithm_or_key, stream, name, unit=("", "")):
        key = _key(algorithm_or_key)
        text, q = say(self.runs, key, stream, name, unit)
        self.quotes += q
        return text

    def q(self, algorithm_or_key, stream, name, stat, seed=-1):
        got = quote(self.runs, _key(algorithm_or_key), stream, name, stat, seed)
        self.quotes.append(got)
        return got.text

    def typical(self, algorithm_or_key, stream, name):
        """``(text, value)`` of the number :func:`~cae.app.lineage.say` reads out first (the value every seed has,
        the mean, or the median), for comparing; nothing is recorded."""
        key = _key(algorithm_or_key)
        _, q = say(self.runs, key, stream, name)
        if not q:
            return "", float("nan")
        return q[0].text, statistic(by_seed(self.runs, key, stream, name), q[0].stat)


def _key(algorithm_or_key):
    """A setting's key from an algorithm's name (its usual setting) or the key itself."""
    return (
        usual_setting(algorithm_or_key).key if algorithm_or_key in {s.algorithm for s in SETTINGS} else algorithm_or_key
    )


def _has(runs, *names):
    keys = {r.setting for r in runs}
    return all(_key(n) in keys for n in names)


def _fuzzy_art_tca(n):
    if not _has(n.runs, "Fuzzy ART", "TCA"):
        return ""
    boxes = n.say("Fuzzy ART", "noisy", "n_clusters", ("box", "boxes"))
    return (
        f"On the noisy stream Fuzzy ART ends with {boxes} for 6 classes, NMI {n.say('Fuzzy ART', 'noisy', 'nmi')}; "
        f"TCA, NMI {n.say('TCA', 'noisy', 'nmi')}."
    )


def _tca_caea(n):
    if not _has(n.runs, "TCA", "CAEA", "TCA σ_init = 0.03", "CAEA λ = 10"):
        return ""
    return (
        f"Away from the searched values, TCA at σ_init = 0.03 ends the noisy stream with "
        f"{n.say('TCA σ_init = 0.03', 'noisy', 'n_clusters', ('cluster', 'clusters'))}, CAEA at λ = 10 with NMI "
        f"{n.say('CAEA λ = 10', 'noisy', 'nmi')}. At them: TCA NMI {n.say('TCA', 'noisy', 'nmi')}; CAEA NMI "
        f"{n.say('CAEA', 'noisy', 'nmi')}, {n.say('CAEA', 'noisy', 'merges', ('class merged', 'classes merged'))}."
    )


def _caea_cae(n):
    lam = by_seed(n.runs, "CAE", "noisy", "lam")
    if not lam or not _has(n.runs, "CAE"):
        return ""
    lo = min(lam, key=lambda s: (lam[s], s))
    hi = max(lam, key=lambda s: (lam[s], -s))
    return (
        f"λ is not one number: on the noisy stream it ran from {n.q('CAE', 'noisy', 'lam', 'min')} (seed {lo}: "
        f"{n.q('CAE', 'noisy', 'n_nodes', 'seed', lo)} nodes) to {n.q('CAE', 'noisy', 'lam', 'max')} (seed {hi}: "
        f"{n.q('CAE', 'noisy', 'n_nodes', 'seed', hi)} nodes); every seed is under the pictures."
    )


def _gng_asoinn(n):
    if not _has(n.runs, "GNG", "ASOINN"):
        return ""
    return (
        f"On the noisy stream GNG ends as {n.say('GNG', 'noisy', 'n_clusters', ('cluster', 'clusters'))} (NMI "
        f"{n.say('GNG', 'noisy', 'nmi')}): every sample, noise too, links its two nearest nodes. ASOINN: NMI "
        f"{n.say('ASOINN', 'noisy', 'nmi')}."
    )


def _asoinn_soinn(n):
    if not _has(n.runs, "ASOINN", "SOINN+"):
        return ""
    return (
        f"With nothing searched it ends the noisy stream with "
        f"{n.say('SOINN+', 'noisy', 'n_clusters', ('cluster', 'clusters'))}, NMI {n.say('SOINN+', 'noisy', 'nmi')}; "
        f"ASOINN at the paper's searched values: NMI {n.say('ASOINN', 'noisy', 'nmi')}."
    )


def _soinn_cae(n):
    if not _has(n.runs, "SOINN+", "CAE"):
        return ""
    return (
        f"On the noisy stream CAE deleted {n.say('CAE', 'noisy', 'edges_deleted', ('edge', 'edges'))} by age and ended "
        f"with {n.say('CAE', 'noisy', 'n_clusters', ('cluster', 'clusters'))}; SOINN+ with "
        f"{n.say('SOINN+', 'noisy', 'n_clusters', ('cluster', 'clusters'))}."
    )


_STREAM_WORDS = {("noisy",): "the noisy stream", ("noise-free",): "the noise-free stream"}


def _streams(streams):
    return "both streams" if len(streams) == len(STREAMS) else _STREAM_WORDS[tuple(streams)]


def _closing(n):
    """Where CAE wins here and where another algorithm does better, by NMI on each stream — the words follow the
    numbers, whichever way they go (a tie at three digits is neither)."""
    others = {"SOINN+": False, "TCA": True, "CAEA": True, "ASOINN": True}  # grid-searched by the paper?
    if not _has(n.runs, "CAE", *others):
        return ""
    mine = {s: n.typical("CAE", s, "nmi") for s in STREAMS}
    wins: dict[tuple, list[str]] = {}
    better: dict[bool, dict[tuple, list[str]]] = {True: {}, False: {}}
    for alg, searched in others.items():
        theirs = {s: n.typical(alg, s, "nmi") for s in STREAMS}
        for ahead in (True, False):
            streams = tuple(s for s in STREAMS if mine[s][0] != theirs[s][0] and (mine[s][1] > theirs[s][1]) == ahead)
            if streams:
                (wins if ahead else better[searched]).setdefault(streams, []).append(alg)

    def phrase(groups, lead=""):
        out = []
        for streams, algs in groups.items():
            values = "; ".join(" and ".join(n.say(a, s, "nmi") for s in streams) for a in algs)
            out.append(f"{lead}{' and '.join(algs)} on {_streams(streams)} ({values})")
        return "; ".join(out) or "nowhere here"

    cae = " and ".join(f"{n.say('CAE', s, 'nmi')} ({s})" for s in STREAMS)
    text = f"CAE's NMI here: {cae}, with nothing searched. Where CAE wins: " + phrase(wins, "over ")
    text = text.replace("over SOINN+ on", "over SOINN+, which needs no search either, on", 1)
    text += ". Where a grid-searched algorithm does better: " + phrase(better[True]) + "."
    if better[False]:
        text += " Where SOINN+, with nothing searched either, does better: " + phrase(better[False]) + "."
    return text


@dataclass(frozen=True)
class Step:
    """One step of the lesson: its ``title`` (the arrow or grouping it teaches) and ``subtitle``, the two
    algorithms it ``draws`` side by side (at their usual settings), the algorithms whose rows of the table it shows
    (``rows``; ``("usual",)``: every algorithm's usual row), what it says (``words``, each claim with its source;
    ``quotes`` are the paper's words it quotes, with where), its ``numbers`` (a function of the runs) and its paper
    says / code does ``notes`` (keys of :data:`NOTES`). ``per_seed``: it lists CAE's λ and #nodes seed by seed."""

    title: str
    subtitle: str
    draws: tuple[str, str]
    rows: tuple[str, ...]
    words: str
    quotes: tuple[Source, ...] = ()
    numbers: Callable[[_Numbers], str] | None = None
    closing: str = ""
    notes: tuple[str, ...] = ()
    per_seed: bool = False
    named: tuple[str, ...] = field(default=())

    @property
    def before(self):
        return self.draws[0]

    @property
    def after(self):
        return self.draws[1]

    @property
    def key(self):
        return self.title


#: the lesson's steps, in the order a teacher gives them
STEPS = (
    Step(
        "Fuzzy ART → CIM-based ART",
        "the classic ART, then TCA",
        ("Fuzzy ART", "TCA"),
        ("Fuzzy ART", "TCA"),
        "ART-based algorithms learn under “vigilance control” (§2): a sample joins a category only if the category "
        "passes a vigilance test (§4.5, CAE's). Fuzzy ART (Carpenter, Grossberg & Rosen 1991) is the classic ART drawn "
        "here; the paper cites ART as [carpenter88, carpenter91b, grossberg23] (§1) and runs no Fuzzy ART. Its categories are boxes; its "
        "vigilance ρ is given by the user (here the app's ρ = 0.75). TCA [masuyama19b] is one of the ART-based "
        "algorithms that measure similarity by CIM, “a notable development” (§1), and it links its winners by "
        "edges. Its λ and σ_init are given too (here the values the paper's grid search chose for its non-stationary 2-D "
        "stream, §5.2.2).",
        (Source("§2", "vigilance control"), Source("§1", "a notable development")),
        _fuzzy_art_tca,
    ),
    Step(
        "TCA · CAEA",
        "two CIM-based ARTs, side by side",
        ("TCA", "CAEA"),
        ("TCA", "CAEA"),
        "TCA [masuyama19b] and CAEA, “CIM-based ART with Edge and Age” [masuyama22a], both measure similarity by CIM "
        "(§1); the paper draws no line from one to the other, and calls CAEA “the state-of-the-art in ART-based "
        "self-organizing clustering” (§1). Each is given two parameters, which the paper's experiments set by grid "
        "search (§5.1): TCA its topology construction cycle λ and initial kernel bandwidth σ_init, CAEA its λ and "
        "its maximum edge age a_max (step 3).",
        (
            Source("§1", "CIM-based ART with Edge and Age"),
            Source("§1", "the state-of-the-art in ART-based self-organizing clustering"),
        ),
        _tca_caea,
    ),
    Step(
        "CAEA → CAE",
        "λ and a_max estimated",
        ("CAEA", "CAE"),
        ("CAEA", "CAE"),
        "CAE “is an extension of CAEA” (§4.1). CAEA is given λ, how many nodes its similarity threshold V is "
        "computed from, and a_max, the age past which an edge is deleted; CAE estimates both (§4.1): "
        "λ = 2K once the DPP diversity of its K nodes falls below 1e−6 (§4.2, Algorithm 2), a_max from the ages of "
        "edges (§4.7, step 6).",
        (Source("§4.1", "is an extension of CAEA"),),
        _caea_cae,
        notes=("active", "again", "k10"),
        per_seed=True,
    ),
    Step(
        "GNG → SOINN → ASOINN",
        "GNG-based: insertion by similarity thresholds",
        ("GNG", "ASOINN"),
        ("GNG", "ASOINN"),
        "GNG [fritzke95] inserts a node every λ signals, beside the node of largest error, and removes edges older "
        "than a_max; both are given (drawn at Fritzke's λ = 100, a_max = 50; GNG is not in the paper's experiments). "
        "SOINN [furao06], dashed above and not in this app, inserts a node where a sample falls outside its winners' "
        "similarity thresholds and removes nodes in low-density regions as noise (Shen & Hasegawa 2006). ASOINN, "
        "“Adjusted SOINN” [shen08] (§1), is given a deletion cycle λ and a maximum edge age a_max, which the paper "
        "grid-searched (§5.1); the paper calls ASOINN and SOINN+ “GNG-based” (§5.1).",
        (Source("§1", "Adjusted SOINN"), Source("§5.1", "GNG-based")),
        _gng_asoinn,
        named=("SOINN",),
    ),
    Step(
        "ASOINN → SOINN+",
        "no parameter to give",
        ("ASOINN", "SOINN+"),
        ("ASOINN", "SOINN+"),
        "SOINN+ [wiwatcharakoses20], “an ASOINN-based algorithm”, detects clusters “without pre-defined parameters” "
        "(§2). It deletes an edge of s1 older than a threshold estimated from the ages of all edges that can reach "
        "s1 and of those deleted before, p75 + 2·IQR (§4.7); it deletes isolated nodes by an estimated unutility and "
        "links its winners only when it trusts them (Wiwatcharakoses & Berrar 2020). The paper notes its cost: "
        "thresholds for each node slow it as the network grows (§2).",
        (
            Source("§2", "an ASOINN-based algorithm"),
            Source("§2", "without pre-defined parameters"),
            Source("§4.7", "all edges that can reach"),
        ),
        _asoinn_soinn,
    ),
    Step(
        "SOINN+ ⇢ CAE's a_max",
        "an edge-age threshold, estimated",
        ("SOINN+", "CAE"),
        ("SOINN+", "CAE"),
        "CAE's a_max is “inspired by the edge deletion mechanism of SOINN+” (§1, §4.7): a_max = "
        "ā_del·r + a_thr·(1 − r), r = |α_del|/(|α_del| + |α|), from the ages α of s1's edges and α_del of those "
        "deleted. The paper names two differences (§4.7): a_thr adds 1 IQR, not 2 (an ART network makes fewer "
        "edges early on), and only s1's own edges count, not all that can reach it (faster).",
        (Source("§4.7", "inspired by the edge deletion mechanism of SOINN+"),),
        _soinn_cae,
        notes=("hinges", "when"),
    ),
    Step(
        "CAE beside TCA",
        "where CAE wins, where a grid search does better",
        ("CAE", "TCA"),
        ("usual",),
        "",
        (
            Source("§5.1", "SOINN+ and CAE require no parameter tuning"),
            Source("§5.3.3", "Among the parameter-free or fixed-parameter algorithms"),
        ),
        _closing,
        closing="Why: TCA's λ = 500 and σ_init = 0.1 were chosen by the paper's grid search, 10 × 10 settings run 15 "
        "times each (§5.1, §5.2.2); CAE's λ and a_max cost no search (“SOINN+ and CAE require no parameter tuning”, "
        "§5.1). The paper's ranks agree: tuned CAEA first overall, CAE first “among the parameter-free or "
        "fixed-parameter algorithms” (§5.3.3); its table has TCA ahead on this stream (after stream #6: NMI 0.999 "
        "against 0.988).",
    ),
)


def step_quotes(step, runs):
    """The step's words with its numbers (``(text, quotes)``: every number the numbers take from the runs); without
    numbers when the runs lack a setting they need."""
    n = _Numbers(runs)
    numbers = step.numbers(n) if step.numbers is not None and runs else ""
    text = " ".join(t for t in (step.words, numbers, step.closing) if t)
    return text, n.quotes


def step_text(step, runs):
    """What the step says: its words, its numbers, and its closing."""
    return step_quotes(step, runs)[0]


def heading(step):
    """The step's heading: ``"Step 3 of 7 · CAEA → CAE (λ and a_max estimated)."``"""
    return f"Step {STEPS.index(step) + 1} of {len(STEPS)} · {step.title} ({step.subtitle})."


def step_words(step, runs):
    """How many words a teacher reads at this step: its heading, its text and its paper-says/code-does notes."""
    return len(re.findall(r"\S+", " ".join((heading(step), step_text(step, runs), notes_text(step.notes)))))


def step_settings(step, settings=SETTINGS):
    """The settings whose rows the step's table shows, in the table's order."""
    if step.rows == ("usual",):
        return [s for s in settings if s.level in ("usual", "none")]
    return [s for s in settings if s.algorithm in step.rows]


def lam_per_seed(runs):
    """CAE's λ and #nodes seed by seed on each stream: a table with a row per quantity and stream and a column per
    seed, and the :class:`Quote` of every cell."""
    rows, quotes = {}, []
    for stream in STREAMS:
        for name, label in (("lam", "λ"), ("n_nodes", "#nodes")):
            v = by_seed(runs, "CAE", stream, name)
            cells = {}
            for seed in v:
                q = quote(runs, "CAE", stream, name, "seed", seed)
                cells[f"seed {seed}"] = q.text
                quotes.append(q)
            rows[f"{label}, {stream}"] = cells
    return pd.DataFrame(rows).T, quotes


def step_markdown(step, runs):
    """The step as a Markdown list item (docs/algorithms.md)."""
    notes = notes_text(step.notes)
    return f"- **{step.title}** ({step.subtitle}): {step_text(step, runs)}" + (f" {notes}" if notes else "")


def markdown(runs, settings=SETTINGS):
    """The lesson as Markdown: its seven steps, the table, what each parameter is and one sentence per setting — the
    block of docs/algorithms.md that ``python -m cae.experiments lineage --markdown`` prints."""
    lines = ["The lesson's seven steps, as the page shows them, with this run's numbers:", ""]
    lines += [step_markdown(step, runs) for step in STEPS]
    return "\n".join(lines) + "\n\n" + markdown_table(runs, settings)

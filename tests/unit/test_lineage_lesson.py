"""The Lineage lesson as the paper tells it (cae.app.lineage_lesson): the families and their every arrow against the
paper's LaTeX source, the paper-says/code-does notes against the specification and docs/cae-algorithm.md, the steps'
length, and every number of every step read back from the lesson's CSV."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from conftest import REFERENCE_HOWTO, ROOT, SHARED
from support import lineage_check as check

from cae.app import lineage as ln
from cae.app import lineage_lesson as lesson
from cae.app.figures.lineage import NOT_HERE, lineage_html
from cae.registry import ALGORITHMS

COMMITTED = ROOT / "results" / "lineage.csv"
PAPER = SHARED / "paper" / "cae-paper.tex"
SPEC = SHARED / "spec" / "cae-algorithm.md"


def _flat(text):
    return " ".join(text.split()).lower()


def _sections():
    """The paper's LaTeX by section, numbered as LaTeX numbers them: {"§4.2": text of §4.2 with its subsections}."""
    if not PAPER.exists():
        pytest.skip(f"needs paper/cae-paper.tex: {REFERENCE_HOWTO}")
    counters = [0, 0, 0]
    open_ = []
    out: dict[str, list[str]] = {}
    for line in PAPER.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\\(sub)?(sub)?section\{", line.strip())
        if m:
            level = (m.group(1) is not None) + (m.group(2) is not None)
            counters[level] += 1
            counters[level + 1 :] = [0] * (2 - level)
            open_ = ["§" + ".".join(str(c) for c in counters[: k + 1]) for k in range(level + 1)]
        elif line.startswith("\\section*") or line.startswith("\\bibliography"):
            open_ = []
        for key in open_:
            out.setdefault(key, []).append(line)
    return {k: _flat("\n".join(v)) for k, v in out.items()}


def _texts(runs):
    """Every text of the lesson a reader sees: the families' words, each step's heading, words and notes."""
    out = [lesson.FAMILY_WORDS]
    for step in lesson.STEPS:
        out += [lesson.heading(step), lesson.step_text(step, runs), lesson.notes_text(step.notes)]
    return out


def _committed_runs():
    if not COMMITTED.exists():
        pytest.skip("results/lineage.csv is not there")
    return ln.read_runs(COMMITTED)


# ------------------------------------------------------------------ the families, as the paper draws them
def test_the_families_are_the_papers():
    """The ART-based family: Fuzzy ART, then the CIM-based ARTs TCA and CAEA side by side (no arrow between them: the
    paper draws none, and none from Fuzzy ART to TCA), then CAE, the extension of CAEA. The GNG-based family: GNG →
    SOINN → ASOINN → SOINN+, SOINN a step of its own (not in the registry), and SOINN+'s edge deletion, dashed, into
    CAE."""
    arrows = {(x.a, x.b) for x in lesson.LINKS}
    assert arrows == {
        ("Fuzzy ART", "CIM-based ART"),
        ("CAEA", "CAE"),
        ("GNG", "SOINN"),
        ("SOINN", "ASOINN"),
        ("ASOINN", "SOINN+"),
        ("SOINN+", "CAE"),
    }
    assert not arrows & {("Fuzzy ART", "TCA"), ("TCA", "CAEA"), ("GNG", "ASOINN")}
    assert [x.dashed for x in lesson.LINKS if x.b == "CAE"] == [False, True]
    groups = {g.name: set(g.members) for g in lesson.GROUPS}
    assert groups == {
        "ART-based": {"TCA", "CAEA", "CAE"},
        "CIM-based ART": {"TCA", "CAEA"},
        "GNG-based": {"ASOINN", "SOINN+"},
    }
    assert "SOINN" not in ALGORITHMS and NOT_HERE == ("SOINN",)
    boxes = {x.a for x in lesson.LINKS} | {x.b for x in lesson.LINKS} | groups["CIM-based ART"]
    assert boxes - {"CIM-based ART", "SOINN"} <= set(ALGORITHMS)
    # every arrow and grouping has its source beside it, in the drawing too
    html = lineage_html()
    seen = re.sub(r"<[^>]+>", " ", html)  # what is drawn (the figure's aria-label says it again, in words)
    for x in [*lesson.LINKS, *lesson.GROUPS]:
        assert x.source.where and x.source.where in seen, x
    for label in ("§1 CIM", "§4.1 extension", "[furao06]", "§1 adjusted", "§2 based on", "§4.7 its a_max"):
        assert label in seen
    assert seen.count("§5.1") == 2 and " SOINN " in seen and "1px dashed" in html


def test_no_box_states_an_experiments_choice_as_an_algorithms_property():
    """The boxes name the algorithms; what is given, grid-searched or estimated is said in the steps, as whose
    choice it is: a parameter is given (by the user), "searched" is how the paper's experiments set it."""
    text = re.sub(r"<[^>]+>", " ", lineage_html(("GNG", "ASOINN")))
    for word in ("fixed", "searched", "estimated", "given", "λ", "ρ", "σ"):
        assert word not in text, word
    roles = {s.role for s in ln.SETTINGS if s.level == "usual"}
    assert roles == {
        "usual: the app's default",
        "usual: the paper's grid search",
        "usual: Fritzke 1995",
    }
    for step in lesson.STEPS:  # "searched" is the paper's doing, or a comparison with nothing searched
        for sentence in re.split(r"(?<=[.;:])\s", step.words + " " + step.closing):
            if "search" in sentence:
                assert "paper" in sentence or "no search" in sentence, sentence


def test_every_quote_section_and_citation_is_the_papers():
    """Each arrow's, grouping's, step's and note's quoted words are in the paper, in the section they name; every
    section the lesson cites exists; every publication it cites is cited by the paper; every “quoted” phrase is the
    paper's."""
    sections = _sections()
    paper = _flat(PAPER.read_text(encoding="utf-8"))
    sources = [x.source for x in lesson.LINKS] + [g.source for g in lesson.GROUPS]
    sources += [q for step in lesson.STEPS for q in step.quotes] + [n.source for n in lesson.NOTES.values()]
    for src in sources:
        if src.in_paper:
            assert src.where in sections, src
            assert _flat(src.quote) in sections[src.where], src
        else:
            key = src.where.strip("[]")
            assert re.search(r"\\cite\{[^}]*\b" + key + r"\b", PAPER.read_text(encoding="utf-8")), key
    for step in lesson.STEPS:
        for q in step.quotes:
            assert q.quote.lower() in (step.words + step.closing).lower() or q.quote in lesson.NOTES, q
    texts = " ".join(_texts(_committed_runs()))
    cited = set(re.findall(r"§(\d+(?:\.\d+)*)", texts))
    assert cited and all(f"§{c}" in sections for c in cited), cited - {k[1:] for k in sections}
    for key in re.findall(r"\[([a-z]+\d+[a-z]?)\]", texts):
        assert f"{key}" in paper, key
    for phrase in re.findall(r"“([^”]+)”", texts):
        assert _flat(phrase) in paper, phrase


def test_the_closing_steps_numbers_from_the_paper_are_the_papers():
    """TCA ahead of CAE in the paper's own table (stream #6 of the non-stationary 2-D stream: NMI 0.999 against
    0.988); TCA's values, the paper's grid search's choice for that stream (λ = 500, σ_init = 0.1), from a grid of 10
    × 10 settings each run 15 times."""
    sections = _sections()
    tex = PAPER.read_text(encoding="utf-8")
    row = next(line for line in tex.splitlines() if line.strip().startswith("Stream \\#6 & NMI"))
    values = [v.split("(")[0].strip() for v in row.split("&")[2:]]
    assert values[3] == "0.999" and values[5] == "0.988"  # AutoCloud, ASOINN, SOINN+, TCA, CAEA, CAE
    assert "Non-stationary & 2 & 250 & 10 & 500 & 0.1 & 50 & 40" in tex
    assert ln.USUAL["TCA"] == {"reconstruction_interval": 500, "sigma_init": 0.1}
    grid = next(line for line in tex.splitlines() if "Topology construction cycle" in line)
    sigma = next(line for line in tex.splitlines() if "Initial kernel bandwidth" in line)
    assert grid.count(",") + 1 == 10 and sigma.count(",") + 1 == 10
    assert "repeated 15 times" in sections["§5.2.2"]
    closing = lesson.STEPS[-1].closing
    assert "λ = 500 and σ_init = 0.1" in closing and "10 × 10 settings run 15 times" in closing
    assert "0.999 against 0.988" in closing


# ------------------------------------------------------------------ paper says / code does
def test_each_note_is_a_ref_point_of_the_spec_and_of_our_docs():
    """Each note's code side is a [ref] point of docs/cae-algorithm.md (and of the specification, where the project's
    reference files are there); its paper side is the paper's words (test above)."""
    ours = (ROOT / "docs" / "cae-algorithm.md").read_text(encoding="utf-8")
    for key, note in lesson.NOTES.items():
        assert note.doc in ours, key
        assert "[ref]" in note.doc
    if not SPEC.exists():
        pytest.skip(f"needs spec/cae-algorithm.md: {REFERENCE_HOWTO}")
    spec = " ".join(SPEC.read_text(encoding="utf-8").split())
    for words in (
        "n_active | size of the active node set, = λ/2 **[ref]**",
        "λ is never re-estimated **[ref]**",
        "If D < 1e−6 **and** K ≥ 10 **[ref]**",
        "**[ref: Tukey's hinges, not percentiles]**",
        "Edge deletion around s1 (Cases II and III)",
    ):
        assert words in spec, words


def test_every_quantity_where_paper_and_code_differ_has_its_note_beside_it():
    """A step that speaks of V's active nodes, of the DPP estimate of λ or of a_thr carries the paper-says/code-does
    note of each; and the notes are said where they are drawn (steps 3 and 6)."""
    triggers = {"threshold V": ("active",), "DPP": ("again", "k10"), "a_thr": ("hinges", "when")}
    for step in lesson.STEPS:
        for word, keys in triggers.items():
            if word in step.words:
                assert set(keys) <= set(step.notes), (step.title, word)
    assert lesson.STEPS[2].notes == ("active", "again", "k10") and lesson.STEPS[5].notes == ("hinges", "when")
    text = lesson.notes_text(lesson.STEPS[2].notes)
    assert "paper λ (notation table, §4.3), code λ/2" in text and "paper “calculated again” (§4.2), code never" in text
    text = lesson.notes_text(lesson.STEPS[5].notes)
    assert "paper 75th percentile + IQR (§4.7), code Tukey's upper hinge q3 + (q3 − q1)" in text
    assert lesson.notes_text(()) == ""
    # the meanings of the rows say both where they differ
    assert "[ref]" in ln.MEANINGS[("CAE", "")] and "[ref]" in ln.MEANINGS[("CAEA", "deletion_interval")]


def test_caes_lambda_is_estimated_once_as_the_code_does():
    """The code's side of the note, run: CAE's λ, once set, never changes, though the sweeps leave fewer than λ/2
    nodes and the network regrows (the paper would compute it again)."""
    from cae.algorithms import CAE

    stream = ln._stream(0, 250, "noisy")
    model = CAE()
    lams, below = set(), 0
    for x in stream.X:
        model.learn_one(x)
        if model.deletion_interval_ is not None and model.deletion_interval_ != float("inf"):
            lams.add(model.deletion_interval_)
            below += len(model.nodes_) < model.deletion_interval_ / 2
    assert len(lams) == 1 and below > 0


# ------------------------------------------------------------------ ten minutes, and the numbers
def test_each_step_is_at_most_150_words():
    """Seven steps a teacher gives in ten minutes: at most 150 words each — heading, words, numbers and notes — on
    the committed run."""
    runs = _committed_runs()
    words = [lesson.step_words(step, runs) for step in lesson.STEPS]
    assert len(words) == 7 and max(words) <= lesson.MAX_WORDS == 150, words
    assert lesson.step_words(lesson.STEPS[0], runs) == len(
        (lesson.heading(lesson.STEPS[0]) + " " + lesson.step_text(lesson.STEPS[0], runs)).split()
    )


def _check_steps(path):
    """Every step's numbers read back from the CSV, no mean of a wide column, no number but its quotes, the
    constants of its fixed words and the parameters of the settings it names."""
    df = pd.read_csv(path)
    runs = ln.read_runs(path)
    checked = 0
    keys = " ".join(s.key for s in ln.SETTINGS)
    for step in lesson.STEPS:
        text, quotes = lesson.step_quotes(step, runs)
        assert quotes, step.title
        checked += check.check_quotes(df, text, quotes)
        assert not check.wide_means(df, quotes), (step.title, check.wide_means(df, quotes))
        allowed = check.numbers(step.words + " " + step.closing + " " + keys) | {"6"}
        assert not check.other_numbers(text, quotes, allowed), (step.title, check.other_numbers(text, quotes, allowed))
    return checked


def test_every_number_of_every_step_is_read_back_from_the_committed_csv():
    _committed_runs()
    assert _check_steps(COMMITTED) > 40


def test_every_number_of_every_step_is_read_back_from_a_fresh_run(tmp_path):
    """A fresh, small lesson (2 seeds, 100 points per distribution): the words follow its numbers too."""
    from cae.experiments.cli import main

    assert main(["lineage", "--seeds", "2", "--n-per-class", "100", "--results", str(tmp_path)]) == 0
    assert _check_steps(tmp_path / "lineage.csv") > 30


def test_the_lesson_reads_out_caes_lambda_seed_by_seed_beside_its_nodes():
    """λ = 2K differs from seed to seed and #nodes follows it: the lesson names the seeds of the smallest and the
    largest λ with their #nodes, and lists every seed's λ and #nodes."""
    runs = _committed_runs()
    df = pd.read_csv(COMMITTED)
    text = lesson.step_text(lesson.STEPS[2], runs)
    assert "from 38 (seed 9: 141 nodes) to 200 (seed 1: 423 nodes)" in text
    table, quotes = lesson.lam_per_seed(runs)
    assert list(table.index) == ["λ, noisy", "#nodes, noisy", "λ, noise-free", "#nodes, noise-free"]
    assert list(table.columns) == [f"seed {k}" for k in range(10)] and len(quotes) == 40
    assert table.loc["λ, noisy", "seed 9"] == "38" and table.loc["#nodes, noisy", "seed 1"] == "423"
    assert check.check_quotes(df, table.to_string(), quotes) == 40
    assert all(int(v) % 2 == 0 for v in table.loc["λ, noisy"])  # λ = 2K


def test_the_closing_step_says_where_cae_wins_and_where_tca_does_better():
    """On the committed run: CAE ahead of SOINN+ (the other algorithm with nothing searched) on both streams and of
    CAEA and ASOINN on the noisy one; TCA, grid-searched, ahead of CAE on both — and why."""
    runs = _committed_runs()
    text = lesson.step_text(lesson.STEPS[-1], runs)
    assert "CAE's NMI here: 0.952 (noisy) and 0.952 (noise-free), with nothing searched." in text
    assert "Where CAE wins: over SOINN+, which needs no search either, on both streams (0.784 and 0.779)" in text
    assert "over CAEA and ASOINN on the noisy stream (0.893; 0.897)" in text
    assert "Where a grid-searched algorithm does better: TCA on both streams (0.978 and 0.984)" in text
    assert "cost no search" in text and lesson.STEPS[-1].draws == ("CAE", "TCA")


def test_the_closing_steps_words_follow_the_numbers_whichever_way_they_go():
    """Runs where TCA trails CAE and SOINN+ leads it: the words say so (never "TCA does better" regardless)."""
    runs = []
    for key, nmi in (("CAE", 0.9), ("SOINN+", 0.95), ("TCA λ = 500, σ_init = 0.1", 0.5)):
        runs += [_run(key, stream, seed, nmi) for stream in ln.STREAMS for seed in (0, 1)]
    runs += [
        _run(k, s, seed, 0.9)
        for k in ("CAEA λ = 50, a_max = 40", "ASOINN λ = 250, a_max = 10")
        for s in ln.STREAMS
        for seed in (0, 1)
    ]
    text = lesson.step_text(lesson.STEPS[-1], runs)
    assert "Where CAE wins: over TCA on both streams (0.500 and 0.500)." in text
    assert "Where a grid-searched algorithm does better: nowhere here." in text
    assert "Where SOINN+, with nothing searched either, does better: SOINN+ on both streams (0.950 and 0.950)." in text


def _run(key, stream, seed, nmi):
    return ln.LineageRun(key, stream, seed, nmi, nmi, 6, 0, 100, 0.0, 150, 0, 0, float("nan"), float("nan"), 100, 0.0)


def test_each_step_draws_two_algorithms_and_shows_its_rows():
    assert [s.title for s in lesson.STEPS] == [
        "Fuzzy ART → CIM-based ART",
        "TCA · CAEA",
        "CAEA → CAE",
        "GNG → SOINN → ASOINN",
        "ASOINN → SOINN+",
        "SOINN+ ⇢ CAE's a_max",
        "CAE beside TCA",
    ]
    for step in lesson.STEPS:
        assert len(step.draws) == 2 and set(step.draws) <= set(ALGORITHMS), step.title
    assert lesson.STEPS[3].named == ("SOINN",) and "SOINN [furao06]" in lesson.STEPS[3].words
    assert [s.key for s in lesson.step_settings(lesson.STEPS[2])] == [
        s.key for s in ln.SETTINGS if s.algorithm in ("CAEA", "CAE")
    ]
    usual = lesson.step_settings(lesson.STEPS[-1])
    assert [s.algorithm for s in usual] == ["Fuzzy ART", "TCA", "CAEA", "CAE", "GNG", "ASOINN", "SOINN+"]
    assert all(s.level in ("usual", "none") for s in usual)
    assert sum(len(lesson.step_settings(s)) for s in lesson.STEPS[:6]) < 6 * len(ln.SETTINGS) / 2

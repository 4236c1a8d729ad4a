"""docs/long-streams.md says what results/long_streams*.csv hold: its tables are the benchmark's own rendering of
the CSV files (`python -m cae.bench --csv-quality`), its picture is drawn from them, and the numbers its
sentences read out are computed here from the same rows."""

import pandas as pd
from conftest import ROOT

from cae.bench.quality import markdown_datasets, markdown_table, svg

DOC = (ROOT / "docs" / "long-streams.md").read_text()
SYNTHETIC = pd.read_csv(ROOT / "results" / "long_streams.csv")
DATASETS = pd.read_csv(ROOT / "results" / "long_streams_datasets.csv")


def test_the_tables_and_the_picture_are_generated_from_the_results():
    assert markdown_table(SYNTHETIC) in DOC
    assert markdown_datasets(DATASETS) in DOC
    assert (ROOT / "docs" / "long-streams.svg").read_text() == svg(SYNTHETIC)


def test_the_sentences_read_the_results_out_right():
    f = SYNTHETIC
    noisy = f[f.case.str.endswith("noise") & (f.rows >= 1_000_000)]
    low, high = noisy.samples_nmi.min(), noisy.samples_nmi.max()
    assert f"`--sampled` gives {low:.3f}–{high:.3f} on every noisy file of 1 and 3 million rows" in DOC.replace(
        "\n", " "
    )
    assert (noisy.samples_nmi - noisy.first50k_nmi).min() >= -0.002  # "never more than 0.002 below"
    assert noisy.check_spoke.all() and f"the check spoke on all {len(noisy)} of them" in DOC
    clean = f[f.case.str.endswith("clean")]
    spoke = clean[clean.check_spoke]
    assert len(spoke) == 1 and f"(NMI {spoke.all_nmi.iloc[0]:.3f})" in DOC  # "it spoke once (the real merge)"
    assert spoke.samples_nmi.iloc[0] > spoke.all_nmi.iloc[0] + 0.05
    paper = f[(f.case == "paper2d-noise") & (f.rows >= 100_000)]
    assert f"0.93 in {(paper.first50k_nmi < 0.95).sum()} of the {len(paper)} runs" in DOC
    assert not f[f.rows <= 50_000].check_spoke.any()  # a file that short is not checked
    skin = DATASETS[DATASETS.dataset == "Skin"]
    assert not skin.check_spoke.any() and (skin.all_nmi > skin.samples_nmi).all()

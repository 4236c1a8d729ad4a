"""``python -m cae.bench --peers``: every contender runs, the table is written from the CSV, missing data are said."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from cae.bench import peers
from cae.bench.__main__ import main as bench_main

DEFAULTS = [
    ("CAE", "learn_many(X)", ""),
    ("CAE", "River learn_one(dict)", ""),
    ("DBSTREAM", "learn_one(dict)", "River's defaults"),
    ("DenStream", "learn_one(dict)", "River's defaults"),
    ("CluStream", "learn_one(dict)", "River's defaults"),
    ("Birch", "partial_fit(1,000 rows)", "n_clusters = classes"),
    ("MiniBatchKMeans", "partial_fit(1,000 rows)", "n_clusters = classes"),
]


def test_peers_on_a_short_stream(tmp_path, capsys):
    pytest.importorskip("river", reason="River is an optional extra: pip install 'cae-explorer[river]'")
    out = tmp_path / "peers.csv"
    assert bench_main(["--peers", "--n", "400", "--repeat", "1", "--datasets", str(tmp_path), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "letter.csv is absent: Letter skipped" in said and "python -m cae.data fetch --names letter" in said
    assert "grids (best by ARI; one learning run per value): DBSTREAM `clustering_threshold` ∈ {0.05," in said
    df = pd.read_csv(out, keep_default_na=False)
    # the defaults rows are the contenders and settings they were before the grids
    plain = df[df["choice"].isin(["", "defaults"])]
    assert list(zip(plain["algorithm"], plain["api"], plain["params"])) == DEFAULTS
    assert (df["learn_us"] > 0).all() and df["nmi"].between(0, 1).all() and df["ari"].between(-1, 1).all()
    # the River loop is the same learning as learn_many: the same labels, so the same NMI and clusters
    cae = df[df["algorithm"] == "CAE"]
    assert cae["nmi"].nunique() == 1 and cae["n_clusters"].nunique() == 1 and (cae["choice"] == "").all()
    # every peer has its grid's best by ARI, which is the best ARI of the values tried (every one in _grid.csv)
    points = pd.read_csv(tmp_path / "peers_grid.csv", keep_default_na=False)
    tuned = df[df["choice"] == "best ARI"]
    assert sorted(tuned["algorithm"]) == ["Birch", "Birch", "CluStream", "DBSTREAM", "DenStream", "MiniBatchKMeans"]
    for r in tuned.itertuples():
        family = points[points["algorithm"] == r.algorithm]
        if r.algorithm == "Birch":
            family = family[family["params"].str.endswith(r.params.rsplit("= ", 1)[1])]
        assert r.ari == family["ari"].max() and r.params in set(family["params"]), r
    assert len(points[points["algorithm"] == "DBSTREAM"]) == len(peers.GRIDS["DBSTREAM"][1])
    meta = json.loads(out.with_suffix(".json").read_text())
    assert (
        meta["n"] == 400
        and meta["versions"]["river"]
        and meta["grids"]["DenStream"] == ["epsilon", [0.05, 0.1, 0.2, 0.4]]
    )
    table = peers.markdown(out)
    assert (
        table.startswith("**2-D paper stream, 400**")
        and "| DBSTREAM | river | learn_one(dict) | River's defaults |" in table
    )
    assert "| 1.0× | " in table and "Measured" in table and "Grids (the same on every workload" in table
    assert "| DenStream | river | learn_one(dict) | epsilon = " in table and "| best ARI |" in table
    assert bench_main(["--peers", "--markdown", "--out", str(out)]) == 0
    assert capsys.readouterr().out == table


def test_the_grid_chooses_the_best_ari_on_a_tiny_dataset():
    """Birch on six points: class 0 is two far blobs a (x = 0) and b (x = 0.5), class 1 a blob c (x = 0.6) next to b.

    Without a cluster count: threshold 0.001 leaves every point alone (ARI 0), 0.02 finds a, b and c (ARI 4/9: the
    pairs agree on 3 of 15, 7 × 3 / 15 expected, (7 + 3) / 2 at most), 0.2 gives {a} and {b, c} (ARI −1/14), 1.0 one
    cluster (ARI 0): the choice is 0.02. Told 2 clusters, every threshold but 1.0 groups {a} against {b, c}
    (ARI −1/14) and 1.0 has one subcluster, so one cluster (ARI 0): the choice is 1.0, ARI's verdict and no other.
    """
    X = np.array([[0.0, 0], [0.01, 0], [0.5, 0], [0.51, 0], [0.6, 0], [0.61, 0]])
    y = np.array([0, 0, 0, 0, 1, 1])
    rows, choices = peers.grid_search("Birch", X, y, np.ones(6, bool), values=(0.001, 0.02, 0.2, 1.0))
    alone = {
        r["params"].split(",")[0]: (round(r["ari"], 6), r["n_clusters"]) for r in rows if r["params"].endswith("None")
    }
    assert alone == {
        "threshold = 0.001": (0, 6),
        "threshold = 0.02": (round(4 / 9, 6), 3),
        "threshold = 0.2": (round(-1 / 14, 6), 2),
        "threshold = 1": (0, 1),
    }
    told = {
        r["params"].split(",")[0]: (round(r["ari"], 6), r["n_clusters"])
        for r in rows
        if r["params"].endswith("classes")
    }
    assert told == {f"threshold = {t}": (round(-1 / 14, 6), 2) for t in ("0.001", "0.02", "0.2")} | {
        "threshold = 1": (0, 1)
    }
    # the best by NMI is shown too where it is another row, labelled as such: told 2 clusters, NMI prefers
    # {a} against {b, c} (the first of the equal thresholds) to one cluster (NMI 0); alone, NMI agrees with ARI
    # (a, b and c: sqrt(H(T) / H(P)) = 0.76 against every point alone's 0.60)
    picked = {(c["params"], c["choice"]) for c in choices}
    assert picked == {
        ("threshold = 1, n_clusters = classes", "best ARI"),
        ("threshold = 0.001, n_clusters = classes", "best NMI"),
        ("threshold = 0.02, n_clusters = None", "best ARI"),
    }
    assert all(c["grid"] == "threshold ∈ {0.001, 0.02, 0.2, 1}" for c in choices)
    # the best by NMI is shown as well when it is another row, labelled as such
    assert (
        peers.best([{"ari": 0.1, "nmi": 0.9, "n_clusters": 500}, {"ari": 0.4, "nmi": 0.5, "n_clusters": 20}])["ari"]
        == 0.4
    )


def test_clustream_grid_shares_one_pass_exactly():
    """CluStream's ``n_macro_clusters`` only sets the k-means over the micro-clusters: one learning pass with the
    last macro-clustering redone labels every sample as a fresh model learned with that value does."""
    pytest.importorskip("river", reason="River is an optional extra: pip install 'cae-explorer[river]'")
    from river import cluster

    X, _, _ = peers._paper2d(1500)
    dicts = [{"x0": float(a), "x1": float(b)} for a, b in X]

    def learned(v):
        m = cluster.CluStream(n_macro_clusters=v, seed=0)
        for d in dicts:
            m.learn_one(d)
        return m

    one_pass = learned(4)
    seen = set()
    for v in (3, 8, 16):
        fresh = learned(v)
        expected = [fresh.predict_one(d) for d in dicts]
        redone = peers._remacro(one_pass, v)
        assert [redone.predict_one(d) for d in dicts] == expected
        seen.add(len(set(expected)))
    assert max(seen) > 1


def test_a_missing_river_is_skipped_and_said(tmp_path):
    """Without River the bench says so and runs the rest: CAE, and scikit-learn's peers with their grids."""
    code = (
        "import sys; sys.modules['river'] = None\n"
        "from cae.bench.__main__ import main\n"
        f"sys.exit(main(['--peers', '--n', '300', '--repeat', '1', '--datasets', {str(tmp_path)!r}, "
        f"'--out', {str(tmp_path / 'p.csv')!r}]))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert "(river (pip install 'cae-explorer[river]') is not installed: its clusterers are skipped)" in r.stdout
    assert (
        "grids (best by ARI; one learning run per value): Birch `threshold`" in r.stdout and "DBSTREAM" not in r.stdout
    )
    df = pd.read_csv(tmp_path / "p.csv", keep_default_na=False)
    assert list(zip(df["algorithm"], df["choice"])) == [
        ("CAE", ""),
        ("Birch", "defaults"),
        *[("Birch", c) for c in df[df["algorithm"] == "Birch"]["choice"][1:]],
        ("MiniBatchKMeans", "defaults"),
        *[("MiniBatchKMeans", c) for c in df[df["algorithm"] == "MiniBatchKMeans"]["choice"][1:]],
    ]
    assert {"best ARI"} <= set(df[df["algorithm"] == "Birch"]["choice"]) and "best ARI" in set(df["choice"][-3:])


def test_partial_scoring_is_marked(tmp_path):
    rows = [
        dict(
            workload="w",
            algorithm="CAE",
            library="cae-explorer",
            api="learn_many(X)",
            params="",
            learn_us=2.0,
            label_us=1.0,
            nmi=0.9,
            nmi_on=2000,
            n_clusters=6,
        ),
        dict(
            workload="w",
            algorithm="DenStream",
            library="river",
            api="learn_one(dict)",
            params="",
            learn_us=9.0,
            label_us=9000.0,
            nmi=0.5,
            nmi_on=1000,
            n_clusters=3,
        ),
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "p.csv", index=False)
    table = peers.markdown(tmp_path / "p.csv")
    assert "| 0.500 † |" in table and "| 4.5× |" in table and "| 9000.0 | 9000.0× |" in table
    assert "† labelled and scored on a seeded random part of the 2,000 scored samples (DenStream on 1,000;" in table


def test_bench_help_names_its_command_and_peers():
    """``python -m cae.bench --help`` says how it is typed (not ``bench.py``) and lists the README's ``--peers``."""
    r = subprocess.run([sys.executable, "-m", "cae.bench", "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m cae.bench [-h] [--peers]")
    assert "--peers               run the peer comparison instead" in r.stdout

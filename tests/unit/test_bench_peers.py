"""``python -m cae.bench --peers``: every contender runs, the table is written from the CSV, missing data are said."""

import json

import pandas as pd
import pytest

from cae import bench, bench_peers


def test_peers_on_a_short_stream(tmp_path, capsys):
    pytest.importorskip("river", reason="River is an optional extra: pip install 'cae-explorer[river]'")
    out = tmp_path / "peers.csv"
    assert bench.main(["--peers", "--n", "400", "--repeat", "1", "--datasets", str(tmp_path), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "letter.csv is absent: Letter skipped" in said and "python -m cae.data fetch --names letter" in said
    df = pd.read_csv(out)
    assert list(df["algorithm"]) == ["CAE", "CAE", "DBSTREAM", "DenStream", "CluStream", "Birch", "MiniBatchKMeans"]
    assert (df["learn_us"] > 0).all() and df["nmi"].between(0, 1).all()
    # the River loop is the same learning as learn_many: the same labels, so the same NMI and clusters
    cae = df[df["algorithm"] == "CAE"]
    assert cae["nmi"].nunique() == 1 and cae["n_clusters"].nunique() == 1
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["n"] == 400 and meta["versions"]["river"]
    table = bench_peers.markdown(out)
    assert table.startswith("**2-D paper stream, 400**") and "| DBSTREAM | river | learn_one(dict) |" in table
    assert "1.0×" in table and "Measured" in table
    assert bench.main(["--peers", "--markdown", "--out", str(out)]) == 0
    assert capsys.readouterr().out == table


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
    table = bench_peers.markdown(tmp_path / "p.csv")
    assert "| 0.500 † |" in table and "4.5×" in table and "† labelled and scored on 1,000 random samples" in table


def test_bench_help_names_its_command_and_peers():
    """``python -m cae.bench --help`` says how it is typed (not ``bench.py``) and lists the README's ``--peers``."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "cae.bench", "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m cae.bench [-h] [--peers]")
    assert "--peers               run the peer comparison instead" in r.stdout

"""The experiments CLI: every subcommand end to end, reproducibility, and the dask path."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, load_wine

from cae import experiments as ex
from conftest import shared_path


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("datasets")
    for name, loader in (("iris", load_iris), ("wine", load_wine)):
        b = loader()
        df = pd.DataFrame(b.data, columns=[f"f{i}" for i in range(b.data.shape[1])])
        df["label"] = b.target
        df.to_csv(d / f"{name}.csv", index=False)
    return d


def _run(tmp_path, *args):
    out = tmp_path / "out"
    assert ex.main([*args, "--out", str(out), "--quiet"]) == 0
    return out


def test_synthetic_stationary_reproducible(tmp_path):
    args = ["synthetic", "--environment", "stationary", "--runs", "2", "--seed", "3", "--n-per-class", "400"]
    out = _run(tmp_path, *args)
    a = pd.read_csv(out / "synthetic_stationary.csv")
    assert list(a.columns) == ["run", "stage", "nmi", "ari", "n_nodes", "n_clusters", "seconds"]
    assert a["run"].tolist() == [0, 1] and (a["stage"] == "all").all()
    b = pd.read_csv(_run(tmp_path / "again", *args) / "synthetic_stationary.csv")
    pd.testing.assert_frame_equal(a.drop(columns="seconds"), b.drop(columns="seconds"))
    md = (out / "synthetic_stationary.md").read_text()
    assert "| stage | nmi | ari | n_nodes | n_clusters |" in md and "0.907 (0.254)" in md


def test_synthetic_nonstationary_rows_per_stage(tmp_path):
    out = _run(tmp_path, "synthetic", "--environment", "nonstationary", "--runs", "1", "--n-per-class", "300",
               "--n-jobs", "2")
    df = pd.read_csv(out / "synthetic_nonstationary.csv")
    assert df["stage"].tolist() == [f"stream #{k}" for k in range(1, 7)]
    assert (df["n_nodes"] > 0).all()


def test_synthetic_with_the_authors_file(tmp_path):
    data = shared_path("data", "paper_2d_6class_90000.csv")
    rows = ex.synthetic_job("stationary", 0, 0, data_csv=str(data))
    assert 0.5 < rows[0]["nmi"] <= 1.0


def test_realworld_both_environments(tmp_path, folder):
    out = _run(tmp_path, "realworld", "--datasets", str(folder), "--runs", "2")
    df = pd.read_csv(out / "realworld_stationary.csv")
    assert {"dataset", "run", "nmi", "ari", "n_nodes", "n_clusters", "seconds"} <= set(df.columns)
    assert sorted(set(df["dataset"])) == ["iris", "wine"] and (df["scaling"] == "minmax").all()
    out = _run(tmp_path, "realworld", "--datasets", str(folder), "--names", "iris", "--runs", "2",
               "--environment", "nonstationary")
    df = pd.read_csv(out / "realworld_nonstationary.csv")
    assert {"ai_nmi", "bwt_nmi", "ai_ari", "bwt_ari"} <= set(df.columns) and len(df) == 2
    assert "ai_nmi" in (out / "realworld_nonstationary.md").read_text()


def test_realworld_raw_wine_never_sets_a_threshold(folder):
    row = ex.realworld_job(str(folder / "wine.csv"), "stationary", 0, 0, scaling="none")[0]
    assert row["n_nodes"] == 178  # every sample stays a node


def test_lambda_sweep_and_runtime(tmp_path, folder):
    out = _run(tmp_path, "lambda-sweep", "--datasets", str(folder), "--names", "iris", "--runs", "2",
               "--lambdas", "10,40")
    df = pd.read_csv(out / "lambda_sweep.csv")
    assert len(df) == 6 and set(df.loc[~df["estimated"], "lambda"]) == {10, 40}
    assert df.loc[df["estimated"], "lambda"].notna().all()
    out = _run(tmp_path, "runtime", "--datasets", str(folder), "--runs", "1")
    rt = pd.read_csv(out / "runtime.csv")
    assert ((rt["diversity_share"] > 0) & (rt["diversity_share"] < 1)).all() and (rt["peak_mb"] > 0).all()
    assert (rt["samples_until_lambda"] >= 10).all()


def test_bad_arguments(folder):
    with pytest.raises(SystemExit):
        ex.main(["realworld", "--datasets", str(folder), "--names", "nope"])
    with pytest.raises(SystemExit):
        ex.main(["synthetic", "--runs", "0"])


def test_dask_backend_gives_the_same_rows(folder):
    distributed = pytest.importorskip("dask.distributed")
    args = [(str(folder / "iris.csv"), "stationary", r, 0, "minmax") for r in range(3)]
    local = ex.run_jobs(ex.realworld_job, args, progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        remote = ex.run_jobs(ex.realworld_job, args, dask=cluster.scheduler_address, progress=False)
    pd.testing.assert_frame_equal(local.drop(columns="seconds"), remote.drop(columns="seconds"))
    assert np.all(remote["n_nodes"] > 0)


def test_experiments_page_runs_the_small_studies():
    from streamlit.testing.v1 import AppTest

    from conftest import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page("pages/experiments.py").run()
    at.number_input(key="w_ex_runs").set_value(2).run()
    at.select_slider(key="w_ex_n").set_value(500).run()
    at.button(key="b_ex_syn").click().run()
    assert not at.exception
    syn = at.dataframe[0].value
    assert syn["run"].tolist() == [0, 1] and (syn["n_nodes"] > 0).all()
    at.text_input(key="w_ex_lams").set_value("10,40").run()
    at.number_input(key="w_ex_lruns").set_value(2).run()
    at.button(key="b_ex_lam").click().run()
    lam = at.session_state.ex_lam
    assert len(lam) == 6 and lam["estimated"].sum() == 2
    at.text_input(key="w_ex_lams").set_value("2,x").run()
    at.button(key="b_ex_lam").click().run()
    assert not at.exception and "at least 4" in at.error[0].value
    at.multiselect(key="w_ex_rt").set_value(["iris"]).run()
    at.button(key="b_ex_rt").click().run()
    assert not at.exception
    rt = at.session_state.ex_rt
    assert rt["dataset"].tolist() == ["iris"] and 0 < rt["diversity_share"].iloc[0] < 1

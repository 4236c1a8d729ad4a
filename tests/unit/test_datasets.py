import io

import numpy as np
import pandas as pd
import pytest
from conftest import shared_path

from cae.data import (
    BUILTINS,
    NOISE_LABEL,
    class_incremental_stream,
    load_builtin,
    load_labelled_csv,
    make_paper2d,
    nonstationary_stream,
    stationary_stream,
)


def test_generator_matches_the_authors_file():
    df = pd.read_csv(shared_path("data", "paper_2d_6class_90000.csv"))
    d = make_paper2d(seed=0, noise_fraction=0.0)
    assert d.X.shape == (90000, 2)
    for c in range(6):
        A = df.loc[df.label == c, ["x0", "x1"]].to_numpy()
        B = d.X[d.y == c]
        assert len(A) == len(B) == 15000
        np.testing.assert_allclose(B.mean(0), A.mean(0), atol=0.004)
        covA, covB = np.cov(A.T), np.cov(B.T)
        assert np.abs(covA - covB).max() <= 0.05 * np.abs(covA).max()
        for q in (0.001, 0.05, 0.5, 0.95, 0.999):  # ranges, robust to the file's single outliers
            np.testing.assert_allclose(np.quantile(B, q, axis=0), np.quantile(A, q, axis=0), atol=0.012)


def test_generator_layout_and_noise():
    d = make_paper2d(n_per_class=2000, noise_fraction=0.1, seed=4)
    assert d.X.shape == (13200, 2) and np.all((d.X >= 0) & (d.X <= 1))
    assert (d.y == NOISE_LABEL).sum() == 1200
    means = np.array([d.X[d.y == c].mean(0) for c in range(6)])
    assert means[0, 0] < means[1, 0] < means[2, 0]  # blobs left, rings right
    assert min(means[:4, 1]) > 0.6 and max(means[4:, 1]) < 0.3  # sines at the bottom
    assert means[4, 1] > means[5, 1]
    np.testing.assert_array_equal(make_paper2d(100, seed=4).X, make_paper2d(100, seed=4).X)
    assert not np.array_equal(make_paper2d(100, seed=4).X, make_paper2d(100, seed=5).X)


def test_streams_are_reproducible_and_complete():
    d = make_paper2d(n_per_class=300, seed=1)
    s = stationary_stream(d, seed=7)
    assert sorted(map(tuple, s.X.tolist())) == sorted(map(tuple, d.X.tolist()))
    assert s.fingerprint() == stationary_stream(d, seed=7).fingerprint() != stationary_stream(d, seed=8).fingerprint()
    ns = nonstationary_stream(d, seed=7)
    assert ns.stage_names == [f"stream #{k}" for k in range(1, 7)]
    assert list(ns.stage_starts) == [0, 330, 660, 990, 1320, 1650] and len(ns) == 1980
    for k in range(6):
        ys = ns.y[ns.stage_starts[k] : ns.stage_ends[k]]
        assert set(ys.tolist()) == {k, NOISE_LABEL} and (ys == NOISE_LABEL).sum() == 30
    assert ns.stage_of(0) == 0 and ns.stage_of(330) == 1 and ns.stage_of(1979) == 5
    assert ns.fingerprint() == nonstationary_stream(d, seed=7).fingerprint()
    custom = nonstationary_stream(d, order=[5, 2, 0], seed=1)
    assert custom.stage_classes == [[5], [2], [0]]
    assert set(custom.y[: custom.stage_starts[1]].tolist()) == {5, NOISE_LABEL}
    with pytest.raises(ValueError, match="distinct"):
        class_incremental_stream(d, order=[1, 1])
    with pytest.raises(ValueError, match="seed"):
        stationary_stream(d, seed=-1)


def test_class_incremental_on_iris():
    d = load_builtin("iris")
    s = class_incremental_stream(d, order=[2, 0, 1], seed=0)
    assert s.stage_names == ["virginica", "setosa", "versicolor"]
    assert (s.y[:50] == 2).all() and (s.y[50:100] == 0).all()


@pytest.mark.parametrize("name", BUILTINS)
def test_builtins_load_offline(name):
    d = load_builtin(name)
    assert d.X.ndim == 2 and len(d.X) == len(d.y) > 100 and np.all(np.isfinite(d.X))
    assert len(d.feature_names) == d.X.shape[1]


def test_load_labelled_csv_numeric_labels_sorted():
    d = load_labelled_csv(io.StringIO("a,label\n1,10\n2,2\n3,10\n"))
    assert d.class_names == ["2", "10"] and d.y.tolist() == [1, 0, 1]


def test_real_world_datasets_load():
    d = load_labelled_csv(shared_path("datasets", "iris.csv"))
    assert d.X.shape == (150, 4) and len(d.class_names) == 3


def test_sample_data_files_are_reproducible():
    from conftest import ROOT

    from cae.data import SAMPLE_FILES, sample_frame

    for name in SAMPLE_FILES:
        on_disk = pd.read_csv(ROOT / "sample_data" / name)
        pd.testing.assert_frame_equal(on_disk, sample_frame(name), check_exact=False, rtol=0, atol=1e-12)


def test_the_class_sorted_iris_sample_reads_through_the_apps_reader():
    """sample_data/iris_sorted_by_class.csv is scikit-learn's Iris with the built-in Iris's column names, read by
    the app's CSV reader as 4 numeric features and a text species column, its rows in 3 blocks of 50 by class."""
    from conftest import ROOT
    from sklearn.datasets import load_iris

    from cae.data import load_builtin
    from cae.data.csvio import read_csv

    table, report = read_csv((ROOT / "sample_data" / "iris_sorted_by_class.csv").read_bytes())
    d = load_builtin("iris")
    assert table.numeric_columns == d.feature_names and table.text_columns == ["species"]
    assert not report.warnings and not report.unparsable_cells
    species = table.frame["species"].tolist()
    assert species == [name for name in d.class_names for _ in range(50)]  # sorted by class
    sel = table.select(d.feature_names)
    np.testing.assert_array_equal(sel.X, load_iris().data)  # the rows as scikit-learn has them (already sorted)


def test_python_m_cae_data_rewrites_sample_data_exactly(tmp_path):
    """``python -m cae.data sample_data FOLDER`` writes the very files the repository holds."""
    import subprocess
    import sys

    from conftest import ROOT

    from cae.data import HOME_MODEL, SAMPLE_FILES

    subprocess.run([sys.executable, "-m", "cae.data", "sample_data", str(tmp_path)], check=True, cwd=ROOT)
    for name in SAMPLE_FILES:
        pd.testing.assert_frame_equal(pd.read_csv(tmp_path / name), pd.read_csv(ROOT / "sample_data" / name))
    from cae import CAE

    written, stored = CAE.load(tmp_path / HOME_MODEL), CAE.load(ROOT / "sample_data" / HOME_MODEL)
    np.testing.assert_array_equal(written.nodes_, stored.nodes_)
    np.testing.assert_array_equal(written.edges_, stored.edges_)


def test_home_model_is_the_model_the_stream_gives():
    """The home picture's stored model is exactly CAE after one pass over the home stream."""
    from conftest import ROOT

    from cae import CAE
    from cae.data import HOME_MODEL, home_stream

    stored = CAE.load(ROOT / "sample_data" / HOME_MODEL)
    fresh = CAE().learn_many(home_stream().X)
    np.testing.assert_array_equal(stored.nodes_, fresh.nodes_)
    np.testing.assert_array_equal(stored.edges_, fresh.edges_)
    assert stored.n_samples_seen_ == len(home_stream()) == 9900
    # the home page reads it with NumPy alone: the same drawable state
    from cae.app.figures import saved_network

    view = saved_network(ROOT / "sample_data" / HOME_MODEL)
    for name in ("nodes_", "node_ids_", "win_counts_", "sigmas_", "edges_", "edge_ages_", "node_labels_"):
        np.testing.assert_array_equal(getattr(view, name), getattr(stored, name), err_msg=name)
    assert view.n_clusters_ == stored.n_clusters_

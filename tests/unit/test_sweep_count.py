"""λ counted per call [ref]: CAE(sweep_count="batch") sweeps when the sample index within the current batch
(one call of the authors' CAE_train.m) is a multiple of λ; the default counts over the stream."""

import io
import zipfile

import numpy as np
import pytest
from conftest import ROOT, rewrite_model_file

import cae
from cae import CAE, ModelFileError
from cae.algorithms import _cae_kernel as kernel
from cae.data import make_paper2d, nonstationary_stream

LAM = 20


def _staged():
    s = nonstationary_stream(make_paper2d(n_per_class=150, seed=4), order=[0, 3, 4], seed=4)
    return s.X, list(zip(s.stage_starts, s.stage_ends))


def _sweeps(sweep_count):
    """The t of every step whose sweep deleted nodes, learning stage by stage with end_batch between."""
    X, stages = _staged()
    m = CAE(deletion_interval=LAM, max_edge_age=10, sweep_count=sweep_count)
    swept = []
    for a, b in stages:
        for x in X[a:b]:
            rec = m.learn_one(x)
            if rec.swept_ids:
                swept.append(rec.t)
        m.end_batch()
    return m, swept, stages


def test_a_staged_run_sweeps_on_the_index_within_each_batch():
    X, stages = _staged()
    lengths = [b - a for a, b in stages]
    assert any(n % LAM for n in lengths[:-1])  # a stage whose length is no multiple of λ: the two differ
    per_batch, swept_b, _ = _sweeps("batch")
    per_stream, swept_s, _ = _sweeps("stream")
    assert swept_s and all(t % LAM == 0 for t in swept_s)
    starts = [a for a, _ in stages]
    local = [t - max(s for s in starts if s < t) for t in swept_b]  # the index within the batch
    assert swept_b and all(i % LAM == 0 for i in local)
    later = [t for t in swept_b if t > stages[0][1]]
    assert later and any(t % LAM for t in later)  # after stage 1 the schedules part
    # stage 1 is the same in both: its sample index is t
    assert [t for t in swept_b if t <= stages[0][1]] == [t for t in swept_s if t <= stages[0][1]]
    assert not np.array_equal(per_batch.nodes_, per_stream.nodes_)


def test_one_batch_is_the_same_either_way_and_learn_many_matches_learn_one():
    X, stages = _staged()
    a = CAE(LAM, 10, sweep_count="batch").fit(X)
    b = CAE(LAM, 10).fit(X)
    np.testing.assert_array_equal(a.nodes_, b.nodes_)
    np.testing.assert_array_equal(a.edges_, b.edges_)
    staged = CAE(LAM, 10, sweep_count="batch")
    for lo, hi in stages:
        staged.learn_many(X[lo:hi]).end_batch()
    one_by_one, _, _ = _sweeps("batch")
    np.testing.assert_array_equal(staged.nodes_, one_by_one.nodes_)
    np.testing.assert_array_equal(staged.win_counts_, one_by_one.win_counts_)
    # partial_fit ends its batch, as a call of CAE_train.m returns
    calls = CAE(LAM, 10, sweep_count="batch")
    for lo, hi in stages:
        calls.partial_fit(X[lo:hi])
    np.testing.assert_array_equal(calls.nodes_, staged.nodes_)


def test_the_batch_count_survives_save_and_load_mid_batch(tmp_path):
    X, stages = _staged()
    whole = CAE(LAM, 10, sweep_count="batch")
    for lo, hi in stages:
        whole.learn_many(X[lo:hi]).end_batch()
    (lo1, hi1), (lo2, hi2) = stages[0], stages[1]
    part = CAE(LAM, 10, sweep_count="batch").learn_many(X[lo1:hi1]).end_batch().learn_many(X[lo2 : lo2 + 37])
    part.save(tmp_path / "m.npz")
    resumed = cae.load_model(tmp_path / "m.npz")
    assert resumed.get_params()["sweep_count"] == "batch" and int(resumed.network_.iscal[kernel.I_BATCH_T]) == 37
    resumed.learn_many(X[lo2 + 37 : hi2]).end_batch()
    for lo, hi in stages[2:]:
        resumed.learn_many(X[lo:hi]).end_batch()
    np.testing.assert_array_equal(resumed.nodes_, whole.nodes_)
    with pytest.raises(ValueError, match="sweep_count must be one of 'stream', 'batch'"):
        CAE(sweep_count="call").fit(X[:20])


def test_files_written_before_the_batch_count_load_and_count_over_the_stream():
    """A model file with the 13 integer scalars of before (sample_data's home model is one) loads as
    sweep_count="stream" and resumes exactly as it would have."""
    home = cae.load_model(ROOT / "sample_data" / "home_model.npz")
    assert home.get_params()["sweep_count"] == "stream" and home.network_.iscal.shape == (kernel.N_ISCAL,)
    X, _ = _staged()
    m = CAE().fit(X[:400])
    buf = io.BytesIO()
    m.save(buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    iscal = np.load(io.BytesIO(parts["state_iscal.npy"]))
    old = cae.load_model(rewrite_model_file(parts, arrays={"iscal": iscal[:13]}))
    np.testing.assert_array_equal(old.learn_many(X[400:]).nodes_, CAE().fit(X[:400]).learn_many(X[400:]).nodes_)
    bad = iscal.copy()
    bad[kernel.I_SWEEP_PER_BATCH] = 1  # a state that counts per batch in a model that says "stream"
    with pytest.raises(ModelFileError, match="sweep count"):
        cae.load_model(rewrite_model_file(parts, arrays={"iscal": bad}))

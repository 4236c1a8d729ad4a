"""A fresh machine: un-jitted at once, compiled in the background, the same results either way."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

from cae import CAE
from cae.data import make_paper2d, stationary_stream

pytestmark = pytest.mark.slow  # compiles every kernel from an empty cache, in subprocesses

SWITCH = r"""
import json, sys, time, numpy as np
from cae import CAE, _jit

X = np.load(sys.argv[1])
m = CAE()
m.learn_many(X[:1500])                       # the first call starts the background compilation
before = _jit.status()
seen = []                                    # what the app's notice says meanwhile (polled as the app does)
deadline = time.monotonic() + 900
while _jit.status() == "preparing" and time.monotonic() < deadline:
    p = _jit.progress()
    if p and (not seen or seen[-1][0] != [p["done"], p["total"]]):
        seen.append([[p["done"], p["total"]], p["left"], _jit.describe_progress(p)])
    time.sleep(0.05)
state = _jit.wait(900)                       # then the compiled kernel takes over, mid-stream
m.learn_many(X[1500:])
m.save(sys.argv[2])
print(json.dumps({"before": before, "after": state, "compiled": _jit.compiled(), "progress": seen}))
"""


@pytest.fixture(scope="module")
def cold_run(tmp_path_factory):
    """A fresh machine (an empty kernel cache): learn un-jitted, watch the background compilation, switch."""
    tmp_path = tmp_path_factory.mktemp("cold")
    X = stationary_stream(make_paper2d(n_per_class=600, seed=3), seed=3).X
    np.save(tmp_path / "X.npy", X)
    env = dict(
        os.environ, CAE_EXPLORER_CACHE=str(tmp_path / "empty-cache"), CAE_WARMUP_ALGORITHMS="CAE", CAE_JIT="auto"
    )
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", SWITCH, str(tmp_path / "X.npy"), str(tmp_path / "m.npz")],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert out.returncode == 0, out.stderr
    return X, tmp_path, json.loads(out.stdout.strip().splitlines()[-1])


def test_a_run_that_starts_unjitted_and_finishes_compiled_is_the_same(cold_run):
    X, tmp_path, info = cold_run
    assert {k: info[k] for k in ("before", "after", "compiled")} == {
        "before": "preparing",
        "after": "compiled",
        "compiled": True,
    }
    assert any(p.name.endswith(".ready") for p in (tmp_path / "empty-cache").iterdir())
    switched = CAE.load(tmp_path / "m.npz")
    whole = CAE().fit(X)  # compiled throughout (this test process)
    np.testing.assert_array_equal(switched.nodes_, whole.nodes_)
    np.testing.assert_array_equal(switched.edges_, whole.edges_)
    np.testing.assert_array_equal(switched.win_counts_, whole.win_counts_)
    assert switched.threshold_ == whole.threshold_ and switched.n_samples_seen_ == whole.n_samples_seen_


def test_while_it_compiles_the_app_says_how_far_it_is_and_how_long_the_rest_should_take(cold_run):
    """The first-run notice said "about a minute" (a busy machine took 9.5): it now shows the parts compiled,
    k of n, as the background process reports them, and the time left at the time per part measured so far."""
    from cae.streamlit_glue.common import kernel_notice_text

    seen = cold_run[2]["progress"]
    counts = [c for c, _, _ in seen]
    assert counts, "no progress was reported"
    total = counts[0][1]
    # CAE on 1-D, 2-D and 3-D data (a 1-column CSV compiled on its first use: 286 s, issue 41), its parallel labelling
    assert total == 4 and all(n == total for _, n in counts)
    done = [k for k, _ in counts]
    assert done == sorted(done)  # k of n, never backwards
    for (k, n), left, words in seen:
        assert f"{k} of {n} parts compiled" in words
        if k:  # an estimate from the measured time per part
            assert left is not None and left >= 0 and "left at" in words and "a part" in words
    assert any(0 < k < n for k, n in counts), counts  # seen part way
    text = kernel_notice_text({"done": 1, "total": 13, "elapsed": 120.0, "left": 1440.0, "part": "CAE, 2-D data"})
    assert "1 of 13 parts compiled in 2 min; about 24 min left at 2 min a part" in text
    assert "about a minute" not in text


def test_the_cache_folder_is_writable_and_documented(tmp_path, monkeypatch):
    from cae import _jit

    monkeypatch.setenv("CAE_EXPLORER_CACHE", str(tmp_path / "c"))
    assert _jit.cache_dir() == str(tmp_path / "c")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    monkeypatch.setenv("CAE_EXPLORER_CACHE", str(ro / "sub"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    d = _jit.cache_dir()
    assert os.access(d, os.W_OK) and (os.geteuid() == 0 or d == str(tmp_path / "xdg" / "cae-explorer" / "numba"))
    assert "CAE_EXPLORER_CACHE" in _jit.__doc__ and "read-only site-packages" in _jit.__doc__


def test_the_test_session_runs_compiled():
    from cae import _jit

    assert _jit.status() == "compiled"
    CAE().fit(np.random.default_rng(0).random((50, 2)))
    import cae.algorithms._cae_kernel as k

    assert type(k.run).__name__ == "CPUDispatcher"

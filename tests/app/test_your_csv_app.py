"""Your data past 250,000 rows (AppTest): read once, learned in the background while the page stays usable,
drawn as a density image under the network; a model from `cae learn` scales the rows it labels itself; the
upload limit follows Streamlit's option."""

import io
import json
import time

import numpy as np
import pandas as pd
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae.app import density, your_data
from cae.cli import main as cae

APP = str(ROOT / "app.py")


def _page(path="pages/upload.py"):
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(path).run()
    assert not at.exception
    return at


def _csv(n, seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.2, 0.2], [0.8, 0.3], [0.5, 0.8]])
    X = centres[rng.integers(0, 3, n)] + rng.normal(0, 0.03, (n, 2))
    buf = io.StringIO()
    pd.DataFrame({"x": X[:, 0].round(5), "y": X[:, 1].round(5)}).to_csv(buf, index=False)
    return buf.getvalue().encode()


def _chart(at, key):
    return json.loads(next(c for c in at.get("plotly_chart") if c.proto.id.endswith("-" + key)).proto.spec)


def _array(value):
    """A figure's array as Plotly's JSON holds it: a list, or typed bytes (``bdata``, base64)."""
    if isinstance(value, dict):
        import base64

        shape = [int(k) for k in str(value.get("shape", "-1")).split(",")]
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).reshape(shape)
    return np.asarray(value, float)


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def test_a_large_file_learns_in_the_background_and_is_drawn_as_a_density():
    n = your_data.BACKGROUND_ROWS + 10_000
    at = _page()
    at.file_uploader(key="w_upload").set_value(("big.csv", _csv(n), "text/csv")).run()
    assert not at.exception and not at.error
    at.button(key="b_learn").click().run()
    assert any("learning in the background" in p.proto.text for p in at.get("progress"))
    at.selectbox(key="w_sample_name").select_index(1).run()  # the page answers while the model learns
    assert not at.exception
    for _ in range(240):  # the job runs in its thread; each run of the page looks at it
        if any(m.label == "Rows learned" for m in at.metric):
            break
        time.sleep(0.5)
        at.run()
    assert _metric(at, "Rows learned") == f"{n:,}"
    spec = _chart(at, "up_view")
    assert [t["type"] for t in spec["data"]][0] == "heatmap"
    assert round(np.nansum(10 ** _array(spec["data"][0]["z"]))) == n  # every row counted
    assert any(f"All {n:,} rows as a density image" in c.value for c in at.caption)


def test_a_small_file_is_still_learned_at_once_and_drawn_as_points():
    at = _page()
    at.file_uploader(key="w_upload").set_value(("small.csv", _csv(3000), "text/csv")).run()
    at.button(key="b_learn").click().run()
    assert _metric(at, "Rows learned") == "3,000"
    assert [t["type"] for t in _chart(at, "up_view")["data"]][0] == "scattergl"
    assert density.SCATTER_MAX >= 3000


def test_a_model_from_cae_learn_scales_the_rows_it_labels(tmp_path):
    data = _csv(20_000)
    (tmp_path / "d.csv").write_bytes(data.replace(b"\n0.", b"\n1000."))  # x in the thousands: scaling matters
    assert cae(["learn", str(tmp_path / "d.csv"), "--scale", "minmax", "--out", str(tmp_path / "m.npz")]) == 0
    at = _page()
    at.file_uploader(key="w_upload").set_value(("d.csv", (tmp_path / "d.csv").read_bytes(), "text/csv")).run()
    at.radio(key="w_up_source").set_value("saved").run()
    blob = (tmp_path / "m.npz").read_bytes()
    at.file_uploader(key="w_up_model").set_value(("m.npz", blob, "application/octet-stream")).run()
    assert any("rows are scaled the same way" in c.value for c in at.caption)
    at.button(key="b_label").click().run()
    assert not at.exception
    from cae import load_model
    from cae.data.csvio import Scaling, read_csv

    model = load_model(tmp_path / "m.npz")
    X = read_csv(tmp_path / "d.csv")[0].select(["x", "y"]).X
    want = model.predict(pd.DataFrame(Scaling.from_dict(model.input_scaling_, 2).apply(X), columns=["x", "y"]))
    assert _metric(at, "#clusters") == str(model.n_clusters_)
    assert at.session_state.up_result["labels"].tolist() == want.tolist()


def test_the_upload_limit_follows_streamlit_s_option():
    assert your_data.upload_limits(20).max_bytes == 20 * 2**20
    at = _page()
    assert "Up to 200 MB" in at.get("file_uploader")[0].proto.help


def test_a_long_noisy_file_shows_both_answers_the_merge_said_and_the_clusters_over_the_rows():
    """A compact version of the million-row merge (100,000 noisy rows of the paper's distributions, where the
    network of every row joins two clusters): the page says so in one sentence, offers the samples' answer in
    one click (the Answer choice), shows the other answer beside the one chosen, and draws the clusters over
    the rows learned."""
    from cae.bench.quality import make_case

    X, y, _ = make_case("paper2d-noise", 100_000, 2)
    buf = io.StringIO()
    pd.DataFrame({"x0": X[:, 0].round(6), "x1": X[:, 1].round(6), "label": y}).to_csv(buf, index=False)
    at = _page()
    at.file_uploader(key="w_upload").set_value(("long.csv", buf.getvalue().encode(), "text/csv")).run()
    at.button(key="b_learn").click().run()
    assert not at.exception and _metric(at, "Rows learned") == "100,000"
    warning = [w.value for w in at.warning if "joined clusters" in w.value]
    assert len(warning) == 1 and "choosing the samples under Answer above gives" in warning[0]
    every = (_metric(at, "#clusters"), float(_metric(at, "NMI")))
    assert any(c.value.startswith("On the samples (5 × 20,000 rows): ") for c in at.caption)
    trace = _chart(at, "up_trace")
    assert trace["data"][0]["name"] == "clusters with ≥ 1 % of the rows"
    at.radio(key="w_up_answer").set_value("samples").run()
    assert not at.exception
    assert _metric(at, "Rows learned, each sample") == "20,000"
    samples = (_metric(at, "#clusters"), float(_metric(at, "NMI")))
    assert samples[1] > every[1] + 0.02, (every, samples)
    beside = [c.value for c in at.caption if c.value.startswith("On all rows: ")]
    assert len(beside) == 1 and f"NMI {every[1]:.3f}" in beside[0]


def test_a_clean_long_file_has_both_answers_and_no_warning():
    at = _page()
    at.file_uploader(key="w_upload").set_value(("clean.csv", _csv(60_000), "text/csv")).run()
    at.button(key="b_learn").click().run()
    assert not at.exception and at.radio(key="w_up_answer").value == "all"
    assert not [w for w in at.warning if "joined clusters" in w.value]

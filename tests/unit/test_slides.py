"""cae.app.slides: a run as a self-contained animated HTML file, and a run's trace as CSV."""

import base64
import io
import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from cae import CAE
from cae.app.slides import (
    MAX_FRAMES,
    Frame,
    animation_figure,
    animation_html,
    build_animation,
    export_playground,
    frame_steps,
    record_frames,
    traces_csv,
)
from cae.app.stepper import Stepper
from cae.data import make_drift_stream, make_paper2d, nonstationary_stream
from cae.registry import make_algorithm


@pytest.fixture(scope="module")
def stream():
    return nonstationary_stream(make_paper2d(n_per_class=300, seed=0), seed=0)  # 1,980 samples, 6 stages


def _decode(v):
    """A data array as Plotly writes it into the HTML (base64 ``bdata`` or a plain list)."""
    if isinstance(v, dict):
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray(v, dtype=float)


def _parse(html):
    """The ``data``, ``layout`` and ``frames`` that the HTML file hands to plotly.js."""
    text = html.decode("utf-8")
    dec = json.JSONDecoder()
    i = text.rindex("Plotly.newPlot(") + len("Plotly.newPlot(")

    def value(i):
        while text[i] in " \n,":
            i += 1
        return dec.raw_decode(text, i)

    _, i = value(i)  # the div's id
    data, i = value(i)
    layout, i = value(i)
    j = text.index("Plotly.addFrames(", i) + len("Plotly.addFrames(")
    j = text.index(",", j) + 1  # after the div's id (in single quotes)
    frames, _ = value(j)
    return data, layout, frames


def _segments(x, y):
    """The set of drawn line segments of a NaN-separated polyline (rounded, unordered ends)."""
    P = np.column_stack([x, y]).astype(np.float64)
    out = set()
    for a, b in zip(P[:-1], P[1:]):
        if np.all(np.isfinite(a)) and np.all(np.isfinite(b)):
            out.add(frozenset([tuple(np.round(a, 5)), tuple(np.round(b, 5))]))
    return out


# ---------------------------------------------------------------- the steps
def test_frame_steps_are_exact_and_distinct():
    assert frame_steps(0, 1980, 2, 1980).tolist() == [0, 1980]
    assert frame_steps(100, 1100, 5, 1980).tolist() == [100, 350, 600, 850, 1100]
    for a, b, k in [(0, 9900, 60), (7, 1000, 200), (0, 199, 200), (13, 17, 5), (0, 1, 2)]:
        st = frame_steps(a, b, k, 9900)
        assert len(st) == k and st[0] == a and st[-1] == b and np.all(np.diff(st) >= 1)
        np.testing.assert_allclose(st, np.linspace(a, b, k), atol=0.5)


@pytest.mark.parametrize(
    "args, message",
    [
        ((-1, 100, 10, 1980), "t_start must be 0 or more"),
        ((0, 2000, 10, 1980), r"t_end \(2000\) is beyond the end of the stream \(1980 samples\)"),
        ((500, 500, 10, 1980), r"t_start \(500\) must be less than t_end \(500\)"),
        ((600, 500, 10, 1980), "must be less than"),
        ((0, 1980, 1, 1980), "n_frames must be between 2 and 200, got 1"),
        ((0, 1980, 201, 1980), "n_frames must be between 2 and 200, got 201"),
        ((0, 1980, 2.5, 1980), "n_frames must be a whole number"),
        ((0, "end", 10, 1980), "t_end must be a whole number"),
        ((0, 5, 10, 1980), "10 frames need 10 distinct steps, but steps 0 to 5 are only 6"),
    ],
)
def test_frame_steps_errors(args, message):
    with pytest.raises(ValueError, match=message):
        frame_steps(*args)


# ----------------------------------------------------------------- learning
def test_each_frame_is_a_fresh_model_learned_to_its_step(stream):
    frames = record_frames(stream.X, CAE, t_start=0, t_end=len(stream), n_frames=12)
    assert [f.t for f in frames] == frame_steps(0, len(stream), 12, len(stream)).tolist()
    assert all(isinstance(f, Frame) for f in frames) and frames[0].n_nodes == 0 and frames[0].n_clusters == 0
    for f in frames[1:]:
        fresh = CAE().learn_many(stream.X[: f.t])
        assert f.n_nodes == len(fresh.nodes_)
        np.testing.assert_array_equal(f.nodes, fresh.nodes_)
        np.testing.assert_array_equal(f.edges, fresh.edges_)
        np.testing.assert_array_equal(f.node_labels, fresh.node_labels_)
        np.testing.assert_array_equal(f.win_counts, fresh.win_counts_)
        assert f.n_clusters == fresh.n_clusters_ and f.n_edges == len(fresh.edges_)


def test_the_stream_is_learned_once(stream):
    calls = []

    class Counting(CAE):
        def learn_many(self, X):
            calls.append(len(X))
            return super().learn_many(X)

    frames = record_frames(stream.X, Counting, t_start=300, t_end=1500, n_frames=7)
    assert sum(calls) == 1500 and calls[0] == 300 and len(calls) == 7  # up to the first frame, then frame to frame
    assert frames[-1].n_nodes == len(CAE().learn_many(stream.X[:1500]).nodes_)


def test_frames_are_copies(stream):
    model = CAE()
    frames = record_frames(stream.X, lambda: model, t_start=100, t_end=200, n_frames=2)
    assert frames[0].n_nodes != len(model.nodes_) or not np.array_equal(frames[0].nodes, model.nodes_)
    frames[1].nodes[:] = -1  # writable, independent of the model
    assert np.all(np.asarray(model.nodes_) >= 0)


@pytest.mark.parametrize("algo", ["TCA", "AutoCloud", "CAEA", "SOINN+"])
def test_other_algorithms(stream, algo):
    """TCA's edges have no age, AutoCloud has no edges at all: both animate."""
    frames = record_frames(stream.X, lambda: make_algorithm(algo), t_start=0, t_end=1200, n_frames=4)
    for f in frames[1:]:
        fresh = make_algorithm(algo).learn_many(stream.X[: f.t])
        assert f.n_nodes == len(fresh.nodes_) and f.n_clusters == fresh.n_clusters_
        np.testing.assert_array_equal(f.edges, fresh.edges_)
    if algo == "TCA":
        with pytest.raises(AttributeError):
            fresh.edge_ages_
    if algo == "AutoCloud":
        assert all(f.n_edges == 0 for f in frames)
    data, layout, anim = _parse(animation_html(frames, stream.X, algorithm=algo))
    assert len(anim) == 4 and algo in anim[-1]["layout"]["title"]["text"]
    assert len(_decode(anim[-1]["data"][-1]["x"])) == frames[-1].n_nodes


def test_record_frames_errors(stream):
    with pytest.raises(ValueError, match="beyond the end"):
        record_frames(stream.X, t_end=len(stream) + 1, n_frames=5)
    with pytest.raises(ValueError, match="n_frames must be between 2 and 200"):
        record_frames(stream.X, n_frames=MAX_FRAMES + 1)
    with pytest.raises(ValueError, match="must be less than"):
        record_frames(stream.X, t_start=len(stream), n_frames=5)
    with pytest.raises(ValueError, match="model_factory must be callable"):
        record_frames(stream.X, CAE(), n_frames=5)
    with pytest.raises(ValueError, match="no learn_many method"):
        record_frames(stream.X, dict, n_frames=5)
    with pytest.raises(ValueError, match="two features"):
        record_frames(stream.X[:, :1], n_frames=5)
    with pytest.raises(ValueError, match="2-D array"):
        record_frames(stream.X[:, 0], n_frames=5)


# ----------------------------------------------------------------- the file
@pytest.fixture(scope="module")
def exported(stream):
    frames = record_frames(stream.X, CAE, t_start=100, t_end=len(stream), n_frames=25)
    html = animation_html(
        frames,
        stream.X,
        max_points=800,
        title="paper <2-D>",
        algorithm="CAE",
        stage_starts=stream.stage_starts,
        stage_names=stream.stage_names,
    )
    return frames, html, _parse(html)


def test_html_is_self_contained(exported):
    _, html, _ = exported
    text = html.decode("utf-8")
    assert text.startswith("<!doctype html>") and "<title>paper &lt;2-D&gt;</title>" in text
    assert "plotly.js v" in text[:5000] or re.search(r"plotly\.js v\d", text)  # the library's own banner, inline
    assert len(html) > 3_000_000  # plotly.js itself is most of the file
    assert not re.search(r"<script[^>]+src=", text, re.I)  # nothing loaded from anywhere
    assert "cdn.plot.ly/plotly" not in text and "mathjax" not in text.lower().split("plotly.newplot")[-1]


def test_the_toolbar_has_no_button_that_does_nothing(exported):
    """No *Share chart…* (it uploads to Plotly Cloud: without an account and a server address nothing happens) and
    no box or lasso selection (nothing in the file reads a selection); the camera, zoom and pan stay."""
    _, html, _ = exported
    config = html.decode("utf-8").split("Plotly.newPlot(")[-1]
    assert re.search(r'"showSendToCloud":\s*false', config)
    assert re.search(r'"modeBarButtonsToRemove":\s*\["sendChartToCloud",\s*"select2d",\s*"lasso2d"\]', config)
    assert re.search(r'"displaylogo":\s*false', config) and re.search(r'"responsive":\s*true', config)


def test_frames_and_slider_steps_as_asked(exported):
    frames, _, (data, layout, anim) = exported
    assert len(anim) == 25 == len(frames)
    steps = layout["sliders"][0]["steps"]
    assert len(steps) == 25
    assert [s["args"][0] for s in steps] == [[str(f.t)] for f in frames] == [[a["name"]] for a in anim]
    assert all(s["method"] == "animate" and s["args"][1]["mode"] == "immediate" for s in steps)
    buttons = layout["updatemenus"][0]["buttons"]
    assert [b["label"] for b in buttons] == ["▶ Play", "❚❚ Pause"] and buttons[0]["args"][0] is None


def test_each_frame_draws_its_network(exported, stream):
    frames, _, (data, layout, anim) = exported
    nf = len(frames)
    assert len(data) == nf + 3  # a data chunk per frame, the newest chunk, edges, nodes
    for k, (f, a) in enumerate(zip(frames, anim)):
        assert a["traces"] == list(range(nf + 3))
        fresh = CAE().learn_many(stream.X[: f.t])
        nodes = a["data"][-1]
        x, y = _decode(nodes["x"]), _decode(nodes["y"])
        assert len(x) == len(y) == len(fresh.nodes_) == f.n_nodes
        np.testing.assert_allclose(np.column_stack([x, y]), fresh.nodes_, atol=1e-6)  # float32
        assert x.dtype == np.float32
        np.testing.assert_array_equal(_decode(nodes["customdata"]), fresh.node_labels_)
        edges = a["data"][-2]
        P = np.asarray(fresh.nodes_, dtype=np.float32).astype(np.float64)
        want = {frozenset([tuple(np.round(P[i], 5)), tuple(np.round(P[j], 5))]) for i, j in fresh.edges_}
        assert _segments(_decode(edges["x"]), _decode(edges["y"])) == want
        # every edge is drawn once; trails share their nodes, so there are fewer than 3 points per edge
        n_pts = len(_decode(edges["x"]))
        assert n_pts <= 3 * len(fresh.edges_)
        title = a["layout"]["title"]["text"]
        assert f"step {f.t:,} of {len(stream):,}" in title
        assert f"{len(fresh.nodes_)} nodes" in title and f"{fresh.n_clusters_} cluster" in title
        assert stream.stage_names[stream.stage_of(f.t - 1)] in title and "paper &lt;2-D&gt;" in title
        # the data of frames 0..k are on, the later ones off
        assert [d["visible"] for d in a["data"][:nf]] == [m <= k for m in range(nf)]


def test_data_are_thinned_and_written_once(exported, stream):
    frames, _, (data, layout, anim) = exported
    nf = len(frames)
    chunks = [np.column_stack([_decode(d["x"]), _decode(d["y"])]) for d in data[:nf]]
    drawn = np.vstack(chunks)
    assert 700 <= len(drawn) <= 800  # max_points=800
    assert all("x" not in d for a in anim for d in a["data"][:nf])  # frames only switch chunks on and off
    # chunk k: samples that arrived up to frame k's step, thinned evenly over the stream up to the last frame
    shown = np.unique(np.linspace(0, frames[-1].t - 1, 800).round().astype(int))
    np.testing.assert_allclose(drawn, stream.X[shown], atol=1e-6)
    assert len(chunks[0]) == np.sum(shown < frames[0].t)
    # the newest chunk again, for the highlight
    newest = anim[7]["data"][nf]
    np.testing.assert_array_equal(_decode(newest["x"]), _decode(data[7]["x"]))
    assert len(_decode(anim[0]["data"][nf]["x"])) == 0 and len(_decode(data[nf]["x"])) == 0  # none before frame 1


def test_axes_are_fixed_over_the_whole_stream(exported, stream):
    _, _, (data, layout, anim) = exported
    (x0, x1), (y0, y1) = layout["xaxis"]["range"], layout["yaxis"]["range"]
    assert x0 < stream.X[:, 0].min() and x1 > stream.X[:, 0].max()
    assert y0 < stream.X[:, 1].min() and y1 > stream.X[:, 1].max()
    assert layout["xaxis"]["autorange"] is False and layout["yaxis"]["autorange"] is False
    assert all(set(a["layout"]) == {"title"} for a in anim)  # frames never touch the axes


def test_figure_errors(stream):
    frames = record_frames(stream.X, t_start=0, t_end=400, n_frames=3)
    with pytest.raises(ValueError, match="between 2 and 200 frames"):
        animation_figure(frames[:1], stream.X)
    with pytest.raises(ValueError, match="increasing steps"):
        animation_figure(frames[::-1], stream.X)
    with pytest.raises(ValueError, match="increasing steps"):
        animation_figure(frames, stream.X[:300])
    with pytest.raises(ValueError, match="max_points"):
        animation_figure(frames, stream.X, max_points=0)
    with pytest.raises(ValueError, match="dims"):
        animation_figure(frames, stream.X, dims=(0, 2))
    fig = animation_figure(frames, stream.X, max_points=50)
    assert sum(len(t.x) for t in fig.data[:3]) <= 50


def test_build_animation_from_a_stream_or_an_array():
    s = make_drift_stream("gradual", n=600, seed=0)
    page = build_animation(s, n_frames=6, max_points=500)
    data, layout, anim = _parse(page)
    assert len(anim) == 6 and "drift-gradual (gradual drift, seed 0)" in layout["title"]["text"]
    assert "drift 4/4" in anim[-1]["layout"]["title"]["text"] and "CAE" in anim[-1]["layout"]["title"]["text"]
    caea = build_animation(s.X, lambda: CAE(deletion_interval=50, max_edge_age=20), t_start=60, t_end=600, n_frames=3)
    data, layout, anim = _parse(caea)
    assert [a["name"] for a in anim] == ["60", "330", "600"] and "CAEA" in anim[0]["layout"]["title"]["text"]
    seen = []
    build_animation(s, n_frames=4, progress=seen.append)
    assert seen == [0.25, 0.5, 0.75, 1.0]


def test_export_playground():
    pg = Stepper(make_drift_stream("recurring", n=800, seed=1), model_factory=lambda: make_algorithm("TCA"))
    with pytest.raises(ValueError, match="step it past t_start"):
        export_playground(pg, 0, n_frames=5)
    pg.step(700)
    page = export_playground(pg, 100, n_frames=7)  # up to the playground's step
    data, layout, anim = _parse(page)
    assert [int(a["name"]) for a in anim] == frame_steps(100, 700, 7, 880).tolist()
    assert len(layout["sliders"][0]["steps"]) == 7
    fresh = make_algorithm("TCA").learn_many(pg.stream.X[:700])
    assert len(_decode(anim[-1]["data"][-1]["x"])) == len(fresh.nodes_) == len(pg.model.nodes_)
    assert "TCA" in anim[-1]["layout"]["title"]["text"] and "step 700 of 880" in anim[-1]["layout"]["title"]["text"]
    whole = _parse(export_playground(pg, 0, len(pg.stream), n_frames=3))[2]  # beyond pg.t: the stream is learned on
    assert [a["name"] for a in whole] == ["0", "440", "880"]
    with pytest.raises(ValueError, match="beyond the end of the stream"):
        export_playground(pg, 0, 881, n_frames=3)
    with pytest.raises(ValueError, match="n_frames must be between 2 and 200"):
        export_playground(pg, 0, 700, n_frames=1)


# ------------------------------------------------------------------- traces
def test_traces_csv_round_trips():
    pg = Stepper(make_drift_stream("switch", n=500, seed=0))
    pg.step(400)
    raw = traces_csv(pg.trace_so_far, pg.columns)
    back = pd.read_csv(io.BytesIO(raw))
    assert list(back.columns) == list(pg.columns) and len(back) == 400
    np.testing.assert_array_equal(back.to_numpy(dtype=float), pg.trace_so_far)  # exact, NaN included
    assert back["t"].tolist() == list(range(1, 401)) and back["t"].dtype == np.int64
    assert raw.decode().splitlines()[1].startswith("1,")  # whole numbers without ".0"
    assert np.isnan(pg.trace_so_far).any()  # the round trip covered empty cells


def test_traces_csv_is_formula_safe_and_checks_its_input():
    raw = traces_csv(np.array([[1.0, -2.0, 0.1], [2.0, np.inf, np.nan]]), ["=HYPERLINK(1)", "@x", "v"])
    lines = raw.decode().splitlines()
    assert lines[0] == "'=HYPERLINK(1),'@x,v"
    assert lines[1:] == ["1,-2.0,0.1", "2,inf,"]
    with pytest.raises(ValueError, match="2 columns but 3 names"):
        traces_csv(np.zeros((4, 2)), ["a", "b", "c"])
    with pytest.raises(ValueError, match="2-D"):
        traces_csv(np.zeros(4), ["a"])
    with pytest.raises(ValueError, match="distinct"):
        traces_csv(np.zeros((1, 2)), ["a", "a"])
    with pytest.raises(ValueError, match="list of column names"):
        traces_csv(np.zeros((1, 2)), "ab")
    assert traces_csv(np.zeros((0, 2)), ["a", "b"]) == b"a,b\n"


# ------------------------------------------------------------------ browser
@pytest.mark.browser
def test_the_file_plays_offline_in_chromium(tmp_path):
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("Chromium is not installed (.ci/run installs Debian's chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    s = make_drift_stream("gradual", n=900, seed=0)
    f = tmp_path / "anim.html"
    f.write_bytes(build_animation(s, n_frames=10, frame_duration=100))
    title_js = "document.querySelector('.js-plotly-plot').layout.title.text"
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True, args=["--no-sandbox", "--disable-gpu"])
        ctx = b.new_context(offline=True, viewport={"width": 1100, "height": 800})
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f.as_uri())
        page.locator(".js-plotly-plot").wait_for()
        assert "step 0 of 990" in page.evaluate(title_js)
        page.get_by_text("▶ Play").click()
        page.wait_for_function(f"() => {title_js}.includes('step 990 of 990')", timeout=20000)
        assert page.evaluate("document.querySelector('.js-plotly-plot').layout.sliders[0].active") == 9
        page.get_by_text("❚❚ Pause").click()
        page.wait_for_timeout(300)
        n_points = page.evaluate("document.querySelectorAll('.scatterlayer .trace .points path').length")
        assert n_points > 500  # data and nodes are drawn
        b.close()
    assert errors == []

"""The player's server half (cae.app.player) and the stepper's rewind: frames, chunks, requests, Pause."""

import json

import numpy as np
import pytest

from cae import CAE
from cae.app.figures import network_figure
from cae.app.player import (
    FRONTEND,
    PlaySession,
    decode_chunk,
    encode_chunk,
    figure_json,
    fmt,
    frames_wanted,
    panel,
    side_series,
)
from cae.app.stepper import Stepper, drawn_sample
from cae.data import make_paper2d, nonstationary_stream


def _stream():
    return nonstationary_stream(make_paper2d(300, seed=2), seed=2)


def _draw(pg):
    """A still view as the page draws it (data seen, the recent window, the sample, s1/s2, removed nodes)."""
    X = pg.stream.X
    return network_figure(
        pg.model,
        X[: pg.t],
        X[max(0, pg.t - 50) : pg.t],
        X[pg.t - 1],
        pg.record,
        bounds=((0, 1), (0, 1)),
        show_vigilance=True,
        deleted=pg.deleted_in_frame,
    )


def _nodes_xy(figure):
    """The node positions a figure draws (its 'nodes' trace), decoded from plotly.js typed arrays."""
    trace = next(d for d in figure["data"] if d.get("name") == "nodes")

    def arr(v):
        if isinstance(v, dict):  # {"dtype": "f4", "bdata": ...}
            import base64

            return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]).newbyteorder("<"))
        return np.asarray(v, dtype=np.float32)

    return arr(trace["x"]), arr(trace["y"])


def test_each_frame_is_the_still_view_at_its_step():
    pg = Stepper(_stream())
    pg.step(200)
    play = PlaySession(pg, epoch=3)
    chunk = decode_chunk(play.chunk(5, 6, 25, _draw, panel))
    assert chunk["epoch"] == 3 and chunk["seq"] == 5 and chunk["t_start"] == 200 and not chunk["final"]
    assert [f["t"] for f in chunk["frames"]] == [225, 250, 275, 300, 325, 350]
    assert play.served == 5 and play.t_sent == 350 == pg.t
    assert chunk["n_samples"] == len(pg.stream)
    prev = None
    for f in chunk["frames"]:
        ref = Stepper(pg.stream)
        ref.step(f["t"])
        model = CAE().learn_many(pg.stream.X[: f["t"]])
        x, y = _nodes_xy(f["figure"])
        np.testing.assert_array_equal(x, model.nodes_[:, 0].astype(np.float32))
        np.testing.assert_array_equal(y, model.nodes_[:, 1].astype(np.float32))
        series = f["panel"].pop("series")  # the traces beside the picture: the history, then each frame's new steps
        assert series == side_series(ref, since=prev) and series["t"][-1] == f["t"]
        prev = f["t"]
        assert f["panel"] == json.loads(json.dumps(panel(ref)))  # the numbers of that step
        assert f["panel"]["metrics"][0] == ["Samples seen", f"{f['t']:,}", f"of {len(pg.stream):,}"]


def test_the_frame_figure_is_what_st_plotly_chart_sends():
    pg = Stepper(_stream())
    pg.step(120)
    fig = _draw(pg)
    import plotly.io as pio

    assert figure_json(fig) == pio.to_json(fig, validate=False)


def test_chunks_hold_the_frames_at_the_end_of_the_stream_and_say_final():
    s = nonstationary_stream(make_paper2d(20, seed=0), seed=0)  # 132 samples
    pg = Stepper(s)
    pg.step(100)
    play = PlaySession(pg, epoch=1)
    chunk = decode_chunk(play.chunk(1, 10, 15, _draw, panel))
    assert [f["t"] for f in chunk["frames"]] == [115, 130, 132] and chunk["final"]
    assert chunk["frames"][-1]["panel"]["finished"]
    assert decode_chunk(play.chunk(2, 10, 15, _draw, panel))["frames"] == []


def test_pause_goes_back_to_the_frame_shown_and_forgets_the_frames_after_it():
    pg = Stepper(_stream(), snapshot_every=100)
    pg.step(150)
    play = PlaySession(pg, epoch=1)
    frames = play.frames(8, 40, _draw, panel)  # 190 ... 470, computed ahead of the browser
    assert pg.t == 470
    # the frame of step 270 removed nodes? whichever it marked comes back with Pause
    marked = {t: len(fig["data"]) for t, fig, _ in frames}
    rec = play.pause(270)
    assert rec.t == 270 and pg.t == 270 and pg.t_max == 270 and play.shown == 270
    assert np.isnan(pg.trace[270:]).all() and max(pg.snapshots) <= 270
    fresh = CAE().learn_many(pg.stream.X[:270])
    np.testing.assert_array_equal(pg.model.nodes_, fresh.nodes_)
    np.testing.assert_array_equal(pg.model.edges_, fresh.edges_)
    assert len(_draw(pg).data) == marked[270]  # the same marks as the frame shown
    # learning on replays the same run (CAE is deterministic)
    pg.step(200)
    np.testing.assert_array_equal(pg.model.nodes_, CAE().learn_many(pg.stream.X[:470]).nodes_)


def test_pause_keeps_the_nodes_removed_in_that_frame():
    pg = Stepper(_stream())
    play = PlaySession(pg, epoch=1)
    frames = play.frames(40, 30, _draw, panel)
    gone = [t for t, fig, _ in frames if any(d.get("name") == "removed this frame" for d in fig["data"])]
    assert gone, "no frame removed a node: choose another stream"
    t = gone[0]
    before = {ft: fig for ft, fig, _ in frames}[t]
    play.pause(t)
    after = json.loads(figure_json(_draw(pg)))
    assert after["data"] == before["data"]


def test_pause_is_clamped_to_the_steps_of_this_play():
    pg = Stepper(_stream())
    pg.step(300)
    play = PlaySession(pg, epoch=2)
    play.frames(3, 10, _draw, panel)
    play.pause(5)  # before play started: the step play started from
    assert pg.t == 300 == pg.t_max
    play = PlaySession(pg, epoch=3)
    play.frames(2, 10, _draw, panel)
    play.pause(10**9)  # beyond the frames computed: the newest one
    assert pg.t == 320


def test_requests_are_answered_once_and_only_for_this_play():
    pg = Stepper(_stream())
    play = PlaySession(pg, epoch=7)
    assert play.is_new({"epoch": 7, "seq": 0})
    assert not play.is_new({"epoch": 6, "seq": 9})  # an earlier play's
    assert not play.is_new(None) and not play.is_new({"epoch": 7, "seq": "1"}) and not play.is_new([7, 1])
    play.chunk(0, 2, 10, _draw, panel)
    assert not play.is_new({"epoch": 7, "seq": 0}) and play.is_new({"epoch": 7, "seq": 1})
    assert play.note_shown({"shown": 15}) == 15
    assert play.note_shown({"shown": 10**6}) == 20  # no further than the frames sent
    assert play.note_shown({"shown": -3}) == 0
    assert play.note_shown({"shown": float("nan")}) == 0 and play.note_shown({}) == 0


def test_encode_chunk_sends_the_first_figure_whole_and_the_rest_as_patches():
    first = {"data": [{"type": "scatter", "name": "a", "x": list(range(30))}], "layout": {"title": {"text": "λ <b>"}}}
    second = {"data": [{"type": "scatter", "name": "a", "x": list(range(32))}], "layout": {"title": {"text": "λ <b>"}}}
    panel_ = {"metrics": [["V", "0.100"]], "last": "t = 12: Case II — s1 learns"}
    raw = encode_chunk(
        [(12, first, panel_), (13, second, panel_)],
        epoch=1,
        seq=4,
        final=True,
        n_samples=99,
        t_start=10,
        timing=(1.5, 2.5),
    )
    assert isinstance(raw, bytes)
    sent = json.loads(raw)
    assert sent["frames"][0]["figure"] == first and "patch" not in sent["frames"][0]
    assert sent["frames"][1]["patch"] == {"data": [{"x": {"$splice": [0, 30, 0, [30, 31]]}}]}  # two numbers
    assert decode_chunk(raw) == {
        "epoch": 1,
        "seq": 4,
        "final": True,
        "n_samples": 99,
        "t_start": 10,
        "timing": [1.5, 2.5],
        "frames": [{"t": 12, "panel": panel_, "figure": first}, {"t": 13, "panel": panel_, "figure": second}],
    }


def _typed(a):
    import base64

    a = np.asarray(a)
    return {"dtype": f"{a.dtype.kind}{a.dtype.itemsize}", "bdata": base64.b64encode(a.tobytes()).decode()}


@pytest.mark.parametrize(
    "old, new, op",
    [
        (list(range(100)), list(range(100)) + [7, 8], "$splice"),  # the data seen grow
        (list(range(100)), list(range(20, 100)) + list(range(500, 520)), "$splice"),  # the window slides
        (list(range(100)), list(range(50)) + [None, 1.5] + list(range(52, 100)), "$set"),  # a few change
        (list(range(100)), list(range(40)) + list(range(45, 100)), "$splice"),  # an edge gone in the middle
        (list(range(100)), list(range(100, 0, -1)), None),  # everything changed: the new value
        ([1, 2, 3], [1, 2, 3, 4], None),  # too short to patch
        (["a"] * 60, ["a"] * 59 + ["b"], "$set"),
    ],
)
def test_array_patches_are_the_small_ones_and_undo_exactly(old, new, op):
    from cae.app.player import apply_patch, figure_patch

    pairs = [(old, new)]
    if all(isinstance(v, int) for v in old + new):  # the same as plotly.js typed arrays
        pairs.append((_typed(np.array(old, float)), _typed(np.array(new, float))))
    for o, n in pairs:
        a = {"data": [{"type": "scattergl", "name": "t", "x": o}], "layout": {}}
        b = {"data": [{"type": "scattergl", "name": "t", "x": n}], "layout": {}}
        patch = figure_patch(a, b)
        x = patch["data"][0]["x"]
        assert (op in x) if op else (x == n)
        assert apply_patch(a, patch) == b


def test_typed_arrays_are_compared_bit_for_bit():
    from cae.app.player import apply_patch, figure_patch

    old = np.linspace(0, 1, 64)
    new = old.copy()
    new[3] = -0.0 if old[3] == 0 else old[3]
    new[5] = np.nan
    new[0] = -0.0  # equal to 0.0, other bits
    a = {"data": [{"type": "scattergl", "name": "t", "x": _typed(old)}], "layout": {}}
    b = {"data": [{"type": "scattergl", "name": "t", "x": _typed(new)}], "layout": {}}
    patch = figure_patch(a, b)
    assert patch["data"][0]["x"]["$set"][0] == _typed(np.array([0, 5], dtype=np.int32))
    assert apply_patch(a, patch) == b


def test_patches_of_objects_keys_added_changed_and_gone_and_traces_that_come_and_go():
    from cae.app.player import apply_patch, figure_patch

    a = {
        "data": [{"type": "scattergl", "name": "nodes", "marker": {"size": 3, "color": "red"}, "text": "x"}],
        "layout": {"height": 560, "xaxis": {"range": [0, 1]}},
    }
    b = {
        "data": [{"type": "scattergl", "name": "nodes", "marker": {"size": 4, "color": "red", "line": {"width": 1}}}],
        "layout": {"height": 560, "xaxis": {"range": [0, 2]}},
    }
    patch = figure_patch(a, b)
    assert patch == {
        "data": [{"marker": {"size": 4, "line": {"width": 1}}, "$del": ["text"]}],
        "layout": {"xaxis": {"range": [0, 2]}},
    }
    assert apply_patch(a, patch) == b
    assert figure_patch(b, b) == {} and apply_patch(b, {}) == b
    c = {"data": b["data"] + [{"type": "scattergl", "name": "s1", "x": [0.5]}], "layout": b["layout"]}
    assert figure_patch(b, c) == {"data": {"$from": [[0, {}], [-1, c["data"][1]]]}}
    assert apply_patch(b, figure_patch(b, c)) == c
    d = {"data": [{"type": "scattergl", "name": "s1", "x": [0.6]}, a["data"][0]], "layout": a["layout"]}
    assert figure_patch(c, d) == {
        "data": {"$from": [[1, {"x": [0.6]}], [0, figure_patch(b, a)["data"][0]]]},
        "layout": {"xaxis": {"range": [0, 1]}},
    }
    assert apply_patch(c, figure_patch(c, d)) == d


def test_every_frame_of_a_long_play_is_whole_again_after_its_patches_and_far_smaller():
    """Play at 20 samples a frame on the paper's stream: each frame decoded from the chunk is the still view's
    figure at its step, and the chunk is a fraction of the frames sent whole."""
    from cae.app.player import figure_dict, figure_json

    s = nonstationary_stream(make_paper2d(1500, seed=0), seed=0)
    pg = Stepper(s)
    pg.step(3000)

    def draw(p):
        idx = drawn_sample(p.t, max_points=2000)
        X = p.stream.X
        return network_figure(
            p.model,
            X[idx],
            X[max(0, p.t - 300) : p.t],
            X[p.t - 1],
            p.record,
            bounds=((0, 1), (0, 1)),
            show_vigilance=True,
            deleted=p.deleted_in_frame,
        )

    play = PlaySession(pg, epoch=1)
    raw = play.chunk(1, 40, 20, draw, panel)
    chunk = decode_chunk(raw)
    whole = 0
    check = Stepper(s)
    for f in chunk["frames"]:
        check.go_to(f["t"]) if check.t > f["t"] else check.step(f["t"] - check.t)
        want = draw(check)
        assert f["figure"] == figure_dict(want), f["t"]
        whole += len(figure_json(want))
    assert [f["t"] for f in chunk["frames"]] == list(range(3020, 3820, 20))
    assert len(raw) < 0.25 * whole, (len(raw), whole)  # 0.15 measured


def test_frames_wanted_and_fmt():
    assert frames_wanted(15, first=True) == 4
    assert frames_wanted(15) == 23 and frames_wanted(5) == 8 and frames_wanted(1e9) == 45
    assert frames_wanted(None) == 2 and frames_wanted(float("nan")) == 2
    assert fmt(np.float64(0.25)) == "0.250" and fmt(np.int64(1234)) == "1,234" and fmt(None) == "—"


def test_panel_says_what_nmi_is_computed_on():
    pg = Stepper(_stream())
    assert panel(pg)["metrics"][2:4] == [["#nodes", "0"], ["#clusters", "0"]] and panel(pg)["last"] == ""
    pg.step(1980)
    p = panel(pg)
    assert "learned but not scored" in p["note"] and "an even sample" not in p["note"]
    assert "the noise counts as a class" in panel(pg, score_noise=True)["note"]
    assert p["network"].startswith(f"network: {len(pg.model.nodes_):,} nodes")
    assert p["finished"] and {r[0]: r[1] for r in p["metrics"]}["λ"] == fmt(pg.model.deletion_interval_)


def test_rewind_forgets_the_future_and_learning_on_replays_it():
    pg = Stepper(_stream(), snapshot_every=50)
    pg.step(400)
    trace = pg.trace_so_far.copy()
    events = list(pg.events)
    rec = pg.rewind(123)
    assert rec.t == 123 and pg.t == pg.t_max == 123
    assert all(e[0] <= 123 for e in pg.events)
    pg.step(277)
    np.testing.assert_array_equal(pg.trace_so_far, trace)
    assert pg.events == events


def test_learn_traced_writes_into_a_given_array():
    X = _stream().X[:300]
    rows = CAE().learn_traced(X).to_numpy()
    out = np.full((400, rows.shape[1]), np.nan)
    model = CAE()
    assert model.learn_traced_into(X[:120], out[:120]) is not None
    model.learn_traced_into(X[120:], out[120:300])
    np.testing.assert_array_equal(out[:300], rows)
    assert np.isnan(out[300:]).all()
    with pytest.raises(ValueError, match="C-contiguous float64"):
        CAE().learn_traced_into(X[:10], np.zeros((10, rows.shape[1]), dtype=np.float32))
    with pytest.raises(ValueError, match="shape"):
        CAE().learn_traced_into(X[:10], np.zeros((9, rows.shape[1])))
    with pytest.raises(ValueError, match="C-contiguous"):
        CAE().learn_traced_into(X[:10], np.zeros((rows.shape[1], 10)).T)


def test_the_frontend_is_plain_files_with_no_network():
    html = (FRONTEND / "index.html").read_text()
    js = (FRONTEND / "player.js").read_text()
    assert '<script src="player.js"></script>' in html
    for text in (html, js):
        assert "http://" not in text and "https://" not in text and "cdn" not in text.lower()
    assert "streamlit:componentReady" in js and "streamlit:setComponentValue" in js
    from cae.app.player import _PATCHED_DTYPES

    typed = js.split("const TYPED = {")[1].split("}")[0]
    assert {k.split(":")[0].strip() for k in typed.split(",")} == _PATCHED_DTYPES  # the player decodes each
    for op in ("$set", "$splice", "$text", "$items", "$from", "$del"):  # and applies every patch the server makes
        assert f"p.{op}" in js or f"patch.data.{op}" in js or f'"{op}"' in js, op
    # drawn on a canvas by the player itself: no plotly.js to load (3.5 MB), nothing from anywhere
    assert "plotly.min.js" not in js and 'getContext("2d")' in js


def test_run_to_in_chunks_is_the_same_run_as_one_step():
    one = Stepper(_stream(), snapshot_every=100)
    one.step(1700)
    chunks = Stepper(_stream(), snapshot_every=100)
    seen = []
    rec = chunks.run_to(1700, progress=seen.append, chunk=333)
    assert rec.t == 1700 and chunks.t == chunks.t_max == 1700
    assert seen == pytest.approx([333 / 1700, 666 / 1700, 999 / 1700, 1332 / 1700, 1665 / 1700, 1.0])
    np.testing.assert_array_equal(chunks.trace_so_far, one.trace_so_far)
    np.testing.assert_array_equal(chunks.model.nodes_, one.model.nodes_)
    assert chunks.events == one.events and sorted(chunks.snapshots) == sorted(one.snapshots)
    assert chunks.run_to(10**9).t == len(chunks.stream) and chunks.finished


def _edit(draw, base, st):
    """A few replacements, insertions and deletions of ``base`` (a list), as a frame of Play changes things."""
    out = list(base)
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["set", "insert", "delete"]))
        if op == "insert" or not out:
            out.insert(draw(st.integers(0, len(out))), draw(st.integers(-5, 5)))
        elif op == "set":
            out[draw(st.integers(0, len(out) - 1))] = draw(st.integers(-5, 5))
        else:
            del out[draw(st.integers(0, len(out) - 1))]
    return out


def test_any_patch_undoes_exactly():
    """Whatever changed between two frames — arrays (lists and typed arrays, grown, slid, edited), SVG paths,
    objects, keys gone, traces that came or went — the patch gives the new frame back exactly."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from cae.app.player import apply_patch, figure_patch

    @st.composite
    def frames(draw):
        base = draw(st.lists(st.integers(-5, 5), min_size=draw(st.sampled_from([0, 40])), max_size=200))
        new = _edit(draw, base, st)
        if draw(st.booleans()):  # the window slides: a prefix goes, new values come
            k = draw(st.integers(0, len(base)))
            new = base[k:] + draw(st.lists(st.integers(-5, 5), max_size=30))
        path_a = "".join(f"M{v}.1234,{v}.5678L{v + 1}.8765,{v}.4321" for v in base)  # long enough to patch
        path_b = "".join(f"M{v}.1234,{v}.5678L{v + 1}.8765,{v}.4321" for v in new)

        def fig(xs, path, with_s1, text):
            data = [
                {"type": "scattergl", "name": "data seen", "x": _typed(np.array(xs, np.float32))},
                {"type": "scattergl", "name": "nodes", "x": list(xs), "marker": {"size": xs[:3], "color": "red"}},
            ]
            if with_s1:
                data.append({"type": "scattergl", "name": "s1", "x": [0.5]})
            if text is not None:
                data[1]["text"] = text
            return {"data": data, "layout": {"shapes": [{"type": "path", "path": path}], "height": 560}}

        a = fig(base, path_a, draw(st.booleans()), draw(st.sampled_from([None, "a"])))
        b = fig(new, path_b, draw(st.booleans()), draw(st.sampled_from([None, "b"])))
        return a, b

    ops = set()

    @settings(max_examples=300, deadline=None)
    @given(frames())
    def check(pair):
        a, b = pair
        patch = figure_patch(a, b)
        assert apply_patch(a, patch) == b
        assert figure_patch(b, b) == {}
        ops.update(op for op in ("$set", "$splice", "$text", "$items", "$from", "$del") if op in json.dumps(patch))

    check()
    assert ops >= {"$set", "$splice", "$text", "$items", "$from", "$del"}, ops  # every kind of patch was tried


def test_the_panel_names_its_rows_for_the_still_view_and_play():
    """One panel for the still view and every frame of Play: its rows by name, the pairs after the first two rows
    (the layout both draw) covering the rest in order, the algorithm's parameters last."""
    from cae.app.panel import PAIRS, PARAMETERS, ROWS, named_rows

    pg = Stepper(_stream())
    pg.step(200)
    p = panel(pg)
    rows = named_rows(p)
    assert list(rows) == list(ROWS) and len(p["metrics"]) == len(ROWS)
    assert [name for pair in PAIRS for name in pair] == list(ROWS[2:]) and PAIRS[-1] == PARAMETERS
    assert rows["lambda"][0] == "λ" and rows["V"] == ["V", fmt(pg.model.threshold_)]
    assert rows["samples seen"] == ["Samples seen", "200", f"of {len(pg.stream):,}"]

"""A real browser: Debian's Chromium driven by playwright against `streamlit run app.py`.

Screenshots go to test-output/screenshots/ (look at them).
"""

import os
import re
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import ROOT
from playwright.sync_api import expect
from support.browser import (
    SHOTS,
    _classroom_page,
    _metric,
    _page,
    _player_frame,
    _scroll_to,
    _seen,
    _settled_seen,
    _shot,
    _start_server,
    _stop,
    _wait_home_picture,
    _wait_idle,
    _wait_seen,
)

pytestmark = pytest.mark.browser


def test_home_and_preset(server, browser):
    ctx, page = _page(browser)
    page.goto(server)
    page.get_by_text("CAE Explorer").first.wait_for()
    _wait_home_picture(page)
    _wait_idle(page)
    # the charting library is loaded behind the home page (an empty chart nobody sees), for the next page
    page.locator(".st-key-chart_warmup .js-plotly-plot").wait_for(state="attached")
    assert not page.locator(".st-key-chart_warmup").is_visible()
    _shot(page, "01_home")
    page.get_by_role("button", name="Start with the paper's streams").click()
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    assert "/playground" in page.url
    ctx.close()


def test_playground_step_play_scrub(server, browser):
    ctx, page = _page(browser)
    page.goto(server + "/playground")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Step 1", exact=True).click()
    _wait_seen(page, 1)
    page.get_by_role("button", name="Step N", exact=True).click()
    _wait_seen(page, 101)
    assert int(_metric(page, "#nodes")) > 1
    _shot(page, "02_playground_step")
    # play until the browser has drawn frames and told the server which one it shows
    play = page.locator("[data-testid='stCheckbox']").filter(has_text="Play").locator("input").first
    page.get_by_text("Play", exact=True).click()
    player = _player_frame(page)
    player.wait_for_function(
        "() => window.playerState && playerState.stats.shown >= 3 && playerState.stats.answers.length >= 3",
        timeout=90000,
    )
    for _ in range(5):  # under load a click can land while the fragment reruns: until it is off
        if not play.is_checked():
            break
        page.get_by_text("Play", exact=True).click()
        page.wait_for_timeout(600)
    assert not play.is_checked()
    _wait_idle(page)
    # a frame already on its way when Play went off may still land: read the count once it has settled
    seen = _settled_seen(page)
    assert seen > 101
    assert not play.is_checked()
    _shot(page, "03_playground_after_play")
    # scrub back with the keyboard on the history slider
    handle = page.locator("[data-testid='stSlider']").filter(has_text="History").get_by_role("slider")
    handle.focus()
    for _ in range(3):
        handle.press("Home")
    _wait_idle(page)
    back = _settled_seen(page)
    assert back < seen
    page.mouse.wheel(0, 1400)
    page.wait_for_timeout(500)
    _shot(page, "04_playground_traces")
    ctx.close()


def _saturated_pixels(png):
    """How many pixels of a screenshot are clearly coloured (nodes, edges); a blank plot has next to none."""
    import io

    import numpy as np
    from PIL import Image

    a = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    return int(((a.max(axis=2) - a.min(axis=2)) > 60).sum())


_PLOT_AREA = (
    "el => { const r = el.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; }"
)
#: what a still view's chart draws, as the player describes its frame (playerState.drawn()): the nodes, every drawn
#: trace's name, type, mode, colours and symbol, and every trace's arrays with the edges' paths
_STILL_DRAWN = """gd => {
  const figs = gd._fullData.filter(t => t.visible !== false && t.x && t.x.length).map(t => ({raw: gd.data[t.index], full: t}));
  const nodes = figs.find(f => f.raw.name === 'nodes');
  const size = f => f.raw.marker && f.raw.marker.size !== undefined && typeof f.raw.marker.size !== 'number'
    ? Array.from(f.full.marker.size) : null;
  return {
    nodes: nodes ? [Array.from(nodes.full.x), Array.from(nodes.full.y)] : null,
    marks: figs.map(({raw}) => JSON.stringify([raw.name, raw.type, raw.mode || '', typeof (raw.marker || {}).color
      === 'string' ? raw.marker.color : null, (raw.line || {}).color || null, (raw.marker || {}).symbol || null])),
    layers: [figs.map(f => JSON.stringify([f.raw.name, Array.from(f.full.x), Array.from(f.full.y),
      f.raw.text ? Array.from(f.full.text) : null, size(f),
      f.raw.marker && Array.isArray(f.raw.marker.color) ? f.raw.marker.color : null])).sort(),
      (gd.layout.shapes || []).map(s => JSON.stringify([s.name, s.path, s.line.color]))],
  };
}"""

PLAY_LINK = "/playground?stream=paper2d-ns&n=15000&noise=0.1&seed=0&algo=CAEA&lam=400&amax=200&t=40000"


def test_play_is_smooth_and_pauses_on_the_frame_shown(server, browser, capsys):
    """Play at 20 samples a frame with about 800 nodes: frames per second shown (recorded, not asserted),
    no blank frame and no faded one, the numbers and slider of the frame shown, and after Pause the page's
    view, metrics and history are the model's state at the step the browser stopped on."""
    import numpy as np

    from cae import CAE
    from cae.app.streams import make_stream

    X = make_stream(dict(source="paper2d-ns", n_per_class=15000, noise=0.1, seed=0)).X
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(90000)
    page.goto(server + PLAY_LINK)
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_seen(page, 40000, timeout_ms=120000)
    still = page.locator(".st-key-main_fig .nsewdrag").first
    still.wait_for(state="attached")
    page.wait_for_timeout(800)
    reference = _saturated_pixels(page.screenshot(clip=still.evaluate(_PLOT_AREA)))
    page.get_by_text("Play", exact=True).click()
    player = _player_frame(page)
    player.wait_for_function("() => window.playerState && playerState.stats.shown >= 4", timeout=120000)
    inner = player.locator("#plot").first  # the player's canvas
    page.wait_for_timeout(1000)
    s0 = player.evaluate("() => [playerState.stats.shown, performance.now(), playerState.stats.waits]")
    samples, faded, panels = [], [], []
    for k in range(14):  # sample the plot while it plays: never empty, never faded
        page.wait_for_timeout(240 + 53 * (k % 5))
        box = page.locator("iframe[title*='cae_player']").bounding_box()
        area = inner.evaluate(_PLOT_AREA)
        clip = dict(x=box["x"] + area["x"], y=box["y"] + area["y"], width=area["width"], height=area["height"])
        samples.append(_saturated_pixels(page.screenshot(clip=clip)))
        faded.append(
            page.evaluate(
                "() => { let e = document.querySelector(\"iframe[title*='cae_player']\"), o = 1;"
                " while (e) { o *= parseFloat(getComputedStyle(e).opacity); e = e.parentElement; } return o; }"
            )
        )
        panels.append(
            player.evaluate(
                "() => [playerState.shown.t, document.getElementById('slider').value,"
                " document.querySelector('#panel .m .v').textContent]"
            )
        )
        if k == 6:
            _shot(page, "05_play_playing")
    s1 = player.evaluate("() => [playerState.stats.shown, performance.now(), playerState.stats.waits]")
    speed = player.evaluate("() => playerState.fps")
    answers = player.evaluate("() => playerState.stats.answers")
    draw_ms = player.evaluate("() => playerState.stats.drawMs.slice(-60)")
    fps = (s1[0] - s0[0]) / ((s1[1] - s0[1]) / 1000)
    assert min(samples) > 0.3 * reference, (samples, reference)  # every sample shows the network
    assert min(faded) == 1.0, faded
    for t, slider, seen in panels:  # the slider and the numbers belong to the frame on the plot
        assert int(slider) == t and seen == f"{t:,}", (t, slider, seen)
    # Pause on the frame shown
    # Pause, and read the frame shown in the same breath: the page then reruns without the player, whose
    # frame may be gone before a second call reaches it
    t, shown = player.evaluate(
        "() => { document.getElementById('pause').click(); return [playerState.shown.t, playerState.drawn()]; }"
    )
    # the Play switch goes off in the browser at once, before the server has answered: a request the page sends
    # meanwhile (a fragment's timer) no longer says "on" (it made a live class play again after its teacher's Pause)
    page.wait_for_function("() => !document.querySelector('.st-key-w_play input[type=checkbox]').checked", timeout=2000)
    shown_nodes, shown_marks, shown_layers = shown["nodes"], shown["marks"], shown["layers"]
    _wait_seen(page, t, timeout_ms=120000)
    assert t > 40000
    page.locator(".st-key-main_fig .js-plotly-plot").first.wait_for(state="attached")
    page.wait_for_timeout(800)
    _shot(page, "06_play_paused")
    still = page.locator(".st-key-main_fig .js-plotly-plot").first.evaluate(_STILL_DRAWN)
    still_nodes, still_marks = still["nodes"], still["marks"]
    # the frame paused on and the still view draw the same marks in the same colours
    assert sorted(shown_marks) == sorted(still_marks)
    # and the same data: the frame the browser rebuilt from the server's patches is the figure of that step
    still_layers = still["layers"]
    assert shown_layers[1] == still_layers[1]  # the layout's shapes (none: the edges are lines over the data)
    assert sum('"edges age' in layer for layer in shown_layers[0]) >= 2  # the edges' lines, one per age band
    import difflib

    assert shown_layers[0] == still_layers[0], "\n".join(
        x[:300] for x in difflib.unified_diff(still_layers[0], shown_layers[0], lineterm="", n=0)
    )
    model = CAE(deletion_interval=400, max_edge_age=200).learn_many(X[:t])
    want = model.nodes_.astype(np.float32)
    for drawn in (shown_nodes, still_nodes):
        np.testing.assert_array_equal(np.asarray(drawn, dtype=np.float32).T, want)
    assert _metric(page, "#nodes") == f"{len(model.nodes_):,}"
    history = page.locator("[data-testid='stSlider']").filter(has_text="History")
    assert int(history.locator("[data-testid='stSliderThumbValue']").inner_text().replace(",", "")) == t
    assert "t=" + str(t) in page.url
    compute = [a[5] / a[2] for a in answers if a[5] is not None and a[2]]
    line = (
        f"play at 20 samples/frame, {len(model.nodes_)} nodes: {fps:.1f} frames/s shown "
        f"(speed chosen: {speed}; waits for frames: {s1[2] - s0[2]}); median draw {np.median(draw_ms):.0f} ms; "
        f"server {np.median(compute):.0f} ms/frame; {len(samples)} samples of the plot, none blank "
        f"(coloured pixels {min(samples)}–{max(samples)}, still view {reference})"
    )
    (SHOTS.parent / "play_fps.txt").write_text(line + "\n")
    with capsys.disabled():
        print("\n[play] " + line)
    ctx.close()


def test_explain_page(server, browser):
    ctx, page = _page(browser)
    page.goto(server + "/explain")
    _wait_idle(page)
    page.get_by_role("button", name="Learn the first 50 samples").click()
    _wait_idle(page)
    page.get_by_role("button", name="Go", exact=True).click()  # to the step where λ was fixed
    _wait_idle(page)
    page.get_by_text("λ ← 2·n_active", exact=False).first.wait_for()
    _shot(page, "05_explain_lambda")
    ctx.close()


def test_upload_page_clusters_and_downloads(server, browser):
    ctx, page = _page(browser)
    page.goto(server + "/upload")
    _wait_idle(page)
    page.locator("input[type=file]").set_input_files(str(ROOT / "sample_data" / "paper2d_sample.csv"))
    page.get_by_text("What was read").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Learn", exact=True).click()
    page.get_by_text("Rows learned").wait_for()
    _wait_idle(page)
    assert _metric(page, "Rows learned") == "9,900"
    assert int(_metric(page, "#clusters")) >= 2
    assert 0.0 <= float(_metric(page, "NMI")) <= 1.0
    page.mouse.wheel(0, 900)
    page.wait_for_timeout(400)
    _shot(page, "06_upload_clusters")
    page.get_by_role("tab", name="Downloads").click()
    page.wait_for_timeout(500)
    with page.expect_download() as dl:
        page.get_by_role("button", name="Labels per row (CSV)").click()
    text = Path(dl.value.path()).read_text()
    lines = text.splitlines()
    assert lines[0] == "line,cluster,label" and len(lines) == 9901
    for name in ("Nodes (CSV)", "Edges (CSV)", "Graph (GraphML)", "Model (.npz)", "Run configuration (JSON)"):
        assert page.get_by_role("button", name=name).is_visible()
    _shot(page, "07_upload_downloads")
    ctx.close()


def test_upload_page_refuses_garbage_politely(server, browser, tmp_path):
    ctx, page = _page(browser)
    page.goto(server + "/upload")
    _wait_idle(page)
    bad = tmp_path / "garbage.csv"
    bad.write_bytes(bytes(range(256)) * 20)
    page.locator("input[type=file]").set_input_files(str(bad))
    page.get_by_text("This file cannot be used").wait_for()
    _shot(page, "08_upload_refused")
    ctx.close()


def test_continual_and_compare_pages(server, browser):
    ctx, page = _page(browser)
    page.goto(server + "/continual")
    _wait_idle(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("AI (NMI)", exact=True).wait_for()
    _wait_idle(page)
    assert -1.0 <= float(_metric(page, "BWT (NMI)")) <= 1.0
    _shot(page, "09_continual")
    page.mouse.wheel(0, 1300)
    page.wait_for_timeout(600)
    _shot(page, "10_continual_small_multiples")
    page.goto(server + "/compare")
    _wait_idle(page)
    page.get_by_role("button", name="Step N", exact=True).click()
    _wait_idle(page)
    page.get_by_text("500 of 9,900 samples").wait_for()
    page.locator(".js-plotly-plot").nth(1).wait_for()
    _shot(page, "11_compare")
    ctx.close()


def test_continual_convention_radio_after_a_stream_change(server, browser):
    """Iris under the text's convention, then the paper's stream and Run: the radio the browser shows is the
    text's, as the numbers are (before: it showed the published convention beside BWT −0.190, and clicking it did
    nothing); clicking the published convention then gives its BWT, +0.014."""
    ctx, page = _page(browser)
    page.goto(server + "/continual?stream=iris&order=0,1,2&seed=0")
    _wait_idle(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("AI (NMI)", exact=True).wait_for()
    _wait_idle(page)
    page.get_by_text("The paper's text (scikit-learn's scores)").click()
    _wait_idle(page)
    page.get_by_text("Paper 2-D stream #1 → #6").click()
    _wait_idle(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("BWT (NMI)", exact=True).wait_for()
    _wait_idle(page)
    text = page.get_by_role("radio", name="The paper's text (scikit-learn's scores)")
    published = page.get_by_role("radio", name="The paper's published numbers (a single class scores 1)")
    _scroll_to(page, page.get_by_text("BWT (NMI)", exact=True))
    _shot(page, "continual_convention_after_stream_change")
    assert text.is_checked() and not published.is_checked()
    assert _metric(page, "BWT (NMI)") == "-0.190"
    assert page.get_by_text("Everything on this page follows the paper's text").count() == 1
    page.get_by_text("The paper's published numbers (a single class scores 1)").click()
    _wait_idle(page)
    assert published.is_checked() and _metric(page, "BWT (NMI)") == "+0.014"
    assert page.get_by_text("Everything on this page follows the paper's published numbers").count() == 1
    ctx.close()


def test_direct_link_to_a_page_on_a_fresh_server(browser):
    """The first request a server sees is a link to a page, not to the home page."""
    proc, url = _start_server()
    try:
        ctx, page = _page(browser)
        page.goto(url + "/compare")
        page.get_by_role("heading", name="Compare algorithms").wait_for()
        _wait_idle(page)
        nav = page.locator("[data-testid='stSidebarNav']").inner_text()
        assert "Playground" in nav and "Your data" in nav and "ui" not in nav.split()
        _shot(page, "12_direct_link")
        ctx.close()
    finally:
        _stop(proc)


def test_experiments_page(server, browser):
    ctx, page = _page(browser)
    page.goto(server + "/experiments")
    _wait_idle(page)
    page.get_by_role("tab", name="Synthetic 2-D").click()
    page.get_by_role("button", name="Run", exact=True).first.click()
    page.get_by_text("The uniform noise is learned but not scored").wait_for()
    _wait_idle(page)
    _shot(page, "13_experiments")
    ctx.close()


# ------------------------------------------------------------------ a fresh machine
def test_first_load_on_a_fresh_server_with_an_empty_cache(browser, tmp_path, capsys):
    """The time until the home figure is visible, with no compiled kernel anywhere (printed, not asserted)."""
    cache = tmp_path / "empty-cache"
    env = dict(os.environ, CAE_EXPLORER_CACHE=str(cache), CAE_JIT="auto")
    env.pop("NUMBA_CACHE_DIR", None)
    t0 = time.perf_counter()
    proc, url = _start_server(env)
    try:
        ctx, page = _page(browser)
        page.goto(url)
        _wait_home_picture(page)
        seconds = time.perf_counter() - t0
        page.get_by_text("Preparing the fast kernel").first.wait_for()
        _shot(page, "00_first_load_empty_cache")
        with capsys.disabled():
            print(
                f"\n[first load] fresh server, empty kernel cache: the home figure was visible after "
                f"{seconds:.1f} s (server start included)"
            )
        (SHOTS.parent / "first_load_seconds.txt").write_text(f"{seconds:.2f}\n")
        ctx.close()
    finally:
        _stop(proc)
        for lock in cache.glob("*.compiling"):  # the background compilation outlives the server: stop it
            try:
                os.kill(int(lock.read_text().strip()), 15)
            except (OSError, ValueError):
                pass


def test_playground_figure_from_a_fresh_browser_context(server, browser, capsys):
    """A lesson link at the paper's size opened in a fresh browser context (no cache): the time until the
    first view of the network shows (a picture), and until the interactive chart is drawn. Recorded, not
    asserted; the server is warm (another context opened a page first), as in a class."""
    link = "/playground?stream=paper2d-ns&n=15000&noise=0.1&seed=0&algo=CAE&t=99000"
    shown = (
        "() => { const i = document.querySelector('.st-key-first_picture img');"
        " const g = document.querySelector('.st-key-main_fig .main-svg');"
        " return !!(g || (i && i.complete && i.naturalWidth > 0)); }"
    )
    chart = "() => !!document.querySelector('.st-key-main_fig .main-svg')"
    ctx, page = _page(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=500&t=50")
    page.wait_for_function(chart, timeout=120000)
    ctx.close()
    times = []
    for _ in range(2):
        ctx = browser.new_context(viewport={"width": 1400, "height": 900})
        page = ctx.new_page()
        t0 = time.perf_counter()
        page.goto(server + link)
        page.wait_for_function(shown, timeout=180000, polling=50)
        t_picture = time.perf_counter() - t0
        page.wait_for_function(chart, timeout=180000, polling=50)
        t_chart = time.perf_counter() - t0
        _wait_idle(page)
        assert _seen(page) == 99000
        times.append((t_picture, t_chart))
        ctx.close()
    line = "; ".join(f"figure shown after {a:.1f} s, interactive chart after {b:.1f} s" for a, b in times)
    (SHOTS.parent / "playground_first_figure_seconds.txt").write_text(
        "lesson link t = 99,000, fresh browser context: " + line + "\n"
    )
    with capsys.disabled():
        print("\n[first figure] lesson link t = 99,000, fresh browser context: " + line)


# ------------------------------------------------------------------ the paper's algorithms
def test_compare_page_with_all_six(server, browser):
    ctx, page = _page(browser)
    page.goto(server + "/compare")
    page.get_by_role("heading", name="Compare algorithms").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Run to end", exact=True).click()
    _wait_idle(page)
    page.get_by_text("9,900 of 9,900 samples").wait_for()
    page.locator(".js-plotly-plot").nth(4).wait_for()  # four networks and the traces
    _shot(page, "14_compare_cae_caea_soinn_tca")
    box = page.locator("[data-testid='stMultiSelect'] input").first
    box.click()
    for _ in range(2):
        box.press("Backspace")
    _wait_idle(page)
    for name in ("ASOINN", "AutoCloud"):
        box.click()
        box.fill(name)
        box.press("Enter")
        _wait_idle(page)
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Run to end", exact=True).click()
    _wait_idle(page)
    page.get_by_text("9,900 of 9,900 samples").wait_for()
    page.get_by_text("AutoCloud has no nodes or edges").first.wait_for()
    _wait_idle(page)
    _scroll_to(page, page.get_by_text("AutoCloud has no nodes or edges").first)
    page.wait_for_timeout(500)
    _shot(page, "15_compare_asoinn_autocloud")
    _scroll_to(page, page.get_by_text("Score the noise as a class"))
    page.wait_for_timeout(500)
    _shot(page, "16_compare_metrics_traces")
    ctx.close()


def test_against_the_paper_view(server, browser):
    if not (ROOT / "results" / "paper_comparison.csv").exists():
        pytest.skip("results/paper_comparison.csv is not there (python -m cae.experiments paper)")
    ctx, page = _page(browser)
    page.goto(server + "/experiments")
    _wait_idle(page)
    page.get_by_text("Friedman test and Nemenyi critical difference").wait_for()
    page.locator("[data-testid='stDataFrame']").nth(1).wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    _wait_idle(page)
    page.wait_for_timeout(1500)
    _shot(page, "17_against_the_paper")
    _scroll_to(page, page.locator(".js-plotly-plot").first)
    page.wait_for_timeout(600)
    _shot(page, "18_against_the_paper_heatmap")
    _scroll_to(page, page.get_by_text("Friedman test and Nemenyi critical difference"))
    page.mouse.move(5, 5)
    page.wait_for_timeout(600)
    _shot(page, "19_critical_difference")
    _scroll_to(page, page.get_by_text("Validity of the number of active nodes", exact=True))
    page.wait_for_timeout(800)
    _shot(page, "20_lambda_validity")
    ctx.close()


def test_noise_robustness_tab_and_the_playground_sentence(server, browser):
    """The noise study: its figure on the Experiments page, and its sentence beside the Playground's metrics."""
    if not (ROOT / "results" / "noise.csv").exists():
        pytest.skip("results/noise.csv is not there (python -m cae.experiments noise)")
    ctx, page = _page(browser)
    page.goto(server + "/experiments")
    _wait_idle(page)
    page.get_by_role("tab", name="Noise robustness").click()
    _wait_idle(page)
    figure = page.locator(".st-key-ex_noise_fig .js-plotly-plot")
    figure.wait_for()
    assert "Noise robustness" in figure.inner_text()
    page.get_by_text("Runs that merge or split clusters").wait_for()
    _scroll_to(page, figure)
    page.mouse.move(5, 5)
    page.wait_for_timeout(800)
    _shot(page, "21_noise_robustness")
    page.goto(server + "/playground")  # the paper's non-stationary stream, 10 % noise, CAE
    _wait_idle(page)
    sentence = page.get_by_text("From the noise study: with this noise (10 %), CAE merges clusters in")
    sentence.wait_for()
    assert " of 10 seeds" in sentence.inner_text()
    _shot(page, "22_playground_noise_study")
    ctx.close()


# ------------------------------------------------------------------ teaching
def test_lesson_link_on_a_fresh_server(browser):
    from cae.app.lesson_links import PLAYGROUND_DEFAULTS
    from cae.app.stepper import Stepper
    from cae.app.streams import make_stream
    from cae.streamlit_glue.playground_session import algo_params

    cfg = {**PLAYGROUND_DEFAULTS, "n_per_class": 500, "seed": 3}
    ref = Stepper(make_stream(cfg), **algo_params(cfg))
    ref.step(1500)
    proc, url = _start_server()
    try:
        ctx, page = _page(browser)
        page.goto(url + "/playground?stream=paper2d-ns&n=500&noise=0.1&seed=3&algo=CAE&t=1500&win=500")
        page.get_by_role("heading", name="Playground").wait_for()
        _wait_idle(page)
        assert _metric(page, "Samples seen") == "1,500"
        assert "of 3,300" in page.locator("[data-testid='stMetric']").filter(has_text="Samples seen").first.inner_text()
        assert _metric(page, "#nodes") == str(len(ref.model.nodes_))
        page.get_by_text(f"{len(ref.model.nodes_):,} nodes · {len(ref.model.edges_):,} edges").wait_for()
        _shot(page, "21_lesson_link")
        page.get_by_text("Copy lesson link: this exact view").click()
        page.wait_for_timeout(400)
        assert "t=1500" in page.locator("[data-testid='stCode']").first.inner_text()
        ctx.close()
        ctx, page = _page(browser)  # a hostile link: a notice, the rest of the page as usual
        page.goto(url + "/playground?stream=mars&n=abc&t=-4&" + "x" * 300 + "=1")
        page.get_by_text("Some values in this link could not be used").wait_for()
        _shot(page, "22_lesson_link_hostile")
        ctx.close()
    finally:
        _stop(proc)


PLACE_SECTION = "Place samples and draw your own distribution"


def test_quiz_and_place_a_sample(server, browser):
    from cae.app.explanations import QUIZ_CHOICES
    from cae.app.lesson_links import PLAYGROUND_DEFAULTS
    from cae.app.stepper import Stepper
    from cae.app.streams import make_stream
    from cae.streamlit_glue.playground_session import algo_params

    cfg = {**PLAYGROUND_DEFAULTS, "n_per_class": 500}
    ref = Stepper(make_stream(cfg), **algo_params(cfg))
    ref.step(700)
    truth = ref.model.snapshot().learn_one(ref.stream.X[700])
    ctx, page = _page(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=500&t=700&quiz=1")
    page.get_by_text("what will CAE do?").wait_for()
    _wait_idle(page)
    _shot(page, "23_quiz_before")
    page.get_by_text(QUIZ_CHOICES[truth.case]).click()
    if truth.edges_deleted:
        page.get_by_text("An edge will be deleted").click()
    if truth.swept_ids:
        page.get_by_text("A node will be deleted").click()
    _wait_idle(page)
    page.get_by_role("button", name="Reveal", exact=True).click()
    page.get_by_text("Right!").wait_for()
    _wait_idle(page)
    _shot(page, "24_quiz_revealed")
    ctx.close()
    ctx, page = _page(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=500&t=800")
    _wait_idle(page)
    page.get_by_text(PLACE_SECTION).click()
    _wait_idle(page)
    page.locator(".st-key-w_place_x0 input").fill("0.17")  # typed: the accessible way
    page.locator(".st-key-w_place_x0 input").press("Enter")
    _wait_idle(page)
    page.locator(".st-key-w_place_x1 input").fill("0.7")
    page.locator(".st-key-w_place_x1 input").press("Enter")
    _wait_idle(page)
    page.get_by_text("The sample to place resonates with").wait_for()
    _scroll_to(page, page.get_by_text(PLACE_SECTION))
    page.mouse.wheel(0, 500)
    page.wait_for_timeout(500)
    _shot(page, "25_place_a_sample_preview")
    page.get_by_role("button", name="Feed it as the next sample").click()
    page.get_by_text("1 sample(s) placed by hand").wait_for()
    _wait_idle(page)
    assert "place=800%3A0.17%3A0.7" in page.url or "place=800:0.17:0.7" in page.url
    page.mouse.wheel(0, -5000)
    page.wait_for_timeout(400)
    _shot(page, "26_place_a_sample_fed")
    ctx.close()


def test_animation_export_opens_offline(server, browser, tmp_path):
    ctx, page = _page(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=250&t=1650")
    _wait_idle(page)
    page.get_by_text("Take this run to slides").click()
    page.get_by_role("button", name="Build the animation").click()
    _wait_idle(page)
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download the animation (HTML)").click()
    html = tmp_path / "run.html"
    html.write_bytes(Path(dl.value.path()).read_bytes())
    assert b'src="https://cdn.plot.ly' not in html.read_bytes()  # plotly.js inline (and the context is offline)
    ctx.close()
    ctx = browser.new_context(viewport={"width": 1300, "height": 900}, offline=True)
    anim = ctx.new_page()
    anim.goto(html.as_uri())
    anim.locator(".js-plotly-plot .slider-container").first.wait_for()
    anim.get_by_text("▶ Play").first.click()
    anim.wait_for_timeout(2500)
    _shot(anim, "27_animation_offline")
    ctx.close()


def test_explain_jumps_back_with_wrapped_formulas(server, browser):
    ctx, page = _page(browser)
    page.goto(server + "/explain?stream=paper2d-ns&n=500&t=3000")
    _wait_idle(page)
    page.get_by_role("button", name="◀").nth(2).click()  # the previous Case III
    _wait_idle(page)
    page.get_by_text("Case III — s1 and its neighbours learn").first.wait_for()
    _scroll_to(page, page.locator(".katex-display").nth(3))
    page.wait_for_timeout(400)
    _shot(page, "28_explain_previous_case3")
    ctx.close()


def test_upload_a_saved_model(server, browser, tmp_path):
    import numpy as np

    from cae import CAE
    from cae.data import sample_frame

    df = sample_frame("blobs3d_sample.csv")  # the sample the page offers first
    model = CAE().fit(df[["x", "y", "z"]])
    model.save(tmp_path / "m.npz")
    ctx, page = _page(browser)
    page.goto(server + "/upload")
    _wait_idle(page)
    page.get_by_role("button", name="Use this sample").click()
    _wait_idle(page)
    page.get_by_text("A saved model (.npz from this page)").click()
    _wait_idle(page)
    page.locator("input[type=file]").nth(1).set_input_files(str(tmp_path / "m.npz"))
    page.get_by_text("A CAE model:").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Label", exact=True).click()
    page.get_by_text("Rows labelled").wait_for()
    _wait_idle(page)
    assert _metric(page, "#nodes") == str(len(model.nodes_))
    assert int(np.asarray(model.nodes_).shape[0]) > 0
    _shot(page, "29_upload_saved_model")
    ctx.close()


# ------------------------------------------------------------------ the geometry a lesson depends on (1400×900)
_OVERLAPS_JS = """gd => {
    const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const leg = gd.querySelector('g.legend');
    const labels = [...gd.querySelectorAll('g[class*="tick"] text, g[class^="g-x"] text, g[class^="g-y"] text')]
        .filter(e => !(leg && leg.contains(e)) && e.textContent.trim() && e.getBoundingClientRect().width > 0);
    const L = leg ? leg.getBoundingClientRect() : null;
    return labels.filter(e => L && hit(L, e.getBoundingClientRect())).map(e => e.textContent);
}"""

_WHOLE_JS = """e => e.scrollWidth <= e.clientWidth + 1"""  # a text not cut by an ellipsis or its box

_MARKS_JS = """gd => {
    const fl = gd._fullLayout, box = gd.getBoundingClientRect();
    const xa = fl.xaxis, ya = fl.yaxis;
    const out = {names: gd._fullData.map(t => t.name), types: gd._fullData.map(t => t.type),
                 range: [xa.range, ya.range], full: null, px: {}, xy: {}};
    for (const t of gd._fullData) {
        if (['s1', 's2', 'current sample', 'next sample', 'sample to place'].includes(t.name)) {
            out.xy[t.name] = [t.x[0], t.y[0]];
            out.px[t.name] = [box.left + xa._offset + xa.l2p(t.x[0]), box.top + ya._offset + ya.l2p(t.y[0])];
        }
        if (t.name === 'nodes') out.nodes = [Array.from(t.x), Array.from(t.y)];
    }
    const a = (fl.annotations || []).map(a => a.text);
    out.note = a.find(t => t.startsWith('focused on s1')) || null;
    return out;
}"""


def _page_1400(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(60000)
    return ctx, page


def _plot(page, text=None, nth=0):
    plots = page.locator(".js-plotly-plot")
    if text is not None:
        plots = plots.filter(has_text=text)
    plot = plots.nth(nth)
    plot.wait_for()
    page.wait_for_timeout(600)  # the WebGL layer draws just after the SVG one
    return plot


def _pixels(page):
    from io import BytesIO

    from PIL import Image

    return Image.open(BytesIO(page.screenshot())).convert("RGB")


def _near(img, centre, r_in, r_out, test):
    """True if some pixel between radii r_in and r_out of centre (CSS px, scale 1) passes test(r, g, b)."""
    cx, cy = (round(v) for v in centre)
    for dx in range(-r_out, r_out + 1):
        for dy in range(-r_out, r_out + 1):
            if r_in**2 <= dx * dx + dy * dy <= r_out**2 and 0 <= cx + dx < img.width and 0 <= cy + dy < img.height:
                if test(*img.getpixel((cx + dx, cy + dy))):
                    return True
    return False


def _toggle(page, label):
    page.locator("[data-testid='stSidebar']").get_by_text(label, exact=True).click()
    _wait_idle(page)


def test_marks_above_a_dense_cluster_the_focused_view_and_every_region(server, browser):
    ctx, page = _page_1400(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=1500&seed=0&t=3000")  # seed 0: s1 inside a dense cluster
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    main = _plot(page)
    view = main.evaluate(_MARKS_JS)
    names, types = view["names"], view["types"]
    nodes = names.index("nodes")
    for name in ("s1", "s2", "current sample", "vigilance region of s1 (CIM ≤ V)"):
        assert names.index(name) > nodes and types[names.index(name)] == "scattergl", name
    nx, ny = (np.asarray(v) for v in view["nodes"])
    s1 = np.asarray(view["xy"]["s1"])
    assert np.sum(np.hypot(nx - s1[0], ny - s1[1]) < 0.06) >= 8  # s1 is inside a dense cluster (dots overlapping)
    _shot(page, "30_marks_on_top_dense_cluster")
    img = _pixels(page)
    # the black ring of s1 and the magenta diamond of s2 are seen over the cluster's dots
    assert _near(img, view["px"]["s1"], 9, 15, lambda r, g, b: max(r, g, b) < 60)
    assert _near(img, view["px"]["s2"], 5, 15, lambda r, g, b: r > 200 and g < 90 and b > 200)
    assert main.evaluate(_OVERLAPS_JS) == []  # the legend leaves the axis numbers free
    full_width = view["range"][0][1] - view["range"][0][0]

    _toggle(page, "Focus on s1")
    main = _plot(page)
    page.get_by_text("focused on s1 · view").first.wait_for()
    page.wait_for_timeout(600)
    view = main.evaluate(_MARKS_JS)
    (x0, x1), (y0, y1) = view["range"]
    for name in ("s1", "s2", "current sample"):
        x, y = view["xy"][name]
        assert x0 <= x <= x1 and y0 <= y <= y1, name
    assert x1 - x0 < full_width / 8  # much narrower than the full view
    assert view["note"] == f"focused on s1 · view {x1 - x0:.2g} wide (the full view: 1)"
    assert "focus=1" in page.url
    _shot(page, "31_focus_on_s1_vigilance_region")

    _toggle(page, "Every node's vigilance region")
    main = _plot(page)
    view = main.evaluate(_MARKS_JS)
    assert view["names"].count("every node's vigilance region") >= 1 and "regions=1" in page.url
    assert view["names"].index("every node's vigilance region") < view["names"].index("nodes")
    _shot(page, "32_every_node_region_focused")
    _toggle(page, "Focus on s1")
    _plot(page)
    _shot(page, "33_every_node_region_full_view")
    ctx.close()


def test_the_quiz_starts_focused(server, browser):
    ctx, page = _page_1400(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=1500&t=3000&quiz=1")
    page.get_by_text("what will CAE do?").wait_for()
    _wait_idle(page)
    view = _plot(page).evaluate(_MARKS_JS)
    (x0, x1), (y0, y1) = view["range"]
    x, y = view["xy"]["next sample"]
    assert x0 <= x <= x1 and y0 <= y <= y1 and x1 - x0 < 0.15 and view["note"]
    for label in page.locator("[data-testid='stCheckbox'] [data-testid='stMarkdownContainer']").all():
        assert label.evaluate(_WHOLE_JS), label.inner_text()  # "A node will be deleted (sweep)" whole
    _shot(page, "34_quiz_starts_focused")
    ctx.close()


def test_legends_leave_the_axis_numbers_free(server, browser):
    ctx, page = _page_1400(browser)
    # Explain
    page.goto(server + "/explain?stream=paper2d-ns&n=500&t=3000")
    _wait_idle(page)
    explain = _plot(page)
    _scroll_to(page, explain)
    page.wait_for_timeout(600)
    assert explain.evaluate(_OVERLAPS_JS) == []
    _shot(page, "35_explain_legend_clear")
    # Place a sample
    page.goto(server + "/playground?stream=paper2d-ns&n=500&t=800")
    _wait_idle(page)
    x, y = _plot(page).evaluate(  # the biggest node: a sample there resonates with it and its neighbours
        """gd => { const t = gd._fullData.find(t => t.name === 'nodes'); const m = t.marker.size;
        const k = m.indexOf(Math.max(...m)); return [t.x[k], t.y[k]]; }"""
    )
    page.get_by_text(PLACE_SECTION).click()
    _wait_idle(page)
    for label, v in (("x0", x), ("x1", y)):
        box = page.get_by_label(label, exact=True)
        box.fill(f"{v:.4f}")
        box.press("Enter")
        _wait_idle(page)
    page.get_by_text("node(s) (CIM ≤ V =").wait_for()
    place = _plot(page, "sample to place")
    _scroll_to(page, place)
    page.wait_for_timeout(600)
    view = place.evaluate(_MARKS_JS)
    assert view["names"].index("would resonate (CIM ≤ V)") > view["names"].index("nodes")
    assert place.evaluate(_OVERLAPS_JS) == []
    _shot(page, "36_place_legend_clear")
    # the traces: "samples seen" and the legend apart, and the hover names whole
    traces = _plot(page, "network size")
    traces.evaluate("e => e.scrollIntoView({block: 'end'})")
    page.wait_for_timeout(600)
    assert traces.evaluate(_OVERLAPS_JS) == []  # "samples seen" and every axis's numbers clear of the legend
    _shot(page, "37_traces_samples_seen_and_legend")
    traces.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.mouse.move(800, 450)
    page.mouse.wheel(0, -200)  # the first row clear of the app's header
    page.wait_for_timeout(600)
    at = traces.evaluate(
        """gd => { const fl = gd._fullLayout, box = gd.getBoundingClientRect();
        const t = gd._fullData.find(t => t.name === 'isolated-node sweep');
        return [box.left + fl.xaxis._offset + fl.xaxis.l2p(t.x[0]), box.top + fl.yaxis._offset + fl.yaxis.l2p(t.y[0])]; }"""
    )
    page.mouse.move(at[0] - 30, at[1] + 20)
    page.mouse.move(at[0], at[1], steps=5)
    page.wait_for_timeout(800)
    hover = traces.evaluate("gd => gd.querySelector('.hoverlayer').textContent")
    assert "isolated-node sweep" in hover and "sw…" not in hover
    _shot(page, "38_traces_hover_names_whole")
    page.mouse.move(5, 5)
    # Compare: every network's legend and the traces' legend
    page.goto(server + "/compare")
    _wait_idle(page)
    page.get_by_role("button", name="Step N", exact=True).click()
    _wait_idle(page)
    page.get_by_text("500 of 9,900 samples").wait_for()
    nets = page.locator(".js-plotly-plot")
    nets.nth(4).wait_for()
    page.wait_for_timeout(800)
    for k in range(nets.count()):
        assert nets.nth(k).evaluate(_OVERLAPS_JS) == [], k
    _scroll_to(page, nets.first)
    page.wait_for_timeout(400)
    _shot(page, "39_compare_legends_clear")
    ctx.close()


def test_long_labels_show_whole(server, browser):
    ctx, page = _page_1400(browser)
    # the stream's name in the sidebar, and a count of the paper's size
    page.goto(server + "/playground?stream=drift-appear&n=15000&t=2000")
    _wait_idle(page)
    sidebar = page.locator("[data-testid='stSidebar']")
    shown = sidebar.locator("[data-testid='stSelectbox'] input").first
    assert shown.input_value() == "Drift · Appear and disappear" and shown.evaluate(_WHOLE_JS)
    sidebar.get_by_text("a class leaves half way as a new one arrives").wait_for()
    page.goto(server + "/playground?stream=paper2d-ns&n=15000&t=2000")
    _wait_idle(page)
    seen = page.locator("[data-testid='stMetric']").filter(has_text="Samples seen").first
    assert "of 99,000" in seen.inner_text()
    for value in page.locator("[data-testid='stMetricValue']").all():
        assert value.evaluate(_WHOLE_JS), value.inner_text()
    _shot(page, "40_sidebar_stream_and_samples_seen_whole")
    # the a_max formula on Explain: every formula within its column
    page.goto(server + "/explain?stream=paper2d-ns&n=1500&t=9000")
    _wait_idle(page)
    page.get_by_role("button", name="◀").nth(2).click()  # the previous Case III: a_max is computed
    _wait_idle(page)
    formula = page.locator(".katex-display").filter(has_text="max").last
    _scroll_to(page, formula)
    page.wait_for_timeout(400)
    outside = page.evaluate(
        """() => [...document.querySelectorAll('.katex-display')].filter(d => {
            const col = d.closest('[data-testid="stColumn"]') || d.closest('[data-testid="stMain"]');
            const k = d.querySelector('.katex').getBoundingClientRect(), c = col.getBoundingClientRect();
            return k.right > c.right + 1 || k.left < c.left - 1 || d.scrollWidth > d.clientWidth + 4;
        }).map(d => d.textContent.slice(0, 40))"""
    )
    assert outside == []
    _shot(page, "41_explain_a_max_whole")
    ctx.close()


def test_experiment_labels_show_whole(server, browser):
    if not (ROOT / "results" / "paper_comparison.csv").exists():
        pytest.skip("results/paper_comparison.csv is not there (python -m cae.experiments paper)")
    ctx, page = _page_1400(browser)
    page.goto(server + "/experiments")
    _wait_idle(page)
    page.get_by_text("Friedman test and Nemenyi critical difference").wait_for()
    cds = page.locator(".js-plotly-plot").filter(has_text="CD =")
    cds.nth(1).wait_for()
    _scroll_to(page, cds.first)
    page.mouse.move(5, 5)
    page.wait_for_timeout(800)
    for k in range(cds.count()):
        clipped = cds.nth(k).evaluate(
            """gd => { const b = gd.getBoundingClientRect();
            return [...gd.querySelectorAll('g.annotation text')].filter(t => {
                const r = t.getBoundingClientRect();
                return r.left < b.left || r.right > b.right; }).map(t => t.textContent); }"""
        )
        assert clipped == [], clipped
    names = cds.first.evaluate("gd => [...gd.querySelectorAll('g.annotation text')].map(t => t.textContent)")
    assert any(t.startswith("ASOINN(mean) (") and t.endswith(")") for t in names)
    _shot(page, "42_critical_difference_labels_whole")
    lam = page.locator(".js-plotly-plot").filter(has_text="Validity of the number of active nodes")
    _scroll_to(page, lam)
    page.mouse.wheel(0, 300)
    page.wait_for_timeout(800)
    touching = lam.evaluate(
        """gd => { const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        const t = [...gd.querySelectorAll('g[class*="tick"] text')].filter(e => e.textContent.trim())
            .map(e => [e.textContent, e.getBoundingClientRect()]);
        const out = [];
        for (let i = 0; i < t.length; i++) for (let j = i + 1; j < t.length; j++)
            if (hit(t[i][1], t[j][1])) out.push(t[i][0] + '|' + t[j][0]);
        return out; }"""
    )
    assert touching == []
    _shot(page, "43_lambda_validity_ticks_apart")
    ctx.close()


# ------------------------------------------------------------------ numbers that agree (issue 20, §4 and §6)
def test_upload_names_rows_sorted_by_class_and_offers_dropping_a_bad_cell(server, browser, tmp_path):
    """Iris in file order: the warning names "rows sorted by class" and its button learns in random order, which
    gives far fewer clusters. A file with one "abc" in a numeric column offers to drop that row."""
    from sklearn.datasets import load_iris

    d = load_iris(as_frame=True)
    df = d.data.copy()
    df["species"] = [d.target_names[k] for k in d.target]
    iris = tmp_path / "iris.csv"
    df.to_csv(iris, index=False)
    ctx, page = _classroom_page(browser)
    page.goto(server + "/upload")
    _wait_idle(page)
    page.locator("input[type=file]").first.set_input_files(str(iris))
    page.get_by_text("What was read").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Learn", exact=True).click()
    warning = page.get_by_text("The rows are sorted by class")
    warning.wait_for()
    _wait_idle(page)
    assert _metric(page, "#clusters") == "150"
    text = page.locator("[data-testid='stAlert']").filter(has_text="sorted by class").inner_text()
    assert "the label column species comes in 3 blocks" in text and "random order" in text
    assert "scaling would change little" in text
    _scroll_to(page, warning)
    _shot(page, "numbers_01_upload_rows_sorted_by_class")
    page.get_by_role("button", name="Learn again in random order").click()
    _wait_idle(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stMetric\"]')].some(m => m.innerText.includes('#clusters')"
        " && m.querySelector('[data-testid=\"stMetricValue\"]').innerText.trim() !== '150')"
    )
    assert int(_metric(page, "#clusters")) <= 150 / 4
    assert page.get_by_text("The rows are sorted by class").count() == 0
    _shot(page, "numbers_02_upload_random_order")
    page.locator("input[type=file]").first.set_input_files(str(ROOT / "tests" / "csv_corpus" / "33_one_bad_cell.csv"))
    box = page.get_by_text("Treat the 1 unparsable cell as missing and drop that 1 row")
    box.wait_for()
    _wait_idle(page)
    assert page.get_by_text("line 8, column petal: 'abc'").count() == 1
    _scroll_to(page, box)
    _shot(page, "numbers_03_upload_bad_cell_offered")
    box.click()
    page.get_by_text("19 rows × 2 features (1 dropped: 1 with unparsable value)").wait_for()
    _wait_idle(page)
    _shot(page, "numbers_04_upload_bad_cell_dropped")
    ctx.close()


def test_how_often_runs_in_the_background_while_the_page_stays_usable(server, browser):
    """The paper's size: the seeds run in the background with progress in words; Step 1 works meanwhile;
    Stop ends the job and says how far it got."""
    ctx, page = _classroom_page(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=15000&noise=0.1&seed=0&algo=CAE&t=0")
    _wait_idle(page)
    heading = page.get_by_role("heading", name="How often?")
    _scroll_to(page, heading)
    # 50 seeds (about 13 s here): 10 can end before the step below on a quiet machine (a seed takes ~0.25 s)
    page.locator(".st-key-w_howoften_n input[type='range']").focus()
    page.keyboard.press("End")
    page.get_by_role("button", name="Run 50 seeds").click()
    progress = page.locator("[data-testid='stProgress']")
    progress.wait_for()
    assert "of 50 runs done" in progress.inner_text()
    _shot(page, "numbers_05_how_often_running")
    # the page stays usable: a step is taken while the seeds run
    page.get_by_role("button", name="Step 1", exact=True).click()
    _wait_seen(page, 1)
    assert progress.count() == 1, "the job ended before the step: nothing shows it ran in the background"
    for attempt in range(4):  # a click that lands while the page reruns (the step, the progress) can be lost
        page.locator(".st-key-b_howoften_stop button").click()
        try:
            page.get_by_text("Stopped:").wait_for(timeout=20000)
            break
        except Exception:
            if attempt == 3:
                raise
    _wait_idle(page)
    _shot(page, "numbers_06_how_often_stopped")
    ctx.close()


def test_how_often_default_and_home_say_which_run(server, browser):
    ctx, page = _classroom_page(browser)
    page.goto(server)
    _wait_home_picture(page)
    page.get_by_text("a typical run: NMI").wait_for()
    _shot(page, "numbers_07_home_typical")
    page.goto(server + "/playground")
    _wait_idle(page)
    hint = page.get_by_text("How often? Over seeds 0–29")
    hint.wait_for()
    assert "Seed 9 is the typical run" in hint.inner_text()
    _scroll_to(page, page.get_by_text("final NMI of each seed"))
    page.mouse.wheel(0, 200)
    page.wait_for_timeout(800)
    _shot(page, "numbers_08_how_often_default_spread")
    ctx.close()


def test_continual_conventions_and_compare_log(browser, tmp_path):
    """A fresh server with its log in a file: the Continual page under both conventions (Iris, setosa first), and
    Compare with AutoCloud stepped; the log holds no traceback (before: an ArrowInvalid for every '—' column)."""
    log = tmp_path / "server.log"
    proc, url = _start_server(log=log)
    try:
        ctx, page = _classroom_page(browser)
        page.goto(url + "/continual?stream=iris&order=0,1,2&seed=0")
        _wait_idle(page)
        page.get_by_role("button", name="Run", exact=True).click()
        page.get_by_text("AI (NMI)", exact=True).wait_for()
        _wait_idle(page)
        assert _metric(page, "AI (NMI)") == "0.620"
        page.get_by_text("AI = mean(1.000, 0.388, 0.471) = 0.620").wait_for()
        _scroll_to(page, page.get_by_text("R — NMI on stages"))
        _shot(page, "numbers_09_continual_published_convention")
        page.get_by_text("The paper's text (scikit-learn's scores)").click()
        page.get_by_text("AI = mean(0.000, 0.388, 0.471) = 0.286").wait_for()
        _wait_idle(page)
        assert _metric(page, "AI (NMI)") == "0.286"
        _scroll_to(page, page.get_by_text("R — NMI on stages"))
        _shot(page, "numbers_10_continual_text_convention")
        page.goto(url + "/compare")
        _wait_idle(page)
        box = page.locator("[data-testid='stMultiSelect'] input").first
        box.click()
        box.press("Backspace")  # at most four: TCA out, AutoCloud in
        _wait_idle(page)
        box.click()
        box.fill("AutoCloud")
        box.press("Enter")
        _wait_idle(page)
        page.keyboard.press("Escape")
        page.get_by_role("button", name="Step N", exact=True).click()
        page.get_by_text("500 of 9,900 samples").wait_for()
        _wait_idle(page)
        _scroll_to(page, page.get_by_text("Score the noise as a class"))
        _shot(page, "numbers_11_compare_table")
        ctx.close()
    finally:
        _stop(proc)
    text = log.read_text(errors="replace")
    assert "Traceback" not in text and "ArrowInvalid" not in text, text[-3000:]


# ------------------------------------------------------------------ direct manipulation (1400×900)
_TO_PIXELS_JS = """([gd, points]) => {
    const fl = gd._fullLayout, box = gd.getBoundingClientRect(), xa = fl.xaxis, ya = fl.yaxis;
    return points.map(([x, y]) => [box.left + xa._offset + xa.l2p(x), box.top + ya._offset + ya.l2p(y)]);
}"""

_TRACES_JS = """gd => Object.fromEntries(gd._fullData.filter(t => t.name).map(t => [t.name,
    [Array.from(t.x || []).map(v => v === null ? NaN : v), Array.from(t.y || []).map(v => v === null ? NaN : v)]]))"""


def _place_plot(page):
    plot = page.locator(".st-key-place_fig .js-plotly-plot")
    _scroll_to(page, plot)
    page.wait_for_timeout(600)
    return plot


def _radio(page, label):
    page.get_by_text(label, exact=True).click()
    _wait_idle(page)


def _drag(page, path):
    page.mouse.move(*path[0])
    page.mouse.down()
    for p in path[1:]:
        page.mouse.move(*p, steps=6)
    page.mouse.up()
    _wait_idle(page)


def _query(page):
    from urllib.parse import parse_qs, urlparse

    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_a_click_places_a_sample_and_a_drawn_region_feeds_samples(server, browser):
    from cae.app.regions import Region

    ctx, page = _page_1400(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=1500&seed=0&t=800")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    page.get_by_text(PLACE_SECTION).click()
    _wait_idle(page)
    # a click on the plot chooses the position under the mouse (plotly's own axes say where that is)
    plot = _place_plot(page)
    ((cx, cy),) = page.evaluate(_TO_PIXELS_JS, [plot.element_handle(), [[0.17, 0.7]]])
    page.mouse.click(cx, cy)
    _wait_idle(page)
    x0 = float(page.locator(".st-key-w_place_x0 input").input_value())
    x1 = float(page.locator(".st-key-w_place_x1 input").input_value())
    per_px = 1.1 / plot.locator(".nsewdrag").bounding_box()["width"]  # data units per pixel
    assert abs(x0 - 0.17) < 2 * per_px and abs(x1 - 0.7) < 2 * per_px
    page.get_by_text("The sample to place resonates with").wait_for()  # the left blob: nodes ringed
    plot = _place_plot(page)
    traces = plot.evaluate(_TRACES_JS)
    star = traces["sample to place"]
    assert (star[0][0], star[1][0]) == pytest.approx((x0, x1), abs=1e-5)
    ((sx, sy),) = page.evaluate(_TO_PIXELS_JS, [plot.element_handle(), [[x0, x1]]])
    img = _pixels(page)
    assert _near(img, (sx, sy), 0, 4, lambda r, g, b: max(r, g, b) < 60)  # the black star, where we clicked
    _shot(page, "40_click_chooses_a_position")
    # "Feed a click at once": a click places the sample there as the next one
    page.get_by_text("Feed a click at once").click()
    _wait_idle(page)
    plot = _place_plot(page)
    ((cx, cy),) = page.evaluate(_TO_PIXELS_JS, [plot.element_handle(), [[0.62, 0.9]]])
    page.mouse.click(cx, cy)
    _wait_seen(page, 801)
    place = _query(page)["place"].split(":")
    assert place[0] == "800" and abs(float(place[1]) - 0.62) < 2 * per_px and abs(float(place[2]) - 0.9) < 2 * per_px
    page.get_by_text("1 sample(s) placed by hand").wait_for()
    plot = _place_plot(page)
    placed = plot.evaluate(_TRACES_JS)["placed by hand"]
    assert (placed[0][0], placed[1][0]) == pytest.approx((float(place[1]), float(place[2])), abs=1e-5)
    _shot(page, "41_click_placed_a_sample")

    # drag a box: the next samples come from it
    _radio(page, "Drag a box: draw a region")
    plot = _place_plot(page)
    (ax, ay), (bx, by) = page.evaluate(_TO_PIXELS_JS, [plot.element_handle(), [[0.45, 0.15], [0.62, 0.38]]])
    _drag(page, [(ax, ay), ((ax + bx) / 2, (ay + by) / 2), (bx, by)])
    page.get_by_text("1,000 drawn from your regions").wait_for()
    first = _query(page)["draw"]
    start, count, box_text = first.split(":")
    box = Region.decode(box_text)
    (bx0, bx1), (by0, by1) = box.bbox
    assert (start, count) == ("801", "1000") and box.kind == "box"
    assert abs(bx0 - 0.45) < 3 * per_px and abs(bx1 - 0.62) < 3 * per_px
    assert abs(by0 - 0.15) < 3 * per_px and abs(by1 - 0.38) < 3 * per_px
    # and a lasso: a second region of the same drawing
    _radio(page, "Lasso: draw a region")
    plot = _place_plot(page)
    ring = [[0.8 + 0.09 * np.cos(a), 0.45 + 0.09 * np.sin(a)] for a in np.linspace(0, 2 * np.pi, 25)]
    _drag(page, [tuple(p) for p in page.evaluate(_TO_PIXELS_JS, [plot.element_handle(), ring])])
    page.get_by_text("these 2 regions").wait_for()
    regions = [Region.decode(r) for r in _query(page)["draw"].split(":")[2:]]
    assert regions[0] == box and regions[1].kind == "polygon"
    assert regions[1].area == pytest.approx(np.pi * 0.09**2, rel=0.15)
    _shot(page, "42_drawn_box_and_lasso")

    # step: the samples come from the regions, and the network grows there (the main view shows it)
    page.evaluate("window.scrollTo(0, 0)")
    page.get_by_role("button", name="Step N", exact=True).click()
    _wait_seen(page, 901)
    page.get_by_role("button", name="Step N", exact=True).click()
    _wait_seen(page, 1001)
    assert _metric(page, "Current stream") == "your drawing"
    main = _plot(page)
    traces = main.evaluate(_TRACES_JS)
    nodes = np.column_stack(traces["nodes"])
    assert box.contains(nodes).sum() >= 3 and regions[1].contains(nodes).sum() >= 3
    outline = np.column_stack(traces[DRAWING])
    assert np.isnan(outline[:, 0]).sum() == 2  # two outlines
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(600)
    img = _pixels(page)
    main = _plot(page)
    ((ex, ey),) = page.evaluate(_TO_PIXELS_JS, [main.element_handle(), [[0.45, (by0 + by1) / 2]]])
    assert _near(img, (ex, ey), 0, 5, lambda r, g, b: max(r, g, b) < 60)  # the box's left edge, in black
    _shot(page, "43_drawn_regions_feed_samples")

    # a region removed: the drawing goes on from the lasso alone; the link opens the same run elsewhere
    page.get_by_role("button", name="Remove", exact=True).first.click()
    _wait_idle(page)
    link = page.url
    assert _query(page)["draw"].count(",") == 1
    nodes_here = _metric(page, "#nodes")
    ctx.close()
    ctx, page = _page_1400(browser)
    page.goto(link)
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_seen(page, 1001)
    assert _metric(page, "#nodes") == nodes_here
    names = _plot(page).evaluate(_TRACES_JS)
    assert DRAWING in names and "placed by hand" in names
    _shot(page, "44_drawing_from_the_link")
    ctx.close()


DRAWING = "your drawing: the next samples come from here"


def test_new_seed_the_paper_setting_and_switching_algorithms(server, browser):
    ctx, page = _page_1400(browser)
    page.goto(server + "/playground")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    seed_box = page.locator("[data-testid='stSidebar'] .st-key-w_seed input")
    # the caption's seed, then the box saying the same (a box read while the page still draws may be stale; a
    # failure says what each showed)
    caption = page.get_by_text(re.compile(r"· seed \d+ ·")).first
    first = int(re.search(r"· seed (\d+) ·", caption.inner_text()).group(1))
    expect(seed_box).to_have_value(str(first), timeout=60000)
    for seed in (first + 1, first + 2):
        page.get_by_role("button", name="New seed").click()
        page.get_by_text(f"· seed {seed} ·", exact=False).wait_for()
        _wait_idle(page)
        assert seed_box.input_value() == str(seed) and _query(page)["seed"] == str(seed)
    # CAEA: the paper's setting button, and a switch that keeps the step
    page.get_by_role("button", name="Step N", exact=True).click()
    _wait_seen(page, 100)
    page.locator("[data-testid='stSidebar']").get_by_text("CAEA", exact=True).click()
    page.get_by_text("Switched from CAE to CAEA").wait_for()
    _wait_idle(page)
    assert _seen(page) == 100 and _query(page)["lam"] == "50" and _query(page)["amax"] == "40"
    _shot(page, "45_switched_to_caea_at_the_same_step")
    sidebar = page.locator("[data-testid='stSidebar']")
    sidebar.get_by_role("button", name="Paper's setting").scroll_into_view_if_needed()
    slider = sidebar.locator(".st-key-w_lam").get_by_role("slider")
    slider.focus()
    slider.press("End")
    _wait_idle(page)
    assert _query(page)["lam"] == "400" and _seen(page) == 100
    sidebar.get_by_role("button", name="Paper's setting").click()
    _wait_idle(page)
    shown = sidebar.locator(".st-key-w_lam [data-testid='stSliderThumbValue']").inner_text()
    assert _query(page)["lam"] == "50" and shown == "50" and _seen(page) == 100
    assert seed_box.input_value() == str(first + 2) and _query(page)["seed"] == str(first + 2)
    _shot(page, "46_paper_setting_in_the_sidebar")
    ctx.close()


def test_an_open_expander_stays_open_when_a_message_above_it_goes(server, browser):
    """After switching CAE to CAEA the page says so once; the next rerun drops that message, and the
    place-and-draw section opened meanwhile stays open (Streamlit knows an element by its position: the
    messages that come and go live in a container made on every run)."""
    ctx, page = _page_1400(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=500&seed=0&t=800")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    page.locator("[data-testid='stSidebar']").get_by_text("CAEA", exact=True).first.click()
    page.get_by_text("Switched from CAE to CAEA").wait_for()
    _wait_idle(page)
    page.get_by_text(PLACE_SECTION).click()
    _wait_idle(page)
    page.locator(".st-key-w_place_x0 input").fill("0.17")
    page.locator(".st-key-w_place_x0 input").press("Enter")
    _wait_idle(page)
    assert page.get_by_text("Switched from CAE to CAEA").count() == 0  # said once
    assert page.locator(".st-key-w_place_x1 input").is_visible()
    ctx.close()


# ------------------------------------------------------------------ the projector (issue 26, §8, §9, §12)
_TEXT_SIZES = """gd => [...gd.querySelectorAll('g.legend text, g.xtick text, g.ytick text, g.colorbar text, g.annotation text,'
    + ' g.g-gtitle text, g.g-xtitle text, g.g-ytitle text')].filter(t => t.textContent.trim())
    .map(t => [t.textContent.slice(0, 30), parseFloat(getComputedStyle(t).fontSize)])"""


def _to_top(page):
    page.evaluate(
        '() => { window.scrollTo(0, 0); document.querySelectorAll(\'[data-testid="stMain"], [data-testid="stAppViewContainer"]\')'
        ".forEach(e => { e.scrollTop = 0; }); }"
    )
    page.wait_for_timeout(300)


@pytest.mark.parametrize("size", [(1400, 900), (1280, 720)], ids=["1400x900", "1280x720"])
def test_the_whole_main_view_fits_a_projector_with_labelled_controls_and_readable_text(server, browser, size, capsys):
    """The Playground's main figure, legend to x-axis, above the fold with the page scrolled to the top (it
    ran from y = 363 to 923 at 1400×900); the N box and the samples-per-frame slider named; the smallest
    text of the main view and of the traces at least 14 px."""
    w, h = size
    ctx = browser.new_context(viewport={"width": w, "height": h})
    page = ctx.new_page()
    page.set_default_timeout(90000)
    page.goto(server + "/playground?stream=paper2d-ns&n=1500&seed=0&t=300")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    main = page.locator(".st-key-main_fig .js-plotly-plot").first
    page.locator(".st-key-main_fig .main-svg").first.wait_for(state="attached")
    page.wait_for_timeout(800)
    _to_top(page)
    box = main.bounding_box()
    _shot(page, f"50_projector_{w}x{h}")
    assert box["y"] >= 0 and box["y"] + box["height"] <= h, (box, h)
    # the controls beside Play say what their numbers are: the row keeps one line, so the speed says it in its box
    # ("20 per frame") and the N box sits beside Step N; a screen reader hears both names
    n_box = page.get_by_role("spinbutton", name="N for Step N")
    speed = page.locator("[data-testid='stSelectbox']").filter(has_text="per frame")
    assert (
        n_box.input_value() == "100" and speed.count() == 1 and speed.locator("input").input_value() == "20 per frame"
    )
    assert page.get_by_role("combobox", name="Samples per frame").count() == 1
    sizes = main.evaluate(_TEXT_SIZES)
    traces = page.locator(".js-plotly-plot").filter(has_text="network size").first
    traces.scroll_into_view_if_needed()
    traces.evaluate(  # its five rows' axis numbers drawn
        "gd => new Promise(ok => { const t0 = Date.now(); (function wait() {"
        " if (gd.querySelectorAll('g.ytick text').length >= 10 || Date.now() - t0 > 20000) ok();"
        " else setTimeout(wait, 200); })(); })"
    )
    page.wait_for_timeout(600)
    sizes += traces.evaluate(_TEXT_SIZES)
    smallest = min(sizes, key=lambda s: s[1])
    with capsys.disabled():
        print(
            f"\n[projector {w}x{h}] main figure top {box['y']:.0f} px, bottom {box['y'] + box['height']:.0f} px; "
            f"smallest text {smallest[1]:.1f} px ({smallest[0]!r}), {len(sizes)} texts measured"
        )
    assert smallest[1] >= 14, [s for s in sizes if s[1] < 14]
    # and while playing: the player's bar above the frames, the frames' x-axis still on the screen
    _to_top(page)
    page.get_by_text("Play", exact=True).click()
    page.wait_for_selector("iframe[title*='cae_player'][data-drawn]", state="attached", timeout=120000)
    player = _player_frame(page)
    page.wait_for_timeout(1000)
    _to_top(page)
    top = page.locator("iframe[title*='cae_player']").bounding_box()["y"]
    plot = player.evaluate(
        "() => { const r = document.getElementById('plot').getBoundingClientRect(); return [r.top, r.bottom]; }"
    )
    _shot(page, f"51_projector_playing_{w}x{h}")
    with capsys.disabled():
        print(f"[projector {w}x{h}] while playing: frames from {top + plot[0]:.0f} to {top + plot[1]:.0f} px")
    assert player.locator("#pause").is_visible() and top + plot[1] <= h, (top, plot, h)
    page.get_by_text("Play", exact=True).click()
    _wait_idle(page)
    ctx.close()


def test_the_playground_opens_on_the_stream_to_come(server, browser):
    """At t = 0 the main view shows the stream to come and says to press Step 1, on the first screen."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    page.set_default_timeout(90000)
    page.goto(server + "/playground?stream=paper2d-ns&n=1500&seed=0")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    main = page.locator(".st-key-main_fig .js-plotly-plot").first
    page.locator(".st-key-main_fig .main-svg").first.wait_for(state="attached")
    page.wait_for_timeout(800)
    _to_top(page)
    hint = main.locator("g.annotation").filter(has_text="Step 1").first
    assert hint.is_visible() and hint.bounding_box()["y"] + hint.bounding_box()["height"] <= 720
    assert main.evaluate("gd => gd._fullData.find(t => t.name === 'the stream to come').x.length") > 1000
    assert page.get_by_text("frame:").count() == 0
    _shot(page, "52_playground_opens_on_the_stream_to_come")
    ctx.close()


# ------------------------------------------------------------------ Play on a busy machine (issue 26, §3)
_WATCH_HANDOVER = """() => {
    const vis = el => {
        if (!el) return false;
        const r = el.getBoundingClientRect();
        if (r.height < 100 || r.width < 100) return false;
        let o = 1;
        for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
            const cs = getComputedStyle(e);
            if (cs.display === 'none' || cs.visibility === 'hidden') return false;
            o *= parseFloat(cs.opacity);
        }
        return o > 0.2;
    };
    window.__handover = [];
    const tick = () => {
        const still = document.querySelector('.st-key-main_fig .main-svg');
        const f = document.querySelector("iframe[title*='cae_player']");
        let player = false;
        try { player = vis(f) && f.contentWindow.playerState.stats.shown > 0; } catch (e) { player = false; }
        const words = document.body.innerText.includes('Play is starting');
        window.__handover.push([Math.round(performance.now()), vis(still), player, words]);
        if (window.__handover.filter(r => r[2]).length < 20) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""


def test_play_keeps_the_still_view_until_its_first_frame_and_says_what_it_waits_for(server, browser, capsys):
    """From the click on Play until the player has drawn its first frame, the still view stays on the screen
    (it was an empty box for 10-36 s on a busy machine) with a line saying what it waits for; then the player
    takes its place; and the player's speed is one the server holds (its measured time per frame)."""
    ctx, page = _page_1400(browser)
    page.set_default_timeout(120000)
    page.goto(server + "/playground?stream=paper2d-ns&n=1500&seed=0&t=3000")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    page.locator(".st-key-main_fig .main-svg").first.wait_for(state="attached")
    page.wait_for_timeout(800)
    page.evaluate(_WATCH_HANDOVER)
    page.get_by_text("Play", exact=True).click()
    page.wait_for_timeout(400)
    _shot(page, "53_play_starting")
    page.wait_for_function("() => window.__handover.filter(r => r[2]).length >= 20", timeout=120000)
    rec = page.evaluate("() => window.__handover")
    first = next(k for k, r in enumerate(rec) if r[2])
    blank = [r for r in rec if not (r[1] or r[2])]
    assert blank == [], blank[:5]  # at every screen refresh: the still view or a drawn frame
    assert any(r[3] for r in rec[:first])  # the waiting line was there before the first frame
    assert not rec[-1][1]  # the player took the still view's place
    _shot(page, "54_play_first_frames")
    player = _player_frame(page)
    server_ms, rate, fps = player.evaluate("() => [playerState.serverMs, 0, playerState.fps]")
    assert server_ms > 0
    with capsys.disabled():
        print(
            f"\n[play start] still view shown for {rec[first][0] - rec[0][0]} ms after the click, "
            f"{len(rec)} refreshes watched, none blank; server {server_ms:.0f} ms/frame (speed chosen {fps})"
        )
    page.get_by_text("Play", exact=True).click()
    _wait_idle(page)
    ctx.close()


# ------------------------------------------------------------------ labels whole on a projector (issue 26, §10)
_CHIPS_CUT = """() => [...document.querySelectorAll('[data-testid="stMultiSelect"]')].filter(m => m.getBoundingClientRect().width > 0)
    .flatMap(m => { const box = m.getBoundingClientRect();
        return [...m.querySelectorAll('[data-tag] > span[title]')].filter(s => {
            const r = s.getBoundingClientRect();
            return s.scrollWidth > s.clientWidth + 1 || r.right > box.right + 1 || r.left < box.left - 1
                || r.bottom > box.bottom + 1 || r.width < 1; }).map(s => s.title); })"""
_GRID_SCROLLS = """e => [...e.querySelectorAll('.dvn-scroller')].map(s => s.scrollWidth - s.clientWidth)"""


@pytest.mark.parametrize("size", [(1400, 900), (1280, 720)], ids=["1400x900", "1280x720"])
def test_labels_are_not_cut_at_projector_sizes(server, browser, tmp_path, size):
    """Compare's stream box shows its name whole; a multiselect's chips ("petal_width", "ASOINN(mean)") all
    show whole inside their box (they scrolled out of it, cut: "petal_wid…"); the table against the paper
    fits its width (16 columns needed horizontal scrolling, the last header cut: "refer…")."""
    import pandas as pd
    from sklearn.datasets import load_iris

    w, h = size
    ctx = browser.new_context(viewport={"width": w, "height": h})
    page = ctx.new_page()
    page.set_default_timeout(90000)
    page.goto(server + "/compare")
    _wait_idle(page)
    box = page.locator("[data-testid='stSelectbox']").filter(has_text="Stream").locator("input").first
    assert box.input_value().startswith("Paper 2-D · non-stationary") and box.evaluate(_WHOLE_JS)
    assert page.evaluate(_CHIPS_CUT) == []
    _shot(page, f"55_compare_stream_whole_{w}x{h}")
    d = load_iris(as_frame=True)
    df = d.data.copy()
    df.columns = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
    df["species"] = [d.target_names[k] for k in d.target]
    iris = tmp_path / "iris_named.csv"
    pd.DataFrame(df).to_csv(iris, index=False)
    page.goto(server + "/upload")
    _wait_idle(page)
    page.locator("input[type=file]").first.set_input_files(str(iris))
    page.get_by_text("What was read").wait_for()
    _wait_idle(page)
    features = page.locator("[data-testid='stMultiSelect']").filter(has_text="Features").first
    _scroll_to(page, features)
    assert sorted(features.locator("[data-tag] > span[title]").evaluate_all("e => e.map(s => s.title)")) == sorted(
        df.columns[:4]
    )
    assert page.evaluate(_CHIPS_CUT) == []
    _shot(page, f"56_your_data_feature_chips_whole_{w}x{h}")
    if (ROOT / "results" / "paper_comparison.csv").exists():
        page.goto(server + "/experiments")
        _wait_idle(page)
        page.get_by_text("Friedman test and Nemenyi critical difference").wait_for()
        assert page.evaluate(_CHIPS_CUT) == []
        grid = page.locator("[data-testid='stDataFrame']").filter(has_text="").nth(1)
        _scroll_to(page, grid)
        page.wait_for_timeout(800)
        assert max(grid.evaluate(_GRID_SCROLLS)) <= 1  # every column in view, no horizontal scrolling
        _shot(page, f"57_against_the_paper_rows_fit_{w}x{h}")
    ctx.close()

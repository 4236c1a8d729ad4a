"""A real browser: Debian's Chromium driven by playwright against `streamlit run app.py`.

Screenshots go to test-output/screenshots/ (look at them).
"""

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import ROOT

pytestmark = pytest.mark.browser
SHOTS = ROOT / "test-output" / "screenshots"


def _chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server(env=None):
    """A fresh `streamlit run app.py`; returns (process, url) once it answers its health check."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read().strip() == b"ok":
                return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    pytest.fail("streamlit did not become healthy: " + proc.stdout.read().decode(errors="replace")[-2000:])


def _stop(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def server():
    proc, url = _start_server()
    yield url
    _stop(proc)


@pytest.fixture(scope="module")
def browser():
    path = _chromium()
    if path is None:
        pytest.skip("Chromium is not installed (.ci/run installs Debian's chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=path,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield b
        b.close()


def _page(browser):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = ctx.new_page()
    page.set_default_timeout(45000)
    return ctx, page


def _wait_idle(page):
    """Wait until Streamlit has finished running the script.

    The app root's ``data-test-script-state`` turns to ``rerunRequested`` as soon as a widget sends its
    rerun, then ``running``, then ``notRunning`` (the status widget shows "Running" only for longer runs).
    """
    page.wait_for_timeout(300)
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-script-state='notRunning']", state="attached", timeout=60000
    )
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
        timeout=60000,
    )
    page.wait_for_timeout(300)


def _metric(page, label):
    m = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return m.locator("[data-testid='stMetricValue']").inner_text()


def _wait_home_picture(page):
    """Until the home picture (an SVG image of the trained network) is drawn, not just its box."""
    page.wait_for_function(
        "() => { const i = document.querySelector('[data-testid=\"stImage\"] img');"
        " return i && i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().width > 300 }",
        timeout=60000,
    )


def _seen(page):
    return int(_metric(page, "Samples seen").split("/")[0].replace(",", ""))


def _wait_seen(page, n, timeout_ms=60000):
    """Until 'Samples seen' shows n (a loaded machine can take a while to start the rerun); then idle."""
    page.wait_for_function(
        "n => [...document.querySelectorAll('[data-testid=\"stMetric\"]')].some(m => m.innerText.includes('Samples seen')"
        " && m.querySelector('[data-testid=\"stMetricValue\"]').innerText.split('/')[0].replace(/,/g, '').trim() === String(n))",
        arg=n,
        timeout=timeout_ms,
    )
    _wait_idle(page)
    assert _seen(page) == n


def _settled_seen(page, quiet_ms=1500, timeout_ms=30000):
    """The 'Samples seen' count once it has not changed for quiet_ms (fails if it never settles)."""
    waited, last, still = 0, _seen(page), 0
    while still < quiet_ms:
        assert waited < timeout_ms, f"'Samples seen' still changing after {timeout_ms} ms (last {last})"
        page.wait_for_timeout(250)
        waited += 250
        now = _seen(page)
        still = still + 250 if now == last else 0
        last = now
    return last


def _scroll_to(page, locator, tries=5):
    """Scroll an element into view; a rerun that redraws it in between is waited out and tried again."""
    from playwright.sync_api import Error as PlaywrightError

    for i in range(tries):
        try:
            locator.scroll_into_view_if_needed(timeout=10000)
            return
        except PlaywrightError:
            if i == tries - 1:
                raise
            _wait_idle(page)


def _shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


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
    # play for a second or two
    play = page.locator("[data-testid='stCheckbox']").filter(has_text="Play").locator("input").first
    page.get_by_text("Play", exact=True).click()
    page.wait_for_timeout(2500)
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


def test_direct_link_to_a_page_on_a_fresh_server(browser):
    """The first request a server sees is a link to a page, not to the home page."""
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(180):
            try:
                if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read().strip() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        ctx, page = _page(browser)
        page.goto(url + "/compare")
        page.get_by_role("heading", name="Compare algorithms").wait_for()
        _wait_idle(page)
        nav = page.locator("[data-testid='stSidebarNav']").inner_text()
        assert "Playground" in nav and "Your data" in nav and "ui" not in nav.split()
        _shot(page, "12_direct_link")
        ctx.close()
    finally:
        proc.terminate()
        proc.wait(10)


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


# ------------------------------------------------------------------ teaching
def test_lesson_link_on_a_fresh_server(browser):
    from cae.app.lesson_links import PLAYGROUND_DEFAULTS
    from cae.app.stepper import Stepper
    from cae.app.streams import make_stream
    from pages._playground_session import algo_params

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


def test_quiz_and_place_a_sample(server, browser):
    from cae.app.explanations import QUIZ_CHOICES
    from cae.app.lesson_links import PLAYGROUND_DEFAULTS
    from cae.app.stepper import Stepper
    from cae.app.streams import make_stream
    from pages._playground_session import algo_params

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
    page.get_by_text("Place a sample: what if a point arrives here?").click()
    lo, hi = ref.stream.X.min(axis=0), ref.stream.X.max(axis=0)
    square = f"{lo[0] + 0.1 * (hi[0] - lo[0]):.2f}, {lo[1] + 0.7 * (hi[1] - lo[1]):.2f}"  # on the left blob
    page.get_by_role("button", name=square, exact=True).click()
    _wait_idle(page)
    page.get_by_text("It resonates with").wait_for()
    _scroll_to(page, page.get_by_text("Place a sample: what if a point arrives here?"))
    page.mouse.wheel(0, 500)
    page.wait_for_timeout(500)
    _shot(page, "25_place_a_sample_preview")
    page.get_by_role("button", name="Feed it as the next sample").click()
    page.get_by_text("1 sample(s) placed by hand").wait_for()
    _wait_idle(page)
    assert "place=800" in page.url
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

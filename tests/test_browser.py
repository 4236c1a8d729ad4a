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


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read().strip() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("streamlit did not become healthy: " + proc.stdout.read().decode(errors="replace")[-2000:])
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser():
    path = _chromium()
    if path is None:
        pytest.skip("Chromium is not installed (.ci/run installs Debian's chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


def _page(browser):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = ctx.new_page()
    page.set_default_timeout(45000)
    return ctx, page


def _wait_idle(page):
    """Wait until Streamlit has finished running the script."""
    page.wait_for_timeout(400)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
                           " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.includes('Running')",
                           timeout=60000)
    page.wait_for_timeout(300)


def _metric(page, label):
    m = page.locator("[data-testid='stMetric']").filter(has_text=label).first
    return m.locator("[data-testid='stMetricValue']").inner_text()


def _shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=False)


def test_home_and_preset(server, browser):
    ctx, page = _page(browser)
    page.goto(server)
    page.get_by_text("CAE Explorer").first.wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    _wait_idle(page)
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
    _wait_idle(page)
    assert _metric(page, "Samples seen").startswith("1 /")
    page.get_by_role("button", name="Step N", exact=True).click()
    _wait_idle(page)
    assert _metric(page, "Samples seen").startswith("101 /")
    assert int(_metric(page, "#nodes")) > 1
    _shot(page, "02_playground_step")
    # play for a second or two
    page.get_by_text("Play", exact=True).click()
    page.wait_for_timeout(2500)
    page.get_by_text("Play", exact=True).click()
    _wait_idle(page)
    seen = int(_metric(page, "Samples seen").split("/")[0].replace(",", ""))
    assert seen > 101
    _shot(page, "03_playground_after_play")
    # scrub back with the keyboard on the history slider
    handle = page.locator("[data-testid='stSlider']").filter(has_text="History").get_by_role("slider")
    handle.focus()
    for _ in range(3):
        handle.press("Home")
    _wait_idle(page)
    back = int(_metric(page, "Samples seen").split("/")[0].replace(",", ""))
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
    page.get_by_role("button", name="λ fixed").click()
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
    page.get_by_text("AI (NMI)").wait_for()
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
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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
        page.get_by_role("heading", name="CAE beside CAEA").wait_for()
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
    page.get_by_role("button", name="Run", exact=True).first.click()
    page.locator(".js-plotly-plot").first.wait_for()
    _wait_idle(page)
    _shot(page, "13_experiments")
    ctx.close()

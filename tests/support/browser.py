"""What every real-browser test shares: Debian's Chromium, the one `streamlit run app.py` launcher, and waiting
for Streamlit to be idle. The ``server`` and ``browser`` fixtures are in ``tests/conftest.py``.

Screenshots go to test-output/screenshots/ (look at them).
"""

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ROOT

from cae.bench.play import CHROMIUM_ARGS, chromium_path

SHOTS = ROOT / "test-output" / "screenshots"


@contextmanager
def chromium():
    """Debian's Chromium through playwright, headless, with the benchmark's flags and finder
    (:data:`cae.bench.play.CHROMIUM_ARGS`, :func:`cae.bench.play.chromium_path`): the one launch of every browser
    test. Skips the test, with the reason, where Chromium or playwright is missing."""
    path = chromium_path()
    if path is None:
        pytest.skip("Chromium is not installed (.ci/run installs Debian's chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server(env=None, log=None, port=None, script="app.py"):
    """A fresh `streamlit run app.py` (the one launcher of every browser test); returns (process, url) once it
    answers its health check. ``env``: the server's environment; ``log``: a file path for its output (else a pipe,
    read when it fails to start); ``port``: a given one (a server restarted where its browsers reconnect);
    ``script``: another page to serve (a path from the repository's root)."""
    port = port or _free_port()
    if not log:
        # a file, never a pipe nobody reads: a server that has written 64 KB into a full pipe stops at its next
        # line, and every later page of it says "Connection timed out" (a module of axe audits in a fresh-clone run
        # of .ci/run: its server's thread sat in anon_pipe_write)
        # (in the session's throw-away folder, removed when the session ends: conftest.py)
        where = os.environ.get("CAE_TEST_HOME")
        log = tempfile.NamedTemporaryFile(prefix="streamlit-", suffix=".log", dir=where, delete=False).name  # noqa: SIM115
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            # no file watcher (as cae.classroom.deploy's servers): it watched the whole checkout, where the other
            # worker's tests write (.hypothesis/, test-output/), and filled its log with inotify warnings (694 KB)
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        stdout=open(log, "wb"),  # noqa: SIM115 - the server owns the file
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
    said = Path(log).read_bytes()
    pytest.fail("streamlit did not become healthy: " + said.decode(errors="replace")[-2000:])


def _stop(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def _page(browser):
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = ctx.new_page()
    page.set_default_timeout(45000)
    return ctx, page


def _wait_idle(page):
    """Wait until Streamlit has finished running the script.

    The app root's ``data-test-script-state`` turns to ``rerunRequested`` as soon as a widget sends its
    rerun, then ``running``, then ``notRunning`` (the status widget shows "Running" only for longer runs). The
    first wait lets a widget that sends its value late (a slider's is debounced) start its run; the last, a run
    that asks for another (``st.rerun``) start that one. (Waiting instead for 250 ms of unbroken idle lost a
    slider's run under load: 3 failures in a run of the suite on both cores.)
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


def _shot(page, name, full=False):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def _player_frame(page):
    """The player's frame (the custom component drawing Play), once it is on the page."""
    page.wait_for_selector("iframe[title*='cae_player']", timeout=90000)
    for _ in range(100):
        frames = [f for f in page.frames if "cae_player" in f.url]
        if frames:
            return frames[0]
        page.wait_for_timeout(100)
    raise AssertionError("the player's frame did not load")


def _classroom_page(browser):
    """A 1400×900 page: the projector's size."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(60000)
    return ctx, page

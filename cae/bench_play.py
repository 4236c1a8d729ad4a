"""``python -m cae.bench --playground``: how Play looks to a person — frames per second in a real browser.

A real ``streamlit run app.py`` and Debian's Chromium (through playwright, the test extra: ``pip install -e
".[test]"``), headless, at 1400×900. The Playground opens a lesson link whose network has about 300 nodes (the
paper's 2-D stream at its size, 10 % noise, seed 0, t = 60,000: 307 nodes, 617 edges); Play starts at 20 samples a
frame and the speed chosen in the player (default 60 frames a second: as fast as the browser can show them). It
prints, for each condition:

- **first picture**: seconds from the click on Play to the player's first frame drawn;
- **fps**: frames drawn per second over ``--seconds`` of play, and the **90th-percentile frame time** (ms between
  two frames drawn);
- **display**: the reference, timed in the same run — the rate at which the same browser, in the same page, calls
  ``requestAnimationFrame`` (the display's rate: what a browser animates at when nothing holds it back); and
  fps as a share of it;
- what limits the rate: the player's median drawing time per frame (ms) and the server's time per frame (ms).

Conditions: ``quiet`` (nothing else running) and, with ``--beside CMD`` (default: the fast test loop, ``python -m
pytest -m "not browser and not slow" -q -p no:cacheprovider``), the same while that command runs beside it. The
numbers go to docs/performance.md; nothing is asserted (speed targets live in benchmarks, not in tests).
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: the lesson link played: about 300 nodes (CAE on the paper's stream at its size)
LINK = "/playground?stream=paper2d-ns&n=15000&noise=0.1&seed=0&algo=CAE&t=60000"
#: the fast test loop, the default load beside the loaded measurement
FAST_LOOP = f'{shlex.quote(sys.executable)} -m pytest -m "not browser and not slow" -q -p no:cacheprovider'
_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium():
    import shutil

    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    raise SystemExit("no Chromium found: install Debian's chromium (apt-get install chromium) or set CHROMIUM")


def _player_frame(page):
    page.wait_for_selector("iframe[title*='cae_player']", timeout=120000)
    for _ in range(400):
        frames = [f for f in page.frames if "cae_player" in f.url]
        if frames:
            return frames[0]
        page.wait_for_timeout(50)
    raise RuntimeError("the player's frame did not load")


def _display_rate(page, ms=2000):
    """The display's rate in this page: requestAnimationFrame calls per second over ``ms``."""
    return page.evaluate(
        "ms => new Promise(r => { let n = 0; const t0 = performance.now();"
        " function f(t) { n++; if (t - t0 < ms) requestAnimationFrame(f); else r(n / ((t - t0) / 1000)); }"
        " requestAnimationFrame(f); })",
        ms,
    )


def measure(url, seconds=10.0, fps=60, viewport=(1400, 900)):
    """One play of :data:`LINK`: a dict of the numbers the module prints."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=_ARGS)
        page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
        page.set_default_timeout(180000)
        page.goto(url + LINK)
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=\"stMetricValue\"]')].some(m => m.innerText === '60,000')"
        )
        page.locator(".st-key-main_fig .main-svg").first.wait_for(state="attached")
        page.wait_for_timeout(1500)
        display_still = _display_rate(page)
        clicked = page.evaluate("() => performance.timeOrigin + performance.now()")
        page.get_by_text("Play", exact=True).click()
        player = _player_frame(page)
        player.wait_for_function("() => window.playerState && playerState.stats.firstDrawnAt !== null")
        first = (player.evaluate("() => playerState.stats.firstDrawnAt") - clicked) / 1000
        player.evaluate(
            "v => { const s = document.getElementById('fps'); if (!s.querySelector(`option[value='${v}']`)) {"
            " const o = document.createElement('option'); o.value = o.textContent = String(v); s.appendChild(o); }"
            " s.value = String(v); s.dispatchEvent(new Event('change')); }",
            fps,
        )
        page.wait_for_timeout(2500)  # the queue fills at the new speed
        s0 = player.evaluate("() => [playerState.stats.shown, performance.now(), playerState.stats.times.length]")
        display = _display_rate(player, int(seconds * 1000))  # the reference, in the same page, during play
        s1 = player.evaluate("() => [playerState.stats.shown, performance.now()]")
        times = player.evaluate("n => playerState.stats.times.slice(-n)", s1[0] - s0[0])
        draw = player.evaluate("() => playerState.stats.drawMs.slice(-200)")
        answers = player.evaluate("() => playerState.stats.answers.slice(-40)")
        browser.close()
    gaps = sorted(b - a for a, b in zip(times, times[1:])) or [float("nan")]
    per_frame = [a[5] / a[2] for a in answers if a[5] is not None and a[2]]
    shown_fps = (s1[0] - s0[0]) / ((s1[1] - s0[1]) / 1000)
    return {
        "first picture (s)": round(first, 2),
        "fps": round(shown_fps, 1),
        "p90 frame (ms)": round(gaps[int(0.9 * (len(gaps) - 1))], 1),
        "display (Hz)": round(display, 1),
        "display before Play (Hz)": round(display_still, 1),
        "fps / display": round(shown_fps / display, 2) if display else float("nan"),
        "draw (ms)": round(statistics.median(draw), 1) if draw else float("nan"),
        "server (ms/frame)": round(statistics.median(per_frame), 1) if per_frame else float("nan"),
    }


def _row(name, r):
    return (
        f"{name:8s} {r['first picture (s)']:>9.2f} {r['fps']:>7.1f} {r['p90 frame (ms)']:>9.1f} "
        f"{r['display (Hz)']:>9.1f} {r['fps / display']:>8.2f} {r['draw (ms)']:>8.1f} {r['server (ms/frame)']:>9.1f}"
        f" {r['display before Play (Hz)']:>9.1f}"
    )


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cae.bench --playground", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="seconds of play measured (default 10)")
    ap.add_argument("--fps", type=int, default=60, help="the speed chosen in the player (default 60)")
    ap.add_argument("--beside", default=FAST_LOOP, help="the load of the second measurement (default: the fast tests)")
    ap.add_argument("--quiet-only", action="store_true", help="only the quiet measurement")
    ap.add_argument("--runs", type=int, default=1, help="measurements per condition (default 1)")
    args = ap.parse_args(argv)
    from .classroom.loadtest import AppServer

    root = Path(__file__).resolve().parent.parent
    server = AppServer(dict(os.environ))
    try:
        # a warm-up play: the server imports and compiles what Play needs, the browser caches the page
        measure(server.url, seconds=2, fps=args.fps)
        print(f"Play in Chromium at 1400x900, {LINK} (307 nodes), 20 samples a frame, speed {args.fps}/s")
        print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        print(
            f"{'':8s} {'first (s)':>9s} {'fps':>7s} {'p90 (ms)':>9s} {'display':>9s} {'fps/disp':>8s} {'draw ms':>8s} {'server ms':>9s}"
        )
        for _ in range(args.runs):
            print(_row("quiet", measure(server.url, seconds=args.seconds, fps=args.fps)), flush=True)
        if not args.quiet_only:
            beside = subprocess.Popen(
                args.beside,
                shell=True,
                cwd=root,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # its own process group: stopped whole, the shell and what it started
            )
            try:
                time.sleep(8)  # the tests under way
                for _ in range(args.runs):
                    print(_row("loaded", measure(server.url, seconds=args.seconds, fps=args.fps)), flush=True)
            finally:
                import signal

                try:
                    os.killpg(beside.pid, signal.SIGTERM)
                    beside.wait(15)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    os.killpg(beside.pid, signal.SIGKILL)
            print(f"loaded: beside `{args.beside}`")
    finally:
        server.stop()


if __name__ == "__main__":
    main()

"""``python -m cae.bench --playground``: how Play looks to a person — frames per second in a real browser.

A real ``streamlit run app.py`` and Debian's Chromium (through playwright, the test extra: ``pip install -e
".[test]"``), headless, at 1400×900. The Playground opens a lesson link whose network has about 300 nodes (the
paper's 2-D stream at its size, 10 % noise, seed 0, t = 60,000: 307 nodes, 617 edges); Play starts at 20 samples a
frame and the speed chosen in the player (default 60 frames a second: as fast as the browser can show them). It
prints, for each condition:

- **shown/s**: the frames shown per second over ``--seconds`` of play, the **90th-percentile** and the **longest gap**
  between two frames shown (ms: a stall shows there, not in a mean);
- **first (s)**: seconds from the click on Play to the player's first frame drawn;
- **display before / during (Hz)**: the reference, timed in the same page — the rate at which the browser calls
  ``requestAnimationFrame`` (the display's rate: what a browser animates at when nothing holds it back) before
  Play and while it plays; and **shown/display**, the frames shown as a share of the display's rate during play —
  written only while the display keeps its rate: where the display itself slows (a loaded machine: 60 Hz before,
  4.8 Hz during), a share near 1 says nothing of the player, and the line says so instead;
- what limits the rate: the player's median **draw** time per frame (ms) and the **server**'s time per frame (ms);
- **load**: the machine's 1-minute load average when the measurement started.

Conditions: ``quiet`` (nothing else started), with ``--busy N`` the same beside N busy loops (``python -c "while
True: pass"``: a loaded machine, reproducibly), and with ``--beside CMD`` (default: the fast test loop, ``python -m
pytest -m "not browser and not slow" -q -p no:cacheprovider``) beside that command. The numbers go to
docs/performance.md; nothing is asserted (speed targets live in benchmarks, not in tests).
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
#: Chromium's flags for a headless run here (no sandbox in a container, no network of its own); the browser tests
#: use the same (tests/support/browser.py)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path():
    """The Chromium to drive (``$CHROMIUM``, else the first of Debian's and Google's names on the PATH), or None."""
    import shutil

    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _chromium():
    path = chromium_path()
    if path:
        return path
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

    load = os.getloadavg()[0]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
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
        "load": round(load, 2),
        "first picture (s)": round(first, 2),
        "shown/s": round(shown_fps, 1),
        "p90 gap (ms)": round(gaps[int(0.9 * (len(gaps) - 1))], 1),
        "max gap (ms)": round(gaps[-1], 1),
        "display before (Hz)": round(display_still, 1),
        "display during (Hz)": round(display, 1),
        "shown/display": round(shown_fps / display, 2) if display else float("nan"),
        "draw (ms)": round(statistics.median(draw), 1) if draw else float("nan"),
        "server (ms/frame)": round(statistics.median(per_frame), 1) if per_frame else float("nan"),
    }


#: a display's rate when nothing holds the browser back (Chromium's, headless: 60 Hz)
NOMINAL_HZ = 60.0
#: the display counts as slowed when it keeps less than this share of its rate (the larger of its rate before Play
#: and :data:`NOMINAL_HZ`) while playing
SLOWED = 0.8


def display_slowed(r):
    """True where the display itself is slow while playing (a loaded machine, or Play's own work holding the browser
    back): its rate during Play below :data:`SLOWED` of its rate before or of :data:`NOMINAL_HZ`, whichever is
    larger. Then a share of that rate says nothing of the player: the frames shown per second are the measure.

    >>> display_slowed({"display before (Hz)": 60.0, "display during (Hz)": 4.8})
    True
    >>> display_slowed({"display before (Hz)": 60.0, "display during (Hz)": 59.2})
    False
    >>> display_slowed({"display before (Hz)": 22.0, "display during (Hz)": 36.4})  # slow before Play already
    True
    """
    before, during = r["display before (Hz)"], r["display during (Hz)"]
    return during < SLOWED * max(before, NOMINAL_HZ)


#: the columns, named: (heading, key, width, format)
COLUMNS = (
    ("condition", None, 14, ""),
    ("load", "load", 5, ".2f"),
    ("first (s)", "first picture (s)", 9, ".2f"),
    ("shown/s", "shown/s", 7, ".1f"),
    ("p90 gap ms", "p90 gap (ms)", 10, ".0f"),
    ("max gap ms", "max gap (ms)", 10, ".0f"),
    ("display before Hz", "display before (Hz)", 17, ".1f"),
    ("display during Hz", "display during (Hz)", 17, ".1f"),
    ("shown/display", "shown/display", 13, ".2f"),
    ("draw ms", "draw (ms)", 7, ".1f"),
    ("server ms/frame", "server (ms/frame)", 15, ".1f"),
)


def header():
    """The table's heading: every column named."""
    return " ".join(f"{h:<{w}s}" if key is None else f"{h:>{w}s}" for h, key, w, _ in COLUMNS)


def row(name, r):
    """One measurement as a line of the table (shown/display left out, as "—", where the display slowed).

    >>> r = {"load": 1.0, "first picture (s)": 2.0, "shown/s": 58.9, "p90 gap (ms)": 18, "max gap (ms)": 40,
    ...      "display before (Hz)": 60.0, "display during (Hz)": 59.9, "shown/display": 0.98, "draw (ms)": 3.1,
    ...      "server (ms/frame)": 12.0}
    >>> row("quiet", r).split()[-3:]
    ['0.98', '3.1', '12.0']
    >>> row("busy x2", {**r, "display during (Hz)": 4.8, "shown/display": 0.86}).split()[-3:]
    ['—', '3.1', '12.0']
    """
    cells = []
    for _, key, w, fmt in COLUMNS:
        if key is None:
            cells.append(f"{name:<{w}s}")
        elif key == "shown/display" and display_slowed(r):
            cells.append(f"{'—':>{w}s}")
        else:
            cells.append(f"{r[key]:>{w}{fmt}}")
    return " ".join(cells)


def verdict(name, r):
    """What a reader takes from one measurement, in words (the display's slowing said where it slowed).

    >>> r = {"load": 9.3, "shown/s": 18.8, "max gap (ms)": 533, "display before (Hz)": 60.0, "display during (Hz)": 4.8}
    >>> verdict("busy x2", r)[:77]
    'busy x2: the display itself is slow, 60.0 Hz before Play and 4.8 Hz during it'
    """
    if display_slowed(r):
        return (
            f"{name}: the display itself is slow, {r['display before (Hz)']:.1f} Hz before Play and "
            f"{r['display during (Hz)']:.1f} Hz during it (load {r['load']:.2f}: a busy machine, or Play's own work "
            f"holding the browser back): {r['shown/s']:.1f} frames/s shown, longest gap {r['max gap (ms)']:.0f} ms; "
            "a share of that rate says nothing of the player"
        )
    return (
        f"{name}: {r['shown/s']:.1f} frames/s shown, {r['shown/display']:.2f} of the display's "
        f"{r['display during (Hz)']:.1f} Hz (load {r['load']:.2f}); longest gap {r['max gap (ms)']:.0f} ms"
    )


def _busy(n):
    """N busy loops beside the measurement (a loaded machine), each in its own process group."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(int(n))]


def _stop(procs):
    import signal

    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(p.pid, signal.SIGKILL)


def _measure_rows(name, url, args, lines):
    for _ in range(args.runs):
        r = measure(url, seconds=args.seconds, fps=args.fps)
        print(row(name, r), flush=True)
        lines.append(verdict(name, r))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cae.bench --playground", description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="seconds of play measured (default 10)")
    ap.add_argument("--fps", type=int, default=60, help="the speed chosen in the player (default 60)")
    ap.add_argument("--busy", type=int, default=0, help="also measure beside N busy loops (a loaded machine)")
    ap.add_argument("--beside", default=FAST_LOOP, help="the load of the last measurement (default: the fast tests)")
    ap.add_argument("--quiet-only", action="store_true", help="only the quiet measurement (and --busy's)")
    ap.add_argument("--runs", type=int, default=1, help="measurements per condition (default 1)")
    args = ap.parse_args(argv)
    from .classroom import AppServer

    root = Path(__file__).resolve().parents[2]  # the checkout (cae/bench/ is two levels down)
    server = AppServer(dict(os.environ))
    lines = []
    try:
        # a warm-up play: the server imports and compiles what Play needs, the browser caches the page
        measure(server.url, seconds=2, fps=args.fps)
        print(f"Play in Chromium at 1400x900, {LINK} (307 nodes), 20 samples a frame, speed {args.fps}/s")
        print("load average at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        print(header())
        _measure_rows("quiet", server.url, args, lines)
        if args.busy:
            loops = _busy(args.busy)
            try:
                time.sleep(5)  # the loops under way
                _measure_rows(f"busy x{args.busy}", server.url, args, lines)
            finally:
                _stop(loops)
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
                _measure_rows("fast tests", server.url, args, lines)
            finally:
                _stop([beside])
            lines.append(f"fast tests: beside `{args.beside}`")
        print()
        print("\n".join(lines))
    finally:
        server.stop()


if __name__ == "__main__":
    main()

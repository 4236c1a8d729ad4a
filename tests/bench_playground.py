"""How long the Playground's script runs for a lesson link, and for a rerun after a widget change (#20 §5).

Run ``python tests/bench_playground.py`` from the repository's root. It prints seconds; nothing is asserted
(speed targets live in benchmarks). Streamlit's ``AppTest`` runs the page's real script in this process —
no browser, no websocket — so the numbers are the server's script time for one session (the part of a
page load the app controls); what a browser adds on top is measured by the browser test
``test_playground_figure_from_a_fresh_browser_context`` (test-output/). Each link is opened in a new
session, after one warm-up session has imported everything and loaded the compiled kernels, as on a
server that has served a page before.

It lives beside the tests (not in ``cae/``) because it drives Streamlit, which the package never imports.
"""

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINKS = {  # the paper's non-stationary stream at its size: 15,000 per distribution, 10 % noise
    "t = 664": {"stream": "paper2d-ns", "n": "15000", "noise": "0.1", "seed": "0", "t": "664"},
    "t = 49,500": {"stream": "paper2d-ns", "n": "15000", "noise": "0.1", "seed": "0", "t": "49500"},
    "t = 99,000 (the end)": {"stream": "paper2d-ns", "n": "15000", "noise": "0.1", "seed": "0", "t": "99000"},
}


def _session(query):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params.update(query)
    at.run()
    t0 = time.perf_counter()
    at.switch_page("pages/playground.py").run()
    opened = time.perf_counter() - t0
    if at.exception:
        raise SystemExit(f"the Playground raised: {at.exception}")
    if at.session_state.pg.t != int(query["t"]):
        raise SystemExit(f"the link asked for t = {query['t']}, the Playground is at {at.session_state.pg.t}")
    return at, opened


def _rerun(at, change):
    t0 = time.perf_counter()
    change(at).run()
    return time.perf_counter() - t0


def main(repeat=3):
    sys.path.insert(0, str(ROOT))
    _session({"t": "300"})  # warm-up: imports, compiled kernels, Streamlit's caches of the streams
    import logging

    for name in list(logging.root.manager.loggerDict):  # AppTest's bare-mode warnings
        if name.startswith("streamlit"):
            logging.getLogger(name).setLevel(logging.ERROR)
    print("Playground script time for one session (seconds; median of", repeat, "new sessions per link)")
    print(f"{'lesson link':24s} {'open':>7s} {'toggle a view':>14s} {'step 1':>7s} {'rewind slider':>14s}")
    for name, query in LINKS.items():
        opened, toggled, stepped, rewound = [], [], [], []
        for _ in range(repeat):
            at, seconds = _session(query)
            opened.append(seconds)
            toggled.append(_rerun(at, lambda a: a.toggle(key="w_regions").set_value(True)))
            stepped.append(_rerun(at, lambda a: a.button(key="b_step1").click()))
            t_now = at.session_state.pg.t
            rewound.append(_rerun(at, lambda a: a.slider(key="w_scrub").set_value(max(1, t_now // 2))))
        med = statistics.median
        print(f"{name:24s} {med(opened):7.2f} {med(toggled):14.2f} {med(stepped):7.2f} {med(rewound):14.2f}")


if __name__ == "__main__":
    main()

"""Streamlit's own files behind the classroom's nginx: served by nginx from disk (the recipe) against proxied to the
app processes (the recipe before it served them).

``python -m cae.bench --static-files [--students N] [--processes K]`` starts the recipe twice
(:class:`cae.classroom.deploy.Deployment`, K app processes, SQLite), once with its ``/static/`` location and once
without it, and lets N students load a class page's Streamlit files at once, each with a cookie of its own (so
nginx spreads them over the processes, as it spreads a class): the scripts and styles ``index.html`` names, and
Plotly's script, which the class's chart loads (4.7 MB). It prints each way's seconds per student (median, p95,
slowest), the wall time for all N, and the bytes each student received; then the ratio. The students run on this
machine, beside the server.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..classroom.deploy import TEMPLATE, Deployment, nginx_binary, streamlit_static
from .classroom import _pct

#: the recipe's ``/static/`` location, to render the config without it (every request then goes to a process)
_STATIC_LOCATION = re.compile(r"\n(?:        #[^\n]*\n)*        location /static/ \{.*?\n        \}\n", re.S)


def proxied_template(folder):
    """The recipe's template without its ``/static/`` location (as it was before): a path in ``folder``."""
    text, n = _STATIC_LOCATION.subn("", TEMPLATE.read_text())
    if n != 1:
        raise ValueError("the template's /static/ location was not found")
    path = Path(folder) / "nginx.proxied.conf.template"
    path.write_text(text)
    return path


def first_load_files():
    """The ``/static/`` paths of a class page's first load: what ``index.html`` names, and Plotly's script."""
    static = streamlit_static()
    index = (static.parent / "index.html").read_text()
    named = sorted(set(re.findall(r"""["'](?:\./|/)?(static/[^"']+\.(?:js|css))["']""", index)))
    chart = next((static / "js").glob("PlotlyChart.*.js")).name
    return ["/" + p for p in named] + [f"/static/js/{chart}"]


def _student(url, files):
    """One student: a cookie of its own, then every file (compressed if the server will). (seconds, bytes)."""
    with urllib.request.urlopen(url + "/_stcore/health", timeout=60) as r:
        cookie = r.headers.get("Set-Cookie", "").split(";")[0]
    start, received = time.perf_counter(), 0
    for path in files:
        req = urllib.request.Request(url + path, headers={"Accept-Encoding": "gzip", "Cookie": cookie})
        with urllib.request.urlopen(req, timeout=300) as r:
            received += len(r.read())
    return time.perf_counter() - start, received


def measure(students, processes, template):
    """N students' first load at once through a deployment of ``template``: per-student seconds, wall, bytes."""
    files = first_load_files()
    with tempfile.TemporaryDirectory(prefix="cae-bench-static-") as tmp:
        dep = Deployment(
            processes, "sqlite:///" + str(Path(tmp) / "c.sqlite3"), folder=Path(tmp) / "nginx", template=template
        )
        try:
            _student(dep.url, files)  # (one load first: the files in the page cache, either way)
            start = time.perf_counter()
            with ThreadPoolExecutor(students) as pool:
                results = list(pool.map(lambda _: _student(dep.url, files), range(students)))
            wall = time.perf_counter() - start
        finally:
            dep.stop()
    seconds = sorted(s for s, _ in results)
    return {
        "median": statistics.median(seconds),
        "p95": _pct(seconds, 0.95),
        "slowest": seconds[-1],
        "wall": wall,
        "bytes": statistics.median(b for _, b in results),
        "files": len(files),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cae.bench --static-files", description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=30, help="students loading at once (default 30)")
    ap.add_argument("--processes", type=int, default=2, help="app processes behind nginx (default 2)")
    args = ap.parse_args(argv)
    if nginx_binary() is None:
        print("static files: skipped, nginx is not installed (apt-get install nginx)")
        return None
    with tempfile.TemporaryDirectory() as tmp:
        rows = {
            "nginx from disk": measure(args.students, args.processes, TEMPLATE),
            "proxied to the app": measure(args.students, args.processes, proxied_template(tmp)),
        }
    print(
        f"{args.students} students load a class page's Streamlit files at once ({rows['nginx from disk']['files']} "
        f"files, Plotly's script among them), {args.processes} app processes behind nginx"
    )
    print(f"{'served':<20} {'median s':>9} {'p95 s':>8} {'slowest s':>10} {'all, wall s':>12} {'MB each':>8}")
    for name, r in rows.items():
        print(
            f"{name:<20} {r['median']:>9.2f} {r['p95']:>8.2f} {r['slowest']:>10.2f} {r['wall']:>12.2f} "
            f"{r['bytes'] / 1e6:>8.2f}"
        )
    a, b = rows["proxied to the app"], rows["nginx from disk"]
    print(
        f"ratio (proxied / from disk): median {a['median'] / b['median']:.1f}x, wall {a['wall'] / b['wall']:.1f}x, "
        f"bytes {a['bytes'] / b['bytes']:.1f}x"
    )
    return rows

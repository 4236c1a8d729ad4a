"""``python -m cae.bench``: the command line of every benchmark (:mod:`cae.bench` lists them).

Without a mode it runs the speed benchmark (:mod:`cae.bench.speed`; ``--cold``: only the first fit of a fresh
process). ``--peers``, ``--playground``, ``--csv-quality`` and ``--csv`` hand the options after them to their own
module's command line (:mod:`cae.bench.peers`, :mod:`cae.bench.play`, :mod:`cae.bench.quality`,
:mod:`cae.bench.big_csv`: ``--peers --help`` lists its options); ``--classroom N`` runs only the live classroom's
load benchmark (:mod:`cae.bench.classroom`): N students against one app server, on the SQLite and the Redis store
(``--flood K``: while K sessions flood the server; ``--flood-churn K``: while K students keep opening fresh
connections, each with 20 requests to run their page; ``--processes K --proxy nginx``: K app processes behind nginx);
``--static-files`` hands its options to :mod:`cae.bench.static_files` (Streamlit's own files behind nginx).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def parser(default_skin):
    """The options of the speed benchmark and of the classroom's (the other modes read their own)."""
    ap = argparse.ArgumentParser(
        prog="python -m cae.bench",
        description="Speed and memory benchmark: microseconds per sample (best of --repeat runs, warm compiled "
        "kernels) for the streams the README quotes, and peak memory.",
        epilog="python -m cae.bench --peers [its options] times CAE beside River's and scikit-learn's streaming "
        "clusterers instead (python -m cae.bench --peers --help lists its options); python -m cae.bench --playground "
        "[its options] measures Play's frames per second in a real browser (--playground --help).",
    )
    ap.add_argument(
        "--peers",
        action="store_true",
        help="run the peer comparison instead (cae.bench.peers; the options after it are its own)",
    )
    ap.add_argument(
        "--csv",
        action="store_true",
        help="run the large-CSV benchmark instead (cae.bench.big_csv: cae learn / label against pandas and memory; "
        "the options after it are its own)",
    )
    ap.add_argument(
        "--csv-quality",
        action="store_true",
        help="run the long-file quality benchmark instead (cae.bench.quality: CAE's NMI, clusters, nodes and edges "
        "at 10k to 3M rows, on all rows and on samples; the options after it are its own)",
    )
    ap.add_argument("--repeat", type=int, default=10, help="runs of each timing; the best is kept (default 10)")
    ap.add_argument("--skin", default=str(default_skin), help="the Skin dataset CSV (features, then label)")
    ap.add_argument("--frames", action="store_true", help="also time the playground's play frame")
    ap.add_argument("--algorithms", action="store_true", help="also time every registered algorithm")
    ap.add_argument(
        "--cold",
        action="store_true",
        help="only the first fit of a fresh process: empty cache, un-jitted, and warm cache",
    )
    ap.add_argument("--datasets", default=str(default_skin.parent), help="the paper's datasets (Letter, Skin)")
    ap.add_argument(
        "--only",
        default="",
        help="comma-separated words: time only the workloads whose name has one (e.g. letter,64-d)",
    )
    ap.add_argument(
        "--classroom",
        type=int,
        metavar="N",
        help="only the live classroom: N students against one app server (cae/bench/classroom.py)",
    )
    ap.add_argument("--backend", choices=["sqlite", "redis", "both"], default="both", help="the classroom's store")
    ap.add_argument(
        "--real",
        type=int,
        metavar="K",
        help="classroom: K of the N students as real Streamlit sessions, the rest polling the store (default: all N)",
    )
    ap.add_argument("--classroom-n", type=int, default=15000, help="classroom: points per distribution (paper: 15000)")
    ap.add_argument("--classroom-steps", type=int, default=10, help="classroom: the teacher's steps timed")
    ap.add_argument(
        "--processes",
        type=int,
        default=1,
        metavar="K",
        help="classroom: K app processes behind --proxy (cae/classroom/deploy.py; default 1, no proxy)",
    )
    ap.add_argument("--proxy", choices=["nginx"], help="classroom: the students through nginx (docs/deploy/)")
    ap.add_argument(
        "--kill-one",
        action="store_true",
        help="classroom with --proxy: SIGKILL one app process mid-class; time its students' way back",
    )
    ap.add_argument(
        "--flood",
        type=int,
        default=0,
        metavar="K",
        help="classroom: K more sessions ask for their page as fast as they can while the teacher steps",
    )
    ap.add_argument(
        "--flood-churn",
        type=int,
        default=0,
        metavar="K",
        help="classroom: K more students keep opening a fresh connection, sending 20 requests to run their page and "
        "closing it (8 at a time), while the teacher steps",
    )
    ap.add_argument(
        "--continual", action="store_true", help="also time one class-incremental CAE run on Letter and PenBased"
    )
    return ap


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--peers" in argv:
        from .peers import main as peers

        return peers([a for a in argv if a != "--peers"])
    if "--playground" in argv:
        from .play import main as play

        return play([a for a in argv if a != "--playground"])
    if "--csv-quality" in argv:
        from .quality import main as quality

        quality([a for a in argv if a != "--csv-quality"])
        return None
    if "--static-files" in argv:
        from .static_files import main as static_files

        static_files([a for a in argv if a != "--static-files"])
        return None
    if "--csv" in argv:
        from .big_csv import main as csv

        return csv([a for a in argv if a != "--csv"])
    from ..data.fetch import default_folder

    shared = Path(os.environ.get("CAE_TEST_SHARED") or "none") / "datasets"  # the test suite's shared folder
    default_skin = (shared if (shared / "skin.csv").exists() else default_folder()) / "skin.csv"
    ap = parser(default_skin)
    args = ap.parse_args(argv)
    if args.classroom:
        return run_classroom(ap, args)
    from . import speed

    if args.cold:
        speed.cold()
    else:
        speed.run(args)
    return None


def run_classroom(ap, args):
    """``--classroom N``: the classroom's load benchmark on the stores asked for (and through nginx, with
    ``--proxy nginx``)."""
    from . import classroom as load

    backends = ("sqlite", "redis") if args.backend == "both" else (args.backend,)
    if (args.processes > 1 or args.kill_one) and not args.proxy:
        ap.error("--processes K > 1 and --kill-one need --proxy nginx")
    proxy = None
    if args.proxy == "nginx":
        from ..classroom import deploy

        if deploy.nginx_binary() is None:
            print("nginx: skipped, nginx is not installed (apt-get install nginx)")
            return None
        proxy = deploy.Deployment
    load.main(
        args.classroom,
        backends,
        real=args.real,
        n_per_class=args.classroom_n,
        steps=args.classroom_steps,
        processes=args.processes,
        proxy=proxy,
        kill_one=args.kill_one,
        flood=args.flood,
        churn=args.flood_churn,
    )


if __name__ == "__main__":
    main()

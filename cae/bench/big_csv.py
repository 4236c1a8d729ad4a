"""A large CSV from the command line: ``python -m cae.bench --csv`` (this module's options after it).

Writes a CSV of ``--rows`` rows (default 10,000,000) of the paper's 2-D distributions with 10 % noise (rows
shuffled, 6 decimals), then times, each in a fresh process and in the same run:

* **reference, learn**: pandas reads the whole file (``pd.read_csv``) and CAE learns the array in memory
  (``learn_many``, ``end_batch``);
* **cae learn**: ``cae learn FILE --out MODEL`` (read in chunks, checked, learned, written);
* **reference, label**: pandas reads the whole file and the model labels the array (``predict``);
* **cae label**: ``cae label FILE --model MODEL --out LABELS`` (read, checked, labelled, written);

each with its wall time (the interpreter's start and imports included, as a user waits for them), rows per
second, the ratio to its reference, its CPU time (all threads; on a busy machine a steadier measure than the
wall time) and the process's peak resident memory. Then the readers it could use,
in this process: pandas whole, this project's reader (:class:`~cae.data.csvstream.CSVStream` and
:class:`~cae.data.csvio.FeatureReader`: 2 MB blocks, every check), pyarrow's streaming reader, and polars
where it is installed (it is not a dependency). The load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: the code a measured child runs before printing its peak resident memory (kB) as JSON on its last line
_REFERENCE_LEARN = """
import pandas as pd
from cae import CAE
X = pd.read_csv({path!r}).to_numpy(float)
m = CAE().learn_many(X).end_batch()
out = {{"nodes": len(m.nodes_), "clusters": int(m.n_clusters_)}}
"""
_REFERENCE_LABEL = """
import pandas as pd
from cae import load_model
X = pd.read_csv({path!r}).to_numpy(float)
labels = load_model({model!r}).predict(pd.DataFrame(X, columns=["x", "y"]))
out = {{"labelled": len(labels)}}
"""
_CLI = """
from cae.cli import main
code = main({argv!r})
out = {{"exit": code}}
if {argv!r}[0] == "learn":
    from cae import load_model
    m = load_model({argv!r}[{argv!r}.index("--out") + 1])
    out.update(nodes=len(m.nodes_), clusters=int(m.n_clusters_))
"""
#: (the peak is this process's own, VmHWM: ru_maxrss also counts the peak of the process that started it, as
#: Linux carries it over the exec; a benchmark that first wrote its CSV in memory gave every run 719 MB)
_TAIL = """
import json, resource
use = resource.getrusage(resource.RUSAGE_SELF)
try:
    with open("/proc/self/status") as f:
        peak_kb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak_kb = use.ru_maxrss
print(json.dumps({**out, "maxrss_kb": peak_kb, "cpu_s": use.ru_utime + use.ru_stime}))
"""


def write_data(path: Path, rows: int, seed: int = 0) -> Path:
    """``rows`` rows ``x,y`` of the paper's six distributions and 10 % noise, shuffled, 6 decimals."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from ..data import make_paper2d

    per = -(-rows // 6.6)
    X = make_paper2d(n_per_class=int(per), seed=seed).X
    X = np.round(X[np.random.default_rng(seed).permutation(len(X))][:rows], 6)
    pacsv.write_csv(pa.table({"x": X[:, 0], "y": X[:, 1]}), str(path))
    return path


def measure(code: str) -> tuple[float, dict]:
    """Wall seconds of a fresh ``python -c code`` and what it printed last (JSON, with its peak RSS)."""
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code + _TAIL], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"a measured run failed:\n{r.stderr[-2000:]}")
    return seconds, json.loads(r.stdout.strip().splitlines()[-1])


def readers(path: Path) -> list[tuple[str, float]]:
    """Seconds to read the file into float arrays, for each reader available here."""
    import pandas as pd
    import pyarrow.csv as pacsv

    from ..data.csvio import FeatureReader
    from ..data.csvstream import UNLIMITED, CSVStream

    def ours() -> None:
        with CSVStream(path, limits=UNLIMITED) as s:
            for _ in FeatureReader(s):
                pass

    def arrow() -> None:
        for batch in pacsv.open_csv(str(path), read_options=pacsv.ReadOptions(block_size=2 << 20)):
            np.column_stack([c.to_numpy() for c in batch.columns])

    out = []
    options = [
        ("pandas, whole file (read_csv)", lambda: pd.read_csv(path).to_numpy(float)),
        ("this project: CSVStream + FeatureReader, 2 MB blocks, every check", ours),
        ("pyarrow.csv.open_csv, 2 MB blocks, no check", arrow),
    ]
    try:
        import polars as pl

        options.append(("polars, whole file (read_csv), no check", lambda: pl.read_csv(path).to_numpy()))
    except ImportError:
        pass
    for name, fn in options:
        t0 = time.perf_counter()
        fn()
        out.append((name, time.perf_counter() - t0))
    return out


def _row(name: str, seconds: float, rows: int, got: dict, ref: tuple[float, dict] | None) -> str:
    """A table row: wall seconds, rows/s, wall and CPU time over the reference's, peak RSS."""
    ratio = "" if ref is None else f"{seconds / ref[0]:.2f}x"
    cpu = "" if ref is None else f"{got['cpu_s'] / ref[1]['cpu_s']:.2f}x"
    return (
        f"| {name} | {seconds:.1f} | {rows / seconds:,.0f} | {ratio} | {got['cpu_s']:.1f} | {cpu} | "
        f"{got['maxrss_kb'] / 1024:.0f} |"
    )


def run(path: Path, rows: int, work: Path) -> None:
    model = work / "model.npz"
    ref_learn, a = measure(_REFERENCE_LEARN.format(path=str(path)))
    learn, b = measure(_CLI.format(argv=["learn", str(path), "--out", str(model)]))
    sampled_model = work / "sampled.npz"
    sampled, e = measure(_CLI.format(argv=["learn", str(path), "--out", str(sampled_model), "--sampled"]))
    ref_label, c = measure(_REFERENCE_LABEL.format(path=str(path), model=str(model)))
    label, d = measure(_CLI.format(argv=["label", str(path), "--model", str(model), "--out", str(work / "l.csv")]))
    print("| run | wall s | rows/s | wall x reference | CPU s | CPU x reference | peak RSS MB |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print(_row("reference: pandas reads the whole file, CAE learns the array", ref_learn, rows, a, None))
    print(_row("`cae learn FILE --out MODEL`", learn, rows, b, (ref_learn, a)))
    print(_row("`cae learn FILE --out MODEL --sampled`", sampled, rows, e, (ref_learn, a)))
    print(_row("reference: pandas reads the whole file, the model labels the array", ref_label, rows, c, None))
    print(_row("`cae label FILE --model MODEL --out LABELS`", label, rows, d, (ref_label, c)))
    print(
        f"\nthe models: in memory {a['nodes']:,} nodes, {a['clusters']:,} clusters; cae learn {b['nodes']:,} nodes, "
        f"{b['clusters']:,} clusters; cae learn --sampled {e['nodes']:,} nodes, {e['clusters']:,} clusters; "
        f"exit codes {b['exit']}, {e['exit']}, {d['exit']}"
    )
    print("\n| reader (in this process) | seconds | rows/s |\n| --- | --- | --- |")
    for name, seconds in readers(path):
        print(f"| {name} | {seconds:.2f} | {rows / seconds:,.0f} |")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m cae.bench --csv", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000, help="rows of the CSV written (default 10,000,000)")
    ap.add_argument("--file", help="time this CSV (x,y columns) instead of writing one")
    ap.add_argument("--keep", help="write the CSV here and keep it (default: a temporary folder)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cae-bench-csv-") as tmp:
        work = Path(tmp)
        if args.file:
            path = Path(args.file)
            with open(path, "rb") as fh:
                rows = sum(1 for _ in fh) - 1
        else:
            path, rows = Path(args.keep or work / "data.csv"), args.rows
            t0 = time.perf_counter()
            write_data(path, rows)
            print(f"wrote {rows:,} rows ({path.stat().st_size / 2**20:.0f} MB) in {time.perf_counter() - t0:.0f} s")
        print(f"load average at the start: {' '.join(f'{v:.2f}' for v in os.getloadavg())} on {os.cpu_count()} cores")
        run(path, rows, work)
        print(f"\nload average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
        print(
            f"this process's peak RSS (the readers): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
        )


if __name__ == "__main__":
    main()

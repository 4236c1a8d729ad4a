"""The command line (cae/cli): learn, label and info on small files of every kind, its errors and exit codes, an
interrupted run (a real SIGINT to a real process), labels equal to model.predict, and --dask on a LocalCluster."""

import gzip
import io
import os
import pty
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from cae import load_model
from cae.cli import main
from cae.cli._tools import Progress, write_atomically
from cae.data.csvio import Scaling, read_csv

PY = [sys.executable, "-m", "cae"]


def _blobs(n, seed=0, noise=0.03):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.2, 0.2], [0.8, 0.3], [0.5, 0.8]])
    k = rng.integers(0, 3, n)
    return centres[k] + rng.normal(0, noise, (n, 2)), k


def _csv(path, n=3000, seed=0, label=True):
    X, k = _blobs(n, seed)
    frame = pd.DataFrame({"x": X[:, 0], "y": X[:, 1]})
    if label:
        frame["kind"] = np.array(["a", "b", "c"])[k]
    frame.to_csv(path, index=False)
    return path


def _labels(path):
    return pd.read_csv(path)


def _expected(model_path, data_path, features=("x", "y")):
    """model.predict on the same rows, as read by the app's reader (lines and labels)."""
    model = load_model(model_path)
    table, _ = read_csv(data_path)
    sel = table.select(list(features))
    X = sel.X
    if hasattr(model, "input_scaling_"):
        X = Scaling.from_dict(model.input_scaling_, X.shape[1]).apply(X)
    return table.lines[sel.row_index], model.predict(pd.DataFrame(X, columns=list(features)))


def test_learn_info_label_and_the_labels_are_model_predict(tmp_path, capsys):
    data = _csv(tmp_path / "d.csv")
    assert main(["learn", str(data), "--out", str(tmp_path / "m.npz"), "--label", "kind"]) == 0
    out = capsys.readouterr().out
    assert "learned 3,000 rows x 2 features (x, y)" in out
    model = load_model(tmp_path / "m.npz")
    assert model.n_samples_seen_ == 3000 and list(model.feature_names_in_) == ["x", "y"]
    assert main(["info", str(tmp_path / "m.npz")]) == 0
    info = capsys.readouterr().out
    assert "algorithm: CAE" in info and "samples seen: 3,000" in info and f"clusters: {model.n_clusters_}" in info
    assert main(["label", str(data), "--model", str(tmp_path / "m.npz"), "--out", str(tmp_path / "l.csv")]) == 0
    got = _labels(tmp_path / "l.csv")
    lines, want = _expected(tmp_path / "m.npz", data)
    assert list(got.columns) == ["line", "cluster"]
    np.testing.assert_array_equal(got["line"], lines)
    np.testing.assert_array_equal(got["cluster"], want)
    assert model.n_clusters_ >= 3


def test_the_same_model_as_learning_the_arrays_in_memory(tmp_path):
    data = _csv(tmp_path / "d.csv", n=5000)
    main(
        ["learn", str(data), "--out", str(tmp_path / "m.npz"), "--algorithm", "CAEA", "--param", "deletion_interval=80"]
    )
    from cae import CAE

    X = pd.read_csv(data)[["x", "y"]].to_numpy()
    ref = CAE(deletion_interval=80, max_edge_age=40).learn_many(X).end_batch()
    got = load_model(tmp_path / "m.npz")
    np.testing.assert_array_equal(got.nodes_, ref.nodes_)
    np.testing.assert_array_equal(got.edges_, ref.edges_)


def test_min_max_scaling_is_kept_in_the_model_and_applied_when_labelling(tmp_path):
    data = tmp_path / "d.csv"
    X, _ = _blobs(2000)
    pd.DataFrame({"x": X[:, 0] * 1000, "y": X[:, 1]}).to_csv(data, index=False)
    assert main(["learn", str(data), "--out", str(tmp_path / "m.npz"), "--scale", "minmax"]) == 0
    model = load_model(tmp_path / "m.npz")
    assert model.input_scaling_["how"] == "minmax"
    np.testing.assert_allclose(model.nodes_.min(axis=0), 0, atol=0.1)  # learned scaled rows
    main(["label", str(data), "--model", str(tmp_path / "m.npz"), "--out", str(tmp_path / "l.csv")])
    lines, want = _expected(tmp_path / "m.npz", data)
    np.testing.assert_array_equal(_labels(tmp_path / "l.csv")["cluster"], want)
    # --range gives the same scaling without a first pass
    main(["learn", str(data), "--out", str(tmp_path / "m2.npz"), "--scale", "minmax", "--range", "0:1000,0:1"])
    assert load_model(tmp_path / "m2.npz").input_scaling_["span"] == pytest.approx([1.0, 1.0])


def test_gzip_tsv_and_standard_input(tmp_path):
    data = _csv(tmp_path / "d.csv")
    text = data.read_bytes()
    (tmp_path / "d.tsv.gz").write_bytes(gzip.compress(text.replace(b",", b"\t")))
    assert main(["learn", str(tmp_path / "d.tsv.gz"), "--out", str(tmp_path / "gz.npz"), "--label", "kind"]) == 0
    r = subprocess.run([*PY, "learn", "-", "--out", str(tmp_path / "in.npz")], input=text, capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    a, b = load_model(tmp_path / "gz.npz"), load_model(tmp_path / "in.npz")
    np.testing.assert_array_equal(a.nodes_, b.nodes_)
    r = subprocess.run([*PY, "learn", "-", "--out", str(tmp_path / "s.npz"), "--scale", "minmax"], input=text,
                       capture_output=True)  # fmt: skip
    assert r.returncode == 2 and b"standard input can be read once: give the ranges with --range" in r.stderr
    assert r.stdout == b""  # no progress line when not on a terminal


@pytest.mark.parametrize(
    "content, args, message",
    [
        (b"x,y\n", [], "d.csv: the file has a header row but no data rows"),
        (b"x,y\n1,2\n3,4\n5,6,7\n8,9\n", [], "d.csv: line 4 has 3 fields but the header has 2"),
        (b"x,y\n1,2\n3,abc\n5,6\n", [], "d.csv: line 3: 'abc' in the column 'y' is not a number; correct it"),
        (b"x,y\n1,2\n3,4\n", ["--features", "x,z"], "d.csv: no column named 'z'; the columns are x, y"),
        (b"x,y\n1,2\n3,4\n", ["--algorithm", "CAE", "--param", "lambda=3"], "CAE has no parameter lambda"),
        (b"\x00\x01\x02binary", [], "d.csv: this does not look like a text CSV file"),
    ],
)
def test_bad_input_exits_2_naming_the_file_the_line_and_what_to_do(tmp_path, capsys, content, args, message):
    (tmp_path / "d.csv").write_bytes(content)
    assert main(["learn", str(tmp_path / "d.csv"), "--out", str(tmp_path / "m.npz"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m.npz").exists()


def test_a_cell_that_is_not_a_number_can_be_read_as_missing(tmp_path, capsys):
    (tmp_path / "d.csv").write_bytes(b"x,y\n" + b"1,2\n3,4\n" * 10 + b"3,abc\n")
    assert main(["learn", str(tmp_path / "d.csv"), "--out", str(tmp_path / "m.npz"), "--unparsable", "missing"]) == 0
    assert "dropped 1 row(s): 1 with unparsable value" in capsys.readouterr().out


def test_a_file_with_a_header_only_or_a_column_lost_midway(tmp_path, capsys):
    (tmp_path / "h.csv").write_bytes(b"x,y\n")
    assert main(["label", str(tmp_path / "h.csv"), "--model", str(tmp_path / "none.npz"), "--out", "o.csv"]) == 2
    assert "none.npz: cannot read model file" in capsys.readouterr().err
    (tmp_path / "d.csv").write_bytes(b"x,y\n" + b"1,2\n3,4\n" * 10 + b"5\n" * 3 + b"6,7\n")
    assert main(["learn", str(tmp_path / "d.csv"), "--out", str(tmp_path / "m.npz")]) == 0
    assert "short rows dropped: 3 (lines 22, 23, 24)" in capsys.readouterr().out
    assert load_model(tmp_path / "m.npz").n_samples_seen_ == 21


def test_an_output_folder_that_is_not_there(tmp_path, capsys):
    data = _csv(tmp_path / "d.csv", n=100)
    assert main(["learn", str(data), "--out", str(tmp_path / "no" / "m.npz")]) == 2
    assert f"cae learn: {tmp_path / 'no'}: no such folder to write into" in capsys.readouterr().err


def test_a_failed_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "m.npz"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), write_atomically(target) as fh:
        fh.write(b"half a file")
        raise RuntimeError("interrupted")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["m.npz"]


def test_the_progress_line():
    assert Progress.text("learning", 2000, 2.0, 50, 100) == "learning 2,000 rows · 1,000 rows/s · 50 % · 2 s left"
    assert Progress.text("labelling", 10, 1.0, None, None) == "labelling 10 rows · 10 rows/s"
    quiet = io.StringIO()
    p = Progress("learning", quiet, every=0)
    p.update(5, 1, 2, force=True)
    assert quiet.getvalue() == ""  # not a terminal: nothing


def _big(path, n):
    import pyarrow as pa
    import pyarrow.csv as pacsv

    X, _ = _blobs(n, seed=1, noise=0.05)
    pacsv.write_csv(pa.table({"x": X[:, 0], "y": X[:, 1]}), str(path))
    return path


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt(args, wait_for, after=0.0, feed=None, timeout=120):
    """Run ``cae`` with a pseudo-terminal for its output (so that it shows its progress), send SIGINT ``after``
    seconds after ``wait_for`` appears; return the exit code and what it wrote. ``feed``: bytes written to its
    standard input (kept open until the signal, so that the run is surely in the middle of its file)."""
    main_fd, child_fd = pty.openpty()
    stdin = subprocess.PIPE if feed is not None else subprocess.DEVNULL
    proc = subprocess.Popen(  # Ctrl-C's default disposition, even where this test runs in the background
        [*PY, *args], stdin=stdin, stdout=child_fd, stderr=child_fd, preexec_fn=_default_sigint
    )
    os.close(child_fd)
    if feed is not None:
        proc.stdin.write(feed)
        proc.stdin.flush()
    seen, start = b"", time.monotonic()
    while wait_for not in seen and time.monotonic() - start < timeout and proc.poll() is None:
        if select.select([main_fd], [], [], 0.1)[0]:
            seen += os.read(main_fd, 4096)
    time.sleep(after)
    proc.send_signal(signal.SIGINT)
    code = proc.wait(timeout)
    while select.select([main_fd], [], [], 0.1)[0]:
        try:
            seen += os.read(main_fd, 4096)
        except OSError:
            break
    os.close(main_fd)
    if proc.stdin:
        proc.stdin.close()
    return code, seen.decode(errors="replace")


def test_ctrl_c_leaves_the_previous_model_file(tmp_path):
    """SIGINT in the middle of a file (half of it fed to standard input, the rest held back): exit code 130,
    the old model file as it was, no temporary file left."""
    data = _big(tmp_path / "big.csv", 400_000)
    out = tmp_path / "m.npz"
    assert main(["learn", str(data), "--out", str(out), "--algorithm", "TCA"]) == 0
    old = out.read_bytes()
    text = data.read_bytes()
    code, seen = _interrupt(["learn", "-", "--out", str(out)], b"rows/s", feed=text[: len(text) // 2])
    assert "learning" in seen and "rows/s" in seen  # the progress line, on a terminal
    assert code == 130 and f"interrupted; {out} is as it was" in seen and "Traceback" not in seen
    assert out.read_bytes() == old and sorted(os.listdir(tmp_path)) == ["big.csv", "m.npz"]


@pytest.mark.slow  # seven runs on a 1,000,000-row file; the test above interrupts one surely mid-file
def test_ctrl_c_at_any_moment_leaves_the_old_file_or_a_complete_new_one(tmp_path):
    data = _big(tmp_path / "d.csv", 1_000_000)
    out = tmp_path / "m.npz"
    main(["learn", str(data), "--out", str(out), "--algorithm", "TCA"])
    old = out.read_bytes()
    outcomes = set()
    for after in (0.0, 0.1, 0.3, 0.6, 1.0, 2.0, 4.0):
        code, seen = _interrupt(["learn", str(data), "--out", str(out)], b"rows/s", after=after)
        now = out.read_bytes()
        # interrupted: the old file; else done (a signal after the end may still end the process: -2)
        assert (code, now == old) in {(130, True), (0, False), (-2, False)}, seen
        if now != old:
            assert load_model(out).n_samples_seen_ == 1_000_000  # a complete new one, never half a file
        outcomes.add(code)
        assert sorted(os.listdir(tmp_path)) == ["d.csv", "m.npz"]
        out.write_bytes(old)
    assert 130 in outcomes


def test_label_through_dask_on_a_local_cluster(tmp_path):
    distributed = pytest.importorskip("dask.distributed", reason="dask.distributed is in the test extra")
    data = _csv(tmp_path / "d.csv", n=2000)
    assert main(["learn", str(data), "--out", str(tmp_path / "m.npz"), "--scale", "zscore", "--label", "kind"]) == 0
    main(["label", str(data), "--model", str(tmp_path / "m.npz"), "--out", str(tmp_path / "here.csv")])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        args = ["--model", str(tmp_path / "m.npz"), "--out", str(tmp_path / "dask.csv"), "--dask", c.scheduler_address]
        assert main(["label", str(data), *args, "--blocksize", "4kB"]) == 0
    here, there = _labels(tmp_path / "here.csv"), _labels(tmp_path / "dask.csv")
    pd.testing.assert_frame_equal(here, there)
    lines, want = _expected(tmp_path / "m.npz", data)
    np.testing.assert_array_equal(there["cluster"], want)
    np.testing.assert_array_equal(there["line"], lines)


def test_the_readme_example_runs_as_written(tmp_path):
    """The README's three commands, as written, in a folder laid out as a fresh clone's (sample_data/)."""
    import re
    import shutil

    from conftest import ROOT

    bin_dir = os.path.dirname(sys.executable)
    if not os.path.exists(os.path.join(bin_dir, "cae")):
        pytest.skip("the cae console script is not installed here (pip install -e . installs it)")
    section = (ROOT / "README.md").read_text().split("## Your CSV from the command line", 1)[1].split("\n## ", 1)[0]
    commands = re.search(r"```bash\n(.*?)```", section, re.S).group(1).strip().splitlines()
    assert [c.split()[:2] for c in commands] == [["cae", "learn"], ["cae", "label"], ["cae", "info"]]
    shutil.copytree(ROOT / "sample_data", tmp_path / "sample_data")
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    for command in commands:
        r = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert r.returncode == 0, (command, r.stderr)
    assert "algorithm: CAE" in r.stdout and "samples seen: 9,900" in r.stdout
    assert len(pd.read_csv(tmp_path / "labels.csv")) == 9900


# ---------------------------------------------------------------- a long file: the merge said, --sampled
def _case_csv(path, case, n, seed):
    from cae.bench.quality import make_case

    X, y, noise = make_case(case, n, seed)
    pd.DataFrame({"x0": X[:, 0].round(6), "x1": X[:, 1].round(6), "label": y}).to_csv(path, index=False)
    return path, y, noise


def _nmi_of(labels_csv, y, noise):
    from cae.evaluation import nmi

    got = pd.read_csv(labels_csv)["cluster"].to_numpy()
    keep = y != noise
    return nmi(y[keep], got[keep])


def test_a_merged_long_file_is_said_in_one_sentence_and_sampled_gives_the_right_answer(tmp_path, capsys):
    """100,000 noisy rows whose network of every row joins two of the paper's clusters (a compact version of the
    million-row merge): `cae learn` writes that network, prints the clusters over the rows, and warns in one
    sentence naming --sampled; `--sampled` writes the samples' network, the answer of every row beside it, and
    its labels score far better; `cae info` says how it was learned, with λ and a_max."""
    data, y, noise = _case_csv(tmp_path / "d.csv", "paper2d-noise", 100_000, 2)
    assert main(["learn", str(data), "--label", "label", "--out", str(tmp_path / "m.npz")]) == 0
    out, err = capsys.readouterr()
    assert "clusters over the rows learned (with ≥ 1 % of the rows; all): 50,000:" in out
    warning = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(warning) == 1 and "Learned on all 100,000 rows, CAE joined clusters" in warning[0]
    assert warning[0].endswith("learning again with --sampled gives the samples' answer.")
    assert main(["learn", str(data), "--label", "label", "--out", str(tmp_path / "s.npz"), "--sampled"]) == 0
    out, err = capsys.readouterr()
    assert "--sampled: " in out and "learned on every row:" in out and "warning" not in err
    sampled = load_model(tmp_path / "s.npz")
    assert sampled.learned_on_["samples"] == 5 and sampled.learned_on_["rows"] == 100_000
    assert sampled.n_samples_seen_ == 20_000 and list(sampled.feature_names_in_) == ["x0", "x1"]
    for model in ("m", "s"):
        assert (
            main(
                ["label", str(data), "--model", str(tmp_path / f"{model}.npz"), "--out", str(tmp_path / f"{model}.csv")]
            )
            == 0
        )
    every, samples = _nmi_of(tmp_path / "m.csv", y, noise), _nmi_of(tmp_path / "s.csv", y, noise)
    assert every < 0.95 and samples > 0.99
    capsys.readouterr()
    assert main(["info", str(tmp_path / "s.npz")]) == 0
    info = capsys.readouterr().out
    assert "learned on: sample " in info and "of 5 uniform samples of 20,000 of 100,000 rows" in info
    assert "deletion interval λ:" in info and "edge-age limit a_max: estimated" in info
    assert "every row: clusters over the rows learned" in info


def test_a_clean_long_file_is_not_warned_about_and_a_short_one_is_learned_whole(tmp_path, capsys):
    data, *_ = _case_csv(tmp_path / "d.csv", "paper2d-clean", 100_000, 0)
    assert main(["learn", str(data), "--label", "label", "--out", str(tmp_path / "m.npz")]) == 0
    assert "warning" not in capsys.readouterr().err
    short, *_ = _case_csv(tmp_path / "short.csv", "paper2d-noise", 20_000, 0)
    assert main(["learn", str(short), "--label", "label", "--out", str(tmp_path / "s.npz"), "--sampled"]) == 0
    assert "the file has 20,000 rows; samples are for more than 50,000 rows" in capsys.readouterr().out
    assert not hasattr(load_model(tmp_path / "s.npz"), "learned_on_")
    assert main(["learn", str(short), "--out", str(tmp_path / "t.npz"), "--algorithm", "TCA", "--sampled"]) == 2
    assert "--sampled learns CAE or CAEA" in capsys.readouterr().err


def test_an_endless_line_and_a_truncated_gzip_are_refused_clearly(tmp_path, capsys):
    """exit 2, one line naming the file, the line and what it is, no traceback and no output file: a line of
    3 MB (it took 1.2 GB before it failed in the csv module), a field of 200,000 characters, and a gzip file
    cut short, for learn, label and --dask."""
    rng = np.random.default_rng(0)
    body = "".join(f"{a:.4f},{b:.4f}\n" for a, b in rng.random((2000, 2)))
    (tmp_path / "long.csv").write_text("x,y\n" + body + "3," + "9" * 3_000_000 + "\n")
    (tmp_path / "field.csv").write_text("x,y\n1,2\n3," + "9" * 200_000 + "\n")
    gz = gzip.compress(("x,y\n" + body * 20).encode())
    (tmp_path / "cut.csv.gz").write_bytes(gz[: len(gz) * 3 // 4])
    _csv(tmp_path / "ok.csv", label=False)
    assert main(["learn", str(tmp_path / "ok.csv"), "--out", str(tmp_path / "m.npz")]) == 0
    capsys.readouterr()
    for argv, says in (
        (
            ["learn", str(tmp_path / "long.csv"), "--out", str(tmp_path / "o.npz")],
            "line 2,002 goes on for more than 1 MB",
        ),
        (
            ["learn", str(tmp_path / "field.csv"), "--out", str(tmp_path / "o.npz")],
            "line 3 holds a field of more than 131,072",
        ),
        (["learn", str(tmp_path / "cut.csv.gz"), "--out", str(tmp_path / "o.npz")], "it is truncated"),
        (
            [
                "label",
                str(tmp_path / "cut.csv.gz"),
                "--model",
                str(tmp_path / "m.npz"),
                "--out",
                str(tmp_path / "o.csv"),
            ],
            "it is truncated",
        ),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "o.npz").exists() and not (tmp_path / "o.csv").exists()


def test_a_truncated_gzip_is_refused_on_dask_too(tmp_path, capsys):
    distributed = pytest.importorskip("dask.distributed", reason="dask.distributed is in the test extra")
    _csv(tmp_path / "ok.csv", label=False)
    assert main(["learn", str(tmp_path / "ok.csv"), "--out", str(tmp_path / "m.npz")]) == 0
    rng = np.random.default_rng(0)
    gz = gzip.compress(("x,y\n" + "".join(f"{a:.4f},{b:.4f}\n" for a, b in rng.random((200_000, 2)))).encode())
    (tmp_path / "cut.csv.gz").write_bytes(gz[: len(gz) * 3 // 4])  # the first lines read; the end is cut
    capsys.readouterr()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        argv = [
            "label",
            str(tmp_path / "cut.csv.gz"),
            "--model",
            str(tmp_path / "m.npz"),
            "--out",
            str(tmp_path / "o.csv"),
        ]
        assert main([*argv, "--dask", c.scheduler_address]) == 2
    assert "it is truncated" in capsys.readouterr().err and not (tmp_path / "o.csv").exists()


def test_a_csv_given_as_the_model_is_told_so(tmp_path, capsys):
    data = _csv(tmp_path / "d.csv")
    assert main(["label", str(data), "--model", str(data), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert "not a CAE Explorer model file: it holds text (a CSV?)" in err and "pickle" not in err


def _compilations():
    """How many times every kernel of this process compiled (numba's cache misses), per dispatcher."""
    out = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("cae.") and (name.endswith("_kernel") or name in ("cae._graph", "cae._art")):
            for key, obj in vars(mod).items():
                stats = getattr(obj, "stats", None)
                if stats is not None and hasattr(obj, "signatures"):
                    out[f"{name}.{key}"] = sum(stats.cache_misses.values())
    return out


def test_a_one_column_csv_and_read_only_rows_compile_nothing(tmp_path, capsys):
    """The warm-up compiled every kernel for any width (a one-column node array is another type to numba) and
    rows reach the kernels writeable whatever they came as (a read-only array is another type too): the first
    one-column CSV on a machine took 286 s of compilation before."""
    from cae import CAE, _jit

    if not _jit.compiled():
        pytest.skip("the kernels run un-jitted in this session (nothing is compiled)")
    rng = np.random.default_rng(0)
    (tmp_path / "one.csv").write_text("x\n" + "".join(f"{v:.5f}\n" for v in rng.normal(0.5, 0.1, 3000)))
    before = _compilations()
    for algorithm in ("CAE", "TCA"):
        assert (
            main(["learn", str(tmp_path / "one.csv"), "--out", str(tmp_path / "m.npz"), "--algorithm", algorithm]) == 0
        )
        assert (
            main(
                [
                    "label",
                    str(tmp_path / "one.csv"),
                    "--model",
                    str(tmp_path / "m.npz"),
                    "--out",
                    str(tmp_path / "l.csv"),
                ]
            )
            == 0
        )
    frozen = rng.random((2000, 3))
    frozen.flags.writeable = False
    CAE().fit(frozen).predict(frozen)
    after = _compilations()
    assert before and {k: v for k, v in after.items() if v > before.get(k, 0)} == {}

"""A fresh clone with no ``../shared`` beside it: the README's commands run from the repository alone.

The repository's tracked files are copied to a folder whose parent holds nothing else (a clone of what is
committed, plus the edits not yet committed to tracked files, so the test checks the tree it runs in), and the
commands run there in fresh processes that import the copy: ``python -m cae.data fetch`` (the bundled Iris
needs no network; the others say plainly why they failed where there is none), then ``python -m
cae.experiments paper --quick`` and ``compare`` against the paper's tables shipped with the package.

A newcomer's first commands run there too, as CI's way of running them: with an empty home folder (nothing
fetched, no compiled kernels) and no reference files, the README's ``paper --quick`` reaches its comparison
on the built-in Iris, ``python -m cae.data check`` fails saying what is missing and how to get it,
``python -m cae.bench --help`` names its command and ``--peers``, and a test that needs Iris skips saying
how to get it, then runs once it is fetched.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pandas as pd
import pytest
from conftest import ROOT


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: cannot tell the tracked files")
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    base = tmp_path_factory.mktemp("fresh")
    repo = base / "repo"
    for f in files:
        if (ROOT / f).is_file():
            (repo / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, repo / f)
    assert not (base / "shared").exists()
    return repo


def _run(repo, *args, data, timeout=900):
    env = dict(os.environ, PYTHONPATH=str(repo), CAE_EXPLORER_DATA=str(data), CAE_JIT="off")
    env.pop("CAE_TEST_SHARED", None)
    return subprocess.run([sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_fetch_then_paper_quick_then_compare_on_a_clone(clone, tmp_path):
    data = tmp_path / "data"
    r = _run(
        clone, "-c", "import cae, cae.experiments.cli as c; print(cae.__file__); print(c.DEFAULT_PAPER)", data=data
    )
    assert r.returncode == 0 and r.stdout.splitlines()[0].startswith(str(clone)), r.stdout + r.stderr
    assert r.stdout.splitlines()[1].startswith(str(clone))
    r = _run(clone, "-m", "cae.data", "fetch", "--names", "iris", data=data)
    assert r.returncode == 0 and "✓ Iris" in r.stdout and (data / "iris.csv").exists(), r.stdout + r.stderr
    r = _run(clone, "-m", "cae.data", "fetch", "--names", "ionosphere", "--timeout", "10", data=data)
    # with a network: fetched and checked; without: a clear failure and what to do, never a traceback
    assert ("✓ Ionosphere" in r.stdout and r.returncode == 0) or (
        r.returncode == 1 and "FAILED (no network)" in r.stdout and "--from DIR" in r.stderr
    ), r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    out = tmp_path / "results"
    args = ["--quick", "--algorithms", "CAE", "--runs", "1", "--synthetic-runs", "1", "--names", "iris"]
    r = _run(clone, "-m", "cae.experiments", "paper", *args, "--out", str(out), "--quiet", data=data)
    assert r.returncode == 0, r.stdout + r.stderr
    info = json.loads((out / "paper_run.json").read_text())
    assert info["compared_with_paper"] and info["datasets"] == ["iris.csv"]
    (out / "paper_comparison.md").unlink()
    r = _run(clone, "-m", "cae.experiments", "compare", "--results", str(out), "--quiet", data=data)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Iris" in (out / "paper_comparison.md").read_text()


def test_the_readme_tells_nobody_to_type_shared():
    """Every command in the code blocks of the README and docs/ runs on a clone: none names ../shared."""
    import re

    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))])
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)
    inline = re.findall(r"`(python [^`]*|pip [^`]*)`", text)
    lines = [line for b in blocks for line in b.splitlines()] + inline
    assert any("python -m cae.data fetch" in line for line in lines)
    for cmd in lines:
        assert "../shared" not in cmd and "/shared/" not in cmd, cmd


def _newcomer(repo, home, *args, timeout=1800, **extra):
    """A command as a newcomer runs it in the clone: an empty home folder, no per-user folders set, no
    reference files; the kernels compile in the background as on a fresh machine."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAE_", "XDG_", "NUMBA_"))}
    env.update(HOME=str(home), PYTHONPATH=str(repo), CAE_TEST_SHARED="none", **extra)
    return subprocess.run([sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=timeout)


def _readme_quick_command():
    """The README's ``paper --quick`` command (its arguments after ``python``)."""
    line = next(
        line.split("#")[0].split()
        for line in (ROOT / "README.md").read_text().splitlines()
        if line.startswith("python -m cae.experiments paper --quick")
    )
    return line[1:]


@pytest.mark.slow
def test_a_newcomers_first_commands_with_nothing_fetched(clone, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    fetched = home / ".local" / "share" / "cae-explorer" / "datasets"
    # python -m cae.data check: nothing there, so it fails and says what is missing and how to get it
    r = _newcomer(clone, home, "-m", "cae.data", "check")
    assert r.returncode == 1, r.stdout + r.stderr
    last = r.stdout.splitlines()[-1]
    assert last.startswith(f"0 of 13 datasets as the paper has them in {fetched}; missing: iris, ionosphere,")
    assert "Run `python -m cae.data fetch` to get them" in last
    # python -m cae.bench --help: its command as typed, and the README's --peers
    r = _newcomer(clone, home, "-m", "cae.bench", "--help")
    assert r.returncode == 0 and r.stdout.startswith("usage: python -m cae.bench") and "--peers" in r.stdout
    # the README's quick reproduction: the built-in Iris, then the comparison with the paper's tables
    args = _readme_quick_command()
    assert args[:4] == ["-m", "cae.experiments", "paper", "--quick"] and "--out" in args
    out = tmp_path / "quick"
    args[args.index("--out") + 1] = str(out)
    r = _newcomer(clone, home, *args)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout[-3000:] + r.stderr[-3000:]
    assert "the quick run uses the built-in Iris only" in r.stderr
    info = json.loads((out / "paper_run.json").read_text())
    assert info["compared_with_paper"] and info["datasets"] == ["iris"]
    comparison = (out / "paper_comparison.md").read_text()
    assert "Iris" in comparison
    assert set(pd.read_csv(out / "realworld_stationary.csv")["dataset"]) == {"Iris"}
    # a test that needs Iris: skipped, saying how to get it; run once `python -m cae.data fetch` saved it
    test = [
        "-m",
        "pytest",
        "tests/unit/test_datasets.py::test_real_world_datasets_load",
        "-rs",
        "-p",
        "no:cacheprovider",
        "-n",
        "0",
    ]
    r = _newcomer(clone, home, *test, CAE_JIT="off")
    assert "1 skipped" in r.stdout, r.stdout + r.stderr
    said = re.sub(r"\s+", " ", r.stdout)
    assert "run `python -m cae.data fetch --names iris`" in said and "shared" not in said
    r = _newcomer(clone, home, "-m", "cae.data", "fetch", "--names", "iris")
    assert r.returncode == 0 and (fetched / "iris.csv").exists(), r.stdout + r.stderr
    r = _newcomer(clone, home, *test, CAE_JIT="off")
    assert "1 passed" in r.stdout, r.stdout + r.stderr

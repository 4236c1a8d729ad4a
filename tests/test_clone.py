"""A fresh clone with no ``../shared`` beside it: the README's commands run from the repository alone.

The repository's tracked files are copied to a folder whose parent holds nothing else, and the commands run
there in fresh processes that import the copy: ``python -m cae.data fetch`` (the bundled Iris needs no
network; the others say plainly why they failed where there is none), then ``python -m cae.experiments
paper --quick`` and ``compare`` against the paper's tables shipped with the package.
"""

import json
import os
import shutil
import subprocess
import sys

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
    """Every command in the README's code blocks runs on a clone: none names ../shared."""
    import re

    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", text, re.S | re.M)
    inline = re.findall(r"`(python [^`]*|pip [^`]*)`", text)
    lines = [line for b in blocks for line in b.splitlines()] + inline
    assert any("python -m cae.data fetch" in line for line in lines)
    for cmd in lines:
        assert "../shared" not in cmd and "/shared/" not in cmd, cmd

"""A new algorithm is five files: its module, its kernel, its docs page, its tests and ONE registry entry. In a copy
of the repository, a throw-away algorithm (nearest centroid within a radius, ``tests/fixtures/new_algorithm``) is
added that way, the files that differ from the repository are counted (five, as docs/adding-an-algorithm.md's
table lists them), and the package exports it, ``make_algorithm`` makes it, its model files save and load, the
warm-up and the numba cache know its kernel, the River adapter has its class, the experiments' CLI runs it, the
app's algorithm picker lists it, and the docs' checks, the common tests and its own pass -- with no other file
edited (docs/adding-an-algorithm.md is the recipe)."""

import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT
from support.runs import pytest_run

FIXTURE = ROOT / "tests" / "fixtures" / "new_algorithm"

#: the one registry entry, inserted at the end of ALGORITHMS in the copy's cae/registry.py
ENTRY = """    "Centroid": Algorithm(
        "Centroid",
        "nearest centroid within a radius (a throw-away test algorithm)",
        "cae.algorithms.centroid:Centroid",
        params=(
            Param(
                "radius",
                label="r (radius)",
                default=0.1,
                step=0.01,
                widget_low=0.01,
                widget_high=1.0,
                help="A sample farther than r from every centroid starts a new one.",
            ),
        ),
        kernels=("cae.algorithms._centroid_kernel",),
        small={"radius": 0.05},
        colour="#17becf",
    ),
"""

#: what is checked in the copy, in a fresh interpreter (plain-Python kernels: no numba compilation)
CHECKS = r"""
import io, subprocess, sys
import numpy as np

import cae
from cae import Centroid, load_model
from cae.registry import ALGORITHMS, make_algorithm

assert "Centroid" in cae.__all__ and "Centroid" in cae.algorithms.__all__ and cae.algorithms.Centroid is Centroid

rng = np.random.default_rng(0)
X = np.vstack([rng.normal(c, 0.02, (60, 2)) for c in (0.2, 0.8)])[rng.permutation(120)]
m = make_algorithm("Centroid", radius=0.2).fit(X)
assert type(m) is Centroid and m.n_clusters_ == 2, m.n_clusters_
assert ALGORITHMS["Centroid"].describe({"radius": 0.2}) == "Centroid (r=0.2)"

buf = io.BytesIO()
m.save(buf)
buf.seek(0)
back = load_model(buf)
assert type(back) is Centroid and np.array_equal(back.nodes_, m.nodes_) and back.radius == 0.2
assert cae.algorithms.MODEL_FILE_NAMES["Centroid"] == "Centroid"

from cae import _jit, _warmup
assert "cae.algorithms._centroid_kernel" in _jit.KERNEL_MODULES
_warmup.warm(["Centroid"])  # every call the package makes, as the background compilation drives it

from cae.integrations import river as cr
rc = cr.Centroid(radius=0.2)
assert cr.RIVER_CLASSES["Centroid"] is cr.Centroid and "Centroid" in cr.__all__
for a, b in X:
    rc.learn_one({"a": a, "b": b})
assert rc.n_clusters == 2 and rc.clone().radius == 0.2
assert rc.predict_one({"a": 0.2, "b": 0.2}) != rc.predict_one({"a": 0.8, "b": 0.8})

from cae.experiments import against_paper, cli, figures
assert against_paper.ALGORITHM_ORDER[-1] == "Centroid" and figures._ALGO_COLORS["Centroid"] == "#17becf"
assert "Centroid" in cli._parser().parse_args(["synthetic", "--algorithms", "Centroid"]).algorithms

out = subprocess.run(
    [sys.executable, "-m", "cae.experiments", "synthetic", "--algorithms", "Centroid", "--runs", "1",
     "--n-per-class", "40", "--out", "results-new", "--quiet"],
    capture_output=True, text=True,
)
assert out.returncode == 0, out.stderr
import pandas as pd
rows = pd.read_csv("results-new/synthetic_stationary.csv")
assert set(rows["algorithm"]) == {"Centroid"} and rows["nmi"].notna().all(), rows

from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=300)
at.run()
at.switch_page("pages/compare.py").run()
assert not at.exception, at.exception
picker = at.multiselect(key="w_cmp_algos")
assert "Centroid" in picker.options, picker.options
picker.set_value(["CAE", "Centroid"]).run()
assert not at.exception, at.exception
assert at.number_input(key="w_cmp_Centroid_radius").value == 0.1
print("the new algorithm is everywhere")
"""


#: the recipe's files in the copy: fixture file -> where it goes (the registry entry is written into the registry)
ADDED = {
    "_centroid_kernel.py": "cae/algorithms/_centroid_kernel.py",
    "centroid.py": "cae/algorithms/centroid.py",
    "centroid.md": "docs/baselines/centroid.md",
    "test_centroid.py": "tests/unit/test_centroid.py",
}


def recipe_files(root, name="centroid"):
    """The files docs/adding-an-algorithm.md's table lists, for the algorithm ``name``."""
    text = (root / "docs" / "adding-an-algorithm.md").read_text(encoding="utf-8")
    table = text.split("## The recipe, as measured", 1)[1].split("\n1. ", 1)[0]
    return {f.replace("<name>", name) for f in re.findall(r"^\| `([^`]+)`", table, re.M)}


def changed_files(copy, original):
    """The files of ``copy`` that ``original`` does not have or holds with other bytes."""
    out = set()
    for path in copy.rglob("*"):
        rel = path.relative_to(copy).as_posix()
        if path.is_file() and "__pycache__" not in rel:
            if not (original / rel).is_file() or (original / rel).read_bytes() != path.read_bytes():
                out.add(rel)
    return out


def test_the_recipe_lists_five_files():
    assert recipe_files(ROOT) == {*ADDED.values(), "cae/registry.py"}


def _tracked_files():
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("needs a git checkout (the repository's files are copied from git's list)")
    return [f for f in out.stdout.decode().split("\0") if f and (ROOT / f).is_file()]


@pytest.mark.slow
def test_a_new_algorithm_is_five_files(tmp_path):
    copy = tmp_path / "repo"
    files = _tracked_files()
    for f in files:
        (copy / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, copy / f)
    # the new algorithm: its kernel, its module, its page, its tests ...
    for name, dest in ADDED.items():
        shutil.copy2(FIXTURE / name, copy / dest)
    # ... and one registry entry, nothing else
    registry = copy / "cae" / "registry.py"
    text = registry.read_text(encoding="utf-8")
    end = "\n}\n\n\ndef make_algorithm("
    assert text.count(end) == 1, "the registry's table ends where this test expects"
    registry.write_text(text.replace(end, "\n" + ENTRY.rstrip("\n") + end, 1), encoding="utf-8")

    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAE_", "NUMBA_", "STREAMLIT_"))}
    env.update(PYTHONPATH=str(copy), CAE_JIT="off", CAE_EXPLORER_CACHE=str(tmp_path / "cache"))
    # the recipe, measured: the five files of docs/adding-an-algorithm.md's table and no other
    changed = changed_files(copy, ROOT)
    assert changed == recipe_files(copy) and len(changed) == 5, sorted(changed)
    # the docs' checks take its page (no README line, no entry in their tables), the common tests and its own take
    # the algorithm, and the README's Layout needs no line for it (the registry indexes the algorithms' modules)
    tests = ["tests/unit/test_docs.py", "tests/unit/test_centroid.py", "tests/unit/test_readme.py"]
    tests += [
        "tests/unit/test_all_algorithms.py",
        "tests/unit/test_kernel_contract.py",
        "tests/unit/test_input_checks.py",
    ]
    selected = "test_docs or test_centroid or layout or Centroid"
    run = pytest_run(*tests, "-k", selected, "-v", env=env, cwd=copy, timeout=1500)
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-3000:]
    passed = [line for line in run.stdout.splitlines() if "PASSED" in line]
    ran = [line for line in passed if "[Centroid" in line]
    assert len(ran) >= 20, run.stdout[-3000:]  # all_algorithms 3, kernel contract 6, the input checks 12+
    page = [line for line in passed if "centroid" in line and "test_docs.py" in line]
    assert len(page) >= 5, run.stdout[-3000:]  # its page: reference and marks, links, code names, counts
    assert sum("test_centroid.py" in line for line in passed) == 2, run.stdout[-3000:]
    # ... and the package, the model files, the warm-up, River, the experiments and the app pick it up
    run = subprocess.run([sys.executable, "-c", CHECKS], cwd=copy, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    assert "the new algorithm is everywhere" in run.stdout

"""The README fits a newcomer's screen: its Quickstart is two commands (CI runs the test command), its page
table names every page, and its Layout names every module and folder of the tree, nothing that is not there.
The generated tables it used to hold live in docs/ and stay generated."""

import re

import pytest
from conftest import ROOT

README = ROOT / "README.md"
MAX_LINES = 250
MAX_LINE_CHARS = 200


def _quickstart():
    text = README.read_text()
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


#: the Quickstart's first steps: a virtual environment (Debian's own Python refuses a bare ``pip install``)
VENV = ("python3 -m venv .venv", ". .venv/bin/activate")


def test_quickstart_is_two_commands():
    cmds = _quickstart()
    assert len(cmds) == 2
    steps = [s.strip() for s in cmds[0].split("&&")]
    assert tuple(steps[:2]) == VENV and steps[2].startswith("pip install") and steps[-1] == "streamlit run app.py"
    # the test command on its own, in a new shell too: the same environment made or reused, then the tests
    tests = [s.strip() for s in cmds[1].split("&&")]
    assert tuple(tests[:2]) == VENV and tests[2].startswith("pip install") and tests[-1] == "python -m pytest"


def test_ci_makes_the_readme_virtual_environment():
    """.ci/run makes and activates the Quickstart's virtual environment, in that order, before it installs."""
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    steps = [s.strip() for s in _quickstart()[0].split("&&")][:2]
    assert all(s in lines for s in steps), f"the Quickstart's {steps} are not lines of .ci/run"
    first_install = next(i for i, line in enumerate(lines) if line.startswith("pip install"))
    assert lines.index(steps[0]) < lines.index(steps[1]) < first_install


def test_a_failing_check_in_ci_stops_it():
    """Under ``set -e`` a failure inside ``a && b`` (but the last) does not stop a script: ``ruff check . && ruff
    format --check .`` let a lint error through to the tests. Every line of .ci/run is one command, but the last
    (the README's test command: the script's own exit status)."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert "set -euo pipefail" in ci
    lines = [line.strip() for line in ci.splitlines() if line.strip() and not line.strip().startswith("#")]
    chained = [line for line in lines[:-1] if "&&" in line and not line.startswith(("if ", "then", "fi"))]
    assert chained == []
    assert "pytest" in lines[-1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    test_cmd = _quickstart()[1]
    ci_cmd = [line for line in ci.splitlines() if "pytest" in line and not line.lstrip().startswith("#")]
    assert len(ci_cmd) == 1
    assert ci_cmd[0].replace(" -q", "") == test_cmd


def test_the_readme_fits_a_screen():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, (
        f"the README has {len(lines)} lines; what is not a newcomer's first read goes in docs/"
    )
    long = [(i, len(line)) for i, line in enumerate(lines, 1) if len(line) > MAX_LINE_CHARS]
    assert not long, f"README lines over {MAX_LINE_CHARS} characters (line, length): {long}"


def test_the_page_table_names_every_page():
    table = README.read_text(encoding="utf-8").split("## The pages", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"^\| \*\*[^|]+\*\* \| `([^`]+)` \|", table, re.M))
    pages = {"app.py"} | {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if not p.name.startswith("_")}
    assert named == pages


# ------------------------------------------------------------------------------------------- the Layout
#: top-level folders that are made by running things, not part of the repository's layout
MADE_BY_RUNS = {"test-output", "build", "dist", "__pycache__", "htmlcov"}


def layout_entries(readme_text):
    """The entries of the README's Layout, ``[(path, text), ...]``: the first word of each line of its code block and
    the rest of the line, with the lines under it that start with a space (they continue its text)."""
    section = readme_text.split("## Layout", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    entries = []
    for line in block.splitlines():
        if not line.strip():
            continue
        if line[0].isspace() and entries:
            entries[-1] = (entries[-1][0], entries[-1][1] + " " + line.strip())
        else:
            path, _, text = line.partition(" ")
            entries.append((path, text.strip()))
    return entries


def layout_paths(readme_text):
    """The paths the README's Layout names: the first word of each of its entries."""
    return [path for path, _ in layout_entries(readme_text)]


#: folders whose modules the Layout names in the folder's own entry (``name.py``), not on a line each
GROUPED = ("cae/streamlit_glue/", "cae/bench/")


def grouped_problems(readme_text, root):
    """``(missing, not there)`` of the :data:`GROUPED` folders: each module of such a folder (but its
    ``__init__.py``) that the folder's entry does not name, and each ``name.py`` it names that the folder lacks."""
    text = dict(layout_entries(readme_text))
    missing, absent = [], []
    for folder in GROUPED:
        named = set(re.findall(r"\b(\w+\.py)\b", text.get(folder, "")))
        there = {p.name for p in (root / folder).glob("*.py") if p.name != "__init__.py"}
        missing += [folder + n for n in sorted(there - named)]
        absent += [folder + n for n in sorted(named - there)]
    return missing, absent


#: the Layout's lines for the algorithms' modules: the registry is their index (a new algorithm edits no README)
ALGORITHM_LINES = ("cae/algorithms/<name>.py", "cae/algorithms/_<name>_kernel.py")


def registered_modules(root):
    """The modules of cae/algorithms that a registry entry names (its estimator's module and its kernels), read
    from ``root``'s cae/registry.py (a copy of the repository may have one more)."""
    text = (root / "cae" / "registry.py").read_text(encoding="utf-8")
    dotted = set(re.findall(r'"(cae\.algorithms\.[a-z_]+)(?::[A-Za-z]+)?"', text))
    return {m.replace(".", "/") + ".py" for m in dotted}


def expected_in_layout(root):
    """What the Layout must name: every Python module of cae/ and pages/ (an algorithm's module and kernel through
    the two lines of :data:`ALGORITHM_LINES`, when the registry names them), app.py, and every top-level folder
    (hidden ones and those that running things makes left out)."""
    modules = [p for d in ("cae", "pages") for p in (root / d).rglob("*.py") if "__pycache__" not in p.parts]
    registered = registered_modules(root)
    modules = [p for p in modules if p.relative_to(root).as_posix() not in registered]
    modules = [p for p in modules if not p.relative_to(root).as_posix().startswith(GROUPED)]
    folders = [
        p
        for p in root.iterdir()
        if p.is_dir() and not p.name.startswith(".") and p.name not in MADE_BY_RUNS and not p.name.endswith(".egg-info")
    ]
    named = {p.relative_to(root).as_posix() for p in modules} | {f"{p.name}/" for p in folders} | {"app.py"}
    return sorted(named | set(GROUPED))


def layout_problems(readme_text, root):
    """``(missing, not there)``: what the tree has and the Layout does not name, and what the Layout names
    that the tree does not have."""
    named = layout_paths(readme_text)
    missing = [p for p in expected_in_layout(root) + list(ALGORITHM_LINES) if p not in named]
    absent = [
        p
        for p in named
        if p not in ALGORITHM_LINES
        and (not (root / p.rstrip("/")).exists() or (p.endswith("/") and not (root / p).is_dir()))
    ]
    grouped_missing, grouped_absent = grouped_problems(readme_text, root)
    return missing + grouped_missing, absent + grouped_absent


def test_the_layout_names_every_module_and_folder_and_nothing_else():
    missing, absent = layout_problems(README.read_text(encoding="utf-8"), ROOT)
    assert not missing, f"the README's Layout has no line for: {missing}"
    assert not absent, f"the README's Layout names what the repository does not have: {absent}"
    named = layout_paths(README.read_text(encoding="utf-8"))
    assert len(named) == len(set(named)), "a path appears twice in the Layout"


@pytest.mark.parametrize("gone", ["cae/app/player.py", "pages/explain.py", "tests/"])
def test_the_layout_check_sees_a_deleted_line(gone):
    text = README.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines(True) if not line.startswith(gone + " ")]
    assert len(lines) == len(text.splitlines(True)) - 1
    assert layout_problems("".join(lines), ROOT)[0] == [gone]


def test_the_layout_check_sees_a_path_that_is_not_there():
    text = README.read_text(encoding="utf-8").replace("app.py  ", "cae/app/gone.py  ", 1)
    missing, absent = layout_problems(text, ROOT)
    assert absent == ["cae/app/gone.py"]


@pytest.mark.parametrize("module", ["how_often.py", "classroom_student.py"])
def test_the_layout_check_sees_a_module_its_folder_line_does_not_name(module):
    """A module of cae/streamlit_glue named on the folder's entry: left out, or named wrongly, the check says so."""
    text = README.read_text(encoding="utf-8")
    assert text.count(f" {module}") == 1
    assert layout_problems(text.replace(f" {module}", " gone.py"), ROOT) == (
        [f"cae/streamlit_glue/{module}"],
        ["cae/streamlit_glue/gone.py"],
    )


# ----------------------------------------------------------------- the generated tables, now in docs/
def test_the_comparison_with_the_paper_is_generated_from_results():
    """The per-algorithm columns beside the paper's (docs/reproducing-the-paper.md) are generated from
    results/, never typed."""
    from cae.experiments.cli import readme_text

    if not (ROOT / "results" / "paper_comparison.csv").exists():
        pytest.skip("results/paper_comparison.csv is not there")
    text = (ROOT / "docs" / "reproducing-the-paper.md").read_text()
    begin = "<!-- generated: python -m cae.experiments readme --results results -->\n"
    end = "<!-- end of generated -->"
    assert begin in text and end in text
    block = text.split(begin, 1)[1].split(end, 1)[0]
    assert block.strip() == readme_text(ROOT / "results").strip()


def test_the_peer_table_is_generated():
    """The table of CAE beside River and scikit-learn (docs/performance.md) is generated from results/peers.csv,
    never typed."""
    from cae.bench.peers import markdown

    csv = ROOT / "results" / "peers.csv"
    if not csv.exists():
        pytest.skip("results/peers.csv is not there")
    text = (ROOT / "docs" / "performance.md").read_text()
    begin = "<!-- generated: python -m cae.bench --peers --markdown -->\n"
    end = "<!-- end of generated -->"
    assert begin in text
    block = text.split(begin, 1)[1].split(end, 1)[0]
    assert block.strip() == markdown(csv).strip()


def test_the_lineage_lesson_table_is_generated():
    """The Lineage lesson's numbers (docs/algorithms.md) are generated from results/lineage.csv, never typed."""
    from cae.app.lineage import read_runs
    from cae.app.lineage_lesson import markdown

    csv = ROOT / "results" / "lineage.csv"
    if not csv.exists():
        pytest.skip("results/lineage.csv is not there")
    text = (ROOT / "docs" / "algorithms.md").read_text()
    begin = "<!-- generated: python -m cae.experiments lineage --markdown --results results -->\n"
    end = "<!-- end of generated -->"
    assert begin in text
    block = text.split(begin, 1)[1].split(end, 1)[0]
    assert block.strip() == markdown(read_runs(csv)).strip()

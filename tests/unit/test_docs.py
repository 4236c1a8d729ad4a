"""The documentation in docs/ and the README: links that lead somewhere, code names that exist, and every
point where CAE follows its authors' code rather than the paper's text marked where the docs say it."""

import ast
import re

import pytest
from conftest import ROOT

from cae.algorithms import _cae_kernel as cae_kernel

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
CAE_PAGE = DOCS / "cae-algorithm.md"
BASELINE_PAGES = {
    "soinn_plus": DOCS / "baselines" / "soinn_plus.md",
    "tca": DOCS / "baselines" / "tca.md",
    "autocloud": DOCS / "baselines" / "autocloud.md",
    "asoinn": DOCS / "baselines" / "asoinn.md",
}
# how a page names its reference where the reference has no repository commit to cite
REFERENCE_WITHOUT_COMMIT = {"asoinn": "fastSOINN(data, agemax, lambda, c)"}

LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def _links(path):
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
    return LINK.findall(text)


def _relative(target):
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")


def test_the_pages_exist_and_the_readme_links_them():
    assert CAE_PAGE in PAGES and all(p in PAGES for p in BASELINE_PAGES.values())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = {t for _, t in _links(ROOT / "README.md")}
    assert "docs/cae-algorithm.md" in targets
    for page in BASELINE_PAGES.values():
        assert page.relative_to(ROOT).as_posix() in targets, page
    layout = readme.split("## Layout", 1)[1]
    assert re.search(r"^docs/\s+\S", layout, re.M), "the README's Layout has a line for docs/"


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_points_to_an_existing_file(page):
    links = [(text, t) for text, t in _links(page) if _relative(t)]
    assert links or page.name == "README.md"
    for text, target in links:
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.exists(), f"{page.relative_to(ROOT)}: [{text}]({target}) leads nowhere"
        assert ROOT in path.parents, f"{page.relative_to(ROOT)}: [{text}]({target}) leaves the repository"


def _defined_names(path):
    """Functions, classes, methods and top-level constants defined in a Python file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_code_links_name_what_the_file_defines(page):
    """A link like [`_cae_kernel.winners`](../cae/algorithms/_cae_kernel.py) names a function of that file:
    renaming or removing the function without updating the docs fails here."""
    checked = 0
    for text, target in _links(page):
        m = re.fullmatch(r"`([\w.]+)`", text)
        if not (m and target.endswith(".py") and _relative(target)):
            continue
        path = (page.parent / target).resolve()
        parts = m.group(1).split(".")
        if len(parts) > 1:
            assert parts[0] == path.stem, f"{page.name}: `{m.group(1)}` linked to {target}"
        assert parts[-1] in _defined_names(path), f"{page.name}: {target} defines no `{parts[-1]}`"
        checked += 1
    assert checked >= 5, f"{page.name} links too few code names to say where each step is implemented"


def _blocks(text):
    """Paragraphs, list items and table rows: the unit a [ref] mark belongs to."""
    blocks, cur = [], []
    for line in text.splitlines():
        starts = re.match(r"^\s*(?:[-*]|\d+\.)\s|^\|", line)
        if not line.strip() or (starts and not line.startswith("   ")):
            if cur:
                blocks.append(" ".join(cur))
            cur = [line] if line.strip() else []
        else:
            cur.append(line)
    if cur:
        blocks.append(" ".join(cur))
    return [" ".join(b.split()) for b in blocks]


def _marked(page, phrase, mark="[ref]", text=None):
    """Whether some block of the page (or of ``text``) that contains ``phrase`` is marked ``mark``, and the
    blocks that contain it."""
    text = page.read_text(encoding="utf-8") if text is None else text
    blocks = [b for b in _blocks(text) if phrase in b]
    assert blocks, f"{page.name} never says {phrase!r}"
    return any(mark in b for b in blocks), blocks


# Each point where the authors' code differs from the paper's text, as the CAE page must state it, next to a
# [ref] mark. The numbers come from the kernel, so that the page and the code cannot drift apart.
CAE_REFS = [
    "n_active = λ/2",
    f"first {cae_kernel.N_INIT} samples of the stream",
    f"K ≥ {cae_kernel.MIN_NODES_FOR_LAMBDA}",
    "never re-estimated",
    "Tukey's hinges",
    "s2 moves only if it already was a neighbour",
    "mean of the nodes' σ",
    "only in Cases II and III",
    "lowest row",
    "every node, old or new, gets σ_k = σ0",
    "`CAE_test.m`",
]


@pytest.mark.parametrize("phrase", CAE_REFS)
def test_the_cae_page_marks_each_difference_from_the_paper(phrase):
    """In the step-by-step text itself (the summary table at the end is checked on its own)."""
    body = CAE_PAGE.read_text(encoding="utf-8").split("## Everything we follow", 1)[0]
    ok, blocks = _marked(CAE_PAGE, phrase, text=body)
    assert ok, f"{phrase!r} appears only in blocks without a [ref] mark: {blocks}"


def test_the_cae_page_states_the_kernels_constants():
    text = " ".join(CAE_PAGE.read_text(encoding="utf-8").split())
    assert f"D < {cae_kernel.DIVERSITY_THRESHOLD:.0e}".replace("-0", "−") in text  # D < 1e−6
    assert f"up to {cae_kernel.DIV_LU_MAX} nodes" in text
    # the CAE page's "at a glance" table carries a mark in every row
    table = CAE_PAGE.read_text(encoding="utf-8").split("## Everything we follow", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in table.splitlines() if r.startswith("| ") and not r.startswith("| step") and "---" not in r]
    assert len(rows) >= 10 and all("[ref]" in r or "[fix]" in r for r in rows)


def test_the_cae_page_covers_every_step():
    text = CAE_PAGE.read_text(encoding="utf-8")
    for heading in (
        "Notation",
        "The initial phase",
        "λ by the diversity criterion",
        "Threshold set-up",
        "Winner search",
        "Cases I, II and III",
        "Edge ageing and linking",
        "Edge deletion: Tukey's hinges and a_max",
        "The isolated-node sweep",
        "Clusters and prediction",
        "CAEA",
    ):
        assert re.search(rf"^#+ .*{re.escape(heading)}", text, re.M), heading


BASELINE_REFS = {
    "soinn_plus": [("addEdge", "[ref]"), ("SUM OF THE 1-BASED ROW INDICES", "[ref]"), ("`prctile`", "[ref]")]
    + [("max(obj.winningTimes(data))", "[fix]"), ("1/(100·M_neighbour)", "[ref]")],
    "tca": [("ErrCIM is computed after", "[ref]"), ("features 1 and 2", "[ref]"), ("cumulative sample", "[fix]")]
    + [("reads `orderCIM` past its end", "[fix]"), ("end of every call", "[ref]")],
    "autocloud": [("MATLAB's `max` ignores NaN", "[ref]"), ("restarts at the first pair", "[ref]")]
    + [("0/0 = NaN", "[ref]"), ("`find(...)` is empty", "[fix]")],
    "asoinn": [("1,000,000", "[ref]"), ("1e6", "[ref]"), ("always", "[ref]"), ("never a node", "[ref]")]
    + [("only s1 moves", "[ref]"), ("after every input", "[ref]"), ("With **one feature**", "[fix]")]
    + [("links a node to itself", "[fix]"), ("delete every node", "[fix]"), ("cumulative sample number", "[fix]")],
}


@pytest.mark.parametrize("name", sorted(BASELINE_PAGES))
def test_each_baseline_page_gives_its_reference_and_marks(name):
    page = BASELINE_PAGES[name]
    text = page.read_text(encoding="utf-8")
    module = (ROOT / "cae" / "algorithms" / f"{name}.py").read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(module))
    # the module docstring is short, points here, and cites the same commit as the page
    assert f"docs/baselines/{name}.md" in doc and len(doc.splitlines()) < 40
    commits = set(re.findall(r"\b[0-9a-f]{40}\b", doc))
    if name in REFERENCE_WITHOUT_COMMIT:
        assert REFERENCE_WITHOUT_COMMIT[name] in doc and REFERENCE_WITHOUT_COMMIT[name] in text
    else:
        assert commits and commits <= set(re.findall(r"\b[0-9a-f]{40}\b", text))
    assert "## What" in text and "[ref]" in text
    for phrase, mark in BASELINE_REFS[name]:
        ok, blocks = _marked(page, phrase, mark)
        assert ok, f"{name}: {phrase!r} is not marked {mark}: {blocks}"


def test_the_cae_module_points_to_its_page():
    doc = ast.get_docstring(ast.parse((ROOT / "cae" / "algorithms" / "cae.py").read_text(encoding="utf-8")))
    assert "docs/cae-algorithm.md" in doc and ">>> " in doc

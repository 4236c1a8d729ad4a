"""The documentation in docs/ and the README: links that lead somewhere, code names that exist, and every
point where CAE follows its authors' code rather than the paper's text marked where the docs say it."""

import ast
import io
import re
import tokenize

import pytest
from conftest import ROOT

from cae.algorithms import _cae_kernel as cae_kernel
from cae.registry import ALGORITHMS

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
CAE_PAGE = DOCS / "cae-algorithm.md"
#: one page per registered algorithm but CAE (docs/cae-algorithm.md), named after its module (the registry's list)
BASELINE_PAGES = {
    a.module.rsplit(".", 1)[1]: DOCS / "baselines" / f"{a.module.rsplit('.', 1)[1]}.md"
    for a in ALGORITHMS.values()
    if not a.variant_of and a.name != "CAE"
}
# the README's sections that moved to docs/: each page exists and the README links it
TOPIC_PAGES = [
    DOCS / "app.md",
    DOCS / "classroom.md",
    DOCS / "reproducing-the-paper.md",
    DOCS / "performance.md",
    DOCS / "algorithms.md",
    DOCS / "package.md",
    DOCS / "testing.md",
    DOCS / "architecture.md",
    DOCS / "adding-an-algorithm.md",
]
# pages that say where each step is implemented: at least five links to code names each
CODE_PAGES = [CAE_PAGE, *BASELINE_PAGES.values(), DOCS / "adding-an-algorithm.md", DOCS / "architecture.md"]
# how a page names its reference where the reference has neither a repository commit nor a PyPI release to cite
REFERENCE_WITHOUT_COMMIT = {
    "asoinn": "fastSOINN(data, agemax, lambda, c)",
}
#: a reference published on PyPI, as a page names it: the package and its version ("`artlib` 0.1.12 on PyPI")
PYPI_REFERENCE = re.compile(r"`([A-Za-z0-9_.-]+)`\s+(\d+(?:\.\d+)+)\s+on\s+PyPI")

LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def _links(path):
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
    return LINK.findall(text)


def _relative(target):
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")


def test_the_pages_exist_and_the_readme_links_them():
    """Each topic page is linked from the README; each algorithm's page exists and is reached through the README's
    link to ``docs/baselines/`` (and from its module's docstring, below): a new algorithm's page needs no README
    edit."""
    assert CAE_PAGE in PAGES and all(p in PAGES for p in BASELINE_PAGES.values())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = {t.split("#", 1)[0] for _, t in _links(ROOT / "README.md")}
    assert "docs/cae-algorithm.md" in targets and "docs/baselines/" in targets
    for page in BASELINE_PAGES.values():
        assert page.exists(), f"{page.relative_to(ROOT)} is missing: every registered algorithm has its page"
    for page in TOPIC_PAGES:
        assert page.exists(), f"{page.relative_to(ROOT)} is missing"
        assert page.relative_to(ROOT).as_posix() in targets, f"the README does not link {page.relative_to(ROOT)}"
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
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


@pytest.mark.parametrize("page", CODE_PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
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


# a path of the repository written in backticks (`cae/app/figures.py`, `tests/fixtures/`, `cae/algorithms/_*_kernel.py`)
CODE_PATH = re.compile(
    r"`((?:cae|pages|tests|docs|sample_data|results|\.ci|\.streamlit)/[^`\s]*|app\.py|conftest\.py|pyproject\.toml)`"
)
# a dotted name of the package or the pages in backticks (`cae.registry.ALGORITHMS`, `cae.streamlit_glue.common.message`);
# not a link's text ([`cae._record`](../cae/algorithms/cae.py) is checked against its file, above)
CODE_NAME = re.compile(r"`((?:cae|pages)(?:\.\w+)+)(?:\(\))?`(?!\]\()")


def _module_file(parts):
    """The file of the module ``parts`` (``["cae", "app", "figures"]``), or None."""
    base = ROOT.joinpath(*parts)
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def name_problem(name):
    """Why the dotted name ``name`` does not resolve in this repository (None when it does): the longest
    prefix that is a module, then a name it defines (a function, class or constant) or exports lazily (a
    quoted name in its lazy tables), then, for ``Class.attribute``, a name defined in that file."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        path = _module_file(parts[:i])
        if path is None:
            continue
        rest = parts[i:]
        if not rest:
            return None
        source = path.read_text(encoding="utf-8")
        defined = _defined_names(path)
        if rest[0] not in defined and f'"{rest[0]}"' not in source:
            return f"{path.relative_to(ROOT)} defines no `{rest[0]}`"
        if len(rest) > 1 and rest[-1] not in defined and not re.search(rf"\b{re.escape(rest[-1])}\b", source):
            return f"{path.relative_to(ROOT)} has no `{rest[-1]}`"
        return None
    return f"no module of the repository is called {parts[0]}"


def code_references(page):
    """The repository paths and dotted code names that ``page`` writes in backticks, outside code blocks;
    placeholders (`cae/algorithms/<name>.py`, `cae.integrations.river.X`) and file names are left out."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    paths = [p for p in CODE_PATH.findall(text) if not re.search(r"[<>{}…]", p)]
    names = [n for n in CODE_NAME.findall(text) if n.split(".")[-1] not in ("py", "X")]
    return paths, names


@pytest.mark.parametrize("page", [ROOT / "README.md", *PAGES], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_code_path_and_name_a_page_writes_exists(page):
    """`cae/app/figures.py` names a file of the repository and `cae.registry.ALGORITHMS` a name defined there:
    a module renamed, moved or split without its docs fails here, page by page."""
    paths, names = code_references(page)
    for path in paths:
        path, *test = path.split("::")  # a test's node id: tests/test_x.py::test_name
        assert list(ROOT.glob(path.rstrip("/"))), f"{page.relative_to(ROOT)}: `{path}` is not in the repository"
        if test:
            assert test[-1] in _defined_names(ROOT / path), f"{page.relative_to(ROOT)}: {path} defines no {test[-1]}"
    for name in names:
        problem = name_problem(name)
        assert problem is None, f"{page.relative_to(ROOT)}: `{name}`: {problem}"
    if page in TOPIC_PAGES:
        assert len(paths) + len(names) >= 3, f"{page.name} names too little code to say where things are"


def test_the_name_check_catches_a_renamed_name():
    assert name_problem("cae.registry.ALGORITHMS") is None
    assert name_problem("cae.ModelFileError") is None  # exported lazily
    assert name_problem("cae.classroom.store.Limits") is None
    assert "defines no `NO_SUCH_TABLE`" in name_problem("cae.registry.NO_SUCH_TABLE")
    assert name_problem("nothing.here") is not None


# ------------------------------------------------ no ../shared in what a reader of a clone sees
# Where the project's reference files may be named: the test helpers that read them (tests/conftest.py's
# SHARED and its two loaders), by function. Nothing in cae/, pages/ or app.py reads them.
SHARED_READERS = {"tests/conftest.py": {"_paper_data", "shared_path"}}
SHARED_SCANNED = sorted([*ROOT.joinpath("cae").rglob("*.py"), *ROOT.joinpath("pages").glob("*.py"), ROOT / "app.py"])


def shared_mentions(path, source=None):
    """``(line, text)`` of every comment or string (docstrings included) of a Python file that names
    ``../shared``, outside the functions SHARED_READERS allows for that file."""
    source = path.read_text(encoding="utf-8") if source is None else source
    allowed = SHARED_READERS.get(path.relative_to(ROOT).as_posix(), set())
    spans = [
        (n.lineno, n.end_lineno)
        for n in ast.walk(ast.parse(source))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in allowed
    ]
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING) and "../shared" in tok.string:
            if not any(a <= tok.start[0] <= b for a, b in spans):
                out.append((tok.start[0], tok.string.strip()[:80]))
    return out


@pytest.mark.parametrize(
    "path",
    [ROOT / "README.md", *PAGES, *SHARED_SCANNED, *(ROOT / p for p in SHARED_READERS)],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_no_doc_or_docstring_points_at_shared(path):
    """A clone has no ``../shared``: the docs and the code's docstrings and comments point at what the
    repository holds (the specification's copy is docs/cae-algorithm.md; the paper's tables and what they
    imply are cae/experiments/paper_tables/)."""
    if path.suffix == ".md":
        lines = [i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "../shared" in line]
        assert not lines, f"{path.relative_to(ROOT)} names ../shared on line(s) {lines}"
    else:
        assert shared_mentions(path) == [], path.relative_to(ROOT)


def test_the_shared_check_sees_docstrings_and_comments_and_allows_the_readers():
    cae_file = ROOT / "cae" / "_paths.py"
    src = 'def f():\n    """Reads ../shared/x."""\n    return 1  # or ../shared/y\n'
    assert [line for line, _ in shared_mentions(cae_file, src)] == [2, 3]
    reader = ROOT / "tests" / "conftest.py"
    assert shared_mentions(reader, src.replace("def f", "def shared_path")) == []


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
    "fuzzy_art": [("divides |I ∧ w_j| by d", "[ref]")],
    "gng": [("the **last first**", "[ref]"), ("When every error is 0", "[fix]")],
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
    pypi = PYPI_REFERENCE.findall(text)
    if name in REFERENCE_WITHOUT_COMMIT:
        assert REFERENCE_WITHOUT_COMMIT[name] in doc and REFERENCE_WITHOUT_COMMIT[name] in text
    elif pypi and not commits:  # a published package: the docstring names it, the page its version
        assert any(package in doc for package, _ in pypi), f"{name}'s docstring names none of {pypi}"
    else:
        assert commits and commits <= set(re.findall(r"\b[0-9a-f]{40}\b", text))
    assert "## What" in text and "[ref]" in text
    for phrase, mark in BASELINE_REFS.get(name, []):  # a new page needs no entry: its marks are its own
        ok, blocks = _marked(page, phrase, mark)
        assert ok, f"{name}: {phrase!r} is not marked {mark}: {blocks}"


def test_the_cae_module_points_to_its_page():
    doc = ast.get_docstring(ast.parse((ROOT / "cae" / "algorithms" / "cae.py").read_text(encoding="utf-8")))
    assert "docs/cae-algorithm.md" in doc and ">>> " in doc


# ------------------------------------------------ the docs count the algorithms the registry has
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_NUMBER = r"(?:" + "|".join(_NUMBERS) + r"|\d+)"
#: a count of algorithms: "the other five algorithms", "any of the six algorithms", "two to four algorithms", ...
COUNT = re.compile(
    rf"(?P<before>\b(?:the paper's|the other|at least)\s+)?\b(?P<n>{_NUMBER})(?:\s+to\s+(?P<upto>{_NUMBER}))?"
    r"\s+(?:registered\s+)?(?P<noun>algorithms|baselines)\b",
    re.I,
)
#: "all six" (without a noun) in a sentence about the algorithms
ALL_OF_THEM = re.compile(rf"\ball\s+(?P<n>{_NUMBER})\b(?!\s+(?:algorithms|baselines)\b)", re.I)
#: the pages' own files and the glue they share (cae/streamlit_glue): what the app writes on the screen
APP_TEXTS = [*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "cae" / "streamlit_glue").glob("*.py"))]
COUNTED_TEXTS = [ROOT / "README.md", ROOT / "app.py", *PAGES, *APP_TEXTS]


def _number(word):
    return int(word) if word.isdigit() else _NUMBERS.index(word.lower())


def _paper(name):
    return ALGORITHMS[name].in_paper


def algorithm_counts(text):
    """``(phrase, the number written, the number the registry has)`` of every count of algorithms in ``text``.

    What a count counts follows from its words: "the paper's six" the algorithms the paper compares, "four
    baselines" the paper's baselines, "the other seven" all but one, "two to four" and "at least two" the Compare
    page's range,
    any other ("any of the eight algorithms", "all eight") every registered algorithm. Inline code is left out.
    """
    text = " ".join(re.sub(r"`[^`]*`", "", text).split())
    paper = sum(map(_paper, ALGORITHMS))
    baselines = sum(1 for n in ALGORITHMS if _paper(n) and "CAE" not in (n, ALGORITHMS[n].variant_of))
    compare_max = int(re.search(r"max_selections=(\d+)", (ROOT / "pages" / "compare.py").read_text()).group(1))
    out = []
    for m in COUNT.finditer(text):
        before = (m.group("before") or "").lower().strip()
        n = _number(m.group("n"))
        if m.group("upto"):
            out.append((m.group(0), (n, _number(m.group("upto"))), (2, compare_max)))
        elif before == "at least":  # the Compare page's least
            out.append((m.group(0), n, 2))
        elif m.group("noun").lower() == "baselines":
            out.append((m.group(0), n, baselines))
        elif before == "the paper's":
            out.append((m.group(0), n, paper))
        else:
            out.append((m.group(0), n, len(ALGORITHMS) - (before == "the other")))
    for sentence in re.split(r"(?<=[.;:!?])\s+", text):
        if re.search(r"\balgorithms?\b", sentence, re.I):
            out += [(m.group(0), _number(m.group("n")), len(ALGORITHMS)) for m in ALL_OF_THEM.finditer(sentence)]
    return out


def test_the_count_check_reads_counts_as_meant():
    total = len(ALGORITHMS)
    counts = algorithm_counts(
        "Learned by any of the six algorithms. The paper's six algorithms run; the four baselines too. "
        "CAE and the other five algorithms; two to four algorithms in lock step. The registry lists all six "
        "algorithm entries. It asks for all seven columns. `the other nine algorithms` The paper's four baselines."
    )
    assert [(n, want) for _, n, want in counts] == [
        (6, total),
        (6, 6),
        (4, 4),
        (5, total - 1),
        ((2, 4), (2, 4)),
        (4, 4),
        (6, total),
    ]


@pytest.mark.parametrize("path", COUNTED_TEXTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_count_of_algorithms_is_the_registrys(path):
    """ "Any of the six algorithms" went stale when Fuzzy ART and GNG were registered: every count a page or a
    doc writes is checked against :data:`cae.registry.ALGORITHMS` (pages that can, write it from there)."""
    for phrase, written, right in algorithm_counts(path.read_text(encoding="utf-8")):
        assert written == right, f"{path.relative_to(ROOT)}: {phrase!r} should count {right}"


# lists of registered names: in the pages and the docs that describe the product, a list of four or more is a
# set the code defines (the results and the algorithms' own pages compare any algorithms they like)
_NAME = "|".join(re.escape(n) for n in sorted(ALGORITHMS, key=len, reverse=True))
_ITEM = rf"\*{{0,2}}(?:{_NAME})(?:\(mean\))?\*{{0,2}}"
NAME_LIST = re.compile(rf"(?<![\w+]){_ITEM}(?:\s*,\s*{_ITEM})+(?:,?\s+(?:and|or)\s+{_ITEM})?(?![\w+])")
LISTING_TEXTS = [
    ROOT / "README.md",
    ROOT / "app.py",
    *APP_TEXTS,
    *(DOCS / n for n in ("app.md", "package.md", "testing.md", "architecture.md", "adding-an-algorithm.md")),
    DOCS / "performance.md",
]


def known_sets():
    """The sets of algorithms the code defines, that a list of names may give: every one, the paper's, its four
    baselines, all but CAE and CAEA, those the Playground explains, and the Lineage page's."""
    from cae.app.explainable import ENTRIES
    from cae.app.lineage import SETTINGS

    every = set(ALGORITHMS)
    paper = {n for n in every if _paper(n)}
    cae_family = {n for n in every if "CAE" in (n, ALGORITHMS[n].variant_of)}
    return {
        "every registered algorithm": every,
        "the paper's": paper,
        "the paper's baselines": paper - cae_family,
        "all but CAE and CAEA": every - cae_family,
        "those the Playground explains": set(ENTRIES),
        "the Lineage page's": {s.algorithm for s in SETTINGS},
    }


def name_lists(text):
    """Every list of four or more registered names in ``text``, as sets (``(mean)`` variants by their name)."""
    text = " ".join(text.split())
    out = []
    for m in NAME_LIST.finditer(text):
        names = set(re.findall(rf"(?<![\w+])({_NAME})(?![\w+])", m.group(0)))
        if len(names) >= 4:
            out.append((m.group(0), names))
    return out


@pytest.mark.parametrize("path", LISTING_TEXTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_list_of_algorithms_is_a_set_the_code_defines(path):
    """The README once listed four baselines and the kernels by name, Home six algorithms for Compare (which
    offers eight): a list of names is one of :func:`known_sets`, or it goes stale."""
    sets = known_sets()
    for phrase, names in name_lists(path.read_text(encoding="utf-8")):
        assert names in sets.values(), f"{path.relative_to(ROOT)}: {phrase!r} is none of {list(sets)}"


def test_the_list_check_sees_a_list_that_lost_a_name():
    assert [n for _, n in name_lists("Two to four of CAE, CAEA, SOINN+, ASOINN, TCA and AutoCloud.")] == [
        {"CAE", "CAEA", "SOINN+", "ASOINN", "TCA", "AutoCloud"}
    ]
    assert {"CAE", "CAEA", "SOINN+", "ASOINN", "TCA", "AutoCloud"} in known_sets().values()  # the paper's
    stale = name_lists("Two to four of CAE, CAEA, SOINN+, ASOINN, TCA, AutoCloud and Fuzzy ART.")[0][1]
    assert stale not in known_sets().values()


# ------------------------------------------------ the results name the command a reader can type
def _documented_paper_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return next(
        line.split("#")[0].strip()
        for line in readme.splitlines()
        if line.startswith("python -m cae.experiments paper --out results")
    )


def test_the_results_and_the_experiments_page_name_the_documented_command():
    """results/paper_run.json (shown on the Experiments page) and the results' "Generated by" lines name the
    README's command (``--data authors``, the fetched datasets), never a folder only the machine that ran them
    has (``--data ../shared/…`` was recorded as typed)."""
    import json

    documented = _documented_paper_command()
    assert "--data authors" in documented
    run = ROOT / "results" / "paper_run.json"
    if run.exists():
        assert json.loads(run.read_text(encoding="utf-8"))["command"] == documented
    assert f"`{documented}`" in (ROOT / "pages" / "experiments.py").read_text(encoding="utf-8")
    for md in sorted((ROOT / "results").glob("*.md")):
        for command in re.findall(r"Generated by `([^`]*)`", md.read_text(encoding="utf-8")):
            assert "../" not in command and "shared" not in command, f"{md.name}: {command}"
            data = re.findall(r"--data(?:=|\s+)(\S+)", command)
            assert data in ([], ["authors"]), f"{md.name}: {command}"

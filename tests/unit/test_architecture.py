"""The package's architecture, checked: no import cycles, Streamlit only in the pages and their glue
(cae/streamlit_glue), the shared layer below the algorithms, one module per registered algorithm, no private kernel
or learned state read outside the algorithms, short functions in the kernels, cae/app, cae/data, the glue and the
pages, pages/ holding the pages alone, a small top of cae/, and a Playground that imports only what it draws (the
README's Layout is checked against the folders in tests/unit/test_readme.py; docs/architecture.md states these
rules)."""

import ast

import pytest
from conftest import ROOT

PKG = ROOT / "cae"


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PKG.rglob("*.py")}


def _resolve(module, node):
    """The modules an import statement of ``module`` names (submodules where ``from X import sub``)."""
    is_pkg = MODULES[module].name == "__init__.py"
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = module.split(".")
    if node.level:
        base = base[: len(base) - node.level + (1 if is_pkg else 0)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module
    out = []
    for a in node.names:
        sub = f"{target}.{a.name}"
        out.append(sub if sub in MODULES else target)
    return out


def import_graph():
    graph = {}
    for name, path in MODULES.items():
        deps = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        lazy = path.name == "__init__.py" and any(
            isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body
        )
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                deps.update(d for d in _resolve(name, node) if d in MODULES and d != name)
            # a package that imports its names lazily (importlib in __getattr__) names them as ".module"
            if lazy and isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("."):
                target = name + node.value
                if target in MODULES:
                    deps.add(target)
            # an estimator named "module:Class" (the registry's entries) is imported by that name when first used
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.count(":") == 1:
                target = node.value.split(":")[0]
                if target in MODULES and target != name:
                    deps.add(target)
        graph[name] = deps
    return graph


def test_no_import_cycles():
    """Every import, at module level or inside a function, points down a tree: no module can reach itself."""
    graph = import_graph()
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == "open":
                cycle = stack[stack.index(d) :] + [d]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_the_shared_layer_does_not_import_the_algorithms_or_the_app():
    graph = import_graph()
    shared = ["cae._base", "cae._storage", "cae._graph", "cae._art", "cae._jit", "cae._paths"]
    for m in shared:
        assert not {d for d in graph[m] if d.startswith(("cae.algorithms", "cae.app", "cae.experiments"))}, m


#: the one package of cae/ where Streamlit is imported: the glue the pages share
GLUE = "cae.streamlit_glue"


def streamlit_imports(files):
    """``(module, imported)`` for each import of Streamlit in ``files`` ({module name: path}), but the protobuf
    messages the classroom's load benchmark speaks to a server (``streamlit.proto.*`` in ``cae.bench.classroom``)."""
    found = []
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(name, a.name) for a in node.names if a.name.split(".")[0] == "streamlit"]
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                if name == "cae.bench.classroom" and node.module.startswith("streamlit.proto."):
                    continue
                if node.module.split(".")[0] == "streamlit":
                    found.append((name, node.module))
    return sorted(found)


def test_no_streamlit_in_the_package_but_its_glue():
    """Nothing in cae/ imports Streamlit but cae/streamlit_glue (the glue the pages share); the classroom's load
    benchmark speaks Streamlit's wire protocol to a server (its protobuf messages), and uses nothing else of it."""
    outside = {n: p for n, p in MODULES.items() if n != GLUE and not n.startswith(GLUE + ".")}
    assert streamlit_imports(outside) == []
    assert {n for n, _ in streamlit_imports(MODULES)} > {f"{GLUE}.common", f"{GLUE}.classroom_session"}


def test_the_streamlit_check_catches_an_import(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("import numpy\nfrom streamlit.runtime import Runtime\n")
    assert streamlit_imports({"cae.app.x": src}) == [("cae.app.x", "streamlit.runtime")]
    src.write_text("def f():\n    import streamlit as st\n")
    assert streamlit_imports({"cae.bench.classroom": src}) == [("cae.bench.classroom", "streamlit")]


def test_nothing_in_the_package_imports_the_glue_or_the_benchmarks():
    """The glue and the benchmarks sit on top: nothing else in cae/ imports them (the pages, app.py and the
    tests do), so the core, cae/app and the classroom's store run without Streamlit's API and without a benchmark."""
    graph = import_graph()
    for top in (GLUE, "cae.bench"):
        inside = {m for m in graph if m == top or m.startswith(top + ".")}
        assert inside, top
        assert {m for m, deps in graph.items() if m not in inside and deps & inside} == set(), top


def test_each_algorithm_has_its_module_and_private_kernel_beside_it():
    """cae/algorithms holds one public module per registered estimator and the private kernels the registry
    names, and nothing else public."""
    from cae.registry import ALGORITHMS

    algos = {p.stem for p in (PKG / "algorithms").glob("*.py") if not p.stem.startswith("_")}
    assert algos == {a.module.rsplit(".", 1)[1] for a in ALGORITHMS.values()}
    assert all(a.module.startswith("cae.algorithms.") for a in ALGORITHMS.values())
    kernels = {f"cae.algorithms.{p.stem}" for p in (PKG / "algorithms").glob("_*_kernel.py")}
    assert kernels == {k for a in ALGORITHMS.values() for k in a.kernels}


def test_public_names_still_import_from_cae():
    import cae

    for name in cae.__all__:
        assert getattr(cae, name) is not None
    assert cae.StepRecord is cae.CAEStepRecord


def test_integrations_are_leaves():
    """Adapters to other libraries (optional extras) are imported by nothing else in the package."""
    graph = import_graph()
    for m, deps in graph.items():
        if not m.startswith(("cae.integrations", "cae.bench.peers")):
            assert not {d for d in deps if d.startswith("cae.integrations")}, m


# ------------------------------------------------------------ functions that fit on a screen
MAX_FUNCTION_LINES = 80
MAX_KERNEL_FUNCTION_LINES = MAX_FUNCTION_LINES
KERNEL_FILES = sorted((PKG / "algorithms").glob("_*_kernel.py")) + [PKG / "_graph.py", PKG / "_art.py"]
#: the folders (under the repository) whose every function fits in MAX_FUNCTION_LINES; the kernels beside them
SHORT_FUNCTION_FOLDERS = ["cae/app", "cae/data", "cae/streamlit_glue"]


def _short_function_files():
    files = [p for folder in SHORT_FUNCTION_FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]
    return files + KERNEL_FILES


def long_functions(source, limit=MAX_FUNCTION_LINES):
    """``(name, lines)`` of every function in ``source`` longer than ``limit`` lines, from its ``def`` to its
    last line (signature and docstring included)."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > limit
    ]


@pytest.mark.parametrize("path", _short_function_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_function_is_longer_than_80_lines(path):
    """A kernel's step, a figure, a page's computation: a short sequence of named steps, each a function that
    fits on a screen (the kernels, and every module of SHORT_FUNCTION_FOLDERS)."""
    assert long_functions(path.read_text(encoding="utf-8")) == []


def test_the_length_rule_covers_its_folders():
    """Every folder named holds Python files, and the kernels are among the files checked."""
    for folder in SHORT_FUNCTION_FOLDERS:
        assert list((ROOT / folder).rglob("*.py")), folder
    assert KERNEL_FILES and set(KERNEL_FILES) <= set(_short_function_files())


def test_the_length_check_catches_a_long_function():
    body = "".join(f"    x{i} = {i}\n" for i in range(79))
    assert long_functions(f"def fits():\n{body}") == []  # 80 lines
    assert long_functions(f"def too_long():\n{body}    return 0\n") == [("too_long", 81)]
    nested = f"def outer():\n    def inner():\n{''.join('    ' + line for line in body.splitlines(True))}        pass\n"
    assert [name for name, _ in long_functions(nested)] == ["outer", "inner"]


# ------------------------------------------------------------ the algorithms' private parts stay inside
#: modules outside cae/algorithms allowed to call a kernel directly: none (the warm-up compiles CAE's parallel
#: labelling through ``CAE.compile_parallel_labelling``)
KERNEL_CALLERS: set[str] = set()
#: the nine pages: app.py (Home) and one file per page in pages/ (their glue is in cae/streamlit_glue)
PAGES = [
    "playground.py",
    "explain.py",
    "upload.py",
    "continual.py",
    "compare.py",
    "lineage.py",
    "experiments.py",
    "classroom.py",
]
APP_FILES = {f"pages.{p.stem}": p for p in (ROOT / "pages").glob("*.py")} | {"app": ROOT / "app.py"}


def _imported_modules(name, path):
    """Every module an import statement of the file names (``from X import y``: ``X.y`` and ``X``)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if name in MODULES and isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update(_resolve(name, node))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.update({node.module} | {f"{node.module}.{a.name}" for a in node.names})
    return out


def private_algorithm_imports(files):
    """``(importer, module)`` for each import of a private module of cae/algorithms (``cae.algorithms._*``)."""
    return sorted(
        (name, m)
        for name, path in files.items()
        for m in _imported_modules(name, path)
        if m.startswith("cae.algorithms._")
    )


def network_reads(files):
    """``(file, line)`` of every read of an estimator's ``network_`` (its learned state's arrays)."""
    return sorted(
        (name, node.lineno)
        for name, path in files.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "network_"
    )


def _outside_the_algorithms():
    inside = ("cae.algorithms", "cae._base")  # the estimators and their base class own network_
    files = {n: p for n, p in MODULES.items() if not n.startswith(inside) and n not in KERNEL_CALLERS}
    return files | APP_FILES


def test_nothing_outside_the_algorithms_imports_their_private_modules():
    """Kernels and state classes (``cae.algorithms._*``) are private: the app, the experiments and the pages
    use the estimators' public methods and attributes (``cae.algorithms.__init__`` may name them lazily)."""
    assert private_algorithm_imports(_outside_the_algorithms()) == []


def test_nothing_outside_the_estimators_reads_their_learned_state():
    """An estimator's ``network_`` (the arrays its kernel updates) is read only by the estimator; others ask
    whether it is fitted (``hasattr(model, "network_")``) and read its public attributes."""
    assert network_reads(_outside_the_algorithms()) == []


def test_the_private_checks_catch_a_private_read(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("from cae.algorithms import _cae_kernel\nmodel.network_.set_parameters(1, 2)\n")
    assert private_algorithm_imports({"x": src}) == [("x", "cae.algorithms._cae_kernel")]
    assert network_reads({"x": src}) == [("x", 2)]


# ------------------------------------------------------------ pages that read like what they draw
PAGE_FILES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
#: the top of cae/: the package's face, the shared layer and a few modules every part uses; the rest in packages
MAX_TOP_MODULES = 14


def test_pages_holds_the_pages_and_nothing_else():
    """pages/ is the app's pages, one file each (Streamlit lists that folder when it builds its own navigation): no
    glue module, no package, nothing but the eight pages beside app.py."""
    assert sorted(p.name for p in (ROOT / "pages").iterdir() if p.name != "__pycache__") == sorted(PAGES)


def test_the_top_of_the_package_is_small():
    """At most MAX_TOP_MODULES modules directly in cae/ (__init__ and __main__ included): the benchmarks live in
    cae/bench, the Streamlit glue in cae/streamlit_glue."""
    top = sorted(p.name for p in PKG.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top


@pytest.mark.parametrize("path", PAGE_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_function_is_longer_than_80_lines(path):
    """A page's function is a short sequence of named steps, as the kernels' are (the same 80-line rule)."""
    assert long_functions(path.read_text(encoding="utf-8")) == []


# ------------------------------------------------------------ the Playground imports what it draws
#: run in a fresh interpreter: the Playground opened through app.py (as a browser's /playground), its cae modules
_CLOSURE = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=300)
at.switch_page("pages/playground.py")
at.run()
assert not at.exception, at.exception
assert at.title[0].value == "Playground"
print(json.dumps(sorted(m for m in sys.modules if m == "cae" or m.startswith("cae."))))
"""


def playground_closure():
    """The ``cae`` modules imported when the Playground is drawn in a fresh process (outside a class)."""
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _CLOSURE, str(ROOT / "app.py")], capture_output=True, text=True, timeout=600, check=True
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_playground_imports_only_what_it_draws():
    """Drawing the Playground imports neither the classroom's stores (only a session in a class needs them), nor
    the noise study or the experiments (the study's sentence is read by ``cae.app.noise_note``)."""
    closure = playground_closure()
    assert "cae.app.stepper" in closure and "cae.app.figures" in closure  # it did draw the run
    unwanted = {m for m in closure if m.startswith(("cae.classroom", "cae.experiments"))}
    assert unwanted == set()

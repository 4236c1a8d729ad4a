import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
# The project's reference files (its specification, golden traces, the paper's text and a copy of the paper's
# datasets), kept outside the repository in a folder "shared" beside it; $CAE_TEST_SHARED names another. A clone
# has none: CAE_TEST_SHARED=none (or any folder that does not exist) runs the suite as it runs there. The paper's
# datasets are also found where `python -m cae.data fetch` saves them (the per-user data folder).
SHARED = Path(os.environ.get("CAE_TEST_SHARED") or ROOT.parent / "shared")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: how to get the project's reference files, for the skip messages
REFERENCE_HOWTO = (
    "the project's reference files (its specification, golden traces and the paper's text) are not in the "
    "repository: set CAE_TEST_SHARED to the folder that holds them (spec/, golden/, paper/, data/, datasets/)"
)


def fetched_folder():
    """Where ``python -m cae.data fetch`` saved the paper's datasets for the user who runs the tests
    (``$CAE_EXPLORER_DATA``, else the per-user data folder, as it was before the session got its own home:
    ``CAE_TEST_FETCHED``, read only); nothing is created."""
    if os.environ.get("CAE_TEST_FETCHED"):
        return Path(os.environ["CAE_TEST_FETCHED"])
    from cae.data.fetch import default_folder

    return default_folder()


@dataclass(frozen=True)
class OwnHome:
    """The session's own folders (the repository's conftest.py makes them before anything runs)."""

    base: Path  # everything below is in it, and goes at the end of the session
    home: Path  # $HOME
    data: Path  # $XDG_DATA_HOME: where the classroom's file and fetched datasets go without a setting
    kernel_cache: Path  # the one per-user folder the session writes: the compiled kernels (CAE_EXPLORER_CACHE)


@pytest.fixture(scope="session", autouse=True)
def own_home():
    """The test session's own HOME, XDG folders and data folder: the suite never reads or writes the user's
    files (a class file, fetched data, settings). Checked before the first test and after the last: a test that
    points HOME elsewhere for good, or a run without the repository's conftest.py, fails here."""

    def check():
        base = os.environ.get("CAE_TEST_HOME")
        assert base, "the session has no home of its own (the repository's conftest.py makes it)"
        for var in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            assert Path(os.environ[var]).is_relative_to(base), f"${var} left the session's home: {os.environ[var]}"
        assert not os.environ.get("CAE_EXPLORER_DATA") and not os.environ.get("CAE_CLASSROOM_URL")
        return OwnHome(
            Path(base),
            Path(os.environ["HOME"]),
            Path(os.environ["XDG_DATA_HOME"]),
            Path(os.environ["CAE_EXPLORER_CACHE"]),
        )

    folders = check()
    yield folders
    assert check() == folders


def _paper_data(parts):
    """Where the paper's dataset ``parts`` (under ../shared) may also be, once fetched, and how to fetch it;
    None for a reference file."""
    from cae.data import fetch as F

    if len(parts) == 2 and parts[0] == "datasets" and parts[1].endswith(".csv"):
        stem = parts[1][: -len(".csv")]
        if stem in F.PAPER_DATASETS:
            return fetched_folder() / parts[1], f"python -m cae.data fetch --names {stem}"
    if tuple(parts) == ("data", F.PAPER2D_FILE):
        return F.authors_2d_path(fetched_folder()), f"python -m cae.data fetch --names {F.AUTHORS_2D.stem}"
    return None


def shared_path(*parts):
    """One of the paper's datasets or a reference file (a path under $CAE_TEST_SHARED, by default ../shared);
    else the paper's dataset where ``python -m cae.data fetch`` saved it; else skip, saying how to get it."""
    p = SHARED.joinpath(*parts)
    if p.exists():
        return p
    data = _paper_data(parts)
    if data is None:
        pytest.skip(f"needs {'/'.join(parts)}: {REFERENCE_HOWTO}")
    fetched, command = data
    if fetched.exists():
        return fetched
    pytest.skip(f"needs {fetched.name}, one of the paper's datasets: run `{command}` (it saves to {fetched.parent})")


def paper_datasets_folder():
    """A folder with every one of the paper's 12 datasets and the authors' 2-D file (``data/`` under
    $CAE_TEST_SHARED, or the fetched folder's ``paper2d/``): ``(datasets folder, folder of the 2-D file)``;
    skip, saying how to get them, when neither holds all of them."""
    from cae.data import fetch as F

    candidates = [
        (SHARED / "datasets", SHARED / "data"),
        (fetched_folder(), F.authors_2d_path(fetched_folder()).parent),
    ]
    for folder, data in candidates:
        if all((folder / d.filename).exists() for d in F.PAPER_DATASETS.values()) and (data / F.PAPER2D_FILE).exists():
            return folder, data
    pytest.skip(
        f"needs all of the paper's datasets: run `python -m cae.data fetch` (it saves them to {fetched_folder()})"
    )


def load_golden_input(case_dir):
    raw = np.genfromtxt(Path(case_dir) / "input.csv", delimiter=",", names=True)
    names = [n for n in raw.dtype.names if n != "label"]
    X = np.column_stack([raw[n] for n in names]).astype(float)
    return X, raw["label"].astype(int)


def pytest_sessionstart(session):
    """Use the compiled kernels throughout: start (or find) the background compilation and wait for it.

    On a machine whose cache is warm this returns at once; on a fresh one it waits for the one
    background compilation (docs/performance.md, *A fresh machine*, gives how long it takes). The
    un-jitted path and the switch are tested in subprocesses of their own (tests/unit/test_coldstart.py,
    the tests with CAE_DISABLE_NUMBA).
    """
    from cae import _jit

    if _jit.MODE == "auto":
        state = _jit.prepare(wait_seconds=1800)
        if state != "compiled":
            import warnings

            warnings.warn(
                f"the compiled kernels are not in use ({state}): the tests run un-jitted, slowly", stacklevel=1
            )


def model_file_parts(model):
    """The members of a model's ``.npz`` file (name -> bytes), to tamper with in tests."""
    import io
    import zipfile

    buf = io.BytesIO()
    model.save(buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        return {n: z.read(n) for n in z.namelist()}


def rewrite_model_file(parts, meta=None, arrays=None):
    """A model file from ``parts`` with the metadata (a dict) or some ``state_`` arrays replaced."""
    import io
    import json
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n, data in parts.items():
            b = io.BytesIO()
            key = n[len("state_") : -4]
            if n == "meta_json.npy" and meta is not None:
                np.save(b, np.array(json.dumps(meta)))
                data = b.getvalue()
            elif arrays and key in arrays:
                np.save(b, arrays[key])
                data = b.getvalue()
            z.writestr(n, data)
    out.seek(0)
    return out


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    """A real `redis-server` on a free port for a module's tests (skipped, with the reason, where it is absent)."""
    from support.servers import RedisServer, redis_binary

    if redis_binary() is None:
        pytest.skip("redis-server is not installed here (.ci/run installs Debian's redis-server)")
    pytest.importorskip("redis", reason="redis-py is not installed (pip install -e .)")
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


# ------------------------------------------------------------------ the real-browser tests (tests/browser)
class ServedURL(str):
    """A server's URL; ``store`` is the URL of its classroom store."""

    store = ""


@pytest.fixture(scope="module")
def classroom_server(tmp_path_factory):
    """A fresh `streamlit run app.py` with a classroom store of its own (SQLite in a temporary folder), for a
    module's browser tests: its URL, with the store's URL as ``.store``."""
    from support.browser import _start_server, _stop

    store = "sqlite:///" + str(tmp_path_factory.mktemp("classroom") / "classroom.sqlite3")
    proc, url = _start_server(env=dict(os.environ, CAE_CLASSROOM_URL=store))
    served = ServedURL(url)
    served.store = store
    yield served
    _stop(proc)


@pytest.fixture(scope="module")
def server():
    """A fresh `streamlit run app.py` for a module's browser tests; its URL. (One for the whole session was
    tried: it stopped serving pages part way through a run of the suite — its output pipe was full, since fixed in
    ``support.browser._start_server`` — and every later test timed out.)
    """
    from support.browser import _start_server, _stop

    proc, url = _start_server()
    yield url
    _stop(proc)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium through playwright (skipped, with the reason, where either is missing)."""
    from support.browser import chromium

    with chromium() as b:
        yield b


# ------------------------------------------------------------------ the classroom's stores and pages
@pytest.fixture(params=["sqlite", "redis"])
def make_store(request, tmp_path):
    """A factory of stores of one backend that share their data: make_store(limits=...)."""
    from cae.classroom import open_store

    if request.param == "sqlite":
        path = tmp_path / "classroom.sqlite3"
        url = "sqlite:///" + str(path)
        made = []

        def make(limits=None):
            s = open_store(url, limits=limits)
            made.append(s)
            return s

        make.url, make.backend, make.prefix = url, "sqlite", "cae"
        yield make
        for s in made:
            s.close_connection()
    else:
        server = request.getfixturevalue("redis_server")
        prefix = "t" + uuid.uuid4().hex[:10]

        def make(limits=None):
            return open_store(server.url, limits=limits, prefix=prefix)

        make.url, make.backend, make.prefix, make.server = server.url, "redis", prefix, server
        yield make


@pytest.fixture
def store(make_store):
    return make_store()


@pytest.fixture
def classroom(tmp_path, monkeypatch):
    monkeypatch.setenv("CAE_CLASSROOM_URL", "sqlite:///" + str(tmp_path / "classroom.sqlite3"))
    monkeypatch.setenv("CAE_CLASSROOM_POLL_SHARE", "0")  # each page reads the store: no 0.25 s to wait for
    from support.classroom import _session

    teacher = _session()
    teacher.button(key="b_room_start").click().run()
    assert not teacher.exception
    code = teacher.session_state.room_code
    return teacher, code


# ------------------------------------------------------------------ what a failed browser test's pages showed
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """When a real-browser test fails, keep what each of its open pages showed at that moment: a screenshot
    (``test-output/screenshots/FAILED_<test>_<n>.png``) and the page's address and first lines of text in the
    report, so that a failure on a CI machine says what the page was doing, not only what was awaited."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or "browser" not in item.keywords:
        return
    browser = item.funcargs.get("browser")
    if browser is None:
        return
    from support.browser import SHOTS

    said = []
    try:
        pages = [p for c in browser.contexts for p in c.pages]
        for n, p in enumerate(pages):
            name = f"FAILED_{item.name}_{n}"[:150].replace("/", "_")
            SHOTS.mkdir(parents=True, exist_ok=True)
            p.screenshot(path=str(SHOTS / f"{name}.png"), timeout=10000)
            text = p.evaluate(  # the main area's text (the sidebar's navigation and controls say little)
                "() => { const m = document.querySelector(\"[data-testid='stMain']\") || document.body;"
                " return m ? m.innerText : '' }"
            )
            state = p.evaluate(
                "() => { const a = document.querySelector(\"[data-testid='stApp']\");"
                " return a ? a.getAttribute('data-test-script-state') : 'no app' }"
            )
            side = p.evaluate(  # the sidebar's controls, with the values of its boxes (innerText leaves them out)
                "() => { const s = document.querySelector(\"[data-testid='stSidebar']\"); if (!s) return '(no sidebar)';"
                " const boxes = [...s.querySelectorAll('input')].filter(i => i.type !== 'checkbox' && i.type !== 'radio')"
                ".map(i => (i.getAttribute('aria-label') || i.closest('[class*=st-key-]')?.className.match(/st-key-\\S+/)?.[0]"
                " || '?') + ' = ' + JSON.stringify(i.value));"
                " return 'width ' + Math.round(s.getBoundingClientRect().width) + ' px\\n' + boxes.join('\\n') }"
            )
            lines = [ln for ln in text.splitlines() if ln.strip()][:60]
            said.append(
                f"page {n}: {p.url} (script state: {state}; screenshot {name}.png)\n"
                + "\n".join(lines)
                + f"\n-- sidebar --\n{side}"
            )
    except Exception as exc:  # the page may be gone with the failure: say so, never hide the test's own error
        said.append(f"(the pages could not be read after the failure: {exc})")
    if said:
        report.sections.append(("what the open pages showed", "\n\n".join(said)))

"""Collection rules for the whole repository (tests/ and the doctests of cae/), and the test session's own home.

The suite never reads or writes the user's files: before anything is collected (module-level code reads the
per-user folders when it is imported), :func:`pytest_configure` points ``HOME`` and the XDG folders at a
throw-away folder of the session and unsets the two settings that name the user's files,
``CAE_EXPLORER_DATA`` and ``CAE_CLASSROOM_URL``; everything the tests start (app servers, the CLI) inherits
it. Two per-user folders are still read, each for a reason and named explicitly: the kernel cache
(``CAE_EXPLORER_CACHE``: the compiled kernels of this very code, which a fresh folder would compile again for
minutes), and the paper's datasets ``python -m cae.data fetch`` saved (``CAE_TEST_FETCHED``, read only).
``tests/conftest.py``'s session fixture ``own_home`` hands the folders to the tests and checks they are in use.
"""

import importlib.util
import os
import shutil
import tempfile

# cae.integrations.river needs the optional River extra; without it its doctests are not collected
# (tests/unit/test_river.py skips itself, with the reason). The test extra installs River, so CI runs them.
collect_ignore = [] if importlib.util.find_spec("river") else ["cae/integrations/river.py"]
# a throw-away algorithm's modules, copied into cae/algorithms of a copy of the repository by
# tests/unit/test_adding_an_algorithm.py (their relative imports work only there)
collect_ignore.append("tests/fixtures/new_algorithm")

#: the settings that name the user's files: unset for the session (tests that need one set their own)
USER_SETTINGS = ("CAE_EXPLORER_DATA", "CAE_CLASSROOM_URL")


def pytest_configure(config):
    """Give the session its own HOME, XDG folders and data folder (see the module docstring)."""
    if os.environ.get("CAE_TEST_HOME"):  # a run of the suite inside the suite: its parent's home is its own
        return
    from cae import _paths

    cache = _paths.first_writable(_paths.cache_candidates("numba", env=("CAE_EXPLORER_CACHE", "NUMBA_CACHE_DIR")))
    fetched = _paths.user_data_dir(create=False)
    base = tempfile.mkdtemp(prefix="cae-tests-home-")
    home = os.path.join(base, "home")
    new = {
        "HOME": home,
        "XDG_DATA_HOME": os.path.join(home, ".local", "share"),
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "XDG_STATE_HOME": os.path.join(home, ".local", "state"),
        "CAE_EXPLORER_CACHE": cache,
        "NUMBA_CACHE_DIR": cache,
        "CAE_TEST_HOME": base,
        "CAE_TEST_FETCHED": fetched,
    }
    for d in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        os.makedirs(new[d], exist_ok=True)
    saved = {k: os.environ.get(k) for k in [*new, *USER_SETTINGS]}
    for k in USER_SETTINGS:
        os.environ.pop(k, None)
    os.environ.update(new)

    def restore():
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(base, ignore_errors=True)

    config.add_cleanup(restore)


#: the tests that run one at a time on a worker of their own, beside the rest on the other (pyproject's addopts:
#: ``-n 2``): the real-browser tests, which each drive Chromium and an app server, and the floods of a real server
#: that compare timings; two of them side by side on a 2-core machine (load 7-10) failed 12 tests of a run (pages
#: not loaded in 90 s, a slider's run lost), while one of them beside the other tests holds
SEQUENTIAL = "browser, one at a time"
SEQUENTIAL_FILES = ("tests/unit/test_slides.py", "tests/app/test_rerun_limit.py")


def work_unit(nodeid):
    """The unit of work a worker takes whole: a test file, or :data:`SEQUENTIAL` for the tests that share one.

    >>> work_unit("tests/browser/test_browser.py::test_play"), work_unit("tests/unit/test_core.py::test_x[a::b]")
    ('browser, one at a time', 'tests/unit/test_core.py')
    """
    path = nodeid.split("::", 1)[0]
    return SEQUENTIAL if path.startswith("tests/browser/") or path in SEQUENTIAL_FILES else path


def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's scheduling by scope, with :func:`work_unit` as the scope (its ``--dist loadgroup`` would do
    it with markers, but under pytest 9.2 it cannot: it renames a test's ``_nodeid``, which pytest no longer reads)."""
    from xdist.scheduler import LoadScopeScheduling

    class ByWorkUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return work_unit(nodeid)

    return ByWorkUnit(config, log)

"""The test suite runs in a home of its own and leaves the user's files alone; a setting a user types wins.

A class file planted in a throw-away user's data folder (``~/.local/share/cae-explorer/classroom.sqlite3``, a
real class) stays byte for byte and second for second as it was after a run of the suite in that home, and
nothing new appears there: the run's tests open the default classroom store, and the two tests that once
failed when the user had opened a class (their setting lost to the folder that held the class, and they wrote
the user's file) pass.
"""

import hashlib
import os
from pathlib import Path

from support.runs import pytest_run

from cae import _paths
from cae.classroom import classes_elsewhere, default_sqlite_choice, default_sqlite_path, open_store
from cae.classroom.sqlite import SQLiteStore
from cae.data.fetch import default_folder

#: the tests a run in the planted home runs: the default store, and the two that once failed there
IN_THE_PLANTED_HOME = [
    "tests/unit/test_own_home.py::test_the_default_classroom_store_is_the_sessions",
    "tests/unit/test_classroom_store.py::"
    "test_classroom_sqlite_has_no_mapped_journal_and_the_default_lives_in_the_data_folder",
    "tests/unit/test_classroom_survival.py::test_classroom_sqlite_read_only_mount_keeps_its_file_and_says_why",
]


def test_the_suite_runs_in_a_home_of_its_own(own_home):
    assert Path(os.path.expanduser("~")) == own_home.home and own_home.home.is_relative_to(own_home.base)
    assert default_sqlite_path().is_relative_to(own_home.base)
    assert default_folder().is_relative_to(own_home.base)
    assert Path(_paths.user_data_dir(create=False)).is_relative_to(own_home.base)
    # the one per-user folder kept: the compiled kernels of this code
    from cae import _jit

    assert Path(_jit.cache_dir()) == own_home.kernel_cache


def test_the_default_classroom_store_is_the_sessions(own_home):
    """Without a setting, the classroom's file is in the session's data folder, never the user's."""
    store = open_store()
    try:
        assert isinstance(store, SQLiteStore) and store.path == own_home.data / "cae-explorer" / "classroom.sqlite3"
        store.create_room()
        assert store.path.exists()
    finally:
        store.close_connection()


def _tree(folder):
    """Every file under ``folder``: path -> (size, mtime in ns, SHA-256)."""
    out = {}
    for p in sorted(Path(folder).rglob("*")):
        if p.is_file():
            st = p.stat()
            out[p.relative_to(folder).as_posix()] = (
                st.st_size,
                st.st_mtime_ns,
                hashlib.sha256(p.read_bytes()).hexdigest(),
            )
    return out


def test_a_class_file_in_the_users_home_is_left_untouched(tmp_path, own_home):
    home = tmp_path / "someone"
    planted = home / ".local" / "share" / "cae-explorer" / "classroom.sqlite3"
    planted.parent.mkdir(parents=True)
    store = SQLiteStore(planted)
    code, token = store.create_room()
    store.publish(code, token, {"t": "7"})
    store.join(code, "Ada")
    store.close_connection()
    os.utime(planted, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))  # a class from 2001
    before = _tree(home)
    # the user's environment: that home, no per-user folder set, the settings the tests once lost to the class
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CAE_TEST_", "NUMBA_"))}
    env.update(HOME=str(home), CAE_EXPLORER_CACHE=str(own_home.kernel_cache))
    for k in ("CAE_EXPLORER_DATA", "CAE_CLASSROOM_URL"):
        env.pop(k, None)
    run = pytest_run(*IN_THE_PLANTED_HOME, "-q", "-rs", env=env, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout, run.stdout[-2000:]
    assert _tree(home) == before, "the run wrote in the user's home"
    assert SQLiteStore(planted).poll(code).state == {"t": "7"}


def test_a_set_data_folder_wins_over_a_folder_that_holds_classes(tmp_path, monkeypatch):
    """The tests that failed once a class was opened: ``CAE_EXPLORER_DATA`` wins over the usual folder even when
    that holds a class file, and the teacher's page says where the other classes are."""
    usual = tmp_path / "xdg" / "cae-explorer"
    usual.mkdir(parents=True)
    SQLiteStore(usual / "classroom.sqlite3").create_room()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CAE_CLASSROOM_URL", raising=False)
    monkeypatch.delenv("CAE_EXPLORER_DATA", raising=False)
    assert default_sqlite_choice() == (usual / "classroom.sqlite3", None)  # without a setting: the class's folder
    assert classes_elsewhere(open_store()) is None
    monkeypatch.setenv("CAE_EXPLORER_DATA", str(tmp_path / "mine"))
    assert default_sqlite_choice() == (tmp_path / "mine" / "classroom.sqlite3", None)
    store = open_store()
    assert store.path == tmp_path / "mine" / "classroom.sqlite3"
    words = classes_elsewhere(store)
    assert str(usual / "classroom.sqlite3") in words and "CAE_EXPLORER_DATA names another folder" in words
    assert f"start the app with CAE_EXPLORER_DATA={usual}" in words
    # a store the URL names: the usual folder's classes and CAE_EXPLORER_DATA's are elsewhere
    monkeypatch.setenv("CAE_CLASSROOM_URL", "sqlite:///" + str(tmp_path / "url" / "c.sqlite3"))
    SQLiteStore(tmp_path / "mine" / "classroom.sqlite3").create_room()
    words = classes_elsewhere(open_store())
    assert str(tmp_path / "mine" / "classroom.sqlite3") in words and str(usual / "classroom.sqlite3") in words
    assert "without CAE_CLASSROOM_URL" in words


def test_a_set_data_folder_that_cannot_be_written_is_still_the_one(tmp_path, monkeypatch):
    """A setting is never passed over for a folder that works: writes fail in words, and the note says why."""
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("CAE_EXPLORER_DATA", str(blocker / "data"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    path, note = default_sqlite_choice()
    assert path == blocker / "data" / "classroom.sqlite3" and "cannot be written" in note
    assert _paths.user_data_dir() == str(blocker / "data")
    assert not (tmp_path / "xdg").exists()

"""The store's side of a class that resumes where it was: a publish that never goes over a newer state (two
devices of one teacher), a reveal that moves the class in the same write, removals that stick to the browser and
come several at once, renames the student's own page can see, limits that peek, names kept for the teacher, and
the SQLite file's folder deleted or the file made immutable (``chattr +i``, for real) while a class runs.

Every store test runs on both backends (the ``store`` fixture of tests/conftest.py: SQLite, and a real
``redis-server`` where it is installed).
"""

import os
import shutil
import sqlite3
import time

import pytest
from support.classroom import chattr as _chattr

from cae.classroom import client_key, trusted_proxies
from cae.classroom.sqlite import SQLiteStore
from cae.classroom.store import BadInput, Conflict, NotTeacher, QuestionOpen, Removed, Stale, StoreUnavailable

STATE = {"stream": "moons", "n": "250", "noise": "0", "seed": "1", "algo": "CAE", "t": "12"}


def _at(t):
    return dict(STATE, t=str(t))


# ------------------------------------------------------------------ two devices: never backwards
def test_classroom_publish_with_expect_refuses_a_state_older_than_the_store(store):
    code, token = store.create_room()
    store.publish(code, token, _at(10))
    # device A saw t = 10 and steps to 11: accepted
    v = store.publish(code, token, _at(11), expect=_at(10))
    # device B also saw t = 10 and rewinds to 9: refused, and told what the class holds now
    with pytest.raises(Conflict) as err:
        store.publish(code, token, _at(9), expect=_at(10))
    assert err.value.state == _at(11)
    assert store.poll(code).state == _at(11) and store.poll(code).version == v
    # B stepping to 11 as A did: nothing to refuse, nothing written
    assert store.publish(code, token, _at(11), expect=_at(10)) == v
    assert store.poll(code).version == v
    # without expect, the last word wins (the teacher acted on the only device)
    store.publish(code, token, _at(5))
    assert store.poll(code).state == _at(5)
    with pytest.raises(NotTeacher):
        store.publish(code, "not the token", _at(6), expect=_at(5))


# ------------------------------------------------------------------ one question at a time, by the store
def test_classroom_ask_is_one_question_at_a_time_and_compare_and_set(store):
    code, token = store.create_room()
    store.publish(code, token, _at(12))
    q = store.ask(code, token, 13, _at(12), expect=_at(12), last=0)
    # the other device, which drew the same class, asks too: refused, and told which question is open
    with pytest.raises(QuestionOpen, match="a question is already open: question 1, about sample 13") as err:
        store.ask(code, token, 13, _at(12), expect=_at(12), last=0)
    assert err.value.question == q
    with pytest.raises(QuestionOpen):  # with nothing to compare either: one question at a time
        store.ask(code, token, 13, _at(12))
    assert [x.qid for x in store.questions(code)] == [1]
    # a stale Reveal: the first device reveals; the second, which showed it open, is told, and nothing changes
    store.reveal(code, token, q.qid, (2, False, False), state=_at(13), seen_open=True)
    v = store.poll(code).version
    with pytest.raises(Stale, match=r"question 1 was revealed already \(by another device") as err:
        store.reveal(code, token, q.qid, (1, True, True), state=_at(13), seen_open=True)
    assert err.value.question.truth == (2, False, False) and store.poll(code).version == v
    # (without it a second reveal is the same reveal, as before)
    assert store.reveal(code, token, q.qid, (1, True, True)).truth == (2, False, False)
    # a stale Ask: drawn at t = 12 with no question, after the class moved on: refused, saying the class changed
    with pytest.raises(Stale, match="the class has changed since this page was drawn") as err:
        store.ask(code, token, 13, _at(12), expect=_at(12), last=0)
    assert err.value.question.revealed and len(store.questions(code)) == 1
    with pytest.raises(Stale, match="its last question, 1, is revealed"):  # the state as drawn, another question
        store.ask(code, token, 14, _at(13), expect=_at(13), last=0)
    assert store.ask(code, token, 14, _at(13), expect=_at(13), last=1).qid == 2
    assert store.poll(code).version == v + 1


def test_classroom_two_devices_asking_at_once_open_one_question(make_store):
    """Two devices (two connections to the store) press Ask at the same moment, 20 rounds: each round exactly one
    question is opened, the other device is refused (a question is open, or the class changed), none is replaced."""
    import threading

    first, second = make_store(), make_store()
    code, token = first.create_room()
    first.publish(code, token, _at(12))
    doubles, refused = 0, []
    for r in range(20):
        p = first.poll(code)
        drawn = (p.state, p.question.qid if p.question else 0)  # what both devices drew
        gate, got = threading.Barrier(2), {}

        def press(store, who, drawn=drawn, gate=gate, got=got):
            gate.wait()
            try:
                got[who] = store.ask(code, token, 13 + r, _at(12 + r), expect=drawn[0], last=drawn[1])
            except Stale as exc:
                got[who] = exc

        threads = [threading.Thread(target=press, args=(s, w)) for s, w in ((first, "a"), (second, "b"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        asked = [g for g in got.values() if not isinstance(g, Exception)]
        refused += [type(g).__name__ for g in got.values() if isinstance(g, Exception)]
        doubles += len(asked) - 1
        assert len(asked) == 1, got
        first.reveal(code, token, asked[0].qid, (0, False, False), state=_at(13 + r))
    qs = first.questions(code)
    assert doubles == 0 and len(qs) == 20 and [q.qid for q in qs] == list(range(1, 21))
    assert all(q.revealed for q in qs) and [q.step for q in qs] == list(range(13, 33))
    assert len(refused) == 20 and set(refused) <= {"QuestionOpen", "Stale"}


def test_classroom_reveal_moves_the_class_in_the_same_write(store):
    code, token = store.create_room()
    store.publish(code, token, _at(12))
    q = store.ask(code, token, 13, _at(12))
    v = store.poll(code).version
    with pytest.raises(NotTeacher):
        store.reveal(code, "nope", q.qid, (2, False, False), state=_at(13))
    assert store.poll(code).state == _at(12) and not store.poll(code).question.revealed
    store.reveal(code, token, q.qid, (2, False, False), state=_at(13))
    p = store.poll(code)
    assert p.question.revealed and p.state == _at(13) and p.version == v + 1
    # revealed already: nothing changes, the state neither
    store.reveal(code, token, q.qid, (1, False, False), state=_at(40))
    assert store.poll(code).state == _at(13) and store.poll(code).question.truth == (2, False, False)


# ------------------------------------------------------------------ removals, renames, limits, names
def test_classroom_removing_several_students_at_once_all_or_none_and_their_browsers_stay_out(store):
    code, token = store.create_room()
    kids = [store.join(code, f"kid{i}", holder=f"browser{i}") for i in range(4)]
    v = store.poll(code).version
    with pytest.raises(BadInput):  # one of them is not in the class: nobody is removed
        store.remove_students(code, token, [kids[0].sid, "nobody"])
    assert len(store.students(code)) == 4 and store.poll(code).version == v
    gone = store.remove_students(code, token, [kids[0].sid, kids[2].sid])
    assert sorted(gone) == ["kid0", "kid2"]
    p = store.poll(code)
    assert {kids[0].sid, kids[2].sid} <= p.removed and p.version == v + 1
    assert [s.nickname for s in store.students(code)] == ["kid1", "kid3"]
    # the browser that held a removed student's place cannot join again, under any nickname ...
    with pytest.raises(Removed, match="cannot join again"):
        store.join(code, "totally new", holder="browser0")
    # ... another browser can (and a removal without a browser bans nobody)
    assert store.join(code, "kid0", holder="browser9").nickname == "kid0"
    assert store.join(code, "someone").nickname == "someone"


def test_classroom_a_rename_is_seen_in_the_poll_only_by_its_counter(store):
    code, token = store.create_room()
    ann = store.join(code, "Ann")
    before = store.poll(code)
    store.publish(code, token, _at(3))
    assert store.poll(code).renamed == before.renamed
    store.rename_student(code, token, ann.sid, "Anna")
    after = store.poll(code)
    assert after.renamed == before.renamed + 1
    assert store.student(code, ann.sid).nickname == "Anna"


def test_classroom_allow_can_ask_without_counting(store):
    assert store.allow("guess:x", 2, 60, count=False)
    assert store.allow("guess:x", 2, 60) and store.allow("guess:x", 2, 60, count=False)
    assert store.allow("guess:x", 2, 60)
    assert not store.allow("guess:x", 2, 60, count=False)
    assert not store.allow("guess:x", 2, 60)


@pytest.mark.parametrize("name", ["Teacher", "teacher 2", "T\u0435acher", "THE TEACHER", "Admin", "prof."])
def test_classroom_names_kept_for_the_teacher_are_refused(store, name):
    code, token = store.create_room()
    with pytest.raises(BadInput, match="kept for the teacher"):
        store.join(code, name)
    ann = store.join(code, "Ann")
    with pytest.raises(BadInput, match="kept for the teacher"):
        store.rename_student(code, token, ann.sid, name)


def test_classroom_reserved_names_leave_ordinary_ones_alone(store):
    code, _ = store.create_room()
    for ok in ("Teach", "Teacher's pet", "Tim", "Mr Teacherson"):
        assert store.join(code, ok).nickname == ok


# ------------------------------------------------------------------ the client behind a proxy
def test_classroom_client_key_believes_the_header_only_from_a_named_proxy(monkeypatch):
    monkeypatch.delenv("CAE_TRUSTED_PROXIES", raising=False)
    # no proxy named: a header is noise, whoever sends it
    assert client_key("127.0.0.1", "1.1.1.1") == client_key("127.0.0.1", "2.2.2.2") == client_key("127.0.0.1")
    monkeypatch.setenv("CAE_TRUSTED_PROXIES", "127.0.0.1, 10.1.0.0/16, nonsense")
    assert trusted_proxies() == (
        [],
        [
            "CAE_TRUSTED_PROXIES entry 'nonsense' is not an address or a network (e.g. "
            "127.0.0.1 or 10.0.0.0/8): name the proxy whose X-Forwarded-For is believed"
        ],
    )
    assert client_key("127.0.0.1", "203.0.113.5") == client_key("127.0.0.1")  # a setting with nonsense trusts nothing
    monkeypatch.setenv("CAE_TRUSTED_PROXIES", "127.0.0.1, 10.1.0.0/16")
    # the proxy's own address, appended or written in place of the client's: two clients are two
    assert client_key("127.0.0.1", "203.0.113.5") != client_key("127.0.0.1", "203.0.113.6")
    assert client_key("127.0.0.1", "6.6.6.6, 203.0.113.5") == client_key("203.0.113.5")
    # a chain of named proxies is walked back to the first address that is not one of them
    assert client_key("127.0.0.1", "203.0.113.5, 10.1.2.3") == client_key("203.0.113.5")
    # a client that is not a named proxy cannot choose its key
    assert client_key("198.51.100.7", "203.0.113.5") == client_key("198.51.100.7")


# ------------------------------------------------------------------ SQLite: the folder deleted, the file immutable
def test_classroom_sqlite_folder_deleted_mid_class_is_made_again(tmp_path):
    folder = tmp_path / "data" / "cae-explorer"
    store = SQLiteStore(folder / "classroom.sqlite3")
    code, token = store.create_room()
    store.publish(code, token, _at(7))
    ann = store.join(code, "Ann")
    q = store.ask(code, token, 8, _at(7))
    store.answer(code, ann.sid, q.qid, (1, False, False))
    shutil.rmtree(tmp_path / "data")  # rm -rf of the data folder while the class runs
    assert store.poll(code).state == _at(7)  # the next call restores folder and file
    assert (folder / "classroom.sqlite3").exists()
    assert "its folder were deleted" in store.notices()[-1][1] and "Nothing was lost" in store.notices()[-1][1]
    store.answer(code, store.join(code, "Bo").sid, q.qid, (2, False, False))
    assert [a.nickname for a in SQLiteStore(folder / "classroom.sqlite3").answers(code, q.qid)] == ["Ann", "Bo"]


def _write_cut_by_chattr(path, code):
    """A write that fails as it commits, because the file was made immutable meanwhile (``chattr +i`` between
    the write's start and its commit: what no check before a write can prevent). It leaves its rollback journal,
    which cannot be rolled back into the immutable file. Returns the journal's size."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode = TRUNCATE")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("UPDATE rooms SET state = ? WHERE code = ?", ('{"t":"999"}', code))
    _chattr("+i", path)
    with pytest.raises(sqlite3.Error):
        conn.execute("COMMIT")
    try:
        conn.close()
    except sqlite3.Error:
        pass
    return os.path.getsize(path.with_name(path.name + "-journal"))


def test_classroom_sqlite_immutable_file_refuses_writes_in_words_and_reads_go_on(tmp_path):
    path = tmp_path / "classroom.sqlite3"
    store = SQLiteStore(path)
    code, token = store.create_room()
    store.publish(code, token, _at(7))
    ann = store.join(code, "Ann")
    _chattr("+i", path)
    try:
        with pytest.raises(StoreUnavailable, match="its file is read-only on the server") as err:
            store.publish(code, token, _at(8))
        assert str(path) not in str(err.value) and "immutable" in err.value.detail
        journal = path.with_name(path.name + "-journal")
        assert not journal.exists() or journal.stat().st_size == 0  # the write never began
        assert store.poll(code).state == _at(7) and store.student(code, ann.sid).nickname == "Ann"
        assert SQLiteStore(path).poll(code).state == _at(7)  # another process reads it too
    finally:
        _chattr("-i", path)
    assert store.publish(code, token, _at(8), expect=_at(7))
    assert SQLiteStore(path).poll(code).state == _at(8)


def test_classroom_sqlite_reads_go_on_past_a_journal_that_cannot_be_rolled_back(tmp_path):
    path = tmp_path / "classroom.sqlite3"
    store = SQLiteStore(path)
    code, token = store.create_room()
    store.publish(code, token, _at(7))
    store.close_connection()
    assert _write_cut_by_chattr(path, code) > 0  # a failed write's journal, and the file immutable
    try:
        for reader in (store, SQLiteStore(path)):  # this process, and one that starts now
            assert reader.poll(code).state == _at(7)
            assert reader.epoch()
            with pytest.raises(StoreUnavailable, match="read-only"):
                reader.publish(code, token, _at(8))
        # a plain SQLite connection cannot even read it: the reason for the read path above
        with pytest.raises(sqlite3.Error):
            sqlite3.connect(str(path)).execute("SELECT COUNT(*) FROM rooms").fetchone()
    finally:
        _chattr("-i", path)
    time.sleep(0.01)
    assert store.poll(code).state == _at(7)  # SQLite rolls the journal back itself: the file as it was
    store.publish(code, token, _at(8))
    assert SQLiteStore(path).poll(code).state == _at(8)
    assert os.path.getsize(path.with_name(path.name + "-journal")) == 0

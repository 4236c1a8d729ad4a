"""A class that survives its room: the store's failures made for real (a deleted or replaced SQLite file, a
full tmpfs, a read-only bind mount, a Redis killed and restarted with and without persistence), and the
teacher's tools against a prankster (token rotation, lock, remove, rename, one browser per student, limits).

The filesystem conditions need root (``mount``); they skip, with the reason, where mounting is not allowed.
"""

import os
import subprocess
import sys
import textwrap
import time
import uuid

import pytest
from conftest import ROOT
from support.servers import RedisServer, redis_binary

from cae.classroom import client_key, default_sqlite_choice, limits_from_env, open_store
from cae.classroom.sqlite import SQLiteStore
from cae.classroom.store import (
    BadInput,
    LimitReached,
    Limits,
    Locked,
    NotTeacher,
    Removed,
    RoomNotFound,
    StoreUnavailable,
)

STATE = {"stream": "moons", "n": "250", "noise": "0", "seed": "1", "algo": "CAE", "t": "12"}


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = open_store("sqlite:///" + str(tmp_path / "classroom.sqlite3"))
        yield s
        s.close_connection()
    else:
        server = request.getfixturevalue("redis_server")
        yield open_store(server.url, prefix="s" + uuid.uuid4().hex[:10])


def _class(store, n=3):
    code, token = store.create_room()
    store.publish(code, token, STATE)
    kids = [store.join(code, f"kid{i}") for i in range(n)]
    q = store.ask(code, token, 13, STATE)
    for k in kids:
        store.answer(code, k.sid, q.qid, (2, False, False))
    return code, token, kids, q


def _mount(*args):
    r = subprocess.run(["mount", *args], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount here ({r.stderr.strip()[:120]}): the filesystem faults need root")


# ------------------------------------------------------------------ the teacher's tools
def test_classroom_rotated_teacher_link_stops_the_old_one(store):
    code, token, _, _ = _class(store)
    new = store.rotate_token(code, token)
    assert new != token and len(new) >= 43
    assert store.is_teacher(code, new) and not store.is_teacher(code, token)
    with pytest.raises(NotTeacher):
        store.publish(code, token, {"t": "1"})
    with pytest.raises(NotTeacher):
        store.rotate_token(code, token)
    assert store.publish(code, new, {"t": "1"}) > 0


def test_classroom_locked_class_refuses_new_students_only(store):
    code, token, kids, q = _class(store)
    with pytest.raises(NotTeacher):
        store.lock(code, "nope")
    store.lock(code, token)
    assert store.poll(code).locked and store.room(code).locked
    with pytest.raises(Locked, match="locked"):
        store.join(code, "latecomer")
    # who is in stays in: their presence and answers go on
    assert store.touch(code, kids[0].sid).ok
    store.lock(code, token, locked=False)
    assert not store.poll(code).locked
    assert store.join(code, "latecomer").nickname == "latecomer"


def test_classroom_removed_student_is_told_and_their_answers_go(store):
    code, token, kids, q = _class(store)
    v = store.poll(code).version
    store.remove_student(code, token, kids[1].sid)
    p = store.poll(code)
    assert kids[1].sid in p.removed and p.version > v
    assert [s.nickname for s in store.students(code)] == ["kid0", "kid2"]
    assert {a.nickname for a in store.answers(code, q.qid)} == {"kid0", "kid2"}
    for call in (
        lambda: store.touch(code, kids[1].sid),
        lambda: store.claim(code, kids[1].sid, "browser"),
        lambda: store.answer(code, kids[1].sid, q.qid, (1, False, False)),
    ):
        with pytest.raises(Removed):
            call()
    with pytest.raises(BadInput):
        store.remove_student(code, token, "nobody")
    with pytest.raises(NotTeacher):
        store.remove_student(code, "nope", kids[0].sid)
    # the nickname is free again, and the seat
    assert store.join(code, "kid1").nickname == "kid1"


def test_classroom_rename_keeps_the_student_and_their_answers(store):
    code, token, kids, q = _class(store)
    s = store.rename_student(code, token, kids[0].sid, "  Ada  ")
    assert s.sid == kids[0].sid and s.nickname == "Ada"
    assert store.student(code, kids[0].sid).nickname == "Ada"
    assert [a.nickname for a in store.answers(code, q.qid)][0] == "Ada"
    # another's name is suffixed, the old name is free
    assert store.rename_student(code, token, kids[1].sid, "ada").nickname == "ada 2"
    assert store.join(code, "kid0").nickname == "kid0"
    with pytest.raises(NotTeacher):
        store.rename_student(code, "nope", kids[0].sid, "x")


def test_classroom_a_student_link_in_a_second_browser_asks_before_taking_over(store):
    code, token, kids, q = _class(store, n=1)
    sid = kids[0].sid
    now = time.time()
    assert store.claim(code, sid, "phone", now=now).ok
    assert store.touch(code, sid, now=now + 1, holder="phone").ok
    other = store.claim(code, sid, "laptop", now=now + 3)
    assert not other.ok and other.other_age == pytest.approx(2, abs=0.01)
    assert store.touch(code, sid, now=now + 4, holder="phone").ok  # the first keeps it meanwhile
    assert store.claim(code, sid, "laptop", force=True, now=now + 5).ok
    told = store.touch(code, sid, now=now + 6, holder="phone")
    assert not told.ok  # the first is told
    # a holder silent for CLAIM_SECONDS gives way without asking (a phone that went to sleep)
    assert store.claim(code, sid, "phone", now=now + 60).ok
    with pytest.raises(BadInput):
        store.claim(code, "unknown", "x")


def test_classroom_rate_limits_and_classes_per_client(tmp_path):
    lim = Limits(rooms_per_client=2)
    store = open_store("sqlite:///" + str(tmp_path / "c.sqlite3"), limits=lim)
    me, you = client_key("10.0.0.7"), client_key("10.0.0.8")
    store.create_room(owner=me)
    code, token = store.create_room(owner=me)
    with pytest.raises(LimitReached, match="2 classes are open from this address"):
        store.create_room(owner=me)
    store.create_room(owner=you)  # another client is not counted
    store.close(code, token)
    store.create_room(owner=me)  # an ended class frees its place
    now = 1e9
    assert [store.allow("start:" + me, 3, 60, now=now + k) for k in range(5)] == [True] * 3 + [False] * 2
    assert store.allow("start:" + you, 3, 60, now=now + 5)
    assert store.allow("start:" + me, 3, 60, now=now + 61)  # a new window
    assert limits_from_env({"CAE_CLASSROOM_ROOMS_PER_CLIENT": "7"}).rooms_per_client == 7


def test_classroom_rate_limit_in_redis(redis_server):
    store = open_store(redis_server.url, prefix="r" + uuid.uuid4().hex[:8], limits=Limits(rooms_per_client=1))
    assert [store.allow("join:x", 2, 60) for _ in range(4)] == [True, True, False, False]
    code, token = store.create_room(owner="me")
    with pytest.raises(LimitReached, match="from this address"):
        store.create_room(owner="me")
    store.close(code, token)
    store.create_room(owner="me")


# ------------------------------------------------------------------ SQLite: the file deleted or replaced
def _wipe(folder):
    for p in folder.iterdir():
        if p.name.startswith("classroom.sqlite3"):
            p.unlink()


def test_classroom_sqlite_file_deleted_mid_class_is_restored_for_every_process(tmp_path):
    path = tmp_path / "classroom.sqlite3"
    teacher_side, student_side = SQLiteStore(path), SQLiteStore(path)  # two app processes' stores
    code, token, kids, q = _class(teacher_side, n=42)
    assert len(student_side.answers(code, q.qid)) == 42
    epoch = teacher_side.epoch()
    _wipe(tmp_path)  # a clean-up script
    assert not path.exists()
    # the students' process notices on its next call and restores the file from its open copy
    assert len(student_side.answers(code, q.qid)) == 42
    assert path.exists() and student_side.epoch() == epoch
    assert "restored" in student_side.notices()[-1][1] and "Nothing was lost" in student_side.notices()[-1][1]
    # the teacher's process follows the restored file: its writes reach the students' process
    teacher_side.publish(code, token, {**STATE, "t": "40"})
    assert student_side.poll(code).state["t"] == "40"
    # a process started now (a restart) sees the whole class, and a class started later is joined across both
    restarted = SQLiteStore(path)
    assert len(restarted.answers(code, q.qid)) == 42 and restarted.epoch() == epoch
    later, _ = restarted.create_room()
    assert teacher_side.join(later, "Ann").nickname == "Ann"
    assert [s.nickname for s in student_side.students(later)] == ["Ann"]


def test_classroom_sqlite_file_replaced_by_a_new_store_receives_the_running_class(tmp_path):
    path = tmp_path / "classroom.sqlite3"
    old = SQLiteStore(path)
    code, token, kids, q = _class(old, n=5)
    _wipe(tmp_path)
    fresh = SQLiteStore(path)  # a process restarted before anyone noticed: a new, empty store
    other, other_token = fresh.create_room()
    assert fresh.epoch() != old._store_id
    # the old process's next call moves its class into the new file
    assert len(old.answers(code, q.qid)) == 5
    assert "moved its 1 class" in old.notices()[-1][1]
    assert len(fresh.answers(code, q.qid)) == 5 and fresh.room(code).version == old.room(code).version
    assert old.room(other).code == other  # and sees the new file's class
    old.publish(code, token, {"t": "99"})
    assert fresh.poll(code).state == {"t": "99"}


def test_classroom_sqlite_deleted_file_in_a_read_only_folder_refuses_writes_in_words(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "classroom.sqlite3"
    store = SQLiteStore(path)
    code, token, kids, q = _class(store, n=2)
    _wipe(folder)
    _mount("--bind", str(folder), str(folder))
    try:
        _mount("-o", "remount,bind,ro", str(folder))
        # reads go on from the open copy (also after the 2 s between restore attempts) ...
        assert len(store.answers(code, q.qid)) == 2
        assert "cannot be written again" in store.notices()[-1][1]
        time.sleep(2.1)
        assert len(store.answers(code, q.qid)) == 2 and store.poll(code).state == STATE
        # ... and writes are refused in words (never made into a deleted file): no path for students
        with pytest.raises(StoreUnavailable, match="deleted on the server") as err:
            store.publish(code, token, {"t": "2"})
        assert str(path) not in str(err.value) and str(path) in err.value.detail
        assert not path.exists()
    finally:
        subprocess.run(["umount", str(folder)], check=False)
    # writable again: the next call restores the file, nothing lost
    time.sleep(2.1)
    assert len(store.answers(code, q.qid)) == 2 and path.exists()
    store.publish(code, token, {"t": "3"})
    assert SQLiteStore(path).poll(code).state == {"t": "3"}


def test_classroom_sqlite_read_only_mount_keeps_its_file_and_says_why(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("CAE_EXPLORER_DATA", str(data))
    monkeypatch.delenv("CAE_CLASSROOM_URL", raising=False)
    store = open_store()
    code, token, kids, q = _class(store, n=3)
    store.close_connection()
    _mount("--bind", str(data), str(data))
    try:
        _mount("-o", "remount,bind,ro", str(data))
        # a process started now keeps the file that holds the class (not the next folder), and says why
        path, note = default_sqlite_choice()
        assert path == data / "classroom.sqlite3" and "cannot be written" in note
        ro = open_store()
        assert ro.path == path and "cannot be written" in ro.location
        assert len(ro.answers(code, q.qid)) == 3 and ro.poll(code).state == STATE
        with pytest.raises(StoreUnavailable, match="read-only") as err:
            ro.join(code, "Bo")
        assert str(data) not in str(err.value)
        with pytest.raises(StoreUnavailable):
            ro.answer(code, kids[0].sid, q.qid, (1, False, False))
        ro.close_connection()
    finally:
        subprocess.run(["umount", str(data)], check=False)


FULL_DISK = textwrap.dedent(
    """
    import os, sys
    from cae.classroom.sqlite import SQLiteStore
    from cae.classroom.store import StoreUnavailable
    folder = sys.argv[1]
    store = SQLiteStore(os.path.join(folder, "classroom.sqlite3"))
    code, token = store.create_room()
    store.publish(code, token, {"t": "1"})
    kids = [store.join(code, f"k{i}") for i in range(20)]
    q = store.ask(code, token, 2, {"t": "1"})
    for k in kids[:10]:
        store.answer(code, k.sid, q.qid, (1, False, False))
    store.close_connection()  # the server restarts
    try:  # the disk fills up
        with open(os.path.join(folder, "filler"), "wb") as f:
            while True:
                f.write(b"x" * 65536)
                f.flush()
    except OSError:
        pass
    store = SQLiteStore(os.path.join(folder, "classroom.sqlite3"))
    print("read", store.poll(code).state["t"], len(store.answers(code, q.qid)), flush=True)
    refused = 0
    for k in kids[10:]:
        try:
            store.answer(code, k.sid, q.qid, (2, False, False))
        except StoreUnavailable as exc:
            refused += 1
            words = str(exc)
    print("refused", refused, words, flush=True)
    print("read", len(store.answers(code, q.qid)), flush=True)
    os.remove(os.path.join(folder, "filler"))  # space again: the answer goes in
    store.answer(code, kids[-1].sid, q.qid, (2, False, False))
    print("after", len(store.answers(code, q.qid)), flush=True)
    """
)


def test_classroom_sqlite_full_disk_is_an_error_in_words_never_a_dead_server(tmp_path):
    """A real tmpfs filled by the test, in a subprocess: it must exit by itself (no SIGBUS, no other
    signal), keep reading, and refuse writes with words until there is space again."""
    folder = tmp_path / "small"
    folder.mkdir()
    _mount("-t", "tmpfs", "-o", "size=512k", "tmpfs", str(folder))
    try:
        r = subprocess.run(
            [sys.executable, "-c", FULL_DISK, str(folder)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    finally:
        subprocess.run(["umount", str(folder)], check=False)
    assert r.returncode == 0, f"the store process died (exit {r.returncode}): {r.stderr[-2000:]}"
    lines = r.stdout.splitlines()
    assert lines[0] == "read 1 10"  # reading a full disk works (under WAL it was "disk I/O error")
    assert lines[1].startswith("refused 10 ") and "disk is full" in lines[1] and str(folder) not in lines[1]
    assert lines[2] == "read 10" and lines[3] == "after 11"


# ------------------------------------------------------------------ Redis killed and restarted
@pytest.mark.parametrize("persist", [True, False], ids=["with-persistence", "without-persistence"])
def test_classroom_redis_killed_and_restarted(tmp_path, persist):
    if redis_binary() is None:
        pytest.skip("redis-server is not installed here (.ci/run installs Debian's redis-server)")
    server = RedisServer(tmp_path / "redis", persist=persist)
    try:
        store = open_store(server.url, prefix="k")
        epoch = store.epoch()
        code, token, kids, q = _class(store, n=4)
        server.kill()
        with pytest.raises(StoreUnavailable) as err:
            store.poll(code)
        assert str(server.port) not in str(err.value) and "127.0.0.1" not in str(err.value)
        assert str(server.port) in err.value.detail
        server = RedisServer(tmp_path / "redis", port=server.port, persist=persist)
        if persist:
            assert store.epoch() == epoch and len(store.answers(code, q.qid)) == 4
            assert store.poll(code).state == STATE
        else:  # the class is lost, and the store knows it was reset, not ended
            with pytest.raises(RoomNotFound):
                store.poll(code)
            assert store.epoch() != epoch
    finally:
        server.stop()


STUDENTS_PROCESS = textwrap.dedent(
    """
    import sys, time
    from cae.classroom.sqlite import SQLiteStore
    path, code, qid, n, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    store = SQLiteStore(path)
    kids = [store.join(code, f"p{i}") for i in range(n)]
    for k in kids[: n // 2]:
        store.answer(code, k.sid, qid, (1, False, False))
    print("half", flush=True)
    while not __import__("os").path.exists(go):  # the file is deleted meanwhile
        time.sleep(0.05)
    for k in kids[n // 2 :]:
        store.answer(code, k.sid, qid, (3, True, False))
    print("all", len(store.answers(code, qid)), store.notices()[-1][1] if store.notices() else "-", flush=True)
    """
)


def test_classroom_sqlite_file_deleted_between_two_real_processes(tmp_path):
    """The students' answers come from another process (its own connection and locks, as a second
    `streamlit run`); the file is deleted half-way through. Every answer of both processes is in the file."""
    path = tmp_path / "classroom.sqlite3"
    teacher_side = SQLiteStore(path)
    code, token = teacher_side.create_room()
    teacher_side.publish(code, token, STATE)
    q = teacher_side.ask(code, token, 13, STATE)
    go = tmp_path / "go"
    proc = subprocess.Popen(
        [sys.executable, "-c", STUDENTS_PROCESS, str(path), code, str(q.qid), "40", str(go)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout.readline().strip() == "half"
    _wipe(tmp_path)
    go.touch()
    out = proc.stdout.readline().strip()
    proc.wait(60)
    assert proc.returncode == 0 and out.startswith("all 40 ") and "Nothing was lost" in out, out
    assert path.exists() and len(teacher_side.answers(code, q.qid)) == 40
    assert len(SQLiteStore(path).answers(code, q.qid)) == 40  # a process started now reads them all
    teacher_side.publish(code, token, {"t": "99"})
    assert SQLiteStore(path).poll(code).state == {"t": "99"}


def test_classroom_sqlite_file_replaced_by_garbage_keeps_the_class_in_a_recovered_file(tmp_path):
    path = tmp_path / "classroom.sqlite3"
    store = SQLiteStore(path)
    code, token, kids, q = _class(store, n=3)
    _wipe(tmp_path)
    path.write_bytes(b"this is not a database" * 100)  # a mistaken copy over the file
    with pytest.raises(StoreUnavailable):
        store.answers(code, q.qid)
    kept = list(tmp_path.glob("classroom.sqlite3.recovered-*"))
    assert len(kept) == 1 and "saved beside it" in store.notices()[-1][1]
    assert len(SQLiteStore(kept[0]).answers(code, q.qid)) == 3  # nothing lost: the class is in that file

"""The classroom store's contract, run against both backends: SQLite (a file in a temporary folder) and a
real `redis-server` started here on a free port (skipped, with the reason, where the binary is absent)."""

import json
import os
import sqlite3
import stat
import subprocess
import sys
import time

import pytest
from conftest import ROOT
from support.classroom import STATE, _room
from support.servers import RedisServer, redis_binary

from cae.classroom import open_store
from cae.classroom import room as roomlib
from cae.classroom.sqlite import SQLiteStore
from cae.classroom.store import (
    ROOM_ALPHABET,
    AnswerRefused,
    BadInput,
    LimitReached,
    Limits,
    NotTeacher,
    RoomNotFound,
    StoreUnavailable,
    clean_nickname,
    normalize_code,
)


# ------------------------------------------------------------------ rooms and tokens
def test_classroom_room_code_and_teacher_token(store):
    code, token = store.create_room()
    assert len(code) == 6 and set(code) <= set(ROOM_ALPHABET)
    assert not set(ROOM_ALPHABET) & set("0O1IL2Z5S8B6GUVDQ")  # no look-alikes
    assert len(token) >= 43  # 32 random bytes, URL-safe: 256 bits (at least 128 required)
    r = store.room(code)
    assert r.version == 0 and r.state == {} and not r.closed and r.expires - r.created == pytest.approx(12 * 3600)
    assert store.is_teacher(code, token) and not store.is_teacher(code, token[:-1] + "x")
    assert not store.is_teacher(code, "") and not store.is_teacher(code, None)
    # the code as a person types it
    assert store.room(code.lower()[:3] + " - " + code.lower()[3:]).code == code
    codes = {store.create_room()[0] for _ in range(30)}
    assert len(codes) == 30


def test_classroom_the_store_keeps_no_token_in_clear(make_store):
    store = make_store()
    code, token = _room(store)
    if make_store.backend == "sqlite":
        raw = b"".join(p.read_bytes() for p in store.path.parent.glob("classroom.sqlite3*"))
        assert token.encode() not in raw and code.encode() in raw
    else:
        import redis

        r = redis.Redis.from_url(make_store.url, decode_responses=True)
        dump = " ".join(
            json.dumps(r.hgetall(k)) if r.type(k) == "hash" else json.dumps(r.zrange(k, 0, -1))
            for k in r.scan_iter(f"{make_store.prefix}:*")
        )
        assert token not in dump and code in dump


def test_classroom_only_the_teacher_token_can_publish_ask_reveal_or_close(store):
    code, token = _room(store)
    s = store.join(code, "Ann")
    q = store.ask(code, token, 13, STATE)
    before = store.poll(code)
    for wrong in ("", "x" * 43, token.upper() if token.upper() != token else token + "a", None):
        with pytest.raises(NotTeacher):
            store.publish(code, wrong, {"t": "99"})
        with pytest.raises(NotTeacher):
            store.ask(code, wrong, 14, STATE)
        with pytest.raises(NotTeacher):
            store.reveal(code, wrong, q.qid, (1, False, False))
        with pytest.raises(NotTeacher):
            store.close(code, wrong)
    # a student's own id is not a teacher token either
    with pytest.raises(NotTeacher):
        store.publish(code, s.sid, {"t": "99"})
    after = store.poll(code)
    assert after == before and not after.question.revealed and not after.closed
    assert len(store.questions(code)) == 1


def test_classroom_unknown_and_malformed_codes(store):
    code, token = _room(store)
    other = next(c for c in ("ACEFHJ", "KMNPRT", "WXY347") if c != code)
    for call in (
        lambda: store.room(other),
        lambda: store.poll(other),
        lambda: store.join(other, "Ann"),
        lambda: store.publish(other, token, STATE),
    ):
        with pytest.raises(RoomNotFound):
            call()
    for bad in ("", "ABC", "ABCDEFG", "0OIL25", "<b>x</b>", "A" * 5000, None):
        with pytest.raises(BadInput):
            store.room(bad)
    with pytest.raises(BadInput):
        normalize_code("ACEFH!")


def test_classroom_publish_and_poll(store):
    code, token = store.create_room()
    assert store.poll(code).version == 0 and store.poll(code).question is None
    v1 = store.publish(code, token, STATE)
    v2 = store.publish(code, token, dict(STATE, t="13"))
    assert (v1, v2) == (1, 2)
    p = store.poll(code)
    assert p.version == 2 and p.state["t"] == "13" and p.state["stream"] == "moons" and not p.closed
    with pytest.raises(BadInput):
        store.publish(code, token, {"t": "x" * 10000})
    with pytest.raises(BadInput):
        store.publish(code, token, ["not", "a", "dict"])
    assert store.poll(code).version == 2


# ------------------------------------------------------------------ students
def test_classroom_nicknames_are_cleaned_capped_and_unique(make_store):
    store = make_store(Limits(nickname_length=10))
    code, _ = _room(store)
    names = [store.join(code, n).nickname for n in ("Ann", "ann", " ANN ", "Ann", "Ann 2")]
    assert names == ["Ann", "ann 2", "ANN 3", "Ann 4", "Ann 2 2"]
    long = [store.join(code, "Maximilian the Great").nickname for _ in range(3)]
    assert long == ["Maximilian", "Maximili 2", "Maximili 3"] and all(len(n) <= 10 for n in long)
    # markup is kept as typed (it is escaped where shown); control characters separate words, invisible
    # ones (a bidi control) go (cae.classroom.names)
    assert store.join(code, "<b>B</b>").nickname == "<b>B</b>"
    assert store.join(code, "a\u202eb\x00c\nd").nickname == "ab c d"
    for bad in ("", "   ", "\n\t", "\u200b"):
        with pytest.raises(BadInput):
            store.join(code, bad)
    st = store.students(code)
    assert [s.nickname for s in st][:5] == names
    assert len({s.sid for s in st}) == len(st) and all(len(s.sid) >= 22 for s in st)  # 128-bit ids
    assert store.student(code, st[0].sid).nickname == "Ann" and store.student(code, "nobody") is None
    assert clean_nickname("x" * 100, 24) == "x" * 24


def test_classroom_students_per_room_limit(make_store):
    store = make_store(Limits(students_per_room=3))
    code, _ = _room(store)
    for k in range(3):
        store.join(code, f"s{k}")
    with pytest.raises(LimitReached, match="full"):
        store.join(code, "one too many")
    assert [s.nickname for s in store.students(code)] == ["s0", "s1", "s2"]


def test_classroom_rooms_per_store_limit(make_store):
    store = make_store(Limits(rooms=2))
    store.create_room()
    store.create_room()
    with pytest.raises(LimitReached):
        store.create_room()


def test_classroom_presence(store):
    code, _ = _room(store)
    now = time.time()
    a = store.join(code, "Ann", now=now - 100)
    b = store.join(code, "Bo", now=now - 100)
    store.touch(code, a.sid, now=now - 5)
    assert [s.nickname for s in store.present(code, now=now)] == ["Ann"]
    store.touch(code, b.sid, now=now)
    assert len(store.present(code, now=now)) == 2
    store.touch(code, "not a student", now=now)  # ignored
    assert len(store.students(code)) == 2


# ------------------------------------------------------------------ questions and answers
def test_classroom_one_answer_per_student_locked_at_reveal(store):
    code, token = _room(store)
    ann, bo, cy = (store.join(code, n) for n in ("Ann", "Bo", "Cy"))
    q = store.ask(code, token, 13, STATE)
    assert q.qid == 1 and store.poll(code).question.qid == 1 and not store.poll(code).question.revealed
    a1 = store.answer(code, ann.sid, q.qid, (2, False, False))
    assert a1.nickname == "Ann" and a1.choice == (2, False, False)
    with pytest.raises(AnswerRefused, match="already"):
        store.answer(code, ann.sid, q.qid, (3, True, True))
    store.answer(code, bo.sid, q.qid, [3, 1, 0])
    assert [(a.nickname, a.choice) for a in store.answers(code, q.qid)] == [
        ("Ann", (2, False, False)),
        ("Bo", (3, True, False)),
    ]
    v = store.poll(code).version
    r = store.reveal(code, token, q.qid, (2, False, False))
    assert r.revealed and r.truth == (2, False, False) and store.poll(code).version == v + 1
    with pytest.raises(AnswerRefused, match="revealed"):
        store.answer(code, cy.sid, q.qid, (2, False, False))
    # revealing again changes nothing
    assert store.reveal(code, token, q.qid, (1, True, True)).truth == (2, False, False)
    assert store.poll(code).version == v + 1
    sc = roomlib.scores(store.questions(code), store.answers(code), store.students(code))
    assert [(s.nickname, s.right, s.answered, s.asked) for s in sc] == [
        ("Ann", 1, 1, 1),
        ("Bo", 0, 1, 1),
        ("Cy", 0, 0, 1),
    ]
    # a new question: the old one takes no more answers
    q2 = store.ask(code, token, 14, dict(STATE, t="13"))
    with pytest.raises(AnswerRefused):
        store.answer(code, cy.sid, q.qid, (2, False, False))
    store.reveal(code, token, q2.qid, (0, False, False))  # (one question at a time: the next after this reveal)
    q3 = store.ask(code, token, 15, dict(STATE, t="14"))
    with pytest.raises(AnswerRefused, match="moved on"):
        store.answer(code, cy.sid, q2.qid, (2, False, False))
    store.answer(code, cy.sid, q3.qid, (0, False, False))
    assert [q.qid for q in store.questions(code)] == [1, 2, 3]
    assert [(a.qid, a.nickname) for a in store.answers(code)] == [(1, "Ann"), (1, "Bo"), (3, "Cy")]


def test_classroom_bad_answers_and_strangers(store):
    code, token = _room(store)
    ann = store.join(code, "Ann")
    q = store.ask(code, token, 13, STATE)
    for bad in ((4, False, False), (-1, False, False), ("x", 0, 0), (1, False), None, "Case I"):
        with pytest.raises(BadInput):
            store.answer(code, ann.sid, q.qid, bad)
    with pytest.raises(BadInput, match="not a student"):
        store.answer(code, "a forged id", q.qid, (1, False, False))
    with pytest.raises(AnswerRefused):
        store.answer(code, ann.sid, 99, (1, False, False))
    with pytest.raises(BadInput):
        store.reveal(code, token, 99, (1, False, False))
    with pytest.raises(BadInput):
        store.ask(code, token, 0, STATE)
    assert store.answers(code) == []


def test_classroom_questions_per_room_limit(make_store):
    store = make_store(Limits(questions_per_room=2))
    code, token = _room(store)
    store.reveal(code, token, store.ask(code, token, 13, STATE).qid, (0, False, False))
    store.reveal(code, token, store.ask(code, token, 14, STATE).qid, (0, False, False))
    with pytest.raises(LimitReached):
        store.ask(code, token, 15, STATE)
    assert len(store.questions(code)) == 2


# ------------------------------------------------------------------ expiry, closing, purge
def _leftovers(make_store, store, code):
    """What the backend still holds of a room."""
    if make_store.backend == "sqlite":
        with sqlite3.connect(store.path) as c:
            return sum(
                c.execute(f"SELECT COUNT(*) FROM {t} WHERE code = ?", (code,)).fetchone()[0]
                for t in ("rooms", "students", "questions", "answers")
            )
    import redis

    r = redis.Redis.from_url(make_store.url)
    return len(list(r.scan_iter(f"{make_store.prefix}:{{{code}}}:*"))) + int(
        r.zscore(f"{make_store.prefix}:rooms", code) is not None
    )


def test_classroom_rooms_expire_and_are_purged(make_store):
    store = make_store(Limits(ttl_seconds=3600))
    now = time.time()
    code, token = store.create_room(now=now)
    keep, _ = store.create_room(now=now + 1800)
    store.publish(code, token, STATE, now=now)
    s = store.join(code, "Ann", now=now)
    q = store.ask(code, token, 13, STATE, now=now)
    store.answer(code, s.sid, q.qid, (1, False, False), now=now)
    assert _leftovers(make_store, store, code) > 0
    later = now + 3601
    for call in (
        lambda: store.room(code, now=later),
        lambda: store.poll(code, now=later),
        lambda: store.join(code, "Bo", now=later),
        lambda: store.publish(code, token, STATE, now=later),
        lambda: store.answer(code, s.sid, q.qid, (1, False, False), now=later),
    ):
        with pytest.raises(RoomNotFound):
            call()
    assert store.purge(now=later) == 1
    assert _leftovers(make_store, store, code) == 0
    assert store.room(keep, now=later).code == keep


def test_classroom_redis_keys_expire_by_themselves(make_store):
    if make_store.backend != "redis":
        pytest.skip("Redis expires keys on its own; SQLite rooms are purged on the next create_room")
    import redis

    store = make_store(Limits(ttl_seconds=1))
    code, token = _room(store)
    store.join(code, "Ann")
    store.ask(code, token, 13, STATE)
    r = redis.Redis.from_url(make_store.url)
    keys = list(r.scan_iter(f"{make_store.prefix}:{{{code}}}:*"))
    assert len(keys) >= 5 and all(r.ttl(k) > 0 for k in keys)
    time.sleep(2.2)
    assert list(r.scan_iter(f"{make_store.prefix}:{{{code}}}:*")) == []


def test_classroom_closing_a_room(make_store):
    store = make_store()
    code, token = _room(store)
    s = store.join(code, "Ann")
    q = store.ask(code, token, 13, STATE)
    store.close(code, token)
    p = store.poll(code)
    assert p.closed  # its students can still be told
    with pytest.raises(RoomNotFound):
        store.room(code)
    with pytest.raises(RoomNotFound):
        store.join(code, "Bo")
    with pytest.raises(RoomNotFound):
        store.answer(code, s.sid, q.qid, (1, False, False))
    with pytest.raises(RoomNotFound):
        store.publish(code, token, STATE)
    assert store.purge(now=time.time() + 601) >= 1
    with pytest.raises(RoomNotFound):
        store.poll(code)
    assert _leftovers(make_store, store, code) == 0


# ------------------------------------------------------------------ several processes
WORKER = """
import sys, json
from cae.classroom import open_store
from cae.classroom.store import AnswerRefused
url, prefix, code, qid, n, name = sys.argv[1:7]
store = open_store(url, prefix=prefix)
out = []
for k in range(int(n)):
    s = store.join(code, name)
    store.answer(code, s.sid, int(qid), (k % 4, k % 2 == 0, False))
    try:
        store.answer(code, s.sid, int(qid), (0, False, False))
        out.append("DOUBLE")
    except AnswerRefused:
        pass
    out.append(s.nickname)
print(json.dumps(out))
"""

PUBLISHER = """
import sys
from cae.classroom import open_store
url, prefix, code, token, n = sys.argv[1:6]
store = open_store(url, prefix=prefix)
for k in range(int(n)):
    store.publish(code, token, {"t": str(k)})
"""


def test_classroom_concurrent_writers_from_several_processes(make_store):
    """Four processes join 30 students each, all called "Sam", and each answers once (a second answer is
    refused) while a fifth publishes 60 steps: every student, nickname, answer and step is counted once."""
    store = make_store()
    code, token = _room(store)
    q = store.ask(code, token, 13, STATE)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    n, procs = 30, []
    for _ in range(4):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-c", WORKER, make_store.url, make_store.prefix, code, str(q.qid), str(n), "Sam"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
        )
    pub = subprocess.Popen(
        [sys.executable, "-c", PUBLISHER, make_store.url, make_store.prefix, code, token, "60"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    names = []
    for p in procs:
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, err[-2000:]
        names += json.loads(out.strip().splitlines()[-1])
    _, err = pub.communicate(timeout=240)
    assert pub.returncode == 0, err[-2000:]
    assert "DOUBLE" not in names
    students = store.students(code)
    assert len(students) == len(names) == 4 * n
    assert sorted(s.nickname for s in students) == sorted(names)
    assert len({s.nickname.casefold() for s in students}) == 4 * n  # all distinct: Sam, Sam 2, … Sam 120
    assert {s.nickname for s in students} == {"Sam"} | {f"Sam {k}" for k in range(2, 4 * n + 1)}
    answers = store.answers(code, q.qid)
    assert len(answers) == 4 * n and len({a.sid for a in answers}) == 4 * n
    assert sum(roomlib.counts(answers)["case"]) == 4 * n
    p = store.poll(code)
    assert p.version == 1 + 1 + 60 and p.state == {"t": "59"}  # publish, ask, then 60 publishes in order


# ------------------------------------------------------------------ the store unreachable
def test_classroom_redis_down_says_so_in_words(tmp_path):
    if redis_binary() is None:
        pytest.skip("redis-server is not installed here (.ci/run installs Debian's redis-server)")
    server = RedisServer(tmp_path / "redis")
    store = open_store(server.url, prefix="down")
    code, token = store.create_room()
    server.stop()
    for call in (
        store.create_room,
        lambda: store.poll(code),
        lambda: store.join(code, "Ann"),
        lambda: store.publish(code, token, STATE),
        lambda: store.students(code),
        lambda: store.answers(code),
        lambda: store.purge(),
    ):
        with pytest.raises(StoreUnavailable, match="cannot be reached") as err:
            call()
        assert "Traceback" not in str(err.value) and len(str(err.value)) < 300
        # students read no host or port; the teacher's detail says which server
        assert str(server.port) not in str(err.value) and "127.0.0.1" not in str(err.value)
        assert "Redis at 127.0.0.1" in err.value.detail
    assert "secret" not in repr(open_store("redis://:secret@127.0.0.1:1/0"))


def test_classroom_sqlite_read_only_file_refuses_writes_and_keeps_what_it_had(tmp_path):
    mounted = False
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # root writes through permission bits: a read-only bind mount of the folder, as a read-only disk
        path = tmp_path / "ro.sqlite3"
        store = SQLiteStore(path)
        code, token = _room(store)
        store.join(code, "Ann")
        store.close_connection()
        for args in (["--bind", str(tmp_path), str(tmp_path)], ["-o", "remount,bind,ro", str(tmp_path)]):
            if subprocess.run(["mount", *args], capture_output=True).returncode != 0:
                subprocess.run(["umount", str(tmp_path)], capture_output=True)
                pytest.skip("cannot mount here: a read-only disk needs root's mount")
        mounted = True
        ro = SQLiteStore(path)
    else:
        path = tmp_path / "ro.sqlite3"
        store = SQLiteStore(path)
        code, token = _room(store)
        store.join(code, "Ann")
        store.close_connection()
        for p in tmp_path.iterdir():
            p.chmod(stat.S_IRUSR)
        tmp_path.chmod(stat.S_IRUSR | stat.S_IXUSR)
        ro = SQLiteStore(path)
    try:
        assert ro.poll(code).state == STATE  # reading still works
        for call in (
            lambda: ro.publish(code, token, {"t": "99"}),
            lambda: ro.join(code, "Bo"),
            ro.create_room,
            lambda: ro.ask(code, token, 13, STATE),
        ):
            with pytest.raises(StoreUnavailable, match="cannot be written"):
                call()
        assert ro.poll(code).state == STATE and [s.nickname for s in ro.students(code)] == ["Ann"]
        assert ro.questions(code) == []
    finally:
        ro.close_connection()
        if mounted:
            subprocess.run(["umount", str(tmp_path)], check=True)
        tmp_path.chmod(stat.S_IRWXU)


def test_classroom_sqlite_unusable_folder(tmp_path):
    blocker = tmp_path / "a file, not a folder"
    blocker.write_text("x")
    store = SQLiteStore(blocker / "classroom.sqlite3")
    with pytest.raises(StoreUnavailable, match="cannot be opened") as err:
        store.create_room()
    assert "cannot be used" in err.value.detail and str(blocker) not in str(err.value)


def test_classroom_sqlite_has_no_mapped_journal_and_the_default_lives_in_the_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("CAE_EXPLORER_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("CAE_CLASSROOM_URL", raising=False)
    store = open_store()
    assert isinstance(store, SQLiteStore) and store.path == tmp_path / "data" / "classroom.sqlite3"
    store.create_room()
    # a rollback journal and no memory mapping: a full or read-only disk is an exception, never SIGBUS
    assert store.connection_pragma("journal_mode") == "truncate" and store.connection_pragma("mmap_size") == 0
    monkeypatch.setenv("CAE_CLASSROOM_URL", "sqlite:///" + str(tmp_path / "elsewhere.db"))
    assert open_store().path == tmp_path / "elsewhere.db"
    monkeypatch.setenv("CAE_CLASSROOM_URL", "postgres://nope")
    with pytest.raises(ValueError, match="CAE_CLASSROOM_URL"):
        open_store()

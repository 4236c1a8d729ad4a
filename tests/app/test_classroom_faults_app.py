"""What the Classroom pages say and keep when the store fails for real, and the teacher's tools, through
AppTest: each session a page of its own, sharing a real store (a SQLite file, or a `redis-server` killed and
started again)."""

import os

import pytest
from support.classroom import _join, _session
from support.servers import RedisServer, redis_binary

from cae.classroom import open_store


def _teacher():
    t = _session()
    t.button(key="b_room_start").click().run()
    assert not t.exception
    return t, t.session_state.room_code


def _texts(at, *kinds):
    return [e.value for k in kinds for e in getattr(at, k)]


def _ask(teacher, student):
    teacher.button(key="b_room_ask").click().run()
    student.run()
    assert not teacher.exception and not student.exception


@pytest.fixture
def sqlite_class(tmp_path, monkeypatch):
    monkeypatch.setenv("CAE_CLASSROOM_URL", "sqlite:///" + str(tmp_path / "classroom.sqlite3"))
    monkeypatch.setenv("CAE_CLASSROOM_POLL_SHARE", "0")
    return tmp_path


@pytest.fixture
def redis_class(tmp_path, monkeypatch):
    if redis_binary() is None:
        pytest.skip("redis-server is not installed here (.ci/run installs Debian's redis-server)")
    server = RedisServer(tmp_path / "redis", persist=True)
    monkeypatch.setenv("CAE_CLASSROOM_URL", server.url)
    monkeypatch.setenv("CAE_CLASSROOM_POLL_SHARE", "0")
    box = {"server": server, "folder": tmp_path / "redis"}
    yield box
    box["server"].stop()


def test_classroom_answer_during_an_outage_is_kept_and_sent_when_the_store_is_back(redis_class):
    teacher, code = _teacher()
    ann = _join(code, "Ann")
    _ask(teacher, ann)
    port = redis_class["server"].port
    redis_class["server"].kill()  # Redis dies while the class answers
    ann.radio(key="w_room_case_1").set_value(2)
    ann.checkbox(key="w_room_edge_1").check()
    next(b for b in ann.button if b.label == "Send my answer").click().run()
    assert not ann.exception
    said = " ".join(_texts(ann, "error"))
    assert "has not reached the class yet" in said and "stays selected" in said
    assert str(port) not in said and "127.0.0.1" not in said
    assert ann.radio(key="w_room_case_1").value == 2 and ann.checkbox(key="w_room_edge_1").value
    # Redis is back (it kept its data): the answer goes by itself, without a click
    redis_class["server"] = RedisServer(redis_class["folder"], port=port, persist=True)
    ann.run()
    assert not ann.exception and any("Your answer is in" in s.value for s in ann.success)
    answers = open_store().answers(code, 1)
    assert [(a.nickname, a.choice) for a in answers] == [("Ann", (2, True, False))]


def test_classroom_student_told_the_store_is_read_only_not_unreachable(sqlite_class):
    """A read-only store answers reads (the page polls it between the answer and the message): the message names
    what the write ran into, never "cannot be reached" (issue 44: it said so after chattr +i)."""
    from support.classroom import chattr

    teacher, code = _teacher()
    ann = _join(code, "Ann")
    _ask(teacher, ann)
    path = sqlite_class / "classroom.sqlite3"
    chattr("+i", path)
    try:
        ann.radio(key="w_room_case_1").set_value(1)
        next(b for b in ann.button if b.label == "Send my answer").click().run()
        assert not ann.exception
        said = " ".join(_texts(ann, "error")).replace("\\", "")
        assert "has not reached the class yet** — The class's store cannot be written: its file is read-only" in said
        assert "cannot be reached" not in said and str(path) not in said
        ann.run()  # its own check: sent again, refused again, the same words
        said = " ".join(_texts(ann, "error")).replace("\\", "")
        assert "its file is read-only" in said and "cannot be reached" not in said
    finally:
        chattr("-i", path)
    ann.run()
    assert any("Your answer is in" in s.value for s in ann.success)


def test_classroom_student_told_the_store_cannot_be_reached_when_redis_is_stopped(redis_class):
    teacher, code = _teacher()
    ann = _join(code, "Ann")
    _ask(teacher, ann)
    redis_class["server"].stop()
    ann.radio(key="w_room_case_1").set_value(1)
    next(b for b in ann.button if b.label == "Send my answer").click().run()
    said = " ".join(_texts(ann, "error")).replace("\\", "")
    assert "has not reached the class yet** — The class's store (its server) cannot be reached right now" in said
    assert "read-only" not in said


def test_classroom_redis_refusing_writes_is_said_as_such(redis_class):
    """A Redis that answers but refuses writes (made a replica of a server that is not there: reads go on) is said
    to be read-only, not unreachable."""
    import redis as redis_py

    teacher, code = _teacher()
    ann = _join(code, "Ann")
    _ask(teacher, ann)
    admin = redis_py.Redis.from_url(redis_class["server"].url)
    admin.replicaof("127.0.0.1", 1)  # a master nobody runs: this Redis keeps its data and refuses writes
    try:
        ann.radio(key="w_room_case_1").set_value(1)
        next(b for b in ann.button if b.label == "Send my answer").click().run()
        said = " ".join(_texts(ann, "error")).replace("\\", "")
        assert "The class's store cannot be written: its server is a read-only replica" in said
        assert "cannot be reached" not in said
    finally:
        admin.replicaof("no", "one")
    ann.run()
    assert any("Your answer is in" in s.value for s in ann.success)


def test_classroom_teacher_refusal_clears_once_the_store_takes_writes(sqlite_class):
    """The teacher's "not revealed" banner goes by itself once the file can be written again: the page's
    once-a-second check (here run by hand, as its fragment does) draws the page again without it."""
    from support.classroom import chattr

    teacher, code = _teacher()
    ann = _join(code, "Ann")
    _ask(teacher, ann)
    path = sqlite_class / "classroom.sqlite3"
    chattr("+i", path)
    try:
        teacher.button(key="b_room_reveal").click().run()
        said = " ".join(_texts(teacher, "error")).replace("\\", "")
        assert "Question 1 was not revealed: it stays open, with its answers" in said
        teacher.run()  # the store still refuses writes: the banner stays
        assert "was not revealed" in " ".join(_texts(teacher, "error"))
    finally:
        chattr("-i", path)
    teacher.run()
    assert "was not revealed" not in " ".join(_texts(teacher, "error"))
    assert [b for b in teacher.button if b.key == "b_room_reveal"]  # the question still open, Reveal there


def test_classroom_teacher_controls_come_back_after_an_outage(redis_class):
    teacher, code = _teacher()
    port = redis_class["server"].port
    redis_class["server"].kill()
    teacher.run()
    assert not teacher.exception
    assert any("come back by themselves" in c.value for c in teacher.caption)
    assert not [b for b in teacher.button if b.key == "b_room_ask"]
    # the teacher's page (on the projector) says it in words; where the store is, only behind "Details"
    assert not any(str(port) in e.value for e in teacher.error) and any(
        "cannot be reached" in e.value for e in teacher.error
    )
    assert any(str(port) in c.value and "Redis" in c.value for c in teacher.expander[-1].caption)
    redis_class["server"] = RedisServer(redis_class["folder"], port=port, persist=True)
    teacher.run()  # what the page's own 2-second check does once the store answers
    assert not teacher.exception and [b for b in teacher.button if b.key == "b_room_ask"]


def test_classroom_redis_reset_says_reset_not_ended(tmp_path, monkeypatch):
    if redis_binary() is None:
        pytest.skip("redis-server is not installed here (.ci/run installs Debian's redis-server)")
    server = RedisServer(tmp_path / "redis")  # no persistence
    monkeypatch.setenv("CAE_CLASSROOM_URL", server.url)
    monkeypatch.setenv("CAE_CLASSROOM_POLL_SHARE", "0")
    try:
        teacher, code = _teacher()
        ann = _join(code, "Ann")
        for _ in range(3):
            teacher.button(key="b_room_step").click().run()
        server.kill()
        teacher.run()
        assert any("come back by themselves" in c.value for c in teacher.caption)
        server = RedisServer(tmp_path / "redis", port=server.port)  # back, without its data
        for page in (ann, teacher):  # (the teacher's: what its own check does every 2 s once the store answers)
            page.run()
            assert not page.exception
            said = " ".join(_texts(page, "info"))
            assert "class store was reset" in said and "has ended" not in said and f"class {code} was lost" in said
        # the teacher is offered a new class, which goes on from the step the lost one was at
        teacher.button(key="b_room_restart").click().run()
        new = teacher.session_state.room_code
        assert new != code and not teacher.exception and open_store().poll(new).state["t"] == "3"
    finally:
        server.stop()


def test_classroom_sqlite_file_deleted_mid_class_is_restored_and_said(sqlite_class):
    teacher, code = _teacher()
    ann = _join(code, "Ann")
    _ask(teacher, ann)
    ann.radio(key="w_room_case_1").set_value(1)
    next(b for b in ann.button if b.label == "Send my answer").click().run()
    for p in sqlite_class.iterdir():
        if p.name.startswith("classroom.sqlite3"):
            p.unlink()
    teacher.run()
    assert not teacher.exception
    assert any("restored" in w.value and "Nothing was lost" in w.value for w in teacher.warning)
    ann.run()
    assert not ann.exception and any("restored" in i.value for i in ann.info)
    assert [a.nickname for a in open_store().answers(code, 1)] == ["Ann"]
    # the teacher's page names the file; the student's names no path
    assert not any(str(sqlite_class) in t for t in _texts(ann, "markdown", "info", "warning", "error", "caption"))


def test_classroom_teacher_link_hidden_rotated_and_the_old_one_stops(sqlite_class):
    teacher, code = _teacher()
    old = teacher.session_state.room_token
    shown = " ".join(c.value for c in teacher.code)
    assert old not in shown and "teacher=" not in shown  # never on screen by default
    teacher.checkbox(key="w_room_show_link").check().run()
    assert any(old in c.value for c in teacher.code)
    assert any("photographs" in w.value for w in teacher.warning)
    teacher.button(key="b_room_rotate").click().run()
    new = teacher.session_state.room_token
    assert new != old and not any(old in c.value or new in c.value for c in teacher.code)
    assert teacher.session_state.get("w_room_show_link") is not True
    stranger = _session(room=code, teacher=old)
    assert any("does not open any class" in e.value for e in stranger.error)
    assert stranger.session_state.get("room_role") is None
    again = _session(room=code, teacher=new)
    assert again.session_state.room_role == "teacher"


def test_classroom_lock_remove_and_rename(sqlite_class):
    teacher, code = _teacher()
    ann, bo = _join(code, "Ann"), _join(code, "Prankster")
    teacher.run()
    # the teacher (only) reads where the class is kept
    assert any(c.value.startswith("Where the class is kept: SQLite file") for c in teacher.caption)
    assert not any("SQLite" in c.value for c in [*ann.caption, *ann.markdown])
    teacher.toggle(key="w_room_lock_False").set_value(True).run()
    late = _join(code, "Late")
    assert any("locked" in e.value for e in late.error) and late.session_state.get("room_role") is None
    # remove the prankster: their page says so; their name is free again, not for their browser
    bo_sid = bo.session_state.room_sid
    teacher.multiselect(key="w_room_remove").set_value([bo_sid]).run()
    teacher.checkbox(key="w_room_remove_sure").check().run()
    teacher.button(key="b_room_remove").click().run()
    assert [s.nickname for s in open_store().students(code)] == ["Ann"]
    bo.run()
    assert not bo.exception and any("removed you" in w.value for w in bo.warning)
    # rename
    teacher.selectbox(key="w_room_pick").set_value(ann.session_state.room_sid).run()
    teacher.text_input(key="w_room_rename").input("Anna").run()
    teacher.button(key="b_room_rename").click().run()
    assert [s.nickname for s in open_store().students(code)] == ["Anna"]
    teacher.toggle(key="w_room_lock_True").set_value(False).run()
    assert _join(code, "Late").session_state.room_role == "student"


def test_classroom_starting_classes_is_limited_per_client_and_by_passphrase(sqlite_class, monkeypatch):
    monkeypatch.setenv("CAE_CLASSROOM_STARTS_PER_CLIENT", "2")
    monkeypatch.setenv("CAE_CLASSROOM_ROOMS_PER_CLIENT", "5")
    for _ in range(2):
        _teacher()
    third = _session()
    third.button(key="b_room_start").click().run()
    assert not third.exception and third.session_state.get("room_role") is None
    assert any("has started 2 classes" in e.value for e in third.error)
    monkeypatch.setenv("CAE_CLASSROOM_STARTS_PER_CLIENT", "50")
    monkeypatch.setenv("CAE_CLASSROOM_ROOMS_PER_CLIENT", "3")
    _teacher()  # a third open class from this address
    fourth = _session()
    fourth.button(key="b_room_start").click().run()
    assert any("3 classes are open from this address" in e.value for e in fourth.error)
    monkeypatch.setenv("CAE_CLASSROOM_ROOMS_PER_CLIENT", "50")
    monkeypatch.setenv("CAE_CLASSROOM_TEACHER_KEY", "chalk and talk")
    keyed = _session()
    keyed.button(key="b_room_start").click().run()
    assert any("not this server's teacher passphrase" in e.value for e in keyed.error)
    keyed.text_input(key="w_room_passphrase").input("chalk and talk").run()
    keyed.button(key="b_room_start").click().run()
    assert keyed.session_state.room_role == "teacher"


def test_classroom_joining_is_limited_per_class_and_client(sqlite_class, monkeypatch):
    monkeypatch.setenv("CAE_CLASSROOM_JOINS_PER_CLIENT", "3")
    _, code = _teacher()
    for k in range(3):
        assert _join(code, f"bot{k}").session_state.room_role == "student"
    fourth = _join(code, "bot3")
    assert fourth.session_state.get("room_role") is None
    assert any("3 students have joined this class from this address" in e.value for e in fourth.error)
    assert len(open_store().students(code)) == 3
    assert os.environ["CAE_CLASSROOM_JOINS_PER_CLIENT"] == "3"

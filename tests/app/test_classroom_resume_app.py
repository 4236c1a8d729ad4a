"""A class that resumes where it was, through AppTest (each session a page of its own, one real store): a teacher
page that arrives rebuilds its run from the store and publishes nothing; two devices of one teacher move the class
together and never backwards; every action during a store fault is refused in words and changes nothing; an
answer the browser sent that never reached the store is sent by the page itself; a store restarted empty offers a
new class (in test_classroom_faults_app.py); the small ones (a rename the student sees, removals that stick, guessed codes, names kept for the
teacher, who is here with 500 students).

The real browsers (F5, a restarted server, a process killed behind nginx, Back after a teacher link) are in
tests/browser/test_classroom_resume_browser.py.
"""

import uuid

import pytest
from support.classroom import _join, _seen, _session
from support.classroom import chattr as _chattr

from cae.classroom import open_store

MOONS = {"stream": "moons", "n": "250", "noise": "0", "seed": "3", "algo": "CAE", "t": "7"}


def _teacher():
    t = _session()
    t.button(key="b_room_start").click().run()
    assert not t.exception
    return t, t.session_state.room_code


def _errors(at):
    """The page's error messages as read (without the Markdown escapes of the text they quote)."""
    return " ".join(e.value for e in at.error).replace("\\", "")


def _on_playground(at, **query):
    at.switch_page("pages/playground.py")
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def _store_t(code):
    return int(open_store().poll(code).state["t"])


@pytest.fixture
def sqlite_class(tmp_path, monkeypatch):
    monkeypatch.setenv("CAE_CLASSROOM_URL", "sqlite:///" + str(tmp_path / "classroom.sqlite3"))
    monkeypatch.setenv("CAE_CLASSROOM_POLL_SHARE", "0")
    return tmp_path / "classroom.sqlite3"


# ------------------------------------------------------------------ the store's lesson is the truth
def test_classroom_a_teacher_page_that_arrives_takes_the_class_lesson_and_publishes_nothing(sqlite_class):
    teacher, code = _teacher()
    _on_playground(teacher, **MOONS)  # the teacher teaches a lesson of their own: moons, n = 250, t = 7
    q = open_store().ask(code, teacher.session_state.room_token, 8, MOONS)
    before = open_store().poll(code)
    assert before.state["stream"] == "moons" and before.state["t"] == "7"
    # the teacher link opened on a tablet: its Classroom page shows the class as it is, the question open
    tablet = _session(room=code, teacher=teacher.session_state.room_token)
    assert tablet.session_state.room_role == "teacher" and not tablet.exception
    pg = tablet.session_state.pg
    assert (pg.t, len(pg.stream), tablet.session_state.pg_cfg["source"]) == (7, 500, "moons")
    assert any(f"Question {q.qid}" in h.value for h in tablet.subheader)
    # ... and its Playground too (a reload's older link in the address bar is the browser test's: it needs cookies)
    _on_playground(tablet)
    assert _seen(tablet) == 7 and tablet.session_state.pg_cfg["source"] == "moons"
    after = open_store().poll(code)
    assert after.version == before.version and after.state == before.state  # nothing was published
    assert not after.question.revealed and after.question.qid == q.qid


def test_classroom_two_devices_move_the_class_together_and_never_backwards(sqlite_class):
    laptop, code = _teacher()
    tablet = _session(room=code, teacher=laptop.session_state.room_token)
    seen = []
    for page in (laptop, tablet):
        _on_playground(page)
    laptop.number_input(key="w_stepn").set_value(10).run()
    laptop.button(key="b_stepn").click().run()
    seen.append(_store_t(code))
    tablet.run()  # what its follow fragment (pushed by the server) does: the whole page runs and adopts
    assert _seen(tablet) == 10
    tablet.button(key="b_step1").click().run()
    seen.append(_store_t(code))
    # the laptop has not drawn t = 11 yet and steps: its step goes on from the class's t = 11, never from its 10
    laptop.button(key="b_step1").click().run()
    seen.append(_store_t(code))
    assert seen == [10, 11, 12] and _seen(laptop) == 12
    tablet.run()
    assert _seen(tablet) == 12
    # the Classroom page's own Step on the tablet, then the laptop follows there too
    tablet.switch_page("pages/classroom.py").run()
    tablet.button(key="b_room_step").click().run()
    assert _store_t(code) == 13
    laptop.switch_page("pages/classroom.py").run()
    assert laptop.session_state.pg.t == 13 and "Ask the class: what will CAE do with sample 14?" in [
        b.label for b in laptop.button
    ]


# ------------------------------------------------------------------ one question at a time, stale pages told
def _warnings(at):
    return " ".join(w.value for w in at.warning).replace("\\", "")


def _two_teachers():
    laptop, code = _teacher()
    tablet = _session(room=code, teacher=laptop.session_state.room_token)
    laptop.run()
    return laptop, tablet, code


def test_classroom_an_ask_on_a_stale_page_is_told_a_question_is_open_and_shows_it(sqlite_class):
    laptop, tablet, code = _two_teachers()
    tablet.button(key="b_room_ask").click().run()  # the tablet asks first
    assert open_store().poll(code).question.qid == 1
    # the laptop still shows Ask (its page was drawn before): pressed, it is told, and shows the open question
    assert "b_room_ask" in [b.key for b in laptop.button]
    laptop.button(key="b_room_ask").click().run()
    said = _warnings(laptop)
    assert "The question about sample 1 was not asked — a question is already open: question 1, about sample 1" in said
    assert "asked from another device; it is shown below" in said
    assert any("Question 1: what will CAE do with sample 1?" in h.value for h in laptop.subheader)
    assert [q.qid for q in open_store().questions(code)] == [1]  # never a second question over the first


def test_classroom_a_reveal_on_a_stale_page_says_it_was_revealed_already(sqlite_class):
    laptop, tablet, code = _two_teachers()
    tablet.button(key="b_room_ask").click().run()
    laptop.run()  # both show the open question and Reveal
    tablet.button(key="b_room_reveal").click().run()
    q = open_store().poll(code).question
    assert q.revealed
    laptop.button(key="b_room_reveal").click().run()
    said = _warnings(laptop)
    assert "Question 1 was not revealed by this page — question 1 was revealed already (by another device" in said
    assert open_store().poll(code).question.truth == q.truth and len(open_store().questions(code)) == 1
    assert any("Question 1, revealed" in h.value for h in laptop.subheader)
    assert open_store().poll(code).state["t"] == "1" and laptop.session_state.pg.t == 1


def test_classroom_an_ask_after_the_class_moved_on_says_what_happened(sqlite_class):
    laptop, tablet, code = _two_teachers()
    tablet.button(key="b_room_ask").click().run()
    tablet.button(key="b_room_reveal").click().run()  # question 1 revealed; the class at t = 1
    laptop.button(key="b_room_ask").click().run()  # drawn at t = 0 with no question: stale
    said = _warnings(laptop)
    assert "The question about sample 1 was not asked — the class has changed since this page was drawn" in said
    assert "its last question, 1, is revealed" in said
    assert len(open_store().questions(code)) == 1
    laptop.button(key="b_room_ask").click().run()  # the page now shows the class as it is: this Ask is asked
    assert [q.step for q in open_store().questions(code)] == [1, 2] and not _warnings(laptop)


# ------------------------------------------------------------------ every action confirmed or refused aloud
def test_classroom_teacher_actions_on_an_immutable_store_are_refused_in_words(sqlite_class):
    teacher, code = _teacher()
    teacher.button(key="b_room_step").click().run()
    ann = _join(code, "Ann")
    version = open_store().poll(code).version
    _chattr("+i", sqlite_class)
    try:
        teacher.button(key="b_room_step").click().run()
        said = _errors(teacher)
        assert "Step 1 was not taken: the class and this page stay at t = 1" in said
        assert "its file is read-only on the server" in said and "Nothing changed" in said
        assert str(sqlite_class) not in said  # the file's path only behind the closed Details expander
        assert teacher.session_state.pg.t == 1 and "sample 2?" in teacher.button(key="b_room_ask").label
        teacher.button(key="b_room_ask").click().run()
        assert "The question about sample 2 was not asked" in _errors(teacher)
        ann.run()
        assert not ann.exception and _seen(ann) == 1  # reads go on for the class
    finally:
        _chattr("-i", sqlite_class)
    assert open_store().poll(code).version == version and open_store().poll(code).question is None
    teacher.button(key="b_room_ask").click().run()
    ann.run()
    ann.radio(key="w_room_case_1").set_value(1)
    next(b for b in ann.button if b.label == "Send my answer").click().run()
    _chattr("+i", sqlite_class)
    try:
        teacher.button(key="b_room_reveal").click().run()
        assert "Question 1 was not revealed: it stays open, with its answers" in _errors(teacher)
        assert teacher.session_state.pg.t == 1 and teacher.button(key="b_room_reveal")
    finally:
        _chattr("-i", sqlite_class)
    p = open_store().poll(code)
    assert not p.question.revealed and p.state["t"] == "1" and len(open_store().answers(code, 1)) == 1
    teacher.button(key="b_room_reveal").click().run()
    p = open_store().poll(code)
    assert p.question.revealed and p.state["t"] == "2" and teacher.session_state.pg.t == 2


def test_classroom_a_playground_step_the_store_refuses_is_said_and_never_sent_by_itself(sqlite_class):
    teacher, code = _teacher()
    _on_playground(teacher)
    teacher.button(key="b_step1").click().run()
    assert _store_t(code) == 1
    _chattr("+i", sqlite_class)
    try:
        for _ in range(3):
            teacher.button(key="b_step1").click().run()
        said = _errors(teacher)
        assert "Not sent to the class" in said and "The class stays at t = 1" in said and _seen(teacher) == 4
    finally:
        _chattr("-i", sqlite_class)
    teacher.run()  # the store is back: the class does not jump by itself; the choice stays, its words say so
    said = " ".join(w.value for w in teacher.warning)
    assert _store_t(code) == 1 and "Not sent to the class" not in _errors(teacher)
    assert "The class's store takes writes again.** The class stays at t = 1 until you choose" in said
    teacher.button(key="b_room_back_to_class").click().run()
    assert _seen(teacher) == 1 and "Not sent" not in _errors(teacher) and _store_t(code) == 1
    teacher.button(key="b_step1").click().run()
    assert _store_t(code) == 2  # the next step goes to the class again
    _chattr("+i", sqlite_class)
    try:
        teacher.button(key="b_step1").click().run()
    finally:
        _chattr("-i", sqlite_class)
    teacher.button(key="b_room_send_unsent").click().run()  # or the teacher sends where this page is
    assert _store_t(code) == 3 and "Not sent" not in _errors(teacher)


def test_classroom_an_answer_the_browser_sent_that_never_reached_the_store_is_sent_by_the_page(sqlite_class):
    teacher, code = _teacher()
    ann = _join(code, "Ann")
    teacher.button(key="b_room_ask").click().run()
    # after its process died, a page comes back with the choice its browser sent (the form's value), without the
    # click (tests/browser/test_classroom_resume_browser.py kills the process for real); AppTest holds a form's
    # values until its button is clicked, so the value comes as the server would see it, in the session's state
    again = _session(room=code, me=ann.session_state.room_sid)
    again.button(key="b_room_takeover").click().run()  # AppTest keeps no cookie: every session is another browser
    assert not any(s.value.startswith("Your answer is in") for s in again.success)
    again.session_state["w_room_case_1"] = 3
    again.run()
    assert not again.exception and any(s.value.startswith("Your answer is in") for s in again.success)
    assert [a.choice for a in open_store().answers(code, 1)] == [(3, False, False)]


# ------------------------------------------------------------------ the small ones
def test_classroom_a_renamed_student_sees_the_new_name_on_their_page(sqlite_class):
    teacher, code = _teacher()
    ann = _join(code, "Ann")
    assert any("you are **Ann**" in m.value for m in ann.markdown)
    open_store().rename_student(code, teacher.session_state.room_token, ann.session_state.room_sid, "Anna K")
    ann.run()
    assert any("you are **Anna K**" in m.value for m in ann.markdown)


def test_classroom_a_removed_students_browser_cannot_join_again(sqlite_class):
    teacher, code = _teacher()
    bo = _join(code, "Prankster")
    open_store().remove_students(code, teacher.session_state.room_token, [bo.session_state.room_sid])
    bo.run()
    bo.button(key="b_room_leave").click().run()
    bo.text_input(key="w_room_code").input(code)
    bo.text_input(key="w_room_nick").input("Totally new")
    next(b for b in bo.button if b.label == "Join").click().run()
    assert "cannot join again" in _errors(bo) and bo.session_state.get("room_role") is None
    assert _join(code, "Prankster").session_state.room_nick == "Prankster"  # another browser can


def test_classroom_guessing_codes_is_limited_per_client_and_leaves_no_trace(sqlite_class, monkeypatch):
    import sqlite3

    monkeypatch.setenv("CAE_CLASSROOM_GUESSES_PER_CLIENT", "3")
    _, code = _teacher()
    guesser = _session()
    for wrong in ("AAAAAA", "CCCCCC", "EEEEEE"):
        guesser.text_input(key="w_room_code").input(wrong)
        guesser.text_input(key="w_room_nick").input("x")
        next(b for b in guesser.button if b.label == "Join").click().run()
        assert f"no open class with the code {wrong}" in _errors(guesser)
    guesser.text_input(key="w_room_code").input(code)  # even the right code: the client is out of guesses
    next(b for b in guesser.button if b.label == "Join").click().run()
    assert "3 class codes that name no class were tried" in _errors(guesser)
    buckets = [b for (b,) in sqlite3.connect(str(sqlite_class)).execute("SELECT bucket FROM rate")]
    assert (
        not [b for b in buckets if b.startswith("join:")] and len([b for b in buckets if b.startswith("guess:")]) == 1
    )


def test_classroom_teacher_is_not_a_nickname(sqlite_class):
    _, code = _teacher()
    s = _join(code, "Teacher")
    assert "kept for the teacher" in _errors(s) and s.session_state.get("room_role") is None


def test_classroom_who_is_here_reads_with_500_students(sqlite_class, monkeypatch):
    from cae.classroom.store import Limits

    teacher, code = _teacher()
    store = open_store(limits=Limits())
    for k in range(500):
        store.join(code, f"s{k:03d}-{uuid.uuid4().hex[:4]}")
    teacher.run()
    roster = [h.proto.body for h in teacher.get("html") if 'aria-label="Students present"' in h.proto.body]
    assert len(roster) == 1 and roster[0].count("<li ") == 500 and "grid-template-columns" in roster[0]
    teacher.text_input(key="w_room_find").input("s42").run()
    roster = [h.proto.body for h in teacher.get("html") if 'aria-label="Students present"' in h.proto.body]
    assert roster[0].count("<li ") == 10  # s420-s429
    assert any(c.value == "10 of 500 present" for c in teacher.caption)


def test_classroom_a_bad_trusted_proxies_setting_is_said_to_the_teacher(sqlite_class, monkeypatch):
    # (a server refuses to start with it: tests/unit/test_classroom_deploy.py; a page run another way trusts nothing)
    monkeypatch.setenv("CAE_TRUSTED_PROXIES", "127.0.0.1, my-nginx")
    teacher, _ = _teacher()
    said = " ".join(w.value for w in teacher.warning).replace("\\", "")
    assert "CAE_TRUSTED_PROXIES cannot be used, so no proxy is trusted" in said
    assert "entry 'my-nginx' is not an address or a network" in said

"""The Classroom through AppTest: one teacher and three students, each an app session of its own, sharing
one store (SQLite in a temporary folder; Redis where the test says so)."""

import pytest
from support.classroom import _chart_counts, _follow_number, _join, _metric, _seen, _session
from support.servers import RedisServer, redis_binary

from cae.app.explanations import QUIZ_CHOICES, quiz_truth
from cae.classroom import open_store


def test_classroom_teacher_and_three_students(classroom):
    teacher, code = classroom
    assert any(m.value == f"# Class `{code}`" for m in teacher.markdown)
    assert any(f"room={code}" in c.value for c in teacher.code)  # the join link
    assert all(teacher.session_state.room_token not in c.value for c in teacher.code[:1])
    students = [_join(code, n) for n in ("Ann", "Bo", "ann")]
    assert [s.session_state.room_nick for s in students] == ["Ann", "Bo", "ann 2"]
    teacher.run()
    assert _metric(teacher, "Students present") == "3"

    # the teacher steps on the Playground: the step reaches every student
    teacher.switch_page("pages/playground.py").run()
    assert not teacher.exception
    assert any(f"Live class {code}" in m.value for m in teacher.markdown)
    teacher.number_input(key="w_stepn").set_value(300).run()
    teacher.button(key="b_stepn").click().run()
    for s in students:
        s.run()
        assert _seen(s) == 300 and not s.exception
    pg = teacher.session_state.pg
    assert _follow_number(students[0], "#nodes") == str(len(pg.model.nodes_))
    assert _follow_number(students[0], "V") == f"{pg.model.threshold_:.3f}"
    # stream #1 alone: one class, NMI/ARI n/a as on the Playground, and the students' page says why
    assert _follow_number(students[0], "NMI") == _follow_number(students[0], "ARI") == "n/a — one class so far"
    follow = next(h.proto.body for h in students[0].get("html") if "The network now" in h.proto.body)
    assert "NMI/ARI: n/a while the labels seen hold one class" in follow
    # the picture, the same for the whole class, with its words; the interactive chart on demand
    # the picture beside its numbers, in the same piece of HTML
    assert '<img src="data:image/svg+xml;base64,' in follow
    # its alternative text is the view in words, one text for a screen reader: the step, what it did, the counts
    from html import escape

    from cae.app.explanations import view_summary

    said = view_summary(pg.model, pg.t, pg.record, len(pg.stream))
    assert f'alt="{escape(said)}"' in follow and said.startswith("The network at step t = 300 of ")
    assert follow.index("<img ") < follow.index("<table ")
    assert not students[0].get("plotly_chart")
    students[0].toggle(key="w_room_interactive").set_value(True).run()
    assert len(students[0].get("plotly_chart")) == 1
    assert not any("<img " in h.proto.body for h in students[0].get("html"))
    assert _metric(students[0], "#nodes") == str(len(pg.model.nodes_))  # the Playground's numbers beside it
    students[0].toggle(key="w_room_interactive").set_value(False).run()

    # the question: asked at step 301; three different answers
    teacher.switch_page("pages/classroom.py").run()
    teacher.button(key="b_room_ask").click().run()
    assert not teacher.exception and "Question 1" in teacher.subheader[0].value
    truth = quiz_truth(pg.model.snapshot().learn_one(pg.stream.X[300]))
    answers = [truth[0], (truth[0] + 1) % 4, truth[0]]
    for s, case in zip(students, answers):
        s.run()
        assert any("Question 1" in m.value for m in s.markdown)
        s.radio(key="w_room_case_1").set_value(case)
        s.checkbox(key="w_room_edge_1").check() if s is students[2] and not truth[1] else None
        next(b for b in s.button if b.label == "Send my answer").click().run()
        assert not s.exception
        assert any(x.value.startswith("Your answer is in") for x in s.success)
        assert not [b for b in s.button if b.label == "Send my answer"]  # one answer: the form is gone
    teacher.run()
    counts = _chart_counts(teacher)
    assert sum(counts[0]) == 3 and counts[0][truth[0]] == 2  # the live chart: three answers, two alike
    # reveal: each student sees their result and a running score
    teacher.button(key="b_room_reveal").click().run()
    assert not teacher.exception and "revealed" in teacher.subheader[0].value
    assert teacher.session_state.pg.t == 301
    results = []
    for s in students:
        s.run()
        results.append([x.value for x in (*s.success, *s.error) if x.value in ("Right!", "Not quite.")])
        assert _seen(s) == 301
    assert results == [["Right!"], ["Not quite."], ["Not quite."]]
    assert [_metric(s, "Your score") for s in students] == ["1 / 1", "0 / 1", "0 / 1"]
    assert any("What CAE did" in m.value and QUIZ_CHOICES[truth[0]] in m.value for m in students[0].markdown)
    # the scores and the CSV are there for the teacher
    assert any(d.label.startswith("Download the class") for d in teacher.get("download_button"))


def test_classroom_a_student_cannot_take_control(classroom):
    teacher, code = classroom
    s = _join(code, "Eve")
    # editing the URL: a guessed teacher token gives a message, not control
    s2 = _session(room=code, teacher="guessed-token-guessed-token-guessed-token")
    assert any("does not open any class" in e.value for e in s2.error)
    assert s2.session_state.room_role is None if "room_role" in s2.session_state else True
    assert not [b for b in s2.button if b.key in ("b_room_ask", "b_room_reveal", "b_room_step")]
    # a student's own page has no teacher controls
    assert not [b for b in s.button if b.key in ("b_room_ask", "b_room_reveal", "b_room_step")]
    # a wrong code
    s3 = _session(room="nonsense!")
    assert any("not a class code" in w.value for w in s3.warning)
    # the teacher link itself works, and leaves the address bar without the token: the browser replaces its
    # history entry at once (the browser test checks Back), the server's copy of the URL follows on the next run
    token = teacher.session_state.room_token
    t2 = _session(room=code, teacher=token)
    assert t2.session_state.room_role == "teacher"
    scripts = [h.proto.body for h in t2.get("html") if "history.replaceState" in h.proto.body]
    assert len(scripts) == 1 and f'"?room={code}"' in scripts[0] and token not in scripts[0]
    t2.run()
    assert "teacher" not in t2.query_params and t2.session_state.room_role == "teacher"


def test_classroom_explore_freely_and_follow_again(classroom):
    teacher, code = classroom
    teacher.button(key="b_room_step").click().run()
    teacher.button(key="b_room_step").click().run()
    s = _join(code, "Ann")
    assert _seen(s) == 2
    s.button(key="b_room_explore").click().run()
    assert not s.exception and s.title[0].value == "Playground"
    assert _seen(s) == 2  # the teacher's state, now the student's own run
    s.switch_page("pages/playground.py")  # AppTest stays on the page it was given; a browser follows the switch
    s.button(key="b_step1").click().run()
    assert _seen(s) == 3 and teacher.session_state.pg.t == 2  # exploring moves nobody else
    assert any("exploring on your own" in m.value for m in s.markdown)
    s.button(key="b_room_follow").click().run()
    assert not s.exception
    assert any(m.value.startswith(f"## Class {code}") for m in s.markdown) and _seen(s) == 2


def test_classroom_resumes_a_student_from_their_link(classroom):
    teacher, code = classroom
    s = _join(code, "Ann")
    sid = s.session_state.room_sid
    # the link opened in another browser (AppTest keeps no cookie: every session is another browser) while
    # the first is active: it asks before taking the place over
    again = _session(room=code, me=sid)
    assert again.session_state.get("room_role") is None
    assert any("open in another browser" in w.value for w in again.warning)
    again.button(key="b_room_takeover").click().run()
    assert again.session_state.room_nick == "Ann" and again.session_state.room_sid == sid
    # and the first browser is told on its next presence note
    s.session_state["room_touched"] = -1e9
    s.run()
    assert s.session_state.room_role == "taken" and any("taken over by another browser" in w.value for w in s.warning)
    stranger = _session(room=code, me="not-a-student-id")
    assert any("not known" in w.value for w in stranger.warning)


def test_classroom_store_down_the_playground_keeps_working(tmp_path, monkeypatch):
    if redis_binary() is None:
        pytest.skip("redis-server is not installed here (.ci/run installs Debian's redis-server)")
    server = RedisServer(tmp_path / "redis")
    monkeypatch.setenv("CAE_CLASSROOM_URL", server.url)
    monkeypatch.setenv("CAE_CLASSROOM_POLL_SHARE", "0")
    try:
        teacher = _session()
        teacher.button(key="b_room_start").click().run()
        code = teacher.session_state.room_code
        student = _join(code, "Ann")
        teacher.switch_page("pages/playground.py").run()
        assert any(f"Live class {code}" in m.value for m in teacher.markdown)
    finally:
        server.stop()
    # Redis is gone: the teacher's Playground still steps, and says in words that the class cannot be reached
    # and did not follow
    teacher.button(key="b_step1").click().run()
    assert not teacher.exception and _seen(teacher) == 1
    assert any("Not sent to the class" in e.value and "cannot be reached" in e.value for e in teacher.error)
    student.run()
    assert not student.exception
    # the student keeps the last step that reached them, told in words with no host or port
    said = [w.value for w in student.warning if "cannot be reached" in w.value]
    assert said and "last step" in said[0]
    assert str(server.port) not in said[0] and "127.0.0.1" not in said[0] and ".." not in said[0]
    assert any(f"## Class {code}" in m.value for m in student.markdown)
    # and nothing else breaks: a new class cannot start, in words
    fresh = _session()
    fresh.button(key="b_room_start").click().run()
    assert not fresh.exception and any("cannot be reached" in e.value for e in fresh.error)


def test_classroom_csv_and_lesson_links_from_a_real_store(classroom):
    from cae.classroom import room as roomlib

    teacher, code = classroom
    s = _join(code, "=cmd")
    teacher.button(key="b_room_ask").click().run()
    s.run()
    s.radio(key="w_room_case_1").set_value(0)
    next(b for b in s.button if b.label == "Send my answer").click().run()
    teacher.button(key="b_room_reveal").click().run()
    store = open_store()
    csv = roomlib.answers_csv(store.questions(code), store.answers(code), store.students(code), "http://h:1").decode()
    lines = csv.splitlines()
    assert lines[0] == "question,step,kind,student,answer,answered_at,seconds,correct_answer,right,lesson_link"
    assert len(lines) == 4 and all(line.startswith("1,1,") for line in lines[1:])
    assert "'=cmd" in lines[1] and "Initial phase,yes" in lines[1] and "http://h:1/playground?" in lines[1]


def test_classroom_ended_by_the_teacher_and_expired(classroom, tmp_path):
    teacher, code = classroom
    s = _join(code, "Ann")
    teacher.checkbox(key="w_room_sure").check().run()
    teacher.button(key="b_room_close").click().run()
    assert not teacher.exception and "room_role" not in teacher.session_state
    s.run()
    assert not s.exception and any("ended this class" in i.value for i in s.info)
    # once purged (or expired), a page that still holds the class says so, in words
    open_store().purge(now=__import__("time").time() + 10**6)
    s.run()
    assert not s.exception and any("has ended or expired" in i.value for i in s.info)

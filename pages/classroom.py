"""Classroom: a live class — the teacher's steps on every student's screen, the class's predictions back."""

import streamlit as st

from cae.app.explanations import QUIZ_CHOICES, explain_step, headline, quiz_truth
from cae.app.lesson_links import VIEW_DEFAULTS, parse_playground
from cae.app.streams import SOURCES
from cae.classroom import room as roomlib
from cae.classroom.qr import qr_svg
from cae.classroom.store import BadInput, RoomNotFound, StoreError, normalize_code
from cae.classroom.views import SHARED
from cae.data.csvio import escape_markdown
from pages._classroom_session import (
    POLL_SECONDS,
    become_student,
    become_teacher,
    leave,
    problem_words,
    publish,
    role,
    safely,
    store,
    touch,
)
from pages._classroom_session import (
    poll as student_poll,
)
from pages._common import ensure_entrypoint, message, render_blocks
from pages._playground_session import DEFAULT_CFG, get_playground, lesson_query, network_view

ensure_entrypoint(__file__)  # a direct link (a join link) on a fresh server


def _fmt(v):
    import math

    return (
        "—"
        if v is None or (isinstance(v, float) and math.isnan(v))
        else (f"{v:.3f}" if isinstance(v, float) else f"{v:,}")
    )


def app_base():
    """This app's address as the browser sees it (no page, no query), for the links the page shows."""
    try:
        url = st.context.url or ""
    except Exception:  # noqa: BLE001 - AppTest has no URL
        url = ""
    url = url.split("?")[0].rstrip("/")
    for page in ("/classroom", "/playground"):
        if url.endswith(page):
            url = url[: -len(page)]
    return st.session_state.get("w_room_base") or url or "http://localhost:8501"


def view_of(state):
    """The teacher's view toggles in a published state (defaults where the state says nothing)."""
    parsed, _ = parse_playground(state, streams=list(SOURCES))
    return {**VIEW_DEFAULTS, **parsed["view"]}


# ------------------------------------------------------------------ what every screen of the class draws
def step_figure(view, toggles, record="step", height=520):
    """The network at a shared step, built once for every screen that draws it with these toggles.

    ``record="next"`` draws what the class predicts: the next sample, its s1 and s2, the vigilance region.
    """
    vig, bw, win = toggles["vig"], toggles["bw"], toggles["win"]
    focus, regions = bool(toggles.get("focus")), bool(toggles.get("regions"))
    if record == "next":
        probe = view.probe
        return view.cached(
            ("fig-next", vig, bw, win, focus, regions, height),
            lambda: network_view(
                view,
                record=probe if probe is not None else False,
                vigilance=vig,
                bandwidth=bw,
                window=win,
                current=view.stream.X[view.t] if not view.finished else None,
                current_name="next sample",
                height=height,
                focus=focus,
                all_regions=regions,
            ),
        )
    return view.cached(
        ("fig", vig, bw, win, focus, regions, height),
        lambda: network_view(
            view,
            record=view.record if view.record is not None else False,
            vigilance=vig,
            bandwidth=bw,
            window=win,
            height=height,
            focus=focus,
            all_regions=regions,
        ),
    )


def step_numbers(view, toggles, last_step=True):
    """The Playground's numbers beside the figure: samples seen, stream, counts, NMI/ARI, λ and V."""
    m = view.live_metrics(score_noise=toggles["sn"])
    st.metric("Samples seen", f"{m['samples seen']:,} / {len(view.stream):,}")
    st.metric("Current stream", m["stage"])
    a, b = st.columns(2)
    a.metric("#nodes", m["nodes"])
    b.metric("#clusters", m["clusters"])
    a.metric("NMI", _fmt(m["NMI"]))
    b.metric("ARI", _fmt(m["ARI"]))
    a.metric("λ", _fmt(view.model.deletion_interval_ if view.t else None))
    b.metric("V", _fmt(view.model.threshold_ if view.t else float("nan")))
    if last_step and view.record is not None:
        st.markdown(f"**Last step** · {headline(view.record)}")


def draw_step(view, toggles, key, record="step", height=520):
    """The figure and its numbers side by side, as on the Playground."""
    left, right = st.columns([3, 1.1])
    left.plotly_chart(step_figure(view, toggles, record, height), key=key, config={"displaylogo": False})
    with right:
        step_numbers(view, toggles, last_step=record != "next")


def explanation(view):
    blocks = view.cached("explain", lambda: explain_step(view.record, view.model, view.sample))
    with st.expander(headline(view.record), expanded=True):
        render_blocks(blocks)


def verdict(choice, truth):
    ok = [choice[k] == truth[k] for k in range(3)]
    return (
        f"**What CAE did:** {QUIZ_CHOICES[truth[0]]}  \n"
        f"{'✓' if ok[0] else '✗'} you said: {QUIZ_CHOICES[choice[0]]}  \n"
        f"{'✓' if ok[1] else '✗'} an edge deleted: {'yes' if truth[1] else 'no'} (you said {'yes' if choice[1] else 'no'})  \n"
        f"{'✓' if ok[2] else '✗'} a node deleted: {'yes' if truth[2] else 'no'} (you said {'yes' if choice[2] else 'no'})"
    )


@st.fragment(run_every=POLL_SECONDS)
def watch(code, drawn_version):
    """Every POLL_SECONDS: has the class moved on since this screen was drawn? Then draw it again."""
    try:
        p = student_poll(code)
    except StoreError:  # the class ended or expired: the whole page says so
        st.rerun()
    touch()
    if p is None:
        st.caption(":material/cloud_off: " + (problem_words() or "") + " — trying again every second.")
        return
    if p.version != drawn_version:
        st.rerun()


# ------------------------------------------------------------------ arriving: a link, a code, a nickname
def arrive():
    """Apply a teacher link or a student's own link in the URL; returns the room code the URL names, if any."""
    q = {k: st.query_params.get(k) for k in st.query_params.keys()}
    raw = q.get("room")
    code = None
    if raw:
        try:
            code = normalize_code(raw)
        except BadInput:
            message("warning", "The link's room code {} is not a class code (6 letters and digits).", raw[:40])
    token = q.get("teacher")
    if token is not None:
        ok = False
        if code is not None:
            try:
                ok = bool(safely(store().is_teacher, code, token))
            except StoreError:
                ok = False
        if ok:
            if st.session_state.get("room_token") != token:
                become_teacher(code, token)
        elif problem_words():
            st.error(problem_words())
        else:
            st.error("This teacher link does not open any class: it is not the teacher's, or the class has ended.")
        st.query_params.from_dict({"room": code} if code else {})  # the secret leaves the address bar
    me = q.get("me")
    if me is not None and code is not None and not (role() == "student" and st.session_state.room_sid == me):
        try:
            s = safely(store().student, code, me)
        except StoreError:
            s = None
        if s is not None:
            become_student(code, s.sid, s.nickname)
        elif not problem_words():
            st.warning("This page's student link is not known in that class any more: join again with a nickname.")
            st.query_params.from_dict({"room": code})
    return code


def lobby(code):
    st.title("Classroom")
    st.caption(
        "A live class: the teacher steps CAE on the Playground and every student's screen follows within a "
        "second or two; the teacher asks what CAE will do next, the class answers on their screens, and the "
        "answers come back as a chart before the reveal."
    )
    if problem_words():
        st.error(problem_words() + ". Nothing was lost; try again in a moment.")
    join, teach = st.columns(2, gap="large")
    with join:
        st.header("Join a class")
        with st.form("join"):
            typed = st.text_input("Class code", value=code or "", max_chars=12, key="w_room_code")
            nick = st.text_input(
                "Your nickname",
                max_chars=60,
                key="w_room_nick",
                help="Any name you like, shown to the class (no account, nothing else asked). "
                "If it is taken, a number is added.",
            )
            go = st.form_submit_button("Join", type="primary")
        if go:
            try:
                c = normalize_code(typed)
                s = safely(store().join, c, nick)
            except StoreError as exc:
                message("error", "Cannot join: {}.", exc)
            else:
                if s is not None:
                    become_student(c, s.sid, s.nickname)
                    st.query_params.from_dict({"room": c, "me": s.sid})
                    st.rerun()
                else:
                    st.error(problem_words())
    with teach:
        st.header("Teach a class")
        st.markdown(
            "Start a class, show its code or QR code, and teach on the **Playground** as usual: the class "
            "follows every step. Come back here to ask the class what CAE will do next."
        )
        if st.button("Start a class", type="primary", key="b_room_start"):
            try:
                made = safely(store().create_room)
            except StoreError as exc:
                message("error", "A class cannot be started: {}.", exc)
                made = None
            if made is not None:
                become_teacher(*made)
                st.query_params.from_dict({"room": made[0]})
                st.rerun()
            elif problem_words():
                st.error(problem_words() + ". The Playground works as usual without a class.")
        st.caption("To go on teaching a class from another device, open its teacher link there.")


# ------------------------------------------------------------------ the teacher
def teacher_page():
    code, token = st.session_state.room_code, st.session_state.room_token
    cfg = st.session_state.setdefault("pg_cfg", dict(DEFAULT_CFG))
    pg = get_playground(cfg)
    base = app_base()
    join = roomlib.join_url(base, code)
    gathering = not (safely(store().present, code) or [])
    host = base.split("//")[-1].split(":")[0].split("/")[0]
    if gathering:  # nobody here yet: everything to join, large
        top = st.columns([2.7, 1.1, 0.8])
        with top[0]:
            st.markdown(f"# Class `{code}`")
            st.caption("Students open this link, scan the code, or type the class code on the Classroom page:")
            st.code(join, language=None, wrap_lines=True)
            if host in ("localhost", "127.0.0.1", "::1", "[::1]"):
                address_popover(base)
        with top[1]:
            present_panel(code)
        with top[2]:
            st.image(qr_svg(join, size=160), width=160, alt=f"QR code of the link to join: {join}")
    else:  # the class has started: one line, the QR code a click away for latecomers
        top = st.columns([2.1, 3, 1.2, 1], vertical_alignment="center")
        top[0].markdown(f"## Class `{code}`")
        top[1].code(join, language=None, wrap_lines=True)
        with top[2]:
            present_panel(code)
        with top[3].popover("QR code", icon=":material/qr_code_2:"):
            st.image(qr_svg(join, size=320), width=320, alt=f"QR code of the link to join: {join}")
            if host in ("localhost", "127.0.0.1", "::1", "[::1]"):
                address_popover(base)
    if problem_words():
        st.error(problem_words() + ". Your Playground works as usual; the class follows again once it is back.")

    publish(teacher_state(cfg, pg))
    p = safely(store().poll, code)
    if p is None:
        st.stop()
    if p.closed:
        st.info("This class has ended.")
        if st.button("Leave", key="b_room_leave"):
            leave()
            st.query_params.clear()
            st.rerun()
        st.stop()
    q = p.question
    state = p.state
    c = st.columns([1.2, 2.6, 1, 2.1])
    asking = q is not None and not q.revealed
    if c[0].button(
        "Step 1 ▶",
        key="b_room_step",
        width="stretch",
        disabled=pg.finished or asking,
        help="Reveal first: the class is answering about the next step." if asking else None,
    ):
        pg.step(1)
        publish(teacher_state(cfg, pg))
        st.rerun()
    if not asking:
        if c[1].button(
            f"Ask the class: what will CAE do with sample {pg.t + 1:,}?",
            type="primary",
            key="b_room_ask",
            width="stretch",
            disabled=pg.finished,
        ):
            state = teacher_state(cfg, pg)
            publish(state)
            try:
                safely(store().ask, code, token, pg.t + 1, state)
            except StoreError as exc:
                message("error", "The question cannot be asked: {}.", exc)
            else:
                st.rerun()
    else:
        if c[1].button("Reveal", type="primary", key="b_room_reveal", width="stretch"):
            reveal(code, token, q, cfg, pg)
    c[2].toggle("Names", value=False, key="w_room_names", help="Who answered what, on hover over the chart's bars.")
    c[3].page_link("pages/playground.py", label="Step, play, rewind on the Playground", icon=":material/play_circle:")

    if asking:
        st.subheader(f"Question {q.qid}: what will CAE do with sample {q.step:,}?")
        run, _ = SHARED.for_state(q.state)
        left, right = st.columns([1.25, 1])
        left.plotly_chart(
            step_figure(run.view(q.step - 1), view_of(q.state), "next", height=470),
            key="room_teacher_fig",
            config={"displaylogo": False},
        )
        with right:
            live_answers_chart(code, q, None)
    else:
        run, t = SHARED.for_state(state)
        if q is not None and q.revealed and SHARED.for_state(q.state)[0] is run and t == q.step:
            st.subheader(f"Question {q.qid}, revealed: {QUIZ_CHOICES[q.truth[0]]}")
            view = run.view(t)
            left, right = st.columns([1.25, 1])
            left.plotly_chart(
                step_figure(view, view_of(state), height=470), key="room_teacher_fig", config={"displaylogo": False}
            )
            with right:
                answers_chart(code, q, q.truth)
            explanation(view)
        else:
            st.caption("What the class sees now:")
            draw_step(run.view(t), view_of(state), key="room_teacher_fig")
    results(code, token)


def reveal(code, token, q, cfg, pg):
    run, _ = SHARED.for_state(q.state)
    rec = run.view(q.step - 1).probe
    if rec is None:
        st.error("The stream has ended: there is no next sample to reveal.")
        return
    try:
        done = safely(store().reveal, code, token, q.qid, quiz_truth(rec))
    except StoreError as exc:
        message("error", "Cannot reveal: {}.", exc)
        return
    if done is None:
        return  # the problem shows at the top
    # the teacher's own run goes to the revealed step, and the class with it
    if SHARED.for_state(teacher_state(cfg, pg))[0] is run:
        if q.step <= pg.t_max:
            pg.go_to(q.step)
        else:
            if pg.t < pg.t_max:
                pg.go_to(pg.t_max)
            pg.step(q.step - pg.t)
        publish(teacher_state(cfg, pg))
    else:  # the teacher has changed the stream since: the class still sees the step it was asked about
        publish({**q.state, "t": str(q.step)})
    st.rerun()


def address_popover(base):
    with st.popover(":material/warning: Students cannot open this address", width="content"):
        st.markdown(
            "It is this computer's own address. Start the app with `--server.address 0.0.0.0` and give "
            "the address students' devices can reach (this machine's name or IP address):"
        )
        st.text_input("The address students open", value=base, key="w_room_base")


@st.fragment(run_every=2.0)
def present_panel(code):
    students = safely(store().students, code)
    if students is None:
        st.metric("Students present", "—")
        return
    import time

    now = time.time()
    here = [s for s in students if s.seen >= now - 30]
    st.metric("Students present", len(here), help=f"{len(students)} joined since the class started")
    if here:
        with st.expander("Who is here", expanded=False):
            st.markdown(", ".join(escape_markdown(s.nickname) for s in here))


def answers_chart(code, q, truth, height=430):
    answers = safely(store().answers, code, q.qid)
    students = safely(store().present, code)
    if answers is None or students is None:
        st.caption(problem_words() or "")
        return
    fig = roomlib.answers_figure(
        answers,
        n_students=len(students),
        names=st.session_state.get("w_room_names", False),
        truth=truth,
        height=height,
    )
    st.plotly_chart(fig, key="room_answers_chart", config={"displaylogo": False, "displayModeBar": False})


#: the chart while the question is open: the answers come in every second
live_answers_chart = st.fragment(run_every=1.0)(answers_chart)


def teacher_state(cfg, pg):
    """The teacher's Playground state, with the view toggles last published (this page shows none of them)."""
    q = lesson_query(cfg, pg)
    last = st.session_state.get("room_published") or {}
    for k in VIEW_DEFAULTS:
        q.pop(k, None)
        if k in last:
            q[k] = last[k]
    return q


def results(code, token):
    with st.expander("Scores, the class's answers, and ending the class", expanded=False):
        qs = safely(store().questions, code) or []
        answers = safely(store().answers, code) or []
        students = safely(store().students, code) or []
        sc = roomlib.scores(qs, answers, students)
        if sc:
            import pandas as pd

            st.dataframe(
                pd.DataFrame(
                    [(s.nickname, s.right, s.answered, s.asked) for s in sc],
                    columns=["student", "right", "answered", "revealed questions"],
                ),
                hide_index=True,
            )
        else:
            st.caption("No student has joined yet.")
        base = app_base()
        st.download_button(
            "Download the class's answers (CSV)",
            roomlib.answers_csv(qs, answers, students, base),
            f"class_{code}_answers.csv",
            "text/csv",
            key="d_room_csv",
            on_click="ignore",
            help="One row per question, part of the answer and student: step, kind, answer, time, the correct "
            "answer, and the lesson link of the question.",
        )
        if qs:
            st.markdown(
                "**The lesson link of each question** (the Playground at that step, in quiz mode):\n"
                + "\n".join(f"- question {q.qid}, step {q.step:,}: `{roomlib.question_url(base, q.state)}`" for q in qs)
            )
        st.divider()
        st.caption(
            "Teacher link — opens this class as its teacher on another device. Keep it to yourself: whoever "
            "has it can step and reveal for the class."
        )
        st.code(roomlib.teacher_url(base, code, token), language=None)
        sure = st.checkbox("I want to end this class", key="w_room_sure")
        if st.button("End the class", key="b_room_close", disabled=not sure):
            try:
                safely(store().close, code, token)
            except StoreError as exc:
                message("error", "Cannot end the class: {}.", exc)
            else:
                leave()
                st.query_params.clear()
                st.rerun()


# ------------------------------------------------------------------ a student
def student_page():
    code, sid = st.session_state.room_code, st.session_state.room_sid
    nick = escape_markdown(st.session_state.room_nick)
    if {k: st.query_params.get(k) for k in st.query_params.keys()} != {"room": code, "me": sid}:
        st.query_params.from_dict({"room": code, "me": sid})  # a reload keeps this student
    p = student_poll(code)  # RoomNotFound: the page says the class has ended
    if p is None:
        st.title(f"Class {code}")
        st.error((problem_words() or "The class cannot be reached.") + ". This page tries again every second.")
        watch(code, None)
        return
    if p.closed:
        st.title(f"Class {code}")
        st.info("The teacher has ended this class. Thank you for taking part!")
        _student_score(code, sid)
        if st.button("Leave", key="b_room_leave"):
            leave()
            st.query_params.clear()
            st.rerun()
        return
    head = st.columns([4, 1.3, 1.4])
    head[0].markdown(f"## Class {code} · you are **{nick}**")
    with head[1]:
        _student_score(code, sid)
    if head[2].button(
        "Explore freely",
        key="b_room_explore",
        width="stretch",
        help="Step on your own; come back with Follow the teacher.",
    ):
        go = {k: v for k, v in p.state.items() if k not in ("quiz", "teach")}
        st.switch_page("pages/playground.py", query_params=go)
    state = p.state
    if not state:
        st.info("Waiting for the teacher to start…")
        watch(code, p.version)
        return
    q = p.question
    run, t = SHARED.for_state(state)
    mine = _my_answers(code, sid)
    if q is not None and not q.revealed:
        qrun, _ = SHARED.for_state(q.state)
        view = qrun.view(q.step - 1)
        left, right = st.columns([1.7, 1])
        with right:
            st.markdown(f"### Question {q.qid}: what will CAE do with sample {q.step:,}?")
            st.caption(
                "The star is the next sample; s1 and s2 (ringed) are its two nearest nodes by CIM, and the dotted "
                "region is where CIM to s1 is at most V."
            )
            if q.qid in mine:
                c = mine[q.qid]
                st.success(
                    f"Your answer is in: {QUIZ_CHOICES[c[0]]}; an edge deleted: {'yes' if c[1] else 'no'}; a node "
                    f"deleted: {'yes' if c[2] else 'no'}. Wait for the reveal."
                )
            else:
                answer_form(code, sid, q)
        left.plotly_chart(
            step_figure(view, view_of(q.state), "next", height=500),
            key="room_student_fig",
            config={"displaylogo": False},
        )
        m = view.live_metrics(score_noise=view_of(q.state)["sn"])
        right.caption(
            f"{m['samples seen']:,} of {len(view.stream):,} samples seen · {m['stage']} · {m['nodes']} nodes · "
            f"{m['clusters']} clusters · V = {_fmt(view.model.threshold_ if view.t else float('nan'))}"
        )
    elif q is not None and q.revealed and SHARED.for_state(q.state)[0] is run and t == q.step:
        view = run.view(t)
        c = mine.get(q.qid)
        if c is None:
            st.info(f"Question {q.qid}: {QUIZ_CHOICES[q.truth[0]]} — you did not answer this one.")
        else:
            right = roomlib.is_right(c, q.truth)
            (st.success if right else st.error)("Right!" if right else "Not quite.")
            st.markdown(verdict(c, q.truth))
        draw_step(view, view_of(state), key="room_student_fig")
        explanation(view)
    else:
        if q is not None and q.revealed:  # the class has moved on since the reveal: the result in a line
            c = mine.get(q.qid)
            said = (
                "you did not answer"
                if c is None
                else ("you were right" if roomlib.is_right(c, q.truth) else "not quite")
            )
            st.caption(f"Question {q.qid} ({QUIZ_CHOICES[q.truth[0]].split(':')[0]}): {said}.")
        draw_step(run.view(t), view_of(state), key="room_student_fig")
        st.caption("You see the teacher's step. It follows the teacher by itself.")
    watch(code, p.version)


def _my_answers(code, sid):
    mine = st.session_state.get("room_answers")
    if mine is None:  # a resumed page: what this student answered before
        got = safely(store().answers, code) or []
        mine = st.session_state.room_answers = {a.qid: a.choice for a in got if a.sid == sid}
    return mine


def _student_score(code, sid):
    qs = safely(store().questions, code) or []
    mine = _my_answers(code, sid)
    revealed = [q for q in qs if q.revealed]
    right = sum(roomlib.is_right(mine[q.qid], q.truth) for q in revealed if q.qid in mine)
    st.metric("Your score", f"{right} / {len(revealed)}")


def answer_form(code, sid, q):
    with st.form(f"room_answer_{q.qid}"):
        case = st.radio(
            "What will CAE do?",
            list(QUIZ_CHOICES),
            format_func=QUIZ_CHOICES.get,
            index=None,
            key=f"w_room_case_{q.qid}",
        )
        edge = st.checkbox("An edge will be deleted", key=f"w_room_edge_{q.qid}")
        node = st.checkbox("A node will be deleted (isolated-node sweep)", key=f"w_room_node_{q.qid}")
        sent = st.form_submit_button("Send my answer", type="primary")
    if sent:
        if case is None:
            st.warning("Choose what CAE will do first.")
            return
        try:
            a = safely(store().answer, code, sid, q.qid, (case, edge, node))
        except StoreError as exc:
            message("error", "Your answer was not counted: {}.", exc)
            return
        if a is None:
            st.error(problem_words() + ". Your answer was not sent; try again in a moment.")
            return
        st.session_state.room_answers[q.qid] = a.choice
        st.rerun()


# ------------------------------------------------------------------ the page
code = arrive()
r = role()
try:
    if r == "teacher":
        teacher_page()
    elif r == "student":
        student_page()
except RoomNotFound:
    st.info(f"Class {st.session_state.get('room_code', '')} has ended or expired. Thank you!")
    if st.button("Back to the Classroom page", key="b_room_gone"):
        leave()
        st.query_params.clear()
        st.rerun()
    st.stop()
if r not in ("teacher", "student"):
    if r == "ended":
        st.info("The class you were teaching has ended or expired.")
        leave()
    lobby(code)

"""The Classroom page's teacher's view: how to join (the code, the link, the QR code), who is here, the class's
controls (Step, Ask, Reveal), what the class sees or the open question with its answers coming in, the scores and the
class's CSV, and the controls of the class (lock, rename, remove, the teacher link, ending it).

Also the teacher's ways in: a teacher link opened here (:func:`open_teacher_link`), this browser's teacher cookie on
a reload (:func:`teacher_by_cookie`), and the lobby's *Teach a class* half (:func:`teach_form`). The teacher's
session, the store and the publishing of the lesson state are :mod:`cae.streamlit_glue.classroom_session`.
"""

from __future__ import annotations

import json
import os

import streamlit as st

from cae.app.explanations import QUIZ_CHOICES, quiz_truth
from cae.app.lesson_links import VIEW_DEFAULTS
from cae.classroom import classes_elsewhere
from cae.classroom import room as roomlib
from cae.classroom.qr import qr_svg
from cae.classroom.store import StoreError
from cae.classroom.views import SHARED

from .classroom_common import app_base, draw_step, explanation, question_summary, start_class, step_figure, view_of
from .classroom_session import (
    become_teacher,
    class_lesson_in,
    follow_class,
    forget_teacher,
    leave,
    notice_words,
    problem_words,
    publish,
    refuse,
    safely,
    show_refused,
    store,
    store_back,
    teaching_cookies,
    tell_stale,
    trusted_proxies_warning,
    unsent_choice,
)
from .common import message, network_summary
from .fragment import fragment
from .lesson_links import lesson_apply, lesson_query
from .playground_session import get_playground
from .session import session


# ------------------------------------------------------------------ a teacher's way in: a new class, a link, a cookie
def teach_form():
    """The lobby's *Teach a class* half: *Start a class* (with the server's passphrase, when it asks for one)."""
    st.header("Teach a class")
    st.markdown(
        "Start a class, show its code or QR code, and teach on the **Playground** as usual: the class "
        "follows every step. Come back here to ask the class what CAE will do next."
    )
    passphrase = None
    if os.environ.get("CAE_CLASSROOM_TEACHER_KEY"):
        passphrase = st.text_input(
            "Teacher passphrase",
            type="password",
            key="w_room_passphrase",
            help="This server asks teachers for a passphrase to start a class (its administrator gave it).",
        )
    if st.button("Start a class", type="primary", key="b_room_start"):
        made = start_class(passphrase)
        if made is not None:
            become_teacher(*made)
            st.query_params.from_dict({"room": made[0]})
            st.rerun()
        elif problem_words():
            st.error(problem_words() + ". The Playground works as usual without a class.")
    st.caption("To go on teaching a class from another device, open its teacher link there.")


def open_teacher_link(code, token):
    """A teacher link opened here: the class's teacher (or why not). The token leaves the address bar at once
    and the browser's history too: this entry is replaced in the browser (the server's own change of the URL
    would add an entry after the one with the token, which Back would bring back), and the server's copy of
    the URL follows on the next run."""
    ss = st.session_state
    if ss.get("room_link_read") == token:  # the entry is clean already: now the server's copy of the URL
        st.query_params.from_dict({"room": code} if code else {})
        return
    ss.room_link_read = token
    ok = False
    if code is not None:
        try:
            ok = bool(safely(store().is_teacher, code, token))
        except StoreError:
            ok = False
    if ok:
        if ss.get("room_token") != token:
            become_teacher(code, token)
    elif problem_words():
        st.error(problem_words())
    else:
        st.error("This teacher link does not open any class: it is not the teacher's, or the class has ended.")
    clean = "?room=" + code if code else ""
    st.html(
        f"<script>history.replaceState(history.state, '', location.pathname + {json.dumps(clean)});</script>",
        unsafe_allow_javascript=True,
        width=1,
    )


def teacher_by_cookie(code):
    """A teacher's reload: this browser keeps the class's token (or, when the class is gone, says why)."""
    kept = teaching_cookies().get(code)
    if not kept:
        return
    try:
        ok = bool(safely(store().is_teacher, code, kept[0]))
    except StoreError:  # ended, expired, or lost with the store: the lobby says which
        st.session_state.room_gone_cookie = (code, kept[1])
        return
    if ok:
        become_teacher(code, kept[0])
        st.session_state.room_cookie_due = False
        st.toast(f"Welcome back: you teach class {code} (this browser remembers it).", icon=":material/key:")


# ------------------------------------------------------------------ the teacher's page
def teacher_page():
    """The teacher's page: how to join, the class's controls (step, ask, reveal), what the class sees, the results.

    The class's lesson in the store comes first (a reload, another device, a restarted server): this session's
    run is rebuilt from it before anything is published (:func:`cae.streamlit_glue.classroom_session.class_lesson_in`)."""
    code, token = st.session_state.room_code, st.session_state.room_token
    if st.query_params.get("room") != code and "teacher" not in st.query_params:
        st.query_params.from_dict({"room": code})  # a reload comes back to this class (the cookie holds its token)
    drawn = st.session_state.get("room_teacher_drawn")  # the class as the page the teacher used showed it
    class_lesson_in("classroom")
    cfg = session().cfg
    pg = get_playground(cfg)
    lesson_apply(pg)
    _teacher_header(code, cfg, pg)
    publish(teacher_state(cfg, pg))
    p = _teacher_poll(code)
    q, state = p.question, p.state
    asking = q is not None and not q.revealed
    state = _teacher_controls(code, token, cfg, pg, q, state, asking, drawn)
    st.session_state.room_teacher_drawn = (p.state, q.qid if q is not None else 0)
    _teacher_view(code, q, state, asking)
    results(code, token)


def _teacher_header(code, cfg, pg):
    """How to join (large while nobody is here yet; one line and a QR code a click away once the class started),
    and what the store said."""
    base = app_base()
    join = roomlib.join_url(base, code)
    gathering = st.session_state.room_gathering = not (safely(store().present, code) or [])
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
    if not gathering:
        with st.expander("Who is here", expanded=False):
            roster(code)
    _teacher_messages(code)


def _teacher_messages(code):
    """What the store said (a failure, a refused action, a step not sent, a restored file) and what the page did
    by itself (the class's state adopted), under the header; the page follows the class meanwhile. Words of a
    failure the store has got over are not drawn (:func:`cae.streamlit_glue.classroom_session.store_back`)."""
    store_back()
    show_refused()
    if problem_words():
        st.error(problem_words() + ". Your Playground works as usual; the class follows again once it is back.")
        with st.expander("Details for whoever runs the server (the store's address and its error)"):
            st.caption(problem_words(teacher=True))
    if st.session_state.get("room_unsent") is not None:
        unsent_choice(st, safely(store().poll, code))
    adopted = st.session_state.pop("room_said", None)
    if adopted:
        st.caption(":material/sync: " + adopted)
    said = notice_words()
    if said:
        st.warning(said, icon=":material/restore:")
    if getattr(store(), "note", None):  # not the usual folder: the teacher knows which store holds the class
        message("warning", "This class is kept in {}.", store().location)
    if elsewhere := classes_elsewhere(store()):  # a setting chose this store: the teacher learns where the others are
        message("info", "{}", elsewhere)
    proxies = trusted_proxies_warning()
    if proxies:
        st.warning(proxies)
    follow_class()


def _teacher_poll(code):
    """The class's news (the page stops here while the store is away or once the class has ended)."""
    p = safely(store().poll, code)
    st.session_state.room_drawn_ok = p is not None
    if p is None:
        st.caption("The class's controls come back by themselves as soon as the store answers.")
        recover_when_back(code)
        st.stop()
    if p.closed:
        st.info("This class has ended.")
        if st.button("Leave", key="b_room_leave"):
            leave()
            st.query_params.clear()
            st.rerun()
        st.stop()
    return p


def _teacher_controls(code, token, cfg, pg, q, state, asking, drawn):
    """Step, Ask (or Reveal while the class answers), Names, the way to the Playground. Returns the lesson state
    to draw (the one just published when a question could not be asked).

    A press of Ask or Reveal is sent to the store even when the class has changed since the page showed the button
    (another device asked or revealed meanwhile, so this run draws the other button): the store compares the class
    with ``drawn`` (the lesson state and the latest question the page showed) and refuses in words, never
    silently."""
    c = st.columns([1.2, 2.6, 1, 2.1])
    diverged = st.session_state.get("room_unsent") is not None  # the class is not where this page is: choose first
    ask_pressed = st.session_state.get("b_room_ask") is True  # (pressed on the page as it was drawn)
    reveal_pressed = st.session_state.get("b_room_reveal") is True
    if c[0].button(
        "Step 1 ▶",
        key="b_room_step",
        width="stretch",
        disabled=pg.finished or asking or diverged,
        help="Reveal first: the class is answering about the next step." if asking else None,
    ):
        step_class(cfg, pg)
    asked_about = st.session_state.get("room_ask_drawn", pg.t + 1)  # the sample the pressed button named
    if not asking:
        st.session_state.room_ask_drawn = pg.t + 1
        c[1].button(
            f"Ask the class: what will CAE do with sample {pg.t + 1:,}?",
            type="primary",
            key="b_room_ask",
            width="stretch",
            disabled=pg.finished or diverged,
        )
    else:
        c[1].button("Reveal", type="primary", key="b_room_reveal", width="stretch")
    if ask_pressed and not pg.finished and not diverged:
        ask_class(code, token, cfg, pg, drawn, asked_about)
    if reveal_pressed and q is not None:
        reveal(code, token, q, cfg, pg)
    c[2].toggle("Names", value=False, key="w_room_names", help="Who answered what, on hover over the chart's bars.")
    c[3].page_link("pages/playground.py", label="Step, play, rewind on the Playground", icon=":material/play_circle:")
    return state


def step_class(cfg, pg):
    """Step 1: the class and this page move on together, or neither does (the page says why)."""
    from cae.classroom.store import StoreUnavailable

    before = pg.t
    pg.step(1)
    if not publish(teacher_state(cfg, pg), acted=True):
        pg.go_to(before)
        st.session_state.pop("room_unsent", None)
        why = st.session_state.pop("room_unsent_why", ("the class's store cannot be written", ""))
        refuse(f"Step 1 was not taken: the class and this page stay at t = {before:,}", StoreUnavailable(*why))
    st.rerun()


def ask_class(code, token, cfg, pg, drawn=None, asked_about=None):
    """Ask the class about the next sample: asked, or refused in words with nothing changed — also when another
    device asked first (one question at a time, and compare-and-set against the class as the page showed it,
    ``drawn``: its lesson state and latest question; the store decides, and this page then shows the class as it
    is). ``asked_about``: the sample the pressed button named (the words say what the teacher pressed, also when
    the page has moved since)."""
    from cae.classroom.store import QuestionOpen, Stale, StoreUnavailable

    state = teacher_state(cfg, pg)
    what = f"The question about sample {asked_about or pg.t + 1:,} was not asked"
    if not publish(state, acted=True):
        st.session_state.pop("room_unsent", None)
        refuse(what, StoreUnavailable(*st.session_state.pop("room_unsent_why", ("the store failed", ""))))
        st.rerun()
    try:
        expect, last = drawn if drawn is not None else (None, None)
        store().ask(code, token, pg.t + 1, state, expect=expect, last=last)
    except QuestionOpen as exc:
        tell_stale(f"{what} — {exc}, asked from another device; it is shown below. Nothing else changed.")
    except Stale as exc:
        tell_stale(f"{what} — {exc}. This page now shows the class as it is; ask again if you still want to.")
    except StoreUnavailable as exc:
        refuse(what, exc)
    except StoreError as exc:
        message("error", "The question cannot be asked: {}.", exc)
        return
    st.rerun()


def _teacher_view(code, q, state, asking):
    """The open question with its live answers, a revealed one with the answers and the step explained, or what
    the class sees now."""
    if asking:
        st.subheader(f"Question {q.qid}: what will CAE do with sample {q.step:,}?")
        run, _ = SHARED.for_state(q.state)
        left, right = st.columns([1.25, 1])
        left.plotly_chart(
            step_figure(run.view(q.step - 1), view_of(q.state), "next", height=470),
            key="room_teacher_fig",
            config={"displaylogo": False},
        )
        with left:
            question_summary(run.view(q.step - 1), q, "room_teacher_fig")
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
            with left:
                network_summary(view, "room_teacher_fig")
            with right:
                answers_chart(code, q, q.truth)
            explanation(view)
        else:
            st.caption("What the class sees now:")
            draw_step(run.view(t), view_of(state), key="room_teacher_fig")


@fragment(run_every=1.0)
def recover_when_back(code):
    """While the store is away: every second, ask it again; once it answers — with the class, or without it (a
    store that came back empty) — the whole page is drawn again, and says which (within 2 s of its return)."""
    from cae.classroom.store import StoreUnavailable

    try:
        store().poll(code)
    except StoreUnavailable:
        return
    except StoreError:
        pass  # the class is gone: the page says so
    st.rerun()


def reveal(code, token, q, cfg, pg):
    """Reveal the question, and move the class (and this page) to its step in the same write; or neither, and
    the page says why (the question stays open with its answers, or another device revealed it first: the page
    showed it open)."""
    from cae.classroom.store import Stale, StoreUnavailable

    run, _ = SHARED.for_state(q.state)
    rec = run.view(q.step - 1).probe
    if rec is None:
        st.error("The stream has ended: there is no next sample to reveal.")
        return
    before = pg.t
    if SHARED.for_state(teacher_state(cfg, pg))[0] is run:  # the teacher's own run goes to the revealed step
        if q.step <= pg.t_max:
            pg.go_to(q.step)
        else:
            if pg.t < pg.t_max:
                pg.go_to(pg.t_max)
            pg.step(q.step - pg.t)
        state = teacher_state(cfg, pg)
    else:  # the teacher has changed the stream since: the class still sees the step it was asked about
        state = {**q.state, "t": str(q.step)}
    try:
        store().reveal(code, token, q.qid, quiz_truth(rec), state=state, seen_open=True)
    except Stale as exc:
        pg.go_to(before)
        st.session_state.room_adopt_now = True  # the class's state, as the device that revealed it left it
        tell_stale(f"Question {q.qid} was not revealed by this page — {exc}. This page now shows the class as it is.")
    except StoreUnavailable as exc:
        pg.go_to(before)
        refuse(f"Question {q.qid} was not revealed: it stays open, with its answers", exc)
    except StoreError as exc:
        pg.go_to(before)
        message("error", "Cannot reveal: {}.", exc)
        return
    else:
        st.session_state.room_published = dict(state)
    st.rerun()


def address_popover(base):
    with st.popover(":material/warning: Students cannot open this address", width="content"):
        st.markdown(
            "It is this computer's own address. Start the app with `--server.address 0.0.0.0` and give "
            "the address students' devices can reach (this machine's name or IP address):"
        )
        st.text_input("The address students open", value=base, key="w_room_base")


@fragment(run_every=2.0)
def present_panel(code):
    students = safely(store().students, code)
    if students is None:
        if st.session_state.get("room_drawn_ok"):  # the store just went away: the whole page says so
            st.session_state.room_drawn_ok = False
            st.rerun()
        st.metric("Students present", "—")
        return
    import time

    now = time.time()
    here = [s for s in students if s.seen >= now - 30]
    if bool(here) == st.session_state.get("room_gathering", False):  # the first came, or the last left
        st.rerun()  # the whole header changes: large while gathering, one line with who is here after
    st.metric("Students present", len(here), help=f"{len(students)} joined since the class started")


@fragment(run_every=5.0)
def roster(code):
    """Who is here, as a list that reads with 500 names: sorted, in as many columns as the page is wide, at most
    a screen's third tall (it scrolls down), with a box to find one name. Each name is text, never rendered."""
    import time
    from html import escape

    students = safely(store().present, code, time.time())
    if students is None:
        st.caption(problem_words() or "")
        return
    find = st.text_input("Find a student", key="w_room_find", placeholder="part of a nickname")
    shown = sorted((s.nickname for s in students), key=str.casefold)
    if find.strip():
        shown = [n for n in shown if find.strip().casefold() in n.casefold()]
    st.caption(f"{len(shown):,} of {len(students):,} present" if find.strip() else f"{len(students):,} present")
    items = "".join(
        f'<li style="break-inside:avoid;overflow:hidden;text-overflow:ellipsis;white-space:nowrap">{escape(n)}</li>'
        for n in shown
    )
    st.html(  # a grid read row by row, as many columns as fit, scrolling down (never sideways)
        '<ul aria-label="Students present" style="list-style:none;margin:0;padding:0;display:grid;'
        "grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));column-gap:1.5rem;line-height:1.5;"
        f'max-height:16rem;overflow-y:auto">{items}</ul>'
    )


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
live_answers_chart = fragment(run_every=1.0)(answers_chart)


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
    with st.expander("Scores and the class's answers (CSV)", expanded=False):
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
    class_controls(code, token)


def class_controls(code, token):
    """Lock, remove, rename, the teacher link (never shown by default) and ending the class."""
    with st.expander("Class controls: lock, students, the teacher link, ending", expanded=False):
        p = safely(store().poll, code)
        locked = bool(p and p.locked)
        if (
            st.toggle(
                "Class locked (no new students)",
                value=locked,
                key=f"w_room_lock_{locked}",
                help="Who is in stays in; a new nickname cannot join until you open the class again.",
            )
            != locked
        ):
            if act("Locking the class" if not locked else "Opening the class", store().lock, code, token, not locked)[
                0
            ]:
                st.rerun()
        message("caption", "Where the class is kept: {}.", store().location)
        students_controls(code, token)
        st.divider()
        teacher_link_controls(code, token)
        st.divider()
        sure = st.checkbox("I want to end this class", key="w_room_sure")
        if st.button("End the class", key="b_room_close", disabled=not sure):
            if act("Ending the class", store().close, code, token)[0]:
                forget_teacher(code)
                leave()
                st.query_params.clear()
                st.rerun()


def act(what, fn, *args, **kwargs):
    """A teacher's action on the store: ``(True, its result)``; or ``(False, None)``, and the page says why — at
    its top when the store failed (nothing changed: every write is atomic), here when the store refused it."""
    from cae.classroom.store import StoreUnavailable

    try:
        return True, fn(*args, **kwargs)
    except StoreUnavailable as exc:
        refuse(f"{what} was not done", exc)
        st.rerun()
    except StoreError as exc:
        message("error", what + " was not done: {}.", exc)
    return False, None


def students_controls(code, token):
    """Rename one student (their own page shows the new name); remove several at once (their answers go, their
    pages say so, and the browsers that held their places cannot join again)."""
    students = safely(store().students, code) or []
    if not students:
        st.caption("No student has joined yet.")
        return
    nick_of = {s.sid: s.nickname for s in students}
    a, b = st.columns(2)
    sid = a.selectbox("Rename a student", list(nick_of), format_func=nick_of.get, key="w_room_pick")
    new = a.text_input("New nickname", key="w_room_rename", max_chars=60)
    if a.button("Rename", key="b_room_rename", disabled=not new.strip()):
        if act("Renaming", store().rename_student, code, token, sid, new)[0]:
            st.rerun()
    gone = b.multiselect(
        "Remove students",
        list(nick_of),
        format_func=nick_of.get,
        key="w_room_remove",
        help="Type to find a name; choose as many as needed.",
    )
    sure = b.checkbox(
        f"Remove {len(gone)} student(s) and their answers (their browsers cannot join again)",
        key="w_room_remove_sure",
        disabled=not gone,
    )
    if b.button(f"Remove {len(gone)}", key="b_room_remove", disabled=not (sure and gone)):
        if act("Removing", store().remove_students, code, token, gone)[0]:
            st.session_state.pop("w_room_remove_sure", None)
            st.session_state.pop("w_room_remove", None)
            st.rerun()


def teacher_link_controls(code, token):
    """The teacher link opens this class as its teacher anywhere: copied, or shown only when asked twice."""
    url = roomlib.teacher_url(app_base(), code, token)
    st.markdown(
        "**Teacher link** — opens this class as its teacher on another device. This browser keeps it by itself "
        "(a reload keeps your class). Whoever sees it can step and reveal for the class, so it is never shown "
        "on the projector unless you ask."
    )
    copy_button(code)
    if st.checkbox("Show the teacher link on screen (students may see it)", key="w_room_show_link"):
        st.warning("Anyone who sees or photographs this link controls the class. Make a new one afterwards.")
        st.code(url, language=None)
    if st.button(
        "Make a new teacher link (the old one stops working)",
        key="b_room_rotate",
        help="After the link was seen by someone else: the old link and every device that used it lose control.",
    ):
        done, new = act("Making a new teacher link", store().rotate_token, code, token)
        if done:
            if new is not None:
                st.session_state.room_token = new
                st.session_state.room_cookie_due = True
                st.session_state.pop("w_room_show_link", None)
                st.rerun()


def copy_button(code):
    """A button that copies the teacher link of class ``code`` to the clipboard without showing it, nor holding it
    in the page: when clicked, it asks the app's own route for the link this browser's teacher cookie makes
    (:mod:`cae.classroom.web`). Browsers allow copying on https or localhost; elsewhere the button says so, and the
    link can be shown instead."""
    from cae.classroom import web

    ask = (
        json.dumps(f"{web.TEACHER_LINK_ROUTE}?room={code}&base=")
        + " + encodeURIComponent("
        + json.dumps(app_base())
        + ")"
    )
    st.html(
        '<button id="cae-copy-teacher" type="button" style="font:inherit;padding:.35rem .8rem;'
        'border:1px solid #6b7280;border-radius:.5rem;background:#fff;color:#111827;cursor:pointer">'
        "Copy the teacher link</button> "
        '<span id="cae-copy-said" role="status" style="margin-left:.5rem;color:#1f2937"></span>'
        "<script>(function(){const b=document.getElementById('cae-copy-teacher');"
        "const said=document.getElementById('cae-copy-said');if(!b)return;"
        "b.onclick=async()=>{let url=null;"
        f"try{{const r=await fetch({ask},{{credentials:'same-origin'}});const got=await r.json();url=got.url||null;}}"
        "catch(e){url=null;}"
        "if(!url){said.textContent='This browser keeps no teacher link for this class yet: reload the page and try "
        "again.';return;}"
        "try{await navigator.clipboard.writeText(url);said.textContent='Copied: paste it on your other device.';}"
        "catch(e){said.textContent='This browser does not allow copying here (the page is not on https or "
        "localhost): show the link below instead.';}};})();</script>",
        unsafe_allow_javascript=True,
    )

"""The live classroom's session glue: the store, this session's role in a class, and the small hook the
Playground calls (the teacher's steps published; a student's way back to following the teacher).

The Playground calls two functions and nothing else: :func:`classroom_bar` near its top and
:func:`publish_step` each time it writes its lesson link. Everything else of the classroom is on
``pages/classroom.py``; the store and room logic are in ``cae.classroom`` (no Streamlit there).

Session state (all keys start with ``room_``): ``room_role`` ("teacher" or "student"), ``room_code``,
``room_token`` (the teacher's secret), ``room_sid`` and ``room_nick`` (the student's id and nickname),
``room_published`` (the last state this teacher wrote), ``room_problem`` (what the store last said when
it failed), ``room_touched`` (when this student's presence was last written).
"""

from __future__ import annotations

import os
import time

import streamlit as st

from cae.classroom import names
from cae.classroom.store import StoreError, StoreUnavailable
from cae.data.csvio import escape_markdown

#: how often a student's page asks the store for news (the teacher's step reaches it within this, plus a rerun)
POLL_SECONDS = 1.0
#: a student's presence is written at most this often
TOUCH_SECONDS = 10.0


def poll(code):
    """The class's news for a student's page: one store read per class and process every 0.25 s, shared by
    every student's page (``CAE_CLASSROOM_POLL_SHARE`` seconds; 0 reads the store for every page)."""
    try:
        share = float(os.environ.get("CAE_CLASSROOM_POLL_SHARE", "0.25"))
    except ValueError:
        share = 0.25
    return safely(store().poll_recent, code, max_age=share) if share > 0 else safely(store().poll, code)


@st.cache_resource(show_spinner=False)
def _open(url):
    from cae.classroom import open_store

    return open_store(url or None)


def store():
    """The process's store, as ``CAE_CLASSROOM_URL`` names it (SQLite in the per-user data folder by default)."""
    return _open(os.environ.get("CAE_CLASSROOM_URL", ""))


def safely(fn, *args, **kwargs):
    """``fn(*args)``, or None when the store fails; the words of the failure go to ``room_problem``.

    Only :class:`StoreUnavailable` is swallowed here; the other :class:`StoreError` (a wrong token, a full
    class, an answer given already) are the caller's to show.
    """
    try:
        out = fn(*args, **kwargs)
    except StoreUnavailable as exc:
        st.session_state.room_problem = str(exc)
        return None
    st.session_state.pop("room_problem", None)
    return out


def problem_words():
    """What to say while the store is unreachable (None when it is fine)."""
    p = st.session_state.get("room_problem")
    return None if p is None else "The class cannot be reached right now — " + escape_markdown(p)


def role():
    return st.session_state.get("room_role")


def become_teacher(code, token):
    for k in ("room_sid", "room_nick", "room_published", "room_answers"):
        st.session_state.pop(k, None)
    st.session_state.room_role, st.session_state.room_code, st.session_state.room_token = "teacher", code, token


def become_student(code, sid, nickname):
    for k in ("room_token", "room_published", "room_answers"):
        st.session_state.pop(k, None)
    st.session_state.room_role, st.session_state.room_code = "student", code
    st.session_state.room_sid, st.session_state.room_nick = sid, nickname


def leave():
    for k in [k for k in st.session_state if str(k).startswith("room_")]:
        del st.session_state[k]


def publish(state):
    """The teacher's lesson state to the class (only when it changed). Returns False when it could not be sent."""
    if role() != "teacher":
        return True
    if st.session_state.get("room_published") == state:
        return True
    try:
        store().publish(st.session_state.room_code, st.session_state.room_token, state)
    except StoreUnavailable as exc:
        st.session_state.room_problem = str(exc)
        return False
    except StoreError as exc:  # the class ended or expired, or the token no longer fits
        st.session_state.room_problem = str(exc)
        st.session_state.room_role = "ended"
        return False
    st.session_state.room_published = dict(state)
    st.session_state.pop("room_problem", None)
    return True


def publish_step(cfg, pg, t=None):
    """The Playground's hook: the teacher's step ``t`` (default the run's) to the class (when this session
    teaches one). Never raises.

    The Playground calls it as soon as a frame has stepped (before it draws) and once more at the end of
    its run (for everything else that changes the lesson state); only a changed state is written.
    """
    if role() == "teacher":
        from pages._playground_session import lesson_query

        publish(lesson_query(cfg, pg, t))


def touch():
    """Note this student's page as present (at most every TOUCH_SECONDS)."""
    if role() != "student" or time.monotonic() - st.session_state.get("room_touched", -1e9) < TOUCH_SECONDS:
        return
    st.session_state.room_touched = time.monotonic()
    safely(store().touch, st.session_state.room_code, st.session_state.room_sid)


def classroom_bar():
    """The Playground's hook, near its top: one line about the class this session is in (nothing otherwise)."""
    r = role()
    if r == "teacher":
        code = st.session_state.room_code
        students = safely(store().present, code)
        with st.container(border=True):
            c = st.columns([5, 1.3])
            if students is None:
                c[0].warning(
                    problem_words() + ". Your Playground works as usual; the class will follow again once it is back."
                )
            else:
                c[0].markdown(
                    f":material/podcasts: **Live class {code}** · {len(students)} student(s) following: every step "
                    "you take here is shown on their screens."
                )
            c[1].page_link("pages/classroom.py", label="Ask the class →", icon=":material/quiz:")
    elif r == "student":
        _student_bar()


@st.fragment(run_every=2.0)
def _student_bar():
    code = st.session_state.room_code
    with st.container(border=True):
        c = st.columns([5, 1.4])
        try:
            p = poll(code)
        except StoreError:  # ended or expired
            c[0].info(f"Class {code} has ended. You can keep exploring on your own.")
            if c[1].button("Leave the class", key="b_room_leave_bar", width="stretch"):
                leave()
                st.rerun()
            return
        touch()
        nick = names.for_markdown(st.session_state.room_nick)
        if p is None:
            c[0].warning(problem_words())
        elif p.closed:
            c[0].info(f"Class {code} has ended. You can keep exploring on your own.")
        elif p.question is not None and not p.question.revealed:
            c[0].warning(f"**The teacher asks a question** (class {code}, you are {nick}): follow to answer it.")
        else:
            c[0].markdown(f":material/explore: Class **{code}** · you are **{nick}** · exploring on your own")
        if c[1].button("Follow the teacher", key="b_room_follow", type="primary", width="stretch"):
            st.switch_page("pages/classroom.py", query_params={"room": code})

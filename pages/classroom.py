"""Classroom: a live class — the teacher's steps on every student's screen, the class's predictions back.

The page says who this session is in a class (from the link, or this browser's cookies) and draws that person's
view: the teacher's (:mod:`cae.streamlit_glue.classroom_teacher`), a student's
(:mod:`cae.streamlit_glue.classroom_student`), or the lobby, where one joins or starts a class.
"""

import streamlit as st

from cae.classroom.store import BadInput, RoomNotFound, StoreReset, normalize_code
from cae.streamlit_glue import classroom_student as student
from cae.streamlit_glue import classroom_teacher as teacher
from cae.streamlit_glue.classroom_common import class_gone
from cae.streamlit_glue.classroom_session import (
    forget_teacher,
    gone_words,
    keep_browser_cookie,
    leave,
    problem_words,
    rejoin_by_cookie,
    remember_teacher,
    role,
)
from cae.streamlit_glue.common import ensure_entrypoint, message

ensure_entrypoint(__file__)  # a direct link (a join link) on a fresh server


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
    if token is None and code is not None and role() is None:
        teacher.teacher_by_cookie(code)
    elif token is None and raw is None and role() is None:
        rejoin_by_cookie()  # the Classroom opened without a code (its link, F5 there): the class this browser teaches
    if token is not None:
        teacher.open_teacher_link(code, token)
    me = q.get("me")
    if me is not None and code is not None and not (role() == "student" and st.session_state.room_sid == me):
        student.resume_student(code, me, force=False)
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
    gone = st.session_state.pop("room_gone_cookie", None)
    if gone is not None:  # this browser taught a class the store no longer has
        st.info(gone_words(*gone) + " Start a new class below.", icon=":material/cloud_off:")
        forget_teacher(gone[0])
    join, teach = st.columns(2, gap="large")
    with join:
        student.join_form(code)
    with teach:
        teacher.teach_form()


# ------------------------------------------------------------------ the page
code = arrive()
keep_browser_cookie()
r = role()
if r == "teacher" and st.session_state.pop("room_cookie_due", False):
    remember_teacher(st.session_state.room_code, st.session_state.room_token)
try:
    if r == "teacher":
        teacher.teacher_page()
    elif r == "student":
        student.student_page()
except (RoomNotFound, StoreReset):
    class_gone(r)
if r == "taken":
    student.taken_prompt()
    st.stop()
if r is None and st.session_state.get("room_takeover"):
    student.takeover_prompt()
    st.stop()
if r not in ("teacher", "student"):
    if r == "ended":
        st.info("The class you were teaching has ended or expired.")
        leave()
    lobby(code)

"""The Classroom page's student's view: the teacher's step, followed as the server pushes it (one fragment per
page runs again, not the whole page), the open question with its answer form, a revealed one explained, the
student's score, and what the page says when the class or the store is away.

Also the student's ways in: the lobby's *Join a class* half (:func:`join_form`), the student's own link on a reload
(:func:`resume_student`), and the questions when another browser holds or took the student's place
(:func:`takeover_prompt`, :func:`taken_prompt`). The student's session and the store are
:mod:`cae.streamlit_glue.classroom_session`.
"""

from __future__ import annotations

import streamlit as st

from cae.app.explanations import QUIZ_CHOICES, headline
from cae.app.stepper import SINGLE_CLASS_NOTE
from cae.classroom import names
from cae.classroom import room as roomlib
from cae.classroom.store import LimitReached, Locked, Removed, RoomNotFound, StoreError, StoreReset, normalize_code
from cae.classroom.views import SHARED

from .classroom_common import class_gone, draw_step, explanation, fmt, question_summary, step_figure, view_of
from .classroom_push import FALLBACK_SECONDS, PUSHER, running_alone
from .classroom_push import available as push_available
from .classroom_session import (
    POLL_SECONDS,
    become_student,
    class_questions,
    client,
    holder,
    leave,
    notice_words,
    own_nickname,
    pending_words,
    problem_words,
    safely,
    store,
    touch,
)
from .classroom_session import poll as student_poll
from .common import message
from .fragment import fragment


# ------------------------------------------------------------------ a student's way in: joining, their link, their place
def join_form(code):
    """The lobby's *Join a class* half: the class code (the link's, when it names one) and a nickname."""
    st.header("Join a class")
    with st.form("join"):
        typed = st.text_input("Class code", value=code or "", max_chars=12, key="w_room_code")
        nick = st.text_input(
            "Your nickname",  # no max_chars: a longer paste is cut to its first characters, not refused
            key="w_room_nick",
            help="Any name you like, shown to the class (no account, nothing else asked). "
            "If it is taken, or looks like one that is, a number is added.",
        )
        go = st.form_submit_button("Join", type="primary")
    if go:
        join_class(typed, nick)


def join_class(typed, nick):
    """The join form sent: the per-client limits first (class codes that name no class, joins of one class),
    then the store; the page says why when it refuses."""
    me = client()
    try:
        c = normalize_code(typed)
        lim = store().limits
        if safely(store().allow, f"guess:{me}", lim.guesses_per_client, lim.guesses_window, count=False) is False:
            raise LimitReached(
                f"{lim.guesses_per_client} class codes that name no class were tried from this address in the last "
                f"{lim.guesses_window / 60:.0f} minutes; check the code with the teacher and try again later"
            )
        if not _class_exists(c, me):
            return
        if safely(store().allow, f"join:{c}:{me}", lim.joins_per_client, lim.joins_window) is False:
            raise LimitReached(
                f"{lim.joins_per_client} students have joined this class from this address in the last "
                f"{lim.joins_window / 60:.0f} minutes; wait a few minutes, or ask the teacher"
            )
        s = safely(store().join, c, nick, holder=holder())
    except Locked:
        st.error("Cannot join: the teacher has locked this class (no new students). Ask the teacher.")
    except StoreError as exc:
        message("error", "Cannot join: {}.", exc)
    else:
        if s is not None:
            become_student(c, s.sid, s.nickname)
            st.query_params.from_dict({"room": c, "me": s.sid})
            st.rerun()
        else:
            st.error(problem_words())


def _class_exists(code, me):
    """True when ``code`` names an open class; a code that names none counts against this client's guesses
    (and leaves no other trace in the store)."""
    lim = store().limits
    try:
        if safely(store().room, code) is None:
            st.error(problem_words())
            return False
    except (RoomNotFound, StoreReset):
        safely(store().allow, f"guess:{me}", lim.guesses_per_client, lim.guesses_window)
        st.error(f"Cannot join: there is no open class with the code {code}. Check it with the teacher.")
        return False
    return True


def resume_student(code, me, force):
    """A student's own link (a reload): their place, unless another browser holds it (then ask first)."""
    try:
        s = safely(store().student, code, me)
        claim = safely(store().claim, code, me, holder(), force=force) if s is not None else None
    except Removed:
        st.warning("The teacher has removed this student from the class.")
        st.query_params.from_dict({"room": code})
        return
    except StoreError:
        s = claim = None
    if s is not None and (claim is None and problem_words() or claim is not None and claim.ok):
        # (a store that can be read but not written cannot hold the place for this browser: the class is shown)
        st.session_state.pop("room_takeover", None)
        become_student(code, s.sid, s.nickname)
    elif s is not None and claim is not None:
        st.session_state.room_takeover = (code, s.sid, s.nickname, claim.other_age)
    elif s is None and not problem_words():
        st.warning("This page's student link is not known in that class any more: join again with a nickname.")
        st.query_params.from_dict({"room": code})


def takeover_prompt():
    """Another browser holds this student's place: take it over only when the student says so."""
    code, sid, nick, age = st.session_state.room_takeover
    st.title(f"Class {code}")
    st.warning(
        f"**{names.for_markdown(nick)}** is open in another browser (it asked for news {age:.0f} s ago). "
        "If that is you on another device, take over here; the other browser will be told. "
        "If it is not you, someone has your link: join again with another nickname."
    )
    a, b = st.columns(2)
    if a.button("Take over here", type="primary", key="b_room_takeover"):
        resume_student(code, sid, force=True)
        st.rerun()
    if b.button("Join with another nickname", key="b_room_takeover_no"):
        st.session_state.pop("room_takeover", None)
        st.query_params.from_dict({"room": code})
        st.rerun()


def taken_prompt():
    """This student's place was taken over by another browser (their link was opened there): say so, and offer it
    back."""
    taken = st.session_state.room_code
    st.title(f"Class {taken}")
    st.warning(
        "Your place in this class was taken over by another browser: your student link was opened there. "
        "If that was not you, take it back and keep your link to yourself."
    )
    if st.button("Take it back here", type="primary", key="b_room_takeback"):
        st.session_state.room_role = None
        resume_student(taken, st.session_state.room_sid, force=True)
        st.rerun()


# ------------------------------------------------------------------ the student's page
def student_page():
    """A student's page: the teacher's step, the open question with its answer form, a revealed one explained."""
    code, sid = st.session_state.room_code, st.session_state.room_sid
    if {k: st.query_params.get(k) for k in st.query_params.keys()} != {"room": code, "me": sid}:
        st.query_params.from_dict({"room": code, "me": sid})  # a reload keeps this student
    _student_class(code, sid)


def _drawn(p):
    """What a page drew of the class: its version, or "away" while the store could not be read."""
    return "away" if "room_problem" in st.session_state else p.version


def _question_key(q):
    return None if q is None else (q.qid, q.revealed)


def _student_class(code, sid):
    """The page's header, and the open question or the step (the step alone runs again at each step)."""
    st.html(STUDENT_STYLE)
    p = _student_news(code)
    if p is None or _student_gone(code, sid, p):
        return
    nick = names.for_markdown(own_nickname(code, p))
    asking = p.question is not None and not p.question.revealed
    if asking:  # one line: on a phone the question and its answer buttons fit the first screen
        st.markdown(f"**Class {code}** · you are **{nick}**")
    else:
        head = st.columns([4, 1.3, 1.4])
        head[0].markdown(f"## Class {code} · you are **{nick}**")
        with head[1]:
            _student_score(code, sid)
        explore_button(p, head[2])
    if not p.state:
        st.info("Waiting for the teacher to start…")
        watch(code, _drawn(p))
    elif asking:
        _student_question(code, sid, p, p.question, _my_answers(code, sid))
        watch(code, _drawn(p))
    else:
        _student_step(code, sid, _question_key(p.question))
        # beside the step, not in it: a step runs only what it draws
        st.caption("You see the teacher's step. It follows the teacher by itself.")
        if SHARED.for_state(p.state)[0].stepper.stream.X.shape[1] == 2:
            st.toggle(
                "Interactive chart",
                key="w_room_interactive",
                help="Zoom, pan and hover over the network (it takes your device a moment longer to draw).",
            )
        if push_available():
            _watch_slowly(code)


def _student_step_now(code, sid, drawn_question):
    """The teacher's step (or the question just revealed at it): the one part of the page that runs again when the
    teacher steps — pushed by the server (:mod:`cae.streamlit_glue.classroom_push`), not the whole app. Beside it, a fragment
    asks every FALLBACK_SECONDS in case a push is lost; without push, this part asks every POLL_SECONDS."""
    alone = running_alone()
    try:
        p = _student_news(code) if alone else st.session_state.get("room_last_poll")
        if p is None:
            return
        if alone and (
            sid in p.removed
            or p.closed
            or not p.state
            or _question_key(p.question) != drawn_question
            or p.renamed != st.session_state.get("room_renamed")
        ):
            st.rerun()  # more than the step changed: the whole page runs again
        run, t = SHARED.for_state(p.state)
        q = p.question
        mine = _my_answers(code, sid)
        if q is not None and q.revealed and SHARED.for_state(q.state)[0] is run and t == q.step:
            _student_revealed(run.view(t), p.state, q, mine)
        else:
            _student_following(run.view(t), p.state, q, mine)
        st.session_state.room_drawn = _drawn(p)
        if not PUSHER.follow(store(), code, _drawn(p)):
            _watch(code)  # no push: this part asks every second
    except (RoomNotFound, StoreReset):
        if alone:
            st.rerun()  # the whole page runs again and says so
        class_gone("student")


_student_step = fragment(_student_step_now)


def _student_news(code):
    """The class's news (RoomNotFound: the page says the class has ended). While the store is away, the last news
    read stays on screen with a line that says so; None when there is none yet (the page then only waits)."""
    p = student_poll(code)
    if p is not None:
        st.session_state.room_last_poll = p
        return p
    p = st.session_state.get("room_last_poll")
    if p is None:
        st.title(f"Class {code}")
        st.error(
            (problem_words() or "The class cannot be reached") + ". This page follows again by itself once it is back."
        )
        watch(code, "away")
        return None
    st.warning(
        (problem_words() or "The class cannot be reached")
        + ". You see the last step that reached you; this page follows again by itself once it is back.",
        icon=":material/cloud_off:",
    )
    return p


def _student_gone(code, sid, p):
    """True when this student was removed or the class ended (the page then says so, with a Leave button)."""
    if sid in p.removed:
        st.title(f"Class {code}")
        st.warning("The teacher has removed you from this class. You can keep exploring on your own.")
        _leave_button()
        return True
    said = notice_words()
    if said:
        st.info(said, icon=":material/restore:")
    if p.closed:
        st.title(f"Class {code}")
        st.info("The teacher has ended this class. Thank you for taking part!")
        _student_score(code, sid)
        _leave_button()
        return True
    return False


def _leave_button():
    if st.button("Leave", key="b_room_leave"):
        leave()
        st.query_params.clear()
        st.rerun()


def _student_question(code, sid, p, q, mine):
    """The open question: the answer form (or the answer given) first, then the network before the next sample."""
    qrun, _ = SHARED.for_state(q.state)
    view = qrun.view(q.step - 1)
    # the question first: on a phone the columns stack, and the answer buttons come before the chart
    right, left = st.columns([1, 1.7])
    with right:
        st.markdown(f"#### Question {q.qid}: what will CAE do with sample {q.step:,}?")
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
        config={"displaylogo": False, "displayModeBar": False},  # no toolbar over the legend on a phone
    )
    with left:
        question_summary(view, q, "room_student_fig")
    right.caption(
        "The star is the next sample; s1 and s2 (ringed) are its two nearest nodes by CIM, and the dotted "
        "region is where CIM to s1 is at most V."
    )
    m = view.live_metrics(score_noise=view_of(q.state)["sn"])
    right.caption(
        f"{m['samples seen']:,} of {len(view.stream):,} samples seen · {m['stage']} · {m['nodes']} nodes · "
        f"{m['clusters']} clusters · V = {fmt(view.model.threshold_ if view.t else float('nan'))}"
    )
    with right:
        _student_score(code, sid)
        explore_button(p)


def _student_revealed(view, state, q, mine):
    """The question just revealed, at its step: right or not, the verdict, the step drawn and explained."""
    c = mine.get(q.qid)
    if c is None:
        st.info(f"Question {q.qid}: {QUIZ_CHOICES[q.truth[0]]} — you did not answer this one.")
    else:
        right = roomlib.is_right(c, q.truth)
        (st.success if right else st.error)("Right!" if right else "Not quite.")
        st.markdown(verdict(c, q.truth))
    draw_step(view, view_of(state), key="room_student_fig")
    explanation(view)


def _student_following(view, state, q, mine):
    """The teacher's step (and, once the class moved on from a reveal, its result in a line)."""
    if q is not None and q.revealed:
        c = mine.get(q.qid)
        said = (
            "you did not answer" if c is None else ("you were right" if roomlib.is_right(c, q.truth) else "not quite")
        )
        st.caption(f"Question {q.qid} ({QUIZ_CHOICES[q.truth[0]].split(':')[0]}): {said}.")
    picture = view.picture()
    if picture is None or ("w_room_interactive" in st.session_state and st.session_state.w_room_interactive):
        draw_step(view, view_of(state), key="room_student_fig")
    else:  # the same picture for the whole class, built once per step; the interactive chart on demand
        follow_view(view, view_of(state))


def explore_button(p, where=st):
    if where.button(
        "Explore freely",
        key="b_room_explore",
        width="stretch",
        help="Step on your own; come back with Follow the teacher.",
    ):
        go = {k: v for k, v in p.state.items() if k not in ("quiz", "teach")}
        st.switch_page("pages/playground.py", query_params=go)


def _my_answers(code, sid):
    mine = st.session_state.get("room_answers")
    if mine is None:  # a resumed page: what this student answered before
        got = safely(store().answers, code) or []
        mine = st.session_state.room_answers = {a.qid: a.choice for a in got if a.sid == sid}
    return mine


def _student_score(code, sid):
    last = st.session_state.get("room_last_poll")
    qs = (class_questions(code, last.version) if last is not None else safely(store().questions, code)) or []
    mine = _my_answers(code, sid)
    revealed = [q for q in qs if q.revealed]
    right = sum(roomlib.is_right(mine[q.qid], q.truth) for q in revealed if q.qid in mine)
    st.metric("Your score", f"{right} / {len(revealed)}")


# ------------------------------------------------------------------ the step followed, and asking when no push comes
def follow_view(view, toggles):
    """A following student's step: "Samples seen", then the picture and the numbers beside it as one piece of HTML,
    written once per step for the whole class (a class of 500 draws it at every step: few elements, nothing built
    twice). Side by side, the picture and its numbers fit a 1280×720 screen under the page's header."""
    m = view.live_metrics(score_noise=toggles["sn"])
    st.metric("Samples seen", f"{m['samples seen']:,} / {len(view.stream):,}")
    # no columns or containers: each is a block more for every student at every step (measured: +0.5 ms each page)
    st.html(view.cached(("follow-html", bool(toggles["sn"])), lambda: _Html(_follow_html(view, m))))


class _Html:
    """HTML that ``st.html`` takes as it is, by its ``_repr_html_``: a string body is dedented first, for every
    page — 0.77 ms for the step's 50 KB here, a quarter of a page's step."""

    __slots__ = ("body",)

    def __init__(self, body):
        self.body = body

    def _repr_html_(self):
        return self.body


def _follow_html(view, m):
    from html import escape

    url, alt = view.picture()
    lam = fmt(view.model.deletion_interval_ if view.t else None)
    v = fmt(view.model.threshold_ if view.t else float("nan"))
    rows = [("Current stream", m["stage"]), ("#nodes", fmt(m["nodes"])), ("#clusters", fmt(m["clusters"]))]
    rows += [
        ("NMI", m["scores n/a"] or fmt(m["NMI"])),
        ("ARI", m["scores n/a"] or fmt(m["ARI"])),
        ("λ", lam),
        ("V", v),
    ]
    cells = "".join(
        f'<tr><th scope="row" style="padding:0 1.2em 0.15em 0;text-align:left;font-weight:normal">{escape(k)}</th>'
        f'<td style="padding:0 0 0.15em 0"><b>{escape(str(w))}</b></td></tr>'
        for k, w in rows
    )
    notes = []
    if view.record is not None:
        notes.append(f"<b>Last step</b> · {escape(headline(view.record))}")
    if m["single class"]:
        notes.append('<span style="font-size:0.85em">NMI/ARI: ' + escape(SINGLE_CLASS_NOTE) + ".</span>")
    w, h = view.run.picture_size
    return (
        FOLLOW_STYLE + '<div class="cae-follow">'
        f'<img src="{url}" alt="{escape(alt)}" width="{w}" height="{h}">'
        '<div style="flex:1 1 11rem;min-width:11rem">'
        f'<table aria-label="The network now" style="border-collapse:collapse">{cells}</table>'
        + "".join(f'<p style="margin:0.5em 0 0 0">{n}</p>' for n in notes)
        + "</div></div>"
    )


#: the picture of a following student's step as large as the screen allows: the rest of the page's height under
#: the header, and its width but the numbers' column beside it (on a phone, the whole width, the numbers below).
#: Measured in tests/browser/test_classroom_resume_browser.py at 1280×720 and 1400×900.
FOLLOW_STYLE = (
    "<style>.cae-follow{display:flex;flex-wrap:wrap;gap:0.5rem 1.25rem;align-items:flex-start}"
    ".cae-follow img{flex:0 1 auto;min-width:0;width:auto;height:auto;max-width:calc(100% - 12.5rem);"
    "max-height:calc(100vh - 15.5rem)}"
    "@media (max-width:640px){.cae-follow img{max-width:100%;max-height:none}}</style>"
)


#: a student's page: less empty space above the header, and smaller numbers in it (the picture is the page)
STUDENT_STYLE = (
    "<style>[data-testid='stMainBlockContainer']{padding-top:3rem}"
    "[data-testid='stMainBlockContainer'] h2{font-size:1.6rem;padding:0.2rem 0}"
    "[data-testid='stMetricValue']{font-size:1.6rem}</style>"
)


def verdict(choice, truth):
    ok = [choice[k] == truth[k] for k in range(3)]
    return (
        f"**What CAE did:** {QUIZ_CHOICES[truth[0]]}  \n"
        f"{'✓' if ok[0] else '✗'} you said: {QUIZ_CHOICES[choice[0]]}  \n"
        f"{'✓' if ok[1] else '✗'} an edge deleted: {'yes' if truth[1] else 'no'} (you said {'yes' if choice[1] else 'no'})  \n"
        f"{'✓' if ok[2] else '✗'} a node deleted: {'yes' if truth[2] else 'no'} (you said {'yes' if choice[2] else 'no'})"
    )


def watch(code, drawn):
    """Has the class moved on since this screen was drawn (``drawn``: its version, or "away")? Then draw it again.
    A page the server pushes to (:mod:`cae.streamlit_glue.classroom_push`) asks only every FALLBACK_SECONDS, in case a push is
    lost; others every POLL_SECONDS."""
    st.session_state.room_drawn = drawn
    if PUSHER.follow(store(), code, drawn):
        _watch_slowly(code)
    else:
        _watch(code)


def _ask_for_news(code):
    claim = touch()  # at most every TOUCH_SECONDS
    if claim is not None and not claim.ok:
        st.rerun()  # another browser took this student's place: the page says so
    if "room_pending" in st.session_state and resend_pending():
        st.rerun()  # an answer kept through an outage is in: the page says so
    if not running_alone():  # drawn with its page, which has just read the news
        return
    try:
        p = student_poll(code)
    except StoreError:  # the class ended or expired: the whole page says so
        st.rerun()
    if p is None:
        st.caption(
            ":material/cloud_off: " + (problem_words() or "") + " — this page follows again by itself once it is back."
        )
        return
    if p.version != st.session_state.get("room_drawn") and not PUSHER.in_flight(code, p.version):
        st.rerun()  # a push that did not arrive (or no push): the whole page runs again


_watch = fragment(run_every=POLL_SECONDS)(_ask_for_news)


_watch_slowly = fragment(run_every=FALLBACK_SECONDS)(_ask_for_news)


def resend_pending():
    """An answer that did not reach the store, sent again now that the store answers; True once it is in."""
    pending = st.session_state.get("room_pending")
    if pending is None:
        return False
    code, qid, choice = pending
    try:
        a = safely(store().answer, code, st.session_state.room_sid, qid, choice)
    except StoreError as exc:  # refused for good (revealed meanwhile...): the student is told why
        st.session_state.room_pending = None
        st.session_state.room_pending_refused = str(exc)
        return True
    if a is None:
        st.session_state.room_pending_why = st.session_state.get("room_problem")  # what the write ran into
        return False
    st.session_state.room_pending = None
    st.session_state.setdefault("room_answers", {})[qid] = a.choice
    return True


# ------------------------------------------------------------------ the answer
def unconfirmed(qid):
    """True when this browser has sent a choice for question ``qid`` (the form's widgets hold a sent value only
    after *Send my answer*) that neither reached the store nor waits to be sent again: its app process died
    with it, or the link dropped it. Streamlit's client sends the form's values again when it reconnects (to
    another process behind nginx, or to a restarted server), without the click: the page sends the answer
    itself, so an answer is either in the store or shown as not sent, never silently lost."""
    ss = st.session_state
    return ss.get("room_pending") is None and ss.get("room_refused_answer") != qid


#: the moment a student presses *Send my answer*, the browser itself says it is sending, until the server has run
#: the page again (which then says "in", or "not sent"): over a stalled link the answer is on its way, not in, and
#: the page says so meanwhile (a note outside the page's own elements, removed once the page has run)
SENDING_SCRIPT = """<script>(function () {
  if (window.__caeSending) return;
  window.__caeSending = true;
  document.addEventListener("click", function (e) {
    var b = e.target && e.target.closest ? e.target.closest("button") : null;
    if (!b || b.innerText.trim() !== "Send my answer") return;
    var app = document.querySelector("[data-testid='stApp']");
    var n = document.getElementById("cae-sending");
    if (!n) {
      n = document.createElement("div");
      n.id = "cae-sending";
      n.setAttribute("role", "status");
      n.style.cssText = "position:fixed;bottom:1rem;left:50%;transform:translateX(-50%);z-index:1000;" +
        "background:#fff8e1;color:#3d2e00;border:1px solid #8a6d00;border-radius:.5rem;padding:.5rem 1rem";
      document.body.appendChild(n);
    }
    n.textContent = "Sending your answer\u2026 It is not in until this page says so.";
    if (!app) return;
    var ran = false;
    var watch = new MutationObserver(function () {
      var state = app.getAttribute("data-test-script-state");
      if (state === "running") ran = true;
      if (ran && state === "notRunning") { n.remove(); watch.disconnect(); }
    });
    watch.observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
  }, true);
})();</script>"""


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
    st.html(SENDING_SCRIPT, unsafe_allow_javascript=True, width=1)
    if not sent and case is not None and unconfirmed(q.qid):
        sent = True  # this browser sent the choice, and nothing says it reached the class: it is sent now
    if sent:
        if case is None:
            st.warning("Choose what CAE will do first.")
            return
        try:
            a = safely(store().answer, code, sid, q.qid, (case, edge, node))
        except StoreError as exc:
            st.session_state.room_refused_answer = q.qid  # said once; not sent again by itself
            message("error", "Your answer was not counted: {}.", exc)
            return
        if a is None:
            st.session_state.room_pending = (code, q.qid, (case, bool(edge), bool(node)))
            st.session_state.room_pending_why = st.session_state.get("room_problem")  # the write's own fault
            st.rerun()
            return
        st.session_state.pop("room_pending", None)
        st.session_state.room_answers[q.qid] = a.choice
        st.rerun()
    pending = st.session_state.get("room_pending")
    if pending is not None and pending[1] == q.qid:
        st.error(
            "**Your answer has not reached the class yet** — "
            + (problem_words() or pending_words() or "the class cannot be reached right now")
            + ". Your choice stays selected: it is sent by itself as soon as the class is back, or press "
            "*Send my answer* again."
        )
    refused = st.session_state.pop("room_pending_refused", None)
    if refused:
        message("error", "Your answer was not counted: {}.", refused)

"""Classroom: a live class — the teacher's steps on every student's screen, the class's predictions back."""

import json
import os

import streamlit as st

from cae.app.explanations import QUIZ_CHOICES, explain_step, headline, quiz_truth
from cae.app.lesson_links import VIEW_DEFAULTS, parse_playground
from cae.app.panel import score_row
from cae.app.stepper import SINGLE_CLASS_NOTE
from cae.app.streams import SOURCES
from cae.app.view_options import ViewOptions
from cae.classroom import classes_elsewhere, names
from cae.classroom import room as roomlib
from cae.classroom.qr import qr_svg
from cae.classroom.store import (
    BadInput,
    LimitReached,
    Locked,
    Removed,
    RoomNotFound,
    StoreError,
    StoreReset,
    normalize_code,
)
from cae.classroom.views import SHARED
from cae.streamlit_glue.classroom_push import FALLBACK_SECONDS, PUSHER, running_alone
from cae.streamlit_glue.classroom_push import available as push_available
from cae.streamlit_glue.classroom_session import (
    POLL_SECONDS,
    become_student,
    become_teacher,
    class_lesson_in,
    class_questions,
    client,
    follow_class,
    forget_teacher,
    gone_words,
    holder,
    keep_browser_cookie,
    leave,
    notice_words,
    own_nickname,
    pending_words,
    problem_words,
    publish,
    refuse,
    rejoin_by_cookie,
    remember_teacher,
    role,
    safely,
    show_refused,
    store,
    store_back,
    tell_stale,
    touch,
    trusted_proxies_warning,
    unsent_choice,
)
from cae.streamlit_glue.classroom_session import (
    poll as student_poll,
)
from cae.streamlit_glue.common import ensure_entrypoint, message, network_summary, render_blocks
from cae.streamlit_glue.fragment import fragment
from cae.streamlit_glue.lesson_links import lesson_apply, lesson_query
from cae.streamlit_glue.playground_session import get_playground, network_view
from cae.streamlit_glue.session import session

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


_LAST_VIEW = [None, None]  # the last state read and its toggles: every student's page asks for the same one


def view_of(state):
    """The teacher's view toggles in a published state (defaults where the state says nothing)."""
    last = _LAST_VIEW
    if last[0] is state:
        return last[1]
    parsed, _ = parse_playground(state, streams=list(SOURCES))
    toggles = {**VIEW_DEFAULTS, **parsed["view"]}
    _LAST_VIEW[:] = [state, toggles]
    return toggles


# ------------------------------------------------------------------ what every screen of the class draws
def step_figure(view, toggles, record="step", height=520):
    """The network at a shared step, built once for every screen that draws it with these toggles.

    ``record="next"`` draws what the class predicts: the next sample, its s1 and s2, the vigilance region.
    """
    vig, bw, win = toggles["vig"], toggles["bw"], toggles["win"]
    focus, regions = bool(toggles.get("focus")), bool(toggles.get("regions"))
    options = ViewOptions(
        show_vigilance=vig, show_bandwidth=bw, window=win, height=height, focus=focus, show_all_regions=regions
    )
    if record == "next":
        probe = view.probe
        return view.cached(
            ("fig-next", vig, bw, win, focus, regions, height),
            lambda: network_view(
                view,
                options.with_(current_name="next sample"),
                record=probe if probe is not None else False,
                current=view.stream.X[view.t] if not view.finished else None,
            ),
        )
    return view.cached(
        ("fig", vig, bw, win, focus, regions, height),
        lambda: network_view(view, options, record=view.record if view.record is not None else False),
    )


def step_numbers(view, toggles, last_step=True):
    """The Playground's numbers beside the figure: samples seen, stream, counts, NMI/ARI, λ and V."""
    m = view.live_metrics(score_noise=toggles["sn"])
    st.metric("Samples seen", f"{m['samples seen']:,} / {len(view.stream):,}")
    st.metric("Current stream", m["stage"])
    a, b = st.columns(2)
    a.metric("#nodes", m["nodes"])
    b.metric("#clusters", m["clusters"])
    for col, row in zip((a, b), (score_row(m, "NMI"), score_row(m, "ARI"))):  # "n/a" over "one class so far"
        col.metric(row[0], row[1], delta=row[2] if len(row) > 2 else None, delta_color="off", delta_arrow="off")
    a.metric("λ", _fmt(view.model.deletion_interval_ if view.t else None))
    b.metric("V", _fmt(view.model.threshold_ if view.t else float("nan")))
    if m["single class"]:
        st.caption("NMI/ARI: " + SINGLE_CLASS_NOTE + ".")
    if last_step and view.record is not None:
        st.markdown(f"**Last step** · {headline(view.record)}")


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
    lam = _fmt(view.model.deletion_interval_ if view.t else None)
    v = _fmt(view.model.threshold_ if view.t else float("nan"))
    rows = [("Current stream", m["stage"]), ("#nodes", _fmt(m["nodes"])), ("#clusters", _fmt(m["clusters"]))]
    rows += [
        ("NMI", m["scores n/a"] or _fmt(m["NMI"])),
        ("ARI", m["scores n/a"] or _fmt(m["ARI"])),
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


def draw_step(view, toggles, key, record="step", height=520):
    """The figure and its numbers side by side, as on the Playground (and the figure in words, for a screen
    reader: :func:`cae.streamlit_glue.common.network_summary`)."""
    left, right = st.columns([3, 1.1])
    left.plotly_chart(step_figure(view, toggles, record, height), key=key, config={"displaylogo": False})
    with left:
        network_summary(view, key)
    with right:
        step_numbers(view, toggles, last_step=record != "next")


def question_summary(view, q, key):
    """A question's view in words, for a screen reader (visually hidden, like :func:`network_summary`): the network
    before the sample the class predicts, and that sample."""
    with st.container(key=f"fig_summary_{key}"):
        st.markdown(view.summary() + f" The star is sample {q.step:,}: what will CAE do with it?")


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
    if token is None and code is not None and role() is None:
        _teacher_by_cookie(code)
    elif token is None and raw is None and role() is None:
        rejoin_by_cookie()  # the Classroom opened without a code (its link, F5 there): the class this browser teaches
    if token is not None:
        _teacher_link(code, token)
    me = q.get("me")
    if me is not None and code is not None and not (role() == "student" and st.session_state.room_sid == me):
        resume_student(code, me, force=False)
    return code


def _teacher_by_cookie(code):
    """A teacher's reload: this browser keeps the class's token (or, when the class is gone, says why)."""
    from cae.streamlit_glue.classroom_session import teaching_cookies

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


def _teacher_link(code, token):
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
    with teach:
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


def start_class(passphrase):
    """A new class for this browser: the passphrase (when the server asks for one) and the per-client limits
    first. Returns ``(code, token)`` or None (the page says why)."""
    import hmac

    key = os.environ.get("CAE_CLASSROOM_TEACHER_KEY")
    if key and not hmac.compare_digest(str(passphrase or "").encode(), key.encode()):
        st.error("A class cannot be started: that is not this server's teacher passphrase.")
        return None
    me = client()
    try:
        lim = store().limits
        if safely(store().allow, f"start:{me}", lim.starts_per_client, lim.starts_window) is False:
            raise LimitReached(
                f"this address has started {lim.starts_per_client} classes in the last "
                f"{lim.starts_window / 3600:.0f} hour(s); end one and try later"
            )
        return safely(store().create_room, owner=me)
    except StoreError as exc:
        message("error", "A class cannot be started: {}.", exc)
        return None


# ------------------------------------------------------------------ the teacher
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


# ------------------------------------------------------------------ a student
def student_page():
    """A student's page: the teacher's step, the open question with its answer form, a revealed one explained."""
    code, sid = st.session_state.room_code, st.session_state.room_sid
    if {k: st.query_params.get(k) for k in st.query_params.keys()} != {"room": code, "me": sid}:
        st.query_params.from_dict({"room": code, "me": sid})  # a reload keeps this student
    _student_class(code, sid)


def class_gone(r):
    """The class has ended, expired or its store was reset: say so, with the way back to the Classroom page (and,
    for its teacher, a new class that goes on with the same lesson)."""
    gone = st.session_state.get("room_code", "")
    st.info(gone_words(gone), icon=":material/cloud_off:")
    keyed = bool(os.environ.get("CAE_CLASSROOM_TEACHER_KEY"))  # then the lobby asks for the passphrase first
    if r == "teacher" and not keyed and st.button("Start a new class with this lesson", key="b_room_restart"):
        made = start_class(None)
        if made is not None:
            forget_teacher(gone)
            become_teacher(*made)  # the new class gets this page's run, at the step the old one was at
            st.query_params.from_dict({"room": made[0]})
            st.rerun()
    if st.button("Back to the Classroom page", key="b_room_gone"):
        if r == "teacher":
            forget_teacher(gone)
        leave()
        st.query_params.clear()
        st.rerun()
    st.stop()


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
        f"{m['clusters']} clusters · V = {_fmt(view.model.threshold_ if view.t else float('nan'))}"
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


# ------------------------------------------------------------------ the page
code = arrive()
keep_browser_cookie()
r = role()
if r == "teacher" and st.session_state.pop("room_cookie_due", False):
    remember_teacher(st.session_state.room_code, st.session_state.room_token)
try:
    if r == "teacher":
        teacher_page()
    elif r == "student":
        student_page()
except (RoomNotFound, StoreReset):
    class_gone(r)
if r == "taken":
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
    st.stop()
if r is None and st.session_state.get("room_takeover"):
    takeover_prompt()
    st.stop()
if r not in ("teacher", "student"):
    if r == "ended":
        st.info("The class you were teaching has ended or expired.")
        leave()
    lobby(code)

"""The live classroom's session glue: the store, this session's role in a class, and the small hook the
Playground calls (the teacher's steps published; a student's way back to following the teacher).

The store is imported when a session is in a class (a Playground drawn outside a class does not import it).
The Playground calls two functions and nothing else: :func:`classroom_bar` near its top and
:func:`publish_step` each time it writes its lesson link. Everything else of the classroom is on the
Classroom page (``pages/classroom.py``, its views :mod:`cae.streamlit_glue.classroom_teacher` and
:mod:`cae.streamlit_glue.classroom_student`); the store and room logic are in ``cae.classroom`` (no Streamlit there).

Session state (all keys start with ``room_``): ``room_role`` ("teacher" or "student"), ``room_code``,
``room_token`` (the teacher's secret), ``room_sid`` and ``room_nick`` (the student's id and nickname),
``room_published`` (the last state this teacher wrote), ``room_problem`` / ``room_problem_detail`` (what the
store last said when it failed: words for everyone / where and why, for the teacher), ``room_touched`` (when
this student's presence was last written), ``room_holder`` (this browser's id, kept in its ``cae_browser``
cookie: the student's place is held by one browser at a time), ``room_epoch`` (the store's identity when the class was joined or
started: another one means the store was reset, not that the class ended), ``room_last_poll`` (the last
news read, drawn while the store is away), ``room_pending`` (an answer that did not reach the store yet).

The teacher's token never stays in the address bar, nor in the page: this browser keeps it in a cookie of the
app's own origin (``cae_teacher_CODE``, HttpOnly, SameSite=Strict, for the class's lifetime) that the server sets
(:mod:`cae.classroom.web`), so a reload (F5, a server restart) finds the class's teacher again and no script of
the page can read it; :func:`remember_teacher` has it written, :func:`teacher_cookie` reads it.
"""

from __future__ import annotations

import json
import os
import threading
import time

import streamlit as st

from cae.data.csvio import escape_markdown

from . import rerun_limit as _rerun_limit
from .fragment import fragment


def _seat_known(room, me):
    """True when the class's store has the student ``me`` in class ``room`` (for the rerun limit, which counts a
    student's messages by their seat: called off the event loop, once per seat and process)."""
    from cae.classroom.store import StoreError

    try:
        return store().student(room, me) is not None
    except (StoreError, ValueError):
        return False


# a person asking for their page faster than any page needs is slowed down, server-side, across all their
# connections (cae/streamlit_glue/rerun_limit.py): installed with the first page that can take part in a class
_rerun_limit.install(seat_known=_seat_known)

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
def _open(url, limits):
    from cae.classroom import open_store

    return open_store(url or None, limits=limits)


_STORES = {}  # the environment's settings of the store -> the store (st.cache_resource's key costs 0.3 ms)


def store():
    """The process's store, as ``CAE_CLASSROOM_URL`` names it (SQLite in the per-user data folder by default),
    with the limits the environment sets (:func:`cae.classroom.limits_from_env`)."""
    from cae.classroom import LIMIT_VARIABLES

    environ = os.environ
    settings = (environ.get("CAE_CLASSROOM_URL"), *(environ.get(v) for v in LIMIT_VARIABLES.values()))
    got = _STORES.get(settings)
    if got is None:
        from cae.classroom import limits_from_env

        got = _STORES[settings] = _open(os.environ.get("CAE_CLASSROOM_URL", ""), limits_from_env())
    return got


def safely(fn, *args, **kwargs):
    """``fn(*args)``, or None when the store fails; the words of the failure go to ``room_problem``.

    Only :class:`StoreUnavailable` is swallowed here; the other :class:`StoreError` (a wrong token, a full
    class, an answer given already) are the caller's to show.
    """
    from cae.classroom.store import StoreUnavailable

    try:
        out = fn(*args, **kwargs)
    except StoreUnavailable as exc:
        st.session_state.room_problem = str(exc)
        st.session_state.room_problem_detail = getattr(exc, "detail", str(exc))
        return None
    if "room_problem" in st.session_state:  # (a missing key's pop costs an exception: this runs at every step)
        del st.session_state["room_problem"]
        st.session_state.pop("room_problem_detail", None)
    return out


def _sentence(text):
    return str(text).strip().rstrip(".")


def problem_words(teacher=False):
    """What to say while the store is unreachable (None when it is fine), ending without a full stop (the
    caller adds what follows). Students read no file, host or port; the teacher also reads where and why."""
    p = st.session_state.get("room_problem")
    if p is None:
        return None
    words = _sentence(p)
    words = escape_markdown(words[:1].upper() + words[1:])
    if teacher and st.session_state.get("room_problem_detail"):
        words += " (" + escape_markdown(_sentence(st.session_state.room_problem_detail)) + ")"
    return words


def _request():
    """This browser's connection: ``(peer address, X-Forwarded-For or None, Host)``. Streamlit reports a peer on the
    loopback (127.0.0.1, ::1: a proxy on this machine, or a local browser) as None; AppTest answers with stand-ins,
    not addresses: both are this machine."""
    try:
        ip = st.context.ip_address
        forwarded = st.context.headers.get_all("X-Forwarded-For")
        host = st.context.headers.get("Host")
    except Exception:  # noqa: BLE001 - AppTest has no request
        ip, forwarded, host = None, None, None
    peer = ip if isinstance(ip, str) else "127.0.0.1"
    hops = ", ".join(h for h in forwarded if isinstance(h, str)) if isinstance(forwarded, list) else None
    return peer, hops or None, host if isinstance(host, str) else None


def pending_words():
    """Why the student's answer kept for sending has not reached the store (None when it is not kept): what the
    write itself ran into — a read-only store is not one that cannot be reached, and the reads in between (which
    a read-only store still answers) do not speak for it."""
    why = st.session_state.get("room_pending_why")
    if not why:
        return None
    words = _sentence(why)
    return escape_markdown(words[:1].upper() + words[1:])


def client():
    """This browser's client key for the abuse limits (:func:`cae.classroom.client_key`): its address, or the
    address a proxy named in ``CAE_TRUSTED_PROXIES`` saw (``X-Forwarded-For``), never a header a client wrote."""
    from cae.classroom import client_key

    peer, hops, _ = _request()
    return client_key(peer, hops)


def trusted_proxies_warning():
    """Words for the teacher about ``CAE_TRUSTED_PROXIES`` (None when there is nothing to say): a setting that cannot
    be meant (the server refuses to start with one; a page run some other way trusts nothing), or a proxy trusted
    while this page's request did not come through it — then a client that reaches the app the same way may write
    its own address for the class limits."""
    from cae.classroom import proxy_bypassed, trusted_proxies

    nets, refused = trusted_proxies()
    if refused:
        return (
            "CAE_TRUSTED_PROXIES cannot be used, so no proxy is trusted and every class limit counts the clients "
            "behind a proxy as one: " + escape_markdown("; ".join(refused)) + "."
        )
    _, hops, host = _request()
    try:
        own_port = st.get_option("server.port")
    except Exception:  # noqa: BLE001 - no server
        own_port = None
    why = proxy_bypassed(hops, host, own_port, nets)
    if why is None:
        return None
    return (
        f"CAE_TRUSTED_PROXIES trusts {escape_markdown(', '.join(str(n) for n in nets))} to say who a client is, but "
        f"this page did not come through a proxy: {escape_markdown(why)}. A client that reaches the app this way can "
        "write its own address in X-Forwarded-For and slip the class limits: name only your proxy's address, and "
        "let clients reach the app only through it."
    )


def holder():
    """This browser's id: a student's place is held by one browser at a time (:meth:`claim`). Kept in a
    cookie (``cae_browser``), so that a reload of the same browser keeps the place without asking, while the
    same link opened in another browser asks first."""
    if "room_holder" not in st.session_state:
        from cae.classroom.store import new_secret

        try:
            kept = st.context.cookies.get("cae_browser")
        except Exception:  # noqa: BLE001 - AppTest has no request
            kept = None
        ok = isinstance(kept, str) and 16 <= len(kept) <= 64
        st.session_state.room_holder = (
            kept if ok and kept.replace("-", "").replace("_", "").isalnum() else new_secret(12)
        )
    return st.session_state.room_holder


def keep_browser_cookie():
    """Write this browser's id (:func:`holder`) into its cookie: called on every run of the Classroom page."""
    if "room_holder" not in st.session_state:
        return
    try:
        sent = st.context.cookies.get("cae_browser")
    except Exception:  # noqa: BLE001 - AppTest has no request
        sent = None
    # a session's cookies are those of its first request: written a few times (a run that ends in st.rerun may
    # never reach the browser), then trusted, not written on every one of a class's reruns
    emits = st.session_state.get("room_holder_emits", 0)
    if sent != st.session_state.room_holder and emits < 4:
        st.session_state.room_holder_emits = emits + 1
        js = (
            f"document.cookie = 'cae_browser=' + {json.dumps(st.session_state.room_holder)} + "
            "'; path=/; max-age=31536000; SameSite=Strict';"
        )
        st.html(f"<script>{js}</script>", unsafe_allow_javascript=True, width=1)


def remember_epoch():
    e = safely(store().epoch)
    if e is not None:
        st.session_state.room_epoch = e


def gone_words(code, saved=None):
    """Why the class ``code`` is not found: reset (the store lost it) or ended (by the teacher, or expired).
    ``saved``: the store's epoch when the class was joined or started (default: this session's)."""
    from cae.classroom.store import StoreError

    saved = st.session_state.get("room_epoch") if saved is None else saved
    try:
        now = store().epoch()
    except StoreError:
        now = saved
    if saved is not None and now != saved:
        return (
            f"The class store was reset: class {code} was lost when the server that keeps classes restarted "
            "without its data. It did not end; it cannot go on. Start a new class (teacher) or join the new "
            "one with its code (students)."
        )
    return f"Class {code} has ended or expired. Thank you!"


_SHARED = {}  # what every page of this process shares: (what, class) -> (key, value)
_SHARED_LOCK = threading.Lock()


def _shared(what, key, read):
    """``read()`` once per ``(what, key)`` for every page of this process (failures are not kept)."""
    with _SHARED_LOCK:
        hit = _SHARED.get(what)
    if hit is not None and hit[0] == key:
        return hit[1]
    value = read()
    if value is not None:
        with _SHARED_LOCK:
            _SHARED[what] = (key, value)
    return value


def class_questions(code, version):
    """The class's questions, read once per class version for every page of this process (asking and revealing
    change the version), or None while the store is away."""
    return _shared(("questions", id(store()), code), version, lambda: safely(store().questions, code))


def notice_words(since_seconds=900.0):
    """What happened to the store lately (a deleted file restored...), for teacher and students; or None."""
    try:
        got = store().notices(since=time.time() - since_seconds)
    except Exception:  # noqa: BLE001 - a store without notices
        got = []
    return " ".join(w for _, w in got[-1:]) or None


# ------------------------------------------------------------------ the teacher's cookie
_COOKIE_PREFIX = "cae_teacher_"  # (cae.classroom.web.COOKIE_PREFIX)


def _cookie_name(code):
    return f"{_COOKIE_PREFIX}{code}"


def _cookie_parts(raw):
    """A teacher cookie's value: ``(token, the store's epoch when it was written)`` (either may be None)."""
    if not isinstance(raw, str) or not raw:
        return None, None
    token, _, epoch = raw.partition(".")  # tokens and epochs are URL-safe base64: no dot in either
    return token or None, epoch or None


def teacher_cookie(code):
    """The teacher token this browser keeps for class ``code`` (None when it keeps none)."""
    try:
        raw = st.context.cookies.get(_cookie_name(code))
    except Exception:  # noqa: BLE001 - AppTest has no request
        raw = None
    return _cookie_parts(raw)[0]


def teaching_cookies():
    """Every class this browser keeps a teacher token for: ``{code: (token, epoch)}``."""
    try:
        cookies = dict(st.context.cookies)
    except Exception:  # noqa: BLE001 - AppTest has no request
        return {}
    out = {}
    for name, raw in cookies.items():
        code = name[len(_COOKIE_PREFIX) :]
        if name.startswith(_COOKIE_PREFIX) and len(code) == 6 and code.isalnum() and _cookie_parts(raw)[0]:
            out[code] = _cookie_parts(raw)
    return out


def _set_cookie(code, value, max_age):
    """The teacher cookie of class ``code``, set by the server (``HttpOnly; SameSite=Strict``, and ``Secure``
    over https): the page holds a one-time nonce, never the token (:mod:`cae.classroom.web`), and its script
    posts the nonce to the app's own route, whose response sets the cookie."""
    from cae.classroom import web

    once = web.hand_over(code, value, max_age)
    js = f"fetch({json.dumps(web.TEACHER_COOKIE_ROUTE + '?once=' + once)}, {{method: 'POST', credentials: 'same-origin'}});"
    st.html(f"<script>{js}</script>", unsafe_allow_javascript=True, width=1)


def remember_teacher(code, token, max_age=12 * 3600):
    """Keep the teacher's token in this browser (a cookie of the app's origin), not in the address bar; with it,
    the store's epoch, so that a reload after the store lost its classes can say so."""
    epoch = st.session_state.get("room_epoch")
    _set_cookie(code, f"{token}.{epoch}" if epoch else token, max_age)


def forget_teacher(code):
    _set_cookie(code, "", 0)


def role():
    return st.session_state.get("room_role")


_TEACHER_KEYS = (
    "room_published",
    "room_unsent",
    "room_unsent_why",
    "room_adopt_now",
    "room_said",
    "room_refused",
    "room_stale",
    "room_teacher_drawn",
    "room_ask_drawn",
    "room_unsent_back",
)


def become_teacher(code, token):
    for k in (
        "room_sid",
        "room_nick",
        "room_answers",
        "room_last_poll",
        "room_pending",
        "room_pending_why",
        *_TEACHER_KEYS,
    ):
        st.session_state.pop(k, None)
    st.session_state.room_role, st.session_state.room_code, st.session_state.room_token = "teacher", code, token
    st.session_state.room_cookie_due = True  # written on the next page drawn (remember_teacher)
    remember_epoch()


def become_student(code, sid, nickname):
    for k in ("room_token", "room_answers", "room_last_poll", "room_pending", *_TEACHER_KEYS):
        st.session_state.pop(k, None)
    st.session_state.room_role, st.session_state.room_code = "student", code
    st.session_state.room_sid, st.session_state.room_nick = sid, nickname
    remember_epoch()


def leave():
    """This session leaves its class (its keys go; the server stops pushing that class's steps to it)."""
    from .classroom_push import PUSHER

    if st.session_state.get("room_code"):
        PUSHER.forget(st.session_state.room_code)
    for k in [k for k in st.session_state if str(k).startswith("room_") and k != "room_holder"]:
        del st.session_state[k]


# ------------------------------------------------------------------ the teacher's run: the store's lesson is the truth
def rejoin_by_cookie():
    """A page that arrives in a browser that teaches a class (a reload of the Playground, a restarted or killed
    process, a new process behind nginx) teaches it again: its teacher cookie names the class. A class the store
    no longer has is noted for :func:`classroom_bar` to say (``room_gone_cookie``)."""
    ss = st.session_state
    if role() is not None or ss.get("room_cookies_read"):
        return
    kept = teaching_cookies()
    if not kept:  # (a page outside any class imports nothing of the classroom)
        ss.room_cookies_read = True
        return
    from cae.classroom.store import StoreError, StoreUnavailable

    for code, (token, epoch) in kept.items():
        try:
            if store().is_teacher(code, token):
                become_teacher(code, token)
                ss.room_cookie_due = False  # it has the cookie
                return
        except StoreUnavailable:
            return  # asked again on the next run
        except StoreError:
            ss.room_gone_cookie = (code, epoch)
    ss.room_cookies_read = True


def class_lesson_in(page):
    """:func:`cae.streamlit_glue.playground_session.start`'s hook, called before a lesson link is read: when this session
    teaches a class whose store holds a lesson this session has not published or adopted — it has just arrived
    (F5, a second device, a restarted or killed process, a new process behind nginx), or another device of the
    teacher moved the class — the store's lesson becomes this session's, as a lesson link would (stream, n,
    noise, seed, algorithm and its parameters, view, t, the samples placed and drawn). Nothing is published
    before that. Returns the link's notices when it did, None otherwise (the URL's own link is then read).

    Only on the pages that publish (the Playground, the Classroom); while a step could not be sent
    (``room_unsent``), the teacher chooses first (:func:`classroom_bar`).
    """
    if page not in ("playground", "classroom"):
        return None
    rejoin_by_cookie()
    ss = st.session_state
    if role() != "teacher" or (ss.get("room_unsent") is not None and not ss.get("room_adopt_now")):
        return None
    from cae.classroom.store import StoreUnavailable

    try:
        held = store().poll(ss.room_code).state
    except StoreUnavailable:
        return None  # the page says so; nothing is published meanwhile (room_unsent)
    forced = ss.pop("room_adopt_now", False)
    if not held or (held == ss.get("room_published") and not forced):
        return None
    return _adopt(page, held)


def _adopt(page, held):
    """The store's lesson ``held`` as this session's (the URL's link is not applied over it)."""
    from cae.app.lesson_links import parse_playground
    from cae.app.streams import SOURCES

    from .lesson_links import remember_link, url_query
    from .session import session

    ss = st.session_state
    arriving = ss.get("room_published") is None
    state, notices = parse_playground(held, streams=list(SOURCES))
    session().open_lesson(state)
    remember_link(page, url_query())  # the address bar's link (this tab's last state) is older than the class's
    remember_link(page, dict(held))
    ss.room_published = dict(held)
    ss.pop("room_unsent", None)
    ss.pop("room_unsent_back", None)
    if arriving:
        ss.room_said = f"Class {ss.room_code} is at t = {int(held.get('t', 0)):,}, as the class sees it."
    return notices


def _store_words(exc):
    """A store's failure in words: for everyone, and the details for the teacher's closed expander."""
    return str(exc), getattr(exc, "detail", str(exc))


def publish(state, acted=False):
    """The teacher's lesson state to the class (only when it changed). Returns False when it was not sent.

    Compare-and-set: written only over the state this session last published or adopted (another device of
    the teacher that moved the class first wins; this page then adopts the class's state and says so). While
    a state could not be sent (the store failed), later ones are not sent by themselves: the class stays where
    it is until the teacher says otherwise (``acted``: a button of :func:`classroom_bar` or the Classroom page).
    """
    if role() != "teacher":
        return True
    from cae.classroom.store import Conflict, StoreError, StoreUnavailable

    ss = st.session_state
    if ss.get("room_published") == state and ss.get("room_unsent") is None:
        return True
    if ss.get("room_unsent") is not None and not acted:
        ss.room_unsent = dict(state)  # what would be sent: the bar offers it
        return False
    try:
        store().publish(ss.room_code, ss.room_token, state, expect=ss.get("room_published") or {})
    except Conflict as exc:  # another device moved the class first: this page adopts its state
        ss.room_said = (
            f"The class was moved by another device of yours (it is at t = {int(exc.state.get('t', 0)):,}): this "
            "page now shows the class's state; your last action was not sent."
        )
        ss.room_adopt_now = True
        ss.pop("room_unsent", None)
        st.rerun()
    except StoreUnavailable as exc:
        first = ss.get("room_unsent") is None
        ss.room_unsent, ss.room_unsent_why = dict(state), _store_words(exc)
        ss.pop("room_unsent_back", None)
        if first and not acted:  # said at once: the page runs again and its bar says the class did not follow
            st.rerun()
        return False
    except StoreError as exc:  # the class ended or expired, or the token no longer fits
        ss.room_problem = str(exc)
        ss.room_role = "ended"
        return False
    ss.room_published = dict(state)
    for k in ("room_unsent", "room_unsent_back", "room_problem", "room_refused"):
        ss.pop(k, None)  # (a write went through: what said the store refused writes is over)
    return True


def publish_step(cfg, pg, t=None):
    """The Playground's hook: the teacher's step ``t`` (default the run's) to the class (when this session
    teaches one). Never raises (a page that must adopt the class's state first runs again).

    The Playground calls it as soon as a frame has stepped (before it draws) and once more at the end of
    its run (for everything else that changes the lesson state); only a changed state is written.
    """
    if role() == "teacher":
        from .lesson_links import lesson_query

        publish(lesson_query(cfg, pg, t))


def refuse(what, exc):
    """A teacher's action the store refused: said at the top of the page, in words (``room_refused``)."""
    words, detail = _store_words(exc)
    st.session_state.room_refused = (f"{what} — {_sentence(words)}. Nothing changed.", detail)


def own_nickname(code, p):
    """This student's nickname as the store has it now: read again when the class's renames have changed since
    it was last read (``Poll.renamed``), so that a student the teacher renamed sees the new name on their page."""
    ss = st.session_state
    if p is not None and ss.get("room_renamed") != p.renamed:
        me = safely(store().student, code, ss.room_sid)
        if me is not None:
            ss.room_nick = me.nickname
        ss.room_renamed = p.renamed
    return ss.room_nick


def touch():
    """Note this student's page as present (at most every TOUCH_SECONDS). Returns the store's
    :class:`~cae.classroom.store.Claim` when it was asked (``ok`` False: another browser took this place over)."""
    if role() != "student" or time.monotonic() - st.session_state.get("room_touched", -1e9) < TOUCH_SECONDS:
        return None
    st.session_state.room_touched = time.monotonic()
    claim = safely(store().touch, st.session_state.room_code, st.session_state.room_sid, holder=holder())
    if claim is not None and not claim.ok:
        st.session_state.room_role = "taken"
    return claim


def classroom_bar():
    """The Playground's hook, near its top: one line about the class this session is in (nothing otherwise)."""
    r = role()
    if r == "teacher":
        _teacher_bar()
    elif r == "student":
        _student_bar()
    elif st.session_state.get("room_gone_cookie"):
        code, epoch = st.session_state.pop("room_gone_cookie")
        st.info(gone_words(code, epoch), icon=":material/cloud_off:")
        forget_teacher(code)


def _teacher_bar():
    """The teacher's line on the Playground: the class following, or why it does not (a store that fails, a
    step not sent, a class gone), and the way to the Classroom page; the page follows the class meanwhile."""
    from cae.classroom.store import RoomNotFound, StoreReset

    ss = st.session_state
    code = ss.room_code
    store_back()  # words of a failure the store has got over are not drawn
    with st.container(border=True):
        c = st.columns([5, 1.3])
        try:
            p = safely(store().poll, code)
        except (RoomNotFound, StoreReset):
            c[0].info(gone_words(code) + " Your Playground works as usual.", icon=":material/cloud_off:")
            if c[1].button("Start a new class", key="b_room_new_class", type="primary", width="stretch"):
                leave()
                st.switch_page("pages/classroom.py")
            return
        if ss.get("room_unsent") is not None:
            unsent_choice(c[0], p)
        elif p is None:
            c[0].warning(
                problem_words() + ". Your Playground works as usual; the class stays where it was and follows again "
                "once it is back."
            )
        else:
            students = safely(store().present, code) or []
            c[0].markdown(
                f":material/podcasts: **Live class {code}** · {len(students)} student(s) following: every step "
                "you take here is shown on their screens."
            )
        said = ss.pop("room_said", None)
        if said:
            c[0].caption(":material/sync: " + escape_markdown(said))
        c[1].page_link("pages/classroom.py", label="Ask the class →", icon=":material/quiz:")
        follow_class()


def unsent_choice(where, p):
    """A step (or another change) the class did not get, because the store failed: said, with the choice of
    sending it now or going back to where the class is. Nothing is sent by itself (the class never jumps)."""
    ss = st.session_state
    words = _sentence(ss.get("room_unsent_why", ("the class's store cannot be written",))[0])
    held = (p.state if p is not None else None) or ss.get("room_published") or {}
    class_t = int(held.get("t", 0))
    if ss.get("room_unsent_back"):
        where.warning(
            f"**The class's store takes writes again.** The class stays at t = {class_t:,} until you choose: send "
            "this page's state, or go back to the class's (nothing is sent by itself)."
        )
    else:
        where.error(
            f"**Not sent to the class** — {escape_markdown(words)}. The class stays at t = {class_t:,}; this page "
            "goes on without it. Nothing is sent by itself: once the store is back, send this page's state or go "
            "back to the class's."
        )
    a, b = where.columns(2)
    if a.button("Send this page's state to the class", key="b_room_send_unsent", width="stretch"):
        publish(dict(ss.room_unsent), acted=True)
        st.rerun()
    if b.button(
        f"Back to the class's t = {class_t:,}", key="b_room_back_to_class", width="stretch", disabled=p is None
    ):
        ss.room_adopt_now = True
        st.rerun()


def _follow_now():
    """The teacher's page follows its class: when the store holds a state this session neither published nor
    adopted (another device of the teacher moved the class), the whole page runs again and adopts it
    (:func:`class_lesson_in`).

    On its own timer (every POLL_SECONDS), not pushed by the server as a student's step is: a teacher's page
    changes the class itself, and a push that the page's own write set off arrives just as that page's run ends —
    the moment in which Streamlit drops a finished run's messages for a new one (``cae/streamlit_glue/classroom_push.py``:
    a student's step is drawn again then; here the Classroom page lost its Step and Ask buttons, measured with
    Redis in the browser test; the same loss from this timer's own waiting run is why every fragment sits in a
    container of its own, ``cae/streamlit_glue/fragment.py``). One store read a second per teacher page; while the page says the
    store failed, also the check that it takes writes again (:func:`store_back`)."""
    from cae.classroom.store import StoreError, StoreUnavailable

    ss = st.session_state
    if role() != "teacher":
        return
    from .classroom_push import running_alone

    if store_back() and running_alone():  # (in a run of the whole page, that run draws it)
        st.rerun()  # the whole page, without the words of the failure
    try:
        p = store().poll(ss.room_code)
    except StoreUnavailable:
        return  # the page says so; it follows again once the store is back
    except StoreError:
        st.rerun()  # the whole page says the class has gone
    if p.state and p.state != ss.get("room_published") and ss.get("room_unsent") is None:
        st.rerun()


#: the fragment by which a teacher's page follows its class (the Playground's bar and the Classroom's header)
follow_class = fragment(run_every=POLL_SECONDS)(_follow_now)


def tell_stale(words):
    """A teacher's Ask or Reveal that another device overtook (the store's compare-and-set refused it): said at the
    top of the page, which then shows the class as the store holds it (``room_stale``)."""
    st.session_state.room_stale = words


def show_refused():
    """A teacher's action the store refused (:func:`refuse`): its words at the top of the page, the store's
    address and error behind a closed expander (the page is on the projector) — until the store takes writes
    again (:func:`watch_store_back`), then the page is drawn again without them."""
    stale = st.session_state.pop("room_stale", None)
    if stale is not None:
        st.warning(escape_markdown(stale), icon=":material/sync_problem:")
    got = st.session_state.get("room_refused")
    if got is not None:
        st.error(escape_markdown(got[0]), icon=":material/block:")
        with st.expander("Details for whoever runs the server"):
            st.caption(escape_markdown(_sentence(got[1])))


def store_takes_writes():
    """True when the store would take a write now (nothing is written: :meth:`check_writable`)."""
    from cae.classroom.store import StoreError

    try:
        store().check_writable()
    except StoreError:
        return False
    return True


def store_back():
    """While the teacher's page says the store failed (a refused action, a step not sent, the store's problem): True,
    with the words of the failure gone, once the store takes writes again (a step not sent stays the teacher's
    choice; its words then say the store is back). Asked by each full run of the page before it draws them, and
    every second by :func:`follow_class`, which then draws the page again: the words go within a second or two
    of the store coming back, not at the teacher's next action."""
    ss = st.session_state
    if ss.get("room_refused") is None and ss.get("room_problem") is None and ss.get("room_unsent") is None:
        return False
    if ss.get("room_unsent_back") or not store_takes_writes():
        return False
    ss.pop("room_refused", None)
    ss.pop("room_problem", None)
    ss.pop("room_problem_detail", None)
    if ss.get("room_unsent") is not None:
        ss.room_unsent_back = True
    return True


@fragment(run_every=2.0)
def _student_bar():
    from cae.classroom import names
    from cae.classroom.store import RoomNotFound, StoreReset

    code = st.session_state.room_code
    with st.container(border=True):
        c = st.columns([5, 1.4])
        try:
            p = poll(code)
        except (RoomNotFound, StoreReset):  # ended, expired or lost
            c[0].info(gone_words(code) + " You can keep exploring on your own.")
            if c[1].button("Leave the class", key="b_room_leave_bar", width="stretch"):
                leave()
                st.rerun()
            return
        touch()
        nick = names.for_markdown(own_nickname(code, p))
        if p is None:
            c[0].warning(problem_words())
        elif p.closed:
            c[0].info(f"Class {code} has ended. You can keep exploring on your own.")
        elif st.session_state.get("room_sid") in p.removed:
            c[0].warning(f"The teacher has removed you from class {code}. You can keep exploring on your own.")
        elif p.question is not None and not p.question.revealed:
            c[0].warning(f"**The teacher asks a question** (class {code}, you are {nick}): follow to answer it.")
        else:
            c[0].markdown(f":material/explore: Class **{code}** · you are **{nick}** · exploring on your own")
        if c[1].button("Follow the teacher", key="b_room_follow", type="primary", width="stretch"):
            st.switch_page("pages/classroom.py", query_params={"room": code})

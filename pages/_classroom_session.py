"""The live classroom's session glue: the store, this session's role in a class, and the small hook the
Playground calls (the teacher's steps published; a student's way back to following the teacher).

The store is imported when a session is in a class (a Playground drawn outside a class does not import it).
The Playground calls two functions and nothing else: :func:`classroom_bar` near its top and
:func:`publish_step` each time it writes its lesson link. Everything else of the classroom is on
``pages/classroom.py``; the store and room logic are in ``cae.classroom`` (no Streamlit there).

Session state (all keys start with ``room_``): ``room_role`` ("teacher" or "student"), ``room_code``,
``room_token`` (the teacher's secret), ``room_sid`` and ``room_nick`` (the student's id and nickname),
``room_published`` (the last state this teacher wrote), ``room_problem`` / ``room_problem_detail`` (what the
store last said when it failed: words for everyone / where and why, for the teacher), ``room_touched`` (when
this student's presence was last written), ``room_holder`` (this browser's id, kept in its ``cae_browser``
cookie: the student's place is held by one browser at a time), ``room_epoch`` (the store's identity when the class was joined or
started: another one means the store was reset, not that the class ended), ``room_last_poll`` (the last
news read, drawn while the store is away), ``room_pending`` (an answer that did not reach the store yet).

The teacher's token never stays in the address bar: this browser keeps it in a cookie of the app's own
origin (``cae_teacher_CODE``, SameSite=Strict, for the class's lifetime), so a reload (F5, a server restart)
finds the class's teacher again; :func:`remember_teacher` writes it, :func:`teacher_cookie` reads it.
"""

from __future__ import annotations

import json
import os
import threading
import time

import streamlit as st

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


def client():
    """This browser's client key for the abuse limits (:func:`cae.classroom.client_key`): its address, or the
    address a proxy named in ``CAE_TRUSTED_PROXIES`` saw (``X-Forwarded-For``), never a header a client wrote."""
    from cae.classroom import client_key

    try:
        ip = st.context.ip_address
        forwarded = st.context.headers.get_all("X-Forwarded-For")
    except Exception:  # noqa: BLE001 - AppTest has no request
        ip, forwarded = None, None
    # Streamlit reports a peer on the loopback (127.0.0.1, ::1: a proxy on this machine, or a local browser) as
    # None; AppTest answers with stand-ins, not addresses: both are this machine
    peer = ip if isinstance(ip, str) else "127.0.0.1"
    hops = ", ".join(h for h in forwarded if isinstance(h, str)) if isinstance(forwarded, list) else None
    return client_key(peer, hops or None)


def trusted_proxies_warning():
    """Words for the teacher when ``CAE_TRUSTED_PROXIES`` has entries that are not addresses (None otherwise)."""
    from cae.classroom import trusted_proxies

    bad = trusted_proxies()[1]
    if not bad:
        return None
    return (
        "CAE_TRUSTED_PROXIES has entries that are not addresses or networks, ignored: "
        + ", ".join(escape_markdown(b) for b in bad)
        + ". Every class limit counts the clients behind them as one."
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


def gone_words(code):
    """Why the class ``code`` is not found: reset (the store lost it) or ended (by the teacher, or expired)."""
    from cae.classroom.store import StoreError

    saved = st.session_state.get("room_epoch")
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
def _cookie_name(code):
    return f"cae_teacher_{code}"


def teacher_cookie(code):
    """The teacher token this browser keeps for class ``code`` (None when it keeps none)."""
    try:
        return st.context.cookies.get(_cookie_name(code))
    except Exception:  # noqa: BLE001 - AppTest has no request
        return None


def _set_cookie(code, value, max_age):
    js = (
        f"document.cookie = {json.dumps(_cookie_name(code))} + '=' + {json.dumps(value)} + "
        f"'; path=/; max-age={int(max_age)}; SameSite=Strict';"
    )
    st.html(f"<script>{js}</script>", unsafe_allow_javascript=True, width=1)


def remember_teacher(code, token, max_age=12 * 3600):
    """Keep the teacher's token in this browser (a cookie of the app's origin), not in the address bar."""
    _set_cookie(code, token, max_age)


def forget_teacher(code):
    _set_cookie(code, "", 0)


def role():
    return st.session_state.get("room_role")


def become_teacher(code, token):
    for k in ("room_sid", "room_nick", "room_published", "room_answers", "room_last_poll", "room_pending"):
        st.session_state.pop(k, None)
    st.session_state.room_role, st.session_state.room_code, st.session_state.room_token = "teacher", code, token
    st.session_state.room_cookie_due = True  # written on the next page drawn (remember_teacher)
    remember_epoch()


def become_student(code, sid, nickname):
    for k in ("room_token", "room_published", "room_answers", "room_last_poll", "room_pending"):
        st.session_state.pop(k, None)
    st.session_state.room_role, st.session_state.room_code = "student", code
    st.session_state.room_sid, st.session_state.room_nick = sid, nickname
    remember_epoch()


def leave():
    """This session leaves its class (its keys go; the server stops pushing that class's steps to it)."""
    from pages._classroom_push import PUSHER

    if st.session_state.get("room_code"):
        PUSHER.forget(st.session_state.room_code)
    for k in [k for k in st.session_state if str(k).startswith("room_") and k != "room_holder"]:
        del st.session_state[k]


def publish(state):
    """The teacher's lesson state to the class (only when it changed). Returns False when it could not be sent."""
    if role() != "teacher":
        return True
    if st.session_state.get("room_published") == state:
        return True
    from cae.classroom.store import StoreError, StoreUnavailable

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
        nick = names.for_markdown(st.session_state.room_nick)
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

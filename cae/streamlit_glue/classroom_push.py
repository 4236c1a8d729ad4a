"""Server push for a live class: the teacher's step reaches every following student's page without each page
asking for it.

A Streamlit page learns of news only by running again. A page that asks every second costs the server one script
run per student per second — about 2 ms each with Streamlit 1.67, even for a run that draws one line — so a class
of 500 kept a whole core busy asking, and the steps themselves waited behind that (``python -m cae.bench
--classroom 500``). Instead, one thread per app process (:class:`Pusher`) reads each class's news (one store read
per class every :data:`CHECK_SECONDS`, :meth:`~cae.classroom.store.ClassroomStore.poll_recent`) and, when a class
has moved on (or its store went away, or came back), asks Streamlit to run again the student view of each page
that drew an older state. That is the request Streamlit itself makes when a source file changes and the app runs
on save; here it reruns only the student's fragment, not the whole page. Every page still asks by itself, every
:data:`FALLBACK_SECONDS`, in case a push is lost (a page that reconnected, a session that moved).

Streamlit has no public push API. This module uses ``Runtime.get_app_session`` and
``AppSession.request_rerun`` (public methods), and four private names: the session's last client state
(``AppSession._client_state``, which Streamlit's own rerun-on-save uses), its hand-over to the event loop
(``AppSession._call_soon_on_event_loop``), its current script runner (``AppSession._scriptrunner``) and the running
fragment's id (``ThreadState``). :func:`supported` checks the classes' names at import; without them the pages ask
every second, as they did before (and as they do under AppTest, which runs no server). A session without the
client state is not pushed to (its page then follows every FALLBACK_SECONDS). ``tests/app/test_classroom_push.py``
checks that pages which never ask do follow, with the Streamlit we install.

A push is made on Streamlit's event loop, where the browser's own rerun requests are handled, never from the
pusher's thread (``request_rerun`` changes the session's script runner, which the event loop reads and resets).
And a page counts as drawn only once its run's messages have gone out (:meth:`Pusher._sent_or_again`): with 500
pages on one event loop, Streamlit sometimes dropped a finished run's messages, and a page missed a step.
"""

from __future__ import annotations

import threading
import time

#: how often the pusher reads each followed class's news (a step reaches the pages within this, plus a rerun)
CHECK_SECONDS = 0.25
#: a push the page has not drawn after this many seconds is asked again (Streamlit drops a fragment's rerun that
#: arrives while a run of the whole page is rebuilding it)
RETRY_SECONDS = 3.0
#: how often a pushed page still asks by itself (the presence it writes counts for 30 s: PRESENT_SECONDS)
FALLBACK_SECONDS = 15.0


def _streamlit_parts():
    """``(Runtime, ClientState, ThreadState)``, or None when this Streamlit lacks what push needs."""
    try:
        from streamlit.proto.ClientState_pb2 import ClientState
        from streamlit.runtime import Runtime
        from streamlit.runtime.app_session import AppSession
        from streamlit.runtime.scriptrunner_utils.script_run_context import ThreadState
    except ImportError:
        return None
    needed = (
        hasattr(Runtime, "get_app_session"),
        hasattr(AppSession, "request_rerun"),
        hasattr(AppSession, "has_fragment"),
        hasattr(AppSession, "_call_soon_on_event_loop"),
        hasattr(ThreadState, "get"),
    )
    return (Runtime, ClientState, ThreadState) if all(needed) else None


_PARTS = _streamlit_parts()


def supported():
    """True when this Streamlit has what the server needs to rerun a page's fragment (see the module's docstring)."""
    return _PARTS is not None


def available():
    """True when pages are pushed to: :func:`supported`, and a Streamlit server is running this app (not under
    AppTest, where pages ask every second as without push and no thread is started)."""
    return _PARTS is not None and _PARTS[0].exists()


def running_alone():
    """True when the running fragment runs by itself (on its timer, or pushed), False when it runs as part of a
    run of its page or of an enclosing fragment (which has just read the class's news). True when unknown."""
    if _PARTS is None:
        return True
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    ids = getattr(ctx, "fragment_ids_this_run", None) or ()
    return _PARTS[2].get().fragment_id in ids


class _Page:
    """One student's page: its session and fragment, and the state it drew (a class version, or "away")."""

    __slots__ = ("fragment", "page", "drawn", "pushed", "pushed_at")

    def __init__(self, fragment, page, drawn):
        self.fragment, self.page, self.drawn, self.pushed, self.pushed_at = fragment, page, drawn, None, 0.0


class Pusher:
    """The process's pusher: the pages following each class, and the thread that reruns them when it moves on.

    ``follow`` is called by a student's page each time it draws; the thread starts with the first call and
    reads only the classes that have pages.
    """

    def __init__(self, check_seconds=CHECK_SECONDS):
        self.check_seconds = float(check_seconds)
        self._classes = {}  # code -> (store, {session id: _Page})
        self._lock = threading.Lock()
        self._thread = None
        self._seen = {}  # code -> the version last read
        self._round_at = -1e9  # when the thread last read the classes
        self._frozen_pages, self._frozen_at = 0, -1e9

    def follow(self, store, code, drawn):
        """Note that the running page drew class ``code`` at ``drawn``; True when it will be pushed to.

        Called inside the fragment that draws the class, whose id is what the push reruns (outside any fragment,
        the push reruns the whole page: a question asked or revealed, rarer than steps).
        """
        if not available():
            return False
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        fragment = _PARTS[2].get().fragment_id  # None outside a fragment: the whole page is run again
        if ctx is None:
            return False
        page = _Page(fragment, ctx.page_script_hash, drawn)
        with self._lock:
            pages = self._classes.setdefault(code, (store, {}))[1]
            pages[ctx.session_id] = page
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="cae-classroom-push", daemon=True)
                self._thread.start()
        session = _PARTS[0].instance().get_app_session(ctx.session_id)
        runner = getattr(session, "_scriptrunner", None)
        if runner is not None:  # after what this run has drawn, on the event loop: was it sent?
            session._call_soon_on_event_loop(lambda: self._sent_or_again(session, runner, page))
        return True

    @staticmethod
    def _sent_or_again(session, runner, page):
        """Streamlit forgets a run's messages when, by the time its event loop gets to them, the session has started
        another script runner: the run has just finished (its runner stopped, its messages still waiting on a busy
        event loop) when the browser's own timer asks for a fragment run, ``AppSession.request_rerun`` starts a new
        runner, and the finished run's messages are dropped as from "a non-current ScriptRunner" (Streamlit's
        comment in ``request_rerun`` describes it). The page never shows what it drew, yet counts as drawn: in
        benchmark runs at 500 students, 1-7 pages missed a step in about one run of four.

        This runs on the event loop right after the run's messages (posted at the end of the run, after them): if
        the runner was replaced by then, the page counts as not drawn, and the pusher asks it again at its next
        round (CHECK_SECONDS)."""
        if getattr(session, "_scriptrunner", None) is not runner:
            page.drawn = None

    def in_flight(self, code, version):
        """True when class ``code``'s ``version`` is on its way to the running page: the pusher has not read it yet
        (it reads every CHECK_SECONDS), or has pushed it less than RETRY_SECONDS ago. The page's own fallback then
        leaves it to the push instead of running the whole page again."""
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        with self._lock:
            entry = self._classes.get(code)
            page = entry[1].get(ctx.session_id) if entry is not None and ctx is not None else None
            seen = self._seen.get(code)
        if page is None or time.monotonic() - self._round_at > 2.0:  # not pushed to, or the pusher has stopped
            return False
        if seen != version:
            return True
        return page.pushed == version and time.monotonic() - page.pushed_at < RETRY_SECONDS

    def forget(self, code):
        """The running page no longer follows ``code`` (the student left the class)."""
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        with self._lock:
            entry = self._classes.get(code)
            if entry is not None and ctx is not None:
                entry[1].pop(ctx.session_id, None)

    def _freeze_when_grown(self, n_pages):
        """Keep Python's full garbage collections short while a class fills the server.

        A full collection walks every object the process holds: with 500 students' sessions it took 0.35-0.7 s
        here, every few seconds of a class, and every page waited for it. What the process holds once a class has
        joined (the app's modules, the shared runs, the sessions) lives as long as the class, so it is moved out of
        the collector's way (``gc.freeze``): when the pages followed have grown by a fifth since the last time, at
        most every 10 s. (No collection first: that would be the same pause. The garbage waiting for the next
        collection is kept: a few MB at most, once per growth.)
        """
        import gc

        now = time.monotonic()
        if n_pages >= 1.2 * self._frozen_pages + 10 and now - self._frozen_at > 10.0:
            gc.freeze()
            self._frozen_pages, self._frozen_at = n_pages, now

    def _run(self):
        while True:
            time.sleep(self.check_seconds)
            with self._lock:
                classes = [(code, store, dict(pages)) for code, (store, pages) in self._classes.items() if pages]
            self._freeze_when_grown(sum(len(pages) for _, _, pages in classes))
            self._round_at = time.monotonic()
            for code, store, pages in classes:
                try:
                    self._check(code, store, pages)
                except Exception:  # noqa: BLE001 - the pages still ask by themselves; the next round tries again
                    pass

    def _check(self, code, store, pages):
        from cae.classroom.store import StoreError, StoreUnavailable

        try:
            now = store.poll_recent(code, max_age=self.check_seconds).version
        except StoreUnavailable:
            now = "away"
        except StoreError:  # the class ended or the store was reset: the page says so when it runs
            now = "gone"
        self._seen[code] = now
        runtime = _PARTS[0].instance()
        for sid, page in pages.items():
            if page.drawn == now:
                continue
            if page.pushed == now and time.monotonic() - page.pushed_at < RETRY_SECONDS:
                continue  # asked already; asked again if the page has not drawn it by then (a run that was busy)
            session = runtime.get_app_session(sid)
            if session is None:  # a closed tab
                self._drop(code, sid)
                continue
            page.pushed, page.pushed_at = now, time.monotonic()
            session._call_soon_on_event_loop(lambda s=session, sid=sid, p=page, v=now: self._push(code, sid, s, p, v))

    def _push(self, code, sid, session, page, now):
        """Ask ``session`` to run the page's fragment (or the whole page) again. On Streamlit's event loop, as a
        browser's request would be (see the module's docstring)."""
        last = getattr(session, "_client_state", None)  # what the browser last sent: its page, query, widgets
        if (
            last is None
            or last.page_script_hash != page.page
            or (page.fragment and not session.has_fragment(page.fragment))
        ):
            self._drop(code, sid, page)  # a page that no longer shows the class
            return
        state = _PARTS[1]()
        state.CopyFrom(last)
        state.fragment_id = page.fragment or ""
        state.is_auto_rerun = bool(page.fragment)
        session.request_rerun(state)
        if now == "gone":  # told once: the page says the class has gone, and follows nothing
            self._drop(code, sid)

    def _drop(self, code, sid, page=None):
        """Stop pushing to session ``sid`` (only if it still stands for ``page``, when given: the page may have
        drawn again meanwhile)."""
        with self._lock:
            pages = self._classes.get(code, (None, {}))[1]
            if page is None or pages.get(sid) is page:
                pages.pop(sid, None)


#: the process's pusher (the Classroom page uses this one)
PUSHER = Pusher()

"""The classroom under load: ``python -m cae.bench --classroom N``.

One app server (``streamlit run app.py``, started here, pointed at a fresh store) and one class:

- **the students** are real Streamlit sessions — each a websocket to the server speaking Streamlit's own
  protocol (``streamlit.proto``; no browser): the server runs the Classroom page for each of them exactly
  as for a browser, its poll fragment every second included. With ``--real K`` below N, the first K are
  such sessions and the other N − K poll the store directly (the load on the store is the same; the load
  on the server is K sessions').
- **the teacher** acts on the store (publishes steps, asks, reveals), as the Playground does.

It prints the time from a teacher's step to each student's page showing it (median, p95), the answers
submitted, counted and lost (``lost: N`` must be 0), and the server's memory per following student. The
stream is the paper's at its size (15,000 points per distribution: 99,000 samples) unless told otherwise.

Only the benchmark and its tests use this module (it imports Streamlit's protobuf messages, never its API).
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from ..classroom.deploy import ROOT, AppServer, RedisServer, redis_binary

__all__ = ["StudentSession", "Flood", "bench", "main"]


class StudentSession:
    """A real Streamlit session of the Classroom page over a websocket, without a browser.

    It does what the browser does for this page: asks for the page with the student's link, runs the
    fragments the server asks to rerun on their timers (the page's poll), keeps the query string the app
    writes, and submits the answer form with the widget states a browser would send. It notes when each
    step ``t`` first shows in the page's "Samples seen", and the alerts the page shows.

    Through a proxy (``sticky=True``) it also keeps the cookies a browser keeps: the proxy's route
    (``cae_route``, from the page's first HTTP request) and the app's own (``cae_browser``, which the page
    writes with a script), and sends them with every connection. With ``reconnect=True`` a dropped socket is
    reconnected as Streamlit's client does (its ``WebsocketConnection``): wait 250–500 ms (then up to 4 s,
    doubling, with jitter), ask ``/_stcore/health`` until it answers, open a new socket and ask for a full run of
    the page with the same link — a new server process has no session for it, so the page starts again from the
    link, as a browser's would. ``dropped_at``, ``reconnected_at`` and ``upstreams`` (the proxy's
    ``X-CAE-Upstream``: which process answered) say when and where. With ``timers=False`` it never asks for the
    page's timed reruns, so that what reaches it is what the server pushed (a test of the push).
    """

    def __init__(
        self, base_url, query, page="classroom", sticky=False, reconnect=False, timers=True, headers=None, source=None
    ):
        self.ws_url = base_url.replace("http://", "ws://") + "/_stcore/stream"
        self.base_url = base_url
        self.query = query
        self.page = page
        self.page_hash = ""
        self.seen_at = {}
        self.alerts = []
        self.widget_ids = {}
        self.timers = {}
        self.errors = []
        self.runs_started = 0  # runs of the page (or of a fragment) the server began for this session
        self.runs_finished = 0
        self.ws = None
        self._reader = None
        self.sticky, self.reconnect = sticky, reconnect
        self.use_timers = timers  # False: the page's own timed reruns are not asked for (what reaches it is pushed)
        self.cookies = {}
        self.headers = dict(headers or {})  # more request headers (a forged X-Forwarded-For...)
        self.source = source  # the client's own address (127.0.0.2...: another client on this machine)
        self.buttons = {}  # a button's id by its label (a form's submit button has no key)
        self.upstreams = []
        self.dropped_at = []
        self.reconnected_at = []
        self._closing = False

    async def start(self):
        if self.sticky:  # the browser's first request: the page itself, which brings the proxy's cookie
            await asyncio.to_thread(self._http, f"{self.base_url}/{self.page}?{self.query}", 60)
        await self._connect()
        self._reader = asyncio.create_task(self._read())
        await self.rerun()

    def _http(self, url, timeout):
        req = urllib.request.Request(url)
        if self.cookies:
            req.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        with urllib.request.urlopen(req, timeout=timeout) as r:
            for c in r.headers.get_all("Set-Cookie") or ():
                k, _, v = c.split(";")[0].partition("=")
                self.cookies[k.strip()] = v.strip()
            return r.read()

    async def _connect(self):
        import websockets

        headers = dict(self.headers)
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        self.ws = await websockets.connect(
            self.ws_url,
            subprotocols=["streamlit"],
            max_size=None,
            ping_interval=None,
            open_timeout=60,
            additional_headers=headers or None,
            **({"local_addr": (self.source, 0)} if self.source else {}),
        )
        self.upstreams.append(self.ws.response.headers.get("X-CAE-Upstream") if self.ws.response else None)

    def _ping(self):
        try:
            return self._http(self.base_url + "/_stcore/health", 4).strip() == b"ok"
        except OSError:
            return False

    async def _reconnect(self):
        self.dropped_at.append(time.time())
        self._cancel_timers()  # the page's timers die with its session
        attempt = 0
        while not self._closing:
            attempt += 1
            cap = min(4000, 500 * 2 ** (attempt - 1))
            low = 250 if attempt == 1 else cap / 2
            await asyncio.sleep((low + random.random() * (cap - low)) / 1000)
            while not self._closing and not await asyncio.to_thread(self._ping):
                await asyncio.sleep(0.1 + random.random() * 0.4)
            try:
                await self._connect()
            except Exception:  # noqa: BLE001 - the next attempt, after a longer wait
                continue
            self.reconnected_at.append(time.time())
            await self.rerun()
            return True
        return False

    def _client_state(self, fragment_id=None, widgets=()):
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        cs = msg.rerun_script
        cs.query_string = self.query
        cs.page_name = self.page
        cs.page_script_hash = self.page_hash
        cs.context_info.url = f"{self.base_url}/{self.page}?{self.query}"
        if fragment_id:
            cs.fragment_id = fragment_id
            cs.is_auto_rerun = True
        cs.widget_states.widgets.extend(widgets)
        return msg.SerializeToString()

    async def rerun(self, fragment_id=None, widgets=()):
        try:
            await self.ws.send(self._client_state(fragment_id, widgets))
        except Exception as exc:  # noqa: BLE001 - a closed socket is reported, not raised
            self.errors.append(repr(exc))

    def _cancel_timers(self):
        """Every timed rerun stops, as Streamlit's client stops them when a run of the whole page begins (the page's
        fragments then ask for theirs again); a fragment that page no longer draws asks no more."""
        for task in self.timers.values():
            task.cancel()
        self.timers.clear()

    async def _timer(self, fragment_id, interval):
        while True:
            await asyncio.sleep(interval)
            await self.rerun(fragment_id)

    async def _read(self):
        while True:
            await self._read_socket()
            if not self.reconnect or self._closing or not await self._reconnect():
                return

    async def _read_socket(self):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        from websockets.exceptions import ConnectionClosed

        try:
            async for raw in self.ws:
                now = time.time()
                fm = ForwardMsg()
                fm.ParseFromString(raw)
                kind = fm.WhichOneof("type")
                if kind == "new_session":
                    self.runs_started += 1
                    if not fm.metadata.run.fragment_ids:
                        self._cancel_timers()  # a run of the whole page: its fragments register their timers again
                elif kind == "navigation":  # the page being shown, as the browser keeps it for its next requests
                    self.page_hash = fm.navigation.page_script_hash
                elif kind == "script_finished":
                    self.runs_finished += 1
                elif kind == "page_info_changed":
                    self.query = fm.page_info_changed.query_string
                elif kind == "auto_rerun" and self.use_timers:
                    fid = fm.auto_rerun.fragment_id
                    if fid in self.timers:
                        self.timers[fid].cancel()
                    self.timers[fid] = asyncio.create_task(self._timer(fid, fm.auto_rerun.interval))
                elif kind == "stop_auto_rerun":
                    for fid in fm.stop_auto_rerun.fragment_ids:
                        task = self.timers.pop(fid, None)
                        if task is not None:
                            task.cancel()
                elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                    self._element(fm.delta.new_element, now)
        except ConnectionClosed as exc:
            if not self.reconnect:
                self.errors.append(repr(exc))
        except Exception as exc:  # noqa: BLE001
            self.errors.append(repr(exc))

    def _element(self, el, now):
        kind = el.WhichOneof("type")
        if kind == "metric" and el.metric.label == "Samples seen":
            try:
                t = int(el.metric.body.split("/")[0].replace(",", "").strip())
            except ValueError:
                return
            self.seen_at.setdefault(t, now)
        elif kind == "alert":
            self.alerts.append((now, el.alert.body))
        elif kind == "html" and self.sticky:  # the script by which the page keeps this browser's cookie
            m = _BROWSER_COOKIE.search(el.html.body)
            if m:
                self.cookies["cae_browser"] = m.group(1)
        elif kind in ("radio", "checkbox", "button", "text_input"):
            w = getattr(el, kind)
            if kind == "button":
                self.buttons[w.label] = w.id
            if kind == "button" and w.label == "Send my answer":
                self.widget_ids["submit"] = w.id
            else:
                self.widget_ids[w.id.rsplit("-", 1)[-1]] = w.id

    @property
    def idle(self):
        """True when every run the server began for this session has finished (nothing of it is running)."""
        return self.runs_started == self.runs_finished

    async def answer(self, qid, choice, choices_text):
        """Submit the answer form of question ``qid`` as a browser would; False if the form is not there."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        keys = (f"w_room_case_{qid}", f"w_room_edge_{qid}", f"w_room_node_{qid}", "submit")
        if not all(k in self.widget_ids for k in keys):
            return False
        case, edge, node = choice
        states = [
            WidgetState(id=self.widget_ids[keys[0]], string_value=choices_text[case]),
            WidgetState(id=self.widget_ids[keys[1]], bool_value=bool(edge)),
            WidgetState(id=self.widget_ids[keys[2]], bool_value=bool(node)),
            WidgetState(id=self.widget_ids["submit"], trigger_value=True),
        ]
        await self.rerun(widgets=states)
        return True

    async def press(self, label, texts=None):
        """Press the button ``label`` (a form's submit button sends the form's ``texts``: {widget key: value}), as
        a browser would; False if the page has no such button (or field)."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        texts = texts or {}
        if label not in self.buttons or not all(k in self.widget_ids for k in texts):
            return False
        states = [WidgetState(id=self.widget_ids[k], string_value=str(v)) for k, v in texts.items()]
        states.append(WidgetState(id=self.buttons[label], trigger_value=True))
        await self.rerun(widgets=states)
        return True

    async def close(self):
        self._closing = True
        for task in self.timers.values():
            task.cancel()
        if self._reader is not None:
            self._reader.cancel()
        if self.ws is not None:
            try:
                await self.ws.close()
            except Exception:  # noqa: BLE001
                pass


_BROWSER_COOKIE = re.compile(r"'cae_browser=' \+ \"([A-Za-z0-9_-]+)\"")


class StorePoller(threading.Thread):
    """A student who only polls the store (every ``interval`` s), noting when each step ``t`` arrives."""

    def __init__(self, store, code, interval=1.0):
        super().__init__(daemon=True)
        self.store, self.code, self.interval = store, code, interval
        self.seen_at = {}
        self.stop_event = threading.Event()

    def run(self):
        time.sleep(random.random() * self.interval)
        while not self.stop_event.is_set():
            try:
                p = self.store.poll(self.code)
                self.seen_at.setdefault(int(p.state.get("t", 0)), time.time())
            except Exception:  # noqa: BLE001 - counted as not seen
                pass
            self.stop_event.wait(self.interval)


def flood_client(url, query, until, page="classroom"):
    """One session that asks the server to run its page as fast as the connection lets it, until ``until()``:
    what the issue's 20-line script did (no browser, no fragments: whole-page reruns, one after the other, never
    waiting for an answer). Returns ``(requests sent, page runs the server finished for it)``."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from websockets.sync.client import connect

    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.page_name = page
    msg.rerun_script.context_info.url = f"{url}/{page}?{query}"
    payload, sent, runs = msg.SerializeToString(), [0], [0]
    stream = url.replace("http://", "ws://") + "/_stcore/stream"
    with connect(stream, subprotocols=["streamlit"], max_size=None, open_timeout=60) as ws:
        reader = threading.Thread(target=_count_runs, args=(ws, runs), daemon=True)
        watcher = threading.Thread(target=_cut_when, args=(ws, until), daemon=True)
        reader.start()
        watcher.start()
        try:
            while not until():
                ws.send(payload)
                sent[0] += 1
        except Exception:  # noqa: BLE001 - cut by the watcher, or closed by the server
            pass
        watcher.join()
    reader.join(5)
    return sent[0], runs[0]


def churn_client(url, query, until, per_connection=20, page="classroom"):
    """One worker of a student who keeps opening a fresh connection, sending ``per_connection`` requests to run the
    page and closing it, until ``until()`` — the issue's attack on a limit counted per socket (every connection
    a fresh allowance). Returns ``(connections opened, requests sent)``."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from websockets.sync.client import connect

    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.page_name = page
    msg.rerun_script.context_info.url = f"{url}/{page}?{query}"
    payload, opened, sent = msg.SerializeToString(), 0, 0
    stream = url.replace("http://", "ws://") + "/_stcore/stream"
    while not until():
        try:
            with connect(stream, subprotocols=["streamlit"], max_size=None, open_timeout=30, close_timeout=1) as ws:
                opened += 1
                for _ in range(per_connection):
                    ws.send(payload)
                    sent += 1
        except Exception:  # noqa: BLE001 - refused or cut: the next connection
            time.sleep(0.05)
    return opened, sent


def _churn_main(argv):
    """``python -m cae.bench.classroom churn URL STOPFILE PARALLEL QUERY...``: PARALLEL workers of
    :func:`churn_client` in threads of this process, shared out over the queries (the churning students), until
    STOPFILE exists (10 minutes at most); prints ``connections requests`` per worker."""
    from concurrent.futures import ThreadPoolExecutor

    url, stop, parallel, queries = argv[0], Path(argv[1]), int(argv[2]), argv[3:]
    deadline = time.time() + 600
    work = [queries[k % len(queries)] for k in range(parallel)]
    with ThreadPoolExecutor(parallel) as pool:
        for opened, sent in pool.map(
            lambda q: churn_client(url, q, lambda: stop.exists() or time.time() > deadline), work
        ):
            print(opened, sent, flush=True)


def _count_runs(ws, runs):
    """Count the page runs the server finishes for a flooding session (its ``script_finished`` messages)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    try:
        for raw in ws:
            fm = ForwardMsg()
            fm.ParseFromString(raw)
            if fm.WhichOneof("type") == "script_finished":
                runs[0] += 1
    except Exception:  # noqa: BLE001 - the socket closed
        pass


def _cut_when(ws, until):
    """A server that reads no more of a flooding socket leaves its send() blocked: cut the socket from here."""
    while not until():
        time.sleep(0.1)
    try:
        ws.socket.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _flood_main(argv):
    """``python -m cae.bench.classroom flood URL STOPFILE QUERY...``: one flooding session per query, each in a
    thread of this process (apart from the benchmark's students), until STOPFILE exists (10 minutes at most);
    prints ``sent runs`` per session."""
    from concurrent.futures import ThreadPoolExecutor

    url, stop, queries = argv[0], Path(argv[1]), argv[2:]
    deadline = time.time() + 600
    with ThreadPoolExecutor(len(queries)) as pool:
        for sent, runs in pool.map(
            lambda q: flood_client(url, q, lambda: stop.exists() or time.time() > deadline), queries
        ):
            print(sent, runs, flush=True)


class Flood:
    """Flooding sessions (:func:`flood_client`, one per query) in a process of their own, until :meth:`stop`; with
    ``churn`` (the number of workers at a time), students who keep opening fresh connections instead
    (:func:`churn_client`; each row of :meth:`stop` is then ``(connections, requests)``)."""

    def __init__(self, url, queries, churn=0):
        fd, stop = tempfile.mkstemp(prefix="cae-flood-stop-")
        os.close(fd)
        os.unlink(stop)
        self.stop_file = Path(stop)
        if churn:
            cmd = [sys.executable, "-m", "cae.bench.classroom", "churn", url, stop, str(int(churn)), *queries]
        else:
            cmd = [sys.executable, "-m", "cae.bench.classroom", "flood", url, stop, *queries]
        self.started = time.time()
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def stop(self, timeout=60):
        """Stop flooding: ``([(sent, runs), ...] per session, seconds flooded)``."""
        self.stop_file.touch()
        seconds = time.time() - self.started
        try:
            out, err = self.proc.communicate(timeout=timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.stop_file.unlink(missing_ok=True)
        rows = [tuple(int(x) for x in line.split()) for line in out.splitlines() if line.strip()]
        if self.proc.returncode != 0 or not rows:
            raise RuntimeError("the flooding sessions failed: " + err[-1000:])
        return rows, seconds


def _pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[k]


#: how many churning workers run at a time (the issue's: "8 at a time"), shared out over the churning students
CHURN_PARALLEL = 8


async def _run_class(
    server, store, code, token, state, n, real, steps, step_size, out, proxied=False, kill_one=False, flood=0, churn=0
):
    from ..app.explanations import QUIZ_CHOICES, quiz_truth
    from ..classroom.views import SharedRuns

    t0 = int(state["t"])
    rss_idle = server.rss_mb()
    # the app's own memory first: one session opens the Classroom page (no class) and leaves
    lobby = StudentSession(server.url, "", sticky=proxied)
    await lobby.start()
    await wait_until(lambda: lobby.runs_finished > 0, 300)
    await lobby.close()
    await asyncio.sleep(1.0)
    rss_before = server.rss_mb()
    # the first student: the room's shared run is built here (learned up to t0, its figure drawn)
    students = [store.join(code, f"student {k + 1}") for k in range(n)]
    sessions = []

    async def open_session(s):
        sess = StudentSession(server.url, f"room={code}&me={s.sid}", sticky=proxied, reconnect=proxied)
        await sess.start()
        return sess

    first = await open_session(students[0])
    sessions.append(first)
    await wait_until(lambda: t0 in first.seen_at, 300)
    rss_one = server.rss_mb()
    batch = 20
    for k in range(1, real, batch):
        sessions += await asyncio.gather(*(open_session(s) for s in students[k : min(real, k + batch)]))
        await asyncio.sleep(0.2)
    await wait_until(lambda: all(t0 in s.seen_at for s in sessions), 600)
    pollers = [StorePoller(store, code) for _ in students[real:]]
    for p in pollers:
        p.start()
    await asyncio.sleep(3.0)  # every poll fragment on its timer
    rss_all = server.rss_mb()
    out(f"  {real} real session(s) following at t = {t0:,}; {len(pollers)} student(s) polling the store")
    # the server's CPU while nothing happens: every page's poll, and nothing else
    # over 15 s: each page's slowest timer (the pushed pages' own check, FALLBACK_SECONDS) fires once in any such
    # window; a shorter one left those runs out of the polling and counted them in the steps
    quiet = 15.0
    cpu0 = server.cpu_seconds()
    await asyncio.sleep(quiet)
    cpu1 = server.cpu_seconds()
    poll_cpu = (cpu1 - cpu0) / quiet if cpu0 is not None and cpu1 is not None else None
    flooding = None
    if flood:  # sessions that ask for their page as fast as they can, all through the steps
        flooders = [store.join(code, f"flooder {k + 1}") for k in range(flood)]
        flooding = Flood(server.url, [f"room={code}&me={f.sid}" for f in flooders])
        await asyncio.sleep(5.0)
        out(f"  {flood} session(s) flooding the server with requests to run their page, from a process of their own")
    elif churn:  # students who keep opening fresh connections, each with its requests, all through the steps
        churners = [store.join(code, f"churner {k + 1}") for k in range(churn)]
        flooding = Flood(server.url, [f"room={code}&me={c.sid}" for c in churners], churn=CHURN_PARALLEL)
        await asyncio.sleep(5.0)
        out(
            f"  {churn} student(s) churning connections ({CHURN_PARALLEL} at a time: open, 20 requests to run the "
            "page, close), from a process of their own"
        )

    # the teacher steps; every student's page must show each step
    delays_real, delays_store, missed = [], [], []
    t = t0
    cpu_start, time_start = server.cpu_seconds(), time.time()
    for _ in range(steps):
        t += step_size
        sent = time.time()
        store.publish(code, token, dict(state, t=str(t)))
        everyone = sessions + pollers
        await wait_until(lambda t=t: all(t in s.seen_at for s in everyone), 60)
        for s in everyone:
            if t in s.seen_at:
                (delays_real if s in sessions else delays_store).append(s.seen_at[t] - sent)
            else:
                missed.append((s, t))
        await asyncio.sleep(1.0 + random.random())
    cpu_end, time_end = server.cpu_seconds(), time.time()
    flooded = flooding.stop() if flooding is not None else None
    step_cpu = None
    if cpu_start is not None and cpu_end is not None and poll_cpu is not None:
        # what the steps cost beyond the polling that went on meanwhile
        step_cpu = max(0.0, (cpu_end - cpu_start) - poll_cpu * (time_end - time_start)) / steps
    rss_steps = server.rss_mb()
    # a step not shown within 60 s: did that page show a later one (it skipped), or stop following?
    stalled = sum(1 for s, t_ in missed if max(s.seen_at, default=0) <= t_)
    missed = (len(missed), stalled)

    # a question: every student answers once (the real sessions through the page's form)
    q = store.ask(code, token, t + 1, dict(state, t=str(t)))
    truth = quiz_truth(SharedRuns(1).for_state(dict(state, t=str(t)))[0].view(t).probe)
    await wait_until(
        lambda: all("submit" in s.widget_ids and f"w_room_case_{q.qid}" in s.widget_ids for s in sessions), 120
    )
    submitted = 0
    choices = {}
    for k, s in enumerate(sessions):
        choice = (truth[0] if k % 2 == 0 else (truth[0] + 1) % 4, truth[1], truth[2])
        if await s.answer(q.qid, choice, QUIZ_CHOICES):
            submitted += 1
            choices[students[k].sid] = choice
    for k, st_ in enumerate(students[real:], start=real):
        choice = (truth[0] if k % 2 == 0 else (truth[0] + 1) % 4, truth[1], truth[2])
        try:
            store.answer(code, st_.sid, q.qid, choice)
            submitted += 1
            choices[st_.sid] = choice
        except Exception:  # noqa: BLE001 - an answer the store refused counts as not submitted
            pass
    await wait_until(lambda: len(store.answers(code, q.qid)) >= submitted, 120)
    got = store.answers(code, q.qid)
    counted = sum(1 for a in got if choices.get(a.sid) == a.choice)
    store.reveal(code, token, q.qid, truth)
    store.publish(code, token, dict(state, t=str(t + 1)))
    verdicts = ("Right!", "Not quite.")
    await wait_until(lambda: all(any(b in verdicts for _, b in s.alerts) for s in sessions), 120)
    shown = sum(1 for s in sessions if any(b in verdicts for _, b in s.alerts))
    killed = None
    if kill_one:
        killed = await _kill_one(server, store, code, token, state, t + 1, sessions, students, q, submitted, out)
    for p in pollers:
        p.stop_event.set()
    errors = [e for s in sessions for e in s.errors]
    await asyncio.gather(*(s.close() for s in sessions))
    return dict(
        flooded=flooded,
        killed=killed,
        delays_real=delays_real,
        delays_store=delays_store,
        missed=missed,
        submitted=submitted,
        counted=counted,
        shown=shown,
        rss=(rss_idle, rss_before, rss_one, rss_all, rss_steps),
        cpu=(poll_cpu, step_cpu, real),
        errors=errors,
    )


async def _kill_one(deployment, store, code, token, state, t, sessions, students, q, submitted, out):
    """Kill (SIGKILL) the app process that serves most students; time their way back; check nothing is lost."""
    from ..app.explanations import QUIZ_CHOICES, quiz_truth
    from ..classroom.views import SharedRuns

    ports = [str(p) for p in deployment.ports()]
    where = [str(s.upstreams[-1] or "").rsplit(":", 1)[-1] for s in sessions]
    victim = max(range(len(ports)), key=lambda i: sum(w == ports[i] for w in where))
    moved = [s for s, w in zip(sessions, where) if w == ports[victim]]
    stayed = [s for s in sessions if s not in moved]
    out(f"  kill: process {victim + 1} of {len(ports)} (port {ports[victim]}) serves {len(moved)} of {len(sessions)}")
    killed_at = time.time()
    deployment.kill(victim)
    t += 1
    store.publish(code, token, dict(state, t=str(t)))
    await wait_until(lambda: all(t in s.seen_at for s in sessions), 90)
    back = [s.reconnected_at[-1] - killed_at for s in moved if s.reconnected_at]
    follow = [s.seen_at[t] - killed_at for s in moved if t in s.seen_at]
    elsewhere = sum(
        1 for s in moved if s.reconnected_at and str(s.upstreams[-1] or "").rsplit(":", 1)[-1] != ports[victim]
    )
    follow_stayed = [s.seen_at[t] - killed_at for s in stayed if t in s.seen_at]
    # nothing lost: the answers given before the kill are all in the store; everyone answers a new question
    before = len(store.answers(code, q.qid))
    q2 = store.ask(code, token, t + 1, dict(state, t=str(t)))
    truth = quiz_truth(SharedRuns(1).for_state(dict(state, t=str(t)))[0].view(t).probe)
    await wait_until(lambda: all(f"w_room_case_{q2.qid}" in s.widget_ids for s in sessions), 120)
    choices, submitted2 = {}, 0
    for k, s in enumerate(sessions):
        choice = (truth[0] if k % 2 == 0 else (truth[0] + 1) % 4, truth[1], truth[2])
        if await s.answer(q2.qid, choice, QUIZ_CHOICES):
            submitted2 += 1
            choices[students[k].sid] = choice
    await wait_until(lambda: len(store.answers(code, q2.qid)) >= submitted2, 120)
    counted2 = sum(1 for a in store.answers(code, q2.qid) if choices.get(a.sid) == a.choice)
    return dict(
        moved=len(moved),
        stayed=len(stayed),
        reconnected=len(back),
        elsewhere=elsewhere,
        back=back,
        follow=follow,
        follow_stayed=follow_stayed,
        answers_before=(before, submitted),
        submitted2=submitted2,
        counted2=counted2,
    )


async def wait_until(cond, timeout):
    """Wait (asynchronously) until ``cond()`` holds or ``timeout`` seconds pass; the last ``cond()``."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        await asyncio.sleep(0.05)
    return cond()


def _print(*args):
    print(*args, flush=True)


def bench(
    n,
    backend="sqlite",
    real=None,
    n_per_class=15000,
    t0=50000,
    steps=10,
    step_size=1,
    out=_print,
    processes=1,
    proxy=None,
    kill_one=False,
    flood=0,
    churn=0,
):
    """One class of ``n`` students on one backend; prints the report and returns its numbers.

    With ``flood`` K, K more sessions ask the server to run their page as fast as they can while the teacher
    steps (:class:`Flood`); the report says how many requests they sent and how many runs they got (the
    server's limit: ``cae/streamlit_glue/rerun_limit.py``, ``CAE_RERUNS_PER_SECOND``). With ``churn`` K, K more students keep
    opening fresh connections instead (:data:`CHURN_PARALLEL` at a time, 20 requests each): the report says how many
    connections and requests they made.

    With ``proxy`` (:class:`cae.classroom.deploy.Deployment`, the recipe of docs/classroom.md: ``python -m
    cae.bench --proxy nginx`` passes it), ``processes`` app processes behind nginx and the students through
    nginx's port; ``kill_one`` then kills one app process after the class's question and reports how its
    students came back. (This module does not import the deployment: the deployment imports its servers.)
    """
    from ..classroom import open_store
    from ..classroom.store import Limits

    real = n if real is None else max(1, min(int(real), n))
    with tempfile.TemporaryDirectory(prefix="cae-bench-classroom-") as tmp:
        redis_server = None
        if backend == "redis":
            redis_server = RedisServer(Path(tmp) / "redis")
            url = redis_server.url
        else:
            url = "sqlite:///" + str(Path(tmp) / "classroom.sqlite3")
        env = dict(os.environ, CAE_CLASSROOM_URL=url)
        if proxy is not None:
            server = proxy(processes, url, folder=Path(tmp) / "nginx", env=env)
        elif proxy is None and processes == 1 and not kill_one:
            server = AppServer(env)
        else:
            raise ValueError("several processes (and --kill-one) need --proxy nginx")
        try:
            store = open_store(url, limits=Limits(students_per_room=max(500, n)))
            code, token = store.create_room()
            state = {"stream": "paper2d-ns", "n": str(n_per_class), "noise": "0.1", "seed": "0", "algo": "CAE"}
            from ..app.lesson_links import PLAYGROUND_DEFAULTS
            from ..app.streams import make_stream

            length = len(make_stream({**PLAYGROUND_DEFAULTS, "n_per_class": n_per_class}))
            t0 = min(int(t0), length // 2)
            state["t"] = str(t0)
            store.publish(code, token, state)
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
            out(
                f"classroom, {n} students, {backend} store: {real} real Streamlit session(s) over websockets, "
                f"{n - real} through the store alone; the paper's stream at n = {n_per_class:,} per distribution; "
                + (f"{processes} app process(es) behind nginx ({server.url}); " if proxy else "")
                + f"load average at start {load:.1f} on {os.cpu_count()} cores"
            )
            res = asyncio.run(
                _run_class(
                    server,
                    store,
                    code,
                    token,
                    state,
                    n,
                    real,
                    steps,
                    step_size,
                    out,
                    bool(proxy),
                    kill_one and bool(proxy),
                    flood,
                    churn,
                )
            )
        finally:
            server.stop()
            if redis_server is not None:
                redis_server.stop()
    d = res["delays_real"] + res["delays_store"]
    out(
        f"  step propagation (teacher publishes -> the student's page shows the step), {steps} steps x {n} students: "
        f"median {statistics.median(d) if d else float('nan'):.2f} s, p95 {_pct(d, 0.95):.2f} s, "
        f"max {max(d) if d else float('nan'):.2f} s"
        + (
            f"; not shown within 60 s: {res['missed'][0]} (by pages that stopped following: {res['missed'][1]})"
            if res["missed"][0]
            else ""
        )
    )
    if res["delays_real"] and res["delays_store"]:
        r, s = res["delays_real"], res["delays_store"]
        out(
            f"    real sessions: median {statistics.median(r):.2f} s, p95 {_pct(r, 0.95):.2f} s; "
            f"store pollers: median {statistics.median(s):.2f} s, p95 {_pct(s, 0.95):.2f} s"
        )
    limit = os.environ.get("CAE_RERUNS_PER_SECOND", "3 (the default)")
    if res["flooded"] and churn:
        rows, secs = res["flooded"]
        opened, sent = sum(r[0] for r in rows), sum(r[1] for r in rows)
        out(
            f"  connection churn: {churn} student(s), {len(rows)} workers, opened {opened:,} connections and sent "
            f"{sent:,} requests in {secs:.0f} s ({opened / secs:,.1f} connections/s, {sent / secs:,.0f} requests/s); "
            f"CAE_RERUNS_PER_SECOND = {limit}"
        )
    elif res["flooded"]:
        rows, secs = res["flooded"]
        sent, runs = sum(r[0] for r in rows), sum(r[1] for r in rows)
        out(
            f"  rerun flood: {len(rows)} session(s) sent {sent:,} requests in {secs:.0f} s ({sent / secs:,.0f}/s); the "
            f"server finished {runs:,} runs of their page ({runs / secs:.1f}/s); CAE_RERUNS_PER_SECOND = {limit}"
        )
    out(f"  answers submitted: {res['submitted']}")
    out(f"  answers counted: {res['counted']}")
    out(f"lost: {res['submitted'] - res['counted']}")
    out(f"  reveal shown on {res['shown']} of {real} real session(s)")
    idle, before, one, everyone, after = res["rss"]
    if before is not None:
        per = (everyone - one) / max(real - 1, 1)
        out(
            f"  server memory (RSS): {idle:.0f} MB started, {before:.0f} MB once a page has loaded the app; "
            f"{one:.0f} MB with the class's shared run and its first student (+{one - before:.0f} MB); "
            f"{everyone:.0f} MB with {real} following, {after:.0f} MB after the steps"
        )
        out(
            f"  per following student: {per:.2f} MB beyond the first; {(everyone - before) / real:.2f} MB with the "
            "shared run divided among them"
        )
    poll_cpu, step_cpu, n_real = res["cpu"]
    if poll_cpu is not None and step_cpu is not None:
        out(
            f"  server CPU per following student: {1000 * step_cpu / n_real:.2f} ms per step (the step's pages, "
            f"beyond the polling); {1000 * poll_cpu / n_real:.2f} ms per second of polling; the server busy "
            f"{100 * poll_cpu:.0f} % of a core while the class only follows"
        )
    k = res.get("killed")
    if k:
        b, f, fs = k["back"], k["follow"], k["follow_stayed"]
        out(
            f"  process killed (SIGKILL) after the question: {k['reconnected']} of its {k['moved']} student(s) "
            f"reconnected through nginx ({k['elsewhere']} to another process) in median "
            f"{statistics.median(b) if b else float('nan'):.2f} s, max {max(b) if b else float('nan'):.2f} s; "
            f"{len(f)} of {k['moved']} followed again (the step published at the kill shown) in median "
            f"{statistics.median(f) if f else float('nan'):.2f} s, max {max(f) if f else float('nan'):.2f} s "
            f"(the other process's {k['stayed']}: median {statistics.median(fs) if fs else float('nan'):.2f} s)"
        )
        out(
            f"  answers given before the kill still in the store: {k['answers_before'][0]} of "
            f"{k['answers_before'][1]}; a question after it: {k['submitted2']} submitted, {k['counted2']} counted"
        )
        out(f"lost after the kill: {k['answers_before'][1] - k['answers_before'][0] + k['submitted2'] - k['counted2']}")
    if res["errors"]:
        out(f"  session errors: {len(res['errors'])} (first: {res['errors'][0][:200]})")
    return res


def main(
    n,
    backends=("sqlite", "redis"),
    real=None,
    n_per_class=15000,
    steps=10,
    processes=1,
    proxy=None,
    kill_one=False,
    flood=0,
    churn=0,
):
    import signal

    from .. import _jit

    # a terminated benchmark still stops the servers it started (the finally blocks run, undisturbed)
    def _terminate(*_):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.exit(143)

    signal.signal(signal.SIGTERM, _terminate)

    if _jit.MODE == "auto":
        _jit.prepare(wait_seconds=1800)  # the server uses the same compiled kernels
    for backend in backends:
        if backend == "redis" and redis_binary() is None:
            print("redis: skipped, redis-server is not installed (apt-get install redis-server)")
            continue
        bench(
            n,
            backend,
            real=real,
            n_per_class=n_per_class,
            steps=steps,
            processes=processes,
            proxy=proxy,
            kill_one=kill_one,
            flood=flood,
            churn=churn,
        )


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "flood":
    _flood_main(sys.argv[2:])
elif __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "churn":
    _churn_main(sys.argv[2:])

"""A limit on how often one browser session may ask the server for work: a session that asks faster than any page
needs — a script flooding its websocket with requests to run the page — is slowed down on the server, and cannot
starve a class.

Everything a browser asks of a Streamlit server comes as a message on its websocket (``/_stcore/stream``): run
the page or one of its fragments (with the widgets' values), a heartbeat... A page of this app needs at most about
one and a half a second (the teacher's page while the class answers: the chart every second, who is here every 2
s; Play on the Playground, one every 1.5 s), and a person clicking as fast as they can, a few a second for a
moment. Each session gets a bucket of :data:`BURST` messages, refilled at :data:`RATE` a second; a message that
finds it empty waits its turn. While it waits the server does not read that connection at all (uvicorn stops
reading a socket until its one waiting message is taken), so what a flooding session sends beyond :data:`RATE` a
second stays in its own socket's buffers and costs the server nothing, while every other session is served as
usual. Nothing is dropped: the messages are handled in order, later.

Where: Streamlit 1.67 serves with Starlette on uvicorn; its websocket endpoint reads each message with Starlette's
``WebSocket.receive_bytes`` (a public method) and handles it before it reads the next. :func:`install` wraps that
method, for Streamlit's stream route only, after :func:`supported` has checked both (the endpoint's source reads
its messages with ``receive_bytes``): with another Streamlit the limit is not installed, and the app runs as
before. ``CAE_RERUNS_PER_SECOND`` sets :data:`RATE` (0 turns the limit off: ``python -m cae.bench --classroom N
--flood K`` measures both). ``tests/app/test_rerun_limit.py`` floods a real server.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time

#: messages a second one session is served once its burst is spent (``CAE_RERUNS_PER_SECOND``; 0: no limit)
RATE = 3.0
#: messages one session may send at once before it is slowed down
BURST = 20
#: the route whose messages are counted (Streamlit's websocket)
ROUTE = "/_stcore/stream"

_INSTALLED = []  # the original method, once installed
_LOCK = threading.Lock()
#: what the limit did in this process: messages that waited, and the sessions they came from
STATS = {"waited": 0, "sessions": 0}


def rate(environ=None):
    """The messages a second a session is served beyond its burst (``CAE_RERUNS_PER_SECOND``, default
    :data:`RATE`; 0 or a negative number: no limit; a value that is not a number: the default).

    >>> rate({}), rate({"CAE_RERUNS_PER_SECOND": "0"}), rate({"CAE_RERUNS_PER_SECOND": "x"})
    (3.0, 0.0, 3.0)
    """
    env = os.environ if environ is None else environ
    try:
        return max(0.0, float(env.get("CAE_RERUNS_PER_SECOND", RATE)))
    except ValueError:
        return RATE


class Bucket:
    """One session's allowance: :data:`BURST` messages at once, then ``per_second``; :meth:`take` says how long
    a message must wait (0: at once). A message that waits has its place reserved: waits come in turn.

    >>> b = Bucket(per_second=2.0, burst=3, now=0.0)
    >>> [b.take(0.0) for _ in range(5)]
    [0.0, 0.0, 0.0, 0.5, 1.0]
    >>> b.take(10.0)
    0.0
    """

    __slots__ = ("per_second", "burst", "tokens", "at")

    def __init__(self, per_second=RATE, burst=BURST, now=None):
        self.per_second, self.burst = float(per_second), float(burst)
        self.tokens, self.at = self.burst, time.monotonic() if now is None else now

    def take(self, now=None):
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        self.tokens -= 1.0
        return 0.0 if self.tokens >= 0 else -self.tokens / self.per_second


def supported():
    """True when this Streamlit reads its websocket's messages with Starlette's ``WebSocket.receive_bytes``,
    one at a time (what :func:`install` wraps)."""
    import inspect

    try:
        from starlette.websockets import WebSocket
        from streamlit.web.server.starlette import starlette_websocket
    except ImportError:
        return False
    try:
        source = inspect.getsource(starlette_websocket.create_websocket_handler)
    except (OSError, TypeError, AttributeError):
        return False
    return inspect.iscoroutinefunction(WebSocket.receive_bytes) and "await websocket.receive_bytes()" in source


def installed():
    return bool(_INSTALLED)


def install():
    """Wrap ``WebSocket.receive_bytes`` once per process (nothing when :func:`supported` is False). Each
    connection to Streamlit's stream route gets its :class:`Bucket` (kept in its ASGI scope)."""
    with _LOCK:
        if _INSTALLED or not supported():
            return installed()
        from starlette.websockets import WebSocket

        original = WebSocket.receive_bytes

        async def receive_bytes(self):
            data = await original(self)
            if str(self.scope.get("path", "")).endswith(ROUTE):
                per_second = rate()
                if per_second > 0:
                    bucket = self.scope.get("cae_bucket")
                    if bucket is None:
                        bucket = self.scope["cae_bucket"] = Bucket(per_second)
                    wait = bucket.take()
                    if wait > 0:  # this connection is not read meanwhile: the rest waits in its socket
                        STATS["waited"] += 1
                        if not self.scope.get("cae_slowed"):
                            self.scope["cae_slowed"] = True
                            STATS["sessions"] += 1
                        await asyncio.sleep(wait)
            return data

        receive_bytes.__doc__ = original.__doc__
        WebSocket.receive_bytes = receive_bytes
        _INSTALLED.append(original)
        return True

"""A limit on how often one person may ask the server for work, across all their connections: a script flooding its
websocket with requests to run the page, or opening connection after connection with a few requests on each, is
slowed down on the server, and cannot starve a class.

Everything a browser asks of a Streamlit server comes as a message on its websocket (``/_stcore/stream``): run
the page or one of its fragments (with the widgets' values), a heartbeat... A page of this app needs at most about
one and a half a second (the teacher's page while the class answers: the chart every second, who is here every 2
s; Play on the Playground, one every 1.5 s), and a person clicking as fast as they can, a few a second for a
moment. The allowance belongs to the person, not to the socket (a socket is free to open: counted per socket, a
student whose page kept opening fresh connections got a fresh allowance with each, and stalled the class):

- **a student** — their seat in the class, the ``room`` and ``me`` of their page's link, once the class's store
  knows that student (asked once per seat and process, off the event loop: :func:`install`'s ``seat_known``) —
  gets :data:`BURST` messages at once, then :data:`RATE` a second (``CAE_RERUNS_PER_SECOND``), over every connection
  that page or any other opens with that link;
- **anyone else** — the teacher's pages, the Playground, a link that names no known seat — shares the allowance of
  their client address (:func:`cae.classroom.client_address`: the connection's, or the one a proxy named in
  ``CAE_TRUSTED_PROXIES`` saw): :data:`CLIENT_BURST` at once, then :data:`CLIENT_RATE` a second
  (``CAE_RERUNS_PER_CLIENT``), as many as a computer room behind one address needs.

A new connection costs :data:`CONNECT_COST` messages more (its first run starts a session of its own: the costly
part of a page that keeps reconnecting). A message that finds its bucket empty waits its turn; while it waits the
server reads at most :data:`AHEAD` more messages of that connection (uvicorn reads a socket only while the app takes
its messages), so what a flooding connection sends beyond them stays in its own socket's buffers and costs the
server nothing, while every other person is served as usual. Nothing of a connection that stays is dropped: its
messages are handled in order, later. A connection whose client leaves while its message waits (a page that keeps
reconnecting closes each socket after its requests) ends there: its message is not handled — nobody is there for
the answer — and its place in the allowance is given back, so a reconnecting page never piles up sessions.

Where: Streamlit 1.67 serves with Starlette on uvicorn; its websocket endpoint reads each message with Starlette's
``WebSocket.receive_bytes`` (a public method) and handles it before it reads the next. :func:`install` wraps that
method, for Streamlit's stream route only, after :func:`supported` has checked both (the endpoint's source reads
its messages with ``receive_bytes``): with another Streamlit the limit is not installed, and the app runs as
before. ``CAE_RERUNS_PER_SECOND=0`` turns the limit off (``python -m cae.bench --classroom N --flood K`` and
``--flood-churn K`` measure both). ``tests/app/test_rerun_limit.py`` floods and churns a real server.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections import OrderedDict, deque
from urllib.parse import parse_qs

#: messages a second one student is served once their burst is spent (``CAE_RERUNS_PER_SECOND``; 0: no limit)
RATE = 3.0
#: messages one student may send at once before they are slowed down
BURST = 20
#: messages a second one client address is served for everything that is not a student's seat
#: (``CAE_RERUNS_PER_CLIENT``): a computer room behind one address, each page at its own pace
CLIENT_RATE = 30.0
#: messages one client address may send at once
CLIENT_BURST = 300
#: what a new connection costs beyond its first message (the session it starts)
CONNECT_COST = 4
#: the route whose messages are counted (Streamlit's websocket)
ROUTE = "/_stcore/stream"
#: messages of one connection read ahead while one of its messages waits its turn (to see the client leave)
AHEAD = 32
#: how long the store's answer about a seat is kept (a seat known; a seat unknown)
SEAT_KNOWN_SECONDS, SEAT_UNKNOWN_SECONDS = 600.0, 30.0
#: people whose allowance is kept (the least recently seen go first; a bucket left alone refills anyway)
MAX_PEOPLE = 20_000

_INSTALLED = []  # the original method, once installed
_LOCK = threading.Lock()
#: what the limit did in this process: messages that waited, the people they came from, connections counted, and
#: connections whose client left while a message waited (their message was not handled)
STATS = {"waited": 0, "people": 0, "connections": 0, "gone": 0}
_BUCKETS: OrderedDict = OrderedDict()  # person -> Bucket (on the event loop only)
_SLOWED: set = set()
_SEATS: dict = {}  # (room, me) -> (known, when asked)
_SEAT_KNOWN = [None]  # the store's check of a seat, given to install()


def _number(environ, name, default):
    env = os.environ if environ is None else environ
    try:
        return max(0.0, float(env.get(name, default)))
    except ValueError:
        return default


def rate(environ=None):
    """The messages a second a student is served beyond their burst (``CAE_RERUNS_PER_SECOND``, default
    :data:`RATE`; 0 or a negative number: no limit at all; a value that is not a number: the default).

    >>> rate({}), rate({"CAE_RERUNS_PER_SECOND": "0"}), rate({"CAE_RERUNS_PER_SECOND": "x"})
    (3.0, 0.0, 3.0)
    """
    return _number(environ, "CAE_RERUNS_PER_SECOND", RATE)


def client_rate(environ=None):
    """The messages a second one client address is served (``CAE_RERUNS_PER_CLIENT``, default :data:`CLIENT_RATE`).

    >>> client_rate({}), client_rate({"CAE_RERUNS_PER_CLIENT": "120"})
    (30.0, 120.0)
    """
    return _number(environ, "CAE_RERUNS_PER_CLIENT", CLIENT_RATE) or CLIENT_RATE


class Bucket:
    """One person's allowance: ``burst`` messages at once, then ``per_second``; :meth:`take` says how long a message
    must wait (0: at once). A message that waits has its place reserved: waits come in turn.

    >>> b = Bucket(per_second=2.0, burst=3, now=0.0)
    >>> [b.take(0.0) for _ in range(5)]
    [0.0, 0.0, 0.0, 0.5, 1.0]
    >>> b.take(10.0), b.take(10.0, cost=5)
    (0.0, 1.5)
    """

    __slots__ = ("per_second", "burst", "tokens", "at")

    def __init__(self, per_second=RATE, burst=BURST, now=None):
        self.per_second, self.burst = float(per_second), float(burst)
        self.tokens, self.at = self.burst, time.monotonic() if now is None else now

    def take(self, now=None, cost=1.0):
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.per_second)
        self.at = now
        self.tokens -= cost
        return 0.0 if self.tokens >= 0 else -self.tokens / self.per_second


def seat_in(data):
    """The seat a message names, ``(room, me)``: the student link's ``room`` and ``me`` of a request to run the
    page (None for another message, or a link without both). Parsed as Streamlit's own protocol (its ``BackMsg``).

    >>> from streamlit.proto.BackMsg_pb2 import BackMsg
    >>> m = BackMsg()
    >>> m.rerun_script.query_string = "room=acefh3&me=s1"
    >>> seat_in(m.SerializeToString()), seat_in(b"")
    (('ACEFH3', 's1'), None)
    """
    from streamlit.proto.BackMsg_pb2 import BackMsg

    try:
        msg = BackMsg.FromString(data)
    except Exception:  # noqa: BLE001 - not a message of this protocol: Streamlit closes the socket itself
        return None
    if msg.WhichOneof("type") != "rerun_script":
        return None
    q = parse_qs(msg.rerun_script.query_string)
    room, me = (q.get("room") or [""])[0], (q.get("me") or [""])[0]
    if not room or not me or len(room) > 12 or len(me) > 64:
        return None
    return room.strip().upper(), me


def address_of(scope):
    """The client address of a connection (its ASGI ``scope``): :func:`cae.classroom.client_address` of its peer
    and ``X-Forwarded-For``, believed only from a proxy named in ``CAE_TRUSTED_PROXIES``."""
    from cae.classroom import client_address, trusted_proxies

    peer = (scope.get("client") or ("unknown", 0))[0]
    hops = ", ".join(v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"x-forwarded-for")
    return client_address(peer, hops or None, trusted_proxies()[0])


async def _seat_known(seat):
    """Is ``seat`` a student of its class? The store is asked once per seat and process (off the event loop);
    the answer is kept :data:`SEAT_KNOWN_SECONDS` (:data:`SEAT_UNKNOWN_SECONDS` when not known)."""
    now = time.monotonic()
    got = _SEATS.get(seat)
    if got is not None and now - got[1] < (SEAT_KNOWN_SECONDS if got[0] else SEAT_UNKNOWN_SECONDS):
        return got[0]
    check = _SEAT_KNOWN[0]
    try:
        known = bool(check is not None and await asyncio.to_thread(check, *seat))
    except Exception:  # noqa: BLE001 - a store away: not known for now
        known = False
    if len(_SEATS) > MAX_PEOPLE:
        _SEATS.clear()
    _SEATS[seat] = (known, now)
    return known


def _bucket(person):
    """The person's bucket, made when first seen; the least recently seen are forgotten beyond :data:`MAX_PEOPLE`."""
    b = _BUCKETS.get(person)
    if b is None:
        if person[0] == "seat":
            b = Bucket(rate(), BURST)
        else:
            b = Bucket(client_rate(), CLIENT_BURST)
        _BUCKETS[person] = b
        while len(_BUCKETS) > MAX_PEOPLE:
            _BUCKETS.popitem(last=False)
    else:
        _BUCKETS.move_to_end(person)
    return b


async def person_of(scope, data):
    """Whose allowance a message of the connection ``scope`` is counted in: ``("seat", room, me)`` for a request
    that names a seat the store knows, else the connection's person so far (its last seat, or its address)."""
    seat = seat_in(data)
    if seat is not None and await _seat_known(seat):
        scope["cae_person"] = ("seat", *seat)
    elif "cae_person" not in scope:
        scope["cae_person"] = ("address", address_of(scope))
    return scope["cae_person"]


async def _wait_watching(websocket, read, seconds):
    """Wait ``seconds``, reading ahead what the connection sends meanwhile (at most :data:`AHEAD` messages, kept in
    order for the endpoint; beyond them the rest waits in its socket): False as soon as the client has gone (its
    connection closed), True once the time is up."""
    from starlette.websockets import WebSocketDisconnect

    loop = asyncio.get_running_loop()
    ahead = websocket.scope.setdefault("cae_ahead", deque())
    end = loop.time() + seconds
    while (left := end - loop.time()) > 0:
        if len(ahead) >= AHEAD or (ahead and isinstance(ahead[-1], BaseException)):
            await asyncio.sleep(left)
            break
        try:
            ahead.append(await asyncio.wait_for(read(websocket), left))
        except TimeoutError:
            break
        except WebSocketDisconnect as exc:
            ahead.append(exc)
            return False
        except Exception as exc:  # noqa: BLE001 - a text frame (Streamlit closes the socket): in turn, for the endpoint
            ahead.append(exc)
    return True


async def wait_turn(websocket, data, read):
    """Take the message's place in its person's allowance and wait its turn when it is spent (``read``: the original
    ``receive_bytes``, to watch the connection meanwhile). False when the client went away while it waited: its
    message will not be handled (nobody is there for the answer), and its place is given back."""
    scope = websocket.scope
    if rate() <= 0:
        return True
    person = await person_of(scope, data)
    cost = 1.0
    if not scope.get("cae_counted"):  # a new connection: the session it starts
        scope["cae_counted"] = True
        STATS["connections"] += 1
        cost += CONNECT_COST
    bucket = _bucket(person)
    wait = bucket.take(cost=cost)
    if wait <= 0:
        return True
    STATS["waited"] += 1
    if person not in _SLOWED:
        _SLOWED.add(person)
        STATS["people"] = len(_SLOWED)
    if await _wait_watching(websocket, read, wait):
        return True
    bucket.tokens += cost  # (a connection that came and went costs nothing more than its wait)
    STATS["gone"] += 1
    return False


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


def install(seat_known=None):
    """Wrap ``WebSocket.receive_bytes`` once per process (nothing when :func:`supported` is False); each message
    of Streamlit's stream route then waits its turn in its person's allowance (:func:`wait_turn`).
    ``seat_known(room, me)``: True when the class's store has that student (called off the event loop)."""
    with _LOCK:
        if seat_known is not None:
            _SEAT_KNOWN[0] = seat_known
        if _INSTALLED or not supported():
            return installed()
        from starlette.websockets import WebSocket

        original = WebSocket.receive_bytes

        async def receive_bytes(self):
            ahead = self.scope.get("cae_ahead")
            if ahead:  # read while an earlier message waited its turn
                item = ahead.popleft()
                if isinstance(item, BaseException):
                    raise item
                data = item
            else:
                data = await original(self)
            if str(self.scope.get("path", "")).endswith(ROUTE) and not await wait_turn(self, data, original):
                gone = self.scope["cae_ahead"].pop()
                self.scope["cae_ahead"].clear()
                raise gone  # the client left while its message waited: the endpoint ends the session
            return data

        receive_bytes.__doc__ = original.__doc__
        WebSocket.receive_bytes = receive_bytes
        _INSTALLED.append(original)
        return True

"""The app server's own routes and start check (Starlette; no Streamlit here): what a page cannot do from its
script.

Streamlit 1.67 serves with Starlette on uvicorn, and ``st.App`` (its public API) lets an app add routes and a
lifespan to that server; ``app.py`` makes its ``st.App`` with :func:`routes`, so
``streamlit run app.py`` serves them. A page's script answers only over the websocket, never with an HTTP
response, so it can set a cookie only by a script in the page (``document.cookie``) — readable by any script
there, and never ``HttpOnly``. These routes set and read the teacher's cookie on the server:

- ``POST /_cae/teacher-cookie?once=NONCE`` — the teacher's page hands the browser a one-time nonce
  (:func:`hand_over`, 128 random bits, spent on first use and gone after :data:`HANDOVER_SECONDS`), and its script
  posts it here: the response sets ``cae_teacher_CODE`` (the teacher token and the store's epoch) ``HttpOnly;
  SameSite=Strict; Path=/`` — and ``Secure`` when the request came over https (directly, or through a proxy
  named in ``CAE_TRUSTED_PROXIES`` that says so in ``X-Forwarded-Proto``). The page never holds the token; the
  nonce it holds is worthless once spent. A nonce for an empty value clears the cookie.
- ``GET /_cae/teacher-link?room=CODE&base=URL`` — the teacher link of class ``CODE`` from this browser's own
  teacher cookie, for *Copy the teacher link* (the page's button asks when clicked; the link is never in the
  page). Only for a same-origin request (``Sec-Fetch-Site``, else ``Origin``): another site cannot read it.

The nonces live in this process: nginx's sticky cookie sends the script's request to the process whose page made
it (docs/deploy/nginx.conf.template). :func:`start_check`, which ``app.py`` calls as the server imports it, checks
``CAE_TRUSTED_PROXIES`` (:func:`cae.classroom.check_trust_setting`): a setting that cannot be meant stops the
server with a message naming the value, and every start says what it trusts.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time

__all__ = [
    "COOKIE_PREFIX",
    "HANDOVER_SECONDS",
    "TEACHER_COOKIE_ROUTE",
    "TEACHER_LINK_ROUTE",
    "hand_over",
    "routes",
    "start_check",
]

#: a teacher cookie's name is this and the class code
COOKIE_PREFIX = "cae_teacher_"
#: how long a nonce of :func:`hand_over` can be spent
HANDOVER_SECONDS = 60.0
TEACHER_COOKIE_ROUTE = "/_cae/teacher-cookie"
TEACHER_LINK_ROUTE = "/_cae/teacher-link"

_HANDOVERS: dict[str, tuple[float, str, str, int]] = {}  # nonce -> (made, code, value, max age)
_HANDOVER_LOCK = threading.Lock()


def hand_over(code, value, max_age):
    """A one-time nonce that, posted to :data:`TEACHER_COOKIE_ROUTE` within :data:`HANDOVER_SECONDS`, sets this
    browser's teacher cookie of class ``code`` to ``value`` for ``max_age`` seconds (0 and an empty value: clear it).

    >>> once = hand_over("ACEFH3", "tok.epoch", 60)
    >>> _spend(once)[:2], _spend(once)
    (('ACEFH3', 'tok.epoch'), None)
    """
    now = time.monotonic()
    nonce = secrets.token_urlsafe(16)
    with _HANDOVER_LOCK:
        for k in [k for k, v in _HANDOVERS.items() if now - v[0] > HANDOVER_SECONDS]:
            del _HANDOVERS[k]
        _HANDOVERS[nonce] = (now, str(code), str(value), int(max_age))
    return nonce


def _spend(nonce):
    """``(code, value, max age)`` of a nonce not yet spent nor expired (it is spent now), else None."""
    with _HANDOVER_LOCK:
        got = _HANDOVERS.pop(str(nonce or ""), None)
    if got is None or time.monotonic() - got[0] > HANDOVER_SECONDS:
        return None
    return got[1:]


def _https(request):
    """True when the browser's request came over https: to this server, or to a proxy named in
    ``CAE_TRUSTED_PROXIES`` that says so (``X-Forwarded-Proto``; a client's own header is not believed)."""
    from . import is_trusted_peer, trusted_proxies

    if request.url.scheme == "https":
        return True
    peer = request.client.host if request.client else ""
    proto = request.headers.get("x-forwarded-proto", "").split(",")[-1].strip().lower()
    return proto == "https" and is_trusted_peer(peer, trusted_proxies()[0])


def _same_origin(request):
    """A request the app's own page made (``Sec-Fetch-Site: same-origin``, or an ``Origin`` of this host)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    origin = request.headers.get("origin")
    return origin is not None and origin.split("://", 1)[-1] == request.headers.get("host", "")


def _teacher_cookie(request):
    """POST: set (or clear) the teacher cookie a nonce of :func:`hand_over` names."""
    from starlette.responses import JSONResponse

    if not _same_origin(request):
        return JSONResponse({"ok": False, "why": "not this app's page"}, status_code=403)
    got = _spend(request.query_params.get("once"))
    if got is None:
        return JSONResponse({"ok": False, "why": "this nonce is spent or too old"}, status_code=410)
    code, value, max_age = got
    resp = JSONResponse({"ok": True}, headers={"Cache-Control": "no-store"})
    resp.set_cookie(
        COOKIE_PREFIX + code,
        value,
        max_age=max_age if value else 0,
        path="/",
        httponly=True,
        samesite="strict",
        secure=_https(request),
    )
    return resp


def _teacher_link(request):
    """GET: the teacher link of a class, from this browser's own teacher cookie (for the page's copy button)."""
    from starlette.responses import JSONResponse

    from .room import teacher_url
    from .store import BadInput, normalize_code

    headers = {"Cache-Control": "no-store"}
    if not _same_origin(request):
        return JSONResponse({"ok": False, "why": "not this app's page"}, status_code=403, headers=headers)
    try:
        code = normalize_code(request.query_params.get("room", ""))
    except BadInput:
        return JSONResponse({"ok": False, "why": "no such class code"}, status_code=400, headers=headers)
    token = request.cookies.get(COOKIE_PREFIX + code, "").partition(".")[0]
    if not token:
        return JSONResponse(
            {"ok": False, "why": "this browser keeps no teacher link"}, status_code=404, headers=headers
        )
    base = request.query_params.get("base") or str(request.base_url)
    return JSONResponse({"ok": True, "url": teacher_url(base, code, token)}, headers=headers)


def routes():
    """The server's own routes (for ``st.App(routes=...)``)."""
    from starlette.routing import Route

    return [
        Route(TEACHER_COOKIE_ROUTE, _teacher_cookie, methods=["POST"]),
        Route(TEACHER_LINK_ROUTE, _teacher_link, methods=["GET"]),
    ]


def start_check(environ=None, out=None):
    """What the server says at start about the settings it reads: the line it logs, or ``SystemExit`` (after
    writing why to ``out``, stderr by default) when ``CAE_TRUSTED_PROXIES`` cannot be meant.

    >>> import io
    >>> start_check({"CAE_TRUSTED_PROXIES": "127.0.0.1", "FORWARDED_ALLOW_IPS": ""}, out=io.StringIO())
    'CAE_TRUSTED_PROXIES: the X-Forwarded-For of a connection from 127.0.0.1/32 names the client (no other proxy is trusted)'
    """
    from . import TrustSettingError, check_trust_setting

    try:
        line = check_trust_setting(environ)  # (it reads FORWARDED_ALLOW_IPS too: Streamlit's server's own trust)
    except TrustSettingError as exc:
        said = f"CAE Explorer cannot start: {exc}"
        print(said, file=out or sys.stderr, flush=True)
        raise SystemExit(2) from None
    print(line, file=out or sys.stderr, flush=True)
    return line

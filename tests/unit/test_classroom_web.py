"""The app server's own routes (cae/classroom/web.py), called as the ASGI server calls them: the teacher cookie set
by the server from a one-time nonce (HttpOnly, SameSite=Strict, Secure over https — directly or through a proxy
named in CAE_TRUSTED_PROXIES), and the teacher link read back from that cookie, for this app's own page only.
The real browsers' side (no token in the page of either teacher device) is tests/browser/test_classroom_token_browser.py.
"""

import asyncio
import json
import time

import pytest

from cae.classroom import web


def _call(method, path, query="", headers=None, client=("127.0.0.1", 5000), scheme="http"):
    """One request to the routes as uvicorn makes it: ``(status, {header: [values]}, JSON body)``."""
    from starlette.applications import Starlette

    app = Starlette(routes=web.routes())
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "scheme": scheme,
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
        "client": client,
        "server": ("127.0.0.1", 8501),
        "root_path": "",
    }
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    out = {}
    for k, v in start["headers"]:
        out.setdefault(k.decode().lower(), []).append(v.decode())
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], out, json.loads(body or b"null")


SAME = {"Sec-Fetch-Site": "same-origin", "Host": "127.0.0.1:8501"}


def _cookie(headers):
    (line,) = headers["set-cookie"]
    return [p.strip() for p in line.split(";")]


def test_classroom_teacher_cookie_is_set_by_the_server_httponly_and_strict(monkeypatch):
    monkeypatch.delenv("CAE_TRUSTED_PROXIES", raising=False)
    once = web.hand_over("ACEFH3", "tok_en-1.epoch", 3600)
    status, headers, body = _call("POST", web.TEACHER_COOKIE_ROUTE, f"once={once}", SAME)
    assert status == 200 and body == {"ok": True}
    parts = _cookie(headers)
    assert parts[0] == "cae_teacher_ACEFH3=tok_en-1.epoch"
    assert {"HttpOnly", "Path=/", "SameSite=strict", "Max-Age=3600"} <= set(parts), parts
    assert "Secure" not in parts  # plain http: a Secure cookie would never come back
    # the nonce is spent: the same request again sets nothing
    status, headers, _ = _call("POST", web.TEACHER_COOKIE_ROUTE, f"once={once}", SAME)
    assert status == 410 and "set-cookie" not in headers
    # a nonce nobody made, and a nonce kept past its minute, set nothing either
    assert _call("POST", web.TEACHER_COOKIE_ROUTE, "once=made-up", SAME)[0] == 410
    late = web.hand_over("ACEFH3", "x", 60)
    real = time.monotonic
    monkeypatch.setattr(web.time, "monotonic", lambda: real() + web.HANDOVER_SECONDS + 1)
    assert _call("POST", web.TEACHER_COOKIE_ROUTE, f"once={late}", SAME)[0] == 410


def test_classroom_teacher_cookie_is_cleared_by_a_nonce_for_nothing():
    once = web.hand_over("ACEFH3", "", 0)
    status, headers, _ = _call("POST", web.TEACHER_COOKIE_ROUTE, f"once={once}", SAME)
    assert status == 200
    parts = _cookie(headers)
    assert parts[0] in ("cae_teacher_ACEFH3=", 'cae_teacher_ACEFH3=""') and "Max-Age=0" in parts


@pytest.mark.parametrize(
    ("trusted", "peer", "scheme", "secure"),
    [
        ("", "127.0.0.1", "https", True),  # TLS to the app itself (or uvicorn's own reading of a loopback proxy)
        ("127.0.0.1", "127.0.0.1", "http", True),  # the proxy CAE_TRUSTED_PROXIES names says https
        ("", "127.0.0.1", "http", False),  # the same header from a proxy nobody named: not believed
        ("127.0.0.1", "198.51.100.7", "http", False),  # a client that writes the header itself
    ],
)
def test_classroom_teacher_cookie_is_secure_behind_https(monkeypatch, trusted, peer, scheme, secure):
    monkeypatch.setenv("CAE_TRUSTED_PROXIES", trusted)
    once = web.hand_over("ACEFH3", "t.e", 60)
    headers = {**SAME, "X-Forwarded-Proto": "https"}
    status, got, _ = _call("POST", web.TEACHER_COOKIE_ROUTE, f"once={once}", headers, (peer, 5000), scheme)
    assert status == 200
    assert ("Secure" in _cookie(got)) is secure


def test_classroom_teacher_routes_answer_only_the_apps_own_pages():
    once = web.hand_over("ACEFH3", "t.e", 60)
    cross = {"Sec-Fetch-Site": "cross-site", "Host": "127.0.0.1:8501"}
    status, headers, _ = _call("POST", web.TEACHER_COOKIE_ROUTE, f"once={once}", cross)
    assert status == 403 and "set-cookie" not in headers
    # without Sec-Fetch-Site (an older browser), the Origin must be this host
    assert (
        _call("POST", web.TEACHER_COOKIE_ROUTE, f"once={once}", {"Origin": "http://evil.example", "Host": "h"})[0]
        == 403
    )
    assert _call("POST", web.TEACHER_COOKIE_ROUTE, f"once={once}", {"Origin": "http://h:1", "Host": "h:1"})[0] == 200
    link = {**cross, "Cookie": "cae_teacher_ACEFH3=tok.e"}
    assert _call("GET", web.TEACHER_LINK_ROUTE, "room=ACEFH3", link)[0] == 403


def test_classroom_teacher_link_comes_from_the_browsers_own_cookie():
    headers = {**SAME, "Cookie": "cae_teacher_ACEFH3=tok_1.epoch; other=1"}
    status, _, body = _call("GET", web.TEACHER_LINK_ROUTE, "room=acefh3&base=http%3A%2F%2F10.0.0.5%3A8501", headers)
    assert status == 200 and body["url"] == "http://10.0.0.5:8501/classroom?room=ACEFH3&teacher=tok_1"
    status, _, body = _call("GET", web.TEACHER_LINK_ROUTE, "room=ACEFH4", headers)
    assert status == 404 and not body["ok"]  # no cookie for that class: no link
    assert _call("GET", web.TEACHER_LINK_ROUTE, "room=nonsense!", headers)[0] == 400

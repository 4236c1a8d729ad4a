"""The teacher's token stays out of the page, in real browsers (issue 44): on the laptop that started the class and
on the tablet that opened the copied teacher link, nothing a script of the page can read holds the token — the
document of the page and of its frames, document.cookie, the storages, the address — while both keep control
through a reload: the teacher cookie is set by the server, HttpOnly and SameSite=Strict (Secure over https:
tests/unit/test_classroom_web.py). Screenshots: test-output/screenshots/7c_classroom_token_*.png.
"""

import hashlib
import json
import re
import urllib.request

import pytest
from support.browser import _shot, _wait_idle
from support.classroom_browser import page_of, start_class

pytestmark = pytest.mark.browser

#: what a script of the page can read: the page's document and its frames', its cookies, storages and address
READABLE = """() => [
  document.documentElement.outerHTML,
  document.cookie,
  JSON.stringify(Object.assign({}, localStorage)),
  JSON.stringify(Object.assign({}, sessionStorage)),
  location.href,
  JSON.stringify(history.state),
]"""


def _readable(page):
    """Everything a script of ``page`` can read, as one text (the frames' documents included)."""
    parts = page.evaluate(READABLE)
    for frame in page.frames[1:]:
        try:
            parts.append(frame.content())
        except Exception:  # noqa: BLE001 - a frame that went away meanwhile
            pass
    return "\n".join(str(p) for p in parts)


def _teacher_cookie(page, code):
    (c,) = [c for c in page.context.cookies() if c["name"] == f"cae_teacher_{code}"]
    return c


def _open_everything(page):
    """The teacher's page with every part a token could be in drawn: the class controls (the copy button)."""
    page.get_by_text("Class controls").click()
    page.get_by_role("button", name="Copy the teacher link").wait_for()
    _wait_idle(page)


def _spent(url, text):
    """The one-time nonces still in the page (the script that set its cookie, when the page has not been drawn
    again since) are spent: posting one again sets no cookie."""
    for once in set(re.findall(r"teacher-cookie\?once=([A-Za-z0-9_-]+)", text)):
        req = urllib.request.Request(
            f"{url}/_cae/teacher-cookie?once={once}", method="POST", headers={"Sec-Fetch-Site": "same-origin"}
        )
        try:
            urllib.request.urlopen(req, timeout=10)
            raise AssertionError(f"nonce {once} could be spent again")
        except urllib.error.HTTPError as exc:
            assert exc.code == 410


def test_classroom_no_teacher_secret_in_the_page_of_either_device(browser, classroom_server):
    url = classroom_server
    laptop, code = start_class(browser, url, permissions=["clipboard-read", "clipboard-write"])
    cookie = _teacher_cookie(laptop, code)
    token = cookie["value"].split(".")[0]
    assert len(token) >= 43
    secrets = {token, cookie["value"], hashlib.sha256(token.encode()).hexdigest()}
    for c in (cookie,):
        assert c["httpOnly"] is True and c["sameSite"] == "Strict" and c["path"] == "/", c
        assert c["secure"] is False  # plain http here (over https it is Secure: the unit test)
    laptop.reload()  # F5: the server-set cookie keeps control
    _wait_idle(laptop)
    laptop.get_by_role("button", name="Ask the class", exact=False).wait_for()
    _open_everything(laptop)
    laptop.get_by_role("button", name="Copy the teacher link").click()
    laptop.get_by_text("Copied").wait_for()
    link = laptop.evaluate("navigator.clipboard.readText()")
    assert link == f"{url}/classroom?room={code}&teacher={token}"
    # the tablet: the copied link; its own server-set cookie; the token gone from its address and history
    tablet = page_of(browser)
    tablet.goto(link)
    _wait_idle(tablet)
    tablet.get_by_role("button", name="Ask the class", exact=False).wait_for()
    tablet.wait_for_function("() => !location.href.includes('teacher=')")
    tablet.reload()
    _wait_idle(tablet)
    tablet.get_by_role("button", name="Ask the class", exact=False).wait_for()
    tab_cookie = _teacher_cookie(tablet, code)
    assert tab_cookie["httpOnly"] is True and tab_cookie["sameSite"] == "Strict"
    assert tab_cookie["value"].split(".")[0] == token
    _open_everything(tablet)
    for name, page in (("laptop", laptop), ("tablet", tablet)):
        text = _readable(page)
        found = [s[:6] + "…" for s in secrets if s in text]
        assert not found, f"the {name}'s page holds the teacher's secret ({found})"
        assert f"cae_teacher_{code}" not in page.evaluate("document.cookie")
        _spent(url, text)
        _shot(page, f"7c_classroom_token_{name}")
    # asked for twice, the link is shown (the teacher's choice): the test above would then find it
    tablet.get_by_text("Show the teacher link on screen").click()
    tablet.get_by_text("Anyone who sees or photographs this link").wait_for(state="attached")
    _wait_idle(tablet)
    assert token in _readable(tablet)
    assert json.dumps(token)[1:-1] == token  # (the token is plain URL-safe text: searched as written)

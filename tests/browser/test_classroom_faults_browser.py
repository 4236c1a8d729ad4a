"""The classroom's survival in a real browser: a teacher's reload (the cookie), the teacher link copied but
never shown, a student's link opened in a second browser, a phone's screen, and a Redis killed for real while
the teacher's page is open. Screenshots go to test-output/screenshots/ (look at them)."""

import os
import time

import pytest
from conftest import ROOT
from support.browser import _shot, _start_server, _stop, _wait_idle, chromium
from support.classroom_browser import join_class, page_of, start_class
from support.servers import RedisServer, redis_binary

pytestmark = pytest.mark.browser


@pytest.fixture
def browser():
    with chromium() as b:
        yield b


_page, _start, _join = page_of, start_class, join_class


def test_classroom_teacher_reload_keeps_control_and_the_link_is_copied_not_shown(browser, classroom_server):
    url = classroom_server
    t, code = _start(browser, url, permissions=["clipboard-read", "clipboard-write"])
    assert "teacher=" not in t.url
    t.reload()  # F5: a new session; the browser's cookie holds the token, the address does not
    _wait_idle(t)
    t.get_by_text(f"Class {code}").first.wait_for()
    t.get_by_role("button", name="Ask the class", exact=False).wait_for()
    assert "teacher=" not in t.url
    # the teacher link: copied to the clipboard, never in the page's text
    t.get_by_text("Class controls").click()
    t.get_by_role("button", name="Copy the teacher link").click()
    t.get_by_text("Copied").wait_for()
    copied = t.evaluate("navigator.clipboard.readText()")
    assert copied.startswith(url + "/classroom?") and "teacher=" in copied
    token = copied.split("teacher=")[1]
    assert token not in t.locator("body").inner_text()
    _shot(t, "60_classroom_teacher_after_reload_controls")
    # the copied link works on another device; after a new link, it does not
    other = _page(browser)
    other.goto(copied)
    _wait_idle(other)
    other.get_by_role("button", name="Ask the class", exact=False).wait_for()
    t.get_by_role("button", name="Make a new teacher link").click()
    _wait_idle(t)
    stale = _page(browser)
    stale.goto(copied)
    _wait_idle(stale)
    stale.get_by_text("does not open any class").wait_for()
    # the teacher who rotated keeps control through a reload (the cookie was renewed)
    t.reload()
    _wait_idle(t)
    t.get_by_role("button", name="Ask the class", exact=False).wait_for()


def test_classroom_student_link_in_a_second_browser_asks_first_and_the_first_is_told(browser, classroom_server):
    url = classroom_server
    t, code = _start(browser, url)
    first = _join(browser, url, code, "Ann")
    link = first.url
    assert "me=" in link
    first.reload()  # the same browser: no question asked
    _wait_idle(first)
    first.get_by_text("you are").first.wait_for()
    second = _page(browser)
    second.goto(link)
    _wait_idle(second)
    second.get_by_text("is open in another browser").wait_for()
    _shot(second, "61_classroom_second_browser_asks")
    second.get_by_role("button", name="Take over here").click()
    second.get_by_text("you are").first.wait_for()
    # the first page learns it within its presence note (every 10 s)
    first.get_by_text("taken over by another browser").wait_for(timeout=30000)
    _shot(first, "62_classroom_first_browser_told")


def test_classroom_phone_shows_the_answer_buttons_without_scrolling(browser, classroom_server):
    url = classroom_server
    t, code = _start(browser, url)
    phone = dict(width=390, height=844, is_mobile=True, has_touch=True, device_scale_factor=3)
    s = _join(browser, url, code, "Pat", **phone)
    t.get_by_role("button", name="Ask the class", exact=False).click()
    s.get_by_role("button", name="Send my answer").wait_for()
    _wait_idle(s)
    s.evaluate("window.scrollTo(0, 0)")
    _shot(s, "63_classroom_phone_question")
    for name in ("Send my answer",):
        box = s.get_by_role("button", name=name).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844, box
    first_choice = s.get_by_role("radiogroup").bounding_box()
    chart = s.locator(".stPlotlyChart").first.bounding_box()
    assert first_choice["y"] < chart["y"]  # the question comes before the chart
    assert s.locator(".stPlotlyChart .modebar").count() == 0  # no toolbar over the legend


def test_classroom_teacher_controls_come_back_by_themselves_after_redis_is_killed(browser, tmp_path):
    if redis_binary() is None:
        pytest.skip("redis-server is not installed here (.ci/run installs Debian's redis-server)")
    redis = RedisServer(tmp_path / "redis", persist=True)
    proc, url = _start_server(env=dict(os.environ, CAE_CLASSROOM_URL=redis.url))
    try:
        t, code = _start(browser, url)
        s = _join(browser, url, code, "Ann")
        t.reload()
        _wait_idle(t)
        ask = t.get_by_role("button", name="Ask the class", exact=False)
        ask.wait_for()
        redis.kill()
        t.get_by_text("come back by themselves").wait_for(timeout=30000)
        assert ask.count() == 0
        s.get_by_text("cannot be reached").first.wait_for(timeout=30000)
        student_text = s.locator("body").inner_text()
        assert str(redis.port) not in student_text and "127.0.0.1" not in student_text
        _shot(t, "64_classroom_teacher_redis_down")
        redis = RedisServer(tmp_path / "redis", port=redis.port, persist=True)
        back = time.monotonic()
        ask.wait_for(timeout=15000)  # no click: the page's own check brings the controls back
        took = time.monotonic() - back
        _shot(t, "65_classroom_teacher_redis_back")
        assert took < 15
        _note(f"Redis back -> the teacher's controls back, no click: {took:.1f} s")
        s.get_by_text("cannot be reached").first.wait_for(state="detached", timeout=15000)
    finally:
        _stop(proc)
        redis.stop()


def _note(line):
    out = ROOT / "test-output" / "classroom_recovery_seconds.txt"
    out.parent.mkdir(exist_ok=True)
    with open(out, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def test_classroom_a_read_only_store_is_named_and_the_teachers_banner_goes_when_it_is_back(browser, tmp_path):
    """A SQLite file made immutable for real (chattr +i) while the class answers: the student's page names the
    fault (read-only, not "cannot be reached"); the teacher's Reveal is refused in words; once the file can be
    written again (chattr -i) the teacher's banner goes by itself, and the student's answer is sent by itself.
    The times, from chattr -i, go to test-output/classroom_recovery_seconds.txt."""
    from support.classroom import chattr

    path = tmp_path / "classroom.sqlite3"
    proc, url = _start_server(env=dict(os.environ, CAE_CLASSROOM_URL="sqlite:///" + str(path)))
    try:
        t, code = _start(browser, url)
        s = _join(browser, url, code, "Ann")
        t.get_by_role("button", name="Ask the class", exact=False).click()
        s.get_by_role("button", name="Send my answer").wait_for()
        _wait_idle(s)
        _wait_idle(t)
        chattr("+i", path)
        try:
            t.get_by_role("button", name="Reveal").click()
            banner = t.get_by_text("Question 1 was not revealed: it stays open, with its answers")
            banner.wait_for()
            s.get_by_text("Case I", exact=False).first.click()
            s.get_by_role("button", name="Send my answer").click()
            said = s.get_by_text("has not reached the class yet", exact=False)
            said.wait_for()
            words = s.locator("[data-testid='stAlert']").filter(has_text="has not reached").inner_text()
            assert "cannot be written: its file is read-only on the server" in words and "reached right" not in words
            _shot(t, "66_classroom_teacher_reveal_refused_read_only")
            _shot(s, "67_classroom_student_read_only_named")
            t.wait_for_timeout(3000)  # the store still refuses writes: the banner stays
            assert banner.count() == 1
        finally:
            chattr("-i", path)
        back = time.monotonic()
        banner.wait_for(state="detached", timeout=30000)  # no click
        gone = time.monotonic() - back
        s.get_by_text("Your answer is in").wait_for(timeout=30000)  # sent by itself
        sent = time.monotonic() - back
        _shot(t, "68_classroom_teacher_banner_gone")
        _note(f"SQLite writable again (chattr -i) -> the teacher's refusal gone, no click: {gone:.1f} s")
        _note(f"SQLite writable again (chattr -i) -> the student's kept answer in, no click: {sent:.1f} s")
        assert gone < 10  # (it stayed until the teacher's next action: 18 s in the issue; the figure is noted)
        t.get_by_role("button", name="Reveal").wait_for()  # the question still open, Reveal there
    finally:
        _stop(proc)

"""A class that resumes where it was, in real browsers (Debian's Chromium), against real servers: the teacher's
F5 and a restarted server, a second device, an app process killed behind the recipe's nginx (with Redis), a
teacher link's token gone from the browser's history, the teacher's actions during store faults refused in words
(a file made immutable for real, a Redis restarted empty), and the student's picture measured at 1280×720 and
1400×900. Screenshots go to test-output/screenshots/7x_classroom_*.png (look at them); the measured numbers to
test-output/classroom_resume.txt.
"""

import os
import urllib.request

import pytest
from conftest import ROOT
from support.browser import _shot, _start_server, _stop, _wait_idle, _wait_seen
from support.classroom import chattr as _chattr
from support.classroom_browser import StoreWatch, cookie_header, join_class, page_of, start_class, step_n
from support.servers import RedisServer, redis_binary

from cae.classroom import open_store

pytestmark = pytest.mark.browser

OUT = ROOT / "test-output" / "classroom_resume.txt"


def _note(line):
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with open(OUT, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def _to(page, name):
    """Go to a page of the app by its link in the navigation (a page change, not a reload)."""
    page.get_by_role("link", name=name).first.click()
    _wait_idle(page)


def _ask(teacher, students=False):
    """Ask the class from the Classroom page (with ``students`` present, once its header has become one line)."""
    _to(teacher, "Classroom")
    if students:
        teacher.get_by_text("Who is here").wait_for()
        _wait_idle(teacher)
    teacher.get_by_role("button", name="Ask the class", exact=False).click()
    teacher.get_by_role("button", name="Reveal").wait_for()
    _wait_idle(teacher)


def _question_still_open(page, step):
    page.get_by_text(f"Question 1: what will CAE do with sample {step}?").first.wait_for()
    page.get_by_role("button", name="Reveal").wait_for()


def _reconnected(page):
    """Until the page's websocket is back after its server went away (Streamlit's own reconnection), and idle."""
    page.wait_for_function(
        "() => !document.body.innerText.includes('Connecting')", timeout=90000
    )  # its status widget while the socket is down
    _wait_idle(page)


# ------------------------------------------------------------------ F5 and a restarted server
def test_classroom_teacher_reload_and_a_server_restart_keep_t_and_the_question(browser, tmp_path):
    store_url = "sqlite:///" + str(tmp_path / "classroom.sqlite3")
    env = dict(os.environ, CAE_CLASSROOM_URL=store_url)
    proc, url = _start_server(env=env)
    port = int(url.rsplit(":", 1)[1])
    store = open_store(store_url)
    try:
        t, code = start_class(browser, url)
        ann = join_class(browser, url, code, "Ann")
        _to(t, "Playground")
        step_n(t, 9)
        _wait_seen(t, 9)
        _wait_seen(ann, 9)
        _ask(t, students=True)
        watch = StoreWatch(store, code)
        before = store.poll(code)
        # F5 on the Classroom page: the question and t are the class's, nothing is published
        t.reload()
        _wait_idle(t)
        _question_still_open(t, 10)
        _shot(t, "70_classroom_teacher_f5_classroom")
        # the Playground, and F5 there: its address holds t = 9 (its own link), the page the class's t = 9
        _to(t, "Playground")
        _wait_seen(t, 9)
        t.reload()
        _wait_idle(t)
        _wait_seen(t, 9)
        t.get_by_text(f"Live class {code}").wait_for()
        _shot(t, "71_classroom_teacher_f5_playground")
        assert store.poll(code).version == before.version and store.poll(code).state == before.state
        # the server restarts on its port, the same store: the page reconnects by itself, as the class left it
        _stop(proc)
        proc, _ = _start_server(env=env, port=port)
        _reconnected(t)
        _wait_seen(t, 9)
        t.get_by_text(f"Live class {code}").wait_for()
        _shot(t, "72_classroom_teacher_after_server_restart")
        after = store.poll(code)
        assert after.version == before.version and after.state == before.state
        assert after.question.qid == 1 and not after.question.revealed
        _to(t, "Classroom")
        _question_still_open(t, 10)
        t.get_by_role("button", name="Reveal").click()  # and it goes on from there: the reveal moves the class
        t.get_by_text("Question 1, revealed").wait_for()
        _reconnected(ann)
        _wait_seen(ann, 10)
        watch.stop()
        assert watch.ts() == [9, 10], watch.ts()  # never 0, never back
        _note(f"F5 and restart: the class's t as the store held it through the test: {watch.ts()}")
    finally:
        _stop(proc)


# ------------------------------------------------------------------ a second device
def test_classroom_a_second_device_moves_the_class_with_the_first_never_backwards(browser, classroom_server):
    url, store = classroom_server, open_store(classroom_server.store)
    laptop, code = start_class(browser, url, permissions=["clipboard-read", "clipboard-write"])
    _to(laptop, "Playground")
    step_n(laptop, 5)
    _wait_seen(laptop, 5)
    _to(laptop, "Classroom")
    laptop.get_by_text("Class controls").click()
    laptop.get_by_role("button", name="Copy the teacher link").click()
    laptop.get_by_text("Copied").wait_for()
    link = laptop.evaluate("navigator.clipboard.readText()")
    watch = StoreWatch(store, code)
    # the teacher link opened on a tablet: the class as it is; its token gone from the address bar and history
    tablet = page_of(browser)
    tablet.goto(link)
    _wait_idle(tablet)
    tablet.get_by_role("button", name="Ask the class: what will CAE do with sample 6?").wait_for()
    assert "teacher=" not in tablet.url
    tablet.go_back()
    assert "teacher=" not in tablet.url, tablet.url
    tablet.go_forward()
    _wait_idle(tablet)
    assert "teacher=" not in tablet.url, tablet.url
    tablet.get_by_role("button", name="Ask the class: what will CAE do with sample 6?").wait_for()
    _to(tablet, "Playground")
    _wait_seen(tablet, 5)
    _to(laptop, "Playground")
    # a step on either moves both
    tablet.get_by_role("button", name="Step 1", exact=True).click()
    _wait_seen(tablet, 6)
    _wait_seen(laptop, 6)
    laptop.get_by_role("button", name="Step 1", exact=True).click()
    _wait_seen(laptop, 7)
    _wait_seen(tablet, 7)
    _shot(tablet, "73_classroom_second_device_follows")
    _to(tablet, "Classroom")
    tablet.get_by_role("button", name="Step 1 ▶").click()
    _wait_seen(laptop, 8)
    ts = watch.stop()
    assert watch.ts() == [5, 6, 7, 8], watch.ts()
    assert [v for v, _ in ts] == sorted(v for v, _ in ts)
    _note(f"two devices: the class's t as the store held it: {watch.ts()}")


# ------------------------------------------------------------------ a process killed behind nginx
def _upstream(url, page):
    req = urllib.request.Request(url + "/_stcore/health", headers={"Cookie": cookie_header(page)})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.headers.get("X-CAE-Upstream").rsplit(":", 1)[-1]


def test_classroom_the_teachers_process_killed_behind_nginx_keeps_t_and_the_question(browser, tmp_path):
    from cae.classroom.deploy import Deployment, nginx_binary

    if nginx_binary() is None or redis_binary() is None:
        pytest.skip("nginx or redis-server is not installed here (.ci/run installs both)")
    redis = RedisServer(tmp_path / "redis", persist=True)
    dep = Deployment(2, redis.url, folder=tmp_path / "nginx")
    store = open_store(redis.url)
    try:
        t, code = start_class(browser, dep.url)
        _to(t, "Playground")
        step_n(t, 9)
        _wait_seen(t, 9)
        _ask(t)
        before = store.poll(code)
        victim = dep.ports().index(int(_upstream(dep.url, t)))
        dep.kill(victim)  # SIGKILL: the teacher's session dies with its process
        _reconnected(t)  # through nginx, to the other process: a new session, from the browser's cookies
        _question_still_open(t, 10)
        assert int(_upstream(dep.url, t)) != dep.ports()[victim]
        _shot(t, "74_classroom_teacher_after_kill_behind_nginx")
        _to(t, "Playground")
        _wait_seen(t, 9)
        after = store.poll(code)
        assert after.version == before.version and after.state == before.state and not after.question.revealed
    finally:
        dep.stop()
        redis.stop()


# ------------------------------------------------------------------ refused in words; a store restarted empty
def test_classroom_teacher_actions_during_store_faults_are_refused_in_words(browser, tmp_path):
    if redis_binary() is None:
        pytest.skip("redis-server is not installed here (.ci/run installs Debian's redis-server)")
    # a SQLite file made immutable: Step refused, the class and the page stay; the student still reads
    path = tmp_path / "classroom.sqlite3"
    proc, url = _start_server(env=dict(os.environ, CAE_CLASSROOM_URL="sqlite:///" + str(path)))
    try:
        t, code = start_class(browser, url)
        ann = join_class(browser, url, code, "Ann")
        t.get_by_role("button", name="Step 1 ▶").click()
        _wait_seen(ann, 1)
        _chattr("+i", path)
        try:
            t.get_by_role("button", name="Step 1 ▶").click()
            t.get_by_text("Step 1 was not taken: the class and this page stay at t = 1").wait_for()
            _wait_idle(t)
            _shot(t, "75_classroom_teacher_step_refused_immutable_store")
            assert str(path) not in t.locator("[data-testid='stAlert']").first.inner_text()
            ann.reload()  # reads go on: a new page of the class still shows it
            _wait_idle(ann)
            _wait_seen(ann, 1)
        finally:
            _chattr("-i", path)
        assert int(open_store("sqlite:///" + str(path)).poll(code).state["t"]) == 1
    finally:
        _stop(proc)
    # a Redis restarted empty: the teacher is told the class is gone, also after F5, and offered a new one
    redis = RedisServer(tmp_path / "redis")
    proc, url = _start_server(env=dict(os.environ, CAE_CLASSROOM_URL=redis.url))
    try:
        t, code = start_class(browser, url)
        t.get_by_role("button", name="Step 1 ▶").click()
        _wait_idle(t)
        port = redis.port
        redis.kill()
        t.get_by_text("come back by themselves").wait_for(timeout=30000)
        redis = RedisServer(tmp_path / "redis", port=port)  # back, without its data
        t.get_by_text(f"class {code} was lost").wait_for(timeout=30000)  # no click: the page's own check
        _shot(t, "76_classroom_teacher_store_reset")
        t.reload()
        _wait_idle(t)
        t.get_by_text(f"class {code} was lost").wait_for()
        t.get_by_role("button", name="Start a class").wait_for()  # the lobby, saying why
        _shot(t, "77_classroom_teacher_store_reset_after_f5")
    finally:
        _stop(proc)
        redis.stop()


# ------------------------------------------------------------------ the student's picture is the page
def test_classroom_the_students_picture_fills_the_first_screen_and_says_what_it_shows(browser, classroom_server):
    from cae.app.explanations import view_summary

    url, store = classroom_server, open_store(classroom_server.store)
    code, token = store.create_room()
    state = {"stream": "paper2d-ns", "n": "1500", "noise": "0.1", "seed": "0", "algo": "CAE", "t": "2000"}
    store.publish(code, token, state)
    s = join_class(browser, url, code, "Ann", width=1280, height=720)
    sizes = []
    for w, h in ((1280, 720), (1400, 900)):
        s.set_viewport_size({"width": w, "height": h})
        _wait_idle(s)
        img = s.locator('img[alt^="The network at step t = 2,000 of 9,900."]')
        img.wait_for()
        s.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=img.element_handle())
        box = img.bounding_box()
        table = s.locator('table[aria-label="The network now"]').bounding_box()
        sizes.append((w, h, round(box["width"]), round(box["height"])))
        # the whole picture (its counts line included) on the first screen, the numbers beside it ...
        assert box["y"] + box["height"] <= h and table["x"] >= box["x"] + box["width"], (box, table)
        # ... and as tall as the screen under the header allows (not a fixed box)
        assert box["height"] >= h - 260, (w, h, box)
        _shot(s, f"78_classroom_student_picture_{w}x{h}")
    # one text for a screen reader: what the picture shows
    from cae.classroom.views import SharedRuns

    view = SharedRuns(1).for_state(state)[0].view(2000)
    assert img.get_attribute("alt") == view_summary(view.model, 2000, view.record, len(view.stream))
    _note(
        "the student's picture, drawn (viewport w x h: picture w x h px): "
        + ", ".join(f"{w}x{h}: {pw}x{ph}" for w, h, pw, ph in sizes)
    )


def test_classroom_who_is_here_reads_with_500_students(browser, classroom_server):
    url, store = classroom_server, open_store(classroom_server.store)
    t, code = start_class(browser, url)
    for k in range(500):
        store.join(code, f"student {k:03d}")
    t.get_by_text("Who is here").wait_for(timeout=30000)  # the header changes once the first student is here
    _wait_idle(t)
    t.get_by_text("Who is here").click()
    roster = t.locator('ul[aria-label="Students present"]')
    roster.wait_for()
    t.wait_for_function(  # the list refreshes itself every 5 s: the last ones joined a moment ago
        "() => document.querySelectorAll('ul[aria-label=\"Students present\"] li').length === 500", timeout=30000
    )
    box = roster.bounding_box()
    size = t.evaluate(
        "el => [el.scrollWidth, el.clientWidth, el.scrollHeight, el.clientHeight,"
        " getComputedStyle(el).gridTemplateColumns.split(' ').length]",
        roster.element_handle(),
    )
    assert box["height"] <= 300 and box["width"] > 900, box  # wide and short ...
    assert size[0] <= size[1] and size[2] > size[3] and size[4] >= 5, size  # ... in columns, scrolling down only
    _shot(t, "79_classroom_who_is_here_500")
    last = roster.locator("li").nth(499)
    last.scroll_into_view_if_needed()
    assert last.inner_text() == "student 499" and last.is_visible()
    _shot(t, "79b_classroom_who_is_here_500_scrolled")
    columns = f"{size[4]} columns, {size[2]} px of names in {size[3]} px"
    t.get_by_role("textbox", name="Find a student").fill("student 42")
    t.get_by_role("textbox", name="Find a student").press("Enter")
    t.get_by_text("10 of 500 present").wait_for()  # student 420 to 429
    _note(f"who is here with 500: {round(box['width'])}x{round(box['height'])} px, {columns}")


# ------------------------------------------------------------------ answers sent as their process dies
def _settled(page):
    """What a page says about its answer once it has said something: "in", "not sent", or None (silent)."""
    try:
        page.wait_for_function(
            "() => document.body.innerText.includes('Your answer is in')"
            " || document.body.innerText.includes('has not reached the class yet')",
            timeout=60000,
        )
    except Exception:  # noqa: BLE001 - said nothing within a minute: silent
        return None
    return "in" if "Your answer is in" in page.locator("body").inner_text() else "not sent"


@pytest.mark.slow
def test_classroom_answers_sent_as_their_process_dies_are_stored_or_said_not_sent(browser, tmp_path):
    """100 tries: 10 students behind nginx (two app processes, one Redis) on one process, 10 questions; each time
    every student sends an answer and their process is SIGKILLed (then started again): in every other round it
    was stopped (SIGSTOP) before the sends, so that none of them reaches the store before it dies; in the others it
    is killed 0-0.3 s after them. The pages come back on the other process.
    Every answer is either in the store (and its page says so) or its page says it is not sent: none is lost
    silently, none said to be in that is not."""
    from cae.app.explanations import QUIZ_CHOICES
    from cae.classroom.deploy import Deployment, nginx_binary

    if nginx_binary() is None or redis_binary() is None:
        pytest.skip("nginx or redis-server is not installed here (.ci/run installs both)")
    import random
    import signal
    import time

    redis = RedisServer(tmp_path / "redis", persist=True)
    dep = Deployment(2, redis.url, folder=tmp_path / "nginx")
    store = open_store(redis.url)
    outcomes = {"in, stored": 0, "in, sent again by the page after the kill": 0, "said not sent": 0, "silent": 0}
    wrong = []
    try:
        code, token = store.create_room()
        state = {"stream": "moons", "n": "250", "noise": "0", "seed": "1", "algo": "CAE", "t": "20"}
        store.publish(code, token, state)
        # one route cookie for all: nginx sends every student to the same process, the one each kill hits
        pages = [join_class(browser, dep.url, code, f"kid{k}", cookies={"cae_route": "one-hall"}) for k in range(10)]
        rng = random.Random(35)
        for round_ in range(10):
            t = 20 + round_
            store.publish(code, token, dict(state, t=str(t)))
            q = store.ask(code, token, t + 1, dict(state, t=str(t)))
            choices = {}
            for k, p in enumerate(pages):
                p.get_by_role("button", name="Send my answer").wait_for(timeout=90000)
                case = rng.randrange(4)
                p.get_by_text(QUIZ_CHOICES[case], exact=True).click()
                choices[k] = (case, False, False)
            where = [_upstream(dep.url, p) for p in pages]
            ports = [str(x) for x in dep.ports()]
            victim = max(range(len(ports)), key=lambda i: where.count(ports[i]))
            assert where.count(ports[victim]) == len(pages), where
            frozen = round_ % 2 == 0  # every other round, no send reaches the store before the process dies
            if frozen:
                os.kill(dep.servers[victim].proc.pid, signal.SIGSTOP)
            for p in pages:
                p.get_by_role("button", name="Send my answer").click(no_wait_after=True)
            time.sleep(0.5 if frozen else rng.uniform(0.0, 0.3))
            killed_at = time.time()
            dep.kill(victim)
            said = [_settled(p) for p in pages]
            answers = {a.nickname: a for a in store.answers(code, q.qid)}
            for k, words in enumerate(said):
                a = answers.get(f"kid{k}")
                if a is not None and a.choice != choices[k]:
                    wrong.append((round_, k, "stored another choice", a.choice, choices[k]))
                if words == "in" and a is None:
                    wrong.append((round_, k, "said in, not stored"))
                elif words == "in":
                    resent = frozen or a.at > killed_at + 1.0
                    outcomes["in, sent again by the page after the kill" if resent else "in, stored"] += 1
                elif words == "not sent":
                    outcomes["said not sent"] += 1
                elif a is None:
                    outcomes["silent"] += 1
                else:
                    outcomes["in, stored"] += 1  # stored; the page said nothing yet (it would at its next run)
            store.reveal(code, token, q.qid, (0, False, False))
            dep.restart(victim)
        _shot(pages[0], "7a_classroom_answer_after_a_kill")
    finally:
        dep.stop()
        redis.stop()
    _note(f"answers sent as their process was killed, 100 tries: {outcomes}")
    assert not wrong, wrong
    assert outcomes["silent"] == 0, outcomes
    assert sum(outcomes.values()) == 100


def test_classroom_an_answer_sent_into_a_stalled_link_says_it_is_on_its_way(browser, tmp_path):
    """The server stops answering (SIGSTOP: a stalled link) as the student sends: the page says at once that
    the answer is being sent and is not in yet; once the server goes on, the answer is in and the page says so."""
    import signal

    from cae.app.explanations import QUIZ_CHOICES

    store_url = "sqlite:///" + str(tmp_path / "classroom.sqlite3")
    proc, url = _start_server(env=dict(os.environ, CAE_CLASSROOM_URL=store_url))
    store = open_store(store_url)
    try:
        code, token = store.create_room()
        store.publish(code, token, {"stream": "moons", "n": "250", "noise": "0", "seed": "1", "algo": "CAE", "t": "9"})
        s = join_class(browser, url, code, "Ann")
        q = store.ask(code, token, 10, store.poll(code).state)
        s.get_by_role("button", name="Send my answer").wait_for()
        _wait_idle(s)
        s.get_by_text(QUIZ_CHOICES[2], exact=True).click()
        proc.send_signal(signal.SIGSTOP)
        try:
            s.get_by_role("button", name="Send my answer").click(no_wait_after=True)
            note = s.locator("#cae-sending[role='status']")
            note.wait_for(timeout=5000)
            s.wait_for_timeout(3000)
            assert note.is_visible() and "not in" in note.inner_text()
            assert store.answers(code, q.qid) == []
            _shot(s, "7b_classroom_answer_sending_over_a_stalled_link")
        finally:
            proc.send_signal(signal.SIGCONT)
        s.get_by_text("Your answer is in").wait_for(timeout=60000)
        note.wait_for(state="detached", timeout=30000)
        assert [a.choice for a in store.answers(code, q.qid)] == [(2, False, False)]
    finally:
        _stop(proc)

"""The live classroom in a real browser: one teacher context and two student contexts against one server.

Screenshots go to test-output/screenshots/ (look at them); the measured propagation times to
test-output/classroom_propagation_seconds.txt.
"""

import time

import pytest
from conftest import ROOT
from support.browser import _player_frame, _shot, _wait_idle, chromium

pytestmark = pytest.mark.browser


def _wait_seen(page, n, timeout_ms=60000):
    page.wait_for_function(
        "n => [...document.querySelectorAll('[data-testid=\"stMetric\"]')].some(m => m.innerText.includes('Samples seen')"
        " && m.querySelector('[data-testid=\"stMetricValue\"]').innerText.split('/')[0].replace(/,/g, '').trim() === String(n))",
        arg=n,
        timeout=timeout_ms,
    )


def _truth_after(t):
    """What CAE does with sample t + 1 of the Playground's default stream (the quiz's answer)."""
    from cae.algorithms import CAE
    from cae.app.explanations import quiz_truth
    from cae.app.lesson_links import PLAYGROUND_DEFAULTS
    from cae.app.streams import make_stream

    X = make_stream(PLAYGROUND_DEFAULTS).X
    model = CAE().fit(X[:t]) if t else CAE()
    return quiz_truth(model.learn_one(X[t]))


def test_classroom_teacher_steps_students_follow_answer_and_see_the_reveal(classroom_server):
    from cae.app.explanations import QUIZ_CHOICES

    url = classroom_server
    times = []
    with chromium() as browser:
        contexts = []

        def page():
            ctx = browser.new_context(viewport={"width": 1400, "height": 900})
            contexts.append(ctx)
            pg = ctx.new_page()
            pg.set_default_timeout(60000)
            return pg

        # the teacher starts a class
        teacher = page()
        teacher.goto(url + "/classroom")
        _wait_idle(teacher)
        teacher.get_by_role("button", name="Start a class").click()
        teacher.get_by_text("Students open this link").wait_for()
        _wait_idle(teacher)
        code = teacher.url.split("room=")[1][:6]
        assert "teacher=" not in teacher.url  # the secret never shows in the address bar
        _shot(teacher, "40_classroom_teacher_started")

        # two students join with the link
        students = []
        for name in ("Ann", "Bo"):
            s = page()
            s.goto(url + f"/classroom?room={code}")
            _wait_idle(s)
            s.get_by_role("textbox", name="Your nickname").fill(name)
            s.get_by_role("button", name="Join").click()
            s.get_by_text(f"you are {name}").wait_for()
            _wait_idle(s)
            students.append(s)
        _shot(students[0], "41_classroom_student_joined")

        # the teacher steps on the Playground: both students show the new step
        teacher.get_by_role("link", name="Playground").first.click()
        teacher.get_by_text(f"Live class {code}").wait_for()
        _wait_idle(teacher)
        teacher.get_by_label("N for Step N", exact=True).fill("200")
        teacher.get_by_label("N for Step N", exact=True).press("Enter")
        _wait_idle(teacher)
        t0 = time.time()
        teacher.get_by_role("button", name="Step N").click()
        for s in students:
            _wait_seen(s, 200)
            times.append(time.time() - t0)
        _shot(teacher, "42_classroom_teacher_playground")
        _wait_idle(students[1])
        _shot(students[1], "43_classroom_student_follows")
        # on a 1280×720 laptop the picture and its numbers, side by side, fit under the header
        students[1].set_viewport_size({"width": 1280, "height": 720})
        _wait_idle(students[1])
        picture = students[1].locator('img[alt^="The network at step t = 200 of"]')
        picture.wait_for()
        students[1].wait_for_function(
            "el => el.complete && el.naturalWidth > 0", arg=picture.element_handle()
        )  # the data URL kept by the page's HTML sanitiser, and drawn
        box, table = picture.bounding_box(), students[1].locator('table[aria-label="The network now"]').bounding_box()
        assert box["y"] + box["height"] <= 720 and box["height"] > 300, box
        width = students[1].evaluate("el => el.parentElement.parentElement.clientWidth", picture.element_handle())
        assert table["x"] >= box["x"] + box["width"] and table["y"] < box["y"] + box["height"], (box, table, width)
        _shot(students[1], "43b_classroom_student_follows_1280x720")
        students[1].set_viewport_size({"width": 1400, "height": 900})

        # the teacher plays (the browser animates) and pauses: the class shows the step the teacher's browser
        # stopped on
        teacher.get_by_text("Play", exact=True).click()
        player = _player_frame(teacher)
        player.wait_for_function(
            "() => window.playerState && playerState.shown && playerState.shown.t > 400", timeout=90000
        )
        player.locator("#pause").click()
        paused_at = player.evaluate("() => playerState.shown.t")
        _wait_seen(teacher, paused_at, timeout_ms=90000)
        for s in students:
            _wait_seen(s, paused_at, timeout_ms=90000)
        _wait_idle(teacher)
        teacher.get_by_label("N for Step N", exact=True).fill("200")
        teacher.get_by_label("N for Step N", exact=True).press("Enter")
        _wait_idle(teacher)
        teacher.get_by_role(
            "button", name="Reset", exact=True
        ).click()  # back to step 0, then 200 steps: the quiz below
        for s in students:
            _wait_seen(s, 0)
        teacher.get_by_role("button", name="Step N").click()
        for s in students:
            _wait_seen(s, 200)

        # the teacher asks; both answer (Ann right, Bo wrong); the teacher's chart shows 2
        teacher.get_by_role("link", name="Classroom").first.click()
        teacher.get_by_role("button", name="Ask the class").wait_for()
        _wait_idle(teacher)
        teacher.get_by_role("button", name="Ask the class").click()
        teacher.get_by_role("button", name="Reveal").wait_for()
        truth = _truth_after(200)
        for s, case in zip(students, (truth[0], (truth[0] + 1) % 4)):
            s.get_by_text("Question 1: what will CAE do with sample 201?").wait_for()
            _wait_idle(s)
            s.get_by_text(QUIZ_CHOICES[case], exact=True).click()
            if truth[1]:
                s.get_by_text("An edge will be deleted").click()
            if truth[2]:
                s.get_by_text("A node will be deleted").click()
            s.get_by_role("button", name="Send my answer").click()
            s.get_by_text("Your answer is in").wait_for()
        _shot(students[0], "44_classroom_student_answered")
        teacher.get_by_text("2 answers from 2 student(s) present").wait_for(timeout=30000)
        _wait_idle(teacher)
        _shot(teacher, "45_classroom_teacher_live_chart")

        # the reveal: each student sees their result, and the step with its explanation
        teacher.get_by_role("button", name="Reveal").click()
        teacher.get_by_text("Question 1, revealed").wait_for()
        students[0].get_by_text("Right!", exact=True).wait_for()
        students[1].get_by_text("Not quite.", exact=True).wait_for()
        for s in students:
            _wait_seen(s, 201)
            s.get_by_text("What CAE did").wait_for()
        _wait_idle(teacher)
        _shot(teacher, "46_classroom_teacher_revealed")
        for s, name in zip(students, ("47_classroom_student_right", "48_classroom_student_wrong")):
            _wait_idle(s)
            _shot(s, name)
        assert "1 / 1" in students[0].get_by_test_id("stMetric").filter(has_text="Your score").inner_text()
        assert "0 / 1" in students[1].get_by_test_id("stMetric").filter(has_text="Your score").inner_text()
        for ctx in contexts:
            ctx.close()
    out = ROOT / "test-output" / "classroom_propagation_seconds.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(" ".join(f"{t:.2f}" for t in times) + "\n")

"""Accessibility in a real browser: an axe-core audit of every page in its finished state, and the
controls a class uses (Step, Play/Pause, Reveal) driven by the keyboard alone.

WCAG 2.1 AA is the bar for a university's teaching tools. axe-core (bundled by axe-playwright-python)
checks the rendered page; every violation of impact "serious" or "critical" fails the test, with axe's
own report (rule, element, why). Screenshots go to test-output/screenshots/ (look at them).
"""

import json

import pytest
from conftest import ROOT
from support.axe import SERIOUS, violations
from support.axe import report as _report
from support.browser import SHOTS, _player_frame, _wait_idle, _wait_seen

pytestmark = pytest.mark.browser

#: rules checked whatever axe's impact: a screen-reader user finds their way by the headings' levels
ALWAYS = ("heading-order",)
#: Rule + element pairs that come from Streamlit itself and that neither the theme nor CSS can fix
#: (each with the reason). Empty: every violation found was fixed on our side.
EXCLUDED: dict[str, list[str]] = {}
COUNTS = ROOT / "test-output" / "axe_counts.json"


def _page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(60000)
    return ctx, page


def _shot(page, name, full=False):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def _serious(page, frame=None):
    """axe-core's serious and critical violations (and ALWAYS's) on the page or in one of its frames, minus
    EXCLUDED."""
    return violations(frame or page, SERIOUS, ALWAYS, EXCLUDED)


def _record(name, found):
    COUNTS.parent.mkdir(parents=True, exist_ok=True)
    counts = json.loads(COUNTS.read_text()) if COUNTS.exists() else {}
    counts[name] = {v["id"]: len(v["nodes"]) for v in found}
    COUNTS.write_text(json.dumps(counts, indent=1, sort_keys=True) + "\n")


def _audit(page, name, frame=None):
    """Run axe on the finished page (scrolled through once, so that every chart is drawn); record and assert."""
    _wait_idle(page)
    page.mouse.move(1, 1)  # no tooltip half faded in under the pointer
    page.mouse.wheel(0, 20000)
    page.wait_for_timeout(800)
    page.mouse.wheel(0, -20000)
    page.wait_for_timeout(500)
    found = _serious(page, frame)
    _record(name, found)
    assert not found, f"{name}: {sum(len(v['nodes']) for v in found)} serious/critical:\n" + _report(found)


def test_axe_home(classroom_server, browser):
    ctx, page = _page(browser)
    page.goto(classroom_server)
    page.get_by_role("heading", name="CAE Explorer").wait_for()
    page.wait_for_function(
        "() => { const i = document.querySelector('[data-testid=\"stImage\"] img');"
        " return i && i.complete && i.naturalWidth > 0 }"
    )
    _shot(page, "60_a11y_home")
    _audit(page, "home")
    ctx.close()


def test_axe_playground_after_steps_and_during_a_quiz(classroom_server, browser):
    ctx, page = _page(browser)
    page.goto(classroom_server + "/playground")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Step 1", exact=True).click()
    _wait_seen(page, 1)
    page.get_by_role("button", name="Step N", exact=True).click()
    _wait_seen(page, 101)
    page.locator(".st-key-main_fig .main-svg").first.wait_for()
    _shot(page, "61_a11y_playground_steps")
    _audit(page, "playground")
    page.get_by_text("Show the data as a table").first.click()  # the traces' table, open
    page.locator("[data-testid='stDataFrame']").first.wait_for()
    _audit(page, "playground (traces as a table)")
    page.goto(classroom_server + "/playground?stream=paper2d-ns&n=500&t=700&quiz=1")
    page.get_by_text("what will CAE do?").wait_for()
    _wait_idle(page)
    _shot(page, "62_a11y_playground_quiz")
    _audit(page, "playground (quiz)")
    ctx.close()


def test_axe_playground_player(classroom_server, browser):
    """The player (Play's frame, a component of our own) audited inside its frame while it plays."""
    ctx, page = _page(browser)
    page.goto(classroom_server + "/playground?stream=paper2d-ns&n=500&t=100")
    _wait_idle(page)
    page.get_by_text("Play", exact=True).click()
    player = _player_frame(page)
    player.wait_for_function("() => window.playerState && playerState.stats.shown >= 3", timeout=90000)
    _shot(page, "68_a11y_player")
    found = _serious(page, player)
    _record("playground (player frame)", found)
    assert not found, _report(found)
    ctx.close()


def test_axe_explain(classroom_server, browser):
    ctx, page = _page(browser)
    page.goto(classroom_server + "/explain")
    _wait_idle(page)
    page.get_by_role("button", name="Learn the first 50 samples").click()
    _wait_idle(page)
    page.get_by_role("button", name="Go", exact=True).click()
    _wait_idle(page)
    page.get_by_text("λ ← 2·n_active", exact=False).first.wait_for()
    _audit(page, "explain")
    ctx.close()


def test_axe_your_data(classroom_server, browser):
    ctx, page = _page(browser)
    page.goto(classroom_server + "/upload")
    _wait_idle(page)
    page.locator("input[type=file]").set_input_files(str(ROOT / "sample_data" / "paper2d_sample.csv"))
    page.get_by_text("What was read").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Learn", exact=True).click()
    page.get_by_text("Rows learned").wait_for()
    _shot(page, "63_a11y_your_data")
    _audit(page, "your data")
    ctx.close()


def test_axe_continual(classroom_server, browser):
    ctx, page = _page(browser)
    page.goto(classroom_server + "/continual")
    _wait_idle(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("AI (NMI)", exact=True).wait_for()
    _shot(page, "64_a11y_continual")
    _audit(page, "continual")
    ctx.close()


def test_axe_compare(classroom_server, browser):
    ctx, page = _page(browser)
    page.goto(classroom_server + "/compare")
    page.get_by_role("heading", name="Compare algorithms").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Run to end", exact=True).click()
    page.get_by_text("9,900 of 9,900 samples").wait_for()
    _shot(page, "65_a11y_compare")
    _audit(page, "compare")
    ctx.close()


def test_axe_lineage(classroom_server, browser):
    """The lineage (HTML boxes), one step's two networks, the lesson's table (grouped headings) and its sentences."""
    ctx, page = _page(browser)
    page.goto(classroom_server + "/lineage")
    page.get_by_role("heading", name="Lineage: two families meeting in CAE").wait_for()
    _wait_idle(page)
    page.locator(".js-plotly-plot").nth(1).wait_for()
    page.locator("table.cae-lineage-table").wait_for()
    _shot(page, "65b_a11y_lineage")
    _audit(page, "lineage")
    ctx.close()


def test_axe_experiments(classroom_server, browser):
    ctx, page = _page(browser)
    page.goto(classroom_server + "/experiments")
    _wait_idle(page)
    _audit(page, "experiments")
    page.get_by_role("tab", name="Synthetic 2-D").click()
    page.get_by_role("button", name="Run", exact=True).first.click()
    page.get_by_text("The uniform noise is learned but not scored").wait_for()
    _shot(page, "66_a11y_experiments")
    _audit(page, "experiments (synthetic run)")
    ctx.close()


def test_axe_classroom(classroom_server, browser):
    """The Classroom before a class, the teacher's and a student's screens while the class answers and after the
    reveal."""
    ctx, page = _page(browser)
    page.goto(classroom_server + "/classroom")
    _wait_idle(page)
    _audit(page, "classroom (start)")
    page.get_by_role("button", name="Start a class").click()
    page.get_by_text("Students open this link").wait_for()
    _shot(page, "67_a11y_classroom")
    _audit(page, "classroom (teacher)")
    code = page.url.split("room=")[1][:6]
    sctx, student = _page(browser)
    student.goto(classroom_server + f"/classroom?room={code}")
    _wait_idle(student)
    student.get_by_role("textbox", name="Your nickname").fill("Ann")
    student.get_by_role("button", name="Join").click()
    student.get_by_text("you are Ann").wait_for()
    _audit(student, "classroom (student)")
    page.get_by_role("button", name="Ask the class").click()
    page.get_by_role("button", name="Reveal").wait_for()
    student.get_by_text("Question 1: what will CAE do").wait_for()
    _audit(page, "classroom (teacher asks)")
    _audit(student, "classroom (student asked)")
    page.get_by_role("button", name="Reveal").click()
    page.get_by_text("Question 1, revealed").wait_for()
    student.get_by_text("you did not answer this one").wait_for()
    _audit(page, "classroom (teacher revealed)")
    _audit(student, "classroom (student revealed)")
    page.get_by_text("Class controls").click()
    page.get_by_role("button", name="Copy the teacher link").wait_for()
    _audit(page, "classroom (teacher's class controls)")
    octx, other = _page(browser)  # the student's link in another browser: asked before taking over
    other.goto(student.url)
    other.get_by_text("is open in another browser").wait_for()
    _audit(other, "classroom (take over?)")
    octx.close()
    sctx.close()
    ctx.close()


# ------------------------------------------------------------------ the keyboard alone
KEYS = ROOT / "test-output" / "keyboard_path.txt"


def _focused(page):
    """What has the keyboard focus: ``(text or label, tag)``; inside the player's frame, ``("player:" + id, tag)``."""
    outer = page.evaluate(
        "() => { const e = document.activeElement; if (!e) return ['', ''];"
        " const l = e.closest('label') || (e.labels && e.labels[0]);"
        " return [(e.innerText || e.getAttribute('aria-label') || (l && l.innerText) || e.title || '').trim(), e.tagName] }"
    )
    if outer[1] == "IFRAME":
        for f in page.frames:
            if "cae_player" in f.url:
                return ("player:" + f.evaluate("() => document.activeElement && document.activeElement.id || ''"), "")
    return tuple(outer)


FOCUS_RING = """() => { let d = document; let e = d.activeElement;
  while (e && e.tagName === 'IFRAME') { d = e.contentDocument; e = d.activeElement; }
  const c = getComputedStyle(e); return [c.outlineStyle, parseFloat(c.outlineWidth), c.outlineColor] }"""


def _contrast_on_white(rgb):
    from cae.app import colour_vision

    y = float(colour_vision.simulate(rgb) @ [0.2126, 0.7152, 0.0722])
    return 1.05 / (y + 0.05)


def _tab_to(page, want, log, most=250):
    """Press Tab until the focus is on ``want`` (a function of ``(text, tag)``); returns the number of presses.

    A focused button shows it: a solid outline at least 2 px wide, 3:1 or more against the white page (WCAG 2.1:
    focus visible, and the contrast of what shows a control's state)."""
    for k in range(1, most + 1):
        page.keyboard.press("Tab")
        page.wait_for_timeout(40)
        text, tag = _focused(page)
        if want(text, tag):
            log.append(f"{k:3d} × Tab -> {text!r} ({tag})")
            if tag in ("BUTTON", "") and text != "Play":  # a button (or the player's Pause, in its frame)
                style, width, colour = page.evaluate(FOCUS_RING)
                assert style == "solid" and width >= 2 and _contrast_on_white(colour) >= 3, (text, style, width, colour)
            return k
    raise AssertionError(f"{most} × Tab never reached the control (last focus: {_focused(page)}); so far: {log}")


def _play_toggle(page):
    return page.locator("[data-testid='stCheckbox']").filter(has_text="Play").locator("input").first


def test_step_play_pause_and_reveal_by_keyboard_alone(classroom_server, browser):
    """Tab to each control and press Enter or Space: no mouse anywhere. Records the path taken."""
    from support.browser import _seen

    log = []
    ctx, page = _page(browser)
    page.goto(classroom_server + "/playground")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    _tab_to(page, lambda text, tag: tag == "BUTTON" and text == "Step 1", log)
    _shot(page, "69_a11y_keyboard_focus_step1")
    page.keyboard.press("Enter")
    _wait_seen(page, 1)
    log.append("Enter: Step 1 -> t = 1")
    _tab_to(page, lambda text, tag: tag == "BUTTON" and text == "Step N", log)
    page.keyboard.press("Space")
    _wait_seen(page, 101)
    log.append("Space: Step N -> t = 101")
    # Play: a toggle (a checkbox), switched on with Space
    _tab_to(page, lambda text, tag: tag == "INPUT" and text == "Play", log)
    page.keyboard.press("Space")
    player = _player_frame(page)
    player.wait_for_function("() => window.playerState && playerState.stats.shown >= 3", timeout=90000)
    assert _play_toggle(page).is_checked()
    log.append("Space: Play -> the player draws frames")
    _shot(page, "69_a11y_keyboard_playing")
    # Pause: the player's own button, reached by Tab inside its frame, pressed with Enter
    _tab_to(page, lambda text, tag: text == "player:pause", log)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => !document.querySelector('iframe[title*=\"cae_player\"]')"
        " && document.querySelector('[data-testid=\"stApp\"]').dataset.testScriptState === 'notRunning'",
        timeout=90000,
    )
    _wait_idle(page)
    assert not _play_toggle(page).is_checked()
    paused = _seen(page)
    assert paused > 101
    log.append(f"Enter: ❚❚ Pause -> Play off at t = {paused}")
    ctx.close()

    # the Classroom: start a class, ask, reveal (the current page, driven by its buttons' names only)
    ctx, page = _page(browser)
    page.goto(classroom_server + "/classroom")
    _wait_idle(page)
    _tab_to(page, lambda text, tag: tag == "BUTTON" and text == "Start a class", log)
    page.keyboard.press("Enter")
    page.get_by_text("Students open this link").wait_for()
    _wait_idle(page)
    log.append("Enter: Start a class")
    _tab_to(page, lambda text, tag: tag == "BUTTON" and text.startswith("Ask the class"), log)
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Reveal").wait_for()
    _wait_idle(page)
    log.append("Enter: Ask the class")
    _tab_to(page, lambda text, tag: tag == "BUTTON" and text.startswith("Reveal"), log)
    page.keyboard.press("Space")
    page.get_by_text("Question 1, revealed").wait_for()
    log.append("Space: Reveal -> 'Question 1, revealed'")
    _wait_idle(page)
    _shot(page, "70_a11y_keyboard_revealed")
    ctx.close()
    KEYS.parent.mkdir(parents=True, exist_ok=True)
    KEYS.write_text("\n".join(log) + "\n")

"""The keyboard and the screen reader in a real browser (WCAG 2.2 AA): the skip link, where the focus lands after
each action, the focus ring of every control, the quiz's views in words, and a chart toolbar without a dead button.

- "Skip to the controls" is the first Tab stop of every page and Enter on it focuses the page's first control
  (the Playground's Step 1: one Tab, where Step 1 was 35 Tabs from the top).
- After Step 1 and Step N the focus is still on the button pressed; after Pause in the player it is on the Play
  toggle; after Reveal on *Next sample ▶*; after *Next sample* on the prediction's first answer: the next action
  is one key away (after Pause, Reveal and Next sample it fell to the page's ``<body>``: 57 Tabs to *Next sample*).
- Every Tab stop of the pages walked shows a solid ring of 2 px or more, visible (not transparent) and at least
  3:1 against what is behind it — buttons, links, tabs, expanders, toggles, checkboxes, radio buttons, sliders,
  selectboxes, number inputs, the charts' toolbars; each kind is found on the way.
- Every button of every chart's toolbar on the Playground (the still view, the traces, the place-a-sample chart
  and the player's frames) does something when clicked (a mode, the axes' ranges, a download, full screen), and
  the ones that did nothing (Plotly's *Share chart…*, box and lasso selection in the player) are gone.

The path and the rings measured go to test-output/keyboard_focus.json; screenshots to test-output/screenshots/
(81_* to 84_*; look at them).
"""

import json

import pytest
from conftest import ROOT
from support.browser import _player_frame, _shot, _wait_idle, _wait_seen

pytestmark = pytest.mark.browser

LESSON = "/playground?stream=paper2d-ns&n=500&noise=0.1&seed=9&t=700"
QUIZ = LESSON + "&quiz=1"
MEASURED = ROOT / "test-output" / "keyboard_focus.json"

#: what has the focus: its kind of control, its name, and its widget key (the focus may be inside the player's frame)
FOCUSED = """() => { let d = document, e = d.activeElement;
  if (e && e.tagName === 'IFRAME') return {kind: 'frame', name: e.title || '', key: ''};
  if (!e || e === d.body) return {kind: 'body', name: '', key: ''};
  const k = e.closest('[class*=st-key-]'), label = e.closest('label') || (e.labels && e.labels[0]);
  const name = (e.getAttribute('aria-label') || e.getAttribute('data-title') || e.innerText || (label && label.innerText)
                || e.title || '').trim().slice(0, 60);
  const role = e.getAttribute('role'), type = (e.type || '').toLowerCase();
  let kind = e.tagName.toLowerCase();
  if (e.closest('.modebar')) kind = 'chart toolbar button';
  else if (e.tagName === 'INPUT' && type === 'checkbox') kind = role === 'switch' ? 'toggle' : 'checkbox';
  else if (e.tagName === 'INPUT' && type === 'radio') kind = 'radio';
  else if (e.tagName === 'INPUT' && type === 'range') kind = 'slider';
  else if (role === 'combobox') kind = 'selectbox';
  else if (e.tagName === 'INPUT' && type === 'number') kind = 'number input';
  else if (e.tagName === 'INPUT') kind = 'text input';
  else if (role === 'tab') kind = 'tab';
  else if (e.tagName === 'SUMMARY') kind = 'expander';
  else if (e.tagName === 'A') kind = 'link';
  else if (e.tagName === 'BUTTON') kind = 'button';
  else if (e.tagName === 'MAIN') kind = 'main area';
  else if (e.closest('[data-testid=stDataFrame]')) kind = 'table';
  else if (e.hasAttribute('data-tag')) kind = 'multiselect chip';
  else if (e.closest('[data-testid=stCode]')) kind = 'code block';
  return {kind, name, key: k ? k.className.match(/st-key-(\\S+)/)[1] : ''} }"""

#: the focus ring: the focused element's solid outline, or the nearest ancestor's that draws one for it (a toggle's
#: label, a slider's thumb, a selectbox's box); how visible it is (the opacity down to the page) and what is behind
RING = """() => { const e = document.activeElement;
  let r = e, found = false;
  for (let i = 0; i < 6 && r && r !== document.body; i++, r = r.parentElement) {
    const c = getComputedStyle(r);
    if (c.outlineStyle !== 'none' && c.outlineStyle !== 'auto' && parseFloat(c.outlineWidth) >= 1) { found = true; break; }
  }
  if (!found) return null;
  const c = getComputedStyle(r);
  let opacity = 1;
  for (let n = r; n; n = n.parentElement) opacity *= parseFloat(getComputedStyle(n).opacity);
  let behind = 'rgb(255, 255, 255)';
  for (let n = r.parentElement; n; n = n.parentElement) {
    const b = getComputedStyle(n).backgroundColor;
    if (b && b !== 'transparent' && !/rgba\\(.*,\\s*0\\)$/.test(b)) { behind = b; break; }
  }
  const box = r.getBoundingClientRect(), out = (parseFloat(c.outlineOffset) || 0) + parseFloat(c.outlineWidth);
  const clipped = [];  // the boxes that cut the ring (up to the scrolling main area or sidebar: the browser
  for (let n = r.parentElement; n && n !== document.body; n = n.parentElement) {  // scrolls the focus into those)
    if (n.matches('[data-testid=stMain], [data-testid=stSidebarContent]')) break;
    const s = getComputedStyle(n);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const q = n.getBoundingClientRect();
    if (box.left - out < q.left - 0.5 || box.right + out > q.right + 0.5 || box.top - out < q.top - 0.5
        || box.bottom + out > q.bottom + 0.5) clipped.push(n.tagName + ' ' + (n.dataset.testid || n.className).slice(0, 40));
  }
  return {style: c.outlineStyle, width: parseFloat(c.outlineWidth), colour: c.outlineColor, behind, opacity,
          w: box.width, h: box.height, clipped} }"""


def _rgb(css):
    """(r, g, b, alpha) of a computed CSS colour."""
    parts = css[css.index("(") + 1 : css.index(")")].replace("/", ",").split(",")
    r, g, b = (float(p) for p in parts[:3])
    return r, g, b, float(parts[3]) if len(parts) > 3 else 1.0


def contrast(a, b):
    """WCAG's contrast ratio of two computed CSS colours (a translucent one laid over white first)."""

    def lum(css):
        r, g, b, alpha = _rgb(css)
        rgb = [(alpha * v + (1 - alpha) * 255) / 255 for v in (r, g, b)]
        lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _over(css, opacity, behind):
    """The colour ``css`` drawn at ``opacity`` over ``behind`` (itself over white), as a CSS colour."""
    *ring, alpha = _rgb(css)
    *back, back_alpha = _rgb(behind)
    under = [back_alpha * v + (1 - back_alpha) * 255 for v in back]
    a = alpha * opacity
    return "rgb({:.1f}, {:.1f}, {:.1f})".format(*(a * v + (1 - a) * u for v, u in zip(ring, under)))


def test_contrast_is_wcags():
    """The ratio of black on white is 21, of a colour on itself 1, #767676 on white 4.54 (WCAG's own examples)."""
    assert contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(21)
    assert contrast("rgb(23, 22, 21)", "rgb(23, 22, 21)") == pytest.approx(1)
    assert contrast("rgb(118, 118, 118)", "rgb(255, 255, 255)") == pytest.approx(4.54, abs=0.01)
    assert contrast("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(1)
    assert _over("rgb(0, 0, 0)", 0.5, "rgb(255, 255, 255)") == "rgb(127.5, 127.5, 127.5)"
    assert _over("rgb(0, 0, 0)", 1, "rgba(0, 0, 0, 0)") == "rgb(0.0, 0.0, 0.0)"


def _save(section, value):
    MEASURED.parent.mkdir(parents=True, exist_ok=True)
    done = json.loads(MEASURED.read_text()) if MEASURED.exists() else {}
    done[section] = value
    MEASURED.write_text(json.dumps(done, indent=1, ensure_ascii=False) + "\n")


def _open(browser, path, width=1400, height=900):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    page.set_default_timeout(90000)
    page.goto(path)
    _wait_idle(page)
    page.wait_for_selector("#cae-skip-controls", state="attached")  # the keyboard's script is in
    # and every widget drawn (a widget whose code is still loading shows a placeholder for a second or two)
    page.wait_for_function("() => !document.querySelector('[data-testid=stSkeleton]')", timeout=30000)
    return ctx, page


def _focus(page):
    return page.evaluate(FOCUSED)


def _ring_ok(page, where):
    """The focused control's ring: solid, 2 px or more, around a box, 3:1 against what is behind it as it is drawn
    (at its opacity: a help icon in a caption is at 60 %); a ring still fading in is given 0.4 s."""
    for wait in (0, 400):
        page.wait_for_timeout(wait)
        ring = page.evaluate(RING)
        assert ring is not None, f"{where}: no focus ring ({_focus(page)})"
        ratio = contrast(_over(ring["colour"], ring["opacity"], ring["behind"]), ring["behind"])
        if ratio >= 3:
            break
    assert ring["style"] == "solid" and ring["width"] >= 2, f"{where}: {ring}"
    assert ring["w"] > 2 and ring["h"] > 2, f"{where}: the ring is around nothing: {ring}"
    assert not ring["clipped"], f"{where}: the ring is cut by {ring['clipped']}"
    assert ratio >= 3, f"{where}: the ring is {ratio:.2f}:1 against its background ({ring})"
    return round(ratio, 1)


def _after_rerun(page, wanted, timeout_ms=20000):
    """Until the focus is on the control ``wanted`` (a function of FOCUSED's dict) after the rerun; fails saying
    where it is."""
    _wait_idle(page)
    for _ in range(timeout_ms // 100):
        now = _focus(page)
        if wanted(now):
            return now
        page.wait_for_timeout(100)
    raise AssertionError(f"the focus is on {now}, not where the next action is")


# ------------------------------------------------------------------ the skip link
@pytest.mark.parametrize(
    "path, first",
    [
        (LESSON, lambda f: f["key"] == "b_step1"),
        (QUIZ, lambda f: f["kind"] == "radio" and f["key"].startswith("w_quiz_case")),
        ("/explain?stream=paper2d-ns&n=500&t=700", lambda f: f["key"] == "b_prev_Case-I"),
        ("/compare", lambda f: f["kind"] != "body" and f["key"] != ""),
    ],
    ids=["playground", "quiz", "explain", "compare"],
)
def test_the_skip_link_is_the_first_tab_stop_and_goes_to_the_first_control(server, browser, path, first):
    ctx, page = _open(browser, server + path)
    hidden = page.evaluate(
        "() => getComputedStyle(document.querySelector('.st-key-a11y_keyboard').parentElement).display"
    )
    assert hidden == "none"  # the script's element takes no room, not even the column's gap
    page.keyboard.press("Tab")
    link = _focus(page)
    assert (link["kind"], link["name"]) == ("link", "Skip to the controls")
    box = page.evaluate("() => document.activeElement.getBoundingClientRect().toJSON()")
    assert box["top"] >= 0 and box["left"] >= 0 and box["width"] > 80  # it shows where a sighted keyboard user looks
    ratio = _ring_ok(page, "the skip link")
    _shot(page, f"81_skip_link_{path.split('?')[0].strip('/')}{'_quiz' if 'quiz' in path else ''}")
    page.keyboard.press("Enter")
    landed = _after_rerun(page, first, timeout_ms=3000)
    _save(f"skip link on {path}", {"tabs": 1, "then": landed, "ring": ratio})
    ctx.close()


# ------------------------------------------------------------------ the focus after each action
def test_focus_lands_where_the_next_action_is(server, browser):
    """Step 1, Step N, Play and Pause, then the quiz's Reveal and Next sample, by the keyboard alone: after each the
    focus is on the next action's control, and it shows its ring."""
    path = []
    ctx, page = _open(browser, server + LESSON)
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # Skip to the controls: Step 1
    _after_rerun(page, lambda f: f["key"] == "b_step1", timeout_ms=3000)
    page.keyboard.press("Enter")
    _wait_seen(page, 701)
    path.append(["Step 1", _after_rerun(page, lambda f: f["key"] == "b_step1"), _ring_ok(page, "after Step 1")])
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert _focus(page)["key"] == "b_stepn"
    page.keyboard.press("Space")
    _wait_seen(page, 801)
    path.append(["Step N", _after_rerun(page, lambda f: f["key"] == "b_stepn"), _ring_ok(page, "after Step N")])
    page.keyboard.press("Tab")
    assert _focus(page)["kind"] == "toggle" and _focus(page)["key"] == "w_play"
    page.keyboard.press("Space")  # Play
    player = _player_frame(page)
    player.wait_for_function("() => window.playerState && playerState.stats.shown >= 3", timeout=90000)
    for _ in range(15):  # into the player's frame, to its Pause
        page.keyboard.press("Tab")
        if player.evaluate("() => document.activeElement && document.activeElement.id") == "pause":
            break
    else:
        raise AssertionError("Tab never reached the player's Pause")
    page.keyboard.press("Enter")
    page.wait_for_function("() => !document.querySelector('iframe[title*=\"cae_player\"]')", timeout=90000)
    path.append(["Pause", _after_rerun(page, lambda f: f["key"] == "w_play"), _ring_ok(page, "after Pause")])
    assert not page.locator(".st-key-w_play input").is_checked()
    _shot(page, "82_focus_after_pause")
    ctx.close()

    ctx, page = _open(browser, server + QUIZ)
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # Skip to the controls: the prediction
    _after_rerun(page, lambda f: f["kind"] == "radio", timeout_ms=3000)
    page.keyboard.press("ArrowDown")  # another answer
    _wait_idle(page)
    tabs = 0
    while _focus(page)["key"] != "b_quiz_reveal":
        page.keyboard.press("Tab")
        tabs += 1
        assert tabs < 10, f"Reveal is not near the prediction: {_focus(page)}"
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Next sample ▶").wait_for()
    path.append(["Reveal", _after_rerun(page, lambda f: f["key"] == "b_quiz_next"), _ring_ok(page, "after Reveal")])
    _shot(page, "82_focus_after_reveal")
    page.keyboard.press("Enter")  # Next sample, at once: no Tab
    page.get_by_role("button", name="Reveal", exact=True).wait_for()
    path.append(
        ["Next sample", _after_rerun(page, lambda f: f["kind"] == "radio"), _ring_ok(page, "after Next sample")]
    )
    _shot(page, "82_focus_after_next_sample")
    _save("focus after each action", {"path": path, "tabs from the prediction to Reveal": tabs})
    ctx.close()


# ------------------------------------------------------------------ a ring on every control
#: the pages walked with Tab, and what is opened first so that every kind of control is on the way
WALKS = [
    ("playground", LESSON, ["Copy lesson link", "Take this run to slides"]),
    ("quiz", QUIZ, []),
    ("explain", "/explain?stream=paper2d-ns&n=500&t=700", []),
    ("experiments", "/experiments", []),
    ("compare", "/compare", []),
    ("your data", "/upload", []),
    ("continual", "/continual", []),
    ("classroom", "/classroom", []),
]
KINDS = {
    "button",
    "link",
    "tab",
    "expander",
    "toggle",
    "checkbox",
    "radio",
    "slider",
    "selectbox",
    "number input",
    "text input",
}


def test_every_control_shows_a_focus_ring_of_3_to_1(server, browser):
    """Tab through every stop of eight pages (till the skip link comes round again): each shows its ring. One
    screenshot of each kind of control with the focus (83_ring_<kind>.png)."""
    found, lowest = {}, {}
    for name, path, opened in WALKS:
        ctx, page = _open(browser, server + path)
        for text in opened:
            page.get_by_text(text).first.click()
            _wait_idle(page)
        page.mouse.move(1, 1)
        page.focus("#cae-skip-controls")  # the walk starts at the top, whatever was clicked
        for stop in range(1, 400):
            page.keyboard.press("Tab")
            page.wait_for_timeout(30)
            now = _focus(page)
            if stop > 1 and now["name"] == "Skip to the controls":
                break
            if now["kind"] in ("frame", "body"):
                continue  # a chart's or the player's frame: its own document
            where = f"{name}, stop {stop}: {now['kind']} {now['name']!r} ({now['key']})"
            ratio = _ring_ok(page, where)
            if now["kind"] not in found:
                _shot(page, f"83_ring_{now['kind'].replace(' ', '_')}")
            found[now["kind"]] = found.get(now["kind"], 0) + 1
            lowest[where] = ratio
        else:
            raise AssertionError(f"{name}: Tab never came round to the skip link")
        ctx.close()
    missing = KINDS - set(found)
    assert not missing, f"no {missing} on the pages walked: the walk does not test them"
    weakest = min(lowest, key=lowest.get)
    _save("focus rings", {"stops": sum(found.values()), "per kind": found, "lowest": [weakest, lowest[weakest]]})


# ------------------------------------------------------------------ the quiz's views in words
SUMMARY = "[class*=st-key-fig_summary_main]"


def _said(page):
    """The main view's sentence for a screen reader: its text, and whether it is hidden from the eye only."""
    return page.evaluate(
        """(s) => { const e = document.querySelector(s); if (!e) return null;
        const c = getComputedStyle(e), r = e.getBoundingClientRect();
        return {text: e.innerText.trim(), shown: r.width > 2 && r.height > 2, hidden_from_readers:
                c.display === 'none' || c.visibility === 'hidden' || !!e.closest('[aria-hidden=true]')} }""",
        SUMMARY,
    )


def test_the_quiz_says_in_words_what_each_view_shows(server, browser):
    ctx, page = _open(browser, server + QUIZ)
    before = _said(page)
    assert before and not before["shown"] and not before["hidden_from_readers"], before
    assert before["text"].startswith("The network at step t = 700 of 3,300. This step: ")
    assert "Now " in before["text"] and " clusters" in before["text"] and "similarity threshold V = " in before["text"]
    assert "The star is the next sample, at (" in before["text"] and before["text"].endswith(
        "what will CAE do with it?"
    )
    page.get_by_role("button", name="Reveal", exact=True).click()
    page.get_by_role("button", name="Next sample ▶").wait_for()
    _wait_idle(page)
    after = _said(page)
    assert after and not after["shown"] and not after["hidden_from_readers"], after
    assert after["text"].startswith("The network at step t = 701 of 3,300. This step: ")
    assert "The star is the next sample" not in after["text"]
    _save("the quiz in words", {"before the reveal": before["text"], "after the reveal": after["text"]})
    ctx.close()


# ------------------------------------------------------------------ no button that does nothing
#: the buttons Plotly offers that did nothing on our charts: gone
DEAD = ("Share chart...", "Box Select", "Lasso Select")

STATE = """g => ({drag: g._fullLayout.dragmode, x: g._fullLayout.xaxis.range.slice(), y: g._fullLayout.yaxis.range.slice(),
  w: g.getBoundingClientRect().width})"""


def _press(plot, title):
    plot.hover(position={"x": 60, "y": 60})
    plot.locator(f".modebar-btn[data-title='{title}']").first.click()
    plot.page.wait_for_timeout(400)


def _try_every_button(page, frame, plot, name, viewport_width):
    """Click each toolbar button of ``plot`` (a ``.js-plotly-plot`` locator in ``frame``) and check what it did."""
    titles = plot.evaluate("g => [...g.querySelectorAll('.modebar-btn')].map(b => b.getAttribute('data-title'))")
    assert titles, f"{name}: no toolbar"
    assert not set(DEAD) & set(titles), f"{name}: {set(DEAD) & set(titles)} do nothing"
    did = {}

    def state():
        frame.wait_for_timeout(500)
        return plot.evaluate(STATE)

    start = state()
    for title in titles:
        if title in ("Zoom", "Pan"):
            other = "Pan" if title == "Zoom" else "Zoom"
            _press(plot, other)
            _press(plot, title)
            assert state()["drag"] == title.lower(), f"{name}: {title} did not switch the mode"
        elif title in ("Zoom in", "Zoom out"):
            before = state()
            _press(plot, title)
            after = state()
            wider = (after["x"][1] - after["x"][0]) > (before["x"][1] - before["x"][0])
            assert wider == (title == "Zoom out"), f"{name}: {title}: {before['x']} -> {after['x']}"
        elif title in ("Autoscale", "Reset axes"):
            _press(plot, "Zoom in")
            zoomed = state()
            _press(plot, title)
            after = state()
            assert after["x"] != zoomed["x"], f"{name}: {title} did not change the axes"
            if title == "Reset axes":
                assert after["x"] == pytest.approx(start["x"], abs=1e-6), f"{name}: Reset axes: {after['x']}"
        elif title == "Download plot as a PNG":
            with page.expect_download(timeout=30000) as got:
                _press(plot, title)
            assert got.value.suggested_filename.endswith(".png")
        elif title == "Fullscreen":
            _press(plot, title)
            assert state()["w"] > 0.9 * viewport_width, f"{name}: Fullscreen did not fill the window"
            _shot(page, f"84_toolbar_fullscreen_{name}")
            _press(plot, "Close fullscreen")
            assert state()["w"] < 0.9 * viewport_width
        else:
            raise AssertionError(f"{name}: the toolbar button {title!r} has no check here: add one, or remove it")
        did[title] = "done"
    return list(did)


def test_every_toolbar_button_on_the_playground_does_something(server, browser):
    checked = {}
    ctx, page = _open(browser, server + LESSON)
    page.get_by_text("Place samples and draw your own distribution").click()  # its chart, drawn when open
    _wait_idle(page)
    for key in ("main_fig", "traces_fig_chart", "place_fig"):
        plot = page.locator(f".st-key-{key} .js-plotly-plot").first
        plot.evaluate(
            "g => { g.scrollIntoView({block: 'start'}); g.closest('[data-testid=stMain]').scrollBy(0, -120) }"
        )
        checked[key] = _try_every_button(page, page, plot, key, 1400)
    page.locator("[data-testid=stMain]").evaluate("m => m.scrollTo(0, 0)")
    page.locator(".st-key-w_speed input").focus()
    page.keyboard.press("Home")  # one sample per frame: the stream lasts the whole test
    _wait_idle(page)
    page.locator(".st-key-w_play label").click()  # Play: the player's frames
    player = _player_frame(page)
    player.wait_for_function("() => window.playerState && playerState.stats.shown >= 3", timeout=90000)
    if player.locator(".js-plotly-plot").count():
        checked["player"] = _try_every_button(page, player, player.locator(".js-plotly-plot").first, "player", 1400)
    else:  # a player that draws its frames on a canvas has no Plotly toolbar at all
        assert player.locator(".modebar-btn").count() == 0
        checked["player"] = ["no chart toolbar: the frames are drawn on a canvas"]
    _shot(page, "84_toolbar_player")
    _save("toolbar buttons clicked", checked)
    ctx.close()

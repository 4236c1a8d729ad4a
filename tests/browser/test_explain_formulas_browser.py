"""Explain a step's formulas fit their column, and axe-core finds nothing, in every kind of step of every algorithm.

Each algorithm's lesson link (the paper's 2-D stream, 1,500 points per distribution, seed 9, learned to t = 7,000) is
walked through every kind of step the page explains — reached with its jump buttons (◀ the previous one), the
*λ fixed* button, or a step typed in *Step t* — and every state is measured at 1280×720 and 1400×900, and at a
200 % zoom of those windows: Chromium's device scale factor 2 with a CSS viewport of half the size (640×360 and
700×450), which is what the browser's zoom does to the page's layout. In every state and size:

- every formula (``.katex-display``) is within its column and does not scroll (scrollWidth ≤ clientWidth);
- its text is at least 14 px (the numbers of the step are on the formula's base line);
- axe-core reports no violation at all (every impact, not only serious ones).

Screenshots of every state at every size: test-output/screenshots/80_explain_*.png (look at them).
"""

import json

import pytest
from conftest import ROOT
from support.axe import report, violations
from support.browser import _shot, _wait_idle

pytestmark = pytest.mark.browser

LINK = "/explain?stream=paper2d-ns&n=1500&noise=0.1&seed=9&t=7000&algo="
#: the sizes measured in one browser context: (device scale factor, [(width, height) of the CSS viewport])
SIZES = {"100%": (1, [(1280, 720), (1400, 900)]), "200%": (2, [(640, 360), (700, 450)])}
#: every kind of step, per algorithm: how it is reached, and words the page then shows (the jumps go back from
#: t = 7,000, so they come first; CAE fixes λ and sets V up at the same step; CAEA (λ = 50) sets V up at
#: t = n_active = λ / 2 = 25)
KINDS = {
    "CAE": [
        ("jump", "Case I", "Case I — new node"),
        ("jump", "Case II", "Case II — s1 learns"),
        ("jump", "Case III", "Case III — s1 and its neighbours learn"),
        ("jump", "edge deletion", "are deleted:"),
        ("jump", "sweep", "every node without an edge is removed"),
        ("lambda", None, "λ ← 2·n_active"),
        ("t", 1, "Initial phase"),
    ],
    "CAEA": [
        ("jump", "Case I", "Case I — new node"),
        ("jump", "Case II", "Case II — s1 learns"),
        ("jump", "Case III", "Case III — s1 and its neighbours learn"),
        ("jump", "edge deletion", "are deleted:"),
        ("jump", "sweep", "every node without an edge is removed"),
        ("t", 25, "Threshold set-up"),
        ("t", 1, "Initial phase"),
    ],
    "Fuzzy ART": [
        ("jump", "resonance", "resonance with category"),
        ("jump", "reset", "reset (match below ρ)"),
        ("jump", "new category", "new category"),
        ("t", 1, "there is no category yet"),
    ],
    "GNG": [
        ("jump", "insertion", "inserted between q ="),
        ("jump", "edge removed", "Edges removed (older than a_max"),
        ("jump", "node removed", "Nodes removed (left without edges)"),
        ("t", 3, "adaptation (s1 = node"),
        ("t", 1, "start node"),
    ],
}
#: per formula: its TeX (the start), whether it scrolls, its box and its column's edges, its font size (px)
FORMULAS = """() => [...document.querySelectorAll('[data-testid=stMain] .katex-display')].map(d => {
  const col = d.closest('[data-testid=stColumn]') || d.closest('[data-testid=stMain] [data-testid=stVerticalBlock]');
  const k = d.querySelector('.katex'), kr = k.getBoundingClientRect(), cr = col.getBoundingClientRect();
  const tex = d.querySelector('annotation');
  return {tex: (tex ? tex.textContent : d.textContent).slice(0, 70), scroll: d.scrollWidth, client: d.clientWidth,
          left: kr.left, right: kr.right, col_left: cr.left, col_right: cr.right,
          px: parseFloat(getComputedStyle(k).fontSize)} })"""
MEASURED = ROOT / "test-output" / "explain_formulas.json"


def _reach(page, how, what):
    """Go to a kind of step: its ◀ button (the previous one), CAE's *λ fixed* button, or a step typed in."""
    if how == "jump":
        page.locator(f".st-key-b_prev_{what.replace(' ', '-')} button").first.click()
    elif how == "lambda":
        page.get_by_role("button", name="Go", exact=True).click()
    else:
        box = page.get_by_label("Step t", exact=True)
        box.fill(str(what))
        box.press("Enter")
    _wait_idle(page)
    page.mouse.move(1, 1)  # no tooltip left open under the pointer
    page.wait_for_timeout(600)


def _fits(page, state):
    """Every formula within its column, not scrolling, at 14 px or more; returns the formulas measured."""
    shown = page.evaluate(FORMULAS)
    assert shown or "t = 1," in state, f"{state}: no formula on the page"  # the first step has none (or I = (x, 1-x))
    for f in shown:
        where = f"{state}: {f['tex']!r}"
        assert f["scroll"] <= f["client"], f"{where} scrolls ({f['scroll']} px in {f['client']} px)"
        assert f["left"] >= f["col_left"] - 1 and f["right"] <= f["col_right"] + 1, f"{where} leaves its column: {f}"
        assert f["px"] >= 14, f"{where} is {f['px']} px"
    return shown


def _explanation_shot(page, name):
    """The explanation in view (its headline at the top), as the reader sees it."""
    page.evaluate(
        "() => { const h = [...document.querySelectorAll('[data-testid=stMain] h2')].find(h => h.innerText.startsWith('t = '));"
        " if (h) h.scrollIntoView({block: 'start'}) }"
    )
    page.wait_for_timeout(300)
    _shot(page, name)


def _record(key, shown):
    MEASURED.parent.mkdir(parents=True, exist_ok=True)
    done = json.loads(MEASURED.read_text()) if MEASURED.exists() else {}
    if not shown:
        return
    done[key] = {
        "formulas": len(shown),
        "widest": max(f["right"] - f["left"] for f in shown),
        "column": min(f["col_right"] - f["col_left"] for f in shown),
        "px": min(f["px"] for f in shown),
    }
    MEASURED.write_text(json.dumps(done, indent=1, sort_keys=True) + "\n")


@pytest.mark.parametrize("zoom", list(SIZES))
@pytest.mark.parametrize("algo", list(KINDS))
def test_every_kind_of_step_fits_and_passes_axe(server, browser, algo, zoom):
    scale, sizes = SIZES[zoom]
    ctx = browser.new_context(viewport={"width": sizes[0][0], "height": sizes[0][1]}, device_scale_factor=scale)
    page = ctx.new_page()
    page.set_default_timeout(120000)
    page.goto(server + LINK + algo.replace(" ", "%20"))
    page.get_by_role("heading", name="Explain a step").wait_for()
    _wait_idle(page)
    for how, what, says in KINDS[algo]:
        _reach(page, how, what)
        kind = what if how == "jump" else ("lambda fixed" if how == "lambda" else f"t = {what}")
        main = page.locator("[data-testid=stMain]").inner_text()
        assert "recorded steps" not in main, f"{algo}, {kind}: not reached ({main[:300]!r})"
        assert says in main, f"{algo}, {kind}: the page does not say {says!r}"
        for width, height in sizes:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(500)
            state = f"{algo}, {kind}, {width}×{height} at {zoom}"
            shown = _fits(page, state)
            found = violations(page)
            assert not found, f"{state}: axe found\n{report(found)}"
            _record(state, shown)
            name = f"80_explain_{algo}_{kind}_{width}x{height}".replace(" ", "_").replace("=", "")
            _explanation_shot(page, name)
    ctx.close()

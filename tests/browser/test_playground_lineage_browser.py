"""The Playground with Fuzzy ART and with GNG in a real browser, at 1400×900 and 1280×720: the whole main figure
above the fold (as CAE's, tests/browser/test_browser.py), Fuzzy ART's boxes and GNG's network drawn, the step
explained under the view.

Screenshots go to test-output/screenshots/ (look at them): 60_playground_fuzzy_art_{size} and
60_playground_gng_{size} (the view), 61_… (the step explained).
"""

import pytest
from support.browser import _scroll_to, _shot, _wait_idle

pytestmark = pytest.mark.browser

SIZES = [(1400, 900), (1280, 720)]


def _to_top(page):
    page.evaluate(
        '() => { window.scrollTo(0, 0); document.querySelectorAll(\'[data-testid="stMain"], '
        '[data-testid="stAppViewContainer"]\').forEach(e => { e.scrollTop = 0; }); }'
    )
    page.wait_for_timeout(300)


@pytest.mark.parametrize("size", SIZES, ids=["1400x900", "1280x720"])
@pytest.mark.parametrize(
    "algo, t, legend, headline",
    [
        ("Fuzzy ART", 300, "categories (boxes)", "t = 300: "),
        ("GNG", 302, "r: inserted now", "t = 302: node"),  # t = 302: GNG's third insertion (λ = 100)
    ],
    ids=["fuzzy_art", "gng"],
)
def test_the_playground_draws_fuzzy_art_and_gng_whole_and_explains_the_step(
    server, browser, size, algo, t, legend, headline
):
    w, h = size
    ctx = browser.new_context(viewport={"width": w, "height": h})
    page = ctx.new_page()
    page.set_default_timeout(90000)
    page.goto(server + f"/playground?stream=paper2d-ns&n=1500&seed=0&algo={algo.replace(' ', '+')}&t={t}")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    main = page.locator(".st-key-main_fig .js-plotly-plot").first
    page.locator(".st-key-main_fig .main-svg").first.wait_for(state="attached")
    page.wait_for_timeout(800)
    _to_top(page)
    box = main.bounding_box()
    slug = algo.replace(" ", "_").lower()
    page.mouse.move(5, 5)
    _shot(page, f"60_playground_{slug}_{w}x{h}")
    assert box["y"] >= 0 and box["y"] + box["height"] <= h, (box, h)  # the whole figure without scrolling
    # the picture's key beside it (the figure keeps no legend: the picture is the page, #34)
    assert page.locator(".st-key-side .cae-key li", has_text=legend).count() >= 1
    assert main.locator(".legendtext").count() == 0
    assert page.get_by_text(f"{t:,}", exact=True).count() >= 1  # samples seen beside the view
    step = page.locator("[data-testid='stExpander']").filter(has_text=headline).first
    _scroll_to(page, step)
    page.wait_for_timeout(800)
    _shot(page, f"61_playground_{slug}_explained_{w}x{h}")
    words = step.inner_text()
    assert ("complement coded" in words) if algo == "Fuzzy ART" else ("Insertion" in words and "s1 =" in words)
    ctx.close()

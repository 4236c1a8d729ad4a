"""NMI and ARI while the labels seen hold one class, in a real browser at 1280×720: "n/a" with "one class" under it in
the Playground's panel, "n/a — one class so far" in Compare's table (its columns wide enough), each whole.

Screenshots go to test-output/screenshots/ (look at them): 46_one_class_playground_1280x720,
47_one_class_compare_1280x720.
"""

import pytest
from support.browser import _scroll_to, _shot, _wait_idle

pytestmark = pytest.mark.browser

_WHOLE = "e => e.scrollWidth <= e.clientWidth + 1"


def _page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    page = ctx.new_page()
    page.set_default_timeout(90000)
    return ctx, page


def test_the_playground_panel_says_n_a_one_class_whole(server, browser):
    ctx, page = _page(browser)
    page.goto(server + "/playground?stream=paper2d-ns&n=1500&seed=0&t=203")
    page.get_by_role("heading", name="Playground").wait_for()
    _wait_idle(page)
    page.locator(".js-plotly-plot").first.wait_for()
    page.mouse.move(5, 5)
    page.wait_for_timeout(1000)
    for name in ("NMI", "ARI"):
        box = page.locator("[data-testid='stMetric']").filter(has_text=name).first
        value = box.locator("[data-testid='stMetricValue']")
        delta = box.locator("[data-testid='stMetricDelta']")
        assert value.inner_text().strip() == "n/a" and delta.inner_text().strip() == "one class"
        assert value.evaluate(_WHOLE) and delta.evaluate(_WHOLE)
    _shot(page, "46_one_class_playground_1280x720")
    ctx.close()


def test_compares_table_says_n_a_one_class_so_far_whole(server, browser):
    ctx, page = _page(browser)
    page.goto(server + "/compare")
    page.get_by_role("heading", name="Compare algorithms").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Step N", exact=True).first.click()
    _wait_idle(page)
    table = page.locator("[data-testid='stDataFrame']").first
    _scroll_to(page, table)
    page.mouse.move(5, 5)
    page.wait_for_timeout(1500)
    _shot(page, "47_one_class_compare_1280x720")
    # the grid draws on a canvas (its columns are 150 px wide: the screenshot shows the words whole); its text is in
    # its accessible table
    cells = table.locator("[role='gridcell']").filter(has_text="n/a — one class so far")
    assert cells.count() >= 2
    ctx.close()

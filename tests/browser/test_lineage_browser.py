"""Fuzzy ART's boxes and GNG's network beside CAE, in Compare and on the Lineage page, in a real browser at 1400×900.

Screenshots go to test-output/screenshots/ (look at them): 40_compare_cae_fuzzyart_gng, 41_lineage_table,
42_lineage_networks (t = 5,002: a GNG insertion).
"""

import pytest
from support.browser import _scroll_to, _shot, _wait_idle

pytestmark = pytest.mark.browser


def _page_1400(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(60000)
    return ctx, page


def test_compare_with_cae_fuzzy_art_and_gng(server, browser):
    ctx, page = _page_1400(browser)
    page.goto(server + "/compare")
    page.get_by_role("heading", name="Compare algorithms").wait_for()
    _wait_idle(page)
    chooser = page.locator("[data-testid='stMultiSelect']").first
    for name in ("CAEA", "SOINN+", "TCA"):  # keep CAE of the default four
        chooser.get_by_label(f"Remove {name}", exact=True).first.click()
        _wait_idle(page)
    box = chooser.locator("input").first
    for name in ("Fuzzy ART", "GNG"):
        box.click()
        box.fill(name)
        box.press("Enter")
        _wait_idle(page)
    page.keyboard.press("Escape")
    _wait_idle(page)
    page.get_by_role("button", name="Run to end", exact=True).click()
    _wait_idle(page)
    page.get_by_text("9,900 of 9,900 samples").wait_for()
    page.locator(".js-plotly-plot").nth(3).wait_for()  # three networks and the traces
    assert page.get_by_text("Fuzzy ART (ρ=0.75").count() >= 1
    _scroll_to(page, page.locator(".js-plotly-plot").first)
    page.mouse.move(5, 5)
    page.wait_for_timeout(1500)
    _shot(page, "40_compare_cae_fuzzyart_gng")
    labels = page.locator("[data-testid='stMarkdownContainer'] strong").all_inner_texts()
    assert [x for x in labels if x.split(" (")[0] in ("CAE", "CAEA", "Fuzzy ART", "GNG")][-3:] == [
        "CAE",
        "Fuzzy ART (ρ=0.75, α=0.001, β=1)",
        "GNG (ε_b=0.2, ε_n=0.006, a_max=50, λ=100, α=0.5, β=0.005, n_max=100)",
    ]
    _scroll_to(page, page.locator(".js-plotly-plot").nth(2))
    page.mouse.move(5, 5)
    page.wait_for_timeout(1000)
    _shot(page, "40b_compare_gng")
    # Fuzzy ART's categories are drawn as boxes, GNG's edges by age (their legend entries and colour bar)
    assert page.locator(".js-plotly-plot .legendtext", has_text="categories (boxes)").count() >= 1
    assert page.locator(".js-plotly-plot .cbtitle", has_text="removed past a_max").count() >= 1
    ctx.close()


def test_lineage_page(server, browser):
    ctx, page = _page_1400(browser)
    page.goto(server + "/lineage?n=1500&seeds=2&seed=0&t=5002&art=0.75&gng=100")
    page.get_by_role("heading", name="Lineage: Fuzzy ART, GNG, CAE").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Run 2 seeds", exact=True).click()
    page.get_by_text("Done: 8 settings over 2 seeds").wait_for(timeout=180000)
    _wait_idle(page)
    table = page.locator("[data-testid='stDataFrame']").first
    table.wait_for()
    for column in ("NMI", "ARI", "#clusters", "merges"):
        assert table.get_by_text(column, exact=True).count() >= 1 or column in table.inner_text()
    _scroll_to(page, table)
    page.wait_for_timeout(800)
    _shot(page, "41_lineage_table")
    _scroll_to(page, page.get_by_role("heading", name="The four networks at one step"))
    page.locator(".js-plotly-plot").nth(3).wait_for()
    _scroll_to(page, page.locator(".js-plotly-plot").first)
    page.mouse.move(5, 5)
    page.wait_for_timeout(1500)
    _shot(page, "42_lineage_networks")
    assert page.locator(".js-plotly-plot .legendtext", has_text="box that would accept").count() >= 1
    # step 5,002 is one of GNG's insertions (every λ = 100 adaptations): r, q and f marked and named
    assert page.locator(".js-plotly-plot .legendtext", has_text="r: inserted now (node 51)").count() == 1
    ctx.close()

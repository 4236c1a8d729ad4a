"""Fuzzy ART's boxes and GNG's network beside CAE in Compare (1400×900), and the Lineage page at 1280×720 and
1400×900: the lineage and one step's two pictures whole in the first screen, the lesson's table whole on one screen.

Screenshots go to test-output/screenshots/ (look at them): 40_compare_cae_fuzzyart_gng, 43_lineage_first_screen_*,
44_lineage_table_*, 45_lineage_tca_caea_noise_free_*.
"""

import re

import pytest
from support.browser import _scroll_to, _shot, _wait_idle

pytestmark = pytest.mark.browser


def _sized_page(browser, w=1400, h=900):
    ctx = browser.new_context(viewport={"width": w, "height": h})
    page = ctx.new_page()
    page.set_default_timeout(90000)
    return ctx, page


def test_compare_with_cae_fuzzy_art_and_gng(server, browser):
    ctx, page = _sized_page(browser)
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
    # Fuzzy ART's categories are drawn as boxes, GNG's edges by age (their entries in the pictures' keys)
    assert page.locator(".cae-key li", has_text="categories (boxes)").count() >= 1
    assert page.locator(".cae-key", has_text="removed past a_max").count() >= 1
    ctx.close()


def _first_screen_and_table(page, w, h):
    """The lineage and the two pictures of one step whole in the first screen; then the table whole on one
    screen: all its rows, none of its columns cut (measured in the page, screenshots taken)."""
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    page.wait_for_timeout(500)
    plots = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(e => e.getBoundingClientRect().toJSON())"
    )
    assert len(plots) == 2
    assert all(p["top"] > 0 and p["bottom"] <= h and p["right"] <= w for p in plots), plots
    _shot(page, f"43_lineage_first_screen_{w}x{h}")
    table = page.locator("table.cae-lineage-table")
    # the table's top just under Streamlit's header bar, then measure it
    page.evaluate(
        "() => { const t = document.querySelector('table.cae-lineage-table');"
        " const bar = document.querySelector('[data-testid=\"stHeader\"]').getBoundingClientRect().bottom;"
        " const main = document.querySelector('[data-testid=\"stMain\"]');"
        " main.scrollBy(0, t.getBoundingClientRect().top - bar - 8); }"
    )
    page.wait_for_timeout(800)
    box = table.evaluate(
        "t => { const r = t.getBoundingClientRect(); const cells = [...t.querySelectorAll('td, th')];"
        " const bar = document.querySelector('[data-testid=\"stHeader\"]').getBoundingClientRect().bottom;"
        " return {top: r.top, bottom: r.bottom, right: r.right, bar: bar, rows: t.tBodies[0].rows.length,"
        " parent: t.parentElement.getBoundingClientRect().right, overflow: t.scrollWidth - t.clientWidth,"
        " cut: cells.filter(c => c.scrollWidth > c.clientWidth + 1).length,"
        " outside: cells.filter(c => c.getBoundingClientRect().right > r.right + 1).length}; }"
    )
    assert box["rows"] == 25
    assert box["top"] >= box["bar"] and box["bottom"] <= h, box  # every row on the screen
    assert box["right"] <= box["parent"] + 1 and box["overflow"] <= 0 and box["cut"] == 0 and box["outside"] == 0, box
    _shot(page, f"44_lineage_table_{w}x{h}")


@pytest.mark.parametrize("size", [(1280, 720), (1400, 900)])
def test_lineage_page(server, browser, size):
    w, h = size
    ctx, page = _sized_page(browser, w, h)
    page.goto(server + "/lineage?step=4&stream=noisy&t=3300&seed=0&n=1500&seeds=2")
    page.get_by_role("heading", name="Lineage: two families meeting in CAE").wait_for()
    _wait_idle(page)
    page.locator(".js-plotly-plot").nth(1).wait_for()
    page.locator("table.cae-lineage-table").wait_for()
    page.mouse.move(5, 5)
    page.wait_for_timeout(1500)
    for name in ("Fuzzy ART", "TCA", "CAEA", "CAE", "GNG", "ASOINN", "SOINN+"):
        assert page.locator("figure b", has_text=name).count() >= 1
    text = page.locator("[data-testid='stMain']").inner_text()
    assert "GNG's counter (signals after its two start nodes) is t − 2 = 3,298" in text
    assert "DemoGNG's order, which ours follows" in text
    # GNG's one component at t = 3,300, in the singular
    assert "1 cluster, " in text and not re.search(r"(?<![\d.,])1 clusters", text)
    _first_screen_and_table(page, w, h)
    # another step: the networks of TCA → CAEA on the noise-free stream
    page.get_by_role("radiogroup", name="Stream").get_by_text("noise-free", exact=True).click()
    _wait_idle(page)
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    page.locator("[data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name="TCA → CAEA").click()
    _wait_idle(page)
    page.locator(".js-plotly-plot").nth(1).wait_for()
    page.mouse.move(5, 5)
    page.wait_for_timeout(1500)
    assert page.get_by_text("TCA λ = 500, σ_init = 0.1 · usual: the paper's").count() == 1
    _shot(page, f"45_lineage_tca_caea_noise_free_{w}x{h}")
    ctx.close()

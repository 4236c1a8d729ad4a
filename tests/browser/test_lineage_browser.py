"""Fuzzy ART's boxes and GNG's network beside CAE in Compare (1400×900), and the Lineage page at 1280×720 and
1400×900: for each of the lesson's seven steps, the families, the step's words and its two pictures under them on
the first screen (positions measured); the step's rows of the table, and the whole table one click away.

Screenshots go to test-output/screenshots/ (look at them): 40_compare_cae_fuzzyart_gng,
43_lineage_step{1-7}_first_screen_*, 44_lineage_step3_rows_*, 44b_lineage_whole_table_*; the positions to
test-output/lineage_first_screen_*.json.
"""

import re

import pytest
from conftest import ROOT
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


def _first_screen(page, w, h):
    """Where the families, the step's words and its two pictures are on the first screen (the page at its top)."""
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').scrollTop === 0")
    return page.evaluate(
        "() => { const r = e => e.getBoundingClientRect().toJSON();"
        " return {families: r(document.querySelector('figure.cae-lineage')),"
        " words: r(document.querySelector('.st-key-lin_step')),"
        " text: document.querySelector('.st-key-lin_step').innerText,"
        " plots: [...document.querySelectorAll('.js-plotly-plot')].map(r)}; }"
    )


def _open(page, server, k):
    page.goto(server + f"/lineage?step={k}&stream=noisy&t=3300&seed=0&n=1500&seeds=2")
    page.get_by_role("heading", name="Lineage: two families meeting in CAE").wait_for()
    _wait_idle(page)
    page.locator(".js-plotly-plot .main-svg").nth(1).wait_for()
    page.locator("table.cae-lineage-table").wait_for()
    page.mouse.move(5, 5)


@pytest.mark.parametrize("size", [(1280, 720), (1400, 900)])
def test_lineage_page(server, browser, size):
    """Every step of the lesson opened by its link: the families, the step's words and, under them, both pictures,
    all on the first screen; the table shows the step's rows, the whole table one click away. The positions are
    written to test-output/lineage_first_screen_{w}x{h}.json."""
    import json

    from cae.app import lineage_lesson as lesson
    from cae.app.lineage import SETTINGS

    w, h = size
    ctx, page = _sized_page(browser, w, h)
    measured = {}
    for k, step in enumerate(lesson.STEPS, start=1):
        _open(page, server, k)
        m = _first_screen(page, w, h)
        fam, words, plots = m["families"], m["words"], m["plots"]
        assert m["text"].startswith(f"Step {k} of 7 · {step.title}"), m["text"][:80]
        assert len(plots) == 2
        assert 0 <= fam["top"] < fam["bottom"] <= words["top"], (k, fam, words)  # the families, then the words
        assert all(words["bottom"] <= p["top"] for p in plots), (k, words, plots)  # the words above the pictures
        assert all(p["bottom"] <= h and p["right"] <= w and p["width"] >= 300 for p in plots), (k, plots)
        measured[step.title] = {
            "families": [round(fam["top"]), round(fam["bottom"])],
            "words": [round(words["top"]), round(words["bottom"])],
            "pictures": [round(plots[0]["top"]), round(plots[0]["bottom"])],
            "picture side": round(plots[0]["width"]),
        }
        _shot(page, f"43_lineage_step{k}_first_screen_{w}x{h}")
        rows = page.locator("table.cae-lineage-table").evaluate("t => t.tBodies[0].rows.length")
        assert rows == len(lesson.step_settings(step)), (k, rows)
        if step.title == "GNG → SOINN → ASOINN":
            text = page.locator("[data-testid='stMain']").inner_text()
            assert "GNG's counter (signals after its two start nodes) is t − 2 = 3,298" in text
            assert "DemoGNG's order, which ours follows" in text
            # GNG's one component at t = 3,300, in the singular
            assert "1 cluster, " in text and not re.search(r"(?<![\d.,])1 clusters", text)
    out = ROOT / "test-output" / f"lineage_first_screen_{w}x{h}.json"
    out.write_text(json.dumps(measured, indent=1, ensure_ascii=False))
    # the step's rows, then the whole table one click away
    _open(page, server, 3)
    table = page.locator("table.cae-lineage-table")
    _scroll_to(page, table)
    assert table.evaluate("t => t.tBodies[0].rows.length") == 6  # CAEA's five rows and CAE's
    assert page.get_by_text("CAE's λ beside its #nodes, seed by seed").count() == 1
    _shot(page, f"44_lineage_step3_rows_{w}x{h}")
    page.get_by_text(f"Whole table ({len(SETTINGS)} rows)").click()
    _wait_idle(page)
    page.wait_for_function(
        "n => document.querySelector('table.cae-lineage-table').tBodies[0].rows.length === n", arg=len(SETTINGS)
    )
    box = table.evaluate(
        "t => { const r = t.getBoundingClientRect(); const cells = [...t.querySelectorAll('td, th')];"
        " return {right: r.right, parent: t.parentElement.getBoundingClientRect().right,"
        " overflow: t.scrollWidth - t.clientWidth, cut: cells.filter(c => c.scrollWidth > c.clientWidth + 1).length}; }"
    )
    assert box["right"] <= box["parent"] + 1 and box["overflow"] <= 0 and box["cut"] == 0, box
    _scroll_to(page, table)
    _shot(page, f"44b_lineage_whole_table_{w}x{h}")
    ctx.close()

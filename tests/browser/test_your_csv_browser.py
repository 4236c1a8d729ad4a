"""Your data past 250,000 rows, in a real browser: a 1,000,000-row file learned in the background and drawn as a
density image with the network over it, and a model made by `cae learn` opened with a sample of the rows.

Screenshots go to test-output/screenshots/ (look at them).
"""

import subprocess
import sys

import pytest
from support.browser import _metric, _page, _shot, _wait_idle

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory):
    from cae.bench.big_csv import write_data

    return write_data(tmp_path_factory.mktemp("big") / "paper2d_1M.csv", 1_000_000)


def _plot_types(page):
    """The trace types of the page's first Plotly chart."""
    return page.evaluate("() => document.querySelector('.js-plotly-plot').data.map(t => t.type)")


def _uploaded(server, browser, path, timeout):
    """A new page of Your data with ``path`` uploaded and read."""
    ctx, page = _page(browser)
    page.set_default_timeout(timeout)
    page.goto(server + "/upload")
    _wait_idle(page)
    page.locator("input[type=file]").first.set_input_files(str(path))
    page.get_by_text("What was read").wait_for()
    _wait_idle(page)
    return ctx, page


def test_a_million_rows_learned_in_the_background_and_drawn_as_a_density(server, browser, big_csv):
    ctx, page = _uploaded(server, browser, big_csv, 180_000)
    page.get_by_role("button", name="Learn", exact=True).click()
    page.get_by_text("learning in the background").wait_for()
    # the page stays usable meanwhile: a widget answers while the model learns
    page.get_by_text("Reading options (detected automatically)").click()
    page.get_by_text("Rows learned").wait_for()
    _wait_idle(page)
    assert _metric(page, "Rows learned") == "1,000,000"
    assert int(_metric(page, "#clusters")) >= 2
    page.get_by_text("All 1,000,000 rows as a density image").wait_for()
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    assert _plot_types(page)[:1] == ["heatmap"] and "scattergl" in _plot_types(page)
    _shot(page, "your_csv_01_density_1M")
    # a million noisy rows: every row's network joined the paper's clusters; the samples' answer is one click away
    every = int(_metric(page, "#clusters"))
    warning = page.get_by_text("joined clusters that it keeps apart on 5 samples of 20,000 rows")
    warning.wait_for()
    assert "choosing the samples under Answer above" in warning.inner_text()
    page.get_by_text("On the samples (5 × 20,000 rows):").wait_for()
    page.get_by_text("on 5 samples of 20,000 rows (the one the others agree with most)").click()
    page.get_by_text("On all rows:").wait_for()
    _wait_idle(page)
    assert _metric(page, "Rows learned, each sample") == "20,000" and int(_metric(page, "#clusters")) != every
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    _shot(page, "your_csv_01b_samples_answer_1M")
    page.get_by_text("Clusters as the rows were learned").click()
    page.locator(".js-plotly-plot").last.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    _shot(page, "your_csv_01c_clusters_as_the_rows_were_learned_1M")
    ctx.close()


def test_a_model_from_cae_learn_opened_with_a_sample(server, browser, big_csv, tmp_path):
    model = tmp_path / "m.npz"
    r = subprocess.run([sys.executable, "-m", "cae", "learn", str(big_csv), "--scale", "minmax", "--out", str(model)])
    assert r.returncode == 0
    sample = tmp_path / "sample.csv"
    with open(big_csv) as src, open(sample, "w") as out:
        for _ in range(200_001):
            out.write(src.readline())
    ctx, page = _uploaded(server, browser, sample, 120_000)
    page.get_by_text("A saved model (.npz from this page)").click()
    _wait_idle(page)
    page.locator("input[type=file]").nth(1).set_input_files(str(model))
    page.get_by_text("A CAE model:").wait_for()
    page.get_by_text("rows are scaled the same way").wait_for()
    _wait_idle(page)
    page.get_by_role("button", name="Label", exact=True).click()
    page.get_by_text("Rows labelled").wait_for()
    _wait_idle(page)
    assert _metric(page, "Rows labelled") == "200,000"
    page.get_by_text("All 200,000 rows as a density image").wait_for()
    page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    assert _plot_types(page)[0] == "heatmap"
    _shot(page, "your_csv_02_cae_learn_model_with_a_sample")
    ctx.close()

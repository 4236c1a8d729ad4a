"""What a newcomer reads, in a real browser at 1400×900: Home's "How to use it" with every page and the registry's
algorithms, and the teacher's page saying where the classes of another folder are when a setting chose this store.
Screenshots: 60_home_how_to_use_it.png, 61_teacher_classes_elsewhere.png."""

import os

import pytest
from support.browser import _classroom_page, _scroll_to, _shot, _start_server, _stop, _wait_idle

from cae.classroom.sqlite import SQLiteStore
from cae.registry import names_in_words

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server_with_classes_elsewhere(tmp_path_factory):
    """An app whose classroom store CAE_CLASSROOM_URL names, with a class file in the usual folder beside it."""
    base = tmp_path_factory.mktemp("elsewhere")
    usual = base / "xdg" / "cae-explorer"
    usual.mkdir(parents=True)
    SQLiteStore(usual / "classroom.sqlite3").create_room()
    env = dict(
        os.environ,
        XDG_DATA_HOME=str(base / "xdg"),
        CAE_CLASSROOM_URL="sqlite:///" + str(base / "here.sqlite3"),
    )
    proc, url = _start_server(env=env)
    yield url, usual / "classroom.sqlite3"
    _stop(proc)


def test_home_and_the_teacher_page_tell_a_newcomer(server_with_classes_elsewhere, browser):
    url, other = server_with_classes_elsewhere
    ctx, page = _classroom_page(browser)
    page.goto(url)
    page.get_by_text("How to use it").first.wait_for()
    _wait_idle(page)
    how = page.locator("[data-testid='stMarkdownContainer']").filter(has_text="How to use it").first
    text = how.inner_text()
    assert "Lineage" in text and names_in_words() in text, text
    _scroll_to(page, how)
    _shot(page, "60_home_how_to_use_it")
    page.goto(url + "/classroom")
    page.get_by_role("button", name="Start a class").click()
    said = page.get_by_text("Classes are also kept in").first
    said.wait_for()
    _wait_idle(page)
    assert str(other) in said.inner_text() and "CAE_CLASSROOM_URL names its store" in said.inner_text()
    _scroll_to(page, said)
    _shot(page, "61_teacher_classes_elsewhere")
    ctx.close()

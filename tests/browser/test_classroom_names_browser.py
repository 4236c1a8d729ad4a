"""Classroom nicknames as a browser renders them: a student's own name in the Markdown header, the
teacher's "Who is here" list, the answers chart's hover, and a 10,000-character paste into the nickname
field (issue 25, item 10). Screenshots go to test-output/screenshots/5x_classroom_names_*.png."""

import time

import pytest
from support.browser import SHOTS, _wait_idle, chromium

from cae.classroom import open_store

pytestmark = pytest.mark.browser

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"
#: what Streamlit's Markdown would render as something else if a name were not escaped for it
MARKUP = ["www.example.org", '=HYPERLINK("http://a","b")', ":material/warning:", ":smile:", ":red[x]"]
MARKUP += ['Jo "JJ" & <b>Co</b>', "$x^2$ a@b.co", "**bold** [l](http://y)", FAMILY]
#: elements that rendered markup would have made (links, icons, emoji images, maths, coloured text, HTML)
RENDERED = "a, img, b, strong, em, code, del, .katex, [data-testid='stIconMaterial'], span, svg"


def _shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def test_classroom_names_render_as_typed_in_a_browser(classroom_server):
    url, url_store = classroom_server, classroom_server.store
    with chromium() as browser:
        ctx = browser.new_context(viewport={"width": 1400, "height": 900})
        teacher = ctx.new_page()
        teacher.set_default_timeout(60000)
        teacher.goto(url + "/classroom")
        _wait_idle(teacher)
        teacher.get_by_role("button", name="Start a class").click()
        teacher.get_by_text("Students open this link").wait_for()
        _wait_idle(teacher)
        code = teacher.url.split("room=")[1][:6]

        # a 10,000-character paste into the nickname field joins with its first 24 characters
        sctx = browser.new_context(viewport={"width": 1400, "height": 900})
        s = sctx.new_page()
        s.set_default_timeout(60000)
        s.goto(url + f"/classroom?room={code}")
        _wait_idle(s)
        box = s.get_by_role("textbox", name="Your nickname")
        box.fill(FAMILY * 2000)  # 10,000 code points
        assert len(box.input_value()) == 10_000  # the field keeps the paste (it used to refuse it)
        s.get_by_role("button", name="Join").click()
        s.get_by_text("you are").first.wait_for()
        _wait_idle(s)
        head = s.locator("h2", has_text="you are")
        assert head.inner_text().endswith("you are " + FAMILY * 24)

        # each name of the issue, as its student's page shows it: the text as typed, no element made of it
        store = open_store(url_store)
        for name in MARKUP:
            sid = store.join(code, name).sid
            s.goto(url + f"/classroom?room={code}&me={sid}")
            _wait_idle(s)
            strong = s.locator("h2", has_text="you are").locator("strong")  # **name**: the only markup
            shown = strong.inner_text().replace("\u2060", "")  # the escaping's invisible word joiners
            assert shown == store.student(code, sid).nickname, (name, strong.inner_html())
            assert strong.locator(RENDERED).count() == 0, (name, strong.inner_html())
            if name == ":material/warning:":
                _shot(s, "50_classroom_names_student_header")

        # the teacher's "Who is here": plain text, every name as stored, nothing rendered
        teacher.get_by_text("Who is here").click()  # the list refreshes itself every 5 s
        roster = teacher.locator('ul[aria-label="Students present"]')
        roster.wait_for(state="visible")
        stored = [st.nickname for st in store.students(code)]
        listed = sorted(stored, key=str.casefold)

        def shown():
            return [li.text_content() for li in roster.locator("li").all()]

        deadline = time.monotonic() + 20  # the last student joined just now: the list shows them at its next refresh
        while shown() != listed and time.monotonic() < deadline:
            teacher.wait_for_timeout(250)
        assert shown() == listed
        assert roster.locator("li *").count() == 0, roster.inner_html()  # each name is text only
        _shot(teacher, "51_classroom_names_who_is_here")

        # the chart's hover, names on: every name as stored (quotes as quotes, no &quot;, no tag rendered)
        teacher.get_by_role("button", name="Ask the class").click()
        teacher.get_by_role("button", name="Reveal").wait_for()
        q = store.poll(code).question
        for st in store.students(code):
            store.answer(code, st.sid, q.qid, (0, False, False))
        teacher.get_by_text("Names", exact=True).click()
        teacher.get_by_text(f"{len(stored)} answers from").wait_for(timeout=30000)
        _wait_idle(teacher)
        teacher.locator(".js-plotly-plot .barlayer .point path").first.hover(force=True)  # under the drag layer
        label = teacher.locator(".js-plotly-plot .hoverlayer .hovertext")
        label.wait_for()
        lines = [t.text_content() for t in label.locator("tspan.line").all()]
        assert lines == stored, lines
        _shot(teacher, "52_classroom_names_chart_hover")
        ctx.close()
        sctx.close()

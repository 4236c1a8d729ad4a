"""The navigation is always the nine pages (issue 44, item 4), in a real browser: a teacher's page on one of two app
processes behind the recipe's nginx (with Redis); that process is killed (SIGKILL); the page reconnects through
nginx to the other process, which has never run a page (a fresh process's first run); every navigation the page
shows meanwhile, however briefly, and its sidebar at the end must be exactly the app's nine pages.

A fresh process's first run of a page used to show, before app.py's navigation, one that listed the files of
``pages/`` (the app's glue modules among them). app.py now turns Streamlit's pages folder off as the server loads it,
and ``pages/`` holds the page files alone (the glue is ``cae/streamlit_glue/``).
Screenshot: test-output/screenshots/7d_classroom_sidebar_after_kill.png.
"""

import urllib.request

import pytest
from support.browser import _shot, _wait_idle
from support.classroom_browser import cookie_header, page_of, start_class
from support.servers import RedisServer, redis_binary

pytestmark = pytest.mark.browser

#: the app's navigation, as app.py draws it
NINE = [
    "Home",
    "Playground",
    "Explain a step",
    "Your data",
    "Continual learning",
    "Compare algorithms",
    "Lineage: two families to CAE",
    "Experiments",
    "Classroom",
]


def _upstream(url, page):
    req = urllib.request.Request(url + "/_stcore/health", headers={"Cookie": cookie_header(page)})
    with urllib.request.urlopen(req, timeout=30) as r:
        return int(r.headers.get("X-CAE-Upstream").rsplit(":", 1)[-1])


#: a script that keeps, in ``window.__caeNavs``, every list of page names the sidebar shows from now on
WATCH_SIDEBAR = """() => {
  window.__caeNavs = [];
  const names = () => [...document.querySelectorAll("[data-testid='stSidebarNavLink']")]
    .map(a => a.innerText.trim().split("\\n").pop().trim());
  const note = () => {
    const now = names();
    const last = window.__caeNavs[window.__caeNavs.length - 1];
    if (now.length && JSON.stringify(now) !== JSON.stringify(last)) window.__caeNavs.push(now);
  };
  new MutationObserver(note).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def _sidebar_pages(page):
    """The page names the sidebar's navigation lists, in order."""
    nav = page.locator("[data-testid='stSidebarNav']")
    nav.wait_for(state="attached")
    links = nav.locator("[data-testid='stSidebarNavLink']").all_inner_texts()
    return [t.strip().split("\n")[-1].strip() for t in links]  # (the icon's name comes first, as text)


def test_classroom_sidebar_lists_the_nine_pages_after_its_process_is_killed(browser, tmp_path):
    from cae.classroom.deploy import Deployment, nginx_binary

    if nginx_binary() is None or redis_binary() is None:
        pytest.skip("nginx or redis-server is not installed here (.ci/run installs both)")
    redis = RedisServer(tmp_path / "redis", persist=True)
    dep = Deployment(2, redis.url, folder=tmp_path / "nginx")
    try:
        t, _ = start_class(browser, dep.url)
        assert _sidebar_pages(t) == NINE  # before: the app's own navigation
        victim = dep.ports().index(_upstream(dep.url, t))
        t.evaluate(WATCH_SIDEBAR)  # every navigation the page shows from here on, however briefly
        dep.kill(victim)  # SIGKILL: the page's session dies with its process
        t.wait_for_function("() => !document.body.innerText.includes('Connecting')", timeout=90000)
        _wait_idle(t)
        assert _upstream(dep.url, t) != dep.ports()[victim]  # reconnected to the other process
        t.get_by_role("button", name="Ask the class", exact=False).wait_for()
        _shot(t, "7d_classroom_sidebar_after_kill")
        shown = t.evaluate("window.__caeNavs")
        assert _sidebar_pages(t) == NINE and shown and all(nav == NINE for nav in shown), shown
    finally:
        dep.stop()
        redis.stop()


def test_streamlits_scripts_load_from_nginx_when_no_app_process_answers(browser, tmp_path):
    """Streamlit's own files come from nginx's disk, not from an app process: with every process killed, a page
    still loads the chart's script (its import succeeds, so the type nginx gives it is one a browser runs as a
    module). Served by a process, a script cut off as that process died stayed failed in the page until a reload:
    a teacher killed while the page loaded Plotly's script (4.7 MB) had "TypeError: Failed to fetch dynamically
    imported module …PlotlyChart….js" where the class's chart should be (net::ERR_CONTENT_LENGTH_MISMATCH; seen
    with the teacher's network slowed, beside a busy machine)."""
    from cae.classroom.deploy import Deployment, nginx_binary, streamlit_static

    if nginx_binary() is None:
        pytest.skip("nginx is not installed here (.ci/run installs it)")
    chart_script = next((streamlit_static() / "js").glob("PlotlyChart.*.js")).name
    dep = Deployment(2, "sqlite:///" + str(tmp_path / "classroom.sqlite3"), folder=tmp_path / "nginx")
    t = page_of(browser)
    try:
        t.goto(dep.url + "/classroom")  # no chart on it yet: its script is not loaded
        _wait_idle(t)
        loaded = t.evaluate("() => performance.getEntriesByType('resource').map(e => e.name)")
        assert not any(chart_script in u for u in loaded)
        for i in range(2):
            dep.kill(i)
        said = t.evaluate("u => import(u).then(() => 'loaded', e => String(e))", f"{dep.url}/static/js/{chart_script}")
        assert said == "loaded"
    finally:
        t.context.close()
        dep.stop()

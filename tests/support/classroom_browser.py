"""What the classroom's real-browser tests share: a page of its own browser context (its own cookies: another
device), a teacher who starts a class, a student who joins one, the step a page shows, and the store's state
watched while a test runs (to prove it never went backwards)."""

import threading
import time

from support.browser import _wait_idle


def page_of(browser, width=1400, height=900, **kw):
    """A page in a browser context of its own (another device: its own cookies)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, **kw)
    page = ctx.new_page()
    page.set_default_timeout(60000)
    return page


def start_class(browser, url, **kw):
    """A teacher's page that started a class: ``(page, code)``."""
    t = page_of(browser, **kw)
    t.goto(url + "/classroom")
    _wait_idle(t)
    t.get_by_role("button", name="Start a class").click()
    t.get_by_text("Students open this link").wait_for()
    _wait_idle(t)
    return t, t.url.split("room=")[1][:6]


def join_class(browser, url, code, nick, cookies=None, **kw):
    """A student's page that joined class ``code`` as ``nick`` (its browser holding ``cookies`` first: {name: value})."""
    s = page_of(browser, **kw)
    if cookies:
        s.context.add_cookies([{"name": k, "value": v, "url": url} for k, v in cookies.items()])
    s.goto(url + f"/classroom?room={code}")
    _wait_idle(s)
    s.get_by_role("textbox", name="Your nickname").fill(nick)
    s.get_by_role("button", name="Join").click()
    s.get_by_text("you are").first.wait_for()
    _wait_idle(s)
    return s


def step_n(page, n):
    """On the Playground: Step N with N = ``n``."""
    box = page.get_by_label("N for Step N", exact=True)
    box.fill(str(n))
    box.press("Enter")
    _wait_idle(page)
    page.get_by_role("button", name="Step N").click()


def cookie_header(page):
    """The cookies of a page's browser context, as a Cookie header (to ask nginx which process it is sent to)."""
    return "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())


class StoreWatch(threading.Thread):
    """The class's ``(version, t)`` every ``every`` seconds while a test runs (``seen``; ``stop()`` ends it)."""

    def __init__(self, store, code, every=0.05):
        super().__init__(daemon=True)
        self.store, self.code, self.every = store, code, every
        self.seen = []
        self._stop_event = threading.Event()
        self.start()

    def run(self):
        while not self._stop_event.is_set():
            try:
                p = self.store.poll(self.code)
                self.seen.append((p.version, int(p.state.get("t", 0))))
            except Exception:  # noqa: BLE001 - a store away for a moment: nothing to note
                pass
            time.sleep(self.every)

    def stop(self):
        self._stop_event.set()
        self.join(5)
        return self.seen

    def ts(self):
        """The class's t each time it changed."""
        out = []
        for _, t in self.seen:
            if not out or out[-1] != t:
                out.append(t)
        return out

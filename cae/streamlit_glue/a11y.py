"""The keyboard on every page: a "Skip to the controls" link first in the tab order, and the focus put where the
next action is after a rerun (WCAG 2.2: 2.4.1 bypass blocks, 2.4.3 focus order).

A Streamlit rerun re-creates what changed: the button just pressed may be gone (Reveal turns into *Next sample ▶*,
Pause hands the player's frame back to the still view) and the focus then falls to the page's ``<body>``: a
keyboard user starts again from the top (57 Tabs to *Next sample* before this module). One small script,
installed once per browser tab by :func:`keyboard_support` (``cae.streamlit_glue.common.accessible_style`` calls it on every
run of every page, from app.py), does two things:

- it keeps a link "Skip to the controls" first in the page (before Streamlit's own "Skip to main content"):
  Enter on it focuses the page's first control — what :func:`skip_to` named for this run, else the first control
  of the main area (headings' anchor links and the charts' toolbars are not controls);
- after a page asked for it with :func:`focus_after`, it focuses the first of the named controls that is on the
  page, once, when the run that follows the action has finished, and only if the focus was lost (on
  ``<body>``) or is on the control pressed.

A page speaks to the script through a style-only element (Streamlit sends those to its event container: nothing
is laid out, so no element after it moves and no open expander closes): two CSS custom properties on ``:root``,
``--cae-focus`` (selectors separated by ``|``) and ``--cae-focus-seq`` (a number that changes with every request;
the script acts once per number), and ``--cae-skip`` for the skip link's target.
"""

from __future__ import annotations

import re

import streamlit as st

#: the session key of a request not yet delivered (made just before ``st.rerun()``: sent again by the next run)
_PENDING = "_a11y_focus_pending"
_SEQ = "_a11y_focus_seq"
#: what a selector handed to the script may hold (it travels inside a CSS string, split at "|")
_SAFE = re.compile(r"^[\w\-.#\[\]=:>*() ,]+$")

#: The script (plain JavaScript, run in the page: ``st.html(..., unsafe_allow_javascript=True)``). Once per tab.
KEYBOARD_JS = r"""
(function () {
  if (window.__caeKeyboard) return;
  window.__caeKeyboard = true;
  const doc = document;
  const NOT_CONTROLS = "[data-testid=stHeaderActionElements], .modebar, [data-testid=stElementToolbar], "
    + "[class*=st-key-a11y_], [class*=st-key-fig_summary]";
  const CONTROLS = "button, a[href], input, select, textarea, summary, [role=tab], [tabindex]:not([tabindex='-1'])";
  function prop(name) {
    const v = getComputedStyle(doc.documentElement).getPropertyValue(name).trim();
    return v.replace(/^["']|["']$/g, "");
  }
  function usable(e) {
    if (e.disabled || e.tabIndex < 0 && !/^(INPUT)$/.test(e.tagName)) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 || r.height > 0 || e.matches("input[type=radio], input[type=checkbox], input[type=range]");
  }
  function first(selectors) {
    for (const s of selectors) {
      if (!s) continue;
      for (const e of doc.querySelectorAll(s)) if (usable(e)) return e;
    }
    return null;
  }
  function firstControl() {
    const main = doc.querySelector("[data-testid=stMain]");
    if (!main) return null;
    for (const e of main.querySelectorAll(CONTROLS)) {
      if (!e.closest(NOT_CONTROLS) && usable(e) && e.tabIndex >= 0) return e;
    }
    return null;
  }
  function skipLink() {
    if (doc.getElementById("cae-skip-controls")) return;
    const style = doc.createElement("style");
    style.textContent = "#cae-skip-controls { position: fixed; left: 8px; top: -200px; z-index: 1000070;"
      + " background: #ffffff; color: #171615; padding: 8px 12px; font-size: 14px; font-weight: 600;"
      + " border-radius: 0.5rem; text-decoration: none; }"
      + " #cae-skip-controls:focus { top: 8px; outline: 2px solid #171615; outline-offset: 2px; }";
    doc.head.appendChild(style);
    const a = doc.createElement("a");
    a.id = "cae-skip-controls";
    a.href = "#stMain";
    a.textContent = "Skip to the controls";
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      skipAsked = Date.now();  // done by the timer once the page has settled (a run may be drawing it anew)
    });
    doc.body.prepend(a);
  }
  function skip() {
    if (!skipAsked || quiet < 3) return;
    // a widget still loading its code shows a placeholder (stSkeleton) for a second or two after the run: wait
    // for the page's own first control rather than settle for a later one (up to 5 s)
    const named = first(prop("--cae-skip").split("|"));
    if (!named && doc.querySelector("[data-testid=stMain] [data-testid=stSkeleton]") && Date.now() - skipAsked < 5000) return;
    skipAsked = 0;
    const target = named || firstControl() || doc.querySelector("[data-testid=stMain]");
    if (target) target.focus();
  }
  function idle() {
    const app = doc.querySelector("[data-testid=stApp]");
    return !app || !app.dataset.testScriptState || app.dataset.testScriptState === "notRunning";
  }
  let done = "", since = 0, pressed = null, skipAsked = 0, quiet = 0;
  doc.addEventListener("click", function (ev) { pressed = ev.target.closest ? ev.target.closest("button") : null; }, true);
  function deliver() {
    const seq = prop("--cae-focus-seq");
    if (!seq || seq === done) { since = 0; return; }
    if (quiet < 3) return;  // the run that follows the action has not finished (0.3 s without one)
    since = since || Date.now();
    const target = first(prop("--cae-focus").split("|"));
    const now = doc.activeElement;
    const lost = !now || now === doc.body || !now.isConnected || now === pressed || now === target;
    if (target && lost) {
      target.focus();
      done = seq;
    } else if (!lost || Date.now() - since > 8000) {
      done = seq;  // the reader went on elsewhere, or the control never came: leave the focus where it is
    }
  }
  skipLink();
  setInterval(function () {
    quiet = idle() ? quiet + 1 : 0;
    skipLink();
    skip();
    deliver();
  }, 100);
})();
"""


def _checked(selectors):
    for s in selectors:
        if not _SAFE.match(s):
            raise ValueError(f"not a selector the focus script takes: {s!r}")
    return "|".join(selectors)


def keyboard_support():
    """Install the keyboard script (once per tab; a hidden element on every run, so nothing after it moves) and
    send again a focus request made just before the last ``st.rerun()``."""
    with st.container(key="a11y_keyboard"):
        st.html(f"<script>{KEYBOARD_JS}</script>", unsafe_allow_javascript=True)
    pending = st.session_state.pop(_PENDING, None)
    if pending:
        _send(*pending)


def _send(selectors, seq):
    st.html(f'<style>:root {{ --cae-focus: "{selectors}"; --cae-focus-seq: {int(seq)}; }}</style>')


def focus_after(*selectors):
    """Put the focus on the first of ``selectors`` (CSS selectors, most wanted first) once this run, or the run
    a following ``st.rerun()`` starts, has finished. Call it where the action is handled; the request is kept
    for the next run too (a run that ends in ``st.rerun()`` may never reach the browser), and the script acts on
    it once."""
    wanted = _checked(selectors)
    seq = st.session_state.get(_SEQ, 0) + 1
    st.session_state[_SEQ] = seq
    st.session_state[_PENDING] = (wanted, seq)
    _send(wanted, seq)


def skip_to(*selectors):
    """Where "Skip to the controls" goes on this page (this run): the first of ``selectors`` that is on the page;
    without it (or when none is), the main area's first control."""
    st.html(f'<style>:root {{ --cae-skip: "{_checked(selectors)}"; }}</style>')


def key_selector(key, control="button"):
    """The CSS selector of the widget with key ``key``: its ``control`` element (``"button"``, ``"input"``,
    ``"input[type=radio]"`` ...).

    >>> key_selector("b_quiz_next")
    '.st-key-b_quiz_next button'
    """
    return f".st-key-{key} {control}"

"""The app's one way to make a Streamlit fragment: :func:`fragment`, ``st.fragment`` called in a container of its own
that the page's full run draws.

Why: a fragment's own container is a delta of the full run tagged with the fragment's id. When a rerun of that
fragment was waiting (its ``run_every`` timer asked while the page ran, or the server pushed one) it starts the
moment the full run ends, and Streamlit 1.67 then empties its queue of the messages not yet sent that carry the
fragment's id (``ForwardMsgQueue.clear(fragment_ids_this_run=...)``) — the full run's container of that fragment
among them. The browser, told that the full run finished, removes every element that run did not send, which
shifts the later elements of the same parent up by one place; the fragment's run then writes its container at its
old place, over the element that moved there. Seen on the teacher's page under load (CI, one run in ~20 on a busy
machine): the row of Step 1 and Ask the class was replaced by the empty container of :func:`follow_class` and came
back only with the next full run. A container drawn by the full run (no fragment id) is never dropped, and the
fragment's container is its only child: nothing moves. ``tests/browser/test_fragment_browser.py`` shows the loss
with ``st.fragment`` and none with :func:`fragment`; ``tests/unit/test_fragment_use.py`` keeps every page on it.
"""

from __future__ import annotations

import functools

import streamlit as st


def fragment(func=None, *, run_every=None):
    """``st.fragment(func, run_every=...)``, each call drawn inside a ``st.container()`` of the caller's run.

    Used as ``@fragment``, ``@fragment(run_every=2.0)`` or ``fragment(run_every=1.0)(func)``; the call returns
    what the fragment returns."""
    if func is None:
        return functools.partial(fragment, run_every=run_every)
    inner = st.fragment(func, run_every=run_every)

    @functools.wraps(func)
    def call(*args, **kwargs):
        with st.container():
            return inner(*args, **kwargs)

    return call

"""The charts' toolbar (Plotly's modebar): only buttons that do something.

plotly.js shows, unless told otherwise, a **Share chart…** button (``sendChartToCloud``): it uploads the figure to
Plotly Cloud, which needs an account and a server address this app has not, so plotly.js logs an error and nothing
happens. It also offers **Box Select** and **Lasso Select** on every scatter plot: they select points nobody reads
where the page does not listen for a selection (the Playground's player redraws the next frame over them).
Streamlit's own charts (``st.plotly_chart``) leave all three out: it turns ``showSendToCloud`` off and removes the
selection tools unless ``on_select`` is set. The charts drawn by plotly.js outside Streamlit — the Playground's
player and the animated HTML a teacher downloads for slides — take :func:`config`.

Examples
--------
>>> config()["showSendToCloud"], config()["modeBarButtonsToRemove"]
(False, ['sendChartToCloud', 'select2d', 'lasso2d'])
>>> config(responsive=True)["responsive"]
True
"""

from __future__ import annotations

__all__ = ["DEAD_BUTTONS", "config"]

#: Plotly's modebar buttons that do nothing on a chart drawn outside Streamlit (see the module's docstring)
DEAD_BUTTONS = ("sendChartToCloud", "select2d", "lasso2d")


def config(**extra) -> dict:
    """plotly.js's ``config`` for a chart drawn outside Streamlit: no logo, none of :data:`DEAD_BUTTONS`, and
    ``extra`` (``responsive=True`` ...)."""
    return {"displaylogo": False, "showSendToCloud": False, "modeBarButtonsToRemove": list(DEAD_BUTTONS), **extra}

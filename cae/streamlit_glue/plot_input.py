"""Clicks and drawings on a Plotly chart of the page, sent back to Python: a small bidirectional component.

``st.plotly_chart(on_select=...)`` reports selected *points* only: a click on empty space selects nothing.
This component (Streamlit's ``st.components.v2``: inline JavaScript, nothing downloaded, works offline)
finds the chart with a given key on the page and reports

- ``click``: ``{"x": …, "y": …}``, the data coordinates under a click anywhere in the plot area (a press and
  release within 4 pixels; the chart's ``dragmode`` stays what it is, so a drag still zooms), while the mode
  is ``"click"``;
- ``region``: Plotly's own box or lasso selection (``{"kind": "box", "x": [x0, x1], "y": [y0, y1]}`` or
  ``{"kind": "lasso", "x": [...], "y": [...]}``), whatever points it holds — an empty box too.

The coordinates come from the plot area's box on screen and the axes' ranges (public parts of Plotly's
graph element). Give the chart a ``selectionrevision`` that changes after each region, so that Plotly's
selection outline goes once the region is drawn by the page. Everything the browser sends is checked by
the caller (:func:`cae.app.regions.region_from_selection`, :func:`cae.app.regions.click_position`).
"""

from __future__ import annotations

import streamlit as st

_JS = r"""
export default function (component) {
  const { data, setTriggerValue } = component;
  const target = String(data.target);
  // The latest mount's setter and mode, per chart: every listener reads them when an event comes (a closure
  // of an earlier mount would send an old mode), and one timer per chart keeps the listeners attached.
  const inputs = (window.__caePlotInputs = window.__caePlotInputs || {});
  const first = !inputs[target];
  inputs[target] = { setTriggerValue, mode: String(data.mode) };
  const selector = ".st-key-" + target + " .js-plotly-plot";
  function hook() {  // every match: while a rerun draws the chart anew, the old one may still be there
    document.querySelectorAll(selector).forEach(listen);
  }
  function listen(gd) {
    if (typeof gd.on !== "function" || !gd._fullLayout) return;
    if (!gd.__caePointer) {  // DOM listeners: they stay as long as the element
      gd.__caePointer = true;
      let down = null;
      gd.addEventListener("pointerdown", (e) => {
        const area = e.target && e.target.closest ? e.target.closest(".nsewdrag") : null;
        down = area && e.button === 0 ? { x: e.clientX, y: e.clientY, t: Date.now(), area } : null;
      }, true);
      gd.ownerDocument.addEventListener("pointerup", (e) => {
        const d = down;
        down = null;
        const input = inputs[target];
        if (!d || input.mode !== "click" || !gd.isConnected || !gd._fullLayout) return;
        if (Math.hypot(e.clientX - d.x, e.clientY - d.y) > 4 || Date.now() - d.t > 1000) return;
        const box = d.area.getBoundingClientRect();
        const xr = gd._fullLayout.xaxis.range, yr = gd._fullLayout.yaxis.range;
        if (!box.width || !box.height || !xr || !yr) return;
        const x = xr[0] + ((e.clientX - box.left) / box.width) * (xr[1] - xr[0]);
        const y = yr[1] - ((e.clientY - box.top) / box.height) * (yr[1] - yr[0]);
        input.setTriggerValue("click", { x: x, y: y });
      }, true);
    }
    // Plotly's own events: drawing the chart anew (Plotly.newPlot) drops their listeners with their
    // emitter, so listen again whenever the emitter is a new one
    if (gd.__caeEmitter !== gd._ev) {
      gd.__caeEmitter = gd._ev;
      gd.on("plotly_selected", (ev) => {
        const input = inputs[target];
        if (!ev || input.mode === "click" || !gd.isConnected) return;
        if (ev.range && ev.range.x && ev.range.y) {
          input.setTriggerValue("region", { kind: "box", x: ev.range.x, y: ev.range.y });
        } else if (ev.lassoPoints && ev.lassoPoints.x && ev.lassoPoints.y) {
          input.setTriggerValue("region", { kind: "lasso", x: ev.lassoPoints.x, y: ev.lassoPoints.y });
        }
      });
    }
  }
  hook();
  if (first) setInterval(hook, 250);  // the chart may be drawn after this component, or drawn anew
}
"""

_component = st.components.v2.component("cae_plot_input", js=_JS, html="<span></span>")


def plot_input(target, mode, key, on_click, on_region):
    """Listen to the chart whose key is ``target``: clicks (``mode="click"``) or box/lasso selections.

    ``on_click`` / ``on_region`` are called (as widget callbacks, before the script reruns) with the
    event's value from ``st.session_state[key]``.
    """

    def _click():
        on_click((st.session_state.get(key) or {}).get("click"))

    def _region():
        on_region((st.session_state.get(key) or {}).get("region"))

    return _component(
        key=key,
        data={"target": str(target), "mode": str(mode)},
        on_click_change=_click,
        on_region_change=_region,
        height=0,
    )

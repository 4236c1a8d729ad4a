"""The stage: the network as the page. A square picture as large as the screen allows, its numbers, key and traces
beside it, the scrubber under it — the Playground's still view, its player and its quiz, in one layout.

The square's side is set in the browser, not by Python (the server does not know the screen): by the page's style,
the smaller of the screen's height less what sits above and below the stage (:data:`CHROME`) and the stage's width
less the side panel (:data:`SIDE`). The chart stretches into the square (``st.plotly_chart(height="stretch")``),
the player's frame takes the same size. ``present`` (a projector) hides the sidebar and the page's header, writes
every text at 20 px or more and lays the stage out to the screen it is on: a small script (:func:`stage_size`)
measures where the stage starts (the controls' row above it may take one line or two) and gives the square all the
height below it, or the width the side panel leaves; the side panel is as tall as the screen allows, its traces
taking what its numbers and key leave, and the scrubber goes under the square where the square leaves room there
(a screen narrower than it is tall for the two), else at the foot of the side panel. The same script tells the
server the square's side, so that the marks are drawn in proportion to it (:attr:`ViewOptions.px
<cae.app.view_options.ViewOptions>`).
"""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

#: px above and below the stage: the page's top padding, the title and its caption, the controls row, the scrubber
#: and the gaps between them (normal); the controls row and paddings alone (present: the scrubber is beside)
CHROME = {False: 204, True: 86}
#: the side panel's least width (px): the numbers two by two, the key, the traces
SIDE = {False: 400, True: 420}
#: the least height (px) the present mode leaves the side panel's traces; px between the stage and the screen's foot
PRESENT_TRACES_MIN, PRESENT_FOOT = 160, 8
#: at most this share of the square's side goes to the side panel when the panel's content does not fit
PRESENT_MAX_SHRINK = 0.12
#: the text size of the present mode (px): every text of the page at least this
PRESENT_FONT = 20


def _size(present):
    return f"min(calc(100vh - {CHROME[present]}px), calc(100cqw - {SIDE[present]}px))"


def stage_css(present=False):
    """The style of a page with a stage (written on every run: a style that came and went would move elements)."""
    net = _size(present)
    row = (
        ":is(.st-key-stage_row > [data-testid='stHorizontalBlock'],"
        " .st-key-stage_row > [data-testid='stLayoutWrapper'] > [data-testid='stHorizontalBlock'])"
    )
    css = [
        # the header's bar (the main menu) over the page's top, not a white band above it
        "header[data-testid='stHeader'] { background: transparent; pointer-events: none; }",
        "header[data-testid='stHeader'] * { pointer-events: auto; }",
        "[data-testid='stMainBlockContainer'] { padding: 0.75rem 1.5rem 4rem; max-width: none; }",
        "[data-testid='stMainBlockContainer'] [data-testid='stVerticalBlock'] { gap: 0.5rem; }",
        "[data-testid='stMainBlockContainer'] h1 { font-size: 1.6rem; padding: 0.1rem 0 0.3rem; }",
        f".st-key-stage {{ container-type: inline-size; --net: {net}; }}",
        f"{row} {{ flex-wrap: nowrap; gap: 1rem; }}",
        f"{row} > [data-testid='stColumn']:first-child"
        " { flex: 0 0 var(--net) !important; width: var(--net) !important; min-width: 0; }",
        f"{row} > [data-testid='stColumn']:last-child {{ flex: 1 1 0 !important; min-width: 0; }}",
        ".st-key-net { flex: none !important; width: var(--net) !important; height: var(--net) !important; position: relative; }",
        ".st-key-net > [data-testid='stElementContainer']:has(.stPlotlyChart)"
        " { flex: 1 1 auto !important; height: auto !important; min-height: 0; }",
        ".st-key-stage iframe[title*='cae_player'] { height: calc(var(--net) + 4px) !important; }",
        # a narrow screen (a phone, a zoomed page): the side panel under the picture, the picture the width
        f"@container (max-width: 760px) {{ .st-key-stage_row {{ --net: min(calc(100vh - {CHROME[present]}px), 100cqw); }}"
        f" {row} {{ flex-wrap: wrap !important; }}"
        f" {row} > [data-testid='stColumn']:last-child {{ flex: 1 1 100% !important; }} }}",
        # the controls' row: one line while its labels fit, else it wraps (a zoomed page, a narrow window), never
        # a label cut to "S…" (Step 1, Step N, Reset at 200 % zoom)
        ".st-key-controls [data-testid='stHorizontalBlock'] { flex-wrap: wrap; row-gap: 0.4rem; }",
        ".st-key-controls [data-testid='stColumn']:has([data-testid='stButton'], [data-testid='stCheckbox'])"
        " { min-width: max-content !important; }",
        ".st-key-controls [data-testid='stColumn']:has([data-testid='stNumberInput']) { min-width: 4.5rem !important; }",
        ".st-key-controls [data-testid='stColumn']:has([data-testid='stSelectbox']) { min-width: 8.8rem !important; }",
        # a button narrower than its label (a zoomed page) writes it on two lines rather than cut it
        "[data-testid='stMain'] button [data-testid='stMarkdownContainer'] { white-space: normal; overflow: visible;"
        " text-overflow: clip; }",
        "[data-testid='stMain'] button [data-testid='stMarkdownContainer'] p { white-space: normal; }",
        # the script that lays the stage out and tells the server its size: no room on the page
        "[data-testid='stLayoutWrapper']:has(> .st-key-stage_size), .st-key-stage_size { display: none !important; }",
        # the numbers beside the picture: compact, two by two
        ".st-key-side [data-testid='stMetric'] { padding: 0; }",
        ".st-key-side [data-testid='stMetricValue'] { font-size: 1.35rem; line-height: 1.2; }",
        ".st-key-side [data-testid='stMetricLabel'] { min-height: 0; }",
        ".st-key-side [data-testid='stMetricLabel'] p { font-size: 0.8rem; white-space: nowrap; }",
        ".st-key-side [data-testid='stHorizontalBlock'] { gap: 0.6rem; }",
    ]
    if present:
        css += _present_css()
    return "<style>" + "".join(css) + "</style>"


def _present_css():
    """The present mode's rules (a projector): no sidebar and no header, every text 20 px or more, a compact row of
    controls, and the side panel as tall as the screen leaves it (its traces taking the rest)."""
    return [
        "[data-testid='stSidebar'], [data-testid='stSidebarCollapsedControl'], header[data-testid='stHeader']"
        " { display: none !important; }",
        "[data-testid='stMainBlockContainer'] { padding: 0.5rem 0.75rem 2rem; }",
        f"html {{ font-size: {PRESENT_FONT}px; }}",
        # captions, labels, help texts and metric deltas are 0.875rem or less in Streamlit: 20 px at least
        "[data-testid='stMain'] :is([data-testid='stCaptionContainer'], [data-testid='stWidgetLabel'],"
        " [data-testid='stMetricLabel'], [data-testid='stMetricDelta'], [data-testid='stMarkdownContainer'],"
        " [data-testid='stSliderTickBar'], [data-testid='stSliderThumbValue'], [data-testid='stTooltipIcon'])"
        " :is(*, p) { font-size: 1rem !important; }",
        "[data-testid='stMain'] :is([data-testid='stCaptionContainer'], [data-testid='stMetricLabel'],"
        " [data-testid='stMetricDelta'], [data-testid='stSliderThumbValue'], [data-testid='stSliderTickBar'])"
        " { font-size: 1rem !important; }",
        # the title stays for a screen reader (the page's h1), unseen; so does the caption's line
        ".st-key-page_head { position: absolute !important; width: 1px; height: 1px; overflow: hidden;"
        " clip-path: inset(50%); }",
        # the controls' row compact: one line on a 1024-px projector
        ".st-key-controls [data-testid='stHorizontalBlock'] { gap: 0.45rem; }",
        ".st-key-controls button { padding-left: 0.55rem !important; padding-right: 0.55rem !important; }",
        ".st-key-controls [data-testid='stColumn']:has([data-testid='stSelectbox']) { min-width: 7.4rem !important; }",
        ".st-key-controls [data-testid='stColumn']:has([data-testid='stNumberInput']) { min-width: 3.9rem !important; }",
        # the side panel as tall as the screen leaves it (the script: --side-h), its traces taking the rest
        ":is(.st-key-side, [data-testid='stLayoutWrapper']:has(> .st-key-side))"
        " { flex: none !important; height: var(--side-h, auto) !important; }",
        ".st-key-side { gap: 0.35rem !important; }",
        ".st-key-side > .st-key-side_traces { flex: 1 1 0 !important; height: auto !important;"
        f" min-height: {PRESENT_TRACES_MIN}px; }}",
        ".st-key-side [data-testid='stMetricValue'] { font-size: 1.15rem; }",
        # "of 9,900" beside the count where it fits, not on a line of its own
        ".st-key-side [data-testid='stMetric'] > div { display: flex; flex-wrap: wrap; align-items: baseline;"
        " column-gap: 0.4rem; }",
        ".st-key-side [data-testid='stMetric'] > div > [data-testid='stMetricLabel'] { flex: 1 0 100%; }",
        # the numbers in one row that wraps: as many to a line as the side panel's width holds
        ".st-key-side [data-testid='stHorizontalBlock'] { flex-wrap: wrap !important; row-gap: 0.25rem; }",
        ".st-key-side [data-testid='stHorizontalBlock'] > [data-testid='stColumn']"
        " { flex: 1 1 auto !important; width: auto !important; min-width: max-content !important; }",
        ".st-key-stage_row { position: relative; }",
        ".st-key-stage iframe[title*='cae_player'] { height: calc(var(--side-h, var(--net)) + 4px) !important; }",
    ]


def write_style(present=False):
    st.html(stage_css(present))


#: The stage's script (``st.components.v2``: inline JavaScript in the page, nothing downloaded). In the present mode it
#: lays the stage out to the screen (a style element of its own, so that a rerun that draws the page anew keeps it):
#: the square's side ``--net`` (the height from the stage's top to the screen's foot, or the width the side panel
#: leaves), the side panel's height ``--side-h``, and the scrubber under the square where the square leaves room
#: there. In every mode it reports the square's side (px) to the server when it changes by 8 px or more.
_STAGE_JS = r"""
export default function (component) {
  const { data, setStateValue } = component;
  const w = window, doc = document;
  const s = (w.__caeStage = w.__caeStage || {});
  Object.assign(s, { set: setStateValue, present: !!data.present, side: Number(data.side) || 420,
    foot: Number(data.foot) || 8, under: Number(data.under) || 70, known: Number(data.px) || 0,
    maxShrink: Number(data.max_shrink) || 0 });
  if (s.reported === undefined || !s.known) s.reported = s.known;
  function scroller(e) {
    for (let p = e.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowY;
      if ((o === "auto" || o === "scroll") && p.scrollHeight > p.clientHeight) return p;
    }
    return doc.scrollingElement || doc.documentElement;
  }
  function sheet() {
    let el = doc.getElementById("cae-stage-layout");
    if (!el) { el = doc.createElement("style"); el.id = "cae-stage-layout"; doc.head.appendChild(el); }
    return el;
  }
  function layout() {
    const stage = doc.querySelector(".st-key-stage");
    const style = sheet();
    if (!stage) return;
    let css = "";
    if (s.present) {
      const sc = scroller(stage);
      const top = stage.getBoundingClientRect().top - (sc.getBoundingClientRect ? sc.getBoundingClientRect().top : 0)
        + (sc.scrollTop || 0);
      const H = Math.floor(w.innerHeight - Math.max(top, 0) - s.foot);
      const W = stage.clientWidth;
      // the side panel's content must fit its height: where it does not (its key wraps on more lines in a narrow
      // panel), the square gives up width to it, step by step, until it fits (again from the largest for a new size)
      const size = W + "x" + H;
      if (s.size !== size) { s.size = size; s.shrink = 0; }
      const panel = doc.querySelector(".st-key-side");
      if (panel && s.applied === s.net) {
        // how far its children reach past its foot (its traces give way first, down to their least height)
        const foot = panel.getBoundingClientRect().bottom;
        let over = 0;
        for (const c of panel.children) over = Math.max(over, c.getBoundingClientRect().bottom - foot);
        const most = s.maxShrink * Math.min(H, W - s.side - 16);
        if (over > 1 && s.shrink < most) s.shrink = Math.min(most, s.shrink + Math.min(96, Math.max(8, Math.ceil(over / 2))));
      }
      const net = Math.max(160, Math.floor(Math.min(H, W - s.side - 16) - s.shrink));
      s.net = net;
      css = ".st-key-stage { --net: " + net + "px !important; --side-h: " + H + "px; }";
      if (H - net >= s.under) {
        css += " .st-key-stage .st-key-history { position: absolute !important; left: 0; top: " + (net + 6) +
          "px; width: " + net + "px !important; }";
      }
    }
    if (style.textContent !== css) style.textContent = css;
    else s.applied = s.net;  // the layout asked for is the one on screen: the panel's fit can be judged
    // the square's side to the server once it has held for a few ticks (not at every step of a fit)
    const box = doc.querySelector(".st-key-net");
    const px = box ? Math.round(box.getBoundingClientRect().width) : 0;
    s.steady = px === s.lastPx ? (s.steady || 0) + 1 : 0;
    s.lastPx = px;
    // the first report at once (while the page's first run is still drawing: its rerun comes before anyone clicks),
    // once the present mode's layout is on screen; a later change once it has held for three ticks
    const settled = s.reported ? s.steady >= 3 : !s.present || s.applied === s.net;
    if (px >= 160 && settled && Math.abs(px - s.reported) >= 8) { s.reported = px; s.set("px", px); }
  }
  layout();
  if (!s.timer) {
    s.timer = w.setInterval(function () { w.__caeStage.layout(); }, 150);
    w.addEventListener("resize", function () { w.__caeStage.layout(); });
    // the stage appears while the page's first run draws it: look at once, not at the next tick
    new MutationObserver(function () {
      if (s.looking) return;
      s.looking = true;
      w.requestAnimationFrame(function () { s.looking = false; w.__caeStage.layout(); });
    }).observe(doc.body, { childList: true, subtree: true });
  }
  s.layout = layout;
}
"""

_stage_component = st.components.v2.component("cae_stage_size", js=_STAGE_JS, html="<span></span>")


def stage_size(present=False):
    """Mount the stage's script (:data:`_STAGE_JS`) and return the square's side (px) the browser last reported for
    this session (None before its first report: the figure is then drawn at the reference sizes, and again at the
    reported one)."""
    known = st.session_state.get("stage_px")

    def _reported():
        value = (st.session_state.get("stage_size_js") or {}).get("px")
        try:
            st.session_state.stage_px = max(160, min(int(value), 4000))
        except (TypeError, ValueError):
            pass

    with st.container(key="stage_size"):
        _stage_component(
            key="stage_size_js",
            data={
                "present": bool(present),
                "side": SIDE[True],
                "foot": PRESENT_FOOT,
                "under": 70,
                "max_shrink": PRESENT_MAX_SHRINK,
                "px": int(known or 0),
            },
            on_px_change=_reported,
            height=0,
        )
    return st.session_state.get("stage_px")


@contextmanager
def stage():
    """The stage's container (its style sizes the square: :func:`stage_css`)."""
    with st.container(key="stage"):
        yield


def columns():
    """The picture's column and the side panel's, side by side: ``(net, side)``."""
    with st.container(key="stage_row"):
        net, side = st.columns([1, 1], gap="small")
    return net, side.container(key="side")


def net_box():
    """The square the chart stretches into (``st.plotly_chart(..., height="stretch")``)."""
    return st.container(key="net")


#: Compare's grid: px above the networks (title, caption, the controls row) and per row (its name and the gap)
GRID_CHROME, GRID_ROW = 150, 38


def columns_for(n):
    """How many networks a row of the grid holds: two or three side by side, four in two rows of two."""
    return 2 if n in (2, 4) else 3


def grid_style(n, grid="cmp_grid", cell="cmp_net_", chrome=GRID_CHROME, per_row=None):
    """The style of a page of ``n`` networks side by side (Compare, the Lineage): a compact head, and each network
    in a square (a container keyed ``cell`` + its number, inside the container keyed ``grid``) as large as the screen
    lets every one of them be seen at once — its side the screen's height less ``chrome`` px shared by the rows, or
    the row's width shared by the columns, whichever is smaller."""
    cols = per_row or columns_for(n)
    rows = -(-n // cols)
    side = f"min(calc((100vh - {chrome}px) / {rows} - {GRID_ROW}px), calc((100cqw - {(cols - 1) * 16}px) / {cols}))"
    st.html(
        "<style>"
        "header[data-testid='stHeader'] { background: transparent; pointer-events: none; }"
        "header[data-testid='stHeader'] * { pointer-events: auto; }"
        "[data-testid='stMainBlockContainer'] { padding: 0.75rem 1.5rem 4rem; max-width: none; }"
        "[data-testid='stMainBlockContainer'] [data-testid='stVerticalBlock'] { gap: 0.5rem; }"
        "[data-testid='stMainBlockContainer'] h1 { font-size: 1.6rem; padding: 0.1rem 0 0.3rem; }"
        f".st-key-{grid} {{ container-type: inline-size; --cell: {side}; }}"
        f"[class*='st-key-{cell}'] {{ flex: none !important; width: var(--cell) !important;"
        " height: var(--cell) !important; }"
        f"[class*='st-key-{cell}'] > [data-testid='stElementContainer']"
        " { flex: 1 1 auto !important; height: auto !important; min-height: 0; }"
        "</style>"
    )

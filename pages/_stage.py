"""The stage: the network as the page. A square picture as large as the screen allows, its numbers, key and traces
beside it, the scrubber under it — the Playground's still view, its player and its quiz, in one layout.

The square's side is set by the page's style, not by Python (the server does not know the screen): the smaller
of the screen's height less what sits above and below the stage (:data:`CHROME`) and the stage's width less the
side panel (:data:`SIDE`). The chart stretches into the square (``st.plotly_chart(height="stretch")``), the
player's frame takes the same size. ``present`` (a projector) hides the sidebar and the page's header, writes every
text at 20 px or more and gives the square the whole height of the screen.
"""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

#: px above and below the stage: the page's top padding, the title and its caption, the controls row, the scrubber
#: and the gaps between them (normal); the controls row and paddings alone (present: the scrubber is beside)
CHROME = {False: 204, True: 86}
#: the side panel's least width (px): the numbers two by two, the key, the traces
SIDE = {False: 400, True: 560}
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
        # the numbers beside the picture: compact, two by two
        ".st-key-side [data-testid='stMetric'] { padding: 0; }",
        ".st-key-side [data-testid='stMetricValue'] { font-size: 1.35rem; line-height: 1.2; }",
        ".st-key-side [data-testid='stMetricLabel'] { min-height: 0; }",
        ".st-key-side [data-testid='stMetricLabel'] p { font-size: 0.8rem; white-space: nowrap; }",
        ".st-key-side [data-testid='stHorizontalBlock'] { gap: 0.6rem; }",
    ]
    if present:
        css += [
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
        ]
    return "<style>" + "".join(css) + "</style>"


def write_style(present=False):
    st.html(stage_css(present))


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

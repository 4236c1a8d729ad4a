"""Streamlit glue every page shares: the entry point, the kernel notice, explanation blocks, the
algorithm picker and link notices. Widgets in, package calls, nothing algorithmic."""

from __future__ import annotations

import streamlit as st

from .fragment import fragment

# Set by app.py. Streamlit runs a direct link to a page (say /playground) of a freshly started
# server as a legacy `pages/`-folder app, without app.py, and then keeps that mode for the whole
# process. Every page calls ensure_entrypoint() first: if app.py has not run in this process, it
# calls st.navigation once (which switches the process to the st.navigation mode) and reruns, so
# the same URL then goes through app.py.
ENTRYPOINT_SEEN = False


#: Page-wide CSS for accessibility (WCAG 2.1 AA; tests/browser/test_accessibility_browser.py audits every page with axe-core).
#: - Section headings are h2 (``st.header``), so that the levels go h1 -> h2 without a gap, as a screen reader's
#:   heading list expects; they keep the size they had as h3 (``st.subheader``) (the sidebar's h2s keep theirs).
#: - A network view in words (:func:`network_summary`, keys ``fig_summary...``) is read by a screen reader but not
#:   shown: the numbers beside the chart say the same.
#: - A keyboard user sees where the focus is, on every control (WCAG 2.2: 2.4.7 focus visible, 1.4.11 3:1 for what
#:   shows a control's state): a solid 2 px ring in the text colour (17:1 on white, 15:1 on the sidebar) around the
#:   focused button, link, tab or expander, where Streamlit draws a half-transparent red glow (2.1:1 on white); and
#:   around what shows a control whose own element is hidden: a toggle's or checkbox's label, a radio option, a
#:   slider's thumb, a selectbox's or number input's box (Streamlit gave these 1.15-1.2:1); and around whatever
#:   else takes the focus (a code block, a multiselect's chip, a table). A box the focus scrolls (the main area, a
#:   table) gets the ring inside its edge; a heading's anchor link, a chart's toolbar and an element's toolbar,
#:   invisible until hovered, show while they hold the focus.
#: - KaTeX pulls a subscript's 2 px "strut" (``.vlist-t2``) out to the right, a workaround for Safari: a formula
#:   then overflows its box by 2 px, which makes the box a scrollable region a keyboard cannot reach. Without
#:   the negative margin the formula fits its box.
#: - A formula fits its column: the explanations break long formulas into lines of at most 22 em
#:   (:func:`cae.app.explanations._lines`), and a box narrower than 22 em at KaTeX's size (1.21 em, 19.4 px: 426 px)
#:   scales its formulas down to fit, never below 14 px (a 308 px box; at a 200 % zoom of a 1400×900 window, 700 CSS
#:   px, the formulas' column of *Explain a step* is 349 px and they are 15.9 px). No formula then scrolls (a
#:   scrolling box that the keyboard cannot reach is a WCAG failure, and a cut formula hides its numbers).
ACCESSIBLE_CSS = (
    "<style>"
    "[data-testid='stMain'] [data-testid='stHeading'] h2 { font-size: 1.75rem; padding: 0.75rem 0 1rem; line-height: 1.2;"
    " letter-spacing: -0.005em; }"
    ".katex .vlist-t2 { margin-right: 0; }"
    "[data-testid='stMarkdown']:has(.katex-display) { container-type: inline-size; }"
    ".katex-display > .katex { font-size: clamp(14px, calc(100cqi / 22), 1.21em); }"
    "button:focus-visible, a:focus-visible, summary:focus-visible, [role='tab']:focus-visible,"
    " [data-testid='stCheckbox'] label:has(input:focus-visible), [data-testid='stRadioOption']:has(input:focus-visible),"
    " [data-testid='stSlider'] div:has(> div > input[type='range']:focus-visible),"
    " div[role='group']:has(input[role='combobox']:focus-visible),"
    " [data-testid='stNumberInputContainer']:has(input:focus-visible), [data-testid='stTextInputRootElement']:has(input:focus-visible),"
    " [tabindex='0']:not(input, textarea):focus-visible,"
    " .dvn-scroller:focus-visible, [data-testid='stMain']:focus-visible"
    " { outline: 2px solid #171615 !important; outline-offset: 2px; }"
    # inside the edge where a box around it cuts what is outside: tabs, expanders, the charts' toolbar buttons,
    # the input boxes, tables, the main area
    "summary:focus-visible, [role='tab']:focus-visible, .modebar-btn:focus-visible,"
    " div[role='group']:has(input[role='combobox']:focus-visible),"
    " [data-testid='stNumberInputContainer']:has(input:focus-visible), [data-testid='stTextInputRootElement']:has(input:focus-visible),"
    " [data-testid='stDataFrame'] :focus-visible, [data-testid='stMain']:focus-visible { outline-offset: -2px !important; }"
    "[data-testid='stHeaderActionElements'] a:focus-visible, .modebar:has(:focus-visible),"
    " .modebar:has(:focus-visible) .modebar-group, [data-testid='stElementToolbar']:has(:focus-visible)"
    " { opacity: 1 !important; transition: none !important; }"
    # the keyboard's script (cae/streamlit_glue/a11y.py) takes no room: its container and the wrapper around it (a flex item
    # of the page's column, which would add a 16 px gap)
    "[data-testid='stLayoutWrapper']:has(> .st-key-a11y_keyboard), .st-key-a11y_keyboard { display: none !important; }"
    "[class*='st-key-fig_summary'] { position: absolute !important; width: 1px !important; height: 1px !important;"
    " overflow: hidden; clip-path: inset(50%); white-space: nowrap; margin: -1px; padding: 0; border: 0; }"
    "</style>"
)

#: Styles every page shares (app.py writes them first on every run, so they never come and go):
#: a multiselect's chips wrap onto more lines instead of scrolling out of a narrow box ("petal_wid…",
#: "ASOINN(…" were cut at its edge at 1280×720); an empty container takes no room (a fragment that draws nothing
#: sits in one, ``cae/streamlit_glue/fragment.py``, and its wrapper, a flex item of the page's column, would add a 16 px gap)
SHARED_STYLE = (
    "<style>"
    "[data-testid='stLayoutWrapper']:has(> [data-testid='stVerticalBlock']:empty) { display: none; }"
    "[data-testid='stMultiSelectTagsContainer'] { flex-wrap: wrap !important; overflow: visible !important;"
    " height: auto !important; max-height: none !important; }"
    " [role='group']:has(> [data-testid='stMultiSelectTagsContainer'])"
    " { height: auto !important; max-height: none !important; min-height: 40px; }"
    "</style>"
)


def accessible_style():
    """The page-wide accessibility CSS (:data:`ACCESSIBLE_CSS`; style only, so it takes no room on the page) and the
    keyboard's script (:func:`cae.streamlit_glue.a11y.keyboard_support`: the skip link, the focus after an action)."""
    from .a11y import keyboard_support

    st.html(ACCESSIBLE_CSS)
    keyboard_support()


def network_summary(pg, key, then=""):
    """A Stepper's network view in words, for a screen reader (visually hidden; ``key`` is made unique here);
    ``then``: a sentence more (what else the view shows: the quiz's next sample)."""
    from cae.app.explanations import view_summary

    with st.container(key=f"fig_summary_{key}"):
        st.markdown(" ".join(filter(None, (view_summary(pg.model, pg.t, pg.record, len(pg.stream)), then))))


def data_table(fig, key, x_name="x", y_name="y"):
    """A chart's data as a table behind a toggle (its text alternative; built only when asked for)."""
    if st.toggle("Show the data as a table", key=f"w_{key}_table"):
        from cae.app import figures

        st.dataframe(figures.figure_table(fig, x_name=x_name, y_name=y_name), hide_index=False, height=300)


def shared_style():
    """Write :data:`SHARED_STYLE` (a style-only element: nothing shows)."""
    st.html(SHARED_STYLE)


def kernel_notice():
    """Say so while the compiled kernels are being prepared (app.py starts that after the first page is out):
    how far the compilation is and how long the rest should take, refreshed every few seconds."""
    from cae import _jit

    if _jit.status() == "preparing":
        with st.sidebar:
            _kernel_progress()


def kernel_notice_text(progress):
    """The sidebar's notice for :func:`cae._jit.progress` (None while nothing is known yet)."""
    from cae import _jit

    return (
        ":material/hourglass_top: Preparing the fast kernel — once per machine, in the background: "
        + _jit.describe_progress(progress)
        + ". Until it is ready everything works, but long runs are about 100× slower."
    )


@fragment(run_every=5)
def _kernel_progress():
    from cae import _jit

    if _jit.status() == "preparing":
        st.caption(kernel_notice_text(_jit.progress()))
    else:
        st.caption(":material/check_circle: The fast kernel is ready: long runs are fast from the next step on.")


def slow_hint():
    """A few words for progress texts while the compiled kernels are not ready yet ("" once they are)."""
    from cae import _jit

    return " — plain Python until the fast kernel is ready (once per machine)" if _jit.status() == "preparing" else ""


def ensure_entrypoint(page_file):
    if not ENTRYPOINT_SEEN:
        # a throw-away home page plus this page, so that this page's URL still resolves
        st.navigation([st.Page(lambda: None, title="Home", default=True), st.Page(page_file)], position="hidden")
        st.rerun()


def send_values(defaults):
    """Give widgets their values through the Session State API on every run, before they are drawn: the value each
    widget holds (the user's last change, a link's, a callback's), else its default in ``defaults`` (``{key:
    value}``, widgets drawn without ``value=``). Returns nothing; the widgets read the session state.

    Streamlit sends a value the page set with the run that set it, and only then. Should the browser draw the
    widget again before it has taken that value in (the page ran again at once: the Playground's stage reports
    its size on the first load), the widget shows its own default while the page uses the value: the
    Playground's Seed box read 0 beside a run of seed 9 in 5 of 18 fresh loads. Written on every run, the value
    goes with every run.
    """
    for key, default in defaults.items():
        st.session_state[key] = st.session_state.get(key, default)


def keep_value(key, default):
    """Keep the widget ``key``'s value across runs that end before it is drawn; call it just before the widget.

    A run that stops (``st.stop()``) before a widget is drawn keeps the widget's value on the server, but the
    browser forgets the widget: drawn again, it would show its first option while the page follows the kept
    value. Setting the value through the Session State API every run makes the browser show the value the
    page uses; a copy under another key brings it back after a full run without the widget.
    """
    copy = f"_kept_{key}"
    send_values({key: st.session_state.get(copy, default)})
    st.session_state[copy] = value = st.session_state[key]
    return value


def render_blocks(blocks):
    """Show explanation blocks (our own text and numbers; nothing from a file)."""
    for kind, content in blocks:
        if kind == "md":
            st.markdown(content)
        elif kind == "latex":
            st.latex(content)
        elif kind == "table":
            st.dataframe(content, hide_index=True)
        elif kind == "heatmap":
            st.caption("The diversity matrix R of the nodes so far")
            from cae.app import figures

            st.plotly_chart(figures.diversity_heatmap(content), key="diversity_heatmap")


def algorithm_picker(prefix, container=None, dataset=None, environment="stationary", default="CAE"):
    """An algorithm chooser with its parameter widgets; returns ``(name, params)``.

    With ``dataset`` (a paper dataset name or file stem, or "synthetic"), a
    *Paper's setting* button fills in the paper's grid-searched values for it.
    """
    from cae.registry import ALGORITHMS

    box = st if container is None else container
    names = list(ALGORITHMS)
    algo = box.selectbox(
        "Algorithm",
        names,
        index=names.index(default),
        key=f"w_{prefix}_algo",
        help="  \n".join(f"**{a.name}** — {a.description}" for a in ALGORITHMS.values()),
    )
    spec = ALGORITHMS[algo]
    params = {}
    if not spec.params:
        return algo, params
    setting = None
    if dataset is not None:
        try:
            setting = spec.paper_setting(dataset, environment)
        except KeyError:
            setting = None
    cols = box.columns(len(spec.params) + (1 if setting else 0))
    for col, p in zip(cols, spec.params):
        key = f"w_{prefix}_{algo}_{p.name}"
        value = st.session_state.get(key, p.default)
        st.session_state[key] = int(value) if p.kind == "int" else float(value)
        params[p.name] = col.number_input(p.label, key=key, help=p.help, **p.widget_kwargs())
    if setting:

        def _use():
            for name, v in setting.items():
                st.session_state[f"w_{prefix}_{algo}_{name}"] = v

        cols[-1].button(
            "Paper's setting",
            key=f"b_{prefix}_{algo}_paper",
            on_click=_use,
            help=f"The paper's grid-searched values for this dataset ({environment}): "
            + ", ".join(f"{k} = {v:g}" for k, v in setting.items()),
        )
    return algo, params


def message(kind, template, *quoted, where=None):
    """Show a message that quotes input — a person's text, a file's, a link's, or an exception about them.

    The one rule for every such message on every page: each quoted value is escaped
    (:func:`cae.data.csvio.escape_markdown`), so Markdown and HTML in it show as typed and are never
    rendered (no image fetched, no link, no formatting). ``template`` is our own text, with ``{}`` for each
    quoted value; ``kind`` is ``error``, ``warning``, ``info``, ``success``, ``caption`` or ``markdown``;
    ``where`` is a container (default: the page).
    """
    from cae.data.csvio import escape_markdown

    if kind not in ("error", "warning", "info", "success", "caption", "markdown"):
        raise ValueError(f"unknown message kind {kind!r}")
    text = template.format(*(escape_markdown(q) for q in quoted))
    return getattr(where if where is not None else st, kind)(text)


def show_notices(notices):
    """The notices of a lesson link (their fragments of the URL escaped: shown as text, never rendered)."""
    if notices:
        message(
            "warning", "Some values in this link could not be used:\n" + "\n".join("- {}" for _ in notices), *notices
        )

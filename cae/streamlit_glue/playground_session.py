"""The Playground's configuration widgets and its main view.

The run (a :class:`cae.app.stepper.Stepper`) and what is kept with it belong to
:class:`cae.streamlit_glue.session.PlaygroundSession`; the Playground, Explain and the Classroom start from
:func:`start` or :func:`get_playground`. Lesson links in and out of the URL are :mod:`cae.streamlit_glue.lesson_links`.
Only light modules at import time (app.py imports this before the home page is drawn).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from cae.app import explainable
from cae.app.stepper import drawn_sample
from cae.app.streams import SOURCES, environment_of, paper_setting

from .lesson_links import lesson_apply, lesson_in
from .session import (  # noqa: F401 - algo_params, DEFAULT_CFG and the keys are this module's names too
    CFG_WIDGETS,
    DEFAULT_CFG,
    VIEW_KEYS,
    W,
    algo_params,
    session,
)

PRESET_PAPER = dict(DEFAULT_CFG)


def _split_name(key):
    """A stream's name in a short title that fits the sidebar's box and the detail after it:
    "Paper 2-D · non-stationary (stream #1 → #6)" → ("Paper 2-D · non-stationary", "stream #1 → #6")."""
    name = SOURCES[key]
    for sep, strip in ((" (", ")"), (": ", "")):
        if sep in name:
            head, tail = name.split(sep, 1)
            return head, tail[: len(tail) - len(strip)] if strip and tail.endswith(strip) else tail
    return name, ""


def stream_title(key):
    return _split_name(key)[0]


def stream_detail(key):
    return _split_name(key)[1]


def set_config(**changes):
    """Change the configuration and its widgets together (before the widgets are drawn: a callback, or a
    lesson link read at the top of the page)."""
    session().set_config(**changes)


def new_seed():
    """*New seed*'s callback: the next seed, in the box, the caption and the link alike."""
    session().new_seed()


def use_paper_setting():
    """The Playground's *Paper's setting* button: CAEA's λ and a_max as the paper set them for its 2-D data
    in this stream's environment (the values Compare starts with)."""
    p = paper_setting("CAEA", session().cfg["source"])
    set_config(lam=int(p["deletion_interval"]), amax=int(p["max_edge_age"]))


def sidebar_config():
    """The data and algorithm widgets (sidebar); returns the configuration."""
    ss = session()
    ss.restore_widgets()
    cfg = ss.cfg
    sb = st.sidebar
    sb.header("Data")
    cfg["source"] = sb.selectbox("Stream", list(SOURCES), format_func=stream_title, key=W.SOURCE)
    if stream_detail(cfg["source"]):  # the rest of a long name, whole, under the box
        sb.caption(stream_detail(cfg["source"]))
    cfg["n_per_class"] = sb.select_slider(
        "Points per distribution",
        [250, 500, 1500, 5000, 15000],
        key=W.N,
        help="The paper uses 15,000 (99,000 samples with noise).",
    )
    cfg["noise"] = sb.slider("Uniform noise (share of each distribution)", 0.0, 0.5, step=0.05, key=W.NOISE)
    cfg["seed"] = int(sb.number_input("Seed", 0, 10**6, key=W.SEED))
    sb.header("Algorithm")
    cfg["algo"] = sb.radio(
        "Algorithm",
        explainable.choices(),
        key=W.ALGO,
        help="CAE estimates λ and a_max itself; CAEA, Fuzzy ART and GNG use the values below (the literature's "
        "defaults). Switching keeps the step and the samples placed or drawn by hand: the other algorithm learns "
        "the same samples up to this step.",
    )
    for key, p in explainable.entry(cfg["algo"]).params:
        lo, hi, step = explainable.slider_range(p)
        kind = int if p.kind == "int" else float
        fmt = p.widget_kwargs().get("format")
        cfg[key] = sb.slider(
            p.label, kind(lo), kind(hi), step=kind(step), key=CFG_WIDGETS[key], help=p.help, format=fmt
        )
    if cfg["algo"] == "CAEA":
        p = paper_setting("CAEA", cfg["source"])
        sb.button(
            "Paper's setting",
            key="b_pg_paper",
            on_click=use_paper_setting,
            help=f"The paper's grid-searched values for its 2-D data in the "
            f"{environment_of(cfg['source']).replace('non', 'non-')} environment: "
            f"λ = {p['deletion_interval']}, a_max = {p['max_edge_age']} (Compare starts with the same).",
        )
    return cfg


def view_toggles():
    """The sidebar's geometry toggles, the same on every page that draws the main view:
    returns ``(focus, all_regions)``."""
    focus = st.sidebar.toggle(  # (values from the session state: PlaygroundSession.carry_widgets)
        "Focus on s1",
        key=W.FOCUS,
        help="Zoom to s1, s2, the sample and the vigilance region of s1 (the view's width is written on it), "
        "so that one can tell whether the sample lies inside V.",
    )
    all_regions = st.sidebar.toggle(
        "Every node's vigilance region",
        key=W.REGIONS,
        help="Around each node, the closed curve where CIM(x, y_k, σ̄) = V: a sample inside it would resonate "
        "with that node.",
    )
    return focus, all_regions


def get_playground(cfg):
    """This session's playground for ``cfg`` (:meth:`PlaygroundSession.run_for`: switching algorithm keeps the
    step, with a spinner while the new run catches up; the page says so with :func:`switch_note`)."""
    return session().run_for(cfg, learning=st.spinner)


def switch_note():
    """What the last change of algorithm or parameters did (once), or None."""
    return session().take_switch_note()


def start(page):
    """A page that draws the Playground's run starts here: a lesson link's settings first, the sidebar's
    configuration, the run, then the link's step (its progress bar in a slot made on every run, so that the
    page's later elements keep their places). Returns ``(cfg, pg, notices)``."""
    from .classroom_session import class_lesson_in  # (when drawn: a page outside a class imports no store)

    session().carry_widgets(page)  # the widgets show what this session keeps, whatever page came before
    notices = class_lesson_in(page)  # a class this session teaches: the store's lesson first (issue #35)
    if notices is None:
        notices = lesson_in(page)
    cfg = sidebar_config()
    pg = get_playground(cfg)
    notices += lesson_apply(pg, st.empty())
    return cfg, pg, notices


def bounds_of(X):
    lo, hi = X.min(axis=0), X.max(axis=0)
    return (float(lo[0]), float(hi[0])), (float(lo[1]), float(hi[1]))


def stream_bounds(pg):
    """The plotted area of a Playground's stream, computed once per stream (99,000 rows: 10 ms a frame)."""
    X = pg.stream.X
    cached = getattr(pg, "_view_bounds", None)
    if cached is None or cached[0] is not X:
        cached = pg._view_bounds = (X, bounds_of(X))
    return cached[1]


def network_view(
    pg, view=None, *, model=None, record=None, t=None, deleted=None, current=None, highlight=None, spec=False
):
    """The main view of a Playground at step t: data seen (thinned), the recent window, the sample, the network.

    ``view`` (a :class:`cae.app.view_options.ViewOptions`) says how it is drawn: the page builds it once from its
    toggles. ``record`` None draws the Playground's last record (its s1 and s2 ringed); False draws none. The
    samples placed by hand so far are marked, and the regions of a drawing that gives the next samples
    outlined. Before the first step the whole stream to come is drawn faintly, with the view's note (what to
    press); after it the note is left out. ``spec``: the figure as plain data (:func:`cae.app.figures.network_spec`:
    Play's frames), not a Plotly figure.
    """
    from cae.app import figures
    from cae.app.view_options import ViewOptions

    view = view or ViewOptions()
    model = pg.model if model is None else model
    t = pg.t if t is None else t
    X = pg.stream.X
    idx = drawn_sample(t, max_points=5000)
    if current is None and t:
        current = X[t - 1]
    drawing = pg.drawing_at(t) if hasattr(pg, "drawing_at") and X.shape[1] == 2 else None
    placed = [x for pos, x in getattr(pg, "placed", []) if pos < t]
    build = figures.network_spec if spec else figures.network_figure
    return build(
        model,
        X[idx],
        X[max(0, t - view.window) : t],
        current,
        pg.record if record is None else (record or None),
        bounds=stream_bounds(pg),
        view=view if t == 0 else view.with_(note=None),
        deleted=deleted,
        highlight=highlight,
        drawn_regions=drawing.regions if drawing is not None else None,
        placed=np.array(placed).reshape(-1, X.shape[1]) if placed else None,
        upcoming=X[drawn_sample(len(X), max_points=3000)] if t == 0 else None,
        age_limit=last_age_limit(pg, t),
    )


def last_age_limit(pg, t):
    """The run's last edge-age limit a_max up to step t (CAE computes it at s1 only when s1 has edges: a step without
    one keeps the edges banded around the last), or None."""
    if not hasattr(pg, "column"):
        return None
    values = pg.column("a_max")[:t]
    seen = np.flatnonzero(np.isfinite(values))
    return float(values[seen[-1]]) if len(seen) else None

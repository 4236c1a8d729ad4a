"""CAE Explorer: learn, teach and inspect CAE, an ART-based topological clustering algorithm."""

import streamlit as st

if __name__ != "__main__":  # imported by `streamlit run app.py` for its server (a page's run is __main__)
    from cae.classroom import web as _web

    _web.start_check()  # CAE_TRUSTED_PROXIES: said in the log, or the server does not start (naming the value)
    # Streamlit's server with the app's own routes (the teacher's HttpOnly cookie): cae/classroom/web.py
    app = st.App(__file__, routes=_web.routes())
    # This app draws its own navigation (st.navigation in main()). Left to itself, Streamlit reads the folder
    # pages/ for a fresh process's first run of a page and sends its files as the navigation until app.py's
    # own arrives: a page reconnecting to a restarted process showed them (issue 44). st.navigation sets this
    # same switch when it first runs; set here, it is set before any page of this process runs.
    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False


HOME_ALT = "CAE after one pass over the paper's 2-D data: nodes coloured by cluster, edges by age"


def home_caption():
    """What the home picture shows, and how typical it is (``sample_data/home_model.json``, written with it)."""
    import json
    from pathlib import Path

    base = "CAE after the paper's 2-D data as stream #1 → #6 (9,900 samples): nodes coloured by cluster, edges by age."
    try:
        s = json.loads((Path(__file__).resolve().parent / "sample_data" / "home_model.json").read_text("utf-8"))
        t = s["typical"]
        return (
            f"{base} Seed {s['seed']}, a typical run: NMI {t['nmi']:.3f}, {t['n_clusters']} clusters. Over seeds "
            f"0–{s['runs'] - 1} the median NMI is {s['nmi_median']:.3f}; {s['merged']} of {s['runs']} runs merge "
            f"distributions and {s['split']} split one. The Playground's *How often?* shows the spread."
        )
    except (OSError, ValueError, KeyError, TypeError):
        return base


@st.cache_resource(show_spinner=False)
def _home_picture():
    """CAE after one pass over the home stream, as SVG: the stored model (drawn at once on a fresh install,
    while the kernels are still being compiled), or learned here if the file is missing.

    SVG rather than a Plotly chart: the browser shows it with the page, without first loading the
    charting library (about 2 s on a classroom laptop); the Playground has the interactive view.
    """
    from pathlib import Path

    from cae._storage import ModelFileError
    from cae.app import figures
    from cae.data import HOME_MODEL, home_stream

    s = home_stream()
    try:  # read with NumPy alone: the picture does not wait for scikit-learn to import
        model = figures.saved_network(Path(__file__).resolve().parent / "sample_data" / HOME_MODEL)
    except (OSError, ModelFileError):
        from cae import CAE

        model = CAE().fit(s.X)
    return figures.network_svg(model, seen=s.X, bounds=((0, 1), (0, 1)), width=480, height=500, title=HOME_ALT)


def home():
    from cae.registry import count_in_words, names_in_words
    from cae.streamlit_glue.playground_session import PRESET_PAPER
    from cae.streamlit_glue.session import session

    st.title("CAE Explorer")
    left, right = st.columns([1.1, 1])
    with right:
        st.image(_home_picture(), width="stretch", alt=HOME_ALT)
        st.caption(home_caption())
    with left:
        st.markdown(
            "**CAE** (CIM-based ART with Edge) clusters a stream one sample at a time. It grows a network of "
            "nodes and edges: a sample far from every node (in the correntropy-induced metric, CIM) becomes a new "
            "node; a near one pulls its winner closer and joins the two nearest nodes with an edge. Old edges are "
            "pruned by an age threshold, isolated nodes are swept away as noise, and clusters are the connected "
            "components of the graph.\n\n"
            "It is **parameter-free**: the similarity threshold V and the deletion interval λ come from a "
            "determinantal-point-process diversity criterion over the first nodes, and the edge-age limit a_max is "
            "estimated from the ages of edges. It keeps learning new classes without forgetting old ones."
        )
        st.caption(
            "N. Masuyama, Y. Takebayashi, Y. Nojima, C. K. Loo, H. Ishibuchi, S. Wermter: "
            "*A Parameter-free Adaptive Resonance Theory-based Topological Clustering Algorithm Capable of "
            "Continual Learning*, Neural Computing and Applications 38, 2026."
        )
        # the way in, on the first screen (it was at y = 1,170 of 900 and 1,295 of 720, under the page list)
        if st.button("▶ Start with the paper's streams", type="primary", key="b_preset"):
            session().start_over(PRESET_PAPER)
            st.switch_page("pages/playground.py")
        st.caption(
            "The paper's six distributions with 10 % noise, presented as stream #1 → #6, learned by "
            "the parameter-free CAE."
        )
        st.markdown(
            "**How to use it**\n"
            "1. **Playground** — pick a stream (the paper's, or a drifting one), then step, play, scrub back in "
            "history. Every internal quantity (V, λ, the diversity D, a_max, edge ages) is drawn. For class: a quiz "
            '(predict, then reveal), *place a sample* to ask "what if a point arrives here?", a lesson link that '
            "opens the same view for every student, and an animated export for slides.\n"
            "2. **Explain a step** — any step in words and formulas with its actual numbers: why a node appeared, "
            "why an edge died.\n"
            "3. **Your data** — upload a CSV, learn it, see the clusters (PCA for more than two features), download "
            "labels, nodes, edges, the graph and the model.\n"
            "4. **Continual learning** — one class after another: the R matrix, AI and BWT.\n"
            f"5. **Compare algorithms** — the same stream into two to four of the {count_in_words()} algorithms "
            f"({names_in_words()}), side by side, with the paper's parameter settings.\n"
            "6. **Lineage** — Fuzzy ART, GNG, CAEA and CAE on one drifting stream: what each fixed parameter does, "
            "and what CAE estimates from the data instead.\n"
            "7. **Experiments** — our reproduction of the paper's tables beside the published numbers (marks, "
            "critical-difference diagrams, λ validity), and small studies to run here.\n"
            "8. **Classroom** — a live class: your steps on every student's screen, their predictions back as a "
            "chart before you reveal.\n"
        )
    _load_charts_in_the_background()


def _load_charts_in_the_background():
    """An empty chart the reader never sees, after everything else: the browser loads the charting
    library (about 2 s on a classroom laptop) while the home page is being read, not after the click."""
    import plotly.graph_objects as go

    with st.container(key="chart_warmup"):
        st.plotly_chart(
            go.Figure(layout=dict(height=10, width=10)), key="home_chart_warmup", config={"staticPlot": True}
        )
    st.html("<style>.st-key-chart_warmup { display: none; }</style>")


def main():
    """The app: the page set-up, the navigation of the nine pages, then what warms up behind them."""
    st.set_page_config(page_title="CAE Explorer", page_icon="🕸️", layout="wide")
    import cae.streamlit_glue.common as _common

    _common.ENTRYPOINT_SEEN = True
    _common.accessible_style()
    _common.shared_style()
    _common.kernel_notice()
    pages = [
        st.Page(home, title="Home", icon=":material/home:", default=True),
        st.Page("pages/playground.py", title="Playground", icon=":material/play_circle:"),
        st.Page("pages/explain.py", title="Explain a step", icon=":material/lightbulb:"),
        st.Page("pages/upload.py", title="Your data", icon=":material/upload_file:"),
        st.Page("pages/continual.py", title="Continual learning", icon=":material/timeline:"),
        st.Page("pages/compare.py", title="Compare algorithms", icon=":material/compare:"),
        st.Page("pages/lineage.py", title="Lineage: two families to CAE", icon=":material/family_history:"),
        st.Page("pages/experiments.py", title="Experiments", icon=":material/science:"),
        st.Page("pages/classroom.py", title="Classroom", icon=":material/groups:"),
    ]
    st.navigation(pages).run()

    # Only now, with the page on its way to the browser: on a fresh machine, start compiling the fast
    # kernels in the background (once per machine; until then everything runs un-jitted).
    from cae import _jit

    _jit.prepare()
    # And, the page being out, import what the other pages need (scikit-learn above all, about 1 s on a
    # classroom laptop) while the home page is read, not after the first click; a no-op on later runs.
    import cae.app.stepper  # noqa: F401


if __name__ == "__main__":
    main()

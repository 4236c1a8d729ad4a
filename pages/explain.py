"""Explain a step: the plain-words and formula account of any recorded step."""

import streamlit as st

from cae.explain import explain_step, headline
from pages._ui import get_playground, network_view, render_blocks, sidebar_config

from pages._ui import ensure_entrypoint  # noqa: E402

ensure_entrypoint(__file__)  # a direct link to this page on a fresh server

cfg = sidebar_config()
pg = get_playground(cfg)
st.title("Explain a step")
if pg.t_max == 0:
    st.info("Nothing has been learned yet. Go to the **Playground** and press **Step** (or use the buttons below).")
    if st.button("Learn the first 50 samples", key="b_first50"):
        pg.step(50)
        st.rerun()
    st.stop()

if "w_explain_t" not in st.session_state or st.session_state.get("explain_follow", True):
    st.session_state.w_explain_t = max(pg.t, 1)
st.session_state.explain_follow = False

jump = st.columns(6)
targets = [("next Case I", dict(case=1)), ("next Case II", dict(case=2)), ("next Case III", dict(case=3)),
           ("next edge deletion", dict(event="deletion")), ("next sweep", dict(event="sweep")),
           ("λ fixed", dict(event="lambda"))]
for col, (label, kw) in zip(jump, targets):
    if col.button(label, key=f"b_jump_{label}", width="stretch"):
        after = 0 if kw.get("event") == "lambda" else st.session_state.w_explain_t
        hit = pg.find_step(after, **kw)
        if hit is None:
            st.toast(f"No {label.replace('next ', '')} in the recorded steps after t = {after}.")
        else:
            st.session_state.w_explain_t = hit
t = int(st.number_input("Step t", 1, pg.t_max, key="w_explain_t", help=f"1 … {pg.t_max} (recorded so far)"))

rec, model, x = pg.inspect(t)
st.subheader(headline(rec))
left, right = st.columns([1.15, 1])
with left:
    render_blocks(explain_step(rec, model, x))
with right:
    st.plotly_chart(network_view(pg, model=model, record=rec, t=t, vigilance=True, height=460),
                    key="explain_fig", config={"displaylogo": False})
    st.caption("The network right after this step: s1 and s2 ringed, the current sample as a star, "
               "the dotted region is where CIM to s1 is at most V.")

"""A Streamlit page that makes the race of ``cae/streamlit_glue/fragment.py`` happen: a timer fragment (``ticker``) asks for a run
of the whole page, while a second timer fragment (``follower``, drawing nothing, as the teacher's ``follow_class``)
has its own run waiting; that run starts the moment the whole page's run ends. The switch interval keeps the
script's thread on the interpreter from its run's end into the next run's start, so the server sends nothing in
between (what a loaded machine does now and then). ``FRAGMENT=st`` uses ``st.fragment``; anything else, the app's
:func:`cae.streamlit_glue.fragment.fragment`. ``tests/browser/test_fragment_browser.py`` counts the loads that lose the button
drawn under the follower."""

import os
import sys
from pathlib import Path

import streamlit as st

sys.setswitchinterval(2.0)
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

if os.environ.get("FRAGMENT") == "st":
    fragment = st.fragment
else:
    from cae.streamlit_glue.fragment import fragment


@fragment(run_every=0.2)
def ticker():
    st.session_state.ticks = st.session_state.get("ticks", 0) + 1
    if st.session_state.ticks == 2:
        st.rerun()  # the whole page, once (as the teacher's page when the first student arrives)


@fragment(run_every=0.2)
def follower():
    pass


st.write("top")
ticker()
follower()
st.button("Under the follower", key="b")
st.write("bottom")

"""Every fragment of the app is made by ``cae.streamlit_glue.fragment.fragment`` (a container of its own drawn by the
page's run): a plain ``st.fragment`` can lose the element under it (``tests/browser/test_fragment_browser.py``)."""

import re

import pytest
from conftest import ROOT

GLUE = ROOT / "cae" / "streamlit_glue"
SOURCES = sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *GLUE.glob("*.py")])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_makes_a_fragment_with_st_fragment(path):
    if path == GLUE / "fragment.py":
        return
    text = path.read_text()
    found = [m.group(0) for m in re.finditer(r"st\s*\.\s*(experimental_)?fragment\b", text)]
    assert not found, f"{path.name} uses {found[0]}: use cae.streamlit_glue.fragment.fragment"

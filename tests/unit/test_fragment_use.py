"""Every fragment of the app is made by ``pages._fragment.fragment`` (a container of its own drawn by the page's run):
a plain ``st.fragment`` can lose the element under it (``tests/browser/test_fragment_browser.py``)."""

import re

import pytest
from conftest import ROOT

SOURCES = sorted([ROOT / "app.py", *(ROOT / "pages").glob("*.py")])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_page_makes_a_fragment_with_st_fragment(path):
    if path.name == "_fragment.py":
        return
    text = path.read_text()
    found = [m.group(0) for m in re.finditer(r"st\s*\.\s*(experimental_)?fragment\b", text)]
    assert not found, f"{path.name} uses {found[0]}: use pages._fragment.fragment"

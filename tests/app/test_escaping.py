"""One escaping rule for every message that quotes input, on every page (cae.streamlit_glue.common.message).

A message that quotes a person's text, a file's or an exception about them escapes what it quotes, so
Markdown and HTML show as typed: a model file whose algorithm is ``![x](http://evil.example/p.png)`` must
not make the browser fetch a remote image. Checked three ways: the rule itself, every page's source (no
message quotes an exception or other input without it), and the pages fed Markdown and HTML.
"""

import ast
import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

from cae import CAE
from cae.app import your_data as wb

APP = str(ROOT / "app.py")
HOSTILE = [
    "![x](http://evil.example/p.png)",
    "<img src=x onerror=alert(1)>",
    "**bold** _it_ [link](http://evil.example)",
    "<script>alert(1)</script>",
]
MESSAGE_CALLS = {"error", "warning", "info", "success", "caption", "markdown", "toast", "write", "exception"}


def _rendered_raw(value):
    """True if a Markdown source would render markup from the hostile inputs (a backslash-escaped character is
    shown as itself, so it is taken out first: ``\\<img`` renders the text ``<img``, no element)."""
    import re

    bare = re.sub(r"\\[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]", "", str(value))
    return any(s in bare for s in ("![x](", "<img", "<script", "**bold**", "[link]("))


# ------------------------------------------------------------------ the rule
def test_the_rule_escapes_markdown_and_html_in_every_kind_of_message():
    def page():
        from cae.streamlit_glue.common import message

        for kind in ("error", "warning", "info", "success", "caption", "markdown"):
            for h in [
                "![x](http://evil.example/p.png)",
                "<img src=x onerror=alert(1)>",
                "**bold** _it_ [link](http://evil.example)",
                "<script>alert(1)</script>",
            ]:
                message(kind, "Cannot use it: {}", h)

    at = AppTest.from_function(page)
    at.run()
    assert not at.exception
    shown = [e.value for e in (*at.error, *at.warning, *at.info, *at.success, *at.caption, *at.markdown)]
    assert len(shown) == 6 * len(HOSTILE)
    for v in shown:
        assert v.startswith("Cannot use it: ") and not _rendered_raw(v), v


def _except_names(tree):
    return {h.name for h in ast.walk(tree) if isinstance(h, ast.ExceptHandler) and h.name}


def test_no_page_quotes_an_exception_or_input_outside_the_rule():
    """Every st.error/warning/… call in app.py, pages/ and their glue (cae/streamlit_glue): none has an exception (or
    str() of one) in its text.

    Those messages quote what a file, a link or a person gave; they go through cae.streamlit_glue.common.message.
    """
    offenders = []
    glue = sorted((ROOT / "cae" / "streamlit_glue").glob("*.py"))
    for path in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *glue]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        caught = _except_names(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in MESSAGE_CALLS:
                continue
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                names = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
                if names & caught:
                    offenders.append(f"{path.name}:{node.lineno} quotes {sorted(names & caught)}")
    assert not offenders, "quote input through cae.streamlit_glue.common.message: " + "; ".join(offenders)


def test_the_old_unescaped_message_is_caught_by_the_source_check(tmp_path):
    """The check above fails on the line this issue found in pages/upload.py (a test that cannot fail is a defect)."""
    src = 'try:\n    pass\nexcept ValueError as exc:\n    st.error(f"This model file cannot be used: {exc}")\n'
    tree = ast.parse(src)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
    assert call.func.attr in MESSAGE_CALLS
    assert {n.id for n in ast.walk(call.args[0]) if isinstance(n, ast.Name)} & _except_names(tree) == {"exc"}


# ------------------------------------------------------------------ the pages, fed Markdown and HTML
def _page(path):
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(path).run()
    assert not at.exception
    return at


def _with_algorithm(blob, algorithm):
    """A model file whose metadata names ``algorithm``."""
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    meta = json.loads(str(np.load(io.BytesIO(parts["meta_json.npy"]))))
    meta["algorithm"] = algorithm
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n, data in parts.items():
            if n == "meta_json.npy":
                b = io.BytesIO()
                np.save(b, np.array(json.dumps(meta)))
                data = b.getvalue()
            z.writestr(n, data)
    return out.getvalue()


def _all_text(at):
    return [e.value for e in (*at.error, *at.warning, *at.info, *at.success, *at.caption, *at.markdown)]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_your_data_model_file_with_markup_in_its_algorithm_name(hostile):
    at = _page("pages/upload.py")
    at.selectbox(key="w_sample_name").set_value("paper2d_sample.csv").run()
    at.button(key="b_sample").click().run()
    at.radio(key="w_up_source").set_value("saved").run()
    blob = _with_algorithm(wb.model_bytes(CAE().fit(np.random.default_rng(0).random((200, 2)))), hostile)
    at.file_uploader(key="w_up_model").set_value(("m.npz", blob, "application/octet-stream")).run()
    assert not at.exception
    err = [e.value for e in at.error]
    assert len(err) == 1 and err[0].startswith("This model file cannot be used: ")
    assert "unknown algorithm" in err[0]
    assert not _rendered_raw(err[0])
    assert not any(_rendered_raw(v) for v in _all_text(at))


def test_your_data_column_names_with_markup_in_a_model_mismatch():
    at = _page("pages/upload.py")
    at.selectbox(key="w_sample_name").set_value("paper2d_sample.csv").run()
    at.button(key="b_sample").click().run()
    at.radio(key="w_up_source").set_value("saved").run()
    X = pd.DataFrame(np.random.default_rng(0).random((200, 2)), columns=HOSTILE[:2])
    blob = wb.model_bytes(CAE().fit(X))
    at.file_uploader(key="w_up_model").set_value(("m.npz", blob, "application/octet-stream")).run()
    assert not at.exception
    err = [e.value for e in at.error]
    assert len(err) == 1 and "trained on the columns" in err[0] and "evil" in err[0]
    assert not _rendered_raw(err[0])


def test_your_data_csv_whose_error_quotes_its_text(tmp_path):
    at = _page("pages/upload.py")
    # column names with markup, a ragged row and a text cell: the warnings and reading messages quote them
    data = b"a,![x](http://evil.example/p.png),<b>c</b>\n1,2,3\n3,4,5,6\n5,6,**x**\n7,8,9\n"
    at.file_uploader(key="w_upload").set_value(("x.csv", data, "text/csv")).run()
    assert not at.exception
    assert not any(_rendered_raw(v) for v in _all_text(at))


def test_lesson_link_notices_with_markup():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["stream"] = "![x](http://evil.example/p.png)"
    at.query_params["<img src=x onerror=alert(1)>"] = "1"
    at.run()
    at.switch_page("pages/playground.py").run()
    assert not at.exception
    warn = [w.value for w in at.warning]
    assert warn and all(not _rendered_raw(w) for w in warn)


def test_the_classroom_shows_nicknames_escaped(tmp_path, monkeypatch):
    monkeypatch.setenv("CAE_CLASSROOM_URL", "sqlite:///" + str(tmp_path / "c.sqlite3"))
    teacher = _page("pages/classroom.py")
    teacher.button(key="b_room_start").click().run()
    code = teacher.session_state.room_code
    for h in HOSTILE:
        s = AppTest.from_file(APP, default_timeout=120)
        s.run()
        s.switch_page("pages/classroom.py")
        s.query_params["room"] = code
        s.run()
        s.text_input(key="w_room_nick").input(h)
        next(b for b in s.button if b.label == "Join").click().run()
        assert not s.exception
        head = [m.value for m in s.markdown if "you are" in m.value]
        assert head and not _rendered_raw(head[0]), head
    teacher.run()
    assert not teacher.exception
    assert not any(_rendered_raw(v) for v in _all_text(teacher))
    assert Path(ROOT / "pages" / "classroom.py").exists()

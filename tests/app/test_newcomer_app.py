"""What a newcomer reads on the pages: Home's "How to use it" names every page and counts the algorithms from the
registry, and a teacher whose setting chose another store learns where the other classes are."""

import re

from conftest import ROOT
from streamlit.testing.v1 import AppTest
from support.classroom import _session

from cae.classroom.sqlite import SQLiteStore
from cae.registry import ALGORITHMS, count_in_words, names_in_words


def _plain(markdown):
    """Markdown as read: the escapes of quoted text (``\\_``, ``\\-``) dropped."""
    return re.sub(r"\\(.)", r"\1", markdown)


def test_home_names_every_page_and_every_algorithm():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    how = next(m.value for m in at.markdown if "How to use it" in m.value)
    titles = re.findall(r'st\.Page\([^)]*title="([^":]+)', (ROOT / "app.py").read_text(encoding="utf-8"))
    pages = [t for t in titles if t != "Home"]
    assert len(pages) == len(list((ROOT / "pages").glob("[!_]*.py")))
    for page in pages:
        assert f"**{page}**" in how, f"How to use it leaves out {page}"
    assert len(ALGORITHMS) == 8 and f"two to four of the {count_in_words()} algorithms ({names_in_words()})" in how


def test_the_teacher_page_says_where_other_classes_are(tmp_path, monkeypatch):
    """A class file in the usual folder, and ``CAE_CLASSROOM_URL`` naming another store: the teacher's page says
    where those classes are, why this app does not use them, and how to open them."""
    usual = tmp_path / "xdg" / "cae-explorer"
    usual.mkdir(parents=True)
    SQLiteStore(usual / "classroom.sqlite3").create_room()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CAE_CLASSROOM_URL", "sqlite:///" + str(tmp_path / "here.sqlite3"))
    monkeypatch.setenv("CAE_CLASSROOM_POLL_SHARE", "0")
    teacher = _session()
    assert not any("Classes are also kept" in i.value for i in teacher.info)  # the lobby: students see it too
    teacher.button(key="b_room_start").click().run()
    assert not teacher.exception
    said = [_plain(i.value) for i in teacher.info if "Classes are also kept" in i.value]
    assert said, [i.value for i in teacher.info]
    assert str(usual / "classroom.sqlite3") in said[0] and "CAE_CLASSROOM_URL names its store" in said[0]
    assert f"without CAE_CLASSROOM_URL and with CAE_EXPLORER_DATA={usual}" in said[0]

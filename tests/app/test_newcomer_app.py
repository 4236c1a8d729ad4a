"""What a newcomer reads on the pages: a teacher whose setting chose another store learns where the other
classes are."""

import re

from support.classroom import _session

from cae.classroom.sqlite import SQLiteStore


def _plain(markdown):
    """Markdown as read: the escapes of quoted text (``\\_``, ``\\-``) dropped."""
    return re.sub(r"\\(.)", r"\1", markdown)


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

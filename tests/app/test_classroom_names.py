"""Classroom nicknames: one normalisation where a name enters the store, one identity (its TS #39 skeleton),
and one escaping for every place a name is shown — the teacher's "Who is here" list, the answers chart's
hover, the CSV (issue 25, item 10: every nickname there is here)."""

import csv
import io
import json
import re
import time

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st
from support.classroom import _room

from cae.classroom import BadInput, names, open_store
from cae.classroom import room as roomlib
from cae.classroom.names import for_markdown, for_plotly, graphemes, normalise, skeleton
from cae.classroom.store import clean_nickname

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # 👩‍👩‍👧: five code points, one character
CYRILLIC_ANN = "\u0410nn"  # А (CYRILLIC CAPITAL LETTER A) + nn
#: every nickname of the issue, as typed
ISSUE_NAMES = [
    "www.example.org",
    '=HYPERLINK("http://a","b")',
    ":material/warning:",
    ":smile:",
    ":red[x]",
    'Jo "JJ" & <b>Co</b>',
    "Ann",
    CYRILLIC_ANN,
    "Ann\u3164",
    FAMILY,
    "x" * 10_000,
]


# ------------------------------------------------------------------ the rules
def test_classroom_names_normalise_the_issue_nicknames():
    assert normalise("Ann\u3164") == "Ann" and normalise("\u115fAnn\u1160\uffa0") == "Ann"  # Hangul fillers
    assert normalise("A\u200bn\u200cn\u2060\ufeff\u202e") == "Ann"  # zero-width spaces, bidi controls
    assert normalise("\u3164 \u200b\u2800") == ""  # nothing visible: an empty name (the store refuses it)
    assert normalise(FAMILY) == FAMILY and graphemes(normalise(FAMILY)) == [FAMILY]  # the ZWJ kept in it
    assert (
        normalise("\U0001f44d\U0001f3fd \U0001f1eb\U0001f1f7 e\u0301") == "\U0001f44d\U0001f3fd \U0001f1eb\U0001f1f7 é"
    )
    assert normalise("ｗｗｗ．ｅｘａｍｐｌｅ．ｏｒｇ") == "www.example.org"  # NFKC: full-width letters
    # a 10,000-character paste is cut to its first 24 characters, never in the middle of one, never emptied
    assert normalise("x" * 10_000) == "x" * 24
    assert normalise(FAMILY * 2000) == FAMILY * 24 and len(FAMILY * 2000) == 10_000
    assert normalise("\u3164" * 9_997 + "Ann") == "Ann"
    assert normalise("e" + "\u0301" * 9_999) == "é" + "\u0301" * 15  # stacked marks: one character, capped


def test_classroom_names_skeletons_make_look_alikes_one_person():
    same = ["Ann", CYRILLIC_ANN, "Ann\u3164", "ANN", " ann ", "\u0391\u039d\u039d", "Ａｎｎ", "A\u200bnn"]
    assert len({skeleton(normalise(n)) for n in same}) == 1
    assert skeleton("BiII") == skeleton("Bill") == skeleton("B1ll") and skeleton("rn") == skeleton("m")
    different = ["Ann", "Anna", "Ann 2", "Bo", "An n", FAMILY, "\U0001f469\U0001f469"]
    assert len({skeleton(n) for n in different}) == len(different)


#: look-alikes of the names kept for the teacher (issue 44): small capitals, a cedilla, a combining stroke, Cherokee
#: letters, Cyrillic with a digit for a letter — and their kind
LOOK_ALIKES = [
    "\u1d1b\u1d07\u1d00\u1d04\u029c\u1d07\u0280",  # ᴛᴇᴀᴄʜᴇʀ: small capitals
    "\u0162eacher",  # Ţeacher: T with a cedilla
    "T\u0336eacher",  # T̶eacher: a combining long stroke
    "\u13c6eache\u13d2",  # ᏆeacheᏒ: Cherokee
    "\u04223\u0430\u0441h\u0435\u0433",  # Т3асhег: Cyrillic, a 3 for the e
    "T\u0334e\u0334a\u0334c\u0334h\u0334e\u0334r\u0334",  # a tilde over every letter
    "\u1e6aeacher",  # Ṫ: a dot above
    "Te\u00e1cher 3",  # an accent, and a number
    "\u13a2eacher",  # Ꭲ: Cherokee I
    "\U0001d413\U0001d41e\U0001d41a\U0001d41c\U0001d421\U0001d41e\U0001d42b",  # bold maths letters
    "\u1d00\u1d05\u1d0d\u026a\u0274",  # ᴀᴅᴍɪɴ
    "Adm1n",
    "@dmin",
    "Pr0f.",
    "Syst3m",
    "t e a c h e r",
    "the-teacher",
    "\u0442\u0435\u0430\u0441\u04bb\u0435\u0433",  # теасһег: every letter Cyrillic
]
#: names that only share letters with one kept for the teacher
NOT_LOOK_ALIKES = [
    "Teach",
    "Teacher's pet",
    "Mr Teacherson",
    "Tim",
    "Jos\u00e9",
    "\u0162ara",
    "Admiral",
    "Peach",
    "Leacher",
]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_classroom_names_look_alikes_of_teacher_are_kept_for_the_teacher(name):
    assert names.reserved(normalise(name)), (name, names.reserved_keys(normalise(name)))
    with pytest.raises(BadInput, match="kept for the teacher"):
        clean_nickname(name)


def test_classroom_names_look_alikes_are_refused_by_the_store(store):
    code, token = store.create_room()
    for name in LOOK_ALIKES:
        with pytest.raises(BadInput, match="kept for the teacher"):
            store.join(code, name)
    ann = store.join(code, "Ann")
    with pytest.raises(BadInput, match="kept for the teacher"):
        store.rename_student(code, token, ann.sid, LOOK_ALIKES[0])
    assert [s.nickname for s in store.students(code)] == ["Ann"]


def test_classroom_names_that_only_share_letters_with_teacher_are_free():
    assert [n for n in NOT_LOOK_ALIKES if names.reserved(normalise(n))] == []


def test_classroom_names_reserved_keys_are_nfkc_casefolded_skeletons_without_marks():
    # NFKC (full-width, maths letters), case folding, the combining marks stripped, then the TS #39 skeleton
    keys = {
        k
        for n in ("\uff34\uff25\uff21\uff23\uff28\uff25\uff32", "TeAcHeR", "T\u0336eacher")
        for k in names.reserved_keys(n)
    }
    assert keys == {"teacher"}
    # a Cyrillic г is an r (its skeleton), not a Greek gamma's y (what the capital Г would give)
    assert "teacher" in names.reserved_keys("Teache\u0433")


#: what the Markdown that Streamlit renders would turn into something else: a bare link (www., a
#: scheme, an e-mail address), a shortcode or icon (:name: or :material/name:), a directive (:red[…]), maths
_RENDERED = re.compile(r"www\.|https?://|@\w|:[\w+/-]+:|:\w+\[")


def _unescape_markdown(s):
    """The text CommonMark shows for a line of backslash escapes and word joiners (no other syntax)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", s).replace("\u2060", "")


def test_classroom_names_for_markdown_leaves_nothing_to_render():
    for name in ISSUE_NAMES + ["a@b.co", "[x](http://y)", "$x^2$", "# h", "- li", "1. x", "`c`", "~~s~~", "|t|"]:
        shown = for_markdown(name)
        assert _unescape_markdown(shown) == " ".join(name.split())  # it reads as typed
        # every ASCII punctuation character is escaped, and no bare link, shortcode or directive is left
        assert not re.search(r"[!-/:-@\[-`{-~]", re.sub(r"\\[!-/:-@\[-`{-~]", "", shown)), shown
        assert not _RENDERED.search(shown.replace("\\", "")), shown


def _plotly_text(s):
    """What Plotly shows for a text: its tags are markup, then it decodes these entities and numeric ones
    (plotly.js's svg_text_utils: mu, amp, lt, gt, nbsp, times, plusmn, deg)."""
    assert "<" not in s and ">" not in s  # no tag: nothing is markup
    ents = {"mu": "\u03bc", "amp": "&", "lt": "<", "gt": ">", "nbsp": "\xa0", "times": "×", "plusmn": "±", "deg": "°"}

    def one(m):
        k = m.group(1)
        if k.startswith("#"):
            return chr(int(k[2:], 16) if k[1] == "x" else int(k[1:]))
        return ents.get(k, m.group(0))

    return re.sub(r"&(#\d+|#x[\da-fA-F]+|[a-z]+);", one, s)


def test_classroom_names_for_plotly_shows_the_name_as_typed():
    for name in ISSUE_NAMES + ["a &quot; b", "&mu; &amp;", "<br>x", "%{x}"]:
        assert _plotly_text(for_plotly(name)) == name


# ------------------------------------------------------------------ properties
_TRICKY = st.sampled_from(
    list('aA m rn I l1.:@[]()"&<>$*_`#')
    + [FAMILY, "\u200d", "\u3164", "\u115f", "\u200b", "\u202e", "\ufe0f"]
    + ["\u0301", "\u0410", "\U0001f3fd", "\U0001f1eb", "\U000e0067", "\U0001f3f4", "\u1100", "\u1161", "ﬁ", "\u2800"]
)
_TEXT = st.text(st.characters(codec="utf-8"), max_size=60) | st.lists(_TRICKY, max_size=60).map("".join)
#: a character a reader sees (a letter, digit, symbol, punctuation or mark that is not a blank or ignorable)
_VISIBLE = regex.compile(r"(?![\p{Default_Ignorable_Code_Point}\u2800])[\p{L}\p{N}\p{S}\p{P}\p{M}]")


@settings(max_examples=400, deadline=None)
@given(_TEXT, st.integers(1, 30))
def test_classroom_names_normalise_properties(raw, limit):
    n = normalise(raw, limit)
    assert normalise(n, limit) == n  # idempotent
    assert len(graphemes(n)) <= limit and n == n.strip()  # never longer than the limit
    assert bool(n) == bool(_VISIBLE.search(raw))  # empty exactly when nothing was visible
    k = skeleton(n)
    assert skeleton(k) == k and skeleton(normalise(n, limit)) == k  # the identity is stable
    assert _unescape_markdown(for_markdown(n)) == n and _plotly_text(for_plotly(n)) == n


# ------------------------------------------------------------------ the store
def test_classroom_names_look_alikes_and_fillers_join_as_one_person(make_store):  # noqa: F811
    store = make_store()
    code, _ = _room(store)
    got = [store.join(code, n).nickname for n in ("Ann", CYRILLIC_ANN, "Ann\u3164", "ANN", "A\u200bnn")]
    assert got == ["Ann", CYRILLIC_ANN + " 2", "Ann 3", "ANN 4", "Ann 5"]
    with pytest.raises(BadInput, match="give a nickname"):
        store.join(code, "\u3164\u200b")  # only invisible characters: refused in words


def test_classroom_names_emoji_kept_whole_and_a_long_paste_cut(make_store):  # noqa: F811
    store = make_store()
    code, _ = _room(store)
    fam = store.join(code, FAMILY).nickname
    assert fam == FAMILY and graphemes(fam) == [FAMILY]
    assert store.join(code, "x" * 10_000).nickname == "x" * 24
    assert store.join(code, FAMILY * 2000).nickname == FAMILY * 24  # 10,000 code points, 24 characters
    assert store.join(code, FAMILY + "\u200b").nickname == FAMILY + " 2"  # one person: the suffix
    assert store.join(code, "\u3164" * 9_997 + "Bo").nickname == "Bo"
    # the suffix that makes a name unique never cuts a character in half either
    assert store.join(code, FAMILY * 2000).nickname == FAMILY * 22 + " 2"
    assert [s.nickname for s in store.students(code)][-1] == FAMILY * 22 + " 2"


# ------------------------------------------------------------------ the pages
def _spec(at):
    return json.loads(next(c for c in at.get("plotly_chart") if "answer" in c.proto.spec).proto.spec)


def test_classroom_names_roster_chart_and_csv_show_every_name_as_typed(classroom):  # noqa: F811
    teacher, code = classroom
    store = open_store()  # the page's store (the fixture's SQLite file)
    typed = [n for n in ISSUE_NAMES if n != "Ann\u3164"]  # the filler twin is checked by the store tests
    students = [store.join(code, n) for n in typed]
    shown = [s.nickname for s in students]
    assert shown[typed.index(CYRILLIC_ANN)] == CYRILLIC_ANN + " 2" and shown[-1] == "x" * 24
    teacher.run()
    # the roster is text: the names as stored, each escaped as HTML text in its list item, nothing rendered
    # (no Markdown element carries them; tests/browser/test_classroom_names_browser.py reads them as shown)
    from html import escape

    roster = next(h.proto.body for h in teacher.get("html") if 'aria-label="Students present"' in h.proto.body)
    items = re.findall(r"<li [^>]*>(.*?)</li>", roster)
    assert items == [escape(n) for n in sorted(shown, key=str.casefold)]
    assert not any("example" in m.value or "HYPERLINK" in m.value or "smile" in m.value for m in teacher.markdown)

    # every student answers; the teacher's chart names them on hover
    teacher.button(key="b_room_ask").click().run()
    q = store.poll(code).question
    for k, s in enumerate(students):
        store.answer(code, s.sid, q.qid, (k % 4, k % 2 == 0, False), now=time.time())
    teacher.toggle(key="w_room_names").set_value(True).run()
    assert not teacher.exception
    spec = _spec(teacher)
    assert "&quot;" not in json.dumps(spec, ensure_ascii=False)
    hover = [h for d in spec["data"] for h in d.get("hovertext") or []]
    case_names = [n for h in hover[:4] if h != "nobody" for n in _plotly_text(h.replace("<br>", "\n")).split("\n")]
    assert sorted(case_names) == sorted(shown)  # each name once in the case bars, exactly as stored
    assert FAMILY in case_names and 'Jo "JJ" & <b>Co</b>' in case_names

    # the CSV: the formula is made text, every other name as stored, the emoji whole
    data = roomlib.answers_csv(store.questions(code), store.answers(code), store.students(code), "http://h:1")
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    in_csv = sorted({r["student"] for r in rows})
    assert in_csv == sorted(names.for_csv(n) for n in shown)
    assert '\'=HYPERLINK("http://a","b' in in_csv and FAMILY.encode() in data

"""Nicknames: one normalisation, one identity, and one escaping for each place a name is shown.

A nickname is typed by anyone with a class code, so it may hold anything: Markdown, HTML, a spreadsheet
formula, look-alike letters of another script, invisible characters, a 10,000-character paste. Every
nickname goes through :func:`normalise` once, where it enters the store, and is compared with the others by
its :func:`skeleton`; every place that shows one escapes it for its renderer:

- :func:`normalise` — Unicode NFKC; invisible characters removed (default-ignorable code points: the Hangul
  fillers, zero-width spaces, bidi controls, soft hyphens…, except the joiners, variation selectors and tags
  inside an emoji sequence, so 👩‍👩‍👧 stays one character); spaces collapsed; cut to at most ``limit``
  user-perceived characters (extended grapheme clusters, never one cut in half). A name with any visible
  character never comes out empty.
- :func:`skeleton` — what a name looks like, per Unicode TS #39 (Security Mechanisms, section 4: each
  character replaced by its prototype in Unicode's ``confusables.txt``, around NFD), casefolded: two names
  with one skeleton are one person (``Аnn`` with a Cyrillic А, ``ANN``, ``Ann`` and ``Ann`` + U+3164).
- :func:`for_markdown` — for ``st.markdown``: no link, no ``:shortcode:`` emoji, no ``:material/…:``
  icon, no ``:red[…]`` colour, no ``$`` maths, no HTML, no Markdown syntax; the name shows as typed.
  (Where a page can show plain text — ``st.text``, a dataframe cell — it does, and needs no escaping.)
- :func:`for_plotly` — for a Plotly text or hover text: ``&``, ``<`` and ``>`` as entities (Plotly reads a
  subset of HTML, and decodes only a few entities: ``&quot;`` would show as is, so quotes stay quotes).
- :func:`for_csv` — the CSV's formula-safe cell (:func:`cae.data.csvio.safe_csv_cell`).

The confusables data is ``confusables.txt`` beside this module (the prototypes of Unicode's file, 6,311
lines, 80 kB; its header says which version and where it came from). Grapheme clusters, the emoji and the
default-ignorable properties come from the ``regex`` package (the standard library has no segmenter).

Examples
--------
>>> normalise("  ｗｗｗ.example.org\\u3164 ")
'www.example.org'
>>> skeleton("\\u0410nn") == skeleton("ANN") == skeleton("Ann\\u3164")
True
>>> len(normalise("x" * 10_000)), normalise("\\u3164\\u200b ")
(24, '')
>>> print(for_markdown(":red[x]").replace("\\u2060", "|"))
\\:|red\\[x\\]
>>> for_plotly('<b>"Ann" & Bo</b>')
'&lt;b&gt;"Ann" &amp; Bo&lt;/b&gt;'
>>> for_csv('=HYPERLINK("http://a","b")')
'\\'=HYPERLINK("http://a","b")'
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path
from typing import Any

import regex

__all__ = [
    "normalise",
    "skeleton",
    "reserved",
    "reserved_keys",
    "truncate",
    "graphemes",
    "for_markdown",
    "for_plotly",
    "for_csv",
    "MAX_LENGTH",
    "RESERVED",
]

#: user-perceived characters (grapheme clusters) a nickname keeps; the store's ``Limits.nickname_length``
MAX_LENGTH = 24
#: code points one grapheme cluster keeps (the longest emoji sequence has 10; more is stacked marks)
MAX_CLUSTER = 16
#: characters of the input looked at; the rest of a longer paste is not read
MAX_INPUT = 100_000

_GRAPHEME = regex.compile(r"\X")
# characters that show nothing: default-ignorable code points (Hangul fillers U+115F U+1160 U+3164 U+FFA0,
# zero-width spaces and joiners, bidi controls, soft hyphen, variation selectors, tags…) and every other
# control, format, surrogate, private-use or unassigned code point
_INVISIBLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{C}]")
# the same, less what an emoji sequence is made of: ZWJ, the variation selectors and the tag characters
_INVISIBLE_IN_EMOJI = regex.compile(
    r"(?![\u200d\ufe0e\ufe0f\U000e0020-\U000e007f])[\p{Default_Ignorable_Code_Point}\p{C}]"
)
_EMOJI = regex.compile(r"[\p{Extended_Pictographic}\p{Regional_Indicator}]")
# whitespace, control characters (tabs, line breaks, NUL…) and a blank that is a symbol by category
# (U+2800 BRAILLE PATTERN BLANK): each run of them is one space
_SPACE = regex.compile(r"[\p{Z}\p{Cc}\u2800]+")


def graphemes(text: str) -> list[str]:
    """The extended grapheme clusters of ``text`` (UAX #29): what a reader counts as characters.

    >>> [len(c) for c in graphemes("e\\u0301👩\\u200d👩\\u200d👧🇫🇷a")]
    [2, 5, 2, 1]
    """
    return _GRAPHEME.findall(text)


def truncate(text: str, limit: int) -> str:
    """The first ``limit`` grapheme clusters of ``text`` (never a cluster cut in half), trailing spaces removed.

    >>> truncate("Ann 👩\\u200d👩\\u200d👧 Bo", 5)
    'Ann 👩\\u200d👩\\u200d👧'
    """
    out = []
    for k, m in enumerate(_GRAPHEME.finditer(text)):
        if k >= limit:
            break
        out.append(m.group())
    return "".join(out).rstrip()


def _clean_cluster(c: str) -> str:
    if _EMOJI.search(c):
        c = _INVISIBLE_IN_EMOJI.sub("", c).rstrip("\u200d")
    else:
        c = _INVISIBLE.sub("", c)
    return c[:MAX_CLUSTER]


def _pass(s: str, limit: int) -> str:
    s = unicodedata.normalize("NFKC", s)
    s = _SPACE.sub(" ", s)
    out, seen = [], 0
    for m in _GRAPHEME.finditer(s):  # up to a margin past the limit: the rest of a long paste is cut anyway
        c = _clean_cluster(m.group())
        out.append(c)
        seen += bool(c.strip())
        if seen > 2 * limit + 8:
            break
    s = " ".join("".join(out).split())
    return truncate(s, limit)


def normalise(raw: Any, limit: int = MAX_LENGTH) -> str:
    """A nickname as stored: NFKC, invisible characters removed, spaces collapsed, at most ``limit`` clusters.

    Parameters
    ----------
    raw : object
        What was typed (None is the empty name); only its first ``MAX_INPUT`` characters are read.
    limit : int
        Grapheme clusters kept (at least 1).

    Returns
    -------
    str
        The name; empty only when ``raw`` has no visible character. ``normalise(normalise(x)) ==
        normalise(x)``.

    Examples
    --------
    >>> normalise("  Ann \\u202e\\n  <b>B</b> ")
    'Ann <b>B</b>'
    >>> normalise("Ann\\u200b\\u3164"), normalise("ﬁ ① Ｂｏ")
    ('Ann', 'fi 1 Bo')
    >>> normalise("👩\\u200d👩\\u200d👧" * 30, limit=2) == "👩\\u200d👩\\u200d👧" * 2
    True
    """
    s = "" if raw is None else str(raw)[:MAX_INPUT]
    limit = max(1, int(limit))
    for _ in range(8):  # one pass is almost always stable; a removed character can let NFKC compose again
        t = _pass(s, limit)
        if t == s:
            break
        s = t
    return s


@cache
def _prototypes() -> dict[int, str]:
    table = {}
    path = Path(__file__).with_name("confusables.txt")
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            src, dst = line.split()
            table[int(src, 16)] = "".join(chr(int(x, 16)) for x in dst.split("+"))
    return table


def skeleton(name: Any) -> str:
    """What a name looks like, for telling whether two names are the same person.

    TS #39's skeleton (NFD, each character replaced by its ``confusables.txt`` prototype, NFD) taken of the
    name in capitals, then casefolded and taken again, until it no longer changes; every invisible
    character (emoji joiners and variation selectors included) removed and spaces collapsed. The capitals
    make it blind to case without losing the look-alikes of capitals (``I`` and ``l``); the second
    skeleton catches those of small letters (``rn`` and ``m``). Not for showing: ``m`` becomes ``rn``.

    >>> skeleton("Ann") == skeleton("\\u0410nn") == skeleton("ANN") == skeleton(" ann ")
    True
    >>> skeleton("Bill") == skeleton("B1ll") == skeleton("BiII") == skeleton("BILL"), skeleton("Ann") == skeleton("Anne")
    (True, False)
    >>> skeleton("m") == skeleton("rn"), skeleton("Ann 2") == skeleton("Ann")
    (True, False)
    """
    table = _prototypes()

    def skel(x: str) -> str:
        return unicodedata.normalize("NFD", unicodedata.normalize("NFD", x).translate(table))

    s = " ".join(_INVISIBLE.sub("", str(name)).split())
    for _ in range(8):
        t = skel(skel(s.upper()).casefold())
        t = " ".join(_INVISIBLE.sub("", t).split())
        if t == s:
            break
        s = t
    return s


#: names a student cannot take: they would speak for the teacher or the app (compared by :func:`reserved_key`, with
#: or without a number or marks around them: "Teacher", "TEACHER 2", "Теacher" with a Cyrillic е, "prof."…)
RESERVED = (
    "teacher",
    "the teacher",
    "teachers",
    "prof",
    "professor",
    "instructor",
    "lecturer",
    "tutor",
    "admin",
    "administrator",
    "moderator",
    "system",
    "server",
)

#: look-alikes of Latin letters that Unicode's confusables.txt 13.0 does not map, read as the letter they show:
#: the small capitals (``ᴛᴇᴀᴄʜᴇʀ``; by their Unicode names, :func:`_small_capitals`) and these
EXTRA_LOOKALIKES = {
    "\u13c6": "t",  # Ꮖ CHEROKEE LETTER QUA (its capital-T look: "ᏆeacheᏒ")
}
#: digits and signs written for letters ("T3acher", "@dmin", "Pr0f"): the reserved names' check only
_LEET = str.maketrans(
    {"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a", "$": "s"}
)
_SMALL_CAPITAL = regex.compile(r"^(?:LATIN|MODIFIER) LETTER SMALL CAPITAL ([A-Z])$")


@cache
def _small_capitals() -> dict[str, str]:
    """Every small capital letter of the Latin alphabet (``ᴛ`` U+1D1B, ``ʀ`` U+0280…) as its small letter."""
    out = {}
    for cp in range(0x250, 0x1E00):  # IPA extensions to phonetic extensions: where Unicode keeps them
        m = _SMALL_CAPITAL.match(unicodedata.name(chr(cp), ""))
        if m:
            out[chr(cp)] = m.group(1).lower()
    for cp in range(0xA720, 0xA800):  # Latin Extended-D (ꞯ, ꟯…)
        m = _SMALL_CAPITAL.match(unicodedata.name(chr(cp), ""))
        if m:
            out[chr(cp)] = m.group(1).lower()
    return out


def _fold(text: str) -> str:
    """NFKC, case folded, decomposed with every combining mark removed (``Ţ``, ``T̶`` are ``t``), and the
    look-alikes of :data:`EXTRA_LOOKALIKES` and the small capitals as their letter."""
    s = unicodedata.normalize("NFKC", text).casefold()
    extra = _small_capitals()
    s = "".join(extra.get(c) or EXTRA_LOOKALIKES.get(c) or c for c in unicodedata.normalize("NFD", s))
    return "".join(c for c in s if not unicodedata.category(c).startswith("M"))


def _ts39(text: str) -> str:
    """Unicode TS #39's skeleton proper: NFD, each character as its ``confusables.txt`` prototype, NFD."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).translate(_prototypes()))


def _around(text: str) -> str:
    """``text`` without the number, dot or marks around it (``"teacher 2"``, ``"(prof.)"``)."""
    return regex.sub(r"^[^\p{L}]+|[^\p{L}]+$", "", text)


def _letters(key: str) -> str:
    """Only the letters of a skeleton (``"the teacher"`` is ``theteacher``); ``i`` and ``l``, which the skeleton
    keeps apart but a ``1`` stands for both, as one."""
    return regex.sub(r"[^\p{L}]+", "", key).replace("i", "l")


def _stable_ts39(text: str) -> str:
    """The TS #39 skeleton of a folded text, folded and taken again until it no longer changes (``т`` is ``ᴛ``, a
    small capital: ``t``)."""
    for _ in range(8):
        t = _fold(_ts39(text))
        if t == text:
            break
        text = t
    return text


def reserved_keys(name: Any) -> set[str]:
    """What ``name`` reads as, for the names kept for the teacher: the name after NFKC and case folding with its
    combining marks stripped (:func:`_fold`), without the number or marks around it, as it is and with its digits
    read as letters (``"T3acher"``, ``"@dmin"``); of each, the TS #39 confusable skeleton (:func:`_stable_ts39`)
    and the skeleton of the name in capitals (:func:`skeleton`: the look-alikes of capitals, ``I`` and ``l``),
    letters only.

    >>> sorted(reserved_keys("T\u0336eacher 2")), sorted(reserved_keys("ᴛᴇᴀᴄʜᴇʀ"))
    (['teacher'], ['teacher'])
    """
    folded = _fold(" ".join(_INVISIBLE.sub("", str(name)[:MAX_INPUT]).split()))
    forms = {_around(folded), _around(folded.translate(_LEET))}
    return {_letters(k) for f in forms for k in (_stable_ts39(f), _fold(skeleton(f)))}


@cache
def _reserved_cores() -> frozenset:
    return frozenset(k for r in RESERVED for k in reserved_keys(r))


def reserved(name: Any) -> bool:
    """True when ``name`` is, or looks like, a name kept for the teacher (:data:`RESERVED`), with or without
    a number, a dot or another mark around it: compared by :func:`reserved_keys` (look-alike letters of other
    scripts, small capitals, accents and strokes, digits for letters).

    >>> reserved("Teacher"), reserved("TEACHER 2"), reserved("T\u0435acher"), reserved("the  teacher")
    (True, True, True, True)
    >>> reserved("ᴛᴇᴀᴄʜᴇʀ"), reserved("Ţeacher"), reserved("T\u0336eacher"), reserved("ᏆeacheᏒ"), reserved("Т3асhег")
    (True, True, True, True, True)
    >>> reserved("Teach"), reserved("Ann"), reserved("Teacher's pet"), reserved("Mr Teacherson")
    (False, False, False, False)
    """
    return not reserved_keys(name).isdisjoint(_reserved_cores())


# every ASCII punctuation character (CommonMark lets each be escaped with a backslash)
_MD_PUNCT = regex.compile(r"([!-/:-@\[-`{-~])")
_WJ = "\u2060"  # WORD JOINER: invisible, no line break, and no letter or punctuation for a pattern to match


def for_markdown(name: Any) -> str:
    """A name for ``st.markdown``: it shows exactly as typed, and nothing in it is rendered.

    Every ASCII punctuation character is backslash-escaped (links ``[..](..)``, emphasis, headings, lists,
    tables, HTML, ``$`` maths, ``:red[…]`` directives). Streamlit also rewrites the *text* after parsing —
    shortcodes (``:smile:``), icons (``:material/warning:``), bare links (``www.…``, ``http://…``,
    ``a@b.c``) — where an escape no longer shows, so an invisible WORD JOINER (U+2060) also follows each
    ``:`` and ``@`` and surrounds each ``.``: no pattern of those matches, and nothing visible changes.

    >>> print(for_markdown("**x** [a](b)"))
    \\*\\*x\\*\\* \\[a\\]\\(b\\)
    >>> for_markdown("www.a.org").replace(_WJ, "|")
    'www|\\\\.|a|\\\\.|org'
    """
    s = " ".join(str(name).split())
    s = _MD_PUNCT.sub(r"\\\1", s)
    return s.replace("\\:", "\\:" + _WJ).replace("\\@", "\\@" + _WJ).replace("\\.", _WJ + "\\." + _WJ)


def for_plotly(name: Any) -> str:
    """A name for a Plotly text, hover text or label: ``&``, ``<`` and ``>`` as the entities Plotly decodes.

    Plotly draws a subset of HTML (``<b>``, ``<br>``, ``<a href>``…) and decodes only ``&amp; &lt; &gt;``,
    a few named entities and numeric ones, so ``&quot;`` would show as typed: quotes are left alone. Use it
    with ``hovertext``/``text``, never inside a ``hovertemplate`` (``%{…}`` there is a placeholder).

    >>> for_plotly("<br>&mu;"), for_plotly("say \\"hi\\"")
    ('&lt;br&gt;&amp;mu;', 'say "hi"')
    """
    return str(name).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def for_csv(name: Any) -> Any:
    """A name as a CSV cell: :func:`cae.data.csvio.safe_csv_cell` (a leading ``'`` before ``= + - @``)."""
    from ..data.csvio import safe_csv_cell

    return safe_csv_cell(name)


def _confusables_table(path: str, source: str) -> str:
    """The compact ``confusables.txt`` beside this module, made from Unicode's ``confusables.txt`` at ``path``."""
    import hashlib

    raw = Path(path).read_bytes()
    text = raw.decode("utf-8-sig")
    version = date = "?"
    rows = []
    for line in text.splitlines():
        if line.startswith("# Version:"):
            version = line.split(":", 1)[1].strip()
        elif line.startswith("# Date:"):
            date = line.split(":", 1)[1].split(",")[0].strip()
        body = line.split("#", 1)[0].strip()
        if body:
            src, dst, _ = (x.strip() for x in body.split(";"))
            rows.append(f"{src.lower()} {'+'.join(x.lower() for x in dst.split())}\n")
    head = (
        f"# The prototypes of Unicode's confusables.txt (UTS #39, Unicode Security Mechanisms), version {version}\n"
        f'# ({date}), compacted: one line per source code point, "SOURCE TARGET" in hexadecimal, a target of\n'
        '# several code points joined by "+". Read by cae/classroom/names.py (skeleton); nothing else is kept.\n'
        f"# Source: {source}\n"
        f"# (SHA-256 {hashlib.sha256(raw).hexdigest()}).\n"
        "# Regenerate: python -m cae.classroom.names --confusables PATH --source WORDS > this file.\n"
        f"# Data (c) {date[:4]} Unicode, Inc., under the Unicode License (Unicode Data Files and Software, see\n"
        "# https://www.unicode.org/license.txt): permission is granted to use, copy, modify and distribute it\n"
        "# with this notice.\n"
    )
    return head + "".join(rows)


if __name__ == "__main__":  # pragma: no cover - a maintainer's tool
    import argparse
    import sys

    ap = argparse.ArgumentParser(description="Write the compact confusables table from Unicode's confusables.txt")
    ap.add_argument("--confusables", required=True, help="path to Unicode's confusables.txt")
    ap.add_argument("--source", default="Unicode's confusables.txt", help="where that file came from, in words")
    args = ap.parse_args()
    sys.stdout.write(_confusables_table(args.confusables, args.source))

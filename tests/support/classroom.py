"""The Classroom through AppTest: a page session, joining a class, reading its numbers; and a class in a store.

The ``classroom``, ``make_store`` and ``store`` fixtures are in ``tests/conftest.py``.
"""

import json
import shutil
import subprocess

import pytest
from conftest import ROOT
from streamlit.testing.v1 import AppTest

#: a class's published state, as the teacher's page writes it
STATE = {"stream": "moons", "n": "250", "noise": "0", "seed": "1", "algo": "CAE", "t": "12"}

APP = str(ROOT / "app.py")


def _session(page="pages/classroom.py", **query):
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page(page)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def _metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def _follow_number(at, label):
    """A number of a following student's table (its HTML column ``label``), as shown."""
    import re

    for h in at.get("html"):
        heads = re.findall(r"<th[^>]*>([^<]*)</th>", h.proto.body)
        values = re.findall(r"<td[^>]*><b>([^<]*)</b></td>", h.proto.body)
        if label in heads and len(heads) == len(values):
            return values[heads.index(label)]
    raise LookupError(f"no column {label!r} in the page's tables")


def _seen(at):
    return int(_metric(at, "Samples seen").split("/")[0].replace(",", ""))


def _join(code, nickname):
    s = _session(room=code)
    s.text_input(key="w_room_nick").input(nickname)
    next(b for b in s.button if b.label == "Join").click().run()
    assert not s.exception
    return s


def _chart_counts(at):
    """The bars of the teacher's answers chart: the counts of each part (case; edge; node)."""
    spec = json.loads(next(c for c in at.get("plotly_chart") if "answer" in c.proto.spec).proto.spec)
    bars = [d for d in spec["data"] if d["type"] == "bar"]
    return [b["x"] for b in bars]


def _room(store):
    code, token = store.create_room()
    store.publish(code, token, STATE)
    return code, token


def chattr(flag, path):
    """``chattr flag path`` for real (``+i``: the file immutable, even to root); the test skips, saying why, where
    it is not allowed (it needs root, on ext4 or xfs)."""
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed (e2fsprogs)")
    r = subprocess.run(["chattr", flag, str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"chattr {flag} is not allowed here ({r.stderr.strip()[:120]}): it needs root on ext4/xfs")

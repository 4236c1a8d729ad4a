"""Smooth play: the server computes the next frames of a run and the browser animates them.

No Streamlit here. While the Playground plays, the browser holds a small queue of frames and
draws one after another at the speed the class chose (plotly.js ``Plotly.react`` on one plot
that stays on the page: no frame is ever an empty plot); when its queue runs low it asks for
more, and the server steps the run on and answers with the next frames. Pause stops on the
frame shown and tells the server which one it was: :meth:`PlaySession.pause` brings the run
back to exactly that step (:meth:`~cae.app.stepper.Stepper.rewind`), so the still view after
Pause is the model's state at that step.

Each frame is the page's own main view (the ``draw`` callable, the same figure builder as the
still view, serialised as ``st.plotly_chart`` serialises it) and the panel beside it
(:func:`cae.app.panel.panel`: the numbers the still view shows too), so an animated frame looks
exactly like the view after Pause. A chunk of frames travels as UTF-8 JSON bytes
(:func:`encode_chunk`); coordinates inside are plotly.js typed arrays (base64). The first frame of a
chunk is the whole figure and each later one only what changed since the frame before it
(:func:`figure_patch`: the data seen grow at the end, the recent window slides, a few nodes move): a
frame of 800 nodes is about a tenth of the bytes, which is what lets the browser take the frames in
while it animates (its page reads a large message in small pieces between the frames it draws).

The browser half is ``player_frontend/`` (plain JavaScript, no build step) and the Streamlit
glue is ``cae/streamlit_glue/player.py``.

Examples
--------
>>> from cae.app.figures import network_figure
>>> from cae.app.stepper import Stepper
>>> from cae.data import make_paper2d, nonstationary_stream
>>> pg = Stepper(nonstationary_stream(make_paper2d(200, seed=0), seed=0))
>>> play = PlaySession(pg, epoch=1)
>>> draw = lambda p: network_figure(p.model, current=p.stream.X[p.t - 1])
>>> chunk = decode_chunk(play.chunk(0, 3, 20, draw, lambda p: panel(p)))
>>> [f["t"] for f in chunk["frames"]], chunk["seq"], pg.t
([20, 40, 60], 0, 60)
>>> chunk["frames"][2]["figure"] == figure_dict(draw(pg))  # the whole figure again, from the patches
True
>>> rec = play.pause(40)  # the browser showed the frame of step 40 when the class pressed Pause
>>> pg.t, pg.t_max, rec.t
(40, 40, 40)
"""

from __future__ import annotations

import base64
import difflib
import json
import math
import time
from pathlib import Path

import numpy as np

from .panel import fmt, panel

__all__ = [
    "FRONTEND",
    "PlaySession",
    "figure_json",
    "figure_dict",
    "figure_patch",
    "apply_patch",
    "panel",
    "fmt",
    "encode_chunk",
    "decode_chunk",
    "frames_wanted",
    "side_series",
]

#: the browser half: index.html and player.js (package data)
FRONTEND = Path(__file__).with_name("player_frontend")

#: frames per answer: at least this many, at most MAX_CHUNK
MIN_CHUNK, MAX_CHUNK = 2, 45
#: an answer covers this many seconds of play at the browser's speed (a request and its answer cost
#: a rerun of the fragment each, so fewer, larger answers leave more of the time for computing frames)
LEAD_SECONDS = 1.5
#: removed-node marks kept per frame for Pause (the newest frames)
KEEP_DELETED = 400


def figure_json(fig):
    """A Plotly figure as the JSON text plotly.js draws — exactly what ``st.plotly_chart`` sends for it."""
    import plotly.io as pio

    return pio.to_json(fig, validate=False)


def figure_dict(fig):
    """A Plotly figure as the plain objects of :func:`figure_json`'s text (arrays as plotly.js typed-array specs).

    A figure given as plain data (:func:`cae.app.figures.network_spec`: Play's frames) is encoded directly — its
    NumPy arrays as typed-array specs, its ``None`` values left out, as Plotly writes them — without building a
    Plotly figure or its template (a third of a frame's time).

    >>> import numpy as np
    >>> figure_dict({"data": [{"x": np.array([0.5], np.float32), "name": None}], "layout": {"height": None}})
    {'data': [{'x': {'dtype': 'f4', 'bdata': 'AAAAPw=='}}], 'layout': {}}
    """
    if isinstance(fig, dict):
        return _plain(fig)
    return json.loads(figure_json(fig))


def _plain(v):
    """Plain JSON objects of a figure's data: NumPy arrays as typed-array specs, None left out of objects."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items() if x is not None}
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "iu" and v.dtype.itemsize == 8:  # plotly.js has no 64-bit integer arrays
            v = v.astype(np.int32)
        return _typed(v) if v.dtype.kind in "fiu" and v.ndim == 1 else _plain(v.tolist())
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    return v


def _to_json(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


# ------------------------------------------------------------------ frames as patches
# A patch turns the previous frame's figure into the next one. Objects are patched key by key (keys
# that did not change are left out; "$del" lists the keys gone); an array that changed little is one of
#   {"$set": [indices, values]}           same length, these elements replaced
#   {"$splice": [a, p, s, middle]}        old[a:] keeps its first p and last s elements, middle between
# a long SVG path (the edges) is {"$text": ["M", [[i1, i2, pieces], ...]]}: its pieces between the "M"s
# with old pieces i1:i2 replaced by these (in order); a list of objects of the same length (the layout's
# shapes) is {"$items": [patch of each]}; and anything else is the new value itself. Typed arrays
# ({"dtype", "bdata"}, of the dtypes the player decodes) stay typed arrays.
_SAME = object()
_PATCHED_DTYPES = {"f8", "f4", "i4", "i2", "i1", "u4", "u2", "u1"}  # player.js's TYPED


def _is_typed(v):
    return isinstance(v, dict) and "bdata" in v and "dtype" in v


def _typed_array(v):
    return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]).newbyteorder("<"))


def _typed(a):
    a = np.ascontiguousarray(a)
    return {"dtype": f"{a.dtype.kind}{a.dtype.itemsize}", "bdata": base64.b64encode(a.tobytes()).decode("ascii")}


def _first_difference(a, b):
    """How many leading elements a and b share (NumPy arrays of one dtype, compared bit for bit, or lists)."""
    n = min(len(a), len(b))
    if isinstance(a, np.ndarray):
        diff = np.flatnonzero(_bits(a[:n]) != _bits(b[:n]))
        return int(diff[0]) if len(diff) else n
    for i in range(n):
        if a[i] != b[i] or type(a[i]) is not type(b[i]):
            return i
    return n


def _bits(a):
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind in "fc" else a


def _sequence_patch(old, new):
    """The cheapest of $set, $splice or the new value for two arrays (both NumPy of one dtype, or both lists)."""
    typed = isinstance(new, np.ndarray)
    wrap = _typed if typed else list
    n_old, n_new = len(old), len(new)
    if n_old == n_new and n_new:
        changed = (
            np.flatnonzero(_bits(old) != _bits(new))
            if typed
            else [i for i in range(n_new) if old[i] != new[i] or type(old[i]) is not type(new[i])]
        )
        if len(changed) == 0:
            return _SAME
        if 3 * len(changed) < n_new:
            idx = np.asarray(changed, dtype=np.int32)
            return {
                "$set": [_typed(idx) if typed else idx.tolist(), wrap(new[idx] if typed else [new[i] for i in idx])]
            }
    # the window that slides: old[a:] begins new (a = 0: new begins with old, e.g. the data seen grew)
    a = 0
    if n_old and n_new and _first_difference(old, new) == 0:
        first = new[0]
        starts = (
            np.flatnonzero(_bits(old) == _bits(new[:1])[0]) if typed else [i for i, v in enumerate(old) if v == first]
        )
        for k in starts[:8]:
            if _first_difference(old[k:], new) >= min(n_old - k, n_new):
                a = int(k)
                break
    base = old[a:]
    p = _first_difference(base, new)
    room = min(len(base), n_new) - p
    s = _first_difference(base[::-1][:room], new[::-1][:room]) if room > 0 else 0
    middle = new[p : n_new - s]
    if 2 * len(middle) > n_new or (p + s) < 16:
        return wrap(new)
    return {"$splice": [a, p, s, wrap(middle)]}


def _text_patch(old, new):
    """A long path string (``"M…L…M…L…"``, the edges) as edits of its pieces between "M"s, when smaller."""
    if len(new) < 512 or not old.startswith("M") or not new.startswith("M"):
        return new
    a, b = old.split("M")[1:], new.split("M")[1:]
    ops = [
        [i1, i2, b[j1:j2]]
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        if tag != "equal"
    ]
    if sum(8 + sum(len(x) + 3 for x in items) for _, _, items in ops) > len(new) // 2:
        return new
    return {"$text": ["M", ops]}


def _patch(old, new):
    if isinstance(old, dict) and isinstance(new, dict) and not _is_typed(old) and not _is_typed(new):
        out = {}
        for k, v in new.items():
            d = _patch(old[k], v) if k in old else v
            if d is not _SAME:
                out[k] = d
        gone = [k for k in old if k not in new]
        if gone:
            out["$del"] = gone
        return out if out else _SAME
    if _is_typed(old) and _is_typed(new):
        if old == new:
            return _SAME
        if old["dtype"] != new["dtype"] or new["dtype"] not in _PATCHED_DTYPES or "shape" in old or "shape" in new:
            return new
        d = _sequence_patch(_typed_array(old), _typed_array(new))
        return new if isinstance(d, dict) and not ("$set" in d or "$splice" in d) else d
    if isinstance(old, list) and isinstance(new, list):
        if old == new and all(type(x) is type(y) for x, y in zip(old, new)):
            return _SAME
        if len(old) == len(new) and all(isinstance(x, dict) and isinstance(y, dict) for x, y in zip(old, new)):
            items = [_patch(x, y) for x, y in zip(old, new)]  # e.g. the layout's shapes: each patched
            return {"$items": [{} if d is _SAME else d for d in items]}
        return _sequence_patch(old, new)
    if type(old) is type(new) and old == new:
        return _SAME
    if isinstance(old, str) and isinstance(new, str):
        return _text_patch(old, new)
    return new


def figure_patch(old, new):
    """The patch that turns figure ``old`` into ``new`` (both as :func:`figure_dict` gives them).

    The figures' traces are patched one by one when both list the same traces (type and name) in the
    same order; otherwise the patch holds every trace whole. :func:`apply_patch` (and the player's
    JavaScript) undo it.

    >>> a = {"data": [{"type": "scattergl", "name": "data seen", "x": list(range(40))}], "layout": {"height": 560}}
    >>> b = {"data": [{"type": "scattergl", "name": "data seen", "x": list(range(43))}], "layout": {"height": 560}}
    >>> figure_patch(a, b)
    {'data': [{'x': {'$splice': [0, 40, 0, [40, 41, 42]]}}]}
    >>> apply_patch(a, figure_patch(a, b)) == b
    True
    """

    def keys(fig):
        seen = {}
        out = []
        for d in fig.get("data", []):
            k = (d.get("type"), d.get("name"))
            seen[k] = seen.get(k, 0) + 1
            out.append((*k, seen[k]))
        return out

    out = {}
    old_keys, new_keys = keys(old), keys(new)
    if old_keys == new_keys:
        data = [_patch(o, n) for o, n in zip(old["data"], new["data"])]
        if any(d is not _SAME for d in data):
            out["data"] = [{} if d is _SAME else d for d in data]
    else:  # traces came or went (s1 and s2, the nodes just removed): each trace from the old one of its name
        where = {k: i for i, k in enumerate(old_keys)}
        data = []
        for k, n in zip(new_keys, new["data"]):
            i = where.get(k, -1)
            d = _patch(old["data"][i], n) if i >= 0 else n
            data.append([i, {} if d is _SAME else d])
        out["data"] = {"$from": data}
    lay = _patch(old.get("layout", {}), new.get("layout", {}))
    if lay is not _SAME:
        out["layout"] = lay
    return out


def _apply(old, p):
    if isinstance(p, dict) and not _is_typed(p):
        if "$set" in p:
            typed = _is_typed(p["$set"][1])
            out = _typed_array(old).copy() if typed else list(old)
            idx = _typed_array(p["$set"][0]) if typed else p["$set"][0]
            vals = _typed_array(p["$set"][1]) if typed else p["$set"][1]
            for i, v in zip(idx, vals):
                out[int(i)] = v
            return _typed(out) if typed else out
        if "$splice" in p:
            a, pre, suf, mid = p["$splice"]
            typed = _is_typed(mid)
            base = _typed_array(old) if typed else old
            base = base[a:]
            mid = _typed_array(mid) if typed else mid
            if typed:
                return _typed(np.concatenate([base[:pre], mid, base[len(base) - suf :]]))
            return list(base[:pre]) + list(mid) + list(base[len(base) - suf :])
        if "$items" in p:
            return [_apply(o, d) if d else o for o, d in zip(old, p["$items"])]
        if "$text" in p:
            sep, ops = p["$text"]
            pieces = old.split(sep)[1:]
            out, at = [], 0
            for i1, i2, items in ops:
                out += pieces[at:i1] + items
                at = i2
            out += pieces[at:]
            return sep + sep.join(out) if out else ""
        if isinstance(old, dict) and not _is_typed(old):
            out = dict(old)
            for k in p.get("$del", ()):
                out.pop(k, None)
            for k, v in p.items():
                if k != "$del":
                    out[k] = _apply(old[k], v) if k in old else v
            return out
    return p


def apply_patch(old, patch):
    """The figure that ``patch`` (:func:`figure_patch`) makes of ``old``."""
    data = patch.get("data")
    if isinstance(data, dict):
        new_data = [d if i < 0 else _apply(old["data"][i], d) for i, d in data["$from"]]
    elif data is None:
        new_data = old["data"]
    else:
        new_data = [_apply(o, d) for o, d in zip(old["data"], data)]
    return {
        "data": new_data,
        "layout": _apply(old.get("layout", {}), patch["layout"]) if "layout" in patch else old["layout"],
    }


def side_series(pg, since=None, max_points=600):
    """The traces beside the picture (:data:`cae.app.figures.traces.SIDE_TRACES`: λ, V and a_max for CAE, the
    network's size for the others) as Play sends them with a frame: the recorded steps after ``since`` (None: from
    the start, at most ``max_points`` of them, evenly), as ``{"names", "modes", "t", "v"}`` with one list of values
    per name (None where a value is not defined yet).

    >>> from cae.app.stepper import Stepper
    >>> from cae.data import make_paper2d, nonstationary_stream
    >>> pg = Stepper(nonstationary_stream(make_paper2d(100, seed=0), seed=0))
    >>> _ = pg.step(30)
    >>> s = side_series(pg, since=28)
    >>> s["names"], s["t"]
    (['λ', 'V', 'a_max'], [29, 30])
    """
    from .figures.traces import SIDE_TRACES, thin

    columns = {c: k for k, c in enumerate(pg.columns)}
    rows = SIDE_TRACES["cae" if "threshold" in columns else "size"]
    trace = pg.trace_so_far
    t = trace[:, columns["t"]] if len(trace) else np.zeros(0)
    keep = t > since if since is not None else np.ones(len(t), bool)
    idx = np.flatnonzero(keep)
    if since is None and len(idx) > max_points:
        idx = thin(idx, max_points=max_points)[0]
    elif len(idx) > 8:  # a frame of many samples: its last few steps are enough for a line
        idx = idx[np.linspace(0, len(idx) - 1, 8).astype(int)]

    def values(key):
        v = trace[idx, columns[key]]
        return [float(x) if np.isfinite(x) else None for x in v]

    return {
        "names": [r[0].split(" (")[0] for r in rows],
        "modes": [r[2] for r in rows],
        "t": [int(x) for x in t[idx]],
        "v": [values(r[1]) for r in rows],
    }


def frames_wanted(fps, first=False):
    """How many frames one answer holds: ``LEAD_SECONDS`` of play at ``fps`` (the first answer: a few, at once).

    >>> frames_wanted(15), frames_wanted(15, first=True), frames_wanted(1000), frames_wanted(0)
    (23, 4, 45, 2)
    """
    if first:
        return 4
    fps = float(fps) if fps and math.isfinite(float(fps)) else 0.0
    return int(min(MAX_CHUNK, max(MIN_CHUNK, math.ceil(fps * LEAD_SECONDS))))


def encode_chunk(frames, *, epoch, seq, final, n_samples, t_start, timing=None):
    """A chunk of frames as UTF-8 JSON bytes: the first frame's figure whole, each later one as a patch.

    ``frames`` is a list of ``(t, figure, panel_dict)`` with ``figure`` as :func:`figure_dict` gives it.
    The JSON object has ``epoch``, ``seq`` (the request it answers), ``final`` (the stream ends with
    the last frame), ``n_samples``, ``t_start`` (the step play started from), ``timing`` (the server's
    clock when it began and finished computing, in ms since the epoch: the browser test tells the
    computing from the way there and back) and ``frames``: a list of ``{"t", "panel", "figure"}`` for
    the first and ``{"t", "panel", "patch"}`` (:func:`figure_patch` from the frame before) for the rest.
    :func:`decode_chunk` gives every frame's figure whole again.
    """
    head = {
        "epoch": int(epoch),
        "seq": int(seq),
        "final": bool(final),
        "n_samples": int(n_samples),
        "t_start": int(t_start),
        "timing": list(timing or ()),
    }
    body = []
    prev = None
    for t, fig, p in frames:
        item = {"t": int(t), "panel": p}
        if prev is None:
            item["figure"] = fig
        else:
            item["patch"] = figure_patch(prev, fig)
        body.append(item)
        prev = fig
    return _to_json({**head, "frames": body}).encode("utf-8")


def decode_chunk(data):
    """The chunk :func:`encode_chunk` wrote, as Python objects, every frame's ``figure`` whole (for tests
    and the benchmark; the player's JavaScript does the same)."""
    c = json.loads(bytes(data).decode("utf-8"))
    prev = None
    for f in c["frames"]:
        if "patch" in f:
            f["figure"] = apply_patch(prev, f.pop("patch"))
        prev = f["figure"]
    return c


class PlaySession:
    """The server's half of one play: frames computed ahead, requests answered, Pause.

    Parameters
    ----------
    pg : cae.app.stepper.Stepper
        The run; it is stepped on as frames are computed (``pg.t`` is the step of the newest
        frame sent, which the browser shows a little later).
    epoch : int
        A number naming this play; the browser drops frames of any other.

    Attributes
    ----------
    t_start : int
        The step play started from.
    served : int
        The last request answered (-1: none yet).
    shown : int
        The step the browser last said it was showing (``t_start`` until it says).
    t_sent : int
        The step of the newest frame sent (the run's step right after an answer).
    """

    def __init__(self, pg, epoch):
        self.pg = pg
        self.epoch = int(epoch)
        self.t_start = int(pg.t)
        self.served = -1
        self.shown = int(pg.t)
        self.t_sent = int(pg.t)
        self._deleted = {}
        self._series_to = None  # the last step whose traces were sent (None: none yet)

    def frames(self, n, samples_per_frame, draw, describe):
        """Step the run ``n`` times by ``samples_per_frame`` (fewer at the end of the stream) and draw each step.

        ``draw(pg)`` returns the frame's Plotly figure, ``describe(pg)`` its panel (see :func:`panel`).
        Returns a list of ``(t, figure, panel_dict)``, the figure as :func:`figure_dict` gives it.
        """
        out = []
        spf = max(1, int(samples_per_frame))
        for _ in range(max(0, int(n))):
            if self.pg.finished:
                break
            self.pg.step(spf)
            t = int(self.pg.t)
            self._deleted[t] = np.array(self.pg.deleted_in_frame, copy=True)
            p = describe(self.pg)
            # the traces beside the picture: their history with the play's first frame, then each frame's new steps
            p["series"] = side_series(self.pg, since=self._series_to)
            self._series_to = t
            out.append((t, figure_dict(draw(self.pg)), p))
        for old in sorted(self._deleted)[:-KEEP_DELETED]:
            del self._deleted[old]
        return out

    def chunk(self, seq, n, samples_per_frame, draw, describe):
        """Answer request ``seq`` with the next ``n`` frames, encoded (:func:`encode_chunk`)."""
        began = time.time()
        frames = self.frames(n, samples_per_frame, draw, describe)
        self.served = max(self.served, int(seq))
        self.t_sent = int(self.pg.t)
        return encode_chunk(
            frames,
            epoch=self.epoch,
            seq=seq,
            final=self.pg.finished,
            n_samples=len(self.pg.stream),
            t_start=self.t_start,
            timing=(round(began * 1000, 1), round(time.time() * 1000, 1)),
        )

    def is_new(self, request):
        """True if ``request`` (the browser's message) belongs to this play and has not been answered."""
        return (
            isinstance(request, dict)
            and request.get("epoch") == self.epoch
            and isinstance(request.get("seq"), int)
            and request["seq"] > self.served
        )

    def note_shown(self, request):
        """Remember the step the browser says it shows (clamped to the frames computed)."""
        t = request.get("shown") if isinstance(request, dict) else None
        if isinstance(t, (int, float)) and math.isfinite(t):
            self.shown = int(min(max(int(t), self.t_start), self.pg.t))
        return self.shown

    def pause(self, t):
        """Bring the run back to step ``t`` (the frame the browser stopped on) and forget the frames after it.

        ``t`` is clamped to the steps of this play (``t_start`` to the newest frame). The nodes that
        frame marked as removed are marked again. Returns the step's record.
        """
        t = int(min(max(int(t), self.t_start), self.pg.t))
        self.shown = t
        rec = self.pg.rewind(t)
        gone = self._deleted.get(t)
        if gone is not None:
            self.pg.deleted_in_frame = gone
        return rec

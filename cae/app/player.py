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
(:func:`panel`: the same numbers as the still view's metrics), so an animated frame looks
exactly like the view after Pause. A chunk of frames travels as UTF-8 JSON bytes
(:func:`encode_chunk`); coordinates inside are plotly.js typed arrays (base64).

The browser half is ``player_frontend/`` (plain JavaScript, no build step) and the Streamlit
glue is ``pages/_player.py``.

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
>>> rec = play.pause(40)  # the browser showed the frame of step 40 when the class pressed Pause
>>> pg.t, pg.t_max, rec.t
(40, 40, 40)
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

__all__ = [
    "FRONTEND",
    "PlaySession",
    "figure_json",
    "panel",
    "fmt",
    "encode_chunk",
    "decode_chunk",
    "frames_wanted",
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


def fmt(v):
    """A metric value as the panel shows it: "—" for none, 3 decimals for a float, thousands separators.

    >>> fmt(None), fmt(float("nan")), fmt(0.12345), fmt(12000)
    ('—', '—', '0.123', '12,000')
    """
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.3f}"
    return f"{int(v):,}"


def panel(pg, score_noise=False):
    """The numbers beside the main view at the Stepper's step: the still view and every frame show these.

    Returns a dict: ``metrics`` (a list of ``[label, value]``: samples seen — with a third item,
    "of N" —, the current stream, #nodes, #clusters, NMI, ARI, λ, V), ``note`` (what NMI/ARI were computed on), ``network`` (a
    one-line count), ``last`` (what the last step did, or "") and ``finished``.

    >>> from cae.app.stepper import Stepper
    >>> from cae.data import make_paper2d, nonstationary_stream
    >>> pg = Stepper(nonstationary_stream(make_paper2d(100, seed=0), seed=0))
    >>> _ = pg.step(30)
    >>> p = panel(pg)
    >>> p["metrics"][0], p["last"][:7]
    (['Samples seen', '30', 'of 660'], 't = 30:')
    """
    from .explanations import headline

    m = pg.live_metrics(score_noise=score_noise)
    model = pg.model
    lam = getattr(model, "deletion_interval_", None) if pg.t else None
    thr = getattr(model, "threshold_", float("nan")) if pg.t else float("nan")
    metrics = [
        ["Samples seen", f"{m['samples seen']:,}", f"of {len(pg.stream):,}"],
        ["Current stream", str(m["stage"])],
        ["#nodes", fmt(m["nodes"])],
        ["#clusters", fmt(m["clusters"])],
        ["NMI", fmt(m["NMI"])],
        ["ARI", fmt(m["ARI"])],
        ["λ", fmt(lam)],
        ["V", fmt(thr)],
    ]
    network = ""
    if pg.t and hasattr(model, "network_"):
        network = f"network: {len(model.nodes_):,} nodes · {len(model.edges_):,} edges · {model.n_clusters_:,} clusters"
    note = "NMI/ARI against the true labels of the data seen so far"
    if m["thinned"]:
        note += f" (an even sample of them, {m['metric sample']:,} scored)"
    if pg.stream.noise_label is not None:
        note += (
            "; the noise counts as a class of its own"
            if score_noise
            else "; the uniform noise is learned but not scored, as in the paper"
        )
    return {
        "metrics": metrics,
        "note": note + ".",
        "network": network,
        "last": headline(pg.record) if pg.record is not None else "",
        "finished": bool(pg.finished),
    }


def figure_json(fig):
    """A Plotly figure as the JSON text plotly.js draws — exactly what ``st.plotly_chart`` sends for it."""
    import plotly.io as pio

    return pio.to_json(fig, validate=False)


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
    """A chunk of frames as UTF-8 JSON bytes (the figure texts are inserted as they are, not re-encoded).

    ``frames`` is a list of ``(t, figure_json_text, panel_dict)``. The JSON object has ``epoch``,
    ``seq`` (the request it answers), ``final`` (the stream ends with the last frame),
    ``n_samples``, ``t_start`` (the step play started from), ``timing`` (the server's clock when it
    began and finished computing, in ms since the epoch: the browser test tells the computing from
    the way there and back) and ``frames``: a list of ``{"t", "panel", "figure"}``.
    """
    head = json.dumps(
        {
            "epoch": int(epoch),
            "seq": int(seq),
            "final": bool(final),
            "n_samples": int(n_samples),
            "t_start": int(t_start),
            "timing": list(timing or ()),
        }
    )
    body = ",".join(
        '{"t":' + str(int(t)) + ',"panel":' + json.dumps(p, ensure_ascii=False) + ',"figure":' + fig + "}"
        for t, fig, p in frames
    )
    return (head[:-1] + ',"frames":[' + body + "]}").encode("utf-8")


def decode_chunk(data):
    """The chunk :func:`encode_chunk` wrote, as Python objects (for tests and the benchmark)."""
    return json.loads(bytes(data).decode("utf-8"))


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

    def frames(self, n, samples_per_frame, draw, describe):
        """Step the run ``n`` times by ``samples_per_frame`` (fewer at the end of the stream) and draw each step.

        ``draw(pg)`` returns the frame's Plotly figure, ``describe(pg)`` its panel (see :func:`panel`).
        Returns a list of ``(t, figure_json_text, panel_dict)``.
        """
        out = []
        spf = max(1, int(samples_per_frame))
        for _ in range(max(0, int(n))):
            if self.pg.finished:
                break
            self.pg.step(spf)
            t = int(self.pg.t)
            self._deleted[t] = np.array(self.pg.deleted_in_frame, copy=True)
            out.append((t, figure_json(draw(self.pg)), describe(self.pg)))
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

"""The runs a room's students share in one app process: one run per lesson state, its views cached.

A following student's page needs the network at the teacher's step ``t`` of the teacher's stream and
algorithm. That is a pure function of the lesson state (CAE is deterministic), so every student of every
room with the same stream and parameters shares one :class:`SharedRun` — one
:class:`~cae.app.stepper.Stepper` (its stream, trace and rewinding snapshots: about 96 MB at the paper's
size of 99,000 samples) — and one :class:`StepView` per recent step (the model at that step, its record,
the figures and metrics drawn from it). A student keeps only their view state (room, id, which version
they have drawn); the rest is shared, read-only, under locks (the sessions of a Streamlit server are
threads).

Examples
--------
>>> runs = SharedRuns(max_runs=2)
>>> state = {"stream": "moons", "n": "250", "noise": "0", "seed": "1", "algo": "CAE", "t": "40"}
>>> run, t = runs.for_state(state)
>>> view = run.view(t)
>>> view.t, view.record.t, len(view.model.nodes_) > 0
(40, 40, True)
>>> again, _ = runs.for_state(dict(state, t="41"))
>>> again is run, run.view(41).record.t
(True, 41)
>>> view.live_metrics()["samples seen"]
40
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

import numpy as np

__all__ = ["SharedRun", "SharedRuns", "StepView", "run_key", "SHARED"]


class StepView:
    """The network after step ``t`` of a shared run, read-only, with a cache for what pages draw from it.

    It has the attributes the Playground's drawing code reads of a :class:`~cae.app.stepper.Stepper`
    (``stream``, ``t``, ``model``, ``record``, ``seen``, ``live_metrics``), so the same functions draw it.
    ``probe`` is the record of the *next* step (what CAE will do with sample ``t + 1``), for questions.
    """

    def __init__(self, run, t, model, record):
        from ..app.stepper import Stepper

        self._seen = Stepper.seen
        self._metrics = Stepper.live_metrics
        self.run = run
        self.stream = run.stepper.stream
        self.t = int(t)
        self.model = model
        self.record = record
        self.deleted_in_frame = None
        self._cache = {}
        self._lock = threading.RLock()  # a cached thing may be made of another (made while the lock is held)

    @property
    def finished(self):
        return self.t >= len(self.stream)

    def seen(self, max_points=5000):
        return self._seen(self, max_points)

    def live_metrics(self, max_points=5000, score_noise=False):
        return self.cached(
            ("metrics", max_points, bool(score_noise)), lambda: self._metrics(self, max_points, score_noise)
        )

    def cached(self, key, make):
        """``make()`` once per key for every student of every room that draws this step."""
        with self._lock:
            if key not in self._cache:
                self._cache[key] = make()
            return self._cache[key]

    def summary(self):
        """What the network at this step shows, in words (:func:`cae.app.explanations.view_summary`): the text
        a screen reader reads in place of the picture — the step, what it did, the nodes, edges and clusters."""
        from ..app.explanations import view_summary

        return view_summary(self.model, self.t, self.record, len(self.stream))

    def picture(self, width=None, height=None, max_points=2000):
        """The network at this step as a static SVG picture, ``(data URL, alternative text)``, built once.

        What a following student's page shows by default (the interactive chart on demand): a page sends a
        data URL it did not build, instead of serialising a Plotly figure for every student at every step.
        Its size defaults to the run's :attr:`SharedRun.picture_size` (the data's shape, no empty margins: the
        page scales it to the screen). 2-D streams only (None otherwise).

        >>> runs = SharedRuns(max_runs=1)
        >>> run, t = runs.for_state({"stream": "moons", "n": "250", "noise": "0", "seed": "1", "t": "40"})
        >>> url, alt = run.view(t).picture()
        >>> url.startswith("data:image/svg+xml;base64,"), alt.startswith("The network at step t = 40 of 500.")
        (True, True)
        >>> run.view(t).picture()[0] is url
        True
        """
        X = self.stream.X
        if X.shape[1] != 2:
            return None
        if width is None or height is None:
            width, height = self.run.picture_size

        def make():
            import base64

            from ..app.figures import network_svg
            from ..app.stepper import drawn_sample

            lo, hi = self.run.bounds
            model = self.model
            alt = self.summary()
            seen = X[drawn_sample(self.t, max_points=max_points)]
            if self.t:
                svg = network_svg(
                    model, seen, ((lo[0], hi[0]), (lo[1], hi[1])), width, height, max_points, alt, X[self.t - 1]
                )
            else:
                empty = type("Empty", (), {"nodes_": [], "edges_": [], "node_labels_": [], "win_counts_": []})
                svg = network_svg(empty, seen, ((lo[0], hi[0]), (lo[1], hi[1])), width, height, max_points, alt)
            return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii"), alt

        return self.cached(("picture", width, height, max_points), make)

    @property
    def probe(self):
        """The record of step t + 1 (None at the end of the stream), learned on a copy."""

        def make():
            if self.finished:
                return None
            return self.model.snapshot().learn_one(self.stream.X[self.t])

        return self.cached("probe", make)

    @property
    def sample(self):
        """The sample of step t (None at t = 0)."""
        return self.stream.X[self.t - 1] if self.t else None


class SharedRun:
    """One stream and algorithm (a lesson state without its step), learned as far as anyone asked.

    Parameters
    ----------
    cfg : dict
        A Playground configuration (``source``, ``n_per_class``, ``noise``, ``seed``, ``algo``, ``lam``,
        ``amax``).
    placed : list of (position, x0, x1)
        Samples placed by hand, as a lesson link carries them.
    keep_views : int
        How many recent steps keep their :class:`StepView`.
    """

    def __init__(self, cfg, placed=(), keep_views=8):
        from ..app.stepper import Stepper
        from ..app.streams import make_stream

        params = dict(deletion_interval=int(cfg["lam"]), max_edge_age=int(cfg["amax"])) if cfg["algo"] == "CAEA" else {}
        self.cfg = dict(cfg)
        self.stepper = Stepper(make_stream(cfg), **params)
        if placed and self.stepper.stream.X.shape[1] == 2:
            try:
                self.stepper.with_placed([(int(p), np.array([x0, x1])) for p, x0, x1 in placed])
            except ValueError:
                self.stepper.reset()
        X = self.stepper.stream.X
        #: the plotted area of the stream (lows, highs), for every picture of this run
        self.bounds = (X.min(axis=0), X.max(axis=0))
        self.keep_views = int(keep_views)
        self._views = OrderedDict()
        self._lock = threading.RLock()
        self.used = time.monotonic()

    def __len__(self):
        return len(self.stepper.stream)

    #: the pictures' width in pixels (they are scaled to the screen: what matters is their shape)
    PICTURE_WIDTH = 720

    @property
    def picture_size(self):
        """``(width, height)`` of this run's pictures: the data's own shape (between 3:4 and 5:2), plus the line
        of counts under it, so that a picture scaled to the screen has no empty margins beside the data.

        >>> run, _ = SharedRuns(1).for_state({"stream": "paper2d-ns", "n": "250", "seed": "0"})
        >>> run.picture_size
        (720, 741)
        """
        (x0, y0), (x1, y1) = self.bounds
        dx, dy = float(x1 - x0) or 1.0, float(y1 - y0) or 1.0
        ratio = min(max(dx / dy, 0.75), 2.5)
        width = self.PICTURE_WIDTH
        return width, int(round((width - 20) / ratio + 20 + 26))

    def view(self, t):
        """The :class:`StepView` of step ``t`` (clamped to the stream), learning up to it if needed."""
        self.used = time.monotonic()
        t = int(min(max(int(t), 0), len(self.stepper.stream)))
        with self._lock:
            v = self._views.get(t)
            if v is not None:
                self._views.move_to_end(t)
                return v
            pg = self.stepper
            if t > pg.t_max:
                if pg.t < pg.t_max:
                    pg.go_to(pg.t_max)
                pg.step(t - pg.t)
            if t == 0:
                model, record = pg._new_model(), None
            else:
                record, model, _ = pg.inspect(t)
            v = StepView(self, t, model, record)
            self._views[t] = v
            while len(self._views) > self.keep_views:
                self._views.popitem(last=False)
            return v


def run_key(cfg, placed):
    keys = ("source", "n_per_class", "noise", "seed", "algo") + (("lam", "amax") if cfg["algo"] == "CAEA" else ())
    return tuple((k, cfg[k]) for k in keys), tuple(placed)


class SharedRuns:
    """The process's shared runs, by lesson state; the least recently used go beyond ``max_runs``."""

    def __init__(self, max_runs=6):
        self.max_runs = int(max_runs)
        self._runs = OrderedDict()
        self._lock = threading.Lock()
        self._making = {}
        self._last = None  # (state, run, t) of the last call

    def for_state(self, state):
        """``(SharedRun, t)`` for a lesson state (a Playground query dict, as the teacher published it).

        The same state object as the last call (every student's page reads the one the store's shared poll
        returned) is answered without parsing it again, while its run is still kept.
        """
        last = self._last
        if last is not None and last[0] is state and last[1] in self._runs.values():
            return last[1], last[2]
        run, t = self._for_state(state)
        self._last = (state, run, t)
        return run, t

    def _for_state(self, state):
        from ..app.lesson_links import PLAYGROUND_DEFAULTS, parse_playground
        from ..app.streams import SOURCES

        parsed, _ = parse_playground(state or {}, streams=list(SOURCES))
        cfg = {**PLAYGROUND_DEFAULTS, **parsed["cfg"]}
        key = run_key(cfg, parsed["place"])
        with self._lock:
            run = self._runs.get(key)
            if run is not None:
                self._runs.move_to_end(key)
            else:  # one maker per key; the others wait for it instead of building the same run
                making = self._making.get(key)
                if making is None:
                    making = self._making[key] = threading.Lock()
        if run is None:
            with making:
                with self._lock:
                    run = self._runs.get(key)
                if run is None:
                    run = SharedRun(cfg, parsed["place"])
                    with self._lock:
                        self._runs[key] = run
                        self._making.pop(key, None)
                        while len(self._runs) > self.max_runs:
                            self._runs.popitem(last=False)
        t = parsed["t"] if parsed["t"] is not None else 0
        return run, min(int(t), len(run))

    def __len__(self):
        return len(self._runs)

    def clear(self):
        with self._lock:
            self._runs.clear()


#: the process's shared runs (the pages use this one)
SHARED = SharedRuns()

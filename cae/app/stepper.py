"""A steppable CAE run over a stream, with history: what the app's playground drives.

No Streamlit here: the page keeps one :class:`Stepper` per browser session
and calls it. Stepping is the model's own learning (``learn_traced`` for the
bulk of a frame, ``learn_one`` for the last sample so that its full
:class:`~cae.CAEStepRecord` can be explained). Going back in time restores the
nearest snapshot (one every ``snapshot_every`` samples) and replays at most
that many samples, so any step is quick to revisit.

Examples
--------
>>> from cae.data import make_paper2d, nonstationary_stream
>>> pg = Stepper(nonstationary_stream(make_paper2d(300, seed=0), seed=0))
>>> _ = pg.step(500)
>>> pg.t, pg.record.t
(500, 500)
>>> rec = pg.go_to(120)
>>> pg.t, rec.t, pg.t_max
(120, 120, 500)
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ..algorithms import CAE
from ..evaluation import CONVENTIONS, ari, nmi, one_class, scores_so_far
from .regions import MAX_DRAWN, MAX_REGIONS, Region, sample_regions

#: CAE's trace columns (other algorithms have their own: ``Stepper.columns``)
TRACE_COLUMNS = CAE().trace_columns
#: the label of a sample placed by hand (:meth:`Stepper.place`); never scored
PLACED_LABEL = -1
#: the label of a sample drawn from regions drawn by hand (:meth:`Stepper.draw`); never scored
DRAWN_LABEL = -2


#: what the pages say beside NMI/ARI while one class has been seen (see :meth:`Stepper.live_metrics`)
SINGLE_CLASS_NOTE = (
    "n/a while the labels seen hold one class — both are undefined there: scikit-learn's 0, or 1 when every point "
    "shares a cluster, would flip as clusters split and merge (the Continual learning page's published convention "
    "scores such a stage 1)"
)


class Drawing(NamedTuple):
    """Stream positions ``start`` .. ``start + count - 1`` are drawn uniformly from the union of ``regions``."""

    start: int
    count: int
    regions: tuple[Region, ...]


def compose_stream(stream, placed, drawn):
    """``stream`` with samples placed by hand and drawings at their final positions.

    ``placed``: ``(position, x)``; ``drawn``: :class:`Drawing`. The stream's own samples fill the other
    positions in their order; a placed sample is labelled :data:`PLACED_LABEL`, a drawn one
    :data:`DRAWN_LABEL` (drawn from the stream's seed and its position). Samples between two of the
    stream's own belong to the stage of the later one. ValueError if the positions do not fit together.

    Examples
    --------
    >>> from cae.data import make_moons2d, class_incremental_stream
    >>> s = class_incremental_stream(make_moons2d(n=20, seed=0), seed=0)
    >>> box = Region.box((0.4, 0.6), (0.4, 0.6))
    >>> out = compose_stream(s, [(1, np.array([0.5, 0.5]))], [Drawing(3, 2, (box,))])
    >>> len(out) - len(s), out.y[[1, 3, 4]].tolist(), bool(box.contains(out.X[3:5]).all())
    (3, [-1, -2, -2], True)
    >>> bool((out.X[[0, 2, 5]] == s.X[:3]).all())  # the stream's own samples fill the rest, in order
    True
    """
    n0 = len(stream)
    n = n0 + len(placed) + sum(int(d.count) for d in drawn)
    taken = np.zeros(n, bool)

    def take(positions, what):
        positions = np.asarray(positions, dtype=np.int64)
        if len(positions) and (positions.min() < 0 or positions.max() >= n):
            raise ValueError(f"{what} lies outside the stream ({n:,} samples with the edits)")
        if taken[positions].any() or len(np.unique(positions)) < len(positions):
            raise ValueError(f"{what} overlaps another sample placed or drawn by hand")
        taken[positions] = True

    take([p for p, _ in placed], "a placed sample")
    for d in drawn:
        take(np.arange(d.start, d.start + d.count), "a drawing")
    own = np.flatnonzero(~taken)
    X = np.empty((n, stream.X.shape[1]), dtype=stream.X.dtype)
    y = np.empty(n, dtype=stream.y.dtype)
    X[own], y[own] = stream.X, stream.y
    for p, x in placed:
        X[p], y[p] = x, PLACED_LABEL
    for d in drawn:
        X[d.start : d.start + d.count] = sample_regions(d.regions, np.arange(d.start, d.start + d.count), stream.seed)
        y[d.start : d.start + d.count] = DRAWN_LABEL
    s0 = np.asarray(stream.stage_starts)
    starts = np.where(s0 > 0, own[np.maximum(s0 - 1, 0)] + 1, 0)
    return replace(stream, X=X, y=y, stage_starts=starts.astype(s0.dtype))


def drawn_sample(t, max_points=5000):
    """Indices of the first ``t`` samples that a view draws: every ``s``-th, ``s`` the smallest power of two
    that leaves at most ``max_points``.

    Evenly spread like :meth:`Stepper.seen`, and from one step to the next the same samples plus the new ones
    (until ``s`` doubles), so that a frame of Play sends only the new points.

    >>> drawn_sample(10, max_points=4), drawn_sample(11, max_points=4), drawn_sample(17, max_points=4)
    (array([0, 4, 8]), array([0, 4, 8]), array([ 0,  8, 16]))
    """
    t = int(t)
    stride = 1
    while -(-t // stride) > max_points:
        stride *= 2
    return np.arange(0, t, stride, dtype=np.int64)


class Stepper:
    """One stream, one model, and the recorded history of every step.

    Parameters
    ----------
    stream : cae.data.Stream
    deletion_interval, max_edge_age : optional
        CAEA's fixed parameters (None: estimated, i.e. CAE).
    snapshot_every : int
        Keep a copy of the model every this many samples (for rewinding).
    model_factory : callable, optional
        Makes a fresh model of any registered algorithm (they share the
        streaming API: ``learn_one``, ``learn_traced``, ``learn_many``,
        ``snapshot``, ``last_trace_row``); default: CAE with the two
        parameters above. The trace has that model's columns
        (:attr:`columns`).
    """

    def _new_model(self):
        if self.model_factory is not None:
            return self.model_factory()
        return CAE(deletion_interval=self.deletion_interval, max_edge_age=self.max_edge_age)

    def __init__(self, stream, deletion_interval=None, max_edge_age=None, snapshot_every=250, model_factory=None):
        self.original_stream = stream
        self.stream = stream
        self.deletion_interval = deletion_interval
        self.max_edge_age = max_edge_age
        self.model_factory = model_factory
        self.snapshot_every = int(snapshot_every)
        self.reset()

    # ------------------------------------------------------------ state
    def reset(self):
        """Back to t = 0 with a fresh model (same stream, same seed; samples placed by hand are gone)."""
        self.stream = self.original_stream
        self.placed = []  # (step before, x) of every sample placed by hand, in order
        self.drawn = []  # Drawing(start, count, regions) of every drawing, in order
        self.model = self._new_model()
        self.columns = tuple(self.model.trace_columns)
        self._col = {c: i for i, c in enumerate(self.columns)}
        self.t = 0  # samples learned by self.model
        self.t_max = 0  # samples with a recorded history
        self.trace = np.full((len(self.stream), len(self.columns)), np.nan)
        self.snapshots = {}
        self.record = None
        self.deleted_in_frame = np.zeros((0, self.stream.X.shape[1]))
        self.events = []  # (t, kind, text) for markers: threshold set-up, lambda fixed

    @property
    def finished(self):
        return self.t >= len(self.stream)

    @property
    def trace_so_far(self):
        """The recorded rows for steps 1..t_max (a view)."""
        return self.trace[: self.t_max]

    def column(self, name):
        """The recorded values of one trace column (NaN if this algorithm has no such column)."""
        if name not in self._col:
            return np.full(self.t_max, np.nan)
        return self.trace[: self.t_max, self._col[name]]

    # --------------------------------------------------------- stepping
    def step(self, n=1):
        """Learn the next ``n`` samples (fewer at the end); returns the last step's record.

        If the view is rewound (t < t_max), stepping continues from there and
        replaces the recorded future (a fork; with the same parameters it is
        replayed identically, since CAE is deterministic).
        """
        n = int(min(max(n, 0), len(self.stream) - self.t))
        if n == 0:
            return self.record
        before = self._positions_by_id()
        for k in [k for k in self.snapshots if k > self.t]:  # the recorded future is replaced
            del self.snapshots[k]
        if self.t < self.t_max:
            self.events = [e for e in self.events if e[0] <= self.t]
        end = self.t + n
        # learn in pieces that stop at snapshot boundaries
        while self.t < end:
            nxt = min(end, (self.t // self.snapshot_every + 1) * self.snapshot_every)
            if nxt == end:  # the last piece: all but its last sample traced in bulk
                self._bulk(self.t, end - 1)
                self._one(end - 1)
            else:
                self._bulk(self.t, nxt)
            if self.t % self.snapshot_every == 0 and self.t not in self.snapshots:
                self.snapshots[self.t] = self.model.snapshot()
        self.t_max = self.t
        after = set(self.model.node_ids_.tolist()) if self.t else set()
        gone = [i for i in before if i not in after]
        self.deleted_in_frame = np.array([before[i] for i in gone]).reshape(-1, self.stream.X.shape[1])
        return self.record

    def run_to_end(self, progress=None, chunk=5000):
        """Learn the rest of the stream; ``progress(fraction)`` is called after each chunk."""
        return self.run_to(len(self.stream), progress=progress, chunk=chunk)

    def run_to(self, t, progress=None, chunk=5000):
        """Learn on to step ``t`` (at most the stream's end) in chunks; ``progress(fraction of the way)``
        is called after each. The same run as one :meth:`step`; returns the last step's record."""
        t = int(min(max(t, self.t), len(self.stream)))
        start = self.t
        while self.t < t:
            self.step(min(chunk, t - self.t))
            if progress is not None:
                progress((self.t - start) / max(t - start, 1))
        return self.record

    def _bulk(self, a, b):
        if b <= a:
            return
        self.model.learn_traced_into(self.stream.X[a:b], self.trace[a:b])  # straight into the record
        self._note_events(a, b)
        self.t = b

    def _one(self, i):
        self.record = self.model.learn_one(self.stream.X[i])
        self.trace[i] = self.model.last_trace_row()
        self._note_events(i, i + 1)
        self.t = i + 1

    def _note_events(self, a, b):
        tr = self.trace[a:b]
        col = self._col
        if "lambda_fixed" in col:
            for k in np.flatnonzero(tr[:, col["lambda_fixed"]] == 1):
                self.events.append((a + k + 1, "lambda", f"λ fixed at {int(tr[k, col['deletion_interval']])}"))
        if "threshold_setup" in col:
            for k in np.flatnonzero(tr[:, col["threshold_setup"]] == 1):
                self.events.append((a + k + 1, "setup", "threshold set-up"))
        for k in np.flatnonzero(tr[:, col["n_swept"]] > 0):
            self.events.append((a + k + 1, "sweep", f"{int(tr[k, col['n_swept']])} node(s) removed"))

    def _positions_by_id(self):
        if not hasattr(self.model, "network_"):
            return {}
        return dict(zip(self.model.node_ids_.tolist(), np.asarray(self.model.nodes_).copy()))

    def place(self, x):
        """Feed ``x`` as the next sample instead of the stream's: the history forks.

        ``x`` is inserted into the stream at position t (the stream's later samples follow it,
        their stages shifted by one), labelled -1 ("placed by hand": never scored), and learned
        with :meth:`step`; the recorded future after t is forgotten. Returns the step's record.
        A drawing in progress (:meth:`draw`) goes on after it.
        """
        x = self._check_placed(x)
        t = self.t
        placed = [(p + 1 if p >= t else p, v) for p, v in self.placed] + [(t, x.copy())]
        drawn = []
        for d in self.drawn:  # a drawing that spans t is split around the placed sample
            if d.start >= t:
                drawn.append(d._replace(start=d.start + 1))
            elif d.start + d.count > t:
                drawn += [d._replace(count=t - d.start), Drawing(t + 1, d.start + d.count - t, d.regions)]
            else:
                drawn.append(d)
        self._edit(placed, drawn)
        return self.step(1)

    def draw(self, regions, count):
        """From step t on, the next ``count`` samples come from ``regions`` (uniformly from their union),
        then the stream's own samples resume; no regions: they resume at once. The history forks at t.

        Every drawn sample still to come (positions >= t) is replaced; samples placed by hand stay. The
        samples are drawn by :func:`cae.app.regions.sample_regions` from the stream's seed and their
        positions, so the same drawings at the same steps give the same samples. Nothing is learned here.
        """
        regions = tuple(regions)
        count = int(count)
        if regions and not 1 <= count <= MAX_DRAWN:
            raise ValueError(f"a drawing gives 1 to {MAX_DRAWN:,} samples")
        if len(regions) > MAX_REGIONS:
            raise ValueError(f"a drawing has at most {MAX_REGIONS} regions")
        if self.stream.X.shape[1] != 2:
            raise ValueError("drawn regions need a 2-D stream")
        t = self.t
        removed = []  # drawn positions >= t
        drawn = []
        for d in self.drawn:
            if d.start + d.count <= t:
                drawn.append(d)
                continue
            keep = max(t - d.start, 0)
            removed.extend(range(d.start + keep, d.start + d.count))
            if keep:
                drawn.append(d._replace(count=keep))
        removed = np.array(sorted(removed), dtype=np.int64)
        placed = [(p - int(np.searchsorted(removed, p)), v) for p, v in self.placed]
        if regions:
            placed = [(p + count if p >= t else p, v) for p, v in placed]
            drawn.append(Drawing(t, count, regions))
        self._edit(placed, drawn)

    def drawing_at(self, t=None):
        """The drawing that gives the next sample at step ``t`` (default: now; samples placed by hand in
        between skipped), or None while the stream's own samples come."""
        q = self.t if t is None else int(t)
        taken = {p for p, _ in self.placed}
        while q in taken:
            q += 1
        for d in self.drawn:
            if d.start <= q < d.start + d.count:
                return d
        return None

    def with_placed(self, placed, drawn=()):
        """Start over on the stream with samples placed by hand and drawings (no learning).

        ``placed`` is a list of ``(position, x)`` and ``drawn`` of ``(start, count, regions)``, every
        position counted in the final stream (as :attr:`placed` and :attr:`drawn` record them); this
        rebuilds the stream a lesson link describes. ValueError if they do not fit together.
        """
        self.reset()
        placed = [(int(p), self._check_placed(x)) for p, x in placed]
        drawn = [Drawing(int(s), int(c), tuple(r)) for s, c, r in drawn]
        if drawn and self.stream.X.shape[1] != 2:
            raise ValueError("drawn regions need a 2-D stream")
        for d in drawn:
            if not 1 <= len(d.regions) <= MAX_REGIONS or not 1 <= d.count <= MAX_DRAWN or d.start < 0:
                raise ValueError(f"a drawing needs 1 to {MAX_REGIONS} regions and 1 to {MAX_DRAWN:,} samples")
        self._edit(placed, drawn)

    def _check_placed(self, x):
        x = np.asarray(x, dtype=float).reshape(-1)
        if x.shape[0] != self.stream.X.shape[1] or not np.all(np.isfinite(x)):
            raise ValueError(f"a placed sample needs {self.stream.X.shape[1]} finite coordinates")
        return x

    def _edit(self, placed, drawn):
        """The stream with these samples placed by hand and drawings; the recorded future after t forgotten."""
        self.stream = compose_stream(self.original_stream, placed, drawn)
        self.placed = sorted(placed, key=lambda p: p[0])
        self.drawn = sorted(drawn, key=lambda d: d.start)
        t = self.t
        self.trace = np.vstack([self.trace[:t], np.full((len(self.stream) - t, len(self.columns)), np.nan)])
        self.t_max = t
        for k in [k for k in self.snapshots if k > t]:
            del self.snapshots[k]
        self.events = [e for e in self.events if e[0] <= t]

    # ---------------------------------------------------------- history
    def go_to(self, t):
        """Show the network as it was after step ``t`` (0 <= t <= t_max); returns that step's record."""
        t = int(min(max(t, 0), self.t_max))
        if t == 0:
            self.model = self._new_model()
            self.record = None
        else:
            self.record, self.model, _ = self.inspect(t)
        self.t = t
        self.deleted_in_frame = np.zeros((0, self.stream.X.shape[1]))
        return self.record

    def inspect(self, t):
        """``(record, model, x)`` of step ``t`` (1 <= t <= t_max) without moving the view."""
        t = int(min(max(t, 1), self.t_max))
        base = ((t - 1) // self.snapshot_every) * self.snapshot_every
        while base > 0 and base not in self.snapshots:
            base -= self.snapshot_every
        model = self.snapshots[base].snapshot() if base else self._new_model()
        if t - 1 > base:
            model.learn_many(self.stream.X[base : t - 1])
        rec = model.learn_one(self.stream.X[t - 1])
        return rec, model, self.stream.X[t - 1]

    def find_step(self, after, case=None, event=None, direction="next"):
        """The first recorded step > ``after`` (``direction="next"``), or the last step < ``after``
        (``"previous"``), of a given ``case`` (0-3) or event ('sweep', 'setup', 'lambda', 'deletion', and
        Fuzzy ART's 'reset': a category tested and reset); None if there is none (or this algorithm has no such
        event)."""
        tr = self.trace[: self.t_max]
        col = self._col
        if case is not None:
            hit = tr[:, col["case"]] == case
        elif event == "sweep":
            hit = tr[:, col["n_swept"]] > 0
        elif event == "deletion":
            hit = tr[:, col["n_deleted"]] > 0
        elif event == "reset":
            hit = tr[:, col["n_reset"]] > 0 if "n_reset" in col else np.zeros(len(tr), bool)
        elif event in ("setup", "lambda"):
            name = "threshold_setup" if event == "setup" else "lambda_fixed"
            hit = tr[:, col[name]] == 1 if name in col else np.zeros(len(tr), bool)
        else:
            raise ValueError("give a case or an event")
        steps = np.flatnonzero(hit) + 1  # 1-based steps
        if direction == "next":
            later = steps[steps > int(after)]
            return int(later[0]) if len(later) else None
        if direction == "previous":
            earlier = steps[steps < int(after)]
            return int(earlier[-1]) if len(earlier) else None
        raise ValueError("direction must be 'next' or 'previous'")

    def _forget_future(self):
        self.t_max = self.t
        self.trace[self.t :] = np.nan
        for k in [k for k in self.snapshots if k > self.t]:
            del self.snapshots[k]
        self.events = [e for e in self.events if e[0] <= self.t]

    def rewind(self, t):
        """Back to step ``t`` and forget the recorded steps after it; returns that step's record.

        What Pause does while playing: the frames computed ahead of the one shown were never
        seen, so the run ends where the class stopped watching (the same parameters, so
        learning on replays them identically).
        """
        rec = self.go_to(t)
        self._forget_future()
        return rec

    def fork(self, deletion_interval=None, max_edge_age=None):
        """Forget the recorded future after t and continue with these parameters from here."""
        self._forget_future()
        self.deletion_interval = deletion_interval
        self.max_edge_age = max_edge_age
        if not isinstance(self.model, CAE):
            raise TypeError("only CAE and CAEA runs can fork with new parameters")
        self.model.continue_with(deletion_interval, max_edge_age)

    # ----------------------------------------------------------- views
    def seen(self, max_points=5000):
        """Indices of the samples seen so far, evenly thinned to at most ``max_points``."""
        if self.t <= max_points:
            return np.arange(self.t)
        return np.linspace(0, self.t - 1, max_points).round().astype(np.int64)

    def live_metrics(self, max_points=5000, score_noise=False, convention=None):
        """NMI / ARI on the seen samples (a thinned sample of at most ``max_points``) and counts.

        While the scored samples hold a single class (the paper's stream #1 alone), NMI and ARI are undefined:
        scikit-learn's are 0 unless every sample falls in one cluster, then 1, and flip between the two as
        clusters split and merge. By default they are then NaN and ``"scores n/a"`` holds what a display writes
        instead (:data:`cae.evaluation.ONE_CLASS_SO_FAR`, :func:`cae.evaluation.scores_so_far`; ``""`` when
        they are numbers). Under the ``"paper"`` convention (the published numbers', the Continual learning
        page's default; :data:`cae.evaluation.CONVENTION_TEXT`) a single class scores 1; under ``"text"``
        the scores are scikit-learn's. ``"single class"`` in the result says which case it is.

        As in the paper, uniform noise is learned but not scored: samples with
        the stream's noise label are left out of NMI/ARI unless
        ``score_noise`` (then the noise counts as a class of its own, which no
        clustering can form, and a perfect six-cluster result on the paper's
        stream scores about 0.876).
        """
        idx = self.seen(max_points)
        out = {
            "samples seen": self.t,
            "nodes": 0,
            "clusters": 0,
            "NMI": np.nan,
            "ARI": np.nan,
            "stage": "your drawing"
            if self.t and self.stream.y[self.t - 1] == DRAWN_LABEL
            else self.stream.stage_names[self.stream.stage_of(max(self.t - 1, 0))],
            "metric sample": len(idx),
            "noise scored": bool(score_noise),
            "thinned": len(idx) < self.t,
            "single class": False,
            "scores n/a": "",
            "convention": convention,
        }
        if convention is not None and convention not in CONVENTIONS:
            raise ValueError(f"convention must be None or one of {CONVENTIONS}, got {convention!r}")
        if self.t == 0 or not hasattr(self.model, "network_"):
            return out
        out["nodes"] = len(self.model.nodes_)
        out["clusters"] = self.model.n_clusters_
        if not score_noise and self.stream.noise_label is not None:
            idx = idx[self.stream.y[idx] != self.stream.noise_label]
        idx = idx[self.stream.y[idx] >= 0]  # samples placed or drawn by hand have no true label
        out["metric sample"] = len(idx)
        y = self.stream.y[idx]
        out["single class"] = one_class(y)
        scored = len(idx) >= 2 and len(self.model.nodes_)
        if convention is None and (out["single class"] or scored):
            pred = None if out["single class"] else self.model.predict(self.stream.X[idx])
            scores = scores_so_far(y, pred)  # NaN and the reason while one class is seen
            out.update(NMI=scores["NMI"], ARI=scores["ARI"])
            out["scores n/a"] = scores["n/a"]
        elif scored:
            if out["single class"] and convention == "paper":
                out["NMI"] = out["ARI"] = 1.0
            else:
                pred = self.model.predict(self.stream.X[idx])
                out["NMI"] = nmi(y, pred)
                out["ARI"] = ari(y, pred)
        return out

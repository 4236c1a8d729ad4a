"""Lesson links: a page's state as short, readable URL query parameters, and back.

A teacher sends a link such as ``/playground?stream=paper2d-ns&n=1500&noise=0.1&seed=3&algo=CAE&t=1200``
and every student's browser opens the same run at the same step. This module turns query
parameters into a page state and a state into query parameters, without Streamlit (the pages call
it). Parsing never raises: an unknown name, text where a number belongs, an impossible value or a
very long value is dropped or clamped, and each such change is reported in a notice the page shows.

Playground parameters
---------------------
``stream`` (a stream key), ``n`` (points per distribution), ``noise``, ``seed``, ``algo`` (CAE, CAEA,
Fuzzy ART or GNG: :func:`cae.app.explainable.choices`), ``lam`` and ``amax`` (CAEA's λ and a_max), Fuzzy ART's
``art_vigilance``, ``art_choice``, ``art_learning_rate`` and GNG's ``gng_epsilon_b`` … ``gng_max_nodes`` (each
clamped to its slider's range), ``t`` (the step shown), the view toggles ``vig``
(vigilance region of s1), ``focus`` (the view zoomed to s1, s2, the sample and that region),
``regions`` (every node's vigilance region), ``bw`` (bandwidths), ``win`` (recent window), ``sn`` (score
the noise), ``quiz`` and ``teach`` (teacher view), ``place`` (samples placed by hand: ``t:x0:x1`` items
separated by ``,`` — the sample was fed as step t + 1) and ``draw`` (drawings: ``start:count:region:…``
items separated by ``,`` — stream positions start … start + count − 1 are drawn uniformly from the
regions, each written as :meth:`cae.app.regions.Region.encode` writes it, e.g. ``b100_600_300_900`` for the
box 0.1–0.3 × 0.6–0.9 or ``p…`` for a lasso's corners, in thousandths).

The quiz starts focused: ``quiz=1`` without ``focus`` means ``focus=1`` too (and a query written for a
quiz names ``focus`` only when it is off). Links written before ``focus`` and ``regions`` existed open as
they did.

Examples
--------
>>> state, notices = parse_playground({"stream": "moons", "n": "480", "seed": "-3", "t": "50", "zz": "1"},
...                                   streams=["paper2d-ns", "moons"])
>>> state["cfg"]["source"], state["cfg"]["n_per_class"], state["cfg"]["seed"], state["t"]
('moons', 500, 0, 50)
>>> notices
['ignored the unknown parameter zz', 'n = 480 is not one of 250, 500, 1500, 5000, 15000: using 500', 'seed = -3 is out of range: using 0']
>>> q = playground_query({**PLAYGROUND_DEFAULTS, **state["cfg"]}, state["view"], 50, [])
>>> q["stream"], q["n"], q["t"]
('moons', '500', '50')
"""

from __future__ import annotations

import math

from ..registry import ALGORITHMS
from .explainable import choices as algo_choices
from .explainable import config_defaults, entry, param_keys, slider_range
from .regions import MAX_DRAWN, MAX_REGIONS, Region
from .streams import paper_setting

__all__ = [
    "parse_playground",
    "playground_query",
    "parse_continual",
    "continual_query",
    "parse_step",
    "N_CHOICES",
    "MAX_VALUE_LENGTH",
    "VIEW_DEFAULTS",
    "PLAYGROUND_DEFAULTS",
    "parse_lineage",
    "lineage_query",
    "LINEAGE_DEFAULTS",
]

N_CHOICES = (250, 500, 1500, 5000, 15000)
_CAEA_DEFAULT = paper_setting("CAEA", "paper2d-ns")  # the paper's setting, as Compare starts with it
#: the Playground's state when a link says nothing else. The seed is the typical one of seeds 0–29 for this
#: setting (clean, 6 clusters, NMI 0.996 against a median of 0.985; ``sample_data/home_model.json``), the same
#: run as the home picture (``cae.data.HOME_SEED``; a test checks they agree)
PLAYGROUND_DEFAULTS = dict(
    source="paper2d-ns",
    n_per_class=1500,
    noise=0.10,
    seed=9,
    algo="CAE",
    lam=_CAEA_DEFAULT["deletion_interval"],
    amax=_CAEA_DEFAULT["max_edge_age"],
    **{k: v for k, v in config_defaults().items() if k not in ("lam", "amax")},  # Fuzzy ART's, GNG's (literature)
)
MAX_VALUE_LENGTH = 200
#: the Playground's CAEA sliders, (low, high, step), declared once in the registry: links clamp to them
CAEA_SLIDERS = {name: ALGORITHMS["CAEA"].param(name).slider for name in ("deletion_interval", "max_edge_age")}
MAX_PLACED = 50
MAX_DRAWINGS = 20
#: the drawings' value may be longer than the others' (a lasso has up to 24 corners)
MAX_DRAW_LENGTH = 6000
VIEW_DEFAULTS = {
    "vig": True,
    "focus": False,
    "regions": False,
    "bw": False,
    "win": 300,
    "sn": False,
    "quiz": False,
    "teach": False,
    "present": False,
}
_PLAYGROUND_KEYS = {"stream", "n", "noise", "seed", "algo", *param_keys(), "t", "place", "draw", *VIEW_DEFAULTS}
_LONG_VALUES = {"draw": MAX_DRAW_LENGTH}


def _first(v):
    if isinstance(v, (list, tuple)):
        return v[-1] if v else ""
    return v


class _Reader:
    """Reads one query dict, collecting a notice for every value it had to change or drop."""

    def __init__(self, query, known):
        self.q = {}
        self.notices = []
        for k, v in dict(query or {}).items():
            k = str(k)
            v = _first(v)
            v = "" if v is None else str(v)
            if k not in known:
                self.notices.append(f"ignored the unknown parameter {k[:30]}" + ("…" if len(k) > 30 else ""))
            elif len(v) > _LONG_VALUES.get(k, MAX_VALUE_LENGTH):
                self.notices.append(f"ignored {k}: its value is {len(v):,} characters long")
            else:
                self.q[k] = v.strip()

    def number(self, key, lo, hi, kind=int, step=None, base=0.0):
        if key not in self.q:
            return None
        raw = self.q[key]
        try:
            v = float(raw)
            if not math.isfinite(v):
                raise ValueError
        except ValueError:
            self.notices.append(f"ignored {key} = {raw[:20]!r}: not a number")
            return None
        c = min(max(v, lo), hi)
        if step:
            c = base + round((c - base) / step) * step
            c = min(max(c, lo), hi)
        c = int(round(c)) if kind is int else round(c, 10)
        if c != v:
            self.notices.append(
                f"{key} = {raw[:20]} is out of range: using {c}"
                if not lo <= v <= hi
                else f"{key} = {raw[:20]} is not on the widget's steps: using {c}"
            )
        return c

    def choice(self, key, options):
        if key not in self.q:
            return None
        v = self.q[key]
        if v not in options:
            self.notices.append(f"ignored {key} = {v[:30]!r}: not one of {', '.join(map(str, options))}")
            return None
        return v

    def flag(self, key):
        if key not in self.q:
            return None
        v = self.q[key].lower()
        if v in ("1", "true", "yes", "on"):
            return True
        if v in ("0", "false", "no", "off"):
            return False
        self.notices.append(f"ignored {key} = {v[:20]!r}: use 1 or 0")
        return None


def parse_step(query, t_max=None):
    """Just ``t`` (for *Explain a step*): ``(t or None, notices)``, clamped to 1..t_max when given."""
    r = _Reader({k: v for k, v in dict(query or {}).items() if k == "t"}, {"t"})
    t = r.number("t", 1, t_max if t_max else 10**9)
    return t, r.notices


def parse_playground(query, streams):
    """The Playground state in ``query``: ``({"cfg": {...}, "view": {...}, "t": int|None, "place": [...],
    "draw": [(start, count, regions), ...]}, notices)``.

    Only the parameters present are in ``cfg``/``view``; the page keeps its own values for the rest.
    ``t`` is clamped to the stream's length by the page (which knows it).
    """
    r = _Reader(query, _PLAYGROUND_KEYS)
    cfg = {}
    src = r.choice("stream", list(streams))
    if src is not None:
        cfg["source"] = src
    if "n" in r.q:
        raw = r.q["n"]
        try:
            v = float(raw)
            if not math.isfinite(v):
                raise ValueError
            n = min(N_CHOICES, key=lambda c: (abs(c - v), c))
            if n != v:
                r.notices.append(f"n = {raw[:20]} is not one of {', '.join(map(str, N_CHOICES))}: using {n}")
            cfg["n_per_class"] = n
        except ValueError:
            r.notices.append(f"ignored n = {raw[:20]!r}: not a number")
    for key, name, lo, hi, kind, step in (
        ("noise", "noise", 0.0, 0.5, float, 0.05),
        ("seed", "seed", 0, 10**6, int, None),
        ("lam", "lam", *CAEA_SLIDERS["deletion_interval"][:2], int, CAEA_SLIDERS["deletion_interval"][2]),
        ("amax", "amax", *CAEA_SLIDERS["max_edge_age"][:2], int, None),  # any whole number in range
    ):
        v = r.number(key, lo, hi, kind, step, base=lo if step else 0.0)
        if v is not None:
            cfg[name] = round(v, 2) if kind is float else v
    for key, p in param_keys().items():  # Fuzzy ART's and GNG's parameters, clamped to their sliders
        if key not in ("lam", "amax"):
            lo, hi, _ = slider_range(p)
            v = r.number(key, lo, hi, int if p.kind == "int" else float)
            if v is not None:
                cfg[key] = v
    algo = r.choice("algo", algo_choices())
    if algo is not None:
        cfg["algo"] = algo
    view = {}
    for key in ("vig", "focus", "regions", "bw", "sn", "quiz", "teach", "present"):
        v = r.flag(key)
        if v is not None:
            view[key] = v
    if view.get("quiz") and "focus" not in view:  # the quiz starts focused
        view["focus"] = True
    win = r.number("win", 50, 2000, int, 50, base=0)
    if win is not None:
        view["win"] = win
    t = r.number("t", 0, 10**9)
    place = []
    if "place" in r.q and r.q["place"]:
        for item in r.q["place"].split(",")[: MAX_PLACED + 1]:
            parts = item.split(":")
            try:
                if len(parts) != 3:
                    raise ValueError
                step, x0, x1 = int(parts[0]), float(parts[1]), float(parts[2])
                if step < 0 or not (math.isfinite(x0) and math.isfinite(x1)) or max(abs(x0), abs(x1)) > 1e6:
                    raise ValueError
                place.append((step, x0, x1))
            except ValueError:
                r.notices.append(f"ignored the placed sample {item[:30]!r}: use step:x0:x1")
        if len(place) > MAX_PLACED:
            place = place[:MAX_PLACED]
            r.notices.append(f"kept the first {MAX_PLACED} placed samples")
        place.sort()
    draw = _parse_draw(r) if r.q.get("draw") else []
    return {"cfg": cfg, "view": view, "t": t, "place": place, "draw": draw}, r.notices


def _parse_draw(r):
    """The drawings of ``draw``: well-formed items that do not overlap, sorted; a notice for each other."""
    out = []
    items = r.q["draw"].split(",")
    if len(items) > MAX_DRAWINGS:
        r.notices.append(f"kept the first {MAX_DRAWINGS} drawings")
    for item in items[:MAX_DRAWINGS]:
        parts = item.split(":")
        try:
            if len(parts) < 3 or not parts[0].isdigit() or not parts[1].isdigit():
                raise ValueError("use start:count:region:…")
            start, count = int(parts[0]), int(parts[1])
            if start > 10**8:
                raise ValueError("it starts beyond any stream")
            if not 1 <= count <= MAX_DRAWN:
                raise ValueError(f"1 to {MAX_DRAWN:,} samples")
            if len(parts) - 2 > MAX_REGIONS:
                raise ValueError(f"at most {MAX_REGIONS} regions")
            out.append((start, count, tuple(Region.decode(p) for p in parts[2:])))
        except ValueError as exc:
            r.notices.append(f"ignored the drawing {item[:30]!r}: {exc}")
    out.sort(key=lambda d: d[0])
    kept = []
    for d in out:
        if kept and d[0] < kept[-1][0] + kept[-1][1]:
            r.notices.append(f"ignored the drawing at {d[0]}: it overlaps the one before")
        else:
            kept.append(d)
    return kept


def _num(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def playground_query(cfg, view, t, place, draw=()):
    """The query parameters of a Playground state (only the view toggles that differ from the defaults).

    ``draw``: ``(start, count, regions)`` of each drawing (:attr:`cae.app.stepper.Stepper.drawn`).
    """
    q = {
        "stream": cfg["source"],
        "n": str(cfg["n_per_class"]),
        "noise": _num(float(cfg["noise"])),
        "seed": str(cfg["seed"]),
        "algo": cfg["algo"],
    }
    for key, p in entry(cfg["algo"]).params:  # the chosen algorithm's parameters only
        q[key] = str(int(cfg[key])) if p.kind == "int" else _num(float(cfg[key]))
    q["t"] = str(int(t))
    for k, default in VIEW_DEFAULTS.items():
        if k == "focus":  # a quiz is focused unless it says otherwise
            default = bool(view.get("quiz", VIEW_DEFAULTS["quiz"]))
        v = view.get(k, default)
        if v != default:
            q[k] = ("1" if v else "0") if isinstance(default, bool) else str(v)
    if place:
        q["place"] = ",".join(f"{s}:{x0:.6g}:{x1:.6g}" for s, x0, x1 in place)
    if draw:
        q["draw"] = ",".join(f"{s}:{c}:" + ":".join(r.encode() for r in regions) for s, c, regions in draw)
    return q


def parse_continual(query, sources, classes_of):
    """``stream``, ``order`` and ``seed`` of *Continual learning*: ``({...}, notices)``.

    ``classes_of(stream)`` gives the class ids of a stream, to check ``order`` against.
    """
    r = _Reader(query, {"stream", "order", "seed"})
    out = {}
    src = r.choice("stream", list(sources))
    if src is not None:
        out["stream"] = src
    seed = r.number("seed", 0, 10**6)
    if seed is not None:
        out["seed"] = seed
    if "order" in r.q:
        raw = r.q["order"]
        valid = list(classes_of(out.get("stream", sources[0])))
        try:
            order = [int(v) for v in raw.split(",") if v.strip() != ""]
            if not order or len(set(order)) != len(order) or any(c not in valid for c in order):
                raise ValueError
            out["order"] = order
        except ValueError:
            r.notices.append(
                f"ignored order = {raw[:30]!r}: give distinct class numbers among {', '.join(map(str, valid))}"
            )
    return out, r.notices


def continual_query(stream, order, seed):
    return {"stream": stream, "order": ",".join(map(str, order)), "seed": str(seed)}


#: the *Lineage* page's state when a link says nothing else (:mod:`cae.app.lineage`): the step of the lesson
#: (1 … 7, :data:`cae.app.lineage_lesson.STEPS`), the stream, the sample step t and seed, the table's points and seeds
LINEAGE_DEFAULTS = dict(step=1, stream="noisy", t=3300, seed=0, n=1500, seeds=5)
LINEAGE_N = (250, 500, 1500)
LINEAGE_SEEDS = (2, 5, 10, 20)
LINEAGE_STEPS = (1, 2, 3, 4, 5, 6, 7)
LINEAGE_STREAMS = ("noisy", "noise-free")


def parse_lineage(query):
    """``step`` (the step of the lineage drawn), ``stream``, ``t`` (the sample step drawn), ``seed``, ``n`` and
    ``seeds`` of *Lineage*: ``({...}, notices)``, every value one the page offers.

    >>> parse_lineage({"n": "500", "step": "2", "t": "99999999", "stream": "clean"})
    ({'step': 2, 'n': 500, 't': 3300}, ["ignored stream = 'clean': not one of noisy, noise-free", 't = 99999999 is out of range: using 3300'])
    """
    r = _Reader(query, set(LINEAGE_DEFAULTS))
    out = {}
    for key, options in (("step", LINEAGE_STEPS), ("n", LINEAGE_N), ("seeds", LINEAGE_SEEDS)):
        if key not in r.q:
            continue
        raw = r.q[key]
        try:
            v = int(float(raw))
        except ValueError:
            v = None
        if v in options and float(raw) == v:  # "100.0" names the same choice
            out[key] = v
        else:
            r.notices.append(f"ignored {key} = {raw[:30]!r}: not one of {', '.join(f'{o:g}' for o in options)}")
    stream = r.choice("stream", LINEAGE_STREAMS)
    if stream is not None:
        out["stream"] = stream
    seed = r.number("seed", 0, 10**6)
    if seed is not None:
        out["seed"] = seed
    t = r.number("t", 0, 6.6 * out.get("n", LINEAGE_DEFAULTS["n"]))
    if t is not None:
        out["t"] = t
    return out, r.notices


def lineage_query(state):
    """The query of a *Lineage* state (every key of :data:`LINEAGE_DEFAULTS`)."""
    return {k: state[k] if isinstance(state[k], str) else f"{state[k]:g}" for k in LINEAGE_DEFAULTS}

"""The Playground's session: one typed owner of the keys its run keeps between reruns.

The Playground, Explain and the Classroom's teacher share one run (a :class:`cae.app.stepper.Stepper`) per
browser session. :class:`PlaygroundSession` owns the session-state keys that hold it (the run, its
configuration, the figures cached for it, a lesson link's pending step, the quiz's score) and names what a page
does to them: start over with a configuration, build the run for a configuration (switching algorithm keeps the
step), reset, go to a step, fork, invalidate the traces figure. :func:`session` is the one place it is made.

It reads and writes a plain mapping (Streamlit's ``st.session_state``, or a ``dict`` in a test), so its logic is
tested without Streamlit. The widget keys Streamlit needs stay keys; they are declared here once (:class:`W`).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from cae.app import explainable
from cae.app.lesson_links import PLAYGROUND_DEFAULTS, VIEW_DEFAULTS

if TYPE_CHECKING:
    from cae.app.quiz import QuizScore

DEFAULT_CFG = dict(PLAYGROUND_DEFAULTS)
#: the configurations' data settings: a change of these starts a new stream at t = 0
DATA_KEYS = ("source", "n_per_class", "noise", "seed")


class W:
    """The Playground's widget keys that other code reads or sets (declared once; Streamlit keeps them)."""

    SOURCE = "w_source"
    N = "w_n"
    NOISE = "w_noise"
    SEED = "w_seed"
    ALGO = "w_algo"
    LAM = "w_lam"
    AMAX = "w_amax"
    VIGILANCE = "w_vig"
    FOCUS = "w_focus"
    REGIONS = "w_regions"
    BANDWIDTH = "w_bw"
    WINDOW = "w_window"
    SCORE_NOISE = "w_score_noise"
    QUIZ = "w_quiz"
    TEACH = "w_teach"
    PRESENT = "w_present"
    PLAY = "w_play"
    SPEED = "w_speed"
    SCRUB = "w_scrub"
    EXPLAIN_T = "w_explain_t"


#: the configuration's widgets, by configuration name. The widgets take their values from the session state
#: only (no value= argument): whatever changes the configuration from outside (a lesson link, New seed, the
#: paper's setting) sets these keys before the widgets are drawn, so the box, the caption and the link agree.
CFG_WIDGETS = {
    "source": W.SOURCE,
    "n_per_class": W.N,
    "noise": W.NOISE,
    "seed": W.SEED,
    "algo": W.ALGO,
    "lam": W.LAM,
    "amax": W.AMAX,
    # Fuzzy ART's and GNG's parameters (cae.app.explainable): the widget key is the configuration key's
    **{key: f"w_{key}" for key in explainable.param_keys() if key not in ("lam", "amax")},
}
#: widget keys of the Playground's view toggles, by lesson-link query name
VIEW_KEYS = {
    "vig": W.VIGILANCE,
    "focus": W.FOCUS,
    "regions": W.REGIONS,
    "bw": W.BANDWIDTH,
    "win": W.WINDOW,
    "sn": W.SCORE_NOISE,
    "quiz": W.QUIZ,
    "teach": W.TEACH,
    "present": W.PRESENT,
}


def cfg_key(cfg):
    return tuple(sorted(cfg.items()))


def algo_params(cfg):
    """The algorithm's parameters of a configuration (CAE estimates both itself)."""
    if cfg["algo"] == "CAEA":
        return dict(deletion_interval=int(cfg["lam"]), max_edge_age=int(cfg["amax"]))
    return dict(deletion_interval=None, max_edge_age=None)


def algo_text(cfg):
    """The algorithm and its parameters in a few words (:func:`cae.app.explainable.algo_text`)."""
    return explainable.algo_text(cfg)


def switch_sentence(old_cfg, cfg, old):
    """What a change of algorithm or parameters at the run ``old``'s step did, in words."""
    same_algo = old_cfg["algo"] == cfg["algo"]
    return (
        f"{'Changed' if same_algo else 'Switched'} from {algo_text(old_cfg)} to {algo_text(cfg)} at "
        f"t = {old.t:,}: the new setting has learned the same {old.t:,} samples from the start"
        + (" (with those placed or drawn by hand)" if old.placed or old.drawn else "")
        + ", so the view stays at this step"
        + (f"; the steps recorded after t = {old.t:,} are not kept" if old.t_max > old.t else "")
        + (". Setting it back" if same_algo else ". Switching back")
        + " shows the earlier run again; *Reset* starts over at t = 0."
    )


@dataclass
class PlaygroundSession:
    """The Playground's run and what is kept with it, in a session-state mapping ``state``."""

    state: MutableMapping[str, Any]

    RUN: ClassVar[str] = "pg"
    RUN_KEY: ClassVar[str] = "pg_key"
    CFG: ClassVar[str] = "pg_cfg"
    BUILT_CFG: ClassVar[str] = "pg_cfg_built"
    SWITCH_NOTE: ClassVar[str] = "pg_switch_note"
    TRACES: ClassVar[str] = "traces_fig"
    TRACES_KEY: ClassVar[str] = "traces_key"
    TOPOLOGY: ClassVar[str] = "topology"
    EXPORT: ClassVar[str] = "export_html"
    FIRST_PICTURE: ClassVar[str] = "pg_drawn"
    LESSON_PENDING: ClassVar[str] = "lesson_pending"
    LESSON_APPLIED: ClassVar[str] = "lesson_applied"
    QUIZ: ClassVar[str] = "quiz_state"
    PAGE: ClassVar[str] = "pg_page"
    VIEW: ClassVar[str] = "pg_view"

    # ------------------------------------------------------------ the configuration
    @property
    def cfg(self) -> dict:
        """The configuration the widgets show (the defaults at first)."""
        return self.state.setdefault(self.CFG, dict(DEFAULT_CFG))

    def set_config(self, **changes):
        """Change the configuration and its widgets together (before the widgets are drawn)."""
        cfg = self.cfg
        cfg.update(changes)
        for name in changes:
            self.state[CFG_WIDGETS[name]] = cfg[name]

    def new_seed(self):
        """The next seed, in the box, the caption and the link alike."""
        self.set_config(seed=min(int(self.cfg["seed"]) + 1, 10**6))

    def restore_widgets(self):
        """Give the configuration's widgets their values, on every run before they are drawn: the value a widget
        holds (the user's last change, a lesson link's), else the configuration's (a widget not drawn in the last
        run lost its state).

        Written even when unchanged, so that Streamlit sends the value with every run and the browser shows it
        (:func:`cae.streamlit_glue.common.send_values` says why: the Seed box read 0 beside a run of seed 9).
        """
        for name, key in CFG_WIDGETS.items():
            self.state[key] = self.state.get(key, self.cfg[name])

    def start_over(self, cfg):
        """A fresh start with ``cfg`` (the home page's preset): every widget to its default, the run rebuilt at t = 0."""
        self.state[self.CFG] = dict(cfg)
        for k in [k for k in self.state if str(k).startswith("w_")]:
            del self.state[k]
        self.state.pop(self.RUN_KEY, None)
        self.state[self.VIEW] = dict(VIEW_DEFAULTS)
        self.state.pop(self.PAGE, None)

    @property
    def view(self) -> dict:
        """The view toggles this session keeps (query names), whatever page is shown: the widgets' values as last
        seen on a page that drew them (the defaults at first)."""
        return self.state.setdefault(self.VIEW, dict(VIEW_DEFAULTS))

    def carry_widgets(self, page):
        """Before ``page`` draws the Playground's widgets: give them the values this session keeps.

        Streamlit names a widget by its page as well as its key, so the Playground's sidebar drawn on *Explain a
        step* is a new widget there, which would start at its default (and the Playground's own, not drawn on the
        other page, loses its value). On a page change every configuration and view widget is given the value kept
        here; on the same page the widgets keep their own (a change the user just made among them), and the view is
        noted from them.
        """
        view = self.view
        if self.state.get(self.PAGE) != page:
            for name, key in CFG_WIDGETS.items():
                self.state[key] = self.cfg[name]
            for name, key in VIEW_KEYS.items():
                self.state[key] = view[name]
            self.state[self.PAGE] = page
            return
        self.restore_widgets()
        for name, key in VIEW_KEYS.items():
            if key in self.state:
                view[name] = self.state[key]
            # written on every run, as the configuration's (restore_widgets); one not drawn in the last run (the
            # quiz hides some) gets its value back
            self.state[key] = view[name]

    def view_state(self):
        """The current view toggles (query names) from their widgets, as kept where a widget is not drawn."""
        view = self.view
        return {name: self.state.get(key, view[name]) for name, key in VIEW_KEYS.items()}

    # ------------------------------------------------------------ the run
    @property
    def run(self):
        """This session's Stepper, or None before the first page that draws it."""
        return self.state.get(self.RUN)

    def keeps_step(self, cfg) -> bool:
        """True if a run for ``cfg`` keeps the step: the same data as the run built, not a fresh start."""
        old, old_cfg = self.run, self.state.get(self.BUILT_CFG)
        return (
            old is not None
            and old_cfg is not None
            and self.RUN_KEY in self.state  # not a fresh start (start_over drops the key)
            and all(old_cfg[k] == cfg[k] for k in DATA_KEYS)
        )

    def run_for(self, cfg, learning: Callable[[str], AbstractContextManager] = lambda words: nullcontext()):
        """This session's run, rebuilt when the data or algorithm settings change.

        New data start over at t = 0. A new algorithm or parameter on the same data keeps the step and the
        samples placed or drawn by hand: the new run learns the same samples up to that step (so switching back
        shows the same run again), while ``learning(words)`` is open; :meth:`take_switch_note` says so once.
        """
        old = self.run
        if self.state.get(self.RUN_KEY) == cfg_key(cfg) and old is not None:
            return old
        from cae.app.stepper import Stepper

        same_data = self.keeps_step(cfg)
        pg = Stepper(old.original_stream if same_data else _make_stream(cfg), **explainable.stepper_args(cfg))
        if same_data and (old.t or old.placed or old.drawn) and self.LESSON_PENDING not in self.state:
            self.switch_keeping_step(pg, old, cfg, learning)
        self.state[self.RUN] = pg
        self.state[self.RUN_KEY] = cfg_key(cfg)
        self.state[self.BUILT_CFG] = dict(cfg)
        self.invalidate_traces()
        return pg

    def switch_keeping_step(self, pg, old, cfg, learning):
        """Bring the new run ``pg`` to the old run's step, with its samples placed or drawn by hand."""
        pg.with_placed(old.placed, old.drawn)
        if old.t:
            with learning(f"{algo_text(cfg)} learns the first {old.t:,} samples, to stay at this step…"):
                pg.step(old.t)
        self.state[self.SWITCH_NOTE] = switch_sentence(self.state[self.BUILT_CFG], cfg, old)

    def take_switch_note(self):
        """What the last change of algorithm or parameters did (once), or None."""
        return self.state.pop(self.SWITCH_NOTE, None)

    def reset(self):
        """Back to t = 0 with the same seed."""
        self.run.reset()
        self.invalidate_traces()

    def go_to(self, t):
        """Show the recorded step ``t``."""
        self.run.go_to(t)
        self.invalidate_traces()

    def fork(self, cfg):
        """Forget the recorded future and learn on from the step shown, with ``cfg``'s algorithm parameters (a
        Fuzzy ART or GNG run learns on with its own: a change of those rebuilds the run)."""
        if explainable.entry(cfg["algo"]).is_cae:
            self.run.fork(**({k: v for k, v in algo_params(cfg).items() if v is not None}))
        else:
            self.run.rewind(self.run.t)
        self.invalidate_traces()

    # ------------------------------------------------------------ what is cached for the run
    def invalidate_traces(self):
        """The run changed in a way the traces figure's key does not see: draw it again."""
        self.state.pop(self.TRACES, None)

    def traces_figure(self, build, frozen=False):
        """The traces figure of the run, built by ``build()`` when the run changed (kept as it is while ``frozen``)."""
        pg = self.run
        key = (id(pg), pg.t, pg.t_max)
        if self.TRACES not in self.state or (not frozen and self.state.get(self.TRACES_KEY) != key):
            self.state[self.TRACES_KEY] = key
            self.state[self.TRACES] = build()
        return self.state[self.TRACES]

    def topology(self, layout, build):
        """The graph layout of the run's network for ``layout``, built by ``build()`` once per step."""
        pg = self.run
        key = (id(pg), pg.t, pg.t_max, layout)
        if self.state.get(self.TOPOLOGY, (None,))[0] != key:
            self.state[self.TOPOLOGY] = (key, build())
        return self.state[self.TOPOLOGY][1]

    def keep_export(self, steps, frames, html):
        self.state[self.EXPORT] = (steps, frames, html)

    def export(self, steps, frames):
        """The animation built for these steps and frames, or None."""
        got = self.state.get(self.EXPORT)
        return got[2] if got and got[0] == steps and got[1] == frames else None

    def first_picture_due(self) -> bool:
        """True once per session: the first view is also sent as a picture (drawn before the chart)."""
        due = not self.state.get(self.FIRST_PICTURE)
        self.state[self.FIRST_PICTURE] = True
        return due

    # ------------------------------------------------------------ lesson links
    def link_is_new(self, page, q) -> bool:
        """True if the URL's query is a link to apply: not empty, and not one this session wrote itself.

        The browser sends its URL with every rerun; a click that leaves before the browser has taken the URL of
        the previous run arrives with an older query this page wrote. Comparing with the last query only would
        take that for a new link and wind the run back to it.
        """
        return bool(q) and q not in self.state.get(f"lesson_written_{page}", [])

    def remember_link(self, page, q):
        """Note a query as this session's own (the last 200 per page)."""
        written = self.state.setdefault(f"lesson_written_{page}", [])
        if q in written:
            written.remove(q)
        written.append(q)
        del written[:-200]

    def open_lesson(self, state):
        """A lesson link's parsed ``state``: its configuration and view in the widgets, its step pending."""
        self.set_config(**state["cfg"])
        for name, key in VIEW_KEYS.items():
            if name in state["view"]:
                self.state[key] = self.view[name] = state["view"][name]
        self.state[self.LESSON_PENDING] = {"t": state["t"], "place": state["place"], "draw": state["draw"]}
        self.state[self.LESSON_APPLIED] = True

    def take_pending_lesson(self):
        return self.state.pop(self.LESSON_PENDING, None)

    def take_lesson_applied(self) -> bool:
        """True once after a lesson link was opened (a page that follows the run's step takes it)."""
        return bool(self.state.pop(self.LESSON_APPLIED, False))

    # ------------------------------------------------------------ the quiz
    @property
    def quiz(self) -> QuizScore:
        """The quiz's score in this session."""
        from cae.app.quiz import QuizScore

        return self.state.setdefault(self.QUIZ, QuizScore())


def _make_stream(cfg):
    from cae.app.streams import make_stream

    return make_stream(cfg)


def session(state=None) -> PlaygroundSession:
    """This browser session's Playground (``state`` default: Streamlit's session state); the one place it is made."""
    if state is None:
        import streamlit as st

        state = st.session_state
    return PlaygroundSession(state)

"""The Playground's player: Play animated in the browser, fed by the server (the Streamlit glue).

While Play is on, the main view is a custom component (``components.v1``, plain JavaScript in
``cae/app/player_frontend/``, no build step) that draws the frames the server computed with the
page's own view (:class:`cae.app.player.PlaySession`) on a canvas, and asks for the next ones before
it runs out; each request reruns only the Playground's live fragment. Pause in the player stops on
the frame shown and sends its step; the run goes back to exactly that step and the whole page reruns
with the still view there. Nothing comes from the internet: the frames are drawn by the player's
own script, without plotly.js.
"""

from __future__ import annotations

import streamlit as st

from cae.app.player import FRONTEND, PlaySession, frames_wanted

from .session import W

KEY = "player"  # the component's widget key: its value is the browser's last request
DEFAULT_FPS = 30  # frames per second: smooth in front of a class (python -m cae.bench --playground measures it)


def _component():
    """The player (declared in every run: cheap, and it registers it with whichever server runs this script)."""
    import streamlit.components.v1 as components

    return components.declare_component("cae_player", path=str(FRONTEND))


def _on_request():
    """Pause pressed in the browser (or the stream ended there): back to the frame it showed."""
    req = st.session_state.get(KEY)
    play = st.session_state.get("play_session")
    if play is None or not play.is_new(req) or not req.get("pause"):
        return
    play.served = req["seq"]
    play.pause(req.get("shown", play.shown))
    st.session_state.play_fps = int(req.get("fps") or DEFAULT_FPS)
    st.session_state.pop("play_session", None)
    st.session_state[W.PLAY] = False
    st.session_state.play_stopped = True  # the live fragment then reruns the whole page


def stopped():
    """True once, right after Pause in the browser: the page must then rerun as a whole."""
    return bool(st.session_state.pop("play_stopped", False))


def settle(pg):
    """Play is off but a play is still open (Play switched off beside the plot): stop it where the
    browser last said it was, so the still view shows a frame the class saw. Returns True if it did."""
    play = st.session_state.get("play_session")
    if play is None or st.session_state.get(W.PLAY):
        return False
    st.session_state.pop("play_session", None)
    if play.pg is pg:
        play.pause(play.shown)
    return True


def shown_step(pg):
    """The step the class sees: while playing, the frame the browser last reported (the run is
    computed a little ahead of it); otherwise the Playground's step."""
    play = st.session_state.get("play_session")
    if play is not None and play.pg is pg and st.session_state.get(W.PLAY):
        return play.shown
    return pg.t


def starting(pg):
    """True if showing the player now starts a new play (none open, or the run changed under it): the
    page then keeps its still view until the browser has drawn the first frame."""
    play = st.session_state.get("play_session")
    return play is None or play.pg is not pg or pg.t != play.t_sent


#: The still view (the page's container keyed ``still_view``) stays on the page until the player's frame says
#: it has drawn its first frame (player.js sets ``data-drawn`` on its iframe); until then the player is laid,
#: invisible, over it: it loads plotly.js and draws there, and takes the still view's place when ready.
_HANDOVER_CSS = (
    "<style>"
    "[data-testid='stVerticalBlock']:has(> div iframe[title*='cae_player']) { position: relative; }"
    " [data-testid='stElementContainer']:has(> iframe[title*='cae_player']:not([data-drawn]))"
    " { position: absolute !important; top: 0; left: 0; right: 0; opacity: 0 !important; pointer-events: none; }"
    " [data-testid='stVerticalBlock']:has(iframe[title*='cae_player'][data-drawn]) .st-key-still_view"
    " { display: none; }"
    "</style>"
)


def player(pg, draw, describe, samples_per_frame, present=False):
    """Show the player while Play is on (inside the live fragment); answers the browser's request.

    ``draw(pg)`` is the page's still view (a Plotly figure), ``describe(pg)`` its panel
    (:func:`cae.app.player.panel`). The player's frame takes the stage's size (the page's style: cae/streamlit_glue/stage.py);
    ``present``: the projector's larger text. Returns the step the browser last reported.
    """
    ss = st.session_state
    play = ss.get("play_session")
    if play is None or play.pg is not pg or pg.t != play.t_sent:  # a new play, or the run changed under it
        ss.play_epoch = ss.get("play_epoch", 0) + 1
        play = ss.play_session = PlaySession(pg, ss.play_epoch)
        chunk = play.chunk(0, frames_wanted(0, first=True), samples_per_frame, draw, describe)
    else:
        req = ss.get(KEY)
        if play.is_new(req):
            play.note_shown(req)
            chunk = play.chunk(req["seq"], frames_wanted(req.get("fps")), samples_per_frame, draw, describe)
        else:
            chunk = b""  # a rerun for another reason: the browser keeps what it has
    play.t_sent = pg.t
    # Each request reruns this fragment, and Streamlit fades a fragment's elements while it runs (its
    # "stale" look, after half a second): the player must not fade in front of the class.
    st.html(
        "<style>div[data-stale='true']:has(> iframe[title*='cae_player'])"
        ", div[data-stale='true']:has(iframe[title*='cae_player']) {opacity: 1 !important; transition: none !important}"
        "</style>" + _HANDOVER_CSS
    )
    from .stage import SIDE

    _component()(
        key=KEY,
        epoch=play.epoch,
        chunk=chunk,
        chunk_seq=play.served
        if chunk
        else -1,  # a JSON argument that changes: only then does the browser get new arguments
        playing=True,
        fps=int(ss.get("play_fps", DEFAULT_FPS)),
        present=bool(present),
        side=SIDE[bool(present)],
        toggle_key=W.PLAY,  # Pause switches the page's Play off in the browser at once (player.js: switchPlayOff)
        on_change=_on_request,
        default=None,
    )
    return play.shown

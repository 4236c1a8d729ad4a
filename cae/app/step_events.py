"""What one step did, as a list of events: the one source of the Playground's "Last step" line, the headline of a
step (the Playground's explanation, *Explain a step*, the classroom) and the list *Explain a step* opens with.

A step is several events, not one: at t = 228 of the lesson link the sample resonated with s1 and s2 (Case III), the
edge s1–s2 was made and the isolated-node sweep removed nine nodes; the "Last step" line said only the first, while
*Explain a step* told the sweep. :func:`step_events` lists every event a step record holds, for each algorithm the
app explains:

- CAE and CAEA: the initial phase (a node added) or the case (I: a new node; II: s1 learns; III: s1 and its
  neighbours learn), the edge s1–s2 made or renewed, edges deleted by age (older than a_max), λ estimated (the
  diversity criterion), V set, the isolated-node sweep and how many nodes it removed;
- Fuzzy ART: a new category or a resonance, and the categories reset before it;
- GNG: a start node, a node inserted between q and f, the adaptation (s1 and s2), the edge s1–s2 made or its age
  reset, edges removed past a_max and the nodes they left without edges;
- the other algorithms (Compare's): their record's own words (``event``) and what the step deleted.

:func:`step_line` is the events in one line, ``"t = 228: Case III — …; edge 41–52 made (s1–s2); isolated-node sweep:
9 nodes removed"``. Each event's ``kind`` names the part of the step's explanation that details it
(:data:`EXPLAINED_BY`; a test checks every kind has its part).

Pure functions, no Streamlit.
"""

from __future__ import annotations

import math
from typing import NamedTuple

__all__ = ["Event", "step_events", "step_line", "step_title", "removed_positions", "EXPLAINED_BY"]


class Event(NamedTuple):
    """One thing a step did: its ``kind`` (``"case"``, ``"sweep"``, …) and its ``text`` (what the line says)."""

    kind: str
    text: str


#: The words that open the part of a step's explanation (``explain_step``'s blocks) that details each kind of event.
EXPLAINED_BY = {
    "initial": "**Initial phase**",
    "case": "**Case ",
    "edge made": "is **created**",
    "edge renewed": "**reset",
    "edges deleted": "are deleted",
    "lambda": "**λ ← 2·n_active",
    "threshold": "**Threshold set-up**",
    "sweep": "**Isolated-node sweep**",
    "new category": "**New category**",
    "resonance": "**Resonance**",
    "reset": "reset (M < ρ)",
    "start node": "**Start node**",
    "insertion": "**Insertion**",
    "adaptation": "The nearest node is **s1",
    "edges removed": "**Edges removed**",
    "nodes removed": "**Nodes removed**",
    "step": "",
}


def _ids(ids):
    ids = [str(int(i)) for i in ids]
    return ", ".join(ids[:-1]) + " and " + ids[-1] if len(ids) > 1 else "".join(ids)


def _plural(n, word, plural=None):
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def _is_fuzzy_art(rec):
    return hasattr(rec, "vigilance") and hasattr(rec, "reset_ids")


def _is_gng(rec):
    return hasattr(rec, "inserted") and hasattr(rec, "q_id")


def _cae_events(rec):
    out = []
    if rec.case == 0:
        out.append(Event("initial", f"initial phase — node {rec.new_node_id} added"))
    else:
        out.append(
            Event(
                "case",
                {
                    1: f"Case I — new node {rec.new_node_id}",
                    2: "Case II — s1 learns",
                    3: "Case III — s1 and its neighbours learn",
                }[rec.case],
            )
        )
    if rec.edge_created:
        a, b = rec.edge_created
        out.append(Event("edge made", f"edge {a}–{b} made (s1–s2)"))
    elif rec.edge_reset:
        a, b = rec.edge_reset
        out.append(Event("edge renewed", f"edge {a}–{b} renewed (s1–s2, age 1)"))
    if rec.edges_deleted:
        limit = f" = {rec.a_max:.3g}" if math.isfinite(rec.a_max) else ""
        out.append(Event("edges deleted", f"{_plural(len(rec.edges_deleted), 'edge')} older than a_max{limit} deleted"))
    if rec.lambda_fixed:
        out.append(Event("lambda", f"λ estimated: {rec.deletion_interval} (the nodes' diversity D fell below 10⁻⁶)"))
    if rec.threshold_setup:
        out.append(Event("threshold", f"V set: {rec.threshold:.4g}"))
    lam = rec.deletion_interval
    if lam is not None and rec.t % lam == 0:
        n = len(rec.swept_ids)
        swept = _plural(n, "node") + " removed" if n else "no node without an edge"
        out.append(Event("sweep", f"isolated-node sweep: {swept}"))
    return out


def _fuzzy_art_events(rec):
    out = []
    if rec.case == 1:
        out.append(Event("resonance", f"resonance with category {rec.resonance_id}"))
    else:
        out.append(Event("new category", f"new category {rec.new_node_id}"))
    if rec.reset_ids:
        many = len(rec.reset_ids) > 1
        out.append(Event("reset", f"categor{'ies' if many else 'y'} {_ids(rec.reset_ids)} reset (match below ρ)"))
    return out


def _gng_events(rec):
    if rec.case == 0:
        return [Event("start node", f"start node {rec.new_node_id} placed on the sample")]
    out = []
    if rec.inserted:
        what = f"node {rec.new_node_id} inserted between q = {rec.q_id} and f = {rec.f_id}"
        out.append(Event("insertion", what))
    out.append(Event("adaptation", f"adaptation (s1 = node {rec.s1_id}, s2 = node {rec.s2_id})"))
    if rec.edge_created:
        out.append(Event("edge made", f"edge {rec.s1_id}–{rec.s2_id} made (s1–s2)"))
    elif rec.edge_reset:
        out.append(Event("edge renewed", f"edge {rec.s1_id}–{rec.s2_id} renewed (s1–s2, age 0)"))
    if rec.edges_deleted:
        out.append(Event("edges removed", f"{_plural(len(rec.edges_deleted), 'edge')} past a_max removed"))
    if rec.nodes_deleted:
        out.append(Event("nodes removed", f"{_plural(len(rec.nodes_deleted), 'node')} left without edges removed"))
    return out


def _other_events(rec):
    """Another algorithm's step (SOINN+, ASOINN, TCA, AutoCloud: Compare's): its record's own words, and what it
    deleted."""
    out = [Event("step", str(getattr(rec, "event", "") or "a step"))]
    gone = len(getattr(rec, "edges_deleted", ()) or ())
    swept = len(getattr(rec, "nodes_deleted", ()) or ())
    if gone and "edge" not in out[0].text:
        out.append(Event("edges deleted", f"{_plural(gone, 'edge')} deleted"))
    if swept and "node(s) deleted" not in out[0].text:
        out.append(Event("nodes removed", f"{_plural(swept, 'node')} deleted"))
    return out


def step_events(rec):
    """Every event of the step whose record is ``rec`` (CAE's, CAEA's, Fuzzy ART's or GNG's), in the order the step
    did them: a list of :class:`Event` (empty for None).

    >>> import numpy as np
    >>> from cae import CAE
    >>> m = CAE(deletion_interval=4)
    >>> recs = [m.learn_one(x) for x in np.array([[0.0, 0.0], [1.0, 0.0], [0.1, 0.0], [0.05, 0.0]])]
    >>> [e.kind for e in step_events(recs[-1])]
    ['case', 'edge renewed', 'sweep']
    >>> step_line(recs[-1])
    't = 4: Case III — s1 and its neighbours learn; edge 0–1 renewed (s1–s2, age 1); isolated-node sweep: no node without an edge'
    """
    if rec is None:
        return []
    if _is_fuzzy_art(rec):
        return _fuzzy_art_events(rec)
    if _is_gng(rec):
        return _gng_events(rec)
    if hasattr(rec, "lambda_fixed") and hasattr(rec, "swept_ids"):
        return _cae_events(rec)
    return _other_events(rec)


def step_line(rec):
    """The step's events in one line, after its step: ``"t = 228: Case III — …; …"`` ("" for None)."""
    if rec is None:
        return ""
    return f"t = {rec.t}: " + "; ".join(e.text for e in step_events(rec))


def step_title(rec):
    """The step and its first event (what kind of step it was): *Explain a step*'s heading, over the list of every
    event (:func:`step_events`)."""
    if rec is None:
        return ""
    events = step_events(rec)
    return f"t = {rec.t}: " + (events[0].text if events else "")


def removed_positions(rec):
    """Where the nodes the step removed were (CAE's sweep, GNG's nodes left without edges): an array of rows, or None
    (the pictures mark them ✖, as the Playground marks the nodes removed in its frame)."""
    for name in ("swept_positions", "deleted_positions"):
        pos = getattr(rec, name, None)
        if pos is not None and len(pos):
            return pos
    return None

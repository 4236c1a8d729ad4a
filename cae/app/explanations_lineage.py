"""Plain-words and formula explanations of one Fuzzy ART or GNG step, with the actual numbers, and their quiz.

The blocks are those of :mod:`cae.app.explanations` (CAE's): ``("md", text)`` (Markdown written by us,
containing only numbers and fixed text), ``("latex", formula)`` (for ``st.latex``) and ``("table", DataFrame)``.
:func:`explain_step` picks the algorithm by the record's type; :func:`headline` is the step in one line;
:data:`QUIZ` holds, per algorithm, the question asked before a step, its answers, and :func:`fuzzy_art_quiz_truth`
/ :func:`gng_quiz_truth`, the answer the step's record gives (as :func:`cae.app.explanations.quiz_truth` for CAE).

Examples
--------
>>> import numpy as np
>>> from cae.algorithms.fuzzy_art import FuzzyART
>>> m = FuzzyART(vigilance=0.8)
>>> _ = m.learn_one(np.array([0.2, 0.2]))
>>> rec = m.learn_one(np.array([0.9, 0.9]))
>>> headline(rec)
't = 2: new category 1; category 0 reset (match below ρ)'
>>> fuzzy_art_quiz_truth(rec)
0
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .explanations import _lines, _pvec, _v, _vec, _vec_lines

__all__ = [
    "explain_step",
    "explain_fuzzy_art_step",
    "explain_gng_step",
    "headline",
    "fuzzy_art_quiz_truth",
    "gng_quiz_truth",
    "QUIZ",
    "FUZZY_ART_QUIZ_CHOICES",
    "GNG_QUIZ_CHOICES",
    "GNG_START_NODES",
    "next_insertion",
    "gng_counter_words",
    "DEMOGNG_ORDER",
]

#: Fuzzy ART's quiz: what will the sample do? (the record's ``case``: 1 resonance, 0 a new category)
FUZZY_ART_QUIZ_CHOICES = {
    1: "It resonates with a category: one passes the vigilance test |I ∧ w|/|I| ≥ ρ and learns it",
    0: "It makes a new category: every category is reset (or there is none)",
}

#: GNG's quiz: will this step insert a node? (when its counter of signals after the two start nodes reaches a
#: multiple of λ, while there are fewer than n_max nodes: not at the multiples of λ of t, see :func:`next_insertion`)
GNG_QUIZ_CHOICES = {
    True: "Yes: t − 2 (its count of signals after the two start nodes) is a multiple of λ: a node r is inserted "
    "between q (largest error) and its worst neighbour f, before the sample is learned",
    False: "No: only s1 and its neighbours move (and old edges may go)",
}

#: GNG's first samples: its two start nodes, which DemoGNG does not count as signals (its ``signalsPresented`` is
#: t − 2 here, :mod:`cae.algorithms.gng`)
GNG_START_NODES = 2

#: the order of one GNG step as DemoGNG runs it (``loopGNG`` in ``js/loop.js``, ``adaptGNG`` in ``js/vbnn.js``,
#: commit 3c5e90d; docs/baselines/gng.md), which ours follows
DEMOGNG_ORDER = (
    "DemoGNG's order, which ours follows: (1) **insert first** — when the count of signals after the two start "
    "nodes is a multiple of λ, r goes between q and f before this sample is learned; (2) one pass over the nodes "
    "finds s1 and s2 and **decays** every error by (1 − β); (3) **then** s1's error grows by its squared distance; "
    "(4) s1–s2 is linked (age 0) and s1's other edges age by 1; (5) s1 and its neighbours move; (6) s1's edges older "
    "than a_max go, with a node they leave without edges."
)


def next_insertion(t, interval):
    """Samples until GNG's next insertion after ``t`` samples (one at every t = 2 + kλ, k ≥ 1; its first two
    samples are its start nodes).

    >>> next_insertion(0, 100), next_insertion(2, 100), next_insertion(101, 100), next_insertion(102, 100)
    (102, 100, 1, 100)
    """
    t, interval = int(t), int(interval)
    if t < GNG_START_NODES:
        return GNG_START_NODES + interval - t
    return interval - (t - GNG_START_NODES) % interval


def gng_counter_words(t, model):
    """GNG's next insertion after ``t`` samples, stated from its own counter (the signals after its two start
    nodes), and why it is not at a multiple of λ of t.

    >>> import numpy as np
    >>> from cae.algorithms.gng import GNG
    >>> model = GNG().fit(np.random.default_rng(0).random((598, 2)))
    >>> gng_counter_words(598, model)
    "GNG's counter (signals after its two start nodes) is t − 2 = 596; it inserts when the counter reaches a multiple of λ = 100, before learning that signal: the next insertion is at t = 602 (in 4 samples), not at t = 600."
    """
    t, lam = int(t), int(model.insertion_interval)
    k = next_insertion(t, lam)
    at = t + k
    if t >= GNG_START_NODES and hasattr(model, "network_") and len(model.nodes_) >= int(model.max_nodes):
        return f"GNG has n_max = {int(model.max_nodes):,} nodes: no more insertions."
    count = (
        f"is t − 2 = {t - GNG_START_NODES:,}"
        if t >= GNG_START_NODES
        else f"starts after its two start nodes (t = {t:,})"
    )
    why = f", not at t = {at - GNG_START_NODES:,}" if (at - GNG_START_NODES) % lam == 0 and at % lam != 0 else ""
    return (
        f"GNG's counter (signals after its two start nodes) {count}; it inserts when the counter reaches a multiple "
        f"of λ = {lam:,}, before learning that signal: the next insertion is at t = {at:,} (in {k:,} "
        f"sample{'s' if k != 1 else ''}){why}."
    )


def _is_fuzzy_art(rec):
    return hasattr(rec, "vigilance") and hasattr(rec, "reset_ids")


def _is_gng(rec):
    return hasattr(rec, "inserted") and hasattr(rec, "q_id")


def fuzzy_art_quiz_truth(rec):
    """The answer to Fuzzy ART's question, from the step's record: 1 resonance, 0 a new category."""
    return int(rec.case)


def gng_quiz_truth(rec):
    """The answer to GNG's question, from the step's record: whether a node was inserted."""
    return bool(rec.inserted)


#: Per algorithm: (the question asked before a step, the answers, the answer the record gives).
QUIZ = {
    "Fuzzy ART": (
        "Will this sample resonate with a category or make a new one?",
        FUZZY_ART_QUIZ_CHOICES,
        fuzzy_art_quiz_truth,
    ),
    "GNG": ("Will GNG insert a node at this step?", GNG_QUIZ_CHOICES, gng_quiz_truth),
}


def _ids(ids):
    ids = [str(int(i)) for i in ids]
    return ", ".join(ids[:-1]) + " and " + ids[-1] if len(ids) > 1 else "".join(ids)


def headline(rec):
    """One line: every event of the step, Fuzzy ART's or GNG's (:func:`cae.app.step_events.step_line`)."""
    from .step_events import step_line

    return step_line(rec)


def explain_step(rec, model, x):
    """Explain ``rec`` (the record of the step that learned ``x``, Fuzzy ART's or GNG's) using ``model``, the
    state after it."""
    if rec is None:
        return [("md", "Nothing learned yet: press **Step** to present the first sample.")]
    if _is_fuzzy_art(rec):
        return explain_fuzzy_art_step(rec, model, x)
    if _is_gng(rec):
        return explain_gng_step(rec, model, x)
    raise TypeError(f"not a Fuzzy ART or GNG step record: {type(rec).__name__}")


# ------------------------------------------------------------------ Fuzzy ART
def _search_table(rec):
    """The candidates in order of T: T, the match against ρ, and what the search did with each."""
    tested = len(rec.reset_ids) + (1 if rec.case == 1 else 0)
    rows = []
    for k, (j, T, M) in enumerate(zip(rec.order, rec.choices, rec.matches)):
        if k < tested:
            verdict = "resonance: learns the sample" if j == rec.resonance_id else "reset (M < ρ)"
        else:
            verdict = "not tested (a category before it resonated)"
        rows.append(
            {
                "search order": k + 1,
                "category": int(j),
                "T = |I∧w|/(α+|w|)": round(float(T), 4),
                "M = |I∧w|/|I|": round(float(M), 4),
                "M vs ρ": f"{'≥' if M >= rec.vigilance else '<'} {rec.vigilance:g}",
                "outcome": verdict,
            }
        )
    return pd.DataFrame(rows)


def _fuzzy_art_search(rec, d, alpha, rho):
    """The search of a step that had categories to test: T and M, the candidates in order of T, ρ in 2-D words."""
    return [
        (
            "md",
            "Every category j is scored by the **choice function** T_j and searched in order of decreasing T; "
            "the first one whose **match** M_j reaches the vigilance ρ resonates, each one before it is reset "
            "(∧ is the element-wise minimum, |·| the sum):",
        ),
        (
            "latex",
            _lines(  # a line each: on one, ρ was cut at the column's edge at 1280×720
                r"T_j &= \frac{|I \wedge w_j|}{\alpha + |w_j|}, \quad \alpha = " + _v(alpha),
                r"M_j &= \frac{|I \wedge w_j|}{|I|} \geq \rho = " + _v(rho),
                align=True,
            ),
        ),
        ("table", _search_table(rec)),
        (
            "md",
            f"In 2-D words: a category accepts x when its box, stretched to hold x, has sides summing to at most "
            f"d (1 − ρ) = {d * (1 - rho):.4g}; a larger ρ accepts less (more, smaller boxes), a smaller ρ more "
            "(fewer, larger boxes that may merge classes).",
        ),
    ]


def explain_fuzzy_art_step(rec, model, x):
    """Fuzzy ART's step: the sample complement coded, the candidates in order of T with their match against ρ,
    the resets, and the resonance (and what the category learned) or the new category."""
    x = np.asarray(x, float)
    rho, alpha, beta = rec.vigilance, float(model.choice), float(model.learning_rate)
    d = len(x)
    I = np.concatenate([x, 1 - x])
    out = []
    if rec.case == 1:
        after = f" after {len(rec.reset_ids)} reset(s)" if rec.reset_ids else ", the first category tested"
        out.append(
            (
                "md",
                f"**Resonance** (t = {rec.t}): category {rec.resonance_id} passes the vigilance test{after} "
                f"and learns the sample {_pvec(x)}.",
            )
        )
    elif not rec.order:
        out.append(
            (
                "md",
                f"**New category** (t = {rec.t}): there is no category yet, so the sample {_pvec(x)} "
                f"becomes category {rec.new_node_id}: a box that is a single point.",
            )
        )
    else:
        out.append(
            (
                "md",
                f"**New category** (t = {rec.t}): every one of the {len(rec.order)} categories was tested and reset "
                f"(its match is below ρ = {rho:g}), so the sample {_pvec(x)} becomes category {rec.new_node_id}.",
            )
        )
    out.append(("md", "The sample is **complement coded**, so that |I| = d whatever x is:"))
    # on lines of their own: on one, |I| was cut at the column's edge at 1280×720
    out.append(("latex", _lines(r"I &= (x,\ 1 - x)", "&= " + _vec_lines(I), rf"|I| &= {d}", align=True)))
    if rec.order:
        out += _fuzzy_art_search(rec, d, alpha, rho)
    if rec.case == 1:
        J = rec.resonance_id
        out.append(("latex", rf"M_{{{J}}} = {_v(rec.match)} \geq \rho = {_v(rho)} \;\Rightarrow\; \text{{resonance}}"))
        out.append(
            (
                "latex",
                rf"w_{{{J}}} \leftarrow \beta\,(I \wedge w_{{{J}}}) + (1 - \beta)\, w_{{{J}}} \quad (\beta = {_v(beta)})",
            )
        )
        ids = list(np.asarray(model.node_ids_))
        if J in ids:
            r = ids.index(J)
            lo, hi = np.asarray(model.box_lower_)[r], np.asarray(model.box_upper_)[r]
            learn = (
                "fast learning: the box stretches to hold x" if beta == 1 else "slow learning: the box moves part way"
            )
            out.append(("md", f"Its box is now {_pvec(lo)} to {_pvec(hi)} ({learn})."))
    else:
        out.append(("latex", rf"w_{{{rec.new_node_id}}} = I = {_vec(I)}"))
    return out


# ------------------------------------------------------------------ GNG
def explain_gng_step(rec, model, x):
    """GNG's step: the insertion (q, f, r) when there is one, s1 and s2, the error of s1, the edge s1–s2, the
    edges aged and removed, the moves, the nodes removed, every node's error."""
    x = np.asarray(x, float)
    if rec.case == 0:
        return [
            (
                "md",
                f"**Start node** (t = {rec.t}): GNG starts from two nodes, the first two samples; the sample "
                f"{_pvec(x)} becomes node {rec.new_node_id}.",
            )
        ]
    return [
        *_gng_insertion(rec, model),
        *_gng_winners(rec, model),
        *_gng_edges(rec),
        *_gng_moves(rec, model),
        *_gng_removals(rec, model),
        *_gng_errors(rec, model),
    ]


def _gng_insertion(rec, model):
    lam = int(model.insertion_interval)
    counted = rec.t - GNG_START_NODES
    if not rec.inserted:
        return [
            ("md", f"**Adaptation** (t = {rec.t}): no insertion at this step. {gng_counter_words(rec.t, model)}"),
            ("md", DEMOGNG_ORDER),
        ]
    return [
        (
            "md",
            f"**Insertion** (t = {rec.t}; the count of signals after the two start nodes, t − 2 = {counted:,}, is a "
            f"multiple of λ = {lam}): q = node {rec.q_id} has the largest "
            f"accumulated error and f = node {rec.f_id} is its neighbour of largest error; a new node "
            f"r = node {rec.new_node_id} is placed halfway between them, the edge q–f is replaced by q–r and r–f, "
            f"and the errors of q and f are cut by α = {float(model.alpha):g}:",
        ),
        (
            "latex",
            _lines(
                r"w_r = \tfrac{1}{2}(w_q + w_f)", r"E_q \leftarrow \alpha E_q,\ E_f \leftarrow \alpha E_f,\ E_r = E_q"
            ),
        ),
        (
            "latex",
            _lines(
                rf"E_q = {_v(rec.error_q)},\quad E_f = {_v(rec.error_f)}",
                rf"E_r = {_v(rec.error_r)} \quad \text{{(after the cut)}}",
            ),
        ),
        ("md", DEMOGNG_ORDER),
    ]


def _gng_winners(rec, model):
    beta = float(model.error_decay)
    return [
        (
            "md",
            f"The nearest node is **s1 = node {rec.s1_id}**, the second-nearest **s2 = node {rec.s2_id}** "
            "(squared distances):",
        ),
        (
            "latex",
            _lines(rf"\|x - w_{{s_1}}\|^2 &= {_v(rec.dist1)}", rf"\|x - w_{{s_2}}\|^2 &= {_v(rec.dist2)}", align=True),
        ),
        ("md", f"Every error decays by (1 − β), β = {beta:g}, and s1's grows by its squared distance:"),
        ("latex", rf"E_{{s_1}} \leftarrow (1 - \beta) E_{{s_1}} + \|x - w_{{s_1}}\|^2 = {_v(rec.error_s1)}"),
    ]


def _gng_edges(rec):
    out = []
    if rec.edge_created:
        out.append(("md", f"s1 and s2 were not linked: the edge {rec.s1_id}–{rec.s2_id} is **created** with age 0."))
    elif rec.edge_reset:
        out.append(("md", f"The edge {rec.s1_id}–{rec.s2_id} exists: its age is **reset to 0**."))
    if rec.edges_aged:
        out.append(("md", "Every edge of s1 **ages** by 1 (s1–s2 back to 0):"))
        aged = [{"edge": f"{a}–{b}", "age now": int(age)} for a, b, age in rec.edges_aged]
        out.append(("table", pd.DataFrame(aged)))
    return out


def _gng_moves(rec, model):
    eb, en = float(model.epsilon_b), float(model.epsilon_n)
    moves = [{"node": f"s1 = {rec.s1_id}", "rate": eb, "move": _pvec(rec.s1_move)}]
    moves += [{"node": f"neighbour {n}", "rate": en, "move": _pvec(mv)} for n, mv in rec.neighbour_moves]
    return [
        ("md", "s1 moves towards the sample by ε_b, each of its neighbours by ε_n:"),
        (
            "latex",
            _lines(  # a line each: on one, ε_n was cut at the column's edge at 1280×720
                rf"\Delta w_{{s_1}} &= \varepsilon_b (x - w_{{s_1}}), \quad \varepsilon_b = {_v(eb)}",
                rf"\Delta w_n &= \varepsilon_n (x - w_n), \quad \varepsilon_n = {_v(en)}",
                align=True,
            ),
        ),
        ("table", pd.DataFrame(moves)),
    ]


def _gng_removals(rec, model):
    amax = int(model.max_edge_age)
    if rec.edges_deleted:
        gone = ", ".join(f"{a}–{b} (age {age})" for a, b, age in rec.edges_deleted)
        out = [("md", f"**Edges removed** (older than a_max = {amax}): {gone}.")]
    else:
        out = [("md", f"No edge of s1 is older than a_max = {amax}: none removed.")]
    if rec.nodes_deleted:
        out.append(("md", f"**Nodes removed** (left without edges): {_ids(rec.nodes_deleted)}."))
    return out


def _gng_errors(rec, model):
    out = []
    ids = np.asarray(model.node_ids_)
    if rec.errors is not None and len(rec.errors) and len(ids) == len(rec.errors):
        errors = np.asarray(rec.errors)
        order = np.argsort(-errors, kind="stable")
        out.append(("md", "Every node's accumulated error E now (the next insertion goes beside the largest):"))
        out.append(("table", pd.DataFrame({"node": ids[order].astype(int), "error E": np.round(errors[order], 6)})))
    out.append(
        ("md", f"Now {rec.n_nodes} nodes, {rec.n_edges} edges, {rec.n_clusters} cluster(s) (connected components).")
    )
    return out

"""Plain-words and formula explanations of one CAE step, with the actual numbers.

:func:`explain_step` returns a list of blocks ``(kind, content)``: ``"md"``
(Markdown written by us, containing only numbers and fixed text),
``"latex"`` (a formula for ``st.latex``), ``"table"`` (a DataFrame) and
``"heatmap"`` (a matrix). The page renders them; tests read them.

Examples
--------
>>> import numpy as np
>>> from cae import CAE
>>> m = CAE(deletion_interval=4)
>>> for x in ([0.0, 0.0], [1.0, 0.0]):
...     rec = m.learn_one(x)
>>> rec = m.learn_one([0.1, 0.0])
>>> blocks = explain_step(rec, m, np.array([0.1, 0.0]))
>>> blocks[0][1].startswith("**Case III**")
True
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..algorithms.cae import MIN_NODES_FOR_LAMBDA, N_INIT

__all__ = [
    "explain_step",
    "silverman_details",
    "headline",
    "view_summary",
    "resonance",
    "QUIZ_CHOICES",
    "quiz_truth",
]

#: what the quiz asks: the four things CAE can do with a sample
QUIZ_CHOICES = {
    0: "Initial phase: it just becomes a node (no threshold yet, or the network is regrowing)",
    1: "Case I: a new node (it is too far from the winner s1)",
    2: "Case II: only the winner s1 learns it",
    3: "Case III: s1 and its neighbours learn it, and s1–s2 are linked",
}


def quiz_truth(rec):
    """What happened at a step, in the quiz's terms: ``(case, an edge was deleted, a node was deleted)``."""
    return rec.case, bool(rec.edges_deleted), bool(rec.swept_ids)


def resonance(model, x):
    """The nodes a sample at ``x`` would resonate with: rows whose CIM to x is within V.

    Returns ``(rows, cims, V)``; no rows while V is not set (the sample would become a node) or for a model with
    no V (Fuzzy ART, GNG).
    """
    x = np.asarray(x, float).reshape(1, -1)
    if not hasattr(model, "threshold_") or len(model.nodes_) == 0 or math.isnan(model.threshold_):
        return np.zeros(0, np.int64), np.zeros(0), float("nan")
    Y = np.asarray(model.nodes_)
    sig = model.prediction_sigma()
    c = np.sqrt(np.maximum(1 - np.mean(np.exp(-((x - Y) ** 2) / (2 * sig**2)), axis=1), 0))
    return np.flatnonzero(c <= model.threshold_), c, float(model.threshold_)


def _v(x, p=4):
    if x is None:
        return "—"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if not math.isfinite(x):
        return "\\infty" if x > 0 else ("-\\infty" if x < 0 else "\\text{NaN}")
    if x != 0 and (abs(x) < 1e-3 or abs(x) >= 1e5):
        m, e = f"{x:.{p - 1}e}".split("e")
        return f"{m}\\times 10^{{{int(e)}}}"
    return f"{x:.{p}g}"


def _vec(a, p=4):
    return "(" + ", ".join(_v(v, p) for v in np.asarray(a, float)) + ")"


def _vec_lines(a, p=4, per_line=4):
    """A vector for an ``aligned`` block, broken after every ``per_line`` components so no line is clipped."""
    vals = [_v(v, p) for v in np.asarray(a, float)]
    chunks = [", ".join(vals[i : i + per_line]) for i in range(0, len(vals), per_line)]
    return "(" + r",\\ &\qquad ".join(chunks) + ")"


def _lines(*lines, align=False):
    r"""One formula on several lines, each short enough for a narrow column.

    A line is at most about 22 em (the left column of *Explain a step* at 1280×720 is 431 px, 22 em of KaTeX's
    19.4 px; narrower boxes scale the formula down, see ``cae/streamlit_glue/common.py``). ``align``: the lines line up at
    their ``&`` (``aligned``); else each is centred (``gathered``).

    >>> _lines("a = 1", "b = 2")
    '\\begin{gathered} a = 1 \\\\ b = 2 \\end{gathered}'
    """
    env = "aligned" if align else "gathered"
    return rf"\begin{{{env}}} " + r" \\ ".join(lines) + rf" \end{{{env}}}"


def _pvec(a, p=4):
    return "(" + ", ".join(f"{float(v):.{p}g}" for v in np.asarray(a, float)) + ")"


def silverman_details(P):
    """Every number of the Silverman bandwidth of the points P (m x d)."""
    P = np.asarray(P, float)
    m, d = P.shape
    s = P.std(axis=0, ddof=1) if m > 1 else np.full(d, np.nan)
    zero = s == 0
    s = np.where(zero, 1e-6, s)
    a = (4.0 / (2.0 + d)) ** (1.0 / (4.0 + d))
    b = float(m) ** (-1.0 / (4.0 + d))
    Sig = a * s * b
    return {"m": m, "d": d, "a": a, "b": b, "s": s, "zeroed": zero, "Sigma": Sig, "sigma": float(np.median(Sig))}


def _silverman_blocks(P, label, value=None):
    info = silverman_details(P)
    d, m = info["d"], info["m"]
    shown = info["s"][:8]
    out = [
        (
            "latex",
            rf"{label} = \operatorname{{median}}_j\, \Big(\tfrac{{4}}{{2+d}}\Big)^{{\frac{{1}}{{4+d}}}} s_j\, m^{{-\frac{{1}}{{4+d}}}}",
        ),
        (
            "latex",
            rf"= \operatorname{{median}}_j\, {_v(info['a'])}\cdot s_j \cdot {_v(info['b'])}"
            rf" = {_v(info['sigma'] if value is None else value, 6)}",
        ),
        (
            "md",
            f"with m = {m} points, d = {d} features, s_j = standard deviations (ddof = 1): "
            + ", ".join(f"{v:.4g}" for v in shown)
            + ("…" if d > 8 else "")
            + (" (zero deviations become 1e-6)" if info["zeroed"].any() else ""),
        ),
    ]
    return out


def headline(rec):
    """One line: every event of the step (:func:`cae.app.step_events.step_line`, the one source of the Playground's
    "Last step" line and of *Explain a step*'s list)."""
    from .step_events import step_line

    return step_line(rec)


def view_summary(model, t, record=None, n_samples=None):
    """The main view in words: its text alternative, read by a screen reader in place of the chart.

    The step t, what that step did (``record``, the step's record: every event of it,
    :func:`cae.app.step_events.step_events`), and the network after it: #nodes, #edges, #clusters and the similarity threshold V
    (``model`` is the model after step t; ``n_samples`` the stream's length, when known).

    >>> from cae import CAE
    >>> from cae.data import make_paper2d, nonstationary_stream
    >>> X = nonstationary_stream(make_paper2d(100, seed=0), seed=0).X
    >>> m = CAE()
    >>> for x in X[:199]:
    ...     _ = m.learn_one(x)
    >>> view_summary(m, 200, m.learn_one(X[199]), 660)
    'The network at step t = 200 of 660. This step: Case III — s1 and its neighbours learn; edge 58–64 renewed (s1–s2, age 1). Now 41 nodes, 35 edges, 12 clusters; similarity threshold V = 0.3731.'
    >>> view_summary(CAE(), 0)
    'The network at step t = 0: no sample presented yet, no nodes.'
    """
    where = f"The network at step t = {t:,}" + (f" of {n_samples:,}" if n_samples else "")
    if not t or not hasattr(model, "nodes_"):
        return where + ": no sample presented yet, no nodes."
    words = [where + "."]
    if record is not None:
        from .step_events import step_events

        did = "; ".join(e.text for e in step_events(record)) or str(getattr(record, "event", "") or "")
        if did:
            words.append(f"This step: {did}.")
    n_nodes, n_edges = len(model.nodes_), len(getattr(model, "edges_", ()))
    n_clusters = int(getattr(model, "n_clusters_", 0))
    counts = (
        f"Now {n_nodes:,} node{'s' if n_nodes != 1 else ''}, {n_edges:,} edge{'s' if n_edges != 1 else ''}, "
        f"{n_clusters:,} cluster{'s' if n_clusters != 1 else ''}"
    )
    v = getattr(model, "threshold_", None)
    if v is not None:
        v = float(v)
        counts += "; similarity threshold V " + ("not set yet" if math.isnan(v) else f"= {v:.4f}")
    words.append(counts + ".")
    return " ".join(words)


def explain_step(rec, model, x):
    """Explain ``rec`` (the record of the step that learned ``x``) using ``model``, the state after it."""
    if rec is None:
        return [("md", "Nothing learned yet: press **Step** to present the first sample.")]
    x = np.asarray(x, float)
    blocks = []
    if rec.case == 0:
        blocks += _initial(rec, model, x)
    else:
        blocks += _learning(rec, model, x)
    blocks += _sweep(rec, model)
    return blocks


def _initial(rec, model, x):
    lam_known = rec.deletion_interval is not None
    if rec.n_nodes == rec.t:  # every sample so far became a node: the first growth
        why = "no similarity threshold V has been set yet"
    else:
        why = (
            f"the network has fewer than n_active = {rec.n_active_nodes} nodes "
            "(it is regrowing after an isolated-node sweep)"
        )
    out = [
        (
            "md",
            f"**Initial phase** (t = {rec.t}): {why}, so the sample {_pvec(x)} simply becomes "
            f"node {rec.new_node_id} (row {rec.new_node_row}, win count M = 1). "
            "No edges change and no node moves.",
        )
    ]
    sig_init = model.sigma_init_
    if not lam_known or rec.lambda_fixed:
        if model.deletion_interval is None and rec.t < N_INIT and math.isnan(rec.diversity):
            out.append(
                (
                    "md",
                    f"The diversity D needs σ_init, the Silverman bandwidth of the first {N_INIT} samples; "
                    f"{rec.t} of them have arrived, so D is computed from the {N_INIT}th sample on.",
                )
            )
        if not math.isnan(rec.diversity):
            K = rec.n_nodes
            out += _silverman_blocks(model.first_samples_, r"\sigma_{\mathrm{init}}", sig_init)
            out.append(("latex", r"R_{kl} = 1 - \mathrm{CIM}(y_k, y_l, \sigma_{\mathrm{init}})"))
            out.append(
                (
                    "latex",
                    rf"D = \det\big(\exp(R)\big) = {_v(rec.diversity)}"
                    + (r" < 10^{-6}" if rec.diversity < 1e-6 or not rec.diversity >= 1e-6 else r" \geq 10^{-6}"),
                )
            )
            R = model.diversity_matrix_
            if R is not None and R.shape[0] >= K:
                out.append(("heatmap", np.asarray(R[:K, :K])))
            if rec.lambda_fixed:
                out.append(
                    (
                        "md",
                        f"D fell below 1e-6 with K = {K} ≥ 10 nodes: the nodes are no longer diverse, so "
                        f"**n_active ← {rec.n_active_nodes}** and **λ ← 2·n_active = {rec.deletion_interval}**. "
                        "λ is never re-estimated.",
                    )
                )
            elif K < MIN_NODES_FOR_LAMBDA:
                out.append(("md", f"λ can only be fixed once K ≥ 10 (here K = {K})."))
            else:
                out.append(("md", "D is still at least 1e-6: the nodes are still diverse, keep growing."))
    if rec.threshold_setup:
        out.append(
            (
                "md",
                f"**Threshold set-up**: the network has K = n_active = {rec.n_active_nodes} nodes. "
                "Every node gets the bandwidth σ0 of the active node set, and V is the mean distance "
                "(CIM) from each node to its nearest other node.",
            )
        )
        act = model.active_rows()
        out += _silverman_blocks(np.asarray(model.nodes_)[act], r"\sigma_0", rec.sigma0)
        Y = np.asarray(model.nodes_)
        s0 = rec.sigma0
        mins = []
        for k in act:
            c = np.sqrt(np.maximum(1 - np.mean(np.exp(-((Y[k] - Y) ** 2) / (2 * s0**2)), axis=1), 0))
            c[k] = np.inf
            mins.append(c.min())
        out.append(("latex", r"V = \frac{1}{K}\sum_k \min_{l\neq k} \mathrm{CIM}(y_k, y_l, \sigma_0)"))
        out.append(("latex", rf"= \frac{{{_v(float(np.sum(mins)))}}}{{{len(mins)}}} = {_v(rec.threshold, 6)}"))
    return out


_CASE_NAMES = {1: "Case I", 2: "Case II", 3: "Case III"}
_CASE_PLAIN = {
    1: "the nearest node is farther than the threshold: the sample is novel and becomes a new node.",
    2: "the sample resonates with the nearest node s1 only: s1 learns it.",
    3: "the sample resonates with both s1 and s2: s1 and its neighbours learn it, and s1–s2 are joined.",
}


def _the_case(rec):
    """Which case, in words, the CIM, and the comparison of V with V_1 and V_2 that decided it."""
    V = rec.threshold
    case_text = {
        1: rf"V = {_v(V)} < V_1 = {_v(rec.v1)}",
        2: rf"V_1 = {_v(rec.v1)} \leq V = {_v(V)} < V_2 = {_v(rec.v2)}",
        3: rf"V_1 = {_v(rec.v1)} \leq V_2 = {_v(rec.v2)} \leq V = {_v(V)}",
    }[rec.case]
    return [
        (
            "md",
            f"**{_CASE_NAMES[rec.case]}** (t = {rec.t}): {_CASE_PLAIN[rec.case]} "
            f"Winner s1 = node {rec.s1_id} (row {rec.s1}), runner-up s2 = node {rec.s2_id} (row {rec.s2}).",
        ),
        (
            "latex",
            _lines(  # on two lines: on one, σ̄ was cut at the column's edge at 1280×720
                r"\mathrm{CIM}(x, y, \bar\sigma) &= \sqrt{1 - \tfrac{1}{d}\textstyle\sum_j "
                r"\exp\!\big(-\tfrac{(x_j - y_j)^2}{2\bar\sigma^2}\big)}",
                rf"\bar\sigma &= {_v(rec.sigma)}",
                align=True,
            ),
        ),
        ("latex", case_text),
    ]


def _new_node(rec, model, x):
    """Case I: the new node and its Silverman bandwidth."""
    out = [
        (
            "md",
            f"New node {rec.new_node_id} at {_pvec(x)} with M = 1, moved to the front of the recency "
            "list. Its bandwidth is the Silverman bandwidth of the active node set (which now includes it):",
        )
    ]
    act = model.active_rows()
    ids = np.asarray(model.node_ids_)
    if rec.new_node_id in ids:
        out += _silverman_blocks(np.asarray(model.nodes_)[act], r"\sigma_{\mathrm{new}}", rec.new_node_sigma)
    return out


def _winner_learns(rec, model, x, ids):
    """Cases II and III: s1 moves towards the sample by 1/M, and its edges age."""
    nid, before, after = rec.moved[0]
    M = int(model.win_counts_[ids.index(nid)]) if nid in ids else None
    Mtxt = str(M) if M is not None else "M"
    out = [("latex", r"y_{s_1} \leftarrow y_{s_1} + \frac{x - y_{s_1}}{M_{s_1}}")]
    out.append(
        (
            "latex",
            r"\begin{aligned} y_{s_1} &= "
            + _vec_lines(before)
            + r" \\ x &= "
            + _vec_lines(x)
            + rf" \\ M_{{s_1}} &= {Mtxt} \\ y_{{s_1}} + \tfrac{{x - y_{{s_1}}}}{{M_{{s_1}}}} &= "
            + _vec_lines(after)
            + r" \end{aligned}",
        )
    )
    if rec.edges_aged:
        out.append(
            ("md", "Every edge of s1 ages by 1: " + ", ".join(f"{a}–{b} → {age}" for a, b, age in rec.edges_aged) + ".")
        )
    else:
        out.append(("md", "s1 had no edges to age."))
    return out


def _neighbours_learn(rec, model, ids):
    """Case III: the neighbours of s1 move a tenth as far, and the edge s1–s2 is created or reset."""
    out = []
    nb = rec.moved[1:]
    if nb:
        rows = []
        for n, b, a in nb:
            Mk = int(model.win_counts_[ids.index(n)]) if n in ids else None
            rows.append({"node": n, "M": Mk, "before": _pvec(b), "after": _pvec(a)})
        out.append(
            (
                "md",
                "Every node that already was a neighbour of s1 moves a tenth as far: "
                r"$y_k \leftarrow y_k + (x - y_k)/(10 M_k)$.",
            )
        )
        out.append(("table", pd.DataFrame(rows)))
    else:
        out.append(("md", "s1 had no neighbours to move."))
    if rec.edge_created:
        out.append(
            ("md", f"Then the edge s1–s2 ({rec.edge_created[0]}–{rec.edge_created[1]}) is **created** with age 1.")
        )
    elif rec.edge_reset:
        out.append(
            (
                "md",
                f"Then the existing edge s1–s2 ({rec.edge_reset[0]}–{rec.edge_reset[1]}) has its age **reset** to 1 "
                "(so s2 moved above only because it already was a neighbour).",
            )
        )
    return out


def _learning(rec, model, x):
    """The learning of one step: the case, then what it changed (a new node; or s1 and its neighbours), then
    what was deleted."""
    out = _the_case(rec)
    if rec.case == 1:
        return out + _new_node(rec, model, x)
    ids = list(np.asarray(model.node_ids_))
    out += _winner_learns(rec, model, x, ids)
    if rec.case == 3:
        out += _neighbours_learn(rec, model, ids)
    out += _deletion(rec)
    return out


def _deletion(rec):
    alpha = [a for _, a in rec.edge_ages_at_deletion]
    if not alpha:
        return [("md", "Edge deletion: s1 has no edges, nothing to delete.")]
    out = [("md", "**Edge deletion around s1.** Ages of s1's edges α = " + ", ".join(map(str, sorted(alpha))) + ".")]
    if math.isnan(rec.q1) or math.isnan(rec.q3):
        if not math.isnan(rec.a_max):
            out.append(("latex", rf"a_{{\max}} = {_v(rec.a_max)}\ \text{{(fixed)}}"))
        else:
            out.append(
                (
                    "md",
                    f"Median = {_v(rec.median)}; there are no ages strictly below or strictly above it, "
                    "so the hinges q1 and q3 do not exist and nothing is deleted.",
                )
            )
            return out
    else:
        out.append(
            ("latex", rf"\operatorname{{med}}(\alpha) = {_v(rec.median)},\ q_1 = {_v(rec.q1)},\ q_3 = {_v(rec.q3)}")
        )
        out.append(
            (
                "latex",
                rf"\begin{{aligned}} a_{{\mathrm{{thr}}}} &= q_3 + (q_3 - q_1) = {_v(rec.a_thr)} \\ "
                rf"r &= \frac{{n_{{\mathrm{{del}}}}}}{{n_{{\mathrm{{del}}}} + |\alpha|}} = {_v(rec.ratio)} \end{{aligned}}",
            )
        )
        out.append(
            (
                "latex",
                # on three lines: the formula, its numbers, the result (one line was cut at the column's edge)
                rf"\begin{{aligned}} a_{{\max}} &= \bar a_{{\mathrm{{del}}}}\, r + a_{{\mathrm{{thr}}}}(1 - r) \\ "
                rf"&= {_v(rec.mean_deleted_edge_age_before)}\cdot{_v(rec.ratio)} + "
                rf"{_v(rec.a_thr)}\cdot{_v(1 - rec.ratio)} \\ &= {_v(rec.a_max)} \end{{aligned}}",
            )
        )
    if rec.edges_deleted:
        out.append(
            (
                "md",
                f"Edges older than a_max = {rec.a_max:.4g} are deleted: "
                + ", ".join(f"{a}–{b} (age {age})" for a, b, age in rec.edges_deleted)
                + ".",
            )
        )
    else:
        out.append(("md", f"No edge of s1 is older than a_max = {rec.a_max:.4g}: nothing is deleted."))
    return out


def _sweep(rec, model):
    lam = rec.deletion_interval
    if lam is None or rec.t % lam != 0:
        return []
    if rec.swept_ids:
        return [
            (
                "md",
                f"**Isolated-node sweep**: t = {rec.t} is a multiple of λ = {lam}, so every node without an "
                f"edge is removed — {len(rec.swept_ids)} node(s): "
                + ", ".join(map(str, rec.swept_ids[:40]))
                + (" …" if len(rec.swept_ids) > 40 else "")
                + ". This is CAE's noise filter; survivors keep their order.",
            )
        ]
    return [
        (
            "md",
            f"**Isolated-node sweep**: t = {rec.t} is a multiple of λ = {lam}, but every node has an edge: none removed.",
        )
    ]

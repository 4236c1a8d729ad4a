"""What the classroom pages compute from a room: links, the answers chart, scores and the class's CSV.

Pure functions of what the store returns (:mod:`.store`'s records); no Streamlit, no store calls.

Examples
--------
>>> from cae.classroom.store import Answer, Question, Student
>>> q = Question(1, 13, {"stream": "moons", "t": "12"}, 0.0, True, (2, False, False))
>>> ann, bo = Student("a", "Ann", 0.0, 0.0), Student("b", "=Bo", 0.0, 0.0)
>>> answers = [Answer(1, "a", "Ann", (2, False, False), 4.5), Answer(1, "b", "=Bo", (3, True, False), 6.0)]
>>> counts(answers)["case"]
[0, 0, 1, 1]
>>> [(s.nickname, s.right, s.asked) for s in scores([q], answers, [ann, bo])]
[('Ann', 1, 1), ('=Bo', 0, 1)]
>>> print(answers_csv([q], answers, [ann, bo], "http://host:8501").decode().splitlines()[1])
1,13,what CAE does,Ann,Case II,1970-01-01T00:00:04Z,4.5,Case II,yes,http://host:8501/playground?stream=moons&t=12&quiz=1
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode

__all__ = [
    "join_url",
    "teacher_url",
    "question_url",
    "is_right",
    "counts",
    "scores",
    "Score",
    "answers_csv",
    "CASE_SHORT",
    "CASE_LABELS",
    "answers_figure",
]

#: the quiz's four cases, short (the long texts are cae.app.explanations.QUIZ_CHOICES)
CASE_SHORT = {0: "Initial phase", 1: "Case I", 2: "Case II", 3: "Case III"}


def _base(base):
    return str(base or "").rstrip("/")


def join_url(base, code):
    """The link students open: ``BASE/classroom?room=CODE`` (no secret in it).

    >>> join_url("http://10.0.0.5:8501/", "ACEFH3")
    'http://10.0.0.5:8501/classroom?room=ACEFH3'
    """
    return f"{_base(base)}/classroom?" + urlencode({"room": code})


def teacher_url(base, code, token):
    """The teacher's link to resume the class from another device (it carries the teacher's token)."""
    return f"{_base(base)}/classroom?" + urlencode({"room": code, "teacher": token})


def question_url(base, state):
    """The lesson link of a question: the Playground at the question's step, in quiz mode."""
    return f"{_base(base)}/playground?" + urlencode({**state, "quiz": "1"})


def is_right(choice, truth):
    """An answer is right when all three of its parts are (the case, an edge deleted, a node deleted)."""
    return truth is not None and tuple(choice) == tuple(truth)


def counts(answers):
    """How many chose each case, and said yes / no to an edge and a node deleted."""
    out = {"case": [0, 0, 0, 0], "edge": [0, 0], "node": [0, 0]}  # edge/node: [yes, no]
    for a in answers:
        case, edge, node = a.choice
        out["case"][int(case)] += 1
        out["edge"][0 if edge else 1] += 1
        out["node"][0 if node else 1] += 1
    return out


@dataclass(frozen=True)
class Score:
    sid: str
    nickname: str
    right: int
    answered: int
    asked: int


def scores(questions, answers, students):
    """Each student's running score over the revealed questions, best first (then in joining order)."""
    truth = {q.qid: q.truth for q in questions if q.revealed}
    by_student = {}
    for a in answers:
        if a.qid in truth:
            r, n = by_student.get(a.sid, (0, 0))
            by_student[a.sid] = (r + int(is_right(a.choice, truth[a.qid])), n + 1)
    out = [Score(s.sid, s.nickname, *by_student.get(s.sid, (0, 0)), len(truth)) for s in students]
    order = {s.sid: k for k, s in enumerate(students)}
    return sorted(out, key=lambda s: (-s.right, order[s.sid]))


def _yes(v):
    return "yes" if v else "no"


def _iso(t):
    return datetime.fromtimestamp(float(t), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def answers_csv(questions, answers, students, base):
    """The class's answers: one row per question, part of the answer and student.

    Columns: ``question, step, kind`` (which part: what CAE does, an edge deleted, a node deleted),
    ``student, answer, answered_at`` (UTC), ``seconds`` (after the question was asked),
    ``correct_answer, right`` (empty while not revealed) and ``lesson_link`` (the Playground at that step).
    A student who did not answer has a row with an empty answer. Text cells that a spreadsheet would run
    as a formula are prefixed with ``'``.
    """
    import pandas as pd

    from ..data.csvio import to_safe_csv

    rows = []
    by_q = {}
    for a in answers:
        by_q.setdefault(a.qid, {})[a.sid] = a
    for q in questions:
        link = question_url(base, q.state)
        got = by_q.get(q.qid, {})
        for s in students:
            a = got.get(s.sid)
            if a is None and s.joined > q.opened:
                continue  # joined after the question: not asked
            parts = (
                ("what CAE does", CASE_SHORT.get, 0),
                ("edge deleted", _yes, 1),
                ("node deleted", _yes, 2),
            )
            for kind, fmt, k in parts:
                rows.append(
                    {
                        "question": q.qid,
                        "step": q.step,
                        "kind": kind,
                        "student": s.nickname,
                        "answer": "" if a is None else fmt(a.choice[k]),
                        "answered_at": "" if a is None else _iso(a.at),
                        "seconds": "" if a is None else round(a.at - q.opened, 1),
                        "correct_answer": fmt(q.truth[k]) if q.revealed else "",
                        "right": ("" if a is None else _yes(a.choice[k] == q.truth[k])) if q.revealed else "",
                        "lesson_link": link,
                    }
                )
    cols = [
        "question",
        "step",
        "kind",
        "student",
        "answer",
        "answered_at",
        "seconds",
        "correct_answer",
        "right",
        "lesson_link",
    ]
    return to_safe_csv(pd.DataFrame(rows, columns=cols))


#: the four cases as the chart labels them
CASE_LABELS = {
    0: "Initial phase: becomes a node",
    1: "Case I: a new node",
    2: "Case II: s1 learns",
    3: "Case III: s1 and neighbours, s1–s2 linked",
}


def answers_figure(answers, n_students=None, names=False, truth=None, height=430):
    """The class's answers as horizontal bars: how many chose each case; an edge / a node deleted, yes and no.

    ``names`` lists who chose what in each bar's hover text (:func:`cae.classroom.names.for_plotly`:
    nicknames are never markup, and no entity shows as text);
    ``truth`` (after the reveal) colours the right bars green and the others grey.
    """
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from .names import for_plotly

    c = counts(answers)
    who = {"case": [[], [], [], []], "edge": [[], []], "node": [[], []]}
    for a in answers:
        case, edge, node = a.choice
        nick = for_plotly(a.nickname)
        who["case"][int(case)].append(nick)
        who["edge"][0 if edge else 1].append(nick)
        who["node"][0 if node else 1].append(nick)
    fig = make_subplots(
        rows=3,
        cols=1,
        row_heights=[0.56, 0.22, 0.22],
        vertical_spacing=0.12,
        subplot_titles=("What will CAE do?", "Will an edge be deleted?", "Will a node be deleted?"),
    )
    right = {
        "case": truth[0] if truth else None,
        "edge": (0 if truth[1] else 1) if truth else None,
        "node": (0 if truth[2] else 1) if truth else None,
    }

    def colours(n, ok):
        return ["#2ca02c" if k == ok else ("#c7c7c7" if ok is not None else "#4c78a8") for k in range(n)]

    def hover(lists):
        return ["<br>".join(x[:40]) + ("<br>…" if len(x) > 40 else "") if x else "nobody" for x in lists]

    parts = (
        ("case", [CASE_LABELS[k] for k in range(4)]),
        ("edge", ["yes", "no"]),
        ("node", ["yes", "no"]),
    )
    for row, (part, labels) in enumerate(parts, start=1):
        fig.add_trace(
            go.Bar(
                y=labels,
                x=c[part],
                orientation="h",
                text=c[part],
                textposition="outside",
                marker_color=colours(len(labels), right[part]),
                hovertext=hover(who[part]) if names else None,
                hoverinfo="text" if names else "x+y",
                showlegend=False,
                cliponaxis=False,
            ),
            row=row,
            col=1,
        )
        fig.update_yaxes(autorange="reversed", row=row, col=1)
    top = max([1, *c["case"], *c["edge"], *c["node"]])
    fig.update_xaxes(range=[0, top * 1.18 + 0.3], dtick=max(1, round(top / 5)), showgrid=True)
    n = len(answers)
    title = f"{n} answer{'s' if n != 1 else ''}" + (f" from {n_students} student(s) present" if n_students else "")
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=20, t=60, b=20),
        title=dict(text=title, x=0, font=dict(size=16)),
        bargap=0.25,
    )
    fig.update_annotations(font_size=13, x=0, xanchor="left")
    return fig

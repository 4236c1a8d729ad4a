"""The Playground's quiz: peek at what the algorithm (CAE, CAEA, Fuzzy ART, GNG) will do with the next sample, then score the class's prediction.

Pure (no Streamlit): the page draws what :func:`peek` returns and keeps a :class:`QuizScore` in its session.

Examples
--------
>>> score = QuizScore()
>>> r = score.reveal(t=12, answer=(3, False, False), truth=(3, True, False))
>>> r.marks, r.right, (score.right, score.asked)
((True, False, True), False, (0, 1))
>>> score.showing(12) is r, score.showing(13)
(True, None)
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Peek:
    """The next sample ``x`` of a run at step ``t`` and the record CAE would make of it (``record``)."""

    t: int
    x: object
    record: object


def peek(pg):
    """What the run ``pg`` (a :class:`~cae.app.stepper.Stepper` not at its end) will do with its next sample,
    learned by a copy of its model: the run itself does not move."""
    x = pg.stream.X[pg.t]
    return Peek(t=pg.t, x=x, record=pg.model.snapshot().learn_one(x))


@dataclass(frozen=True)
class Reveal:
    """A revealed prediction at step ``t``: ``answer`` and ``truth`` as ``(case, edge deleted, node deleted)`` for
    CAE and CAEA; for another algorithm (``algo``) its question's answer and its yes/no answers
    (:func:`cae.app.explainable.quiz_truth`)."""

    t: int
    answer: tuple
    truth: tuple
    algo: str = "CAE"

    @property
    def marks(self):
        """Right or wrong, for the case, the edge and the node."""
        return tuple(a == b for a, b in zip(self.answer, self.truth))

    @property
    def right(self):
        return all(self.marks)

    def lines(self):
        """The reveal in words (Markdown, one line each): what CAE did and each part of the prediction, marked."""
        from . import explainable
        from .explanations import QUIZ_CHOICES

        if not explainable.entry(self.algo).is_cae:
            return self._lines(explainable.entry(self.algo), explainable.quiz_of(self.algo)[1])
        ok_case, ok_edge, ok_node = ("✓" if m else "✗" for m in self.marks)
        case, edge, node = self.truth
        return [
            f"**What CAE did:** {QUIZ_CHOICES[case]}",
            f"{ok_case} you said: {QUIZ_CHOICES[self.answer[0]]}",
            f"{ok_edge} an edge deleted: {'yes' if edge else 'no'}",
            f"{ok_node} a node deleted: {'yes' if node else 'no'}",
        ]

    def _lines(self, e, choices):
        ok = ["✓" if m else "✗" for m in self.marks]
        out = [f"**What {e.name} did:** {choices[self.truth[0]]}", f"{ok[0]} you said: {choices[self.answer[0]]}"]
        for k, (_, label, _) in enumerate(e.quiz_checks, start=1):
            out.append(
                f"{ok[k]} {label}: {'yes' if self.truth[k] else 'no'} (you said {'yes' if self.answer[k] else 'no'})"
            )
        return out


@dataclass
class QuizScore:
    """The quiz's score in a session, and the last reveal (shown until the next sample is asked)."""

    asked: int = 0
    right: int = 0
    revealed: Reveal | None = field(default=None)

    def reveal(self, t, answer, truth, algo="CAE"):
        """Score ``answer`` against ``truth`` at step ``t`` (the step just learned) and keep it to show."""
        r = Reveal(t=t, answer=tuple(answer), truth=tuple(truth), algo=algo)
        self.asked += 1
        self.right += int(r.right)
        self.revealed = r
        return r

    def reveal_step(self, pg, answer, algo="CAE"):
        """Learn the run's next sample and score ``answer`` against what the algorithm ``algo`` did."""
        from .explainable import quiz_truth

        rec = pg.step(1)
        return self.reveal(pg.t, answer, quiz_truth(algo, rec), algo)

    def showing(self, t):
        """The reveal to show at step ``t`` (None once the run moved on or the next sample was asked)."""
        return self.revealed if self.revealed is not None and self.revealed.t == t else None

    def next_sample(self):
        self.revealed = None

    @property
    def text(self):
        return f"{self.right} / {self.asked}"

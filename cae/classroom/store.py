"""The classroom store: one interface, two backends (SQLite, the default; Redis for several app processes).

A *room* holds what every browser session of a class shares, and nothing else:

- the teacher's published Playground state (a lesson-link query, :func:`cae.app.lesson_links.playground_query`,
  ``t`` included) and a ``version`` that grows with every change students must follow;
- the students: an id (a secret of the student's session, at least 128 bits), a nickname (cleaned, capped,
  unique in the room) and when they were last seen;
- the questions (predict-then-reveal, asked at a step, with the lesson state they were asked in) and, once
  revealed, the truth; one answer per student per question, refused once the question is revealed.

Never figures or models: the lesson state plus ``t`` determines every view (the pages compute it).

Only the teacher's session may publish, ask, reveal or close: it holds a token made with the room (256
random bits; the store keeps only its SHA-256). Every write is atomic (one SQLite transaction, one Redis
script): a store that fails half-way leaves the room as it was. A store that cannot be reached, or that
cannot be written (a read-only file), raises :class:`StoreUnavailable` with the reason in words.

:func:`cae.classroom.open_store` picks the backend from a URL (``CAE_CLASSROOM_URL``): ``redis://…`` or ``rediss://…``
(redis-py), ``sqlite:///path/to/file``, or nothing — SQLite (a rollback journal) in the per-user data folder
(:func:`default_sqlite_path`).

Examples
--------
>>> import tempfile, os
>>> from cae.classroom import open_store
>>> store = open_store("sqlite:///" + os.path.join(tempfile.mkdtemp(), "class.sqlite3"))
>>> code, token = store.create_room()
>>> len(code), len(token) >= 43
(6, True)
>>> v = store.publish(code, token, {"stream": "moons", "t": "12"})
>>> ann = store.join(code, "Ann")
>>> also_ann = store.join(code, "ann")
>>> ann.nickname, also_ann.nickname
('Ann', 'ann 2')
>>> q = store.ask(code, token, step=13, state={"stream": "moons", "t": "12"})
>>> store.answer(code, ann.sid, q.qid, (2, False, False)).choice
(2, False, False)
>>> store.reveal(code, token, q.qid, (2, False, False)).truth
(2, False, False)
>>> store.poll(code).state["t"], store.poll(code).question.revealed
('12', True)
>>> store.publish(code, "not the token", {"t": "0"})
Traceback (most recent call last):
...
cae.classroom.store.NotTeacher: only the teacher of this room can do that
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from . import names

__all__ = [
    "ClassroomStore",
    "Limits",
    "Room",
    "Poll",
    "Student",
    "Question",
    "Answer",
    "StoreError",
    "StoreUnavailable",
    "StoreReset",
    "Conflict",
    "Stale",
    "QuestionOpen",
    "RoomNotFound",
    "NotTeacher",
    "LimitReached",
    "AnswerRefused",
    "BadInput",
    "Locked",
    "Removed",
    "Claim",
    "ROOM_ALPHABET",
    "new_room_code",
    "normalize_code",
    "clean_nickname",
    "new_secret",
    "token_hash",
    "PRESENT_SECONDS",
    "CLOSED_GRACE",
    "CLAIM_SECONDS",
]

#: room codes use these 19 symbols: no 0/O/D/Q, 1/I/L, 2/Z, 5/S, 8/B, 6/G, U/V — nothing two people
#: could read differently off a projector (19^6 = 47 million codes)
ROOM_ALPHABET = "ACEFHJKMNPRTWXY3479"
ROOM_CODE_LENGTH = 6
#: a student counts as present when their page has asked for news in the last this many seconds
PRESENT_SECONDS = 30.0
#: a closed room is purged this many seconds after it closed (its students' pages say the class ended)
CLOSED_GRACE = 600.0
#: what a publish refused by :class:`Conflict` says
MOVED_ON = "the class has moved on: another device of its teacher changed it first"
#: what a join from a browser whose student the teacher removed says
REMOVED_BROWSER = "the teacher has removed this browser's student from the class: it cannot join again"
#: a student's place is held by the browser that last asked for news within this many seconds: another
#: browser opening the student's link asks before taking it over (:meth:`ClassroomStore.claim`)
CLAIM_SECONDS = 30.0


class StoreError(Exception):
    """Something a page shows in words (every subclass's message is a sentence for a person)."""


class StoreUnavailable(StoreError):
    """The store cannot be reached or written (Redis down, a read-only SQLite file, a full disk).

    ``str(exc)`` is for everyone, students included: it names no file, host or port. ``exc.detail`` adds
    where the store is and what the system said, for the teacher's page and the server's log.
    """

    def __init__(self, words, detail=None):
        super().__init__(words)
        self.detail = detail or words


class StoreReset(StoreError):
    """The store came back without the class: a Redis restarted without persistence, or a SQLite file
    replaced by a new one. The class is lost, not ended (the page says so, and that a new one can start)."""


class Conflict(StoreError):
    """A publish refused because the class's state is no longer the one the page last saw: another device of
    the teacher moved the class first. ``state`` is the state the store holds (the page adopts it)."""

    def __init__(self, words, state=None):
        super().__init__(words)
        self.state = dict(state or {})


class Stale(StoreError):
    """A teacher's Ask or Reveal refused because the class is not as the page drew it (compare-and-set): another
    device of the teacher asked, revealed or moved the class first. ``question`` is the class's latest question as
    the store holds it (None before the first); the page shows it and says what happened."""

    def __init__(self, words, question=None):
        super().__init__(words)
        self.question = question


class QuestionOpen(Stale):
    """An Ask refused because a question is open: one question at a time (``question`` is the open one)."""


def question_open(q):
    """What a refused Ask says when question ``q`` is open."""
    return f"a question is already open: question {q.qid}, about sample {q.step:,}"


def changed_since(q):
    """What a refused Ask says when the class changed since the page was drawn (``q``: its latest question)."""
    last = "" if q is None else f"; its last question, {q.qid}, is {'revealed' if q.revealed else 'open'}"
    return f"the class has changed since this page was drawn (another device of its teacher acted first{last})"


def revealed_already(q):
    """What a refused Reveal says when question ``q`` was revealed already."""
    return f"question {q.qid} was revealed already (by another device of the teacher)"


class RoomNotFound(StoreError):
    """No such room: a mistyped code, or a room that expired or was closed."""


class NotTeacher(StoreError):
    """A teacher's action without the room's teacher token."""


class Locked(StoreError):
    """A join refused because the teacher locked the class (no new students)."""


class Removed(StoreError):
    """The student was removed from the class by the teacher."""


class LimitReached(StoreError):
    """A limit of :class:`Limits` (students per room, rooms per store, questions per room)."""


class AnswerRefused(StoreError):
    """An answer that cannot be counted: already given, the question revealed, or not the open one."""


class BadInput(StoreError):
    """A nickname, code, state or answer that cannot be used as given."""


@dataclass(frozen=True)
class Limits:
    """What one store accepts. Every limit is checked inside the same atomic write that would exceed it.

    Parameters
    ----------
    students_per_room : int
    rooms : int
        Open (unexpired) rooms in the store at once.
    questions_per_room : int
        Questions a room can ask, hence answers per student.
    ttl_seconds : float
        A room expires this long after it was made; the store then purges it (every table or key).
    nickname_length : int
        Characters kept of a nickname, as a reader counts them (grapheme clusters: an emoji sequence is
        one), the suffix that makes it unique included.
    state_chars : int
        Characters of a published lesson state (JSON): a link's values are at most 200 characters each.
    rooms_per_client : int
        Open classes one client (an address, see :func:`cae.classroom.client_of`) may hold at once.
    starts_per_client, starts_window : int, float
        Classes one client may start per ``starts_window`` seconds (open or not).
    joins_per_client, joins_window : int, float
        Joins of one class from one client per ``joins_window`` seconds. A lecture hall behind one NAT
        address counts as one client: 120 per 10 minutes lets a hall of 500 join over a few minutes'
        arrivals only with ``CAE_CLASSROOM_JOINS_PER_CLIENT`` raised (the README's classroom section).
    guesses_per_client, guesses_window : int, float
        Class codes that name no class, tried by one client per ``guesses_window`` seconds; beyond it the
        client's joins are refused until the window ends (19^6 codes: guessing at 30 per 10 minutes day and
        night finds one of 1,000 open classes about once in 11 days).
    """

    students_per_room: int = 500
    rooms: int = 1000
    questions_per_room: int = 500
    ttl_seconds: float = 12 * 3600.0
    nickname_length: int = 24
    state_chars: int = 8000
    rooms_per_client: int = 3
    starts_per_client: int = 6
    starts_window: float = 3600.0
    joins_per_client: int = 120
    joins_window: float = 600.0
    guesses_per_client: int = 30
    guesses_window: float = 600.0


@dataclass(frozen=True)
class Student:
    sid: str
    nickname: str
    joined: float
    seen: float


@dataclass(frozen=True)
class Question:
    """A predict-then-reveal question about step ``step`` (the sample the class predicts is the
    ``step``-th), asked while the teacher's view was ``state`` (its ``t`` is ``step - 1``)."""

    qid: int
    step: int
    state: dict
    opened: float
    revealed: bool = False
    truth: tuple | None = None
    kind: str = "predict"


@dataclass(frozen=True)
class Answer:
    qid: int
    sid: str
    nickname: str
    choice: tuple
    at: float


@dataclass(frozen=True)
class Room:
    code: str
    created: float
    expires: float
    closed: bool
    version: int
    state: dict
    state_at: float
    n_questions: int
    locked: bool = False


@dataclass(frozen=True)
class Claim:
    """Who holds a student's place: ``ok`` when ``holder`` (a browser session) has it now; otherwise
    ``other_age`` says how many seconds ago the other holder's page last asked for news."""

    ok: bool
    other_age: float | None = None


@dataclass(frozen=True)
class Poll:
    """What a student's page asks for every second: cheap to read."""

    version: int
    state: dict
    question: Question | None = field(default=None)
    closed: bool = False
    locked: bool = False
    removed: frozenset = frozenset()
    #: grows with every rename: a student's page reads its own nickname again when it changes
    renamed: int = 0


# ---------------------------------------------------------------- small shared rules
def new_secret(nbytes=32):
    """A URL-safe random secret (256 bits by default; 128 is the least a token may have)."""
    return secrets.token_urlsafe(max(16, int(nbytes)))


def token_hash(token):
    return hashlib.sha256(str(token).encode("utf-8")).hexdigest()


def token_matches(token, stored_hash):
    return stored_hash is not None and hmac.compare_digest(token_hash(token or ""), str(stored_hash))


def new_room_code():
    return "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_CODE_LENGTH))


def normalize_code(code):
    """A room code as typed (any case, spaces or dashes) in its stored form; BadInput if it cannot be one.

    >>> normalize_code(" ace-fh3 ")
    'ACEFH3'
    """
    c = "".join(ch for ch in str(code or "").upper() if not ch.isspace() and ch != "-")
    if len(c) != ROOM_CODE_LENGTH or any(ch not in ROOM_ALPHABET for ch in c):
        raise BadInput(f"a room code is {ROOM_CODE_LENGTH} characters from {ROOM_ALPHABET}")
    return c


def clean_nickname(name, limit=24):
    """A nickname as stored: :func:`cae.classroom.names.normalise` (NFKC, no invisible characters, spaces
    collapsed, at most ``limit`` grapheme clusters); BadInput when nothing visible is left, or when it is
    (or looks like) a name kept for the teacher (:func:`cae.classroom.names.reserved`).

    Markup is kept as typed (it is escaped wherever it is shown: :mod:`cae.classroom.names`).

    >>> clean_nickname("  Ann \\u202e\\n  <b>B</b> ")
    'Ann <b>B</b>'
    >>> clean_nickname("TEACHER 2")
    Traceback (most recent call last):
    ...
    cae.classroom.store.BadInput: "TEACHER 2" is kept for the teacher: choose another nickname
    """
    s = names.normalise(name, limit)
    if not s:
        raise BadInput("give a nickname (letters, digits, a few words)")
    if names.reserved(s):
        raise BadInput(f'"{s}" is kept for the teacher: choose another nickname')
    return s


def nickname_key(name):
    """What makes two nicknames one: their :func:`cae.classroom.names.skeleton` (``Аnn`` in Cyrillic is ``Ann``)."""
    return names.skeleton(name)


def unique_nickname(name, taken, limit):
    """``name``, or ``name 2``, ``name 3``… (cut to fit ``limit``) — the first whose key is not ``taken``."""
    if nickname_key(name) not in taken:
        return name
    k = 2
    while True:
        suffix = f" {k}"
        cand = names.truncate(name, max(1, int(limit) - len(suffix))) + suffix
        if nickname_key(cand) not in taken:
            return cand
        k += 1


def check_choice(choice):
    """An answer as stored: ``(case 0-3, an edge deleted, a node deleted)``."""
    try:
        case, edge, node = choice
        case = int(case)
    except (TypeError, ValueError):
        raise BadInput("an answer is (case, an edge deleted, a node deleted)") from None
    if case not in (0, 1, 2, 3) or not isinstance(edge, (bool, int)) or not isinstance(node, (bool, int)):
        raise BadInput("an answer is (case 0-3, an edge deleted yes/no, a node deleted yes/no)")
    return (case, bool(edge), bool(node))


def state_json(state, limits):
    """A lesson state (a flat dict of short strings) as stored; BadInput if it is not one."""
    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise BadInput("a lesson state is a dict of query parameters")
    text = json.dumps({k: str(v) for k, v in state.items()}, sort_keys=True, separators=(",", ":"))
    if len(text) > limits.state_chars:
        raise BadInput(f"a lesson state is at most {limits.state_chars:,} characters")
    return text


# ---------------------------------------------------------------- the interface
class ClassroomStore(ABC):
    """What the classroom pages need from a store; :mod:`.sqlite` and :mod:`.redis` implement it.

    Every method may raise :class:`StoreUnavailable`; the others are raised where their docstring says.
    ``now`` (seconds since the epoch) is for tests; it defaults to the clock.
    """

    limits: Limits

    # rooms
    #: where the class is kept, in words for the teacher (a file, a server); never shown to students
    location: str = ""

    @abstractmethod
    def create_room(self, now=None, owner=None) -> tuple[str, str]:
        """A new room: ``(code, teacher token)``. LimitReached when the store holds ``limits.rooms`` rooms,
        or ``owner`` (a client's key, :func:`cae.classroom.client_key`) has ``limits.rooms_per_client`` open."""

    @abstractmethod
    def epoch(self) -> str:
        """The store's identity: it changes when the store comes back without its data (a Redis restarted
        without persistence, a SQLite file replaced), so that a lost class is told apart from an ended one."""

    @abstractmethod
    def rotate_token(self, code, token, now=None) -> str:
        """A new teacher token for the room (returned); the old one stops working at once."""

    @abstractmethod
    def lock(self, code, token, locked=True, now=None) -> None:
        """Lock the class (no new students: :class:`Locked`) or open it again."""

    @abstractmethod
    def allow(self, bucket, limit, window, now=None, count=True) -> bool:
        """Count one event of ``bucket`` (e.g. a client starting a class); False when ``limit`` events
        happened in the current ``window`` seconds already (a fixed window, shared by every process).
        ``count=False`` only asks whether one more would be allowed (nothing is written)."""

    def check_writable(self) -> None:
        """Nothing when a write would be tried now; :class:`StoreUnavailable` with the reason (a read-only file, a
        server that cannot be reached or refuses writes) otherwise. Nothing is changed. Pages ask it to learn,
        without waiting for the teacher's next action, that a store that refused a write takes writes again."""
        return None

    def notices(self, since=0.0) -> list[tuple[float, str]]:
        """What happened to the store that its pages should say (a file restored...): ``[(time, words)]``."""
        return []

    @abstractmethod
    def room(self, code, now=None) -> Room:
        """The room (RoomNotFound if there is none, or it expired or was closed)."""

    @abstractmethod
    def is_teacher(self, code, token, now=None) -> bool:
        """True if ``token`` is this room's teacher token (RoomNotFound as :meth:`room`)."""

    @abstractmethod
    def close(self, code, token, now=None) -> None:
        """Close the room for good (its students see so); NotTeacher without the token."""

    @abstractmethod
    def purge(self, now=None) -> int:
        """Delete every expired or closed room with all it holds; returns how many rooms went."""

    # the teacher's view
    @abstractmethod
    def publish(self, code, token, state, now=None, expect=None) -> int:
        """Set the room's lesson state; returns the new version. NotTeacher without the token.

        With ``expect`` (the state the caller last saw), only if the room still holds that state
        (compare-and-set): :class:`Conflict`, with the state it holds, when another device moved it first."""

    @abstractmethod
    def poll(self, code, now=None) -> Poll:
        """Version, state, the latest question and whether the room closed (a closed room still answers,
        so its students can be told; RoomNotFound once it is purged or expired)."""

    # students
    @abstractmethod
    def join(self, code, nickname, now=None, holder=None) -> Student:
        """A new student with a unique nickname (suffixed when taken), held by the browser ``holder``.
        LimitReached at ``students_per_room``; :class:`Locked` when the teacher locked the class;
        :class:`Removed` when ``holder`` held the place of a student the teacher removed."""

    @abstractmethod
    def claim(self, code, sid, holder, force=False, now=None) -> Claim:
        """Hold the student's place for the browser session ``holder``. Refused (``Claim(False, age)``) when
        another browser held it and asked for news less than :data:`CLAIM_SECONDS` ago, unless ``force``;
        :class:`Removed` for a student the teacher removed; BadInput for an unknown one."""

    @abstractmethod
    def remove_students(self, code, token, sids, now=None) -> list[str]:
        """Remove students and their answers, all or none (their pages are told: :attr:`Poll.removed`); returns
        their nicknames. The browsers that held their places cannot join the class again (:class:`Removed`).
        BadInput when one of them is not in the class."""

    def remove_student(self, code, token, sid, now=None) -> None:
        """Remove one student (:meth:`remove_students`)."""
        self.remove_students(code, token, [sid], now=now)

    @abstractmethod
    def rename_student(self, code, token, sid, nickname, now=None) -> Student:
        """Give a student another nickname (cleaned and made unique like a joining one)."""

    @abstractmethod
    def student(self, code, sid) -> Student | None:
        """The student with this id, or None."""

    @abstractmethod
    def touch(self, code, sid, now=None, holder=None) -> Claim | None:
        """Note that the student's page is open (for the count of students present). With ``holder``, only
        when that browser holds the place: ``Claim(False, age)`` when another one took it over. None for
        an unknown student; :class:`Removed` for one the teacher removed."""

    @abstractmethod
    def students(self, code) -> list[Student]:
        """Every student who joined, in the order they joined."""

    # questions and answers
    @abstractmethod
    def ask(self, code, token, step, state, kind="predict", now=None, expect=None, last=None) -> Question:
        """Open a question about step ``step``: one question at a time, so :class:`QuestionOpen` (with the open
        one) while the latest is not revealed. Compare-and-set like :meth:`publish`: with ``expect`` (the lesson
        state the asking page drew) and ``last`` (the id of the latest question it drew, 0 for none), only if the
        class still holds that state and that question; :class:`Stale` otherwise (another device asked, revealed
        or moved the class first). LimitReached at ``questions_per_room``."""

    @abstractmethod
    def answer(self, code, sid, qid, choice, now=None) -> Answer:
        """Count a student's answer. AnswerRefused when it was given already, the question is revealed
        or is not the latest; RoomNotFound / BadInput for an unknown room, student or choice."""

    @abstractmethod
    def reveal(self, code, token, qid, truth, now=None, state=None, seen_open=False) -> Question:
        """Lock the question's answers and store the truth ``(case, edge deleted, node deleted)``; with
        ``state``, publish it in the same write (the class moves to the revealed step, or nothing happens).
        A question revealed already is returned as it is; with ``seen_open`` (the revealing page showed it open)
        that is :class:`Stale` instead, so the page can say another device revealed it."""

    @abstractmethod
    def questions(self, code) -> list[Question]:
        """Every question of the room, in order."""

    @abstractmethod
    def answers(self, code, qid=None) -> list[Answer]:
        """The answers to one question (``qid``) or to all, in the order they came."""

    # shared helpers
    def poll_recent(self, code, max_age=0.25):
        """:meth:`poll`, shared by every page of this process that asks within ``max_age`` seconds.

        A class of 200 students polls 200 times a second; with this, the store is read about
        ``1 / max_age`` times a second per class and process, and a page learns of a change at most
        ``max_age`` seconds later. Failures are not remembered (the next call asks the store again). While the
        class has not changed, the same :class:`Poll` object is returned, so that what pages derive from it can be
        kept by identity.

        >>> import tempfile, os
        >>> from cae.classroom import open_store
        >>> store = open_store("sqlite:///" + os.path.join(tempfile.mkdtemp(), "c.sqlite3"))
        >>> code, token = store.create_room()
        >>> store.poll_recent(code) is store.poll_recent(code)
        True
        >>> first = store.poll_recent(code)
        >>> store.poll_recent(code, max_age=0) is first  # read again, unchanged
        True
        >>> store.publish(code, token, {"t": "1"})
        1
        >>> store.poll_recent(code, max_age=0) is first
        False
        """
        import threading

        cache = self.__dict__.setdefault("_recent_polls", {})
        locks = self.__dict__.setdefault("_recent_locks", {})
        guard = self.__dict__.setdefault("_recent_guard", threading.Lock())
        hit = cache.get(code)
        if hit is not None and time.monotonic() - hit[0] < max_age:
            return hit[1]
        with guard:
            lock = locks.setdefault(code, threading.Lock())
        with lock:  # one page refreshes it; the others wait for that answer instead of asking too
            hit = cache.get(code)
            if hit is not None and time.monotonic() - hit[0] < max_age:
                return hit[1]
            p = self.poll(code)
            if hit is not None and hit[1] == p:
                p = hit[1]  # nothing changed: the object every page has already parsed
            cache[code] = (time.monotonic(), p)
            return p

    def present(self, code, now=None, window=PRESENT_SECONDS):
        """The students whose page asked for news in the last ``window`` seconds."""
        now = time.time() if now is None else now
        return [s for s in self.students(code) if s.seen >= now - window]

"""The classroom store in one SQLite file (standard library; WAL mode): the default, nothing to install.

Every app process opens the same file; WAL lets readers (students polling every second) go on while one
writer commits. Each write is one ``BEGIN IMMEDIATE`` transaction that checks what it must (the teacher's
token, a limit, an answer given already) before it writes, so a failure leaves the room as it was. One
connection per store object, shared by the threads of the process under a lock (the sessions of a
Streamlit server are threads); other processes wait for the write lock up to ``busy_seconds``.

Examples
--------
>>> import tempfile, os
>>> store = SQLiteStore(os.path.join(tempfile.mkdtemp(), "c.sqlite3"))
>>> code, token = store.create_room()
>>> store.room(code).version
0
>>> store.connection_pragma("journal_mode")
'wal'
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from .store import (
    CLOSED_GRACE,
    Answer,
    AnswerRefused,
    BadInput,
    ClassroomStore,
    LimitReached,
    Limits,
    NotTeacher,
    Poll,
    Question,
    Room,
    RoomNotFound,
    StoreUnavailable,
    Student,
    check_choice,
    clean_nickname,
    new_room_code,
    new_secret,
    nickname_key,
    normalize_code,
    state_json,
    token_hash,
    token_matches,
    unique_nickname,
)

__all__ = ["SQLiteStore"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY, token_hash TEXT NOT NULL, created REAL NOT NULL, expires REAL NOT NULL,
    closed INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL DEFAULT '{}',
    state_at REAL NOT NULL, n_questions INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS students (
    code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE, sid TEXT NOT NULL, nickname TEXT NOT NULL,
    nick_key TEXT NOT NULL, joined REAL NOT NULL, seen REAL NOT NULL, seq INTEGER NOT NULL,
    PRIMARY KEY (code, sid), UNIQUE (code, nick_key)
);
CREATE TABLE IF NOT EXISTS questions (
    code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE, qid INTEGER NOT NULL, step INTEGER NOT NULL,
    state TEXT NOT NULL, opened REAL NOT NULL, revealed INTEGER NOT NULL DEFAULT 0, truth TEXT,
    kind TEXT NOT NULL, PRIMARY KEY (code, qid)
);
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE, qid INTEGER NOT NULL, sid TEXT NOT NULL,
    choice TEXT NOT NULL, at REAL NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (code, qid, sid)
);
CREATE INDEX IF NOT EXISTS rooms_expires ON rooms (expires);
"""


def _question(row):
    qid, step, state, opened, revealed, truth, kind = row
    return Question(
        qid=int(qid),
        step=int(step),
        state=json.loads(state),
        opened=float(opened),
        revealed=bool(revealed),
        truth=tuple(json.loads(truth)) if truth else None,
        kind=kind,
    )


class SQLiteStore(ClassroomStore):
    """The store in the SQLite file at ``path`` (created with its folder if missing).

    Parameters
    ----------
    path : str or Path
    limits : Limits, optional
    busy_seconds : float
        How long a write waits for another process's write to finish before it gives up
        (:class:`~cae.classroom.store.StoreUnavailable`).
    """

    def __init__(self, path, limits=None, busy_seconds=10.0):
        self.path = Path(path)
        self.limits = limits or Limits()
        self.busy_seconds = float(busy_seconds)
        self._lock = threading.RLock()
        self._conn = None

    def __repr__(self):
        return f"SQLiteStore({str(self.path)!r})"

    # ------------------------------------------------------------ connection
    def _connect(self):
        if self._conn is not None:
            return self._conn
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                str(self.path), timeout=self.busy_seconds, isolation_level=None, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_seconds * 1000)}")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise sqlite3.OperationalError(f"the file cannot be put in WAL mode (it is in {mode} mode)")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailable(f"the classroom file {self.path} cannot be used: {exc}") from None
        self._conn = conn
        return conn

    def close_connection(self):
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def connection_pragma(self, name):
        with self._lock:
            return self._connect().execute(f"PRAGMA {name}").fetchone()[0]

    @contextmanager
    def _read(self):
        with self._lock:
            conn = self._connect()
            try:
                yield conn
            except sqlite3.Error as exc:
                raise StoreUnavailable(f"the classroom file {self.path} cannot be read: {exc}") from None

    @contextmanager
    def _write(self):
        """One transaction: committed whole, or rolled back whole (then StoreUnavailable or the error raised)."""
        with self._lock:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreUnavailable(f"the classroom file {self.path} cannot be written: {exc}") from None
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                if isinstance(exc, sqlite3.Error):
                    raise StoreUnavailable(f"the classroom file {self.path} cannot be written: {exc}") from None
                raise

    # ------------------------------------------------------------ helpers
    @staticmethod
    def _now(now):
        return time.time() if now is None else float(now)

    def _room_row(self, conn, code, now, allow_closed=False):
        code = normalize_code(code)
        row = conn.execute(
            "SELECT code, token_hash, created, expires, closed, version, state, state_at, n_questions "
            "FROM rooms WHERE code = ?",
            (code,),
        ).fetchone()
        if row is None or row[3] <= now or (row[4] and not allow_closed):
            raise RoomNotFound(f"there is no open class with the code {code}")
        return row

    @staticmethod
    def _room(row):
        code, _, created, expires, closed, version, state, state_at, nq = row
        return Room(code, float(created), float(expires), bool(closed), int(version), json.loads(state), state_at, nq)

    def _teacher_row(self, conn, code, token, now):
        row = self._room_row(conn, code, now)
        if not token_matches(token, row[1]):
            raise NotTeacher("only the teacher of this room can do that")
        return row

    # ------------------------------------------------------------ rooms
    def create_room(self, now=None):
        now = self._now(now)
        token = new_secret()
        with self._write() as conn:
            self._purge(conn, now)
            n = conn.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]
            if n >= self.limits.rooms:
                raise LimitReached(f"this server holds {self.limits.rooms:,} classes already; try again later")
            for _ in range(50):
                code = new_room_code()
                if conn.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is None:
                    break
            else:  # pragma: no cover - 64 million codes
                raise LimitReached("no free room code was found; try again")
            conn.execute(
                "INSERT INTO rooms (code, token_hash, created, expires, state_at) VALUES (?, ?, ?, ?, ?)",
                (code, token_hash(token), now, now + self.limits.ttl_seconds, now),
            )
        return code, token

    def room(self, code, now=None):
        with self._read() as conn:
            return self._room(self._room_row(conn, code, self._now(now)))

    def is_teacher(self, code, token, now=None):
        with self._read() as conn:
            return token_matches(token, self._room_row(conn, code, self._now(now))[1])

    def close(self, code, token, now=None):
        now = self._now(now)
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, now)
            # kept CLOSED_GRACE seconds more, so that its students' pages can say the class has ended
            conn.execute(
                "UPDATE rooms SET closed = 1, version = version + 1, expires = MIN(expires, ?) WHERE code = ?",
                (now + CLOSED_GRACE, row[0]),
            )

    def _purge(self, conn, now):
        return conn.execute("DELETE FROM rooms WHERE expires <= ?", (now,)).rowcount

    def purge(self, now=None):
        with self._write() as conn:
            return self._purge(conn, self._now(now))

    # ------------------------------------------------------------ the teacher's view
    def publish(self, code, token, state, now=None):
        now = self._now(now)
        text = state_json(state, self.limits)
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, now)
            conn.execute(
                "UPDATE rooms SET state = ?, state_at = ?, version = version + 1 WHERE code = ?", (text, now, row[0])
            )
            return int(row[5]) + 1

    def poll(self, code, now=None):
        with self._read() as conn:
            row = self._room_row(conn, code, self._now(now), allow_closed=True)
            q = conn.execute(
                "SELECT qid, step, state, opened, revealed, truth, kind FROM questions WHERE code = ? "
                "ORDER BY qid DESC LIMIT 1",
                (row[0],),
            ).fetchone()
        return Poll(int(row[5]), json.loads(row[6]), _question(q) if q else None, bool(row[4]))

    # ------------------------------------------------------------ students
    def join(self, code, nickname, now=None):
        now = self._now(now)
        name = clean_nickname(nickname, self.limits.nickname_length)
        sid = new_secret(16)
        with self._write() as conn:
            row = self._room_row(conn, code, now)
            code = row[0]
            n = conn.execute("SELECT COUNT(*) FROM students WHERE code = ?", (code,)).fetchone()[0]
            if n >= self.limits.students_per_room:
                raise LimitReached(f"this class is full ({self.limits.students_per_room:,} students)")
            taken = {k for (k,) in conn.execute("SELECT nick_key FROM students WHERE code = ?", (code,))}
            name = unique_nickname(name, taken, self.limits.nickname_length)
            conn.execute(
                "INSERT INTO students (code, sid, nickname, nick_key, joined, seen, seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (code, sid, name, nickname_key(name), now, now, n),
            )
        return Student(sid, name, now, now)

    def student(self, code, sid):
        with self._read() as conn:
            row = conn.execute(
                "SELECT sid, nickname, joined, seen FROM students WHERE code = ? AND sid = ?",
                (normalize_code(code), str(sid)),
            ).fetchone()
        return Student(row[0], row[1], row[2], row[3]) if row else None

    def touch(self, code, sid, now=None):
        now = self._now(now)
        with self._write() as conn:
            conn.execute("UPDATE students SET seen = ? WHERE code = ? AND sid = ?", (now, normalize_code(code), sid))

    def students(self, code):
        with self._read() as conn:
            rows = conn.execute(
                "SELECT sid, nickname, joined, seen FROM students WHERE code = ? ORDER BY seq", (normalize_code(code),)
            ).fetchall()
        return [Student(*r) for r in rows]

    # ------------------------------------------------------------ questions and answers
    def ask(self, code, token, step, state, kind="predict", now=None):
        now = self._now(now)
        text = state_json(state, self.limits)
        step = int(step)
        if step < 1:
            raise BadInput("a question is about step 1 or later")
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, now)
            code, nq = row[0], int(row[8])
            if nq >= self.limits.questions_per_room:
                raise LimitReached(f"a class can ask {self.limits.questions_per_room:,} questions")
            qid = nq + 1
            conn.execute(
                "INSERT INTO questions (code, qid, step, state, opened, kind) VALUES (?, ?, ?, ?, ?, ?)",
                (code, qid, step, text, now, str(kind)),
            )
            conn.execute("UPDATE rooms SET n_questions = ?, version = version + 1 WHERE code = ?", (qid, code))
        return Question(qid, step, json.loads(text), now, False, None, str(kind))

    def answer(self, code, sid, qid, choice, now=None):
        now = self._now(now)
        choice = check_choice(choice)
        with self._write() as conn:
            row = self._room_row(conn, code, now)
            code = row[0]
            st = conn.execute("SELECT nickname FROM students WHERE code = ? AND sid = ?", (code, str(sid))).fetchone()
            if st is None:
                raise BadInput("this page is not a student of the class: join it again with the code")
            q = conn.execute("SELECT revealed FROM questions WHERE code = ? AND qid = ?", (code, int(qid))).fetchone()
            if q is None:
                raise AnswerRefused("there is no such question")
            if int(qid) != int(row[8]):
                raise AnswerRefused("the teacher has moved on to another question")
            if q[0]:
                raise AnswerRefused("the answer was revealed already")
            n = conn.execute("SELECT COUNT(*) FROM answers WHERE code = ? AND qid = ?", (code, int(qid))).fetchone()[0]
            try:
                conn.execute(
                    "INSERT INTO answers (code, qid, sid, choice, at, seq) VALUES (?, ?, ?, ?, ?, ?)",
                    (code, int(qid), str(sid), json.dumps(choice), now, n),
                )
            except sqlite3.IntegrityError:
                raise AnswerRefused("you have answered this question already") from None
        return Answer(int(qid), str(sid), st[0], choice, now)

    def reveal(self, code, token, qid, truth, now=None):
        now = self._now(now)
        truth = check_choice(truth)
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, now)
            code = row[0]
            q = conn.execute(
                "SELECT qid, step, state, opened, revealed, truth, kind FROM questions WHERE code = ? AND qid = ?",
                (code, int(qid)),
            ).fetchone()
            if q is None:
                raise BadInput("there is no such question")
            if q[4]:
                return _question(q)  # revealed already: the same truth, nothing changes
            conn.execute(
                "UPDATE questions SET revealed = 1, truth = ? WHERE code = ? AND qid = ?",
                (json.dumps(truth), code, int(qid)),
            )
            conn.execute("UPDATE rooms SET version = version + 1 WHERE code = ?", (code,))
        return Question(int(q[0]), int(q[1]), json.loads(q[2]), float(q[3]), True, truth, q[6])

    def questions(self, code):
        with self._read() as conn:
            rows = conn.execute(
                "SELECT qid, step, state, opened, revealed, truth, kind FROM questions WHERE code = ? ORDER BY qid",
                (normalize_code(code),),
            ).fetchall()
        return [_question(r) for r in rows]

    def answers(self, code, qid=None):
        sql = (
            "SELECT a.qid, a.sid, s.nickname, a.choice, a.at FROM answers a JOIN students s "
            "ON s.code = a.code AND s.sid = a.sid WHERE a.code = ?"
        )
        args = [normalize_code(code)]
        if qid is not None:
            sql += " AND a.qid = ?"
            args.append(int(qid))
        with self._read() as conn:
            rows = conn.execute(sql + " ORDER BY a.qid, a.seq", args).fetchall()
        return [Answer(int(q), s, n, tuple(json.loads(c)), float(at)) for q, s, n, c, at in rows]

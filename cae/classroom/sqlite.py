"""The classroom store in one SQLite file (standard library): the default, nothing to install.

Every app process opens the same file. Each write is one ``BEGIN IMMEDIATE`` transaction that checks what it
must (the teacher's token, a limit, an answer given already) before it writes, so a failure leaves the room as
it was. One connection per store object, shared by the threads of the process under a lock (the sessions of a
Streamlit server are threads); other processes wait for the write lock up to ``busy_seconds``.

What a class must survive, and how this file survives it:

- **A full or read-only disk.** The journal is a rollback journal (``journal_mode = TRUNCATE``), not WAL, and
  nothing is memory-mapped (``mmap_size = 0``): WAL's shared-memory index is a mapped file, and a mapped page
  that cannot be backed (a full disk, a file made immutable) kills the whole server with SIGBUS. Here every
  such failure is an exception, and :class:`~cae.classroom.store.StoreUnavailable` says it in words; reading
  goes on (a full disk under WAL could not even be read: "disk I/O error").
- **The file deleted or replaced while a class runs** (a clean-up script, a user clearing
  ``~/.local/share``). Before every call the file's device and inode are compared with the open connection's
  (one ``stat``). A deleted file is restored from the copy this process still has open (read under a write
  lock, so no other process writes meanwhile), then every process reopens it: the store's id, written once at
  creation, shows it is the same store. A file replaced by another store (a process restarted and made a new
  one) receives this process's classes that it lacks, in one transaction. Either way nothing is lost and
  :meth:`SQLiteStore.notices` says what happened, for the pages to tell teacher and students. A deleted
  file that cannot be restored (its folder unwritable) is never written to again (a rollback journal beside
  a deleted file could damage the next file of that name): reads go on from the open copy, writes are
  refused in words, and the restore is tried again every 2 s.

Examples
--------
>>> import tempfile, os
>>> store = SQLiteStore(os.path.join(tempfile.mkdtemp(), "c.sqlite3"))
>>> code, token = store.create_room()
>>> store.room(code).version
0
>>> store.connection_pragma("journal_mode")
'truncate'
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from .store import (
    CLAIM_SECONDS,
    CLOSED_GRACE,
    MOVED_ON,
    REMOVED_BROWSER,
    Answer,
    AnswerRefused,
    BadInput,
    Claim,
    ClassroomStore,
    Conflict,
    LimitReached,
    Limits,
    Locked,
    NotTeacher,
    Poll,
    Question,
    QuestionOpen,
    Removed,
    Room,
    RoomNotFound,
    Stale,
    StoreUnavailable,
    Student,
    changed_since,
    check_choice,
    clean_nickname,
    new_room_code,
    new_secret,
    nickname_key,
    normalize_code,
    question_open,
    revealed_already,
    state_json,
    token_hash,
    token_matches,
    unique_nickname,
)

__all__ = ["SQLiteStore"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY, token_hash TEXT NOT NULL, created REAL NOT NULL, expires REAL NOT NULL,
    closed INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL DEFAULT '{}',
    state_at REAL NOT NULL, n_questions INTEGER NOT NULL DEFAULT 0, locked INTEGER NOT NULL DEFAULT 0,
    owner TEXT, renamed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS students (
    code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE, sid TEXT NOT NULL, nickname TEXT NOT NULL,
    nick_key TEXT NOT NULL, joined REAL NOT NULL, seen REAL NOT NULL, seq INTEGER NOT NULL,
    holder TEXT, PRIMARY KEY (code, sid), UNIQUE (code, nick_key)
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
CREATE TABLE IF NOT EXISTS removed (
    code TEXT NOT NULL REFERENCES rooms(code) ON DELETE CASCADE, sid TEXT NOT NULL, at REAL NOT NULL,
    holder TEXT, PRIMARY KEY (code, sid)
);
CREATE TABLE IF NOT EXISTS rate (bucket TEXT PRIMARY KEY, start REAL NOT NULL, n INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS rooms_expires ON rooms (expires);
"""

#: columns added since the first release (a file made by it gets them when opened)
_ADDED_COLUMNS = {
    "rooms": [("locked", "INTEGER NOT NULL DEFAULT 0"), ("owner", "TEXT"), ("renamed", "INTEGER NOT NULL DEFAULT 0")],
    "students": [("holder", "TEXT")],
    "removed": [("holder", "TEXT")],
}
#: the tables a room's rows live in, in the order they are copied (a replaced file receives them)
_ROOM_TABLES = ("rooms", "students", "questions", "answers", "removed")


def _words(exc, doing):
    """What a person is told when SQLite fails: no file name, no path."""
    text = str(exc).lower()
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC or "full" in text:
        return f"the class's store cannot be {doing}: the server's disk is full"
    if "readonly" in text or "read-only" in text or isinstance(exc, PermissionError):
        return f"the class's store cannot be {doing}: its file is read-only on the server"
    if "locked" in text or "busy" in text:
        return f"the class's store cannot be {doing}: it is busy; try again in a moment"
    return f"the class's store cannot be {doing} right now"


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
    note : str, optional
        Why this file and not the usual one (:func:`cae.classroom.default_sqlite_path`'s fallback), shown to
        the teacher with :attr:`location`.
    """

    def __init__(self, path, limits=None, busy_seconds=10.0, note=None):
        self.path = Path(path)
        self.limits = limits or Limits()
        self.busy_seconds = float(busy_seconds)
        self.note = note
        self._lock = threading.RLock()
        self._conn = None
        self._ident = None  # (device, inode) of the file the connection has open
        self._store_id = None  # the store's id, written once when the file was made
        self._orphaned_at = None  # when the open file was found deleted and could not be restored
        self._orphan_reason = ""
        self._frozen_conn = None  # reads while a failed write's journal cannot be rolled back (_stuck_journal)
        self._notices = []  # (time, words) of what happened to the file

    def __repr__(self):
        return f"SQLiteStore({str(self.path)!r})"

    @property
    def location(self):
        """Where the class is kept, for the teacher's page (students are never shown paths)."""
        where = f"SQLite file {self.path}"
        return where + (f" ({self.note})" if self.note else "")

    def notices(self, since=0.0):
        """What happened to the file since ``since`` (seconds since the epoch): ``[(time, words), ...]``."""
        with self._lock:
            return [n for n in self._notices if n[0] >= since]

    def _notice(self, words):
        self._notices = [*self._notices[-19:], (time.time(), words)]

    # ------------------------------------------------------------ connection
    def _identity(self):
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError:
            return self._ident  # cannot look (a folder made unreadable): nothing to compare
        return (st.st_dev, st.st_ino)

    def _open(self):
        """A new connection to the file at ``path`` with the store's settings; (connection, store id)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(self.path), timeout=self.busy_seconds, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_seconds * 1000)}")
            conn.execute("PRAGMA mmap_size = 0")
            mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
            if mode != "truncate":
                try:
                    mode = str(conn.execute("PRAGMA journal_mode = TRUNCATE").fetchone()[0]).lower()
                except sqlite3.OperationalError:
                    pass  # read-only: it is read as it is
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            try:
                conn.executescript(SCHEMA)
                self._migrate(conn)
                conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', ?)", (new_secret(12),))
            except sqlite3.OperationalError as exc:
                if "readonly" not in str(exc).lower():
                    raise
            row = conn.execute("SELECT value FROM meta WHERE key = 'store_id'").fetchone()
        except BaseException:
            conn.close()
            raise
        return conn, (row[0] if row else None)

    @staticmethod
    def _migrate(conn):
        for table, columns in _ADDED_COLUMNS.items():
            have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
            for name, decl in columns:
                if name not in have:
                    conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")

    def _connect(self):
        if self._conn is not None:
            return self._conn
        try:
            for _ in range(3):
                before = self._identity()
                conn, sid = self._open()
                after = self._identity()
                if after is not None and after == before:
                    break
                conn.close()  # replaced while it was opened: open it again
        except (sqlite3.Error, OSError) as exc:
            raise StoreUnavailable(
                _words(exc, "opened"), f"the classroom file {self.path} cannot be used: {exc}"
            ) from None
        if self._store_id is not None and sid != self._store_id:
            self._notice(
                "The classroom file was replaced by another store while this server was stopped or away; "
                "classes kept only in the old file are not in it."
            )
        self._conn, self._ident, self._store_id = conn, after, sid
        return conn

    def close_connection(self):
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
                self._ident = None
            if self._frozen_conn is not None:
                self._frozen_conn.close()
                self._frozen_conn = None

    def connection_pragma(self, name):
        with self._lock:
            return self._connect().execute(f"PRAGMA {name}").fetchone()[0]

    def epoch(self):
        """The store's id (written once when its file was made): another id means another store."""
        with self._read():
            return self._store_id

    # ------------------------------------------------------------ the file deleted or replaced
    def _check(self):
        """Before every call: is the open connection still the file at ``path``? If not, recover."""
        if self._conn is None:
            return
        ident = self._identity()
        if ident == self._ident:
            return
        if self._orphaned_at is not None and time.monotonic() - self._orphaned_at < 2.0:
            return  # deleted and not restorable: tried less than 2 s ago
        self._recover(ident)

    def _copy_of_open_file(self):
        """The open file's bytes, with every other process held off (this connection's write lock)."""
        old = self._conn
        old.execute("BEGIN IMMEDIATE")
        try:
            return old.serialize()
        finally:
            old.execute("ROLLBACK")

    def _write_copy(self, data):
        tmp = self.path.with_name(f"{self.path.name}.restore-{os.getpid()}-{secrets.token_hex(4)}")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        return tmp

    def _recover(self, ident):
        old, old_id = self._conn, self._store_id
        folder_there = self.path.parent.is_dir()
        try:
            data = self._copy_of_open_file()
        except sqlite3.Error as exc:
            raise StoreUnavailable(_words(exc, "read"), f"the classroom file {self.path}: {exc}") from None
        tmp, done = None, False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)  # the folder may have gone with the file
            tmp = self._write_copy(data)
            if ident is None:
                try:
                    os.link(tmp, self.path)  # only where no file is: a file made meanwhile is never overwritten
                    restored = True
                except FileExistsError:
                    restored = False
            else:
                restored = False
            self._conn, self._store_id = None, None  # compared below, not by _connect
            old.close()
            self._connect()
            if restored or self._store_id == old_id:
                self._notice(
                    "The class's file was deleted on the server while the class ran; it was restored from the copy "
                    "this server had open. Nothing was lost."
                    if folder_there
                    else "The class's file and its folder were deleted on the server while the class ran; both were "
                    "made again from the copy this server had open. Nothing was lost."
                )
            else:
                n = self._merge(tmp)
                self._notice(
                    f"The class's file was replaced by a new one on the server while the class ran; this server "
                    f"moved its {n} class(es) into it. Nothing was lost."
                )
            self._orphaned_at = None
            done = True
        except (OSError, sqlite3.Error) as exc:
            if self._conn is None:  # the old copy stays in use for reading
                self._conn, self._store_id = old, old_id
            first = self._orphaned_at is None
            self._orphaned_at = time.monotonic()
            self._orphan_reason = str(exc)
            if first:
                self._notice(
                    "The class's file was deleted on the server and cannot be written again: the class can be read "
                    "but takes no answers until the folder can be written (the teacher's page says where)."
                )
        finally:
            if tmp is not None and (done or self._conn is old):
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
            elif tmp is not None:  # the open copy is closed and nothing took its classes: keep them in a file
                kept = self.path.with_name(f"{self.path.name}.recovered-{time.strftime('%Y%m%d-%H%M%S')}")
                try:
                    os.replace(tmp, kept)
                    self._notice(
                        "The class's file was replaced on the server by something that is not a class store; the "
                        f"classes this server had open were saved beside it, in {kept.name}."
                    )
                except OSError:
                    pass

    def _merge(self, copy_path):
        """Copy the rooms of the file at ``copy_path`` that the open store lacks into it; returns how many."""
        conn = self._conn
        conn.execute("ATTACH DATABASE ? AS old", (str(copy_path),))
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                codes = [
                    c
                    for (c,) in conn.execute(
                        "SELECT code FROM old.rooms WHERE code NOT IN (SELECT code FROM main.rooms)"
                    ).fetchall()
                ]
                marks = ",".join("?" * len(codes))
                for table in _ROOM_TABLES if codes else ():
                    have = {r[1] for r in conn.execute(f"PRAGMA old.table_info({table})")}
                    cols = ",".join(r[1] for r in conn.execute(f"PRAGMA main.table_info({table})") if r[1] in have)
                    conn.execute(
                        f"INSERT OR IGNORE INTO main.{table} ({cols}) SELECT {cols} FROM old.{table} "
                        f"WHERE code IN ({marks})",
                        codes,
                    )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.execute("DETACH DATABASE old")
        return len(codes)

    def _stuck_journal(self):
        """True when a write that failed left its rollback journal beside a file that cannot be written (made
        immutable with ``chattr +i``): SQLite would have to roll the journal back before any read, and cannot.
        The file itself was never changed (every write to it failed), so it is read as it is, without the
        journal (:meth:`_frozen`)."""
        try:
            size = os.stat(f"{self.path}-journal").st_size
        except OSError:
            return False
        return size > 0 and not os.access(self.path, os.W_OK)

    def _frozen(self):
        """A read-only connection that reads the file as it is, ignoring the journal (SQLite's ``immutable``)."""
        if self._frozen_conn is None:
            from urllib.parse import quote

            conn = sqlite3.connect(
                f"file:{quote(str(self.path))}?immutable=1", uri=True, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA mmap_size = 0")
            if self._store_id is None:
                row = conn.execute("SELECT value FROM meta WHERE key = 'store_id'").fetchone()
                self._store_id = row[0] if row else None
            self._frozen_conn = conn
        return self._frozen_conn

    def _reader(self):
        if self._stuck_journal():
            return self._frozen()
        if self._frozen_conn is not None:  # the file can be written again: SQLite rolls the journal back itself
            self._frozen_conn.close()
            self._frozen_conn = None
        return self._connect()

    @contextmanager
    def _read(self):
        with self._lock:
            self._check()
            try:
                conn = self._reader()
            except sqlite3.Error as exc:
                raise StoreUnavailable(
                    _words(exc, "read"), f"the classroom file {self.path} cannot be read: {exc}"
                ) from None
            try:
                yield conn
            except sqlite3.Error as exc:
                raise StoreUnavailable(
                    _words(exc, "read"), f"the classroom file {self.path} cannot be read: {exc}"
                ) from None

    def _unwritable(self):
        """Why the file cannot be written now (None when it can): asked before each write, so that a write that
        must fail never starts. Begun, it would leave a rollback journal that nothing can roll back (a file
        made immutable refuses the rollback too), and every later read would fail on it."""
        if os.access(self.path, os.W_OK):
            return None if os.access(self.path.parent, os.W_OK) else "its folder is read-only on the server"
        return "its file is read-only on the server" if os.path.exists(self.path) else None  # (made when opened)

    def _begin(self):
        self._check()
        if self._orphaned_at is not None:
            raise StoreUnavailable(
                "the class's store was deleted on the server and cannot be written right now",
                f"the classroom file {self.path} was deleted and cannot be restored: {self._orphan_reason}",
            )
        why = self._unwritable()
        if why is not None:
            raise StoreUnavailable(
                f"the class's store cannot be written: {why}",
                f"the classroom file {self.path} cannot be written: {why} (read-only, or immutable: lsattr shows 'i')",
            )
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise StoreUnavailable(
                _words(exc, "written"), f"the classroom file {self.path} cannot be written: {exc}"
            ) from None
        return conn

    @contextmanager
    def _write(self):
        """One transaction: committed whole, or rolled back whole (then StoreUnavailable or the error raised)."""
        with self._lock:
            conn = self._begin()
            if self._identity() != self._ident:  # replaced while this waited for the lock: on the new file
                conn.execute("ROLLBACK")
                conn = self._begin()
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                if isinstance(exc, sqlite3.Error):
                    raise StoreUnavailable(
                        _words(exc, "written"), f"the classroom file {self.path} cannot be written: {exc}"
                    ) from None
                raise

    def check_writable(self):
        """StoreUnavailable, in words, unless a write would be tried now: the checks before every write and the
        write lock taken and given back at once (nothing is written)."""
        with self._write():
            pass

    # ------------------------------------------------------------ helpers
    @staticmethod
    def _now(now):
        return time.time() if now is None else float(now)

    _ROOM_COLUMNS = "code, token_hash, created, expires, closed, version, state, state_at, n_questions, locked, renamed"

    def _room_row(self, conn, code, now, allow_closed=False):
        code = normalize_code(code)
        row = conn.execute(f"SELECT {self._ROOM_COLUMNS} FROM rooms WHERE code = ?", (code,)).fetchone()
        if row is None or row[3] <= now or (row[4] and not allow_closed):
            raise RoomNotFound(f"there is no open class with the code {code}")
        return row

    @staticmethod
    def _room(row):
        code, _, created, expires, closed, version, state, state_at, nq, locked, _ = row
        return Room(
            code,
            float(created),
            float(expires),
            bool(closed),
            int(version),
            json.loads(state),
            state_at,
            nq,
            bool(locked),
        )

    def _teacher_row(self, conn, code, token, now):
        row = self._room_row(conn, code, now)
        if not token_matches(token, row[1]):
            raise NotTeacher("only the teacher of this room can do that")
        return row

    # ------------------------------------------------------------ rooms
    def create_room(self, now=None, owner=None):
        now = self._now(now)
        token = new_secret()
        with self._write() as conn:
            self._purge(conn, now)
            n = conn.execute("SELECT COUNT(*) FROM rooms").fetchone()[0]
            if n >= self.limits.rooms:
                raise LimitReached(f"this server holds {self.limits.rooms:,} classes already; try again later")
            if owner is not None:
                mine = conn.execute("SELECT COUNT(*) FROM rooms WHERE owner = ? AND closed = 0", (owner,)).fetchone()
                if mine[0] >= self.limits.rooms_per_client:
                    raise LimitReached(
                        f"{self.limits.rooms_per_client} classes are open from this address already: end one first"
                    )
            for _ in range(50):
                code = new_room_code()
                if conn.execute("SELECT 1 FROM rooms WHERE code = ?", (code,)).fetchone() is None:
                    break
            else:  # pragma: no cover - 64 million codes
                raise LimitReached("no free room code was found; try again")
            conn.execute(
                "INSERT INTO rooms (code, token_hash, created, expires, state_at, owner) VALUES (?, ?, ?, ?, ?, ?)",
                (code, token_hash(token), now, now + self.limits.ttl_seconds, now, owner),
            )
        return code, token

    def room(self, code, now=None):
        with self._read() as conn:
            return self._room(self._room_row(conn, code, self._now(now)))

    def is_teacher(self, code, token, now=None):
        with self._read() as conn:
            return token_matches(token, self._room_row(conn, code, self._now(now))[1])

    def rotate_token(self, code, token, now=None):
        new = new_secret()
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, self._now(now))
            conn.execute("UPDATE rooms SET token_hash = ? WHERE code = ?", (token_hash(new), row[0]))
        return new

    def lock(self, code, token, locked=True, now=None):
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, self._now(now))
            conn.execute(
                "UPDATE rooms SET locked = ?, version = version + 1 WHERE code = ?", (int(bool(locked)), row[0])
            )

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
        conn.execute("DELETE FROM rate WHERE start < ?", (now - 86400.0,))
        return conn.execute("DELETE FROM rooms WHERE expires <= ?", (now,)).rowcount

    def purge(self, now=None):
        with self._write() as conn:
            return self._purge(conn, self._now(now))

    def allow(self, bucket, limit, window, now=None, count=True):
        now = self._now(now)
        if not count:
            with self._read() as conn:
                row = conn.execute("SELECT start, n FROM rate WHERE bucket = ?", (str(bucket),)).fetchone()
            return row is None or row[0] + float(window) <= now or row[1] < int(limit)
        with self._write() as conn:
            row = conn.execute("SELECT start, n FROM rate WHERE bucket = ?", (str(bucket),)).fetchone()
            if row is None or row[0] + float(window) <= now:
                conn.execute("INSERT OR REPLACE INTO rate (bucket, start, n) VALUES (?, ?, 1)", (str(bucket), now))
                return True
            if row[1] >= int(limit):
                return False
            conn.execute("UPDATE rate SET n = n + 1 WHERE bucket = ?", (str(bucket),))
            return True

    # ------------------------------------------------------------ the teacher's view
    def publish(self, code, token, state, now=None, expect=None):
        now = self._now(now)
        text = state_json(state, self.limits)
        want = None if expect is None else state_json(expect, self.limits)
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, now)
            if want is not None and row[6] != want:
                if row[6] == text:  # another device got there first with this very state
                    return int(row[5])
                raise Conflict(MOVED_ON, json.loads(row[6]))
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
            removed = frozenset(s for (s,) in conn.execute("SELECT sid FROM removed WHERE code = ?", (row[0],)))
        return Poll(
            int(row[5]),
            json.loads(row[6]),
            _question(q) if q else None,
            bool(row[4]),
            bool(row[9]),
            removed,
            int(row[10]),
        )

    # ------------------------------------------------------------ students
    def join(self, code, nickname, now=None, holder=None):
        now = self._now(now)
        name = clean_nickname(nickname, self.limits.nickname_length)
        sid = new_secret(16)
        with self._write() as conn:
            row = self._room_row(conn, code, now)
            code = row[0]
            if row[9]:
                raise Locked("the teacher has locked this class: no new students can join")
            if (
                holder is not None
                and conn.execute("SELECT 1 FROM removed WHERE code = ? AND holder = ?", (code, str(holder))).fetchone()
            ):
                raise Removed(REMOVED_BROWSER)
            n = conn.execute("SELECT COUNT(*) FROM students WHERE code = ?", (code,)).fetchone()[0]
            if n >= self.limits.students_per_room:
                raise LimitReached(f"this class is full ({self.limits.students_per_room:,} students)")
            taken = {k for (k,) in conn.execute("SELECT nick_key FROM students WHERE code = ?", (code,))}
            name = unique_nickname(name, taken, self.limits.nickname_length)
            seq = conn.execute("SELECT COALESCE(MAX(seq) + 1, 0) FROM students WHERE code = ?", (code,)).fetchone()[0]
            conn.execute(
                "INSERT INTO students (code, sid, nickname, nick_key, joined, seen, seq, holder) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (code, sid, name, nickname_key(name), now, now, seq, holder),
            )
        return Student(sid, name, now, now)

    def student(self, code, sid):
        with self._read() as conn:
            row = conn.execute(
                "SELECT sid, nickname, joined, seen FROM students WHERE code = ? AND sid = ?",
                (normalize_code(code), str(sid)),
            ).fetchone()
        return Student(row[0], row[1], row[2], row[3]) if row else None

    def _removed(self, conn, code, sid):
        return conn.execute("SELECT 1 FROM removed WHERE code = ? AND sid = ?", (code, str(sid))).fetchone() is not None

    def touch(self, code, sid, now=None, holder=None):
        now = self._now(now)
        code = normalize_code(code)
        with self._write() as conn:
            if self._removed(conn, code, sid):
                raise Removed("the teacher has removed you from this class")
            row = conn.execute("SELECT holder, seen FROM students WHERE code = ? AND sid = ?", (code, sid)).fetchone()
            if row is None:
                return None
            if holder is not None and row[0] not in (None, holder):
                return Claim(False, max(0.0, now - float(row[1])))
            conn.execute("UPDATE students SET seen = ? WHERE code = ? AND sid = ?", (now, code, sid))
            return Claim(True)

    def claim(self, code, sid, holder, force=False, now=None):
        now = self._now(now)
        code = normalize_code(code)
        with self._write() as conn:
            if self._removed(conn, code, sid):
                raise Removed("the teacher has removed you from this class")
            row = conn.execute("SELECT holder, seen FROM students WHERE code = ? AND sid = ?", (code, sid)).fetchone()
            if row is None:
                raise BadInput("this student link is not known in that class any more: join again with a nickname")
            age = max(0.0, now - float(row[1]))
            if row[0] not in (None, holder) and age < CLAIM_SECONDS and not force:
                return Claim(False, age)
            conn.execute(
                "UPDATE students SET holder = ?, seen = ? WHERE code = ? AND sid = ?", (str(holder), now, code, sid)
            )
            return Claim(True)

    def students(self, code):
        with self._read() as conn:
            rows = conn.execute(
                "SELECT sid, nickname, joined, seen FROM students WHERE code = ? ORDER BY seq", (normalize_code(code),)
            ).fetchall()
        return [Student(*r) for r in rows]

    def remove_students(self, code, token, sids, now=None):
        now = self._now(now)
        sids = [str(sid) for sid in dict.fromkeys(sids)]
        names = []
        with self._write() as conn:
            code = self._teacher_row(conn, code, token, now)[0]
            for sid in sids:
                st = conn.execute(
                    "SELECT nickname, holder FROM students WHERE code = ? AND sid = ?", (code, sid)
                ).fetchone()
                if st is None:
                    raise BadInput("there is no such student in this class")
                conn.execute("DELETE FROM students WHERE code = ? AND sid = ?", (code, sid))
                conn.execute("DELETE FROM answers WHERE code = ? AND sid = ?", (code, sid))
                conn.execute(
                    "INSERT OR REPLACE INTO removed (code, sid, at, holder) VALUES (?, ?, ?, ?)",
                    (code, sid, now, st[1]),
                )
                names.append(st[0])
            if sids:
                conn.execute("UPDATE rooms SET version = version + 1 WHERE code = ?", (code,))
        return names

    def rename_student(self, code, token, sid, nickname, now=None):
        name = clean_nickname(nickname, self.limits.nickname_length)
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, self._now(now))
            code = row[0]
            st = conn.execute(
                "SELECT sid, nickname, joined, seen FROM students WHERE code = ? AND sid = ?", (code, str(sid))
            ).fetchone()
            if st is None:
                raise BadInput("there is no such student in this class")
            taken = {
                k
                for (k,) in conn.execute("SELECT nick_key FROM students WHERE code = ? AND sid != ?", (code, str(sid)))
            }
            name = unique_nickname(name, taken, self.limits.nickname_length)
            conn.execute(
                "UPDATE students SET nickname = ?, nick_key = ? WHERE code = ? AND sid = ?",
                (name, nickname_key(name), code, str(sid)),
            )
            conn.execute("UPDATE rooms SET version = version + 1, renamed = renamed + 1 WHERE code = ?", (code,))
        return Student(st[0], name, st[2], st[3])

    # ------------------------------------------------------------ questions and answers
    def _latest_question(self, conn, code):
        q = conn.execute(
            "SELECT qid, step, state, opened, revealed, truth, kind FROM questions WHERE code = ? "
            "ORDER BY qid DESC LIMIT 1",
            (code,),
        ).fetchone()
        return _question(q) if q else None

    def ask(self, code, token, step, state, kind="predict", now=None, expect=None, last=None):
        now = self._now(now)
        text = state_json(state, self.limits)
        want = None if expect is None else state_json(expect, self.limits)
        step = int(step)
        if step < 1:
            raise BadInput("a question is about step 1 or later")
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, now)
            code, nq = row[0], int(row[8])
            latest = self._latest_question(conn, code)
            if latest is not None and not latest.revealed:  # one question at a time
                raise QuestionOpen(question_open(latest), latest)
            if (want is not None and row[6] != want) or (last is not None and nq != int(last)):
                raise Stale(changed_since(latest), latest)
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
                if self._removed(conn, code, sid):
                    raise Removed("the teacher has removed you from this class")
                raise BadInput("this page is not a student of the class: join it again with the code")
            q = conn.execute("SELECT revealed FROM questions WHERE code = ? AND qid = ?", (code, int(qid))).fetchone()
            if q is None:
                raise AnswerRefused("there is no such question")
            if int(qid) != int(row[8]):
                raise AnswerRefused("the teacher has moved on to another question")
            if q[0]:
                raise AnswerRefused("the answer was revealed already")
            n = conn.execute(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM answers WHERE code = ? AND qid = ?", (code, int(qid))
            ).fetchone()[0]
            try:
                conn.execute(
                    "INSERT INTO answers (code, qid, sid, choice, at, seq) VALUES (?, ?, ?, ?, ?, ?)",
                    (code, int(qid), str(sid), json.dumps(choice), now, n),
                )
            except sqlite3.IntegrityError:
                raise AnswerRefused("you have answered this question already") from None
        return Answer(int(qid), str(sid), st[0], choice, now)

    def reveal(self, code, token, qid, truth, now=None, state=None, seen_open=False):
        now = self._now(now)
        truth = check_choice(truth)
        text = None if state is None else state_json(state, self.limits)
        with self._write() as conn:
            row = self._teacher_row(conn, code, token, now)
            code = row[0]
            q = conn.execute(
                "SELECT qid, step, state, opened, revealed, truth, kind FROM questions WHERE code = ? AND qid = ?",
                (code, int(qid)),
            ).fetchone()
            if q is None:
                raise BadInput("there is no such question")
            if q[4] and seen_open:  # the page showed it open: another device revealed it
                raise Stale(revealed_already(_question(q)), _question(q))
            if q[4]:
                return _question(q)  # revealed already: the same truth, nothing changes
            conn.execute(
                "UPDATE questions SET revealed = 1, truth = ? WHERE code = ? AND qid = ?",
                (json.dumps(truth), code, int(qid)),
            )
            if text is not None:  # the class moves to the revealed step in the same write
                conn.execute(
                    "UPDATE rooms SET state = ?, state_at = ?, version = version + 1 WHERE code = ?", (text, now, code)
                )
            else:
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

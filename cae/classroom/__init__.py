"""The live classroom, without Streamlit: the teacher's steps drive every student's view, and the class's
predictions come back.

- :func:`open_store` — the store ``CAE_CLASSROOM_URL`` names (below);
- :mod:`.store` — the interface every backend implements (rooms, the published lesson state, students,
  questions, answers), its errors and limits;
- :mod:`.sqlite` — the default backend: one SQLite file in the per-user data folder (a rollback journal, no
  memory mapping: a full or read-only disk is an error in words, never a crashed server);
- :mod:`.redis` — the backend for several app processes: a Redis server (redis-py, Lua scripts);
- :mod:`.room` — what a page computes from a room: scores, the answers chart, the CSV, join links;
- :mod:`.views` — the runs every student of a room shares in one app process (one per lesson state),
  so that a following student costs only their view state;
- :mod:`.qr` — the join link as a QR code (SVG, with segno);
- :mod:`.loadtest` — ``python -m cae.bench --classroom N``.
- :mod:`.deploy` — ``python -m cae.classroom.deploy``: N app processes on one store behind nginx (the recipe
  of docs/classroom.md; the config is ``docs/deploy/nginx.conf.template``).
"""

import os
from pathlib import Path

from .store import (
    AnswerRefused,
    BadInput,
    ClassroomStore,
    Conflict,
    LimitReached,
    Limits,
    Locked,
    NotTeacher,
    Removed,
    RoomNotFound,
    StoreError,
    StoreReset,
    StoreUnavailable,
)

__all__ = [
    "ClassroomStore",
    "Limits",
    "LIMIT_VARIABLES",
    "open_store",
    "store_url",
    "default_sqlite_path",
    "default_sqlite_choice",
    "classes_elsewhere",
    "limits_from_env",
    "client_key",
    "client_address",
    "trusted_proxies",
    "StoreError",
    "StoreUnavailable",
    "StoreReset",
    "Conflict",
    "Locked",
    "Removed",
    "RoomNotFound",
    "NotTeacher",
    "LimitReached",
    "AnswerRefused",
    "BadInput",
]


def _sqlite_candidates():
    """The folders a classroom file may be in without a setting, in order (``CAE_EXPLORER_DATA`` is not one:
    a folder it names is always the one, :func:`default_sqlite_choice`)."""
    import tempfile

    cands = []
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        cands.append(Path(os.environ["LOCALAPPDATA"]) / "cae-explorer")
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    cands.append(Path(base) / "cae-explorer")
    cands.append(Path(tempfile.gettempdir()) / f"cae-explorer-{os.getuid() if hasattr(os, 'getuid') else 'user'}")
    return cands


def _unwritable(d):
    """Why the folder ``d`` cannot be made or written (None when it can)."""
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return None
    except OSError as exc:
        return exc.strerror or str(exc)


def default_sqlite_choice():
    """The classroom file and, when it is not in the usual folder, why: ``(path, note or None)``.

    A folder that ``$CAE_EXPLORER_DATA`` names is the one, always: a setting wins over every default (when it
    cannot be written, writes fail in words and the note says why; classes kept elsewhere are named on the
    teacher's page, :func:`classes_elsewhere`). Without it, the candidates are ``$XDG_DATA_HOME/cae-explorer``
    (``~/.local/share/cae-explorer``; ``%LOCALAPPDATA%`` on Windows) and a folder in the temporary directory.
    A candidate that holds a classroom file already wins even when it cannot be written now (its classes are
    there: writes then fail in words, and the teacher's page shows the file); else the first folder that can be
    written. The note says which folder was passed over and why, for the teacher's page: a process never moves
    a class silently.
    """
    if os.environ.get("CAE_EXPLORER_DATA"):
        d = Path(os.environ["CAE_EXPLORER_DATA"])
        why = _unwritable(d)
        return d / "classroom.sqlite3", (None if why is None else f"its folder cannot be written: {why}")
    cands = _sqlite_candidates()
    for d in cands:
        if (d / "classroom.sqlite3").exists():
            why = _unwritable(d)
            return d / "classroom.sqlite3", (None if why is None else f"its folder cannot be written: {why}")
    passed = []
    for d in cands:
        why = _unwritable(d)
        if why is None:
            note = "; ".join(f"{p} cannot be used: {w}" for p, w in passed) or None
            return d / "classroom.sqlite3", note
        passed.append((d, why))
    return cands[-1] / "classroom.sqlite3", "; ".join(f"{p} cannot be used: {w}" for p, w in passed)


def default_sqlite_path():
    """The classroom file of :func:`default_sqlite_choice` (without the note)."""
    return default_sqlite_choice()[0]


def classes_elsewhere(store):
    """The sentence for the teacher's page when a classroom file other than ``store``'s lies in a folder that
    holds classes without a setting (or in ``$CAE_EXPLORER_DATA``'s, when ``$CAE_CLASSROOM_URL`` names the
    store): where those classes are, which setting chose this store instead, and how to open them; None when
    there is no other.

    >>> import os, tempfile
    >>> from cae.classroom.sqlite import SQLiteStore
    >>> home, here = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    >>> (home / "cae-explorer").mkdir()
    >>> _ = (home / "cae-explorer" / "classroom.sqlite3").write_bytes(b"")
    >>> saved = {k: os.environ.pop(k, None) for k in ("XDG_DATA_HOME", "CAE_EXPLORER_DATA", "CAE_CLASSROOM_URL")}
    >>> os.environ.update(XDG_DATA_HOME=str(home), CAE_EXPLORER_DATA=str(here))
    >>> for line in classes_elsewhere(SQLiteStore(here / "classroom.sqlite3")).replace(str(home), "~").split(". "):
    ...     print(line)
    Classes are also kept in ~/cae-explorer/classroom.sqlite3, which this app does not use because CAE_EXPLORER_DATA names another folder
    To open them, start the app with CAE_EXPLORER_DATA=~/cae-explorer.
    >>> classes_elsewhere(SQLiteStore(home / "cae-explorer" / "classroom.sqlite3")) is None  # the store in use
    True
    >>> for k, v in saved.items():
    ...     _ = os.environ.pop(k, None) if v is None else os.environ.update({k: v})
    """
    in_use = getattr(store, "path", None)
    folders = list(_sqlite_candidates())
    if os.environ.get("CAE_CLASSROOM_URL") and os.environ.get("CAE_EXPLORER_DATA"):
        folders.insert(0, Path(os.environ["CAE_EXPLORER_DATA"]))
    others = []
    for d in folders:
        f = d / "classroom.sqlite3"
        try:
            here = f.is_file() and not (in_use is not None and f.resolve() == Path(in_use).resolve())
        except OSError:
            here = False
        if here and f not in others:
            others.append(f)
    if not others:
        return None
    if os.environ.get("CAE_CLASSROOM_URL"):
        why, start = "CAE_CLASSROOM_URL names its store", "without CAE_CLASSROOM_URL and with"
    elif os.environ.get("CAE_EXPLORER_DATA"):
        why, start = "CAE_EXPLORER_DATA names another folder", "with"
    else:
        why, start = "the folder it uses comes first", "with"
    where = " and ".join(str(f) for f in others)
    how = " or ".join(f"CAE_EXPLORER_DATA={f.parent}" for f in others)
    return (
        f"Classes are also kept in {where}, which this app does not use because {why}. "
        f"To open them, start the app {start} {how}."
    )


#: the environment variables :func:`limits_from_env` reads, by the :class:`Limits` field they set
LIMIT_VARIABLES = {
    "rooms_per_client": "CAE_CLASSROOM_ROOMS_PER_CLIENT",
    "starts_per_client": "CAE_CLASSROOM_STARTS_PER_CLIENT",
    "joins_per_client": "CAE_CLASSROOM_JOINS_PER_CLIENT",
    "guesses_per_client": "CAE_CLASSROOM_GUESSES_PER_CLIENT",
}


def limits_from_env(environ=None):
    """:class:`Limits` with the abuse limits a deployment sets in its environment (the others default):
    ``CAE_CLASSROOM_ROOMS_PER_CLIENT``, ``CAE_CLASSROOM_STARTS_PER_CLIENT`` (per hour) and
    ``CAE_CLASSROOM_JOINS_PER_CLIENT`` (per class, per 10 minutes) and ``CAE_CLASSROOM_GUESSES_PER_CLIENT`` (class codes
    that name no class, per 10 minutes). A value that is not a positive whole number
    is ignored.

    >>> limits_from_env({"CAE_CLASSROOM_JOINS_PER_CLIENT": "600", "CAE_CLASSROOM_STARTS_PER_CLIENT": "x"})
    Limits(students_per_room=500, rooms=1000, questions_per_room=500, ttl_seconds=43200.0, nickname_length=24, \
state_chars=8000, rooms_per_client=3, starts_per_client=6, starts_window=3600.0, joins_per_client=600, \
joins_window=600.0, guesses_per_client=30, guesses_window=600.0)
    """
    env = os.environ if environ is None else environ
    given = {}
    for field_name, var in LIMIT_VARIABLES.items():
        raw = str(env.get(var, "")).strip()
        if raw.isdigit() and int(raw) > 0:
            given[field_name] = int(raw)
    return Limits(**given)


#: the environment variable that names the proxies whose ``X-Forwarded-For`` is believed (:func:`trusted_proxies`)
TRUSTED_PROXIES_VARIABLE = "CAE_TRUSTED_PROXIES"


def trusted_proxies(environ=None):
    """The proxies a deployment names in ``CAE_TRUSTED_PROXIES`` (addresses or networks, comma-separated):
    ``(networks, entries that are not addresses)``. None by default: a client's own ``X-Forwarded-For`` is
    never believed unless the connection comes from a proxy named here.

    >>> nets, bad = trusted_proxies({"CAE_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8,nginx"})
    >>> [str(n) for n in nets], bad
    (['127.0.0.1/32', '10.0.0.0/8'], ['nginx'])
    >>> trusted_proxies({})
    ([], [])
    """
    import ipaddress

    env = os.environ if environ is None else environ
    nets, bad = [], []
    for item in str(env.get(TRUSTED_PROXIES_VARIABLE, "")).split(","):
        item = item.strip()
        if not item:
            continue
        try:
            nets.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            bad.append(item[:60])
    return nets, bad


def client_address(peer, forwarded_for=None, trusted=()):
    """The client's address for the abuse limits: the connection's ``peer``, or, when the peer is a proxy the
    deployment trusts (``trusted``: :func:`trusted_proxies`), the address that proxy saw — the rightmost
    entry of ``X-Forwarded-For`` that is not itself a trusted proxy. What a client writes in the header is
    never believed from a peer that is not trusted, and comes before what a trusted proxy appends.

    >>> import ipaddress
    >>> lo = [ipaddress.ip_network("127.0.0.1")]
    >>> client_address("127.0.0.1", "6.6.6.6, 10.0.0.7", lo)  # the proxy appended the client's 10.0.0.7
    '10.0.0.7'
    >>> client_address("10.0.0.7", "6.6.6.6", lo)  # not a trusted proxy: its header means nothing
    '10.0.0.7'
    >>> client_address("127.0.0.1", "6.6.6.6")  # no proxy is trusted by default
    '127.0.0.1'
    >>> client_address("127.0.0.1", "not an address", lo)  # nothing usable: the proxy itself
    '127.0.0.1'
    """
    import ipaddress

    def is_trusted(addr):
        try:
            ip = ipaddress.ip_address(addr)
        except ValueError:
            return False
        return any(ip in net for net in trusted)

    addr = str(peer or "unknown")
    if not forwarded_for or not is_trusted(addr):
        return addr
    for hop in reversed([h.strip() for h in str(forwarded_for).split(",")]):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return addr  # a trusted proxy always writes an address: the header is not one
        if not is_trusted(hop):
            return hop
        addr = hop
    return addr


def client_key(peer, forwarded_for=None, trusted=None):
    """A client's key for the abuse limits: a hash of :func:`client_address` (no address is stored).
    ``trusted`` defaults to the proxies ``CAE_TRUSTED_PROXIES`` names (:func:`trusted_proxies`).

    >>> import ipaddress
    >>> lo = [ipaddress.ip_network("127.0.0.1")]
    >>> client_key("10.0.0.7") == client_key("127.0.0.1", "1.2.3.4, 10.0.0.7", lo)
    True
    >>> client_key("10.0.0.7", "10.0.0.8", lo) == client_key("10.0.0.7")
    True
    >>> client_key("127.0.0.1", "1.2.3.4", []) == client_key("127.0.0.1", "5.6.7.8", [])
    True
    """
    import hashlib

    if trusted is None:
        trusted = trusted_proxies()[0]
    addr = client_address(peer, forwarded_for, trusted)
    return hashlib.sha256(("cae-classroom:" + addr).encode()).hexdigest()[:20]


def store_url(url=None):
    """The store's URL: ``url``, else ``$CAE_CLASSROOM_URL``, else the default SQLite file."""
    url = url if url is not None else os.environ.get("CAE_CLASSROOM_URL", "")
    return url.strip() or "sqlite:///" + str(default_sqlite_path())


def open_store(url=None, limits=None, prefix="cae"):
    """The store a URL names (see the module docstring); ``limits`` default to :func:`limits_from_env`.

    Opening checks nothing over the network: an unreachable Redis shows on the first call
    (:class:`StoreUnavailable`). An unknown scheme raises ValueError.
    """
    url = store_url(url)
    limits = limits or limits_from_env()
    if url.startswith(("redis://", "rediss://", "unix://")):
        from .redis import RedisStore

        return RedisStore(url, limits=limits, prefix=prefix)
    if url.startswith("sqlite:///"):
        from .sqlite import SQLiteStore

        path = url[len("sqlite:///") :]
        chosen, note = default_sqlite_choice() if not os.environ.get("CAE_CLASSROOM_URL") else (None, None)
        return SQLiteStore(path, limits=limits, note=note if str(chosen) == path else None)
    raise ValueError(
        "CAE_CLASSROOM_URL must start with redis://, rediss://, unix:// or sqlite:/// "
        f"(got {url.split(':', 1)[0][:20]!r}:…)"
    )

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
- :mod:`.names` — nicknames: one normalisation, one identity (Unicode TS #39 skeletons) and one escaping for
  each place a name is shown;
- :mod:`.web` — the app server's own routes (the teacher's ``HttpOnly`` cookie, the teacher link) and its start
  check of ``CAE_TRUSTED_PROXIES``;
- :mod:`.deploy` — ``python -m cae.classroom.deploy``: N app processes on one store behind nginx (the recipe
  of docs/classroom.md; the config is ``docs/deploy/nginx.conf.template``), and the app's and Redis's processes
  the load benchmark (:mod:`cae.bench.classroom`, ``python -m cae.bench --classroom N``) and the tests start.

The Streamlit side of the classroom (a session's role, the two views of the Classroom page, the server's push) is
:mod:`cae.streamlit_glue`.
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
    QuestionOpen,
    Removed,
    RoomNotFound,
    Stale,
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
    "trust_setting",
    "check_trust_setting",
    "proxy_network",
    "proxy_bypassed",
    "is_trusted_peer",
    "TrustSettingError",
    "StoreError",
    "StoreUnavailable",
    "StoreReset",
    "Conflict",
    "Stale",
    "QuestionOpen",
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


class TrustSettingError(ValueError):
    """``CAE_TRUSTED_PROXIES`` holds an entry that cannot be meant; the message names it and says why."""


def proxy_network(item):
    """One entry of ``CAE_TRUSTED_PROXIES`` as a network, or :class:`TrustSettingError` naming it when it cannot be
    meant: not an address or a network (``*``, a host name), host bits set under its prefix (``127.0.0.1/0`` is
    not 127.0.0.1: it reads as every address), or every address (``0.0.0.0/0``, ``::/0``: any client could then
    write its own address).

    >>> str(proxy_network("127.0.0.1")), str(proxy_network("10.0.0.0/8"))
    ('127.0.0.1/32', '10.0.0.0/8')
    >>> proxy_network("127.0.0.1/0")
    Traceback (most recent call last):
    ...
    cae.classroom.TrustSettingError: CAE_TRUSTED_PROXIES entry '127.0.0.1/0' has host bits set under its prefix /0: it would mean 0.0.0.0/0 (every address), not 127.0.0.1; write the proxy's own address (127.0.0.1) or its network
    """
    import ipaddress

    item = str(item).strip()
    shown = repr(item[:60])
    try:
        net = ipaddress.ip_network(item, strict=True)
    except ValueError as exc:
        try:
            loose = ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise TrustSettingError(
                f"{TRUSTED_PROXIES_VARIABLE} entry {shown} is not an address or a network (e.g. 127.0.0.1 or "
                "10.0.0.0/8): name the proxy whose X-Forwarded-For is believed"
            ) from None
        if "host bits" not in str(exc):  # pragma: no cover - every other loose parse is strict too
            raise
        every = " (every address)" if loose.prefixlen == 0 else f" ({loose.num_addresses:,} addresses)"
        host = item.split("/")[0]
        raise TrustSettingError(
            f"{TRUSTED_PROXIES_VARIABLE} entry {shown} has host bits set under its prefix /{loose.prefixlen}: it "
            f"would mean {loose}{every}, not {host}; write the proxy's own address ({host}) or its network"
        ) from None
    if net.prefixlen == 0:
        raise TrustSettingError(
            f"{TRUSTED_PROXIES_VARIABLE} entry {shown} trusts every address: any client could write its own address "
            "in X-Forwarded-For and slip every class limit; name the proxy's own address (e.g. 127.0.0.1)"
        )
    return net


def trust_setting(environ=None):
    """``CAE_TRUSTED_PROXIES`` read: ``(networks, refusals)``, each refusal a sentence naming an entry that cannot
    be meant (:func:`proxy_network`). A setting with any refusal trusts nothing (it fails safe: everyone behind a
    proxy is one client); a server refuses to start with it (:func:`check_trust_setting`).

    >>> nets, refused = trust_setting({"CAE_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8"})
    >>> [str(n) for n in nets], refused
    (['127.0.0.1/32', '10.0.0.0/8'], [])
    >>> nets, refused = trust_setting({"CAE_TRUSTED_PROXIES": "127.0.0.1, ::/0"})
    >>> nets, len(refused)
    ([], 1)
    """
    env = os.environ if environ is None else environ
    nets, refused = [], []
    for item in str(env.get(TRUSTED_PROXIES_VARIABLE, "")).split(","):
        if not item.strip():
            continue
        try:
            nets.append(proxy_network(item))
        except TrustSettingError as exc:
            refused.append(str(exc))
    return ([] if refused else nets), refused


def trusted_proxies(environ=None):
    """The proxies a deployment names in ``CAE_TRUSTED_PROXIES`` (addresses or networks, comma-separated):
    ``(networks, refusals)`` as :func:`trust_setting` (no network at all when an entry is refused). None by
    default: a client's own ``X-Forwarded-For`` is never believed unless the connection comes from a proxy named
    here.

    >>> nets, bad = trusted_proxies({"CAE_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.0/8"})
    >>> [str(n) for n in nets], bad
    (['127.0.0.1/32', '10.0.0.0/8'], [])
    >>> trusted_proxies({})
    ([], [])
    """
    return trust_setting(environ)


def check_trust_setting(environ=None):
    """What a server logs at start about whom it trusts; :class:`TrustSettingError` (every refused entry, named)
    when ``CAE_TRUSTED_PROXIES`` cannot be meant — the server then does not start.

    >>> check_trust_setting({"FORWARDED_ALLOW_IPS": ""})
    'CAE_TRUSTED_PROXIES is not set: no proxy is trusted; a client is the address of its connection'
    >>> check_trust_setting({"CAE_TRUSTED_PROXIES": "0.0.0.0/0"})
    Traceback (most recent call last):
    ...
    cae.classroom.TrustSettingError: CAE_TRUSTED_PROXIES entry '0.0.0.0/0' trusts every address: any client could write its own address in X-Forwarded-For and slip every class limit; name the proxy's own address (e.g. 127.0.0.1)
    """
    env = os.environ if environ is None else environ
    nets, refused = trust_setting(env)
    server_trusts = env.get("FORWARDED_ALLOW_IPS")
    if server_trusts is not None and server_trusts.strip() == "*":
        refused.append(
            "FORWARDED_ALLOW_IPS='*' makes Streamlit's server (uvicorn) believe the X-Forwarded-For of every "
            "connection: any client could write its own address; leave it unset (127.0.0.1 and ::1) or empty"
        )
    if refused:
        raise TrustSettingError("; ".join(refused))
    if not nets:
        line = f"{TRUSTED_PROXIES_VARIABLE} is not set: no proxy is trusted; a client is the address of its connection"
    else:
        line = (
            f"{TRUSTED_PROXIES_VARIABLE}: the X-Forwarded-For of a connection from {', '.join(str(n) for n in nets)} "
            "names the client (no other proxy is trusted)"
        )
    if server_trusts is None:
        return (
            line
            + " (Streamlit's server itself puts the X-Forwarded-For of a connection from 127.0.0.1 or ::1 in its place)"
        )
    return line


def is_trusted_peer(peer, trusted):
    """True when the address ``peer`` is in one of the networks ``trusted``.

    >>> import ipaddress
    >>> is_trusted_peer("127.0.0.1", [ipaddress.ip_network("127.0.0.0/8")]), is_trusted_peer("x", [])
    (True, False)
    """
    import ipaddress

    try:
        ip = ipaddress.ip_address(str(peer))
    except ValueError:
        return False
    return any(ip in net for net in trusted)


def proxy_bypassed(forwarded_for, host, own_port, trusted):
    """Why a request did not come through the proxy ``CAE_TRUSTED_PROXIES`` names (None when it did, or when no
    proxy is trusted): it carries no ``X-Forwarded-For`` (a proxy always writes one), or it was sent to the app's own
    port (``Host`` names the port the browser connected to: a proxy's, when it came through one). The connection's
    address cannot tell: Streamlit's server (uvicorn) itself puts the ``X-Forwarded-For`` of a connection from
    127.0.0.1 or ::1 in its place (``FORWARDED_ALLOW_IPS``).

    >>> import ipaddress
    >>> lo = [ipaddress.ip_network("127.0.0.0/8")]
    >>> proxy_bypassed("10.0.0.7", "class.example.org", 8501, lo) is None
    True
    >>> proxy_bypassed("6.6.6.6", "127.0.0.1:8501", 8501, lo)
    "it was sent straight to the app's own port 8501"
    >>> proxy_bypassed(None, "127.0.0.1:8502", 8501, lo)
    'it carries no X-Forwarded-For, which a proxy always writes'
    """
    from urllib.parse import urlsplit

    if not trusted:
        return None
    if not forwarded_for:
        return "it carries no X-Forwarded-For, which a proxy always writes"
    try:
        port = urlsplit("//" + str(host or "")).port
    except ValueError:
        port = None
    if port is not None and own_port is not None and str(port) == str(own_port):
        return f"it was sent straight to the app's own port {own_port}"
    return None


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
        return is_trusted_peer(addr, trusted)

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

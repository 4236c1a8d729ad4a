"""The live classroom, without Streamlit: the teacher's steps drive every student's view, and the class's
predictions come back.

- :func:`open_store` — the store ``CAE_CLASSROOM_URL`` names (below);
- :mod:`.store` — the interface every backend implements (rooms, the published lesson state, students,
  questions, answers), its errors and limits;
- :mod:`.sqlite` — the default backend: one SQLite file in WAL mode in the per-user data folder;
- :mod:`.redis` — the backend for several app processes: a Redis server (redis-py, Lua scripts);
- :mod:`.room` — what a page computes from a room: scores, the answers chart, the CSV, join links;
- :mod:`.views` — the runs every student of a room shares in one app process (one per lesson state),
  so that a following student costs only their view state;
- :mod:`.qr` — the join link as a QR code (SVG, with segno);
- :mod:`.loadtest` — ``python -m cae.bench --classroom N``.
"""

import os
from pathlib import Path

from .store import (
    AnswerRefused,
    BadInput,
    ClassroomStore,
    LimitReached,
    Limits,
    NotTeacher,
    RoomNotFound,
    StoreError,
    StoreUnavailable,
)

__all__ = [
    "ClassroomStore",
    "Limits",
    "open_store",
    "store_url",
    "default_sqlite_path",
    "StoreError",
    "StoreUnavailable",
    "RoomNotFound",
    "NotTeacher",
    "LimitReached",
    "AnswerRefused",
    "BadInput",
]


def default_sqlite_path():
    """The per-user data folder's classroom file: ``$CAE_EXPLORER_DATA`` if set, else
    ``$XDG_DATA_HOME/cae-explorer`` (``~/.local/share/cae-explorer``; ``%LOCALAPPDATA%`` on Windows),
    else a folder in the temporary directory; the first one that can be created and written."""
    import tempfile

    cands = []
    if os.environ.get("CAE_EXPLORER_DATA"):
        cands.append(Path(os.environ["CAE_EXPLORER_DATA"]))
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        cands.append(Path(os.environ["LOCALAPPDATA"]) / "cae-explorer")
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    cands.append(Path(base) / "cae-explorer")
    cands.append(Path(tempfile.gettempdir()) / f"cae-explorer-{os.getuid() if hasattr(os, 'getuid') else 'user'}")
    for d in cands:
        try:
            d.mkdir(parents=True, exist_ok=True)
            probe = d / ".write-test"
            probe.write_bytes(b"")
            probe.unlink()
            return d / "classroom.sqlite3"
        except OSError:
            continue
    return cands[-1] / "classroom.sqlite3"


def store_url(url=None):
    """The store's URL: ``url``, else ``$CAE_CLASSROOM_URL``, else the default SQLite file."""
    url = url if url is not None else os.environ.get("CAE_CLASSROOM_URL", "")
    return url.strip() or "sqlite:///" + str(default_sqlite_path())


def open_store(url=None, limits=None, prefix="cae"):
    """The store a URL names (see the module docstring); ``limits`` default to :class:`Limits`.

    Opening checks nothing over the network: an unreachable Redis shows on the first call
    (:class:`StoreUnavailable`). An unknown scheme raises ValueError.
    """
    from .store import Limits

    url = store_url(url)
    limits = limits or Limits()
    if url.startswith(("redis://", "rediss://", "unix://")):
        from .redis import RedisStore

        return RedisStore(url, limits=limits, prefix=prefix)
    if url.startswith("sqlite:///"):
        from .sqlite import SQLiteStore

        return SQLiteStore(url[len("sqlite:///") :], limits=limits)
    raise ValueError(
        "CAE_CLASSROOM_URL must start with redis://, rediss://, unix:// or sqlite:/// "
        f"(got {url.split(':', 1)[0][:20]!r}:…)"
    )

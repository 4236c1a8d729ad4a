"""The live classroom, without Streamlit: the teacher's steps drive every student's view, and the class's
predictions come back.

- :mod:`.store` — the interface every backend implements (rooms, the published lesson state, students,
  questions, answers), its errors and limits, :func:`open_store` (``CAE_CLASSROOM_URL``);
- :mod:`.sqlite` — the default backend: one SQLite file in WAL mode in the per-user data folder;
- :mod:`.redis` — the backend for several app processes: a Redis server (redis-py, Lua scripts);
- :mod:`.room` — what a page computes from a room: scores, the answers chart, the CSV, join links;
- :mod:`.views` — the runs every student of a room shares in one app process (one per lesson state),
  so that a following student costs only their view state;
- :mod:`.qr` — the join link as a QR code (SVG, with segno).
"""

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
    open_store,
)

__all__ = [
    "ClassroomStore",
    "Limits",
    "open_store",
    "StoreError",
    "StoreUnavailable",
    "RoomNotFound",
    "NotTeacher",
    "LimitReached",
    "AnswerRefused",
    "BadInput",
]

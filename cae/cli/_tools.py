"""What the commands share: a progress line on a terminal, reading ahead in a thread, atomic file writes."""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

T = TypeVar("T")


class Progress:
    """``learning 1,200,000 rows · 850,000 rows/s · 41 % · 3 s left · 6 clusters`` on one line of a terminal, redrawn at
    most every ``every`` seconds; nothing when the stream is not a terminal (piped, a file, a test)."""

    def __init__(self, verb: str, stream: IO[str] | None = None, every: float = 0.25) -> None:
        self.verb, self.stream, self.every = verb, stream or sys.stderr, every
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = self.last = time.perf_counter()
        self.width = 0

    @staticmethod
    def text(verb: str, rows: int, seconds: float, done: int | None, total: int | None) -> str:
        """The line, e.g. ``text("learning", 2000, 2.0, 50, 100)``: ``learning 2,000 rows · 1,000 rows/s ·
        50 % · 2 s left``."""
        out = f"{verb} {rows:,} rows · {rows / max(seconds, 1e-9):,.0f} rows/s"
        if total and done is not None and done > 0:
            f = min(done / total, 1.0)
            out += f" · {100 * f:.0f} % · {_duration(seconds * (1 - f) / f)} left"
        return out

    def update(
        self, rows: int, done: int | None = None, total: int | None = None, force: bool = False, extra: str = ""
    ) -> None:
        """Redraw the line (``extra``, e.g. ``6 clusters``, at its end)."""
        now = time.perf_counter()
        if not self.enabled or (now - self.last < self.every and not force):
            return
        self.last = now
        line = self.text(self.verb, rows, now - self.start, done, total) + (f" · {extra}" if extra else "")
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = len(line)

    def clear(self) -> None:
        if self.enabled and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    return (
        f"{s} s"
        if s < 60
        else f"{s // 60} min {s % 60:02d} s"
        if s < 3600
        else f"{s // 3600} h {s % 3600 // 60:02d} min"
    )


def prefetch(items: Iterable[T], depth: int = 1) -> Iterator[T]:
    """The items, produced ``depth`` ahead in a thread: the next chunk is read and parsed while the caller
    learns or labels this one (numba's kernels and most of pandas' parser run without the GIL). An error of
    the producer is raised here; leaving the loop stops the producer."""
    q: queue.Queue[tuple[str, Any]] = queue.Queue(depth)
    stop = threading.Event()

    def put(item: tuple[str, Any]) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for it in items:
                if not put(("item", it)):
                    return
            put(("end", None))
        except BaseException as exc:  # handed to the consumer, raised there
            put(("error", exc))

    threading.Thread(target=work, name="cae-read-ahead", daemon=True).start()
    try:
        while True:
            kind, value = q.get()
            if kind == "end":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        stop.set()


@contextlib.contextmanager
def write_atomically(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``path`` only when the block ends without error: written beside it under a
    temporary name, flushed to disk, then renamed over it (``os.replace``, atomic). An error or Ctrl-C
    leaves the previous file (if any) as it was and no temporary file."""
    target = Path(path)
    if not target.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no such folder to write into", str(target.parent))
    tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        with open(tmp, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()

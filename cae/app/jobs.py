"""A job over seeds, in the background: what *How often?* and the Lineage lesson run while their page stays usable.

No Streamlit here: a page keeps the job in its session, reads it on each rerun and may :meth:`SeedJob.cancel` it.
A subclass says what one seed does (:meth:`SeedJob._run_seed`); the thread, the cancelling, the waiting and the
error caught for the page (never a traceback there) are this class's.

Examples
--------
>>> class Squares(SeedJob):
...     def __init__(self, n_seeds):
...         super().__init__(n_seeds)
...         self.results = []
...     def _run_seed(self, seed):
...         self.results = self.results + [seed * seed]
>>> job = Squares(4).start()
>>> job.wait(10), job.results, job.running, job.error
(True, [0, 1, 4, 9], False, None)
"""

from __future__ import annotations

import threading
import time

__all__ = ["SeedJob"]


class SeedJob:
    """Runs :meth:`_run_seed` for seeds 0 … ``n_seeds`` − 1, one after another, in a daemon thread.

    ``current`` is the seed being run (None when none is), ``error`` the exception that stopped the job, in
    words, ``started``/``finished`` its ``time.perf_counter()`` times. A subclass publishes its results by
    replacing a list (``self.results = self.results + [r]``), so that a page's reader never sees one half-built.
    """

    #: the thread's name (seen in a debugger or a stack dump)
    thread_name = "cae-seed-job"

    def __init__(self, n_seeds):
        self.seeds = list(range(int(n_seeds)))
        self.error: str | None = None
        self.current: int | None = None
        self.started: float | None = None
        self.finished: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _run_seed(self, seed):  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def start(self):
        self.started = time.perf_counter()
        self._thread = threading.Thread(target=self._work, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def _work(self):
        try:
            for seed in self.seeds:
                if self._stop.is_set():
                    break
                self.current = seed
                self._run_seed(seed)
        except Exception as exc:  # noqa: BLE001 - reported on the page, never a traceback there
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.current = None
            self.finished = time.perf_counter()

    @property
    def running(self):
        return self._thread is not None and self._thread.is_alive()

    @property
    def cancelled(self):
        return self._stop.is_set()

    def cancel(self):
        self._stop.set()

    def wait(self, timeout=None):
        """Wait for the job to end; True if it did."""
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.running

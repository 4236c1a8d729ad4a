"""Per-user folders: where the compiled kernels are cached and where fetched datasets live.

Both follow the same rule: an environment variable names the folder outright; else the XDG base
directory (``$XDG_CACHE_HOME``, ``$XDG_DATA_HOME``) or its default under the home folder; else a
folder in the system's temporary directory. The first candidate that can be created and written
to wins, so the same code works for an editable install, a wheel in a read-only site-packages and
a container whose home folder is read-only.

========================  =============================================  ================================
what                      candidates, in order                           used by
========================  =============================================  ================================
compiled kernels          ``$CAE_EXPLORER_CACHE``, ``$NUMBA_CACHE_DIR``,  :mod:`cae._jit`
                          ``~/.cache/cae-explorer/numba``
the paper's datasets      ``$CAE_EXPLORER_DATA``,                         :mod:`cae.data.fetch`,
                          ``~/.local/share/cae-explorer/datasets``        the experiments' ``--datasets``
========================  =============================================  ================================

The datasets' folder is the exception to "the first that can be written": ``$CAE_EXPLORER_DATA``, when set,
is used even when it cannot be written (the write then fails in words) — a setting a user typed wins over a
default, as it does for the classroom's file (:func:`cae.classroom.default_sqlite_choice`).

Examples
--------
>>> import os, tempfile
>>> saved, d = os.environ.get("CAE_EXPLORER_DATA"), tempfile.mkdtemp()
>>> os.environ["CAE_EXPLORER_DATA"] = d
>>> user_data_dir() == d
True
>>> _ = os.environ.pop("CAE_EXPLORER_DATA") if saved is None else os.environ.update(CAE_EXPLORER_DATA=saved)
"""

from __future__ import annotations

import os
import tempfile

__all__ = ["first_writable", "user_cache_dir", "user_data_dir", "data_candidates", "cache_candidates"]

_APP = "cae-explorer"


def _uid():
    return os.getuid() if hasattr(os, "getuid") else "user"


def cache_candidates(sub, env=()):
    """The candidate folders of a per-user cache ``sub`` (the environment variables ``env`` first)."""
    for var in env:
        if os.environ.get(var):
            yield os.environ[var]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    yield os.path.join(base, _APP, sub)
    yield os.path.join(tempfile.gettempdir(), f"{_APP}-{sub}-{_uid()}")


def data_candidates(sub, env=()):
    """The candidate folders of per-user data ``sub`` (the environment variables ``env`` first)."""
    for var in env:
        if os.environ.get(var):
            yield os.environ[var]
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    yield os.path.join(base, _APP, sub)
    yield os.path.join(tempfile.gettempdir(), f"{_APP}-{sub}-{_uid()}")


def _writable(d):
    try:
        os.makedirs(d, exist_ok=True)
        probe = os.path.join(d, f".write-test-{os.getpid()}")
        with open(probe, "w"):
            pass
        os.remove(probe)
        return True
    except OSError:
        return False


def first_writable(candidates, fallback_prefix=f"{_APP}-"):
    """The first folder of ``candidates`` that can be created and written to; else a new temporary one."""
    for d in candidates:
        if _writable(d):
            return d
    return tempfile.mkdtemp(prefix=fallback_prefix)


def user_cache_dir(sub, env=()):
    """A writable per-user cache folder (see the module docstring)."""
    return first_writable(cache_candidates(sub, env), f"{_APP}-{sub}-")


def user_data_dir(sub="datasets", env=("CAE_EXPLORER_DATA",), create=True):
    """The per-user data folder (``$CAE_EXPLORER_DATA``, else ``~/.local/share/cae-explorer/datasets``).

    A folder an environment variable names is the one, always: a setting wins over every default, and
    when it cannot be created or written the caller's write fails (an OSError), never lands elsewhere.
    Without one, ``create=True`` gives the first candidate that can be created and written to. With
    ``create=False`` nothing is created (where the experiments look for fetched data): the first
    candidate folder that exists, else the first candidate (where :func:`cae.data.fetch.fetch` would
    write).
    """
    for var in env:
        if os.environ.get(var):
            return os.environ[var]
    if create:
        return first_writable(data_candidates(sub), f"{_APP}-{sub}-")
    candidates = list(data_candidates(sub))
    for d in candidates:
        if os.path.isdir(d):
            return d
    return candidates[0]

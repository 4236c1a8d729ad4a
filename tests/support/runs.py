"""The test suite run again, in a fresh interpreter: some tests need a process of their own (its own environment,
its own HOME, the kernels as plain Python) for part of the suite."""

import subprocess
import sys

from conftest import ROOT


def pytest_run(*args, env, cwd=ROOT, timeout=900):
    """``python -m pytest -p no:cacheprovider -n 0 ARGS`` in a fresh interpreter with ``env``, from ``cwd``: the finished
    process, its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", *args],  # (in its own process only)
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )

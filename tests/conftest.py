import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
# The project's reference files (spec, golden traces, the paper, its datasets) beside the repository. A clone
# has none: CAE_TEST_SHARED=none (or any folder that does not exist) runs the suite as it runs there.
SHARED = Path(os.environ.get("CAE_TEST_SHARED") or ROOT.parent / "shared")
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_path(*parts):
    """A path under ../shared, or skip the test when it is absent."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is not available")
    return p


def load_golden_input(case_dir):
    raw = np.genfromtxt(Path(case_dir) / "input.csv", delimiter=",", names=True)
    names = [n for n in raw.dtype.names if n != "label"]
    X = np.column_stack([raw[n] for n in names]).astype(float)
    return X, raw["label"].astype(int)


def pytest_sessionstart(session):
    """Use the compiled kernels throughout: start (or find) the background compilation and wait for it.

    On a machine whose cache is warm this returns at once; on a fresh one it waits for the one
    background compilation (about two minutes on two quiet cores, longer on a busy machine). The
    un-jitted path and the switch are tested in subprocesses of their own (tests/test_coldstart.py,
    the tests with CAE_DISABLE_NUMBA).
    """
    from cae import _jit

    if _jit.MODE == "auto":
        state = _jit.prepare(wait_seconds=1800)
        if state != "compiled":
            import warnings

            warnings.warn(
                f"the compiled kernels are not in use ({state}): the tests run un-jitted, slowly", stacklevel=1
            )


def model_file_parts(model):
    """The members of a model's ``.npz`` file (name -> bytes), to tamper with in tests."""
    import io
    import zipfile

    buf = io.BytesIO()
    model.save(buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        return {n: z.read(n) for n in z.namelist()}


def rewrite_model_file(parts, meta=None, arrays=None):
    """A model file from ``parts`` with the metadata (a dict) or some ``state_`` arrays replaced."""
    import io
    import json
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n, data in parts.items():
            b = io.BytesIO()
            key = n[len("state_") : -4]
            if n == "meta_json.npy" and meta is not None:
                np.save(b, np.array(json.dumps(meta)))
                data = b.getvalue()
            elif arrays and key in arrays:
                np.save(b, arrays[key])
                data = b.getvalue()
            z.writestr(n, data)
    out.seek(0)
    return out

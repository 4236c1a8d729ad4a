from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
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

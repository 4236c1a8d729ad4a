"""Data: the paper's synthetic 2-D data and other generators, streams over labelled data, built-in datasets,
and an honest CSV reader.

Examples
--------
>>> from cae.data import make_paper2d, nonstationary_stream
>>> s = nonstationary_stream(make_paper2d(n_per_class=500, seed=0), seed=0)
>>> len(s), s.stage_names[0]
(3300, 'stream #1')

The modules: :mod:`.streams` (:class:`Dataset`, :class:`Stream` and the stationary, non-stationary and
class-incremental orders), :mod:`.synthetic` (generators and drifting streams), :mod:`.builtin`
(scikit-learn's bundled datasets, labelled CSV files, ``sample_data/``), :mod:`.csvio` (uploaded CSVs) and
:mod:`.csvstream` (a CSV of any size in chunks, with the checks every reader applies).
``python -m cae.data sample_data`` rewrites ``sample_data/``.
"""

from .builtin import (
    BUILTINS,
    HOME_MODEL,
    HOME_SEED,
    HOME_SUMMARY,
    SAMPLE_FILES,
    home_stream,
    load_builtin,
    load_labelled_csv,
    sample_frame,
    write_sample_data,
)
from .streams import Dataset, Stream, class_incremental_stream, nonstationary_stream, stationary_stream
from .synthetic import (
    DRIFT_STREAMS,
    NOISE_LABEL,
    PAPER2D_CLASS_NAMES,
    appear_disappear_stream,
    gradual_drift_stream,
    make_blobs3d,
    make_circles2d,
    make_drift_stream,
    make_moons2d,
    make_paper2d,
    recurring_stream,
    sudden_switch_stream,
)

__all__ = [
    "Dataset",
    "Stream",
    "stationary_stream",
    "nonstationary_stream",
    "class_incremental_stream",
    "make_paper2d",
    "make_moons2d",
    "make_circles2d",
    "make_blobs3d",
    "PAPER2D_CLASS_NAMES",
    "NOISE_LABEL",
    "gradual_drift_stream",
    "sudden_switch_stream",
    "recurring_stream",
    "appear_disappear_stream",
    "DRIFT_STREAMS",
    "make_drift_stream",
    "load_builtin",
    "BUILTINS",
    "load_labelled_csv",
    "SAMPLE_FILES",
    "sample_frame",
    "home_stream",
    "HOME_MODEL",
    "HOME_SEED",
    "HOME_SUMMARY",
    "write_sample_data",
]

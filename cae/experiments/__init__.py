"""The paper's experiments, reproducible from the command line: ``python -m cae.experiments``.

Subcommands
-----------
synthetic     the 2-D protocol (six distributions + 10 % noise, the noise not scored), stationary or
              stream #1 ... #6, for any registered algorithms
realworld     every CSV of a folder (features, then ``label``), stationary or class-incremental (with AI
              and BWT under both conventions), for any registered algorithms
lambda-sweep  CAE with λ fixed at each value of a list (a_max estimated) against the estimated λ
runtime       CAE's wall time, the share spent estimating λ (the DPP diversity phase) and peak memory
noise         noise robustness: every algorithm on the 2-D stream with 0, 2, 5, 10, 20 % uniform noise,
              stationary and stream #1 ... #6, NMI/ARI/#nodes/#clusters and the runs that merge or split
              clusters (:mod:`.noise`)
paper         all of the above with the paper's parameters for every algorithm, then ``compare``
compare       our results beside the paper's tables: marks, Friedman/Nemenyi statistics, figures

``--algorithms`` takes comma-separated registry names (``CAE,CAEA,SOINN+,ASOINN,TCA,AutoCloud``;
append ``(mean)`` for the mean of the paper's grid values) and ``--params paper|mean`` picks the
variant for names without a suffix. Every run is seeded (run ``r`` uses seed ``--seed + r``) and the
CSVs are written in a fixed order, so the same command gives the same CSV except for the
``seconds`` column. Runs go in parallel with joblib (``--n-jobs``), or to a dask.distributed cluster
(``--dask ADDRESS``) through joblib's dask backend.

The modules: :mod:`.protocol` (one run: data, streams, models, scores), :mod:`.runner` (parallel
runs, tables), :mod:`.compare` (beside the paper), :mod:`.stats` (Friedman, Nemenyi),
:mod:`.figures` (plots), :mod:`.noise` (the noise study), :mod:`.reference_runs` (numbers measured
with the authors' own code), :mod:`.cli`.
"""

from .cli import do_compare, do_paper, main
from .protocol import (
    PAPER_SYNTHETIC_STATIONARY,
    lambda_job,
    load_dataset,
    make_model,
    parse_algorithms,
    realworld_job,
    runtime_job,
    synthetic_job,
    variant_label,
)
from .runner import run_jobs, summary_table

__all__ = [
    "synthetic_job",
    "realworld_job",
    "lambda_job",
    "runtime_job",
    "run_jobs",
    "summary_table",
    "main",
    "do_compare",
    "do_paper",
    "make_model",
    "parse_algorithms",
    "variant_label",
    "load_dataset",
    "PAPER_SYNTHETIC_STATIONARY",
]

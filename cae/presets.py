"""The paper's grid-searched parameters of the compared algorithms: "the paper's setting".

Source: Masuyama et al., Neural Computing and Applications 38 (2026), the tables
"Parameter specifications by grid search" for the synthetic data and for the
real-world datasets in the stationary and the non-stationary environment
(also in ``cae/experiments/paper_tables/baseline_parameters.csv``; a test
checks that the two agree). The grid: AutoCloud m in {1, 2, 3}; ASOINN and TCA
λ in {50, 100, ..., 500}; ASOINN and CAEA a_max in {10, 20, ..., 100}; TCA
σ_init in {0.1, ..., 0.5}; CAEA λ in {50, ..., 500}. SOINN+ and CAE have no
parameters. AutoCloud has none for Letter and Skin: the paper's run did not
finish within an hour ("N/A"); we use m = 1, its value on every other dataset.

The "(mean)" variants of the paper run each algorithm with the mean of its
per-dataset values over the 12 datasets. The paper prints those means rounded
(TCA's σ_init mean of 0.25 is printed 0.2 in one table and 0.3 in the other);
:func:`paper_parameters` computes them exactly from the 12 rows, and rounds λ
to a whole number of samples (a deletion cycle of 279.17 samples has no
meaning in a stream of whole samples).

Examples
--------
>>> paper_parameters("TCA", "Iris", "stationary")
{'reconstruction_interval': 100, 'sigma_init': 0.3}
>>> paper_parameters("ASOINN", "Iris", "stationary", variant="mean")
{'deletion_interval': 279, 'max_edge_age': 21.666666666666668}
>>> paper_parameters("CAE", "Iris", "stationary")
{}
"""

from __future__ import annotations

__all__ = ["PAPER_GRID", "DATASETS", "paper_parameters", "dataset_key"]

# (dataset, environment) -> (AutoCloud m, ASOINN λ, ASOINN a_max, TCA λ, TCA σ_init, CAEA λ, CAEA a_max)
PAPER_GRID = {
    ("synthetic", "stationary"): (2, 400, 10, 450, 0.1, 50, 30),
    ("synthetic", "nonstationary"): (2, 250, 10, 500, 0.1, 50, 40),
    ("Iris", "stationary"): (1, 50, 10, 100, 0.3, 50, 90),
    ("Ionosphere", "stationary"): (1, 500, 10, 400, 0.2, 400, 10),
    ("Pima", "stationary"): (1, 450, 50, 500, 0.2, 400, 70),
    ("Binalpha", "stationary"): (1, 500, 10, 450, 0.4, 500, 10),
    ("Yeast", "stationary"): (1, 500, 90, 500, 0.3, 500, 40),
    ("Semeion", "stationary"): (1, 400, 10, 500, 0.4, 400, 90),
    ("Image Segmentation", "stationary"): (1, 100, 20, 50, 0.2, 100, 20),
    ("Phoneme", "stationary"): (1, 50, 10, 150, 0.2, 500, 90),
    ("Texture", "stationary"): (1, 200, 10, 250, 0.2, 500, 100),
    ("PenBased", "stationary"): (1, 150, 10, 150, 0.3, 100, 50),
    ("Letter", "stationary"): (None, 400, 10, 500, 0.2, 450, 10),
    ("Skin", "stationary"): (None, 50, 20, 200, 0.1, 50, 80),
    ("Iris", "nonstationary"): (1, 300, 10, 100, 0.3, 50, 90),
    ("Ionosphere", "nonstationary"): (1, 500, 10, 500, 0.2, 350, 70),
    ("Pima", "nonstationary"): (1, 400, 50, 350, 0.2, 300, 60),
    ("Binalpha", "nonstationary"): (1, 500, 10, 500, 0.4, 500, 100),
    ("Yeast", "nonstationary"): (1, 500, 30, 500, 0.3, 500, 90),
    ("Semeion", "nonstationary"): (1, 400, 10, 500, 0.4, 150, 70),
    ("Image Segmentation", "nonstationary"): (1, 200, 20, 50, 0.2, 100, 60),
    ("Phoneme", "nonstationary"): (1, 500, 10, 150, 0.2, 400, 30),
    ("Texture", "nonstationary"): (1, 350, 10, 150, 0.2, 200, 90),
    ("PenBased", "nonstationary"): (1, 150, 10, 150, 0.3, 50, 70),
    ("Letter", "nonstationary"): (None, 450, 10, 500, 0.2, 500, 50),
    ("Skin", "nonstationary"): (None, 50, 20, 200, 0.1, 50, 60),
}

#: the paper's dataset names, in its table order, with the file stems ``python -m cae.data fetch`` writes
DATASETS = {
    "Iris": "iris",
    "Ionosphere": "ionosphere",
    "Pima": "pima",
    "Binalpha": "binalpha",
    "Yeast": "yeast",
    "Semeion": "semeion",
    "Image Segmentation": "segment",
    "Phoneme": "phoneme",
    "Texture": "texture",
    "PenBased": "penbased",
    "Letter": "letter",
    "Skin": "skin",
}

# algorithm -> [(constructor argument, position in a PAPER_GRID row, is a count of samples)]
_COLUMNS = {
    "AutoCloud": [("m", 0, False)],
    "ASOINN": [("deletion_interval", 1, True), ("max_edge_age", 2, False)],
    "TCA": [("reconstruction_interval", 3, True), ("sigma_init", 4, False)],
    "CAEA": [("deletion_interval", 5, True), ("max_edge_age", 6, False)],
}
_AUTOCLOUD_FALLBACK_M = 1


def dataset_key(name):
    """The paper's name of a dataset from a paper name or a file stem (``segment`` -> ``Image Segmentation``).

    Returns None for a dataset the paper did not use.
    """
    if name in DATASETS or name == "synthetic":
        return name
    for paper, stem in DATASETS.items():
        if str(name).lower() in (stem, paper.lower()):
            return paper
    return None


def paper_parameters(algorithm, dataset, environment, variant="paper"):
    """The constructor arguments of ``algorithm`` in the paper's setting.

    Parameters
    ----------
    algorithm : str
        A registry name: ``CAE``, ``CAEA``, ``SOINN+``, ``ASOINN``, ``TCA``, ``AutoCloud``.
    dataset : str
        A paper dataset name or file stem (see :data:`DATASETS`), or ``"synthetic"``.
    environment : {"stationary", "nonstationary"}
    variant : {"paper", "mean"}
        The grid-searched values of this dataset, or their mean over the 12
        real-world datasets of the environment (the paper's "(mean)" columns).

    Returns
    -------
    dict
        Empty for the parameter-free CAE and SOINN+. Raises KeyError for a
        dataset the paper did not use (with ``variant="paper"``).
    """
    if environment not in ("stationary", "nonstationary"):
        raise ValueError(f"environment must be 'stationary' or 'nonstationary', got {environment!r}")
    if variant not in ("paper", "mean"):
        raise ValueError(f"variant must be 'paper' or 'mean', got {variant!r}")
    cols = _COLUMNS.get(algorithm)
    if cols is None:
        return {}
    if variant == "mean":
        rows = [v for (name, env), v in PAPER_GRID.items() if env == environment and name != "synthetic"]
        out = {}
        for arg, k, is_count in cols:
            vals = [r[k] for r in rows if r[k] is not None]
            mean = sum(vals) / len(vals)
            out[arg] = int(round(mean)) if is_count else mean
        return out
    key = dataset_key(dataset)
    if key is None:
        raise KeyError(f"the paper has no parameters for the dataset {dataset!r}")
    row = PAPER_GRID[(key, environment)]
    out = {}
    for arg, k, _ in cols:
        v = row[k]
        out[arg] = _AUTOCLOUD_FALLBACK_M if v is None else v
    return out

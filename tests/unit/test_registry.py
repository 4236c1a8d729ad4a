"""The registry of algorithms and the paper's parameter presets."""

import ast
import importlib
import importlib.util
import math
import re

import pandas as pd
import pytest
from conftest import ROOT

from cae.presets import DATASETS, PAPER_GRID, dataset_key, paper_parameters
from cae.registry import ALGORITHMS, column_order, exports, kernel_modules, make_algorithm, model_file_names

COLUMNS = ["autocloud_m", "asoinn_lambda", "asoinn_a_max", "tca_lambda", "tca_sigma_init", "caea_lambda", "caea_a_max"]


def test_presets_agree_with_the_papers_tables():
    df = pd.read_csv(ROOT / "cae" / "experiments" / "paper_tables" / "baseline_parameters.csv", na_values=["N/A"])
    rows = df[df["dataset"] != "mean of the 12"]
    assert len(rows) == len(PAPER_GRID) == 26
    for r in rows.itertuples(index=False):
        ours = PAPER_GRID[(r.dataset, r.environment)]
        for k, col in enumerate(COLUMNS):
            theirs = getattr(r, col)
            assert (ours[k] is None and math.isnan(theirs)) or ours[k] == theirs, (r.dataset, col)
    # the paper prints the means rounded; ours are exact and agree to its rounding
    means = df[df["dataset"] == "mean of the 12"].set_index("environment")
    for env in ("stationary", "nonstationary"):
        asoinn = paper_parameters("ASOINN", "", env, variant="mean")
        assert abs(asoinn["deletion_interval"] - means.loc[env, "asoinn_lambda"]) <= 0.5
        assert round(asoinn["max_edge_age"], 1) == means.loc[env, "asoinn_a_max"]
        caea = paper_parameters("CAEA", "", env, variant="mean")
        assert round(caea["max_edge_age"], 1) == means.loc[env, "caea_a_max"]
        tca = paper_parameters("TCA", "", env, variant="mean")
        assert tca["sigma_init"] == pytest.approx(0.25)  # printed 0.2 (stationary) and 0.3 (non-stationary)
        assert abs(tca["reconstruction_interval"] - means.loc[env, "tca_lambda"]) <= 0.5


def test_paper_parameters_by_file_stem_and_hand_values():
    assert dataset_key("segment") == "Image Segmentation" and dataset_key("wine") is None
    assert paper_parameters("CAEA", "segment", "nonstationary") == {"deletion_interval": 100, "max_edge_age": 60}
    assert paper_parameters("ASOINN", "synthetic", "stationary") == {"deletion_interval": 400, "max_edge_age": 10}
    assert paper_parameters("AutoCloud", "letter", "stationary") == {"m": 1}  # N/A in the paper: m = 1
    assert paper_parameters("SOINN+", "iris", "stationary") == {}
    # stationary ASOINN lambdas: (50+500+450+500+500+400+100+50+200+150+400+50)/12 = 279.17
    assert paper_parameters("ASOINN", "", "stationary", "mean")["deletion_interval"] == 279
    with pytest.raises(KeyError):
        paper_parameters("TCA", "wine", "stationary")
    with pytest.raises(ValueError):
        paper_parameters("TCA", "iris", "drifting")
    assert set(DATASETS) == {k for k, _ in PAPER_GRID if k != "synthetic"}


def test_registry_entries_describe_their_parameters():
    # the paper's six (a new algorithm adds an entry that is not in_paper)
    assert [n for n, a in ALGORITHMS.items() if a.in_paper] == ["CAE", "CAEA", "SOINN+", "ASOINN", "TCA", "AutoCloud"]
    caea = ALGORITHMS["CAEA"]
    assert caea.describe({"deletion_interval": 50, "max_edge_age": 90}) == "CAEA (λ=50, a_max=90)"
    assert ALGORITHMS["CAE"].describe() == "CAE" and ALGORITHMS["CAE"].paper_setting("iris", "stationary") == {}
    m = make_algorithm("CAEA", **caea.paper_setting("iris", "stationary"))
    assert (m.deletion_interval, m.max_edge_age) == (50, 90.0)
    for p in caea.params:
        with pytest.raises(ValueError):
            p.coerce("abc")
        with pytest.raises(ValueError):
            p.coerce(p.high * 10)


# ------------------------------------------------------------ the registry is the one list of algorithms
def test_every_entry_names_its_estimator_kernels_and_model_file_truly():
    """Each entry's "module:Class" is the estimator, its kernels are the modules the estimator's state runs,
    and the name its model files record is the estimator's ``algorithm``."""
    for name, a in ALGORITHMS.items():
        cls = a.estimator_class
        assert (cls.__module__, cls.__name__) == (a.module, a.class_name), name
        assert cls._State.KERNEL.__name__ in a.kernels, name
        assert cls.algorithm == a.model_file_name, name
        if a.variant_of:
            assert ALGORITHMS[a.variant_of].cls == a.cls and not a.export, name
        assert isinstance(a.make(**a.small), cls), name
        assert re.fullmatch(r"#[0-9a-f]{6}", a.colour), name


def test_the_package_follows_the_registry():
    """The lazy exports, the model files, the kernels compiled in the background and the experiments' columns are
    the registry's, and nothing else."""
    import cae
    import cae.algorithms
    from cae import _jit

    for export, module in exports().items():
        cls = getattr(importlib.import_module(module), export)
        assert getattr(cae, export) is cls and getattr(cae.algorithms, export) is cls
        assert export in cae.__all__ and export in cae.algorithms.__all__
    assert set(cae.algorithms.MODEL_FILE_NAMES.values()) == set(exports())
    for file_name in model_file_names():
        assert cae.algorithms.estimator_class(file_name).algorithm == file_name
    # the kernels found by their file names (cae._jit sits below the registry) are the registry's
    assert set(_jit.KERNEL_MODULES) == {"cae._jit", "cae._graph", "cae._art", *kernel_modules()}
    order = column_order()
    assert [a for a in order if a in ALGORITHMS] == sorted(ALGORITHMS, key=order.index) and len(order) == len(
        set(order)
    )
    assert {a.removesuffix("(mean)") for a in order} == set(ALGORITHMS)


def _type_checking_imports(path):
    """``{name: (module, attribute)}`` of the ``if TYPE_CHECKING:`` block of a package's ``__init__.py``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    package = ".".join(path.relative_to(ROOT).parent.parts)
    out = {}
    for node in block.body:
        module = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
        for alias in node.names:
            out[alias.asname or alias.name] = (module, alias.name)
    return out


@pytest.mark.parametrize("package", ["cae", "cae.algorithms"])
def test_the_type_checking_imports_agree_with_the_lazy_names(package):
    """The static types that mypy reads (``if TYPE_CHECKING:``) name exactly what the registry-driven lazy
    names resolve to at run time, so the two cannot drift (a new algorithm needs no line there: its name is
    exported all the same, typed Any until one is added)."""
    mod = importlib.import_module(package)
    typed = _type_checking_imports(ROOT / package.replace(".", "/") / "__init__.py")
    for name, (module, attr) in typed.items():
        if name in ("PathOrFile", "StreamingClusterer"):  # annotations of cae.algorithms' own functions
            continue
        assert name in mod.__all__, (package, name)
        assert getattr(mod, name) is getattr(importlib.import_module(module), attr), (package, name)
    # the paper's estimators are typed in both packages
    assert {ALGORITHMS[n].export for n in ALGORITHMS if ALGORITHMS[n].in_paper} - {""} <= set(typed)

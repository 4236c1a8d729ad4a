"""One input check for every public method that takes samples, for every registered algorithm.

NaN, infinity, the wrong number of features, the wrong dimension and an empty array are refused with a
ValueError that says what is wrong (what is not real numbers too, or scikit-learn's TypeError for it), and the model is left as it was (a fresh one stays
unfitted). The methods are found, not listed: every public method of the estimator whose first parameter is
``X`` (samples) or ``x`` (one sample), so an algorithm's own (Fuzzy ART's ``acceptance``, AutoCloud's
``memberships``) and a new algorithm's are checked too. The module runs with the compiled kernels, and once
more in a subprocess with ``CAE_JIT=off``: a compiled kernel does not check its bounds (it read past a row and
made up a category), plain Python raised IndexError; the shell's check (``_base.StreamingClusterer._samples``)
comes first in both.
"""

import inspect
import os
import re

import numpy as np
import pytest
from support.runs import pytest_run

from cae import _jit
from cae.registry import ALGORITHMS

NAMES = list(ALGORITHMS)
D = 2  # the fitted models' features
NAN = float("nan")


def sample_methods(cls):
    """``{name: one}`` of the public methods of ``cls`` that take samples (``one``: a single sample, ``x``)."""
    out = {}
    for name, fn in inspect.getmembers(cls, inspect.isfunction):
        params = list(inspect.signature(fn).parameters)
        if not name.startswith("_") and len(params) > 1 and params[1] in ("X", "x"):
            out[name] = params[1] == "x"
    return out


#: what needs a model that has learned (the others learn, and take any number of features before that)
LEARNING = {"fit", "fit_predict", "partial_fit", "learn_many", "learn_one", "learn_traced", "learn_traced_into"}
#: the methods that start over, for which another number of features is no error
RESETTING = {"fit", "fit_predict"}

WIDTH = r"has \d features, but \w+ is expecting 2 features|X has \d features"
SHAPE = r"2-D array|2D array|1-D array|dim 3"
EMPTY = r"is empty|0 sample|0 feature"
NOT_FINITE = r"NaN or infinity|NaN|infinity"
NOT_NUMBERS = r"real numbers|could not convert|[Cc]omplex"

#: (what, a batch X, a single x, the words the error says, whether it is a width error)
BAD = [
    ("NaN", [[0.5, NAN], [0.5, 0.5]], [0.5, NAN], NOT_FINITE, False),
    ("infinity", [[np.inf, 0.5]], [0.5, -np.inf], NOT_FINITE, False),
    ("one feature too few", [[0.5]], [0.5], WIDTH, True),
    ("one feature too many", [[0.5, 0.5, 0.5]], [0.5, 0.5, 0.5], WIDTH, True),
    ("the wrong dimension", [0.5, 0.5], [[0.5, 0.5]], SHAPE, False),
    ("three dimensions", np.full((1, 1, D), 0.5), np.full((1, 1, D), 0.5), SHAPE, False),
    ("empty", np.zeros((0, D)), np.zeros(0), EMPTY, False),
    ("text", [["a", "b"]], ["a", "b"], NOT_NUMBERS, False),
    ("complex numbers", [[0.5 + 1j, 0.5]], [0.5 + 1j, 0.5], NOT_NUMBERS, False),
]


def refused(what):
    """The exception a bad input raises: a ValueError; what is not numbers may be scikit-learn's TypeError (its
    estimator checks ask for one for an object that is no number)."""
    return (ValueError, TypeError) if what in ("text", "complex numbers") else ValueError


def call(model, method, X):
    """``model.method(X)``, with a trace array of the right length where the method writes into one."""
    if method == "learn_traced_into":
        n = len(X) if np.ndim(X) >= 1 else 1
        return model.learn_traced_into(X, np.zeros((max(n, 1), len(model.trace_columns))))
    return getattr(model, method)(X)


def state(model):
    """Everything a model holds: its attributes, with the state's arrays copied."""
    out = {}
    for key, value in vars(model).items():
        if key == "network_":
            out[key] = {k: np.array(v, copy=True) for k, v in value.to_arrays().items()}
        elif key != "_cache":
            out[key] = np.array(value, copy=True) if isinstance(value, np.ndarray) else value
    return out


def assert_same_state(a, b):
    assert a.keys() == b.keys(), sorted(set(a) ^ set(b))
    for key in a:
        if key == "network_":
            for k in a[key]:
                np.testing.assert_array_equal(a[key][k], b[key][k], err_msg=k)
        elif isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        else:
            assert a[key] == b[key], key


@pytest.fixture(scope="module")
def fitted():
    """A model of each algorithm that has learned 80 samples of 2 features in [0, 1]."""
    X = np.random.default_rng(3).random((80, D))
    return {name: ALGORITHMS[name].make(**ALGORITHMS[name].small).fit(X) for name in NAMES}


def test_the_methods_are_found():
    """The discovery finds the shell's methods and each algorithm's own."""
    for name in NAMES:
        found = sample_methods(ALGORITHMS[name].estimator_class)
        assert {"fit", "partial_fit", "predict", "nearest_nodes", "learn_one", "learn_many", "learn_traced"} <= set(
            found
        )
        assert found["learn_one"] and not found["predict"]
    assert "acceptance" in sample_methods(ALGORITHMS["Fuzzy ART"].estimator_class)
    assert "memberships" in sample_methods(ALGORITHMS["AutoCloud"].estimator_class)
    assert {"winner_search_counts", "compile_parallel_labelling"} <= set(
        sample_methods(ALGORITHMS["CAE"].estimator_class)
    )


CASES = [(name, method) for name in NAMES for method in sample_methods(ALGORITHMS[name].estimator_class)]


@pytest.mark.parametrize(("name", "method"), CASES, ids=[f"{n}-{m}" for n, m in CASES])
def test_a_fitted_model_refuses_bad_samples_and_keeps_its_state(fitted, name, method):
    one = sample_methods(ALGORITHMS[name].estimator_class)[method]
    model = fitted[name].snapshot()
    model.labels_ = fitted[name].labels_
    before = state(model)
    for what, batch, single, words, width in BAD:
        if width and method in RESETTING:
            continue  # fit starts over: any number of features is fine
        with pytest.raises(refused(what), match=words) as err:
            call(model, method, single if one else batch)
        assert len(str(err.value)) > 20, f"{what}: {err.value!r} says too little"
        assert_same_state(before, state(model))
    # and the same method takes a good sample
    good = np.full(D, 0.25) if one else np.full((3, D), 0.25)
    call(model, method, good)


LEARNING_CASES = [(n, m) for n, m in CASES if m in LEARNING]


@pytest.mark.parametrize(("name", "method"), LEARNING_CASES, ids=[f"{n}-{m}" for n, m in LEARNING_CASES])
def test_a_fresh_model_refuses_bad_samples_and_stays_unfitted(name, method):
    one = sample_methods(ALGORITHMS[name].estimator_class)[method]
    model = ALGORITHMS[name].make(**ALGORITHMS[name].small)
    before = dict(vars(model))
    for what, batch, single, words, width in BAD:
        if width:
            continue  # before it has learned, a model takes any number of features
        with pytest.raises(refused(what), match=words):
            call(model, method, single if one else batch)
        assert vars(model) == before, f"{what}: {sorted(set(vars(model)) - set(before))} were set"
    call(model, method, [0.5, 0.5, 0.5] if one else [[0.5, 0.5, 0.5]])  # its width is still free
    assert model.n_features_in_ == 3


@pytest.mark.parametrize("name", NAMES)
def test_methods_that_need_a_fitted_model_say_so(name):
    model = ALGORITHMS[name].make()
    for method, one in sample_methods(type(model)).items():
        if method not in LEARNING:
            with pytest.raises(ValueError, match="not fitted"):
                call(model, method, [0.5, 0.5] if one else [[0.5, 0.5]])


def test_the_message_names_where_the_bad_value_is(fitted):
    with pytest.raises(ValueError, match=re.escape("(first at row 1, feature 0)")):
        fitted["CAE"].nearest_nodes([[0.5, 0.5], [NAN, 0.5]])


@pytest.mark.skipif(os.environ.get("CAE_JIT") == "off", reason="this is the un-jitted run")
def test_the_same_checks_hold_unjitted():
    """This module once more in a fresh interpreter with ``CAE_JIT=off`` (the kernels as plain Python)."""
    env = dict(os.environ, CAE_JIT="off")
    run = pytest_run(__file__, "-q", "-k", "not unjitted", env=env)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", run.stdout).group(1))
    assert passed == len(CASES) + len(LEARNING_CASES) + len(NAMES) + 3, run.stdout[-1000:]


def test_the_kernels_run_as_asked():
    """Compiled in the suite (the session waits for the compilation), plain Python with ``CAE_JIT=off``."""
    if os.environ.get("CAE_JIT") == "off":
        assert not _jit.compiled()
    elif _jit.status() == "compiled":
        assert _jit.compiled()

"""Parameter ranges are declared once (each estimator's ``_parameter_ranges``): the estimators' validation
and the registry's widgets both read them, so a widget can never offer a value the estimator refuses."""

import math

import numpy as np
import pytest

from cae import ASOINN, CAE, TCA, AutoCloud, SOINNPlus
from cae._params import Choice, Interval
from cae.app.lesson_links import CAEA_SLIDERS, parse_playground
from cae.registry import ALGORITHMS

ESTIMATORS = [CAE, SOINNPlus, ASOINN, TCA, AutoCloud]
WIDGETS = [(name, p) for name, a in ALGORITHMS.items() for p in a.params]


def _valid(cls, **params):
    try:
        cls(**params)._check_params()
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_constructor_argument_is_declared(cls):
    assert set(cls._parameter_ranges) == set(cls().get_params())


@pytest.mark.parametrize(("algo", "p"), WIDGETS, ids=[f"{a}.{p.name}" for a, p in WIDGETS])
def test_widget_ranges_lie_within_the_valid_ranges(algo, p):
    cls = ALGORITHMS[algo].estimator_class
    valid = cls._parameter_ranges[p.name]
    assert p.valid is valid and p.kind == valid.kind
    assert p.low <= p.default <= p.high and math.isfinite(p.high)
    for v in (p.low, p.high, p.default, *(p.slider or ())[:2]):
        assert v in valid, (p.name, v)
        assert _valid(cls, **{**ALGORITHMS[algo].fixed, p.name: v})
    if p.slider:
        lo, hi, step = p.slider
        assert p.low <= lo < hi <= p.high and (hi - lo) % step == 0
    # where the widget does not say otherwise, its bounds ARE the declaration
    if p.widget_low is None:
        assert p.low == valid.low and not valid.low_open
    if p.widget_high is None:
        assert p.high == valid.high


def _just_outside(valid, bound, direction):
    if valid.kind == "int":
        return bound + direction
    return float(np.nextafter(bound, direction * math.inf))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_validation_rejects_just_outside_the_declared_bounds(cls):
    for name, valid in cls._parameter_ranges.items():
        if isinstance(valid, Choice):  # named options: each is valid, anything else is not
            assert all(_valid(cls, **{name: v}) for v in valid.values)
            for bad in (None, True, 1, valid.values[0].upper(), [valid.values[0]]):
                assert not _valid(cls, **{name: bad}), (name, bad)
            continue
        closed_low = not valid.low_open
        assert _valid(cls, **{name: valid.low}) == closed_low
        assert not _valid(cls, **{name: _just_outside(valid, valid.low, -1)})
        inside = valid.low + (1 if valid.kind == "int" else 1e-9) if valid.low_open else valid.low
        assert _valid(cls, **{name: inside})
        if math.isfinite(valid.high):
            assert _valid(cls, **{name: valid.high})
            assert not _valid(cls, **{name: _just_outside(valid, valid.high, +1)})
        for bad in (math.inf, math.nan, True, np.True_, "10", [valid.low]):
            assert not _valid(cls, **{name: bad}), (name, bad)
        assert _valid(cls, **{name: None}) == valid.none


def test_the_widgets_offer_the_lowest_valid_value():
    """A registry widget starts where validity starts (one below is refused by the estimator)."""
    for algo, p in WIDGETS:
        cls = ALGORITHMS[algo].estimator_class
        if p.widget_low is None:
            assert not _valid(cls, **{p.name: _just_outside(p.valid, p.low, -1)}), (algo, p.name)


def test_messages_name_the_argument_and_the_paper_symbol():
    X = np.zeros((5, 2))
    cases = [
        (CAE(deletion_interval=3), "deletion_interval (λ) must be an integer >= 4 or None, got 3"),
        (CAE(max_edge_age=0.5), "max_edge_age (a_max) must be a finite number >= 1 or None, got 0.5"),
        (ASOINN(deletion_interval=2.5), "deletion_interval (λ) must be an integer >= 1, got 2.5"),
        (ASOINN(max_edge_age=-1), "max_edge_age (a_max) must be a finite number >= 0, got -1"),
        (TCA(reconstruction_interval=0), "reconstruction_interval (λ) must be an integer >= 1, got 0"),
        (TCA(sigma_init=0.0), "sigma_init (σ_init) must be a finite number > 0, got 0.0"),
        (AutoCloud(m="1"), "m must be a finite number > 0, got '1'"),
    ]
    for model, message in cases:
        with pytest.raises(ValueError) as err:
            model.fit(X)
        assert str(err.value) == message


def test_the_playground_sliders_and_lesson_links_use_the_registry():
    lam_lo, lam_hi, lam_step = CAEA_SLIDERS["deletion_interval"]
    amax_lo, amax_hi, _ = CAEA_SLIDERS["max_edge_age"]
    assert CAEA_SLIDERS["deletion_interval"] == ALGORITHMS["CAEA"].param("deletion_interval").slider
    state, notices = parse_playground({"lam": str(lam_hi + 100), "amax": str(amax_lo - 1)}, ["paper2d-ns"])
    assert (state["cfg"]["lam"], state["cfg"]["amax"]) == (lam_hi, amax_lo) and len(notices) == 2
    state, _ = parse_playground({"lam": str(lam_lo + lam_step + 1)}, ["paper2d-ns"])
    assert (state["cfg"]["lam"] - lam_lo) % lam_step == 0


def test_interval_reads_like_its_declaration():
    lam = Interval("int", 4, none=True, symbol="λ")
    values = (4, 4.0, np.int64(7), 3, 4.5, None, False, np.nan, "4")
    assert [v in lam for v in values] == [True, True, True, False, False, True, False, False, False]
    bounded = Interval("float", 0, 1, low_open=True)
    assert [v in bounded for v in (0, 1e-300, 1, 1.0000001, np.float32(0.5))] == [False, True, True, False, True]
    assert bounded.describe() == "a finite number > 0 and <= 1"
    with pytest.raises(KeyError):
        ALGORITHMS["TCA"].param("lambda")

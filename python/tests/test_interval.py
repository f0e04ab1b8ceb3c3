import dataclasses
import pickle

import pytest

import fdp


def test_fields_width_and_unpacking():
    i = fdp.Interval(1.0, 1.5)
    assert (i.lower, i.upper, i.width) == (1.0, 1.5, 0.5)
    lo, hi = i
    assert (lo, hi) == (1.0, 1.5)
    assert 1.2 in i and 2.0 not in i


def test_immutable():
    i = fdp.Interval(1.0, 2.0)
    with pytest.raises(AttributeError):
        i.lower = 0.0  # type: ignore[misc]


def test_repr_round_trips():
    i = fdp.Interval(0.1, 0.30000000000000004)
    assert repr(i) == "Interval(lower=0.1, upper=0.30000000000000004)"
    assert eval(repr(i), {"Interval": fdp.Interval}) == i
    assert pickle.loads(pickle.dumps(i)) == i


def test_answers_are_intervals():
    c = fdp.compose(["gdp:mu=1"])
    assert isinstance(c.epsilon(1e-5), fdp.Interval)
    assert isinstance(c.mu(), fdp.Interval)
    r = fdp.dpsgd(sigma=1.0, q=0.01, steps=10)
    assert isinstance(r.epsilon, fdp.Interval)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.route = "x"  # type: ignore[misc]

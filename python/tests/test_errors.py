"""Bad input: a Python exception naming the parameter, never a crash or a NaN."""

import math

import numpy as np
import pytest

import fdp

C = fdp.compose(["laplace:b=10,times=100"])


@pytest.mark.parametrize("spec,match", [
    ("laplace:b=-1", "b = -1 must be > 0"),
    ("gaussian:sigma=nan", "sigma"),
    ("subsampled-gaussian:sigma=1,q=2", "q = 2 must be in"),
    ("laplace:c=1", "c"),
    ("laplace:b=1,times=0", "times"),
    ("nosuchkind", "nosuchkind"),
    ("", ""),
])
def test_bad_specs_raise_value_error_with_fdps_message(spec, match):
    with pytest.raises(ValueError, match=match) as e:
        fdp.compose([spec])
    assert "\n" not in str(e.value)  # fdp's one-line message


def test_bad_queries():
    for bad in (float("nan"), -0.1, 1.5, math.inf):
        with pytest.raises(ValueError, match="delta"):
            C.epsilon(bad)
        with pytest.raises(ValueError, match="alpha"):
            C.beta(bad)
    with pytest.raises(ValueError, match="eps"):
        C.delta(float("nan"))
    with pytest.raises(ValueError, match="alphas"):
        C.curve(np.array([0.1, np.nan]))
    with pytest.raises(TypeError, match="alpha"):
        C.beta(np.array(["0.1"]))
    with pytest.raises(TypeError, match="alphas"):
        C.curve([0.1j])
    with pytest.raises(TypeError, match="delta"):
        C.epsilon(None)


def test_bad_arguments_of_compose():
    with pytest.raises(ValueError, match="at least one"):
        fdp.compose([])
    with pytest.raises(TypeError, match="spec"):
        fdp.compose([1.5])
    with pytest.raises(ValueError, match="tolerance"):
        fdp.compose(["gdp:mu=1"], tolerance=0)
    with pytest.raises(ValueError, match="method"):
        fdp.compose(["gdp:mu=1"], method="magic")


def test_edge_values_are_answers_not_nans():
    assert C.beta(0.0).upper == 1.0 and C.beta(1.0).lower == 0.0
    e = fdp.compose(["epsdelta:eps=1,delta=0.01"]).epsilon(0.001)
    assert math.isinf(e.lower) and math.isinf(e.upper)
    assert not any(math.isnan(x) for x in C.delta(-math.inf) + C.delta(math.inf))


def test_calibrate_and_dpsgd_reject_bad_input():
    with pytest.raises(ValueError):
        fdp.calibrate("subsampled-gaussian:q=0.01,times=100", "sigma", -1.0, 1e-5)
    with pytest.raises(ValueError, match="sigma"):
        fdp.calibrate("gaussian:sigma=1", "sigma", 1.0, 1e-5)
    with pytest.raises(ValueError, match="sampling"):
        fdp.dpsgd(sigma=1.0, q=0.01, steps=10, sampling="uniform")
    with pytest.raises(ValueError, match="sigma"):
        fdp.dpsgd(sigma=-1.0, q=0.01, steps=10)
    with pytest.raises(TypeError, match="steps"):
        fdp.dpsgd(sigma=1.0, q=0.01, steps=1.5)

"""fdp.gdp against the mpmath golden tables and its own array/scalar forms."""

import math

import numpy as np
import pytest

import fdp
from conftest import golden_rows

EPS = 2.220446049250313e-16


def _rel(a, b):
    return abs(a - b) / abs(b) if b != 0 else abs(a)


def test_delta_matches_golden():
    n = 0
    for r in golden_rows("gdp_golden.csv"):
        truth = float(r["delta"])
        if truth < 1e-300:
            continue
        got = fdp.gdp.delta(float(r["mu"]), float(r["eps"]))
        assert _rel(got, truth) < 1e-12, r
        n += 1
    assert n > 100


@pytest.mark.parametrize("table,args,out", [
    ("gdp_eps_golden.csv", ("mu", "delta"), "eps"),
    ("gdp_mu_golden.csv", ("eps", "delta"), "mu"),
])
def test_inverses_match_golden(table, args, out):
    fn = getattr(fdp.gdp, out)
    rows = golden_rows(table)
    for r in rows:
        truth = float(r[out])
        got = fn(float(r[args[0]]), float(r[args[1]]))
        if math.isinf(truth):
            assert math.isinf(got)
            continue
        # numerics.md: 1e-11 relative, or 8 cond ulps where ill-conditioned
        tol = max(1e-11, 8 * float(r["cond"]) * EPS)
        assert _rel(got, truth) <= tol or abs(got - truth) < 1e-300, r
    assert len(rows) > 100


def test_arrays_equal_scalars_and_broadcast():
    mu = np.array([0.5, 1.0, 2.0])
    eps = np.array([[0.0], [1.0]])
    d = fdp.gdp.delta(mu, eps)
    assert d.shape == (2, 3) and d.dtype == np.float64
    for i in range(2):
        for j in range(3):
            assert d[i, j] == fdp.gdp.delta(float(mu[j]), float(eps[i, 0]))
    assert fdp.gdp.eps([1.0, 2.0], 1e-5).tolist() == [fdp.gdp.eps(1.0, 1e-5),
                                                       fdp.gdp.eps(2.0, 1e-5)]
    assert isinstance(fdp.gdp.mu(1.0, 1e-5), float)
    assert fdp.gdp.eps(np.float32(1.0), 1e-5) == fdp.gdp.eps(1.0, 1e-5)
    assert fdp.gdp.eps(np.arange(3), 0.5).shape == (3,)  # integer arrays are real


def test_round_trip_eps_mu():
    mu = fdp.gdp.mu(1.0, 1e-5)
    assert abs(fdp.gdp.delta(mu, 1.0) - 1e-5) < 1e-16
    assert abs(fdp.gdp.eps(mu, 1e-5) - 1.0) < 1e-10


def test_G_is_the_gaussian_tradeoff_and_matches_compose():
    g = fdp.gdp.G(1.0)
    assert g(0.0) == 1.0 and g(1.0) == 0.0
    # G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu); at alpha = 1/2: Phi(-mu)
    assert abs(g(0.5) - 0.5 * math.erfc(1.0 / math.sqrt(2))) < 1e-15
    alphas = np.linspace(0, 1, 101)
    band = fdp.compose(["gdp:mu=1"]).curve(alphas)
    v = g(alphas)
    assert np.all(band.lower <= v) and np.all(v <= band.upper)


def test_closed_forms_reject_bad_input():
    with pytest.raises(ValueError, match="mu"):
        fdp.gdp.eps(-1.0, 1e-5)
    with pytest.raises(ValueError, match="delta"):
        fdp.gdp.eps(1.0, 2.0)
    with pytest.raises(ValueError, match="mu"):
        fdp.gdp.eps(float("nan"), 1e-5)
    with pytest.raises(ValueError, match="eps"):
        fdp.gdp.delta(1.0, float("nan"))
    with pytest.raises(ValueError, match="delta"):
        fdp.gdp.mu(1.0, [0.5, -0.1])
    with pytest.raises(ValueError, match="mu"):
        fdp.gdp.G(-1.0)
    with pytest.raises(ValueError, match="alpha"):
        fdp.gdp.G(1.0)(1.5)
    with pytest.raises(TypeError, match="mu"):
        fdp.gdp.eps(np.array(["a"]), 1e-5)
    with pytest.raises(TypeError, match="delta"):
        fdp.gdp.eps(1.0, np.array([1e-5 + 0j]))
    with pytest.raises(ValueError, match="broadcast"):
        fdp.gdp.delta([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError):
        fdp.gdp.G("1")

"""fdp.compose: the CLI's digits, the golden truths, arrays, mechanism objects."""

import math
import time

import numpy as np
import pytest

import fdp
from conftest import answers, golden_rows

DPSGD = "subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062"
CASES = [
    [DPSGD],
    ["gaussian:sigma=2,times=50", "laplace:b=5,times=50",
     "subsampled-gaussian:sigma=1,q=0.01,times=50"],
    ["laplace:b=10,times=100"],
    ["epsdelta:eps=0.1,delta=1e-6,times=100"],
    ["gdp:mu=1"],
    ["randomized-response:eps=1,k=4,times=20", "discrete-laplace:t=2,sensitivity=3"],
    ["subsampled-laplace:b=2,q=0.02,times=1000"],
]


def _same(ans, js):
    # (fdp's JSON writes an infinite end as null)
    want = tuple(math.inf if js[k] is None else js[k] for k in ("lower", "upper"))
    assert (ans.lower, ans.upper) == want


@pytest.mark.parametrize("specs", CASES)
def test_same_digits_as_the_cli(cli, specs):
    c = fdp.compose(specs)
    for d in (1e-5, 1e-3, 1e-9):
        _same(c.epsilon(d), answers(cli("compose", *specs, "--delta", repr(d)), "epsilon")[0])
    for e in (0.5, 2.0, 6.0):
        _same(c.delta(e), answers(cli("compose", *specs, "--eps", repr(e)), "delta")[0])
    out = cli("compose", *specs, "--alpha", "0.01", "--alpha", "0.3", "--mu")
    _same(c.beta(0.01), answers(out, "beta")[0])
    _same(c.beta(0.3), answers(out, "beta")[1])
    _same(c.mu(), out["mu"])
    assert c.method == out["method"]


def test_closed_form_truths():
    # G_a (x) G_b = G_sqrt(a^2 + b^2): epsilon and delta brackets contain the closed form
    c = fdp.compose(["gdp:mu=0.6", "gaussian:sigma=1.25"])
    mu = math.hypot(0.6, 0.8)
    assert c.is_exact
    assert c.epsilon(1e-5).lower <= fdp.gdp.eps(mu, 1e-5) <= c.epsilon(1e-5).upper + 1e-12
    d = fdp.gdp.delta(mu, 1.5)
    assert c.delta(1.5).lower <= d * (1 + 1e-12) and d <= c.delta(1.5).upper * (1 + 1e-12)
    assert c.mu().lower <= mu * (1 + 1e-15) and mu <= c.mu().upper * (1 + 1e-15)


def test_golden_compositions_are_bracketed():
    """tests/golden/compose_golden.csv (mpmath): every bracket contains the truth."""
    groups = {}
    for r in golden_rows("compose_golden.csv"):
        groups.setdefault(r["specs"], []).append(r)
    t0, n = time.perf_counter(), 0
    for specs, rows in sorted(groups.items()):
        c = fdp.compose([s.replace(";", ",") for s in specs.split()])
        for r in rows:
            x, v = float(r["x"]), float(r["value"])
            q = {"eps": c.epsilon, "delta": c.delta, "beta": c.beta}.get(r["query"])
            b = q(x) if q else c.mu()
            rel = 1e-9 if r["query"] == "mu" else 1e-12  # as compose_soundness_test.cpp
            slack = rel * abs(v) + 1e-300 if math.isfinite(v) else 0
            assert b.lower <= v + slack and v - slack <= b.upper, (specs, r, b)
            n += 1
    assert n > 1000
    assert time.perf_counter() - t0 < 30


def test_arrays_equal_scalar_answers():
    c = fdp.compose(CASES[1])
    deltas = np.array([1e-3, 1e-5, 1e-7])
    band = c.epsilon(deltas)
    assert isinstance(band, fdp.Band) and band.lower.shape == (3,)
    # an array is answered on one grid tuned for its smallest delta: brackets
    # may differ from one-at-a-time answers but must overlap them
    for d, lo, hi in zip(deltas, band.lower, band.upper):
        s = c.epsilon(float(d))
        assert lo <= s.upper and s.lower <= hi
    alphas = np.linspace(0, 1, 1001)
    curve = c.curve(alphas)
    # the vectorized sweep (composition::beta on a vector) gives exactly the
    # one-at-a-time brackets, in increasing order and in any other
    one = np.array([tuple(c.beta(float(x))) for x in alphas])
    assert np.array_equal(curve.lower, one[:, 0]) and np.array_equal(curve.upper, one[:, 1])
    perm = np.random.default_rng(1).permutation(alphas.size)
    shuffled = c.curve(alphas[perm])
    assert np.array_equal(shuffled.lower, one[perm, 0])
    assert np.array_equal(shuffled.upper, one[perm, 1])
    assert np.all(curve.lower <= curve.upper)
    assert np.all(np.diff(curve.upper) <= 1e-12)  # a trade-off function is non-increasing
    grid = c.beta(alphas.reshape(7, 143))
    assert grid.lower.shape == (7, 143)
    eps = np.array([0.5, 2.0])
    db = c.delta(eps)
    assert np.all(db.lower <= db.upper)


def test_mechanism_objects_are_their_specs():
    m = fdp.mechanisms
    objs = [m.SubsampledGaussian(sigma=1.1, q=0.01, times=100), m.Laplace(b=5, times=3),
            m.Gaussian(sigma=2.0), m.EpsDelta(eps=0.5, delta=1e-7),
            m.RandomizedResponse(eps=1.0, k=4), m.GDP(mu=0.5, times=2),
            m.SubsampledLaplace(b=2.0, q=0.02)]
    assert objs[0].spec == "subsampled-gaussian:sigma=1.1,q=0.01,sensitivity=1.0,times=100"
    by_obj = fdp.compose(objs).epsilon(1e-5)
    by_text = fdp.compose([o.spec for o in objs]).epsilon(1e-5)
    assert by_obj == by_text
    for o in objs:
        fdp.parse_spec(o.spec)  # every generated spec is valid


def test_parse_spec():
    name, params, times = fdp.parse_spec("laplace:b=10,times=100")
    assert (name, params, times) == ("laplace", {"b": "10"}, 100)
    with pytest.raises(ValueError, match="unknown"):
        fdp.parse_spec("nosuch:x=1")

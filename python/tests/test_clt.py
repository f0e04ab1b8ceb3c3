"""fdp.clt and fdp.edgeworth: fdp clt's digits, labelled approximations."""

import math
import numpy as np

import pytest

import fdp

SPECS = ["laplace:eps=0.1,times=400", "gaussian:sigma=20,times=100"]
ALPHAS = [0.05, 0.2, 0.5]


def test_clt_matches_cli(cli):
    c = fdp.clt(SPECS)
    assert c.is_bound is False and c.applicable
    alphas = [x for a in ALPHAS for x in ("--alpha", str(a))]
    j = cli("clt", *SPECS, *alphas, "--edgeworth")
    assert c.mu == j["mu"] and c.gamma == j["gamma"]
    for a, row in zip(ALPHAS, j["band"]):
        b = c.band(a)
        if row["beta"] is None:
            assert b is None
        else:
            assert b == fdp.Interval(row["beta"]["lower"], row["beta"]["upper"])
        assert c.beta(a) == row["estimate"]
    ew = fdp.edgeworth(SPECS, np.array(ALPHAS))
    assert list(ew) == [row["beta"] for row in j["edgeworth"]]


def test_band_contains_the_certified_curve():
    c = fdp.clt(SPECS)
    comp = fdp.compose(SPECS)
    for a in (0.1, 0.3, 0.6):
        b, cert = c.band(a), comp.beta(a)
        assert b is not None and b.lower <= cert.upper and cert.lower <= b.upper


def test_subsampled_mu_is_bu_et_al_and_not_applicable_is_said(cli):
    # asymmetric: no Berry-Esseen band, but mu by the one CLT rule of fdp clt
    # and dpsgd: Bu et al.'s q sqrt(T (e^{1/sigma^2} - 1))
    c = fdp.clt("subsampled-gaussian:sigma=1,q=0.01,times=100")
    j = cli("clt", "subsampled-gaussian:sigma=1,q=0.01,times=100")
    assert c.applicable and "not symmetric" in c.reason and c.mu == j["mu"]
    assert abs(c.mu - 0.01 * math.sqrt(100 * math.expm1(1.0))) < 1e-12
    assert c.gamma is None and c.band(0.5) is None
    assert c.beta(0.5) == fdp.gdp.G(c.mu)(0.5)
    c = fdp.clt("epsdelta:eps=1,delta=1e-6")  # infinite functionals: no CLT at all
    assert not c.applicable and c.mu is None
    with pytest.raises(ValueError, match="not applicable"):
        c.beta(0.5)


def test_not_applicable_and_bad_input():
    with pytest.raises(ValueError, match="alpha"):
        fdp.edgeworth(SPECS, [0.0, 0.5])
    with pytest.raises(ValueError, match="alpha"):
        fdp.clt(SPECS).band(1.5)
    with pytest.raises(ValueError, match="no Edgeworth cumulants"):
        fdp.edgeworth(["epsdelta:eps=1,delta=1e-6"], [0.5])
    with pytest.raises(ValueError, match="alphas"):
        fdp.edgeworth(SPECS, ["a"])

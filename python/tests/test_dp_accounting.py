"""fdp.dp_accounting: dp_accounting's call sequences, certified answers."""

import math

import pytest

import fdp
from fdp import dp_accounting
from conftest import answers
from fdp.dp_accounting import (ComposedDpEvent, EpsilonDeltaDpEvent, GaussianDpEvent,
                               LaplaceDpEvent, NeighboringRelation, NonPrivateDpEvent,
                               NoOpDpEvent, PoissonSampledDpEvent, RandomizedResponseDpEvent,
                               SampledWithoutReplacementDpEvent, SelfComposedDpEvent,
                               UnsupportedDpEvent, UnsupportedEventError)

Q = 0.0042666666666666667


def dpsgd_epsilon(noise_multiplier, steps, batch_size, n, delta):
    # dp_accounting's documented DP-SGD sequence, with only the import changed
    q = batch_size / n
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(noise_multiplier)),
        steps)
    accountant = dp_accounting.pld.PLDAccountant()
    accountant.compose(event)
    return accountant.get_epsilon(delta)


def test_dpsgd_sequence_is_the_certified_upper_end(cli):
    eps = dpsgd_epsilon(1.1, 14062, 256, 60000, 1e-5)
    spec = f"subsampled-gaussian:sigma=1.1,q={256 / 60000!r},times=14062"
    want = answers(cli("compose", spec, "--delta", "1e-05"), "epsilon")[0]
    assert eps == want["upper"]
    assert 2.38 < eps < 2.384  # README: [2.380297256, 2.38368497]


def test_interval_beside_the_float_and_delta(cli):
    acc = dp_accounting.PLDAccountant()
    assert acc.compose(LaplaceDpEvent(10.0), count=100) is acc  # chainable
    i = acc.epsilon_interval(1e-6)
    assert isinstance(i, fdp.Interval) and acc.get_epsilon(1e-6) == i.upper
    out = answers(cli("compose", "laplace:b=10.0,times=100", "--eps", "3.0"), "delta")[0]
    assert acc.get_delta(3.0) == out["upper"]
    assert acc.delta_interval(3.0) == (out["lower"], out["upper"])


def test_count_self_composition_and_composition_agree():
    a = dp_accounting.PLDAccountant().compose(GaussianDpEvent(3.0), count=10)
    b = dp_accounting.PLDAccountant().compose(SelfComposedDpEvent(GaussianDpEvent(3.0), 10))
    c = dp_accounting.PLDAccountant()
    for _ in range(10):
        c.compose(GaussianDpEvent(3.0))
    d = dp_accounting.PLDAccountant().compose(ComposedDpEvent([GaussianDpEvent(3.0)] * 10))
    eps = {x.get_epsilon(1e-5) for x in (a, b, c, d)}
    assert len(eps) == 1
    # 10 Gaussians with sigma 3 are G_{sqrt(10)/3}: the closed form
    truth = fdp.gdp.eps(math.sqrt(10) / 3, 1e-5)
    assert a.epsilon_interval(1e-5).lower <= truth <= a.get_epsilon(1e-5) + 1e-12


def test_noop_nonprivate_and_empty():
    acc = dp_accounting.PLDAccountant()
    # (nothing composed: the identity; its delta bracket is rounded outward to 1 subnormal)
    assert acc.get_epsilon(1e-5) == 0.0 and acc.get_delta(0.0) <= 5e-324
    acc.compose(NoOpDpEvent())
    assert acc.get_epsilon(1e-5) == 0.0
    acc.compose(NonPrivateDpEvent())
    assert acc.get_epsilon(1e-5) == math.inf and acc.get_delta(100.0) == 1
    acc2 = dp_accounting.PLDAccountant().compose(GaussianDpEvent(0.0))
    assert acc2.get_epsilon(0.5) == math.inf
    acc3 = dp_accounting.PLDAccountant().compose(NonPrivateDpEvent(), count=0)
    assert acc3.get_epsilon(1e-5) == 0.0


def test_epsilon_delta_event_is_exact():
    acc = dp_accounting.PLDAccountant().compose(EpsilonDeltaDpEvent(0.5, 1e-6), count=2)
    # two (0.5, 1e-6) mechanisms: delta(eps=1) = 1 - (1 - 1e-6)^2 exactly (KOV)
    d = acc.delta_interval(1.0)
    truth = 1 - (1 - 1e-6) ** 2
    assert d.lower <= truth * (1 + 1e-12) and truth <= d.upper * (1 + 1e-12)


def test_randomized_response_under_replace_one():
    acc = dp_accounting.PLDAccountant(NeighboringRelation.REPLACE_ONE)
    acc.compose(RandomizedResponseDpEvent(noise_parameter=0.5, num_buckets=4))
    # P(true) = 1 - p + p/k = 0.625, P(other) = 0.125: pure eps = log 5
    e = acc.epsilon_interval(0.0)
    assert e.lower <= math.log(5) * (1 + 1e-13) and math.log(5) <= e.upper
    assert e.upper - math.log(5) < 1e-12
    assert acc.compose(RandomizedResponseDpEvent(0.3, 1)).get_epsilon(0.0) == e.upper
    with pytest.raises(UnsupportedEventError, match="REPLACE_ONE"):
        dp_accounting.PLDAccountant().compose(RandomizedResponseDpEvent(0.5, 4))


def test_replace_relations_follow_dp_accounting():
    # A GaussianDpEvent under REPLACE_ONE moves the sum by twice a record's
    # bound: G_{2/sigma} (closed form), as dp_accounting accounts it.
    g = dp_accounting.PLDAccountant(NeighboringRelation.REPLACE_ONE).compose(GaussianDpEvent(2.0))
    assert g.specs() == ["gaussian:sigma=2,sensitivity=2"]
    # Poisson-sampled Gaussian: the mirrored pair under REPLACE_ONE, the
    # add/remove pair under REPLACE_SPECIAL. dp_accounting 0.6.0 (PLDAccountant,
    # default discretization, SelfComposedDpEvent(PoissonSampledDpEvent(0.01,
    # GaussianDpEvent(1.1)), 1000), get_epsilon(1e-5)) prints upper bounds
    # 2.4778047140436223 (REPLACE_ONE) and 1.5153702489167324 (REPLACE_SPECIAL):
    # fdp's bracket must reach them from below (they are valid upper bounds).
    for rel, theirs in ((NeighboringRelation.REPLACE_ONE, 2.4778047140436223),
                        (NeighboringRelation.REPLACE_SPECIAL, 1.5153702489167324)):
        acc = dp_accounting.PLDAccountant(rel)
        acc.compose(SelfComposedDpEvent(PoissonSampledDpEvent(0.01, GaussianDpEvent(1.1)), 1000))
        e = acc.epsilon_interval(1e-5)
        assert e.lower <= theirs <= e.upper * (1 + 3e-3), (rel, e, theirs)


def test_unsupported_events_raise_and_add_nothing():
    acc = dp_accounting.PLDAccountant().compose(GaussianDpEvent(2.0))
    before = acc.get_epsilon(1e-5)
    bad = [
        UnsupportedDpEvent(),
        SampledWithoutReplacementDpEvent(1000, 10, LaplaceDpEvent(1.0)),
        PoissonSampledDpEvent(0.1, EpsilonDeltaDpEvent(1.0, 0.0)),
        ComposedDpEvent([GaussianDpEvent(1.0), UnsupportedDpEvent()]),
    ]
    for e in bad:
        assert not acc.supports(e)
        with pytest.raises(UnsupportedEventError):
            acc.compose(e)
    assert acc.get_epsilon(1e-5) == before
    rr = dp_accounting.PLDAccountant(NeighboringRelation.REPLACE_ONE)
    with pytest.raises(UnsupportedEventError, match="REPLACE_ONE"):
        rr.compose(PoissonSampledDpEvent(0.1, LaplaceDpEvent(1.0)))
    with pytest.raises(UnsupportedEventError, match="LaplaceDpEvent"):
        rr.compose(LaplaceDpEvent(1.0))
    with pytest.raises(TypeError):
        acc.compose("gaussian:sigma=1")


def test_bad_fields_raise_value_error():
    acc = dp_accounting.PLDAccountant()
    for e in (GaussianDpEvent(-1.0), GaussianDpEvent(float("nan")),
              PoissonSampledDpEvent(1.5, GaussianDpEvent(1.0)),
              EpsilonDeltaDpEvent(1.0, 2.0), LaplaceDpEvent("1")):
        with pytest.raises(ValueError):
            acc.compose(e)  # at compose time: nothing invalid enters the accountant
    assert acc.get_epsilon(1e-5) == 0.0
    rr = dp_accounting.PLDAccountant(NeighboringRelation.REPLACE_ONE)
    with pytest.raises(ValueError, match="eps"):  # p = 1e-310: epsilon beyond 700
        rr.compose(RandomizedResponseDpEvent(1e-310, 2))
    big = SelfComposedDpEvent(GaussianDpEvent(1.0), 10**12)
    acc.compose(big)
    with pytest.raises(UnsupportedEventError, match="at most"):
        acc.compose(GaussianDpEvent(1.0))
    assert acc.specs() == ["gaussian:sigma=1,times=1000000000000"]
    with pytest.raises(ValueError, match="count"):
        acc.compose(GaussianDpEvent(1.0), count=-1)


def test_ledger_and_specs():
    acc = dp_accounting.PLDAccountant()
    acc.compose(GaussianDpEvent(1.0), 3).compose(LaplaceDpEvent(2.0))
    assert acc.ledger == ComposedDpEvent([SelfComposedDpEvent(GaussianDpEvent(1.0), 3),
                                          LaplaceDpEvent(2.0)])
    assert acc.specs() == ["gaussian:sigma=1,times=3", "laplace:b=2"]
    assert dp_accounting.pld.PLDAccountant is dp_accounting.PLDAccountant

"""Event files from Python: events written as the CLI's --events documents,
read back equal, and accounted identically by the accountant and the CLI (one
translation, in the C++ library)."""

import json
import math

import pytest

from conftest import answers
from fdp import dp_accounting
from fdp.dp_accounting import (ComposedDpEvent, DiscreteGaussianDpEvent, DiscreteLaplaceDpEvent,
                               EpsilonDeltaDpEvent, GaussianDpEvent, LaplaceDpEvent,
                               MixtureOfGaussiansDpEvent, NeighboringRelation, NoOpDpEvent,
                               PoissonSampledDpEvent, RandomizedResponseDpEvent,
                               SelfComposedDpEvent, TruncatedSubsampledGaussianDpEvent,
                               UnsupportedEventError, ZCDpEvent, event_file)

RUN = ComposedDpEvent([
    SelfComposedDpEvent(PoissonSampledDpEvent(0.01, GaussianDpEvent(1.1)), 500),
    SelfComposedDpEvent(LaplaceDpEvent(20.0), 10),
    EpsilonDeltaDpEvent(0.1, 1e-7),
    ZCDpEvent(0.001),
    DiscreteLaplaceDpEvent(0.05, 2),
    DiscreteGaussianDpEvent(30.0, 1.0, 1),
    MixtureOfGaussiansDpEvent(4.0, [0.0, 1.0, 2.0], [0.9, 0.09, 0.01]),
    SelfComposedDpEvent(TruncatedSubsampledGaussianDpEvent(1000, 0.05, 60, 2.0), 20),
    NoOpDpEvent(),
])


def test_documents_round_trip(tmp_path):
    for rel in NeighboringRelation:
        path = tmp_path / f"{rel.name}.json"
        dp_accounting.write_event_file(str(path), RUN, rel)
        assert dp_accounting.read_event_file(str(path)) == (RUN, rel)
        assert event_file.from_document(json.loads(path.read_text())) == (RUN, rel)
    # a bare event is an ADD_OR_REMOVE_ONE document; floats read back exactly
    g = GaussianDpEvent(0.1 + 0.2)
    assert event_file.from_document(event_file.to_document(g)["event"]) == (
        g, NeighboringRelation.ADD_OR_REMOVE_ONE)


def test_the_cli_gives_the_accountants_digits(cli, tmp_path):
    for rel in (NeighboringRelation.ADD_OR_REMOVE_ONE, NeighboringRelation.REPLACE_SPECIAL):
        acc = dp_accounting.PLDAccountant(rel)
        acc.compose(RUN).compose(GaussianDpEvent(50.0), count=3)
        path = tmp_path / "ledger.json"
        path.write_text(json.dumps(acc.event_document()))
        out = cli("compose", "--events", str(path), "--delta", "1e-05")
        assert answers(out, "epsilon")[0]["upper"] == acc.get_epsilon(1e-5)
        at_eps = cli("compose", "--events", str(path), "--eps", "1.5")
        assert answers(at_eps, "delta")[0]["upper"] == acc.get_delta(1.5)
        # what the CLI says it assumed is the document's relation
        words = {s["neighbours"] for s in out["assumptions"]["specs"]}
        assert words == {"add-remove" if rel == NeighboringRelation.ADD_OR_REMOVE_ONE
                         else "zero-out"}


def test_replace_one_documents_are_refused_where_the_cli_refuses():
    acc = dp_accounting.PLDAccountant(NeighboringRelation.REPLACE_ONE)
    for e in (LaplaceDpEvent(1.0), DiscreteLaplaceDpEvent(1.0, 1),
              MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5])):
        with pytest.raises(UnsupportedEventError, match="not REPLACE_ONE"):
            acc.compose(e)
    acc.compose(RandomizedResponseDpEvent(0.5, 2))
    assert acc.specs()[0].startswith("randomized-response:eps=1.0986122886681")


def test_numpy_scalars_are_numbers():
    import numpy as np
    a = dp_accounting.PLDAccountant().compose(
        SelfComposedDpEvent(PoissonSampledDpEvent(np.float64(0.01), GaussianDpEvent(1.1)),
                            np.int64(100)))
    b = dp_accounting.PLDAccountant().compose(
        SelfComposedDpEvent(PoissonSampledDpEvent(0.01, GaussianDpEvent(1.1)), 100))
    assert a.specs() == b.specs() == ["subsampled-gaussian:sigma=1.1,q=0.01,times=100"]
    a.compose(GaussianDpEvent(50.0), count=np.int64(2))
    assert a.specs()[0] == "gaussian:sigma=50,times=2"
    with pytest.raises(ValueError, match="must be a real number"):
        event_file.to_document(GaussianDpEvent(np.bool_(True)))


def test_what_json_cannot_carry_is_a_value_error():
    with pytest.raises(ValueError, match=r"GaussianDpEvent.noise_multiplier = nan"):
        event_file.to_document(GaussianDpEvent(float("nan")))
    with pytest.raises(ValueError, match="must be a real number"):
        event_file.to_document(MixtureOfGaussiansDpEvent(1.0, [0.0, "1"], [0.5, 0.5]))
    # an (inf, delta) guarantee is no guarantee
    assert event_file.to_document(EpsilonDeltaDpEvent(math.inf, 0.0))["event"] == {
        "type": "NonPrivateDpEvent"}
    with pytest.raises(TypeError):
        event_file.to_document("gaussian:sigma=1")
    with pytest.raises(ValueError, match="neighbouring_relation"):
        event_file.from_document({"neighbouring_relation": "SWAP", "event": {"type": "NoOpDpEvent"}})
    with pytest.raises(ValueError, match=r"events\[0\]: unknown event type"):
        event_file.from_document({"type": "ComposedDpEvent", "events": [{"type": "Foo"}]})
    with pytest.raises(ValueError, match="no field"):
        event_file.from_document({"type": "GaussianDpEvent", "noise_multiplier": 1, "sigma": 2})


def test_discrete_events_and_zcdp():
    acc = dp_accounting.PLDAccountant()
    acc.compose(DiscreteLaplaceDpEvent(0.5, 2))
    # P(x) ~ e^{-0.5 |x|}, sensitivity 2: pure eps = 1 (t = 2 rounded down)
    e = acc.epsilon_interval(0.0)
    assert e.lower <= 1.0 + 1e-12 and 1.0 <= e.upper < 1.0 + 1e-9
    with pytest.raises(UnsupportedEventError, match="dimension must be 1"):
        acc.compose(DiscreteGaussianDpEvent(3.0))
    with pytest.raises(UnsupportedEventError, match="xi"):
        acc.compose(ZCDpEvent(0.1, 0.01))
    assert dp_accounting.PLDAccountant().compose(ZCDpEvent(0.5)).specs() == ["zcdp:rho=0.5"]

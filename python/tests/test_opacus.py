"""fdp.opacus: Opacus' accountant call sequence and a certified get_noise_multiplier."""

import math
import pickle

import pytest

import fdp
from fdp.opacus import FdpAccountant, get_noise_multiplier

from conftest import answers


def test_opacus_step_sequence(cli):
    # Opacus' documented use: one step() per optimizer step, then get_epsilon(delta)
    acc = FdpAccountant()
    for _ in range(500):
        acc.step(noise_multiplier=1.1, sample_rate=0.01)
    assert acc.history == [(1.1, 0.01, 500)] and len(acc) == 1
    want = cli("compose", "subsampled-gaussian:sigma=1.1,q=0.01,times=500", "--delta", "1e-05")
    assert acc.get_epsilon(delta=1e-5) == answers(want, "epsilon")[0]["upper"]
    assert acc.get_epsilon_interval(1e-5).upper == acc.get_epsilon(1e-5)
    acc.step(noise_multiplier=1.3, sample_rate=0.01)
    acc.step(noise_multiplier=1.1, sample_rate=0.01)
    assert acc.history == [(1.1, 0.01, 500), (1.3, 0.01, 1), (1.1, 0.01, 1)]
    assert len(acc) == 3
    # heterogeneous steps: the same as composing the specs
    c = fdp.compose(["subsampled-gaussian:sigma=1.1,q=0.01,times=501",
                     "subsampled-gaussian:sigma=1.3,q=0.01"])
    assert acc.get_epsilon(1e-5) == c.epsilon(1e-5).upper


def test_mechanism_and_state_dict_round_trip():
    assert FdpAccountant.mechanism() == "fdp"
    acc = FdpAccountant()
    assert acc.get_epsilon(1e-5) == 0.0
    for nm in (1.0, 1.0, 2.0):
        acc.step(noise_multiplier=nm, sample_rate=0.02)
    sd = acc.state_dict()
    assert sd == {"history": [(1.0, 0.02, 2), (2.0, 0.02, 1)], "mechanism": "fdp"}
    sd = pickle.loads(pickle.dumps(sd))
    other = FdpAccountant()
    other.load_state_dict(sd)
    assert other.history == acc.history
    assert other.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    dest = {}
    assert acc.state_dict(dest) is dest and "history" in dest
    with pytest.raises(ValueError, match="rdp"):
        other.load_state_dict({"history": [], "mechanism": "rdp"})
    with pytest.raises(ValueError, match="history"):
        other.load_state_dict({"mechanism": "fdp"})


def test_no_noise_means_no_guarantee_and_bad_steps_raise():
    acc = FdpAccountant()
    acc.step(noise_multiplier=0.0, sample_rate=0.1)
    assert acc.get_epsilon(1e-5) == math.inf
    acc = FdpAccountant()
    acc.step(noise_multiplier=1.0, sample_rate=0.0)
    assert acc.get_epsilon(1e-5) == 0.0
    for kw in ({"noise_multiplier": -1.0, "sample_rate": 0.1},
               {"noise_multiplier": 1.0, "sample_rate": 1.5},
               {"noise_multiplier": float("nan"), "sample_rate": 0.1}):
        with pytest.raises(ValueError):
            acc.step(**kw)
    with pytest.raises(TypeError):
        acc.step(1.0, 0.1)  # keyword-only, as Opacus


def test_get_noise_multiplier_never_overshoots(cli):
    sigma = get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5,
                                 sample_rate=0.0042666666666666667, steps=14062)
    want = cli("calibrate", "subsampled-gaussian:q=0.0042666666666666667,times=14062",
               "--solve", "sigma", "--eps", "3", "--delta", "1e-5")
    assert sigma == want["solve"]["value"]
    acc = FdpAccountant()
    acc.history = [(sigma, 0.0042666666666666667, 14062)]
    assert acc.get_epsilon(1e-5) <= 3.0  # certified: never above the target
    # and near-optimal: 0.5% less noise is certified to overshoot
    acc.history = [(sigma * 0.995, 0.0042666666666666667, 14062)]
    assert acc.get_epsilon_interval(1e-5).lower > 3.0


def test_get_noise_multiplier_epochs_as_opacus():
    # Opacus: steps = int(epochs / sample_rate)
    a = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, epochs=3)
    b = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, steps=300)
    assert a == b
    with pytest.raises(ValueError, match="exactly one"):
        get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01)
    with pytest.raises(ValueError, match="sampling"):
        get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, steps=3,
                             sampling="shuffle")
    with pytest.raises(ValueError):
        get_noise_multiplier(target_epsilon=-2.0, target_delta=1e-5, sample_rate=0.01, steps=3)

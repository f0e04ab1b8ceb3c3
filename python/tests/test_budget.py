"""fdp.calibrate and fdp.dpsgd: the CLI's digits and the never-overshoot promise."""

import math

import pytest

import fdp
from conftest import answers

Q = "0.0042666666666666667"


def test_calibrate_matches_cli_and_meets_target(cli):
    r = fdp.calibrate(f"subsampled-gaussian:q={Q},times=14062", "sigma", 3.0, 1e-5)
    want = cli("calibrate", f"subsampled-gaussian:q={Q},times=14062", "--solve", "sigma",
               "--eps", "3", "--delta", "1e-5")
    assert r.value == want["solve"]["value"]
    e = answers(want, "epsilon")[0]
    assert r.epsilon == (e["lower"], e["upper"])
    assert r.epsilon.upper <= 3.0 and r.certified_gap <= 1e-3
    check = fdp.compose([f"subsampled-gaussian:sigma={r.value!r},q={Q},times=14062"])
    assert check.epsilon(1e-5).upper <= 3.0


def test_calibrate_with_others_and_an_integer_parameter():
    r = fdp.calibrate("gaussian:sigma=3", "times", 2.0, 1e-5, others=["laplace:b=20"])
    assert r.value == int(r.value) >= 1
    n = int(r.value)
    assert fdp.compose([f"gaussian:sigma=3,times={n}", "laplace:b=20"]).epsilon(1e-5).upper <= 2
    with pytest.raises(ValueError):
        fdp.calibrate("gaussian:sigma=3", "nosuch", 2.0, 1e-5)


def test_dpsgd_matches_cli(cli):
    r = fdp.dpsgd(sigma=1.1, q=float(Q), steps=14062, delta=1e-5, gdp_summary=True)
    want = cli("dpsgd", "--q", Q, "--sigma", "1.1", "--steps", "14062", "--delta", "1e-5", "--mu")
    e = answers(want, "epsilon")[0]
    assert r.epsilon == (e["lower"], e["upper"])
    assert r.mu == (want["mu"]["lower"], want["mu"]["upper"])
    assert r.clt_epsilon < r.epsilon.lower  # the CLT estimate under-states (README)


def test_dpsgd_without_replacement_route():
    r = fdp.dpsgd(sigma=1.0, q=0.01, steps=100, sampling="without-replacement",
                  neighbours="replace-one", gdp_summary=False)
    assert r.sensitivity == 2.0 and r.mu is None and r.epsilon.lower <= r.epsilon.upper
    # under add-remove: the add/remove pair with twice the shift (a swap in the batch)
    a = fdp.dpsgd(sigma=1.0, q=0.01, steps=100, sampling="without-replacement")
    pair = fdp.compose(["subsampled-gaussian:sigma=1,q=0.01,sensitivity=2,times=100"])
    assert tuple(a.epsilon) == tuple(pair.epsilon(1e-5))


def test_dpsgd_truncated_poisson_matches_cli_and_its_spec(cli):
    r = fdp.dpsgd(sigma=1.0, q=0.01, steps=500, sampling="truncated-poisson",
                  max_batch_size=15, dataset_size=1000)
    want = cli("dpsgd", "--q", "0.01", "--sigma", "1", "--steps", "500", "--delta", "1e-5",
               "--sampling", "truncated-poisson", "--max-batch-size", "15",
               "--dataset-size", "1000")
    e = answers(want, "epsilon")[0]
    assert r.epsilon == (e["lower"], e["upper"])
    # (add-remove: the dataset with one record more is accounted too, the worse reported)
    specs = [fdp.compose([f"subsampled-gaussian:sigma=1,q=0.01,times=500,"
                          f"sampling=truncated-poisson,max-batch=15,dataset-size={n}"])
             for n in (1000, 1001)]
    e = [s.epsilon(1e-5) for s in specs]
    assert tuple(r.epsilon) == (max(e[0].lower, e[1].lower), max(e[0].upper, e[1].upper))
    assert r.epsilon.lower > fdp.dpsgd(sigma=1.0, q=0.01, steps=500).epsilon.upper
    with pytest.raises(ValueError, match="max_batch_size"):
        fdp.dpsgd(sigma=1.0, q=0.01, steps=5, sampling="truncated-poisson", dataset_size=1000)
    with pytest.raises(ValueError, match="truncated-poisson"):
        fdp.dpsgd(sigma=1.0, q=0.01, steps=5, max_batch_size=15)
    with pytest.raises(TypeError, match="max_batch_size"):
        fdp.dpsgd(sigma=1.0, q=0.01, steps=5, sampling="truncated-poisson", max_batch_size=1.5,
                  dataset_size=1000)


def test_dpsgd_shuffle_is_a_lower_bound_only():
    # q = 1: one step per epoch, the whole batch every step: exactly G_{sqrt(T)/sigma}
    r = fdp.dpsgd(sigma=2.0, q=1.0, steps=16, sampling="shuffle")
    truth = float(fdp.gdp.eps(2.0, 1e-5))
    assert not r.upper_certified and math.isinf(r.epsilon.upper)
    assert math.isnan(r.clt_epsilon) and len(r.poisson_epsilons) == 1
    assert truth * (1 - 3e-3) <= r.epsilon.lower <= truth * (1 + 1e-12)


def test_dpsgd_balls_in_bins_is_two_sided_and_matches_its_spec(cli):
    # 20 epochs of 100 steps: the CLI, the spec kind (one epoch, times = epochs)
    r = fdp.dpsgd(sigma=1.0, q=0.01, steps=2000, sampling="balls-in-bins", steps_per_epoch=100)
    assert r.upper_certified and r.epsilon.upper < 1.01 * r.epsilon.lower
    want = cli("dpsgd", "--q", "0.01", "--sigma", "1", "--steps", "2000", "--delta", "1e-5",
               "--sampling", "balls-in-bins", "--steps-per-epoch", "100")
    e = answers(want, "epsilon")[0]
    assert r.epsilon == (e["lower"], e["upper"])
    c = fdp.compose(["balls-in-bins:sigma=1,steps=100,times=20"]).epsilon(1e-5)
    assert abs(c.lower - r.epsilon.lower) <= 1e-9 * c.lower
    assert abs(c.upper - r.epsilon.upper) <= 1e-9 * c.upper
    # below what Poisson accounting of the same rate says (Chua et al. 2025)
    assert r.epsilon.upper < r.poisson_epsilons[0].lower
    with pytest.raises(TypeError, match="steps_per_epoch"):
        fdp.dpsgd(sigma=1.0, q=0.01, steps=5, sampling="balls-in-bins", steps_per_epoch=1.5)


def test_dpsgd_random_allocation_states_its_uses(cli):
    # each record in 2 of 20 steps: the CLI's digits, uses named when bad
    r = fdp.dpsgd(sigma=2.0, q=0.1, steps=20, sampling="random-allocation", uses=2)
    assert r.upper_certified and 0 < r.epsilon.lower <= r.epsilon.upper
    want = cli("dpsgd", "--q", "0.1", "--sigma", "2", "--steps", "20", "--delta", "1e-5",
               "--sampling", "random-allocation", "--uses", "2")
    e = answers(want, "epsilon")[0]
    assert r.epsilon == (e["lower"], e["upper"])
    assert fdp.dpsgd(sigma=2.0, q=0.1, steps=20, sampling="random-allocation").epsilon == r.epsilon
    with pytest.raises(ValueError, match="uses"):
        fdp.dpsgd(sigma=2.0, q=0.11, steps=20, sampling="random-allocation")
    with pytest.raises(ValueError, match="uses"):
        fdp.dpsgd(sigma=2.0, q=0.1, steps=20, uses=2)
    with pytest.raises(TypeError, match="uses"):
        fdp.dpsgd(sigma=2.0, q=0.1, steps=20, sampling="random-allocation", uses=2.5)
    # a q that K/T contradicts, and a loader count that 1/q contradicts
    with pytest.raises(ValueError, match="uses = 4 disagrees"):
        fdp.dpsgd(sigma=2.0, q=0.1, steps=20, sampling="random-allocation", uses=4)
    with pytest.raises(ValueError, match="steps_per_epoch = 500"):
        fdp.dpsgd(sigma=1.0, q=0.003, steps=700, sampling="balls-in-bins", steps_per_epoch=500)


def test_dpsgd_poisson_replace_one_is_the_mirrored_pair():
    # the same composition as the spec with one record's bound D/2 = 1
    r = fdp.dpsgd(sigma=1.1, q=0.01, steps=300, neighbours="replace-one")
    c = fdp.compose(["subsampled-gaussian:sigma=1.1,q=0.01,neighbours=replace-one,times=300"])
    e = c.epsilon(1e-5)
    assert r.sensitivity == 2.0
    assert abs(r.epsilon.lower - e.lower) <= 1e-9 * e.lower
    assert abs(r.epsilon.upper - e.upper) <= 1e-9 * e.upper


@pytest.mark.parametrize("specs,k", [(["laplace:b=10,times=10"], 3), (["gdp:mu=0.5"], 4),
                                     (["subsampled-gaussian:sigma=2,q=0.05,times=20"], 2)])
def test_group_matches_cli(cli, specs, k):
    g = fdp.group(specs, k)
    for d in ("1e-05", "1e-07"):
        want = answers(cli("group", *specs, "--k", str(k), "--delta", d), "epsilon")[0]
        assert g.epsilon(float(d)) == (want["lower"], want["upper"])
    want = cli("group", *specs, "--k", str(k), "--eps", "1.0", "--alpha", "0.1")
    d, b = answers(want, "delta")[0], answers(want, "beta")[0]
    assert g.delta(1.0) == (d["lower"], d["upper"])
    assert g.beta(0.1) == (b["lower"], b["upper"])


def test_group_closed_form_truth_and_bad_k():
    # k records of a mu-GDP mechanism: (k mu)-GDP (DRS Thm 2.14)
    g = fdp.group(["gdp:mu=0.5"], 4)
    truth = fdp.gdp.eps(2.0, 1e-5)
    e = g.epsilon(1e-5)
    assert e.lower <= truth * (1 + 1e-12) and truth <= e.upper * (1 + 1e-12)
    with pytest.raises(ValueError, match="k"):
        fdp.group(["gdp:mu=0.5"], 0)


def test_dpsgd_one_call_matches_cli(cli):
    s = fdp.dpsgd_solve(3.0, 1e-5, dataset_size=50000, batch_size=512, epochs=30)
    want = cli("dpsgd", "--dataset-size", "50000", "--batch-size", "512", "--epochs", "30",
               "--eps", "3", "--delta", "1e-5")
    assert s.value == want["solve"]["value"] and s.param == "sigma"
    assert s.report.steps == want["assumptions"]["steps"] == 2940
    e = answers(want, "epsilon")[0]
    assert s.report.epsilon == (e["lower"], e["upper"]) and s.report.epsilon.upper <= 3.0
    assert fdp.dpsgd_steps(30, 50000, 512) == 2940
    assert fdp.dpsgd_steps(30, 50000, 512, "total") == 2930
    assert fdp.dpsgd_steps(30, 50000, 512, "floor") == 2910


def test_dpsgd_deltas_phases_and_window(cli):
    r = fdp.dpsgd(sigma=1.0, q=0.01, steps=1000, delta=[1e-5, 1e-7], mu_above=1e-6,
                  phases=[(0.02, 2.0, 100)])
    want = cli("dpsgd", "--phase", "q=0.01,sigma=1,steps=1000", "--phase", "q=0.02,sigma=2,steps=100",
               "--delta", "1e-5", "--delta", "1e-7", "--mu-above", "1e-6")
    got = [(d, e) for d, e in r.epsilons]
    assert [d for d, _ in got] == [1e-5, 1e-7]
    for (d, e), q in zip(got, want["queries"]):
        assert q["delta"] == d and e == (q["epsilon"]["lower"], q["epsilon"]["upper"])
    assert r.mu_above == (want["mu_above"]["mu"]["lower"], want["mu_above"]["mu"]["upper"])
    assert r.steps == 1100 and r.mu is None
    with pytest.raises(ValueError, match="mu_above"):
        fdp.dpsgd(sigma=1.0, q=0.01, steps=10, mu_above=0.7)
    with pytest.raises(ValueError, match="solve"):
        fdp.dpsgd_solve(3.0, 1e-5, solve="noise", sigma=1.0, q=0.01, steps=10)

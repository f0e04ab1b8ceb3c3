"""fdp.audit and fdp.audit_one_run: the CLI's digits on the same data written
to files, and bad input as ValueError."""

import csv
import json
import subprocess

import numpy as np
import pytest

import fdp
from conftest import _cli_path


def run_cli(*args):
    """`fdp audit ARGS --json` (exit 3 is a violation verdict, not a failure)."""
    path = _cli_path()
    if path is None:
        pytest.skip("the fdp CLI is not built (set FDP_CLI)")
    out = subprocess.run([path, "audit", *args, "--json"], capture_output=True, text=True)
    assert out.returncode in (0, 3), out.stderr
    return json.loads(out.stdout)


def write_lines(path, values):
    path.write_text("".join(f"{v!r}\n" for v in values))
    return str(path)


def outputs(shift, seed, n=20000):
    x = np.random.default_rng(seed).normal(shift, 1.0, n)
    x[5], x[77], x[901] = np.nan, np.inf, -np.inf  # outputs too, placed as the CLI places them
    return x


@pytest.mark.parametrize("claim", ["gdp:mu=1", "gdp:mu=3"])
def test_audit_matches_cli(tmp_path, claim):
    x0, x1 = outputs(0.0, 1), outputs(2.0, 2)
    r = fdp.audit(x0, x1, claim, confidence=0.9, delta=1e-3)
    f0, f1 = write_lines(tmp_path / "a.txt", x0), write_lines(tmp_path / "b.txt", x1)
    curve = tmp_path / "curve.csv"
    j = run_cli("--samples0", f0, "--samples1", f1, "--claim", claim, "--confidence", "0.9",
                "--delta", "1e-3", "--curve-out", str(curve))
    assert r.verdict == j["verdict"] and r.reason == j["reason"]
    assert r.epsilon.lower == j["queries"][0]["epsilon"]["lower"]
    assert r.mu.lower == j["mu"]["lower"]
    assert list(r.samples) == j["samples"]
    assert (r.witness is None) == (j["witness"] is None)
    if claim == "gdp:mu=1":  # a violation has a witness
        for k in ("alpha", "beta", "claim_beta", "event", "ordering"):
            assert getattr(r.witness, k) == j["witness"][k]
    with open(curve) as f:
        rows = list(csv.DictReader(f))
    for col in ("alpha", "tests_beta_lower", "beta_upper", "beta_estimate"):
        assert np.array_equal(getattr(r.curve, col), [float(row[col]) for row in rows])


def test_audit_verdicts():
    x0, x1 = outputs(0.0, 3), outputs(2.0, 4)
    assert fdp.audit(x0, x1, "gdp:mu=1").verdict == "violation"
    r = fdp.audit(x0, x1, ["gdp:mu=2", "gdp:mu=2"])  # composed: mu = 2.83 >= the truth
    assert r.verdict in ("consistent", "inconclusive")
    assert 1.0 < r.mu_lower < 2.0 + 1e-9


def test_one_run_matches_cli(tmp_path):
    rng = np.random.default_rng(5)
    inc = rng.integers(0, 2, 1000)
    scores = rng.normal(0, 1, 1000) + 1.5 * inc
    scores[3] = np.nan
    r = fdp.audit_one_run(scores, inc, guesses=200, delta=1e-5, confidence=0.95)
    path = tmp_path / "scores.csv"
    path.write_text("".join(f"{s!r},{i}\n" for s, i in zip(scores, inc)))
    j = run_cli("--one-run", str(path), "--guesses", "200", "--delta", "1e-5")
    assert r.epsilon.lower == j["queries"][0]["epsilon"]["lower"] > 0
    assert 0 < r.mu_lower < 1.5  # (the f-DP test: below the truth, mu = 1.5)
    for k in ("canaries", "guesses", "guessed_in", "correct", "included", "p_value_at_zero",
              "mu_lower"):
        assert getattr(r, k) == j[k]


@pytest.mark.parametrize("kwargs, pattern", [
    (dict(samples0=np.zeros((3, 2))), "samples0 must be 1-D"),
    (dict(samples1=np.array([], dtype=float)), "samples1 is empty"),
    (dict(samples0=np.array(["a", "b"])), "samples0 must be an array of real numbers"),
    (dict(confidence=1.0), r"confidence = 1.0 must be in \(0, 1\)"),
    (dict(confidence=0.0), r"confidence = 0.0 must be in \(0, 1\)"),
    (dict(delta=-0.1), r"delta = -0.1 must be in \[0, 1\)"),
    (dict(claim="gdp:mu=-1"), "mu"),
    (dict(claim=[]), "at least one spec"),
])
def test_audit_bad_input(kwargs, pattern):
    args = dict(samples0=np.arange(100.0), samples1=np.arange(100.0), claim="gdp:mu=1")
    args.update(kwargs)
    with pytest.raises(ValueError, match=pattern):
        fdp.audit(args.pop("samples0"), args.pop("samples1"), args.pop("claim"), **args)


def test_one_run_bad_input():
    s = np.arange(10.0)
    with pytest.raises(ValueError, match="included must hold 0 or 1"):
        fdp.audit_one_run(s, np.full(10, 2))
    with pytest.raises(ValueError, match="included must be 1-D"):
        fdp.audit_one_run(s, np.zeros(9))
    with pytest.raises(ValueError, match=r"guesses = 11 must be an integer in \[1, 10\]"):
        fdp.audit_one_run(s, np.arange(10) % 2, guesses=11)
    with pytest.raises(ValueError, match="confidence"):
        fdp.audit_one_run(s, np.arange(10) % 2, confidence=1.5)
    with pytest.raises(ValueError, match="scores is empty"):
        fdp.audit_one_run([], [])

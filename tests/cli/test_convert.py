#!/usr/bin/python3
"""CLI tests for `fdp convert` (mu-GDP <-> (eps, delta)).

Usage: /usr/bin/python3 test_convert.py PATH_TO_fdp   (exit 0 = all passed)

Checks the three forms with --json (shape: exactly one key, a number or null)
against the mpmath golden tables in tests/golden (see gen_golden.py), the
human-readable output, and bad usage: exit code 2, nothing on stdout, exactly
one line on stderr that names the offending option.
"""

import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("FDP_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
GOLDEN = os.path.join(SOURCE, "tests", "golden")

# Accuracy promised by lib/include/fdp/ops/convert.hpp.
DELTA_REL = 1e-12
EPS_REL = 1e-11
MU_REL = 1e-11
COND_ULPS = 8.0  # ill-conditioned rows: error <= COND_ULPS * cond * 2^-52
HUMAN_REL = 1e-9  # human output prints 10 significant digits

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(fdp, *args):
    p = subprocess.run([fdp] + list(args), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def golden(name):
    rows, cols = [], None
    with open(os.path.join(GOLDEN, name)) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if cols is None:
                cols = line.split(",")
                continue
            rows.append(dict(zip(cols, line.split(","))))
    return rows


def rel(got, want):
    if got == want:
        return 0.0
    return abs(got - want) / abs(want) if want != 0 else abs(got)


def convert_json(fdp, args, key):
    """Runs fdp convert ARGS --json; returns the value of KEY (None for null)."""
    code, out, err = run(fdp, "convert", *args, "--json")
    what = "fdp convert " + " ".join(args) + " --json"
    if code != 0:
        fail("%s: exit %d, stderr %r" % (what, code, err))
        return None
    try:
        obj = json.loads(out)
    except ValueError as e:
        fail("%s: not JSON (%s): %r" % (what, e, out))
        return None
    # the envelope, the solved name and the three values (two given, one computed)
    if not isinstance(obj, dict) or set(obj.keys()) != {"fdp", "solved", "mu", "epsilon", "delta"} \
            or obj["solved"] != key:
        fail("%s: expected fdp, solved = %r, mu, epsilon, delta, got %r" % (what, key, obj))
        return None
    v = obj[key]
    if v is not None and not isinstance(v, (int, float)):
        fail("%s: %r is not a number or null" % (what, v))
        return None
    if err:
        fail("%s: unexpected stderr %r" % (what, err))
    return v


def pick(rows, n):
    """n rows spread over the table (the CLI is slow-ish to spawn)."""
    step = max(1, len(rows) // n)
    return rows[::step]


def test_delta(fdp):
    worst = 0.0
    rows = [r for r in golden("gdp_golden.csv") if float(r["eps"]) >= 0]
    for r in pick(rows, 40):
        want = float(r["delta"])
        if want < 1e-300:
            continue
        got = convert_json(fdp, ["--mu", r["mu"], "--eps", r["eps"]], "delta")
        if got is None:
            continue
        e = rel(got, want)
        worst = max(worst, e)
        if e > DELTA_REL:
            fail("delta(mu=%s, eps=%s) = %r, golden %r (rel err %.2g)" % (r["mu"], r["eps"], got, want, e))
    print("delta: max rel err %.3g" % worst)


def test_eps(fdp):
    worst = 0.0
    for r in pick(golden("gdp_eps_golden.csv"), 40):
        want, cond = float(r["eps"]), float(r["cond"])
        got = convert_json(fdp, ["--mu", r["mu"], "--delta", r["delta"]], "epsilon")
        if got is None:
            continue
        tol = max(EPS_REL, COND_ULPS * cond * 2.0 ** -52)
        e = rel(got, want)
        worst = max(worst, e / tol * EPS_REL)
        if e > tol:
            fail("eps(mu=%s, delta=%s) = %r, golden %r (rel err %.2g)" % (r["mu"], r["delta"], got, want, e))
    print("epsilon: max rel err (scaled by cond where ill-conditioned) %.3g" % worst)


def test_mu(fdp):
    worst = 0.0
    for r in pick(golden("gdp_mu_golden.csv"), 40):
        want, cond = float(r["mu"]), float(r["cond"])
        got = convert_json(fdp, ["--eps", r["eps"], "--delta", r["delta"]], "mu")
        if got is None:
            continue
        tol = max(MU_REL, COND_ULPS * cond * 2.0 ** -52)
        e = rel(got, want)
        worst = max(worst, e / tol * MU_REL)
        if e > tol:
            fail("mu(eps=%s, delta=%s) = %r, golden %r (rel err %.2g)" % (r["eps"], r["delta"], got, want, e))
    print("mu: max rel err (scaled by cond where ill-conditioned) %.3g" % worst)


def test_limits(fdp):
    # delta = 0: no finite epsilon -> null; delta = 1 -> mu = inf -> null.
    v = convert_json(fdp, ["--mu", "1", "--delta", "0"], "epsilon")
    if v is not None:
        fail("--mu 1 --delta 0: epsilon should be null (infinite), got %r" % v)
    v = convert_json(fdp, ["--eps", "1", "--delta", "1"], "mu")
    if v is not None:
        fail("--eps 1 --delta 1: mu should be null (infinite), got %r" % v)
    v = convert_json(fdp, ["--mu", "0", "--eps", "1"], "delta")
    if v != 0:
        fail("--mu 0 --eps 1: delta should be 0, got %r" % v)
    v = convert_json(fdp, ["--mu", "50", "--delta", "1e-300"], "epsilon")
    if not (isinstance(v, float) and math.isfinite(v) and v > 0):
        fail("--mu 50 --delta 1e-300: epsilon should be finite and positive, got %r" % v)
    # Option order and --opt=value spelling do not matter.
    a = convert_json(fdp, ["--delta", "1e-5", "--mu", "1"], "epsilon")
    b = convert_json(fdp, ["--mu=1", "--delta=1e-5"], "epsilon")
    if a is None or a != b:
        fail("--delta 1e-5 --mu 1 and --mu=1 --delta=1e-5 disagree: %r vs %r" % (a, b))


def test_human(fdp):
    cases = [
        (["--mu", "1", "--delta", "1e-5"], "epsilon", ["--mu", "1", "--delta", "1e-5"]),
        (["--mu", "1", "--eps", "1"], "delta", ["--mu", "1", "--eps", "1"]),
        (["--eps", "1", "--delta", "1e-5"], "mu", ["--eps", "1", "--delta", "1e-5"]),
    ]
    for args, key, same in cases:
        code, out, err = run(fdp, "convert", *args)
        what = "fdp convert " + " ".join(args)
        if code != 0 or err:
            fail("%s: exit %d, stderr %r" % (what, code, err))
            continue
        lines = out.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith(key + " = "):
            fail("%s: expected one line '%s = ...', got %r" % (what, key, out))
            continue
        value = float(lines[0][len(key) + 3:].split()[0])
        want = convert_json(fdp, same, "epsilon" if key == "epsilon" else key)
        if want is None or rel(value, want) > HUMAN_REL:
            fail("%s: human value %r vs JSON %r" % (what, value, want))
    code, out, err = run(fdp, "convert", "--help")
    if code != 0 or "usage: fdp convert" not in out:
        fail("fdp convert --help: exit %d, output %r" % (code, out[:200]))


def test_errors(fdp):
    cases = [
        # (arguments, a string the one-line message must contain)
        (["convert", "--mu", "-1", "--delta", "1e-5"], "--mu"),
        (["convert", "--mu", "-1", "--eps", "1"], "--mu"),
        (["convert", "--mu", "1", "--delta", "1.5"], "--delta"),
        (["convert", "--mu", "1", "--delta", "-0.1"], "--delta"),
        (["convert", "--eps", "1", "--delta", "2"], "--delta"),
        (["convert", "--eps", "-1", "--delta", "1e-5"], "--eps"),
        (["convert", "--mu", "abc", "--delta", "1e-5"], "--mu"),
        (["convert", "--mu", "1", "--eps", "1x"], "--eps"),
        (["convert", "--mu", "1", "--delta", ""], "--delta"),
        (["convert", "--mu", "nan", "--delta", "1e-5"], "--mu"),
        (["convert", "--mu", "inf", "--delta", "1e-5"], "--mu"),
        (["convert", "--mu", "1"], "exactly two"),
        (["convert", "--eps", "1"], "exactly two"),
        (["convert"], "exactly two"),
        (["convert", "--mu", "1", "--eps", "1", "--delta", "1e-5"], "exactly two"),
        (["convert", "--mu", "1", "--delta", "1e-5", "--foo", "1"], "--foo"),
        (["convert", "--mu", "1", "--delta", "1e-5", "--json=yes"], "--json"),
        (["convert", "--mu", "1", "--mu", "2", "--delta", "1e-5"], "--mu"),
        (["convert", "--mu", "1", "--delta"], "--delta"),
        (["convert", "3", "--mu", "1", "--delta", "1e-5"], "'3'"),
        (["convrt", "--mu", "1"], "convrt"),
    ]
    for args, needle in cases:
        code, out, err = run(fdp, *args)
        what = "fdp " + " ".join(args)
        if code != 2:
            fail("%s: exit code %d, expected 2 (stderr %r)" % (what, code, err))
        if out:
            fail("%s: stdout should be empty on error, got %r" % (what, out))
        lines = err.splitlines()
        if len(lines) != 1:
            fail("%s: expected exactly one line on stderr, got %r" % (what, err))
        elif needle not in lines[0]:
            fail("%s: stderr %r does not name %r" % (what, lines[0], needle))


def main():
    if len(sys.argv) != 2:
        print("usage: test_convert.py PATH_TO_fdp")
        return 2
    fdp = sys.argv[1]
    for t in (test_delta, test_eps, test_mu, test_limits, test_human, test_errors):
        t(fdp)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all convert CLI tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

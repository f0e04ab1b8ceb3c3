#!/usr/bin/python3
"""CLI tests for `fdp compose` and `fdp curve` (docs/cli.md).

Usage: /usr/bin/python3 test_compose.py PATH_TO_fdp   (exit 0 = all passed)

Checks
  * JSON shape: method, epsilon[] {delta, lower, upper}, delta[] {epsilon,
    lower, upper}, beta[] {alpha, lower, upper}, mu {lower, upper}; numbers
    or null (null = no finite value); lower <= upper.
  * closed forms (gdp, k-fold epsdelta) give brackets a few ulps wide (their
    double-precision error bound, rounded outward) that contain the mpmath
    values; `fdp compose gdp:mu=1 --alpha 0.05 --json`.
  * brackets contain the exact values of tests/golden/compose_golden.csv
    (gen_compose_golden.py) for Laplace compositions (S2a) and k-fold
    f_{eps,delta} (S4).
  * no query: epsilon at delta = 1e-5 and the GDP summary.
  * --curve-out FILE and `fdp curve`: CSV with header alpha,beta_lower,beta_upper,
    alpha sorted in [0, 1], beta_lower <= beta_upper, and the printed
    brackets contain the exact f(alpha) (mpmath: G_mu, the Laplace trade-off).
  * degenerate compositions (Id, zero sensitivity, f_{0,d}) do not crash;
    the mass at +inf of f_{eps,delta} (delta = 1e-13) is kept exactly enough.
  * bad specs, bad numbers, unknown options, a missing curve file, no spec:
    exit 2, nothing on stdout, exactly one line on stderr.
  * --max-memory: bad sizes exit 2; a coarsened grid says so and still
    contains the mpmath truth; a composition no window fits gets Chernoff
    upper ends (numerics.grid_limit).
"""

import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile

from mpmath import mp, mpf
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fdp_json import answer, answers  # noqa: E402

mp.dps = 40

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("FDP_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
GOLDEN = os.path.join(SOURCE, "tests", "golden")

failures = []
checks = [0]


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def check(ok, msg):
    checks[0] += 1
    if not ok:
        fail(msg)
    return ok


def run(fdp, *args):
    p = subprocess.run([fdp] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def golden_rows():
    rows, cols = [], None
    with open(os.path.join(GOLDEN, "compose_golden.csv")) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if cols is None:
                cols = line.split(",")
                continue
            rows.append(dict(zip(cols, line.split(","))))
    return rows


def Phi(x):
    return mp.erfc(-x / mp.sqrt(2)) / 2


def G(mu, a):
    """G_mu(a) = Phi(Phi^-1(1 - a) - mu), exact for the double a."""
    a = mpf(a)
    if a <= 0:
        return mpf(1)
    if a >= 1:
        return mpf(0)
    z = -mp.sqrt(2) * mp.erfinv(2 * a - 1)  # Phi^-1(1 - a)
    return Phi(z - mpf(mu))


def lap(mu, a):
    """T(Lap(0,1), Lap(mu,1))(a) (docs/formulas.md)."""
    a, mu = mpf(a), mpf(mu)
    if a < mp.exp(-mu) / 2:
        return 1 - mp.exp(mu) * a
    if a <= mpf(1) / 2:
        return mp.exp(-mu) / (4 * a)
    return mp.exp(-mu) * (1 - a)


def compose_json(fdp, *args):
    what = "fdp compose " + " ".join(args) + " --json"
    code, out, err = run(fdp, "compose", *args, "--json")
    if not check(code == 0, "%s: exit %d, stderr %r" % (what, code, err)):
        return None, what
    try:
        obj = json.loads(out)
    except ValueError as e:
        fail("%s: stdout is not one JSON object (%s): %r" % (what, e, out[:300]))
        return None, what
    check(isinstance(obj, dict), "%s: not an object" % what)
    return obj, what


def is_num_or_null(v):
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v))


def check_bracket(what, b, keys):
    if not check(isinstance(b, dict) and set(keys) <= set(b.keys()),
                 "%s: bracket %r lacks keys %r" % (what, b, keys)):
        return False
    for k in ("lower", "upper"):
        check(is_num_or_null(b[k]), "%s: %s = %r is not a finite number or null" % (what, k, b[k]))
    lo, hi = b["lower"], b["upper"]
    if lo is not None and hi is not None:
        check(lo <= hi, "%s: lower %r > upper %r" % (what, lo, hi))
    return True


def check_shape(obj, what, n_eps=0, n_delta=0, n_beta=0, mu=False):
    if obj is None:
        return
    check(obj.get("method") in ("exact", "pld"), "%s: method %r not exact|pld" % (what, obj.get("method")))
    for key, n, inner in (("epsilon", n_eps, "delta"), ("delta", n_delta, "epsilon"), ("beta", n_beta, "alpha")):
        if n == 0:
            check(answers(obj, key) == [], "%s: unexpected %r without a query" % (what, key))
            continue
        arr = answers(obj, key)
        if not check(isinstance(arr, list) and len(arr) == n,
                     "%s: %r should be a list of %d, got %r" % (what, key, n, arr)):
            continue
        for x in arr:
            check_bracket("%s %s[]" % (what, key), x, (inner, "lower", "upper"))
            check(isinstance(x.get(inner), (int, float)), "%s: %s[].%s = %r" % (what, key, inner, x.get(inner)))
    if mu:
        if check("mu" in obj, "%s: no 'mu'" % what):
            check_bracket(what + " mu", obj["mu"], ("lower", "upper"))


def contains(what, lo, hi, truth, rel=0.0):
    """lo <= truth <= hi; None is an infinite end."""
    truth = mpf(truth)
    tol = abs(truth) * rel
    ok_lo = lo is None and False or (lo is not None and mpf(lo) <= truth + tol)
    ok_hi = hi is None or mpf(hi) >= truth - tol
    check(ok_lo and ok_hi, "%s: bracket [%r, %r] misses the truth %s" % (what, lo, hi, mp.nstr(truth, 20)))


# ----------------------------------------------------------------- tests

def test_shape(fdp):
    obj, what = compose_json(fdp, "laplace:b=10,times=100", "--delta", "1e-6", "--delta", "1e-3",
                             "--eps", "1", "--eps", "-0.5", "--eps", "0", "--alpha", "0.05", "--mu")
    check_shape(obj, what, n_eps=2, n_delta=3, n_beta=1, mu=True)
    if obj:
        check(obj["method"] == "pld", "%s: method %r, expected pld" % (what, obj["method"]))
        check([x["delta"] for x in answers(obj, "epsilon")] == [1e-6, 1e-3], "%s: epsilon[].delta echo" % what)
        check([x["epsilon"] for x in answers(obj, "delta")] == [1, -0.5, 0], "%s: delta[].epsilon echo" % what)
        check(answers(obj, "beta")[0]["alpha"] == 0.05, "%s: beta[].alpha echo" % what)
    # no query: epsilon at 1e-5 and mu
    obj, what = compose_json(fdp, "laplace:b=2,times=5")
    check_shape(obj, what, n_eps=1, mu=True)
    if obj:
        check(answers(obj, "epsilon")[0]["delta"] == 1e-5, "%s: default query is epsilon at 1e-5" % what)
    # quantities that do not exist are null
    obj, what = compose_json(fdp, "epsdelta:eps=1,delta=1e-3", "--delta", "1e-4", "--mu")
    check_shape(obj, what, n_eps=1, mu=True)
    if obj:
        check(answers(obj, "epsilon")[0]["upper"] is None, "%s: epsilon at delta < 1e-3 must be null" % what)
        check(obj["mu"]["upper"] is None, "%s: no finite mu for f_{1,1e-3}: upper must be null" % what)
    # human output works and mentions the bracket
    code, out, err = run(fdp, "compose", "laplace:b=10,times=100", "--delta", "1e-6")
    check(code == 0 and "epsilon" in out and err == "", "human output: exit %d, %r %r" % (code, out[:200], err))
    code, out, err = run(fdp, "compose", "--help")
    check(code == 0 and "compose" in out, "fdp compose --help: exit %d" % code)
    code, out, err = run(fdp, "curve", "--help")
    check(code == 0 and "curve" in out, "fdp curve --help: exit %d" % code)


def test_closed_forms(fdp):
    # the example of CLI.md
    obj, what = compose_json(fdp, "gdp:mu=1", "--alpha", "0.05")
    check_shape(obj, what, n_beta=1, mu=True)
    if obj:
        check(obj["method"] == "exact", "%s: method %r" % (what, obj["method"]))
        b = answers(obj, "beta")[0]
        t = G(1, 0.05)
        check(b["lower"] <= t <= b["upper"] and b["upper"] - b["lower"] <= 1e-13 * t,
              "%s: beta %r vs G_1(0.05) = %s (a bracket a few ulps wide around it)" % (what, b, mp.nstr(t, 17)))
        check(obj["mu"]["lower"] <= 1.0 <= obj["mu"]["upper"] and obj["mu"]["upper"] - obj["mu"]["lower"] < 1e-14,
              "%s: mu %r" % (what, obj["mu"]))
    # G compositions: mu = sqrt(sum mu_i^2)
    obj, what = compose_json(fdp, "gdp:mu=0.3", "gdp:mu=0.4", "gaussian:sigma=2,times=3", "--delta", "1e-5",
                             "--eps", "1", "--alpha", "0.1")
    check_shape(obj, what, n_eps=1, n_delta=1, n_beta=1, mu=True)
    if obj:
        mu = math.sqrt(0.09 + 0.16 + 0.75)
        check(obj["method"] == "exact", "%s: method %r" % (what, obj["method"]))
        for key in ("epsilon", "delta", "beta"):
            x = answers(obj, key)[0]
            check(x["lower"] <= x["upper"] <= x["lower"] * (1 + 1e-10), "%s: %s not a bracket a few ulps wide: %r" % (what, key, x))
        check(obj["mu"]["lower"] <= mu <= obj["mu"]["upper"] and obj["mu"]["upper"] - obj["mu"]["lower"] < 1e-14,
              "%s: mu %r vs %r" % (what, obj["mu"], mu))
        mmu = mp.sqrt(mpf(0.3) ** 2 + mpf(0.4) ** 2 + 3 * (mpf(1) / 2) ** 2)
        dt = Phi(-1 / mmu + mmu / 2) - mp.e * Phi(-1 / mmu - mmu / 2)
        check(answers(obj, "delta")[0]["lower"] <= dt <= answers(obj, "delta")[0]["upper"], "%s: delta(1) %r vs %s" % (what, answers(obj, "delta")[0], mp.nstr(dt, 17)))
        bt = G(mmu, 0.1)
        check(answers(obj, "beta")[0]["lower"] <= bt <= answers(obj, "beta")[0]["upper"], "%s: beta(0.1) %r vs %s" % (what, answers(obj, "beta")[0], mp.nstr(bt, 17)))
        f = lambda e: Phi(-e / mmu + mmu / 2) - mp.exp(e) * Phi(-e / mmu - mmu / 2) - mpf("1e-5")
        et = mp.findroot(f, 4.4)
        check(answers(obj, "epsilon")[0]["lower"] <= et <= answers(obj, "epsilon")[0]["upper"], "%s: epsilon %r vs %s" % (what, answers(obj, "epsilon")[0], mp.nstr(et, 17)))
    # k-fold epsdelta (S4): exact, KOV
    obj, what = compose_json(fdp, "epsdelta:eps=0.1,delta=1e-6,times=100", "--delta", "1e-3")
    check_shape(obj, what, n_eps=1, mu=True)
    if obj:
        check(obj["method"] == "exact", "%s: method %r" % (what, obj["method"]))
        e = answers(obj, "epsilon")[0]
        # a bracket a few ulps wide (the closed form's rounding, outward)
        check(e["lower"] <= e["upper"] and e["upper"] - e["lower"] <= 1e-10 * e["upper"],
              "%s: closed form bracket %r not a point" % (what, e))
        check(abs(e["upper"] - 3.1452818981) < 1e-9, "%s: S4 eps %r vs 3.1452818981" % (what, e))


def test_golden_containment(fdp):
    try:
        rows = golden_rows()
    except OSError as e:
        fail("golden table: %s" % e)
        return
    by = {}
    for r in rows:
        if r["id"] in ("S2a", "S4", "lap-1-x10", "laphet-0.1x30-0.7x5", "gdpmix-1-1e-06"):
            by.setdefault((r["id"], r["specs"]), []).append(r)
    check(len(by) >= 3, "golden rows for S2a/S4/lap-1-x10 missing")
    for (cid, specs), rs in sorted(by.items()):
        args = [s.replace(";", ",") for s in specs.split()]
        for method in ("auto", "pld"):
            q = []
            for r in rs:
                flag = {"eps": "--delta", "delta": "--eps", "beta": "--alpha"}.get(r["query"])
                if flag:
                    q += [flag, r["x"]]
            obj, what = compose_json(fdp, *(args + q + ["--method", method]))
            if obj is None:
                continue
            idx = {"eps": 0, "delta": 0, "beta": 0}
            for r in rs:
                key = {"eps": "epsilon", "delta": "delta", "beta": "beta"}.get(r["query"])
                if key is None:
                    continue
                x = answers(obj, key)[idx[r["query"]]]
                idx[r["query"]] += 1
                truth = mp.inf if r["value"] == "inf" else mpf(r["value"])
                rel = 1e-9 if obj["method"] == "exact" else 1e-14
                if mp.isinf(truth):
                    check(x["upper"] is None, "%s: %s at %s should be null (inf)" % (what, key, r["x"]))
                else:
                    contains("%s [%s] %s(%s)" % (what, cid, key, r["x"]), x["lower"], x["upper"], truth, rel)


def read_csv(text, what):
    lines = text.splitlines()
    if not check(len(lines) >= 2 and lines[0] == "alpha,beta_lower,beta_upper",
                 "%s: header %r, expected alpha,beta_lower,beta_upper" % (what, lines[:1])):
        return []
    rows = []
    for ln in lines[1:]:
        parts = ln.split(",")
        if not check(len(parts) == 3, "%s: row %r" % (what, ln)):
            return []
        try:
            rows.append(tuple(float(p) for p in parts))
        except ValueError:
            fail("%s: non-numeric row %r" % (what, ln))
            return []
    a = [r[0] for r in rows]
    check(a == sorted(a) and a[0] >= 0 and a[-1] <= 1, "%s: alpha not sorted in [0, 1]" % what)
    for al, lo, hi in rows:
        check(0 <= lo <= hi <= 1, "%s: row alpha=%r: not 0 <= lower %r <= upper %r <= 1" % (what, al, lo, hi))
    return rows


def check_curve_truth(rows, truth, what, exact):
    """Every printed bracket must contain f(alpha) for the printed alpha's
    double value. Closed forms are brackets a few ulps wide (their
    double-precision error bound, rounded outward), checked without slack.
    Reported separately: misses within the 17-digit printing."""
    misses, print_misses = [], []
    for al, lo, hi in rows:
        t = truth(al)
        slack = 0
        if mpf(lo) - slack <= t <= mpf(hi) + slack:
            continue
        out = max(mpf(lo) - t, t - mpf(hi))
        # misses of the size of the 12-digit printing (of beta, and of alpha
        # times the slope) are reported together as one printing problem
        (print_misses if out <= 1e-9 * max(t, mpf(1e-6)) else misses).append((al, lo, hi, t, out))
    for al, lo, hi, t, out in misses[:5]:
        fail("%s: alpha=%r bracket [%r, %r] misses f = %s by %s" % (what, al, lo, hi, mp.nstr(t, 17), mp.nstr(out, 3)))
    if print_misses:
        al, lo, hi, t, out = print_misses[0]
        fail("%s: %d of %d printed rows (alpha, beta_lower, beta_upper) miss f(alpha) by about the "
             "printing precision (17 significant digits, rounded to nearest, not outward), e.g. "
             "alpha=%r [%r, %r] vs f = %s (by %s)"
             % (what, len(print_misses), len(rows), al, lo, hi, mp.nstr(t, 17), mp.nstr(out, 3)))
    checks[0] += len(rows)
    if exact:
        for al, lo, hi in rows:
            if hi - lo > 1e-10 * max(hi, 1e-300) + 1e-300:
                fail("%s: closed form, but beta_lower %r and beta_upper %r are more than a few ulps apart at alpha=%r"
                     % (what, lo, hi, al))
                break


def test_curves(fdp):
    # fdp curve: stdout CSV
    for spec, truth, exact in (("gdp:mu=1", lambda a: G(1, a), True),
                               ("gaussian:sigma=0.5", lambda a: G(2, a), True),
                               ("laplace:b=2", lambda a: lap(0.5, a), False)):
        what = "fdp curve %s --points 101" % spec
        code, out, err = run(fdp, "curve", spec, "--points", "101")
        if not check(code == 0, "%s: exit %d, stderr %r" % (what, code, err)):
            continue
        rows = read_csv(out, what)
        check(50 <= len(rows) <= 101, "%s: %d rows for --points 101" % (what, len(rows)))
        if rows:
            check_curve_truth(rows, truth, what, exact)
    # default points
    code, out, err = run(fdp, "curve", "laplace:b=1,times=10")
    rows = read_csv(out, "fdp curve laplace:b=1,times=10")
    check(code == 0 and 100 <= len(rows) <= 201, "fdp curve default points: exit %d, %d rows" % (code, len(rows)))
    # --curve-out FILE from compose
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "c.csv")
        code, out, err = run(fdp, "compose", "gdp:mu=0.5,times=4", "--curve-out", path, "--points", "41", "--json")
        what = "fdp compose gdp:mu=0.5,times=4 --curve-out FILE --points 41"
        if check(code == 0 and os.path.exists(path), "%s: exit %d, stderr %r" % (what, code, err)):
            try:
                json.loads(out)
            except ValueError:
                fail("%s --json: stdout is not JSON: %r" % (what, out[:200]))
            with open(path) as f:
                rows = read_csv(f.read(), what)
            if rows:
                check_curve_truth(rows, lambda a: G(1, a), what, True)
        code, out, err = run(fdp, "compose", "laplace:b=3,times=4", "--curve-out", path, "--points", "21")
        what = "fdp compose laplace:b=3,times=4 --curve-out FILE"
        if check(code == 0, "%s: exit %d %r" % (what, code, err)):
            with open(path) as f:
                read_csv(f.read(), what)
        # a curve spec from a file, composed
        cf = os.path.join(tmp, "f.csv")
        with open(cf, "w") as f:
            f.write("alpha,beta\n0,1\n0.1,0.5\n0.5,0.1\n1,0\n")
        code, out, err = run(fdp, "compose", "curve:file=" + cf, "--alpha", "0.1", "--json", "--method", "pld")
        what = "fdp compose curve:file=F --alpha 0.1 --method pld"
        if check(code == 0, "%s: exit %d %r" % (what, code, err)):
            b = answers(json.loads(out), "beta")[0]
            contains(what, b["lower"], b["upper"], mpf("0.5"), 1e-14)


def test_degenerate(fdp):
    """Valid compositions at the edges: no crash, truth inside the bracket."""
    for args in (["id"], ["id", "--method", "pld"], ["gdp:mu=0", "--method", "pld"],
                 ["epsdelta:eps=0,delta=1e-6", "--method", "pld"], ["laplace:b=1,sensitivity=0"],
                 ["gaussian:sigma=1,sensitivity=0", "--method", "pld"]):
        what = "fdp compose " + " ".join(args) + " --eps 1 --json"
        code, out, err = run(fdp, "compose", *args, "--eps", "1", "--json")
        if not check(code == 0, "%s: exit %d (%s), stderr %r" % (what, code, "crash" if code < 0 else "error", err[:200])):
            continue
        d = answers(json.loads(out), "delta")[0]
        t = 1e-6 if "delta=1e-6" in args[0] else 0.0
        contains(what + " delta(1)", d["lower"], d["upper"], mpf(t) if t else mpf(0))
    # the mass at +inf of f_{eps,delta}: delta(eps) = delta for eps >= eps0, so
    # no eps reaches a delta below 1e-13, and delta(1) is exactly 1e-13
    for method in ("auto", "pld"):
        obj, what = compose_json(fdp, "epsdelta:eps=0.5,delta=1e-13", "--method", method, "--delta", "9.995e-14",
                                 "--delta", "1e-13", "--eps", "1")
        if obj:
            check(answers(obj, "epsilon")[0]["upper"] is None,
                  "%s: epsilon at delta=9.995e-14 < 1e-13 must be null (no eps exists), got %r" % (what, answers(obj, "epsilon")[0]))
            e = answers(obj, "epsilon")[1]
            contains(what + " epsilon(1e-13)", e["lower"], e["upper"], mpf("0.5"), 1e-12)
            d = answers(obj, "delta")[0]
            contains(what + " delta(eps=1)", d["lower"], d["upper"], mpf(1e-13))


def expect_usage_error(fdp, args, must_mention=None):
    what = "fdp " + " ".join(args)
    code, out, err = run(fdp, *args)
    check(code == 2, "%s: exit %d, expected 2 (stderr %r)" % (what, code, err))
    check(out == "", "%s: stdout should be empty, got %r" % (what, out[:200]))
    lines = err.strip("\n").split("\n")
    check(len(lines) == 1 and lines[0] != "", "%s: expected one stderr line, got %r" % (what, err))
    if must_mention:
        check(must_mention in err, "%s: stderr %r does not mention %r" % (what, err, must_mention))


def test_errors(fdp):
    # a value above the range says so (it read "must be >= -1.0000000000000001e+300")
    expect_usage_error(fdp, ["compose", "gdp:mu=1", "--eps", "1e308"], "[-1e+300, 1e+300]")
    # mu = 1e300 terms compose without squaring to inf
    code, out, err = run(fdp, "compose", "gaussian:sigma=1e-300,times=4", "--json")
    check(code == 0 and abs(json.loads(out)["mu"]["lower"] / 2e300 - 1) < 1e-12,
          "gaussian:sigma=1e-300,times=4: mu 2e300 (%d, %r)" % (code, err))
    for cmd in ("compose", "curve"):
        # bad specs
        for spec, word in (("laplace:b=0", "b"), ("laplace:b=-1", "b"), ("nosuchmech:x=1", "nosuchmech"),
                           ("laplace:b=1,foo=2", "foo"), ("gdp:mu=abc", "mu"), ("gdp:mu=1,times=0", "times"),
                           ("gdp:mu=1,times=1.5", "times"), ("gaussian:sigma=0", "sigma"),
                           ("subsampled-gaussian:sigma=1,q=1.5", "q"), ("subsampled-gaussian:sigma=1,q=0", "q"),
                           ("subsampled-gaussian:sigma=-1,q=0.5", "sigma"), ("subsampled-laplace:b=1,q=2", "q"),
                           ("epsdelta:eps=1,delta=2", "delta"), ("gdp", "mu"), ("gdp:mu=1,mu=2", "mu"),
                           ("curve:file=/nonexistent/curve.csv", "/nonexistent/curve.csv")):
            expect_usage_error(fdp, [cmd, spec], word)
        # no spec, unknown options, bad numbers
        expect_usage_error(fdp, [cmd])
        expect_usage_error(fdp, [cmd, "gdp:mu=1", "--bogus"], "bogus")
        expect_usage_error(fdp, [cmd, "gdp:mu=1", "--method", "magic"], "method")
        # a tiny scale names the scale (it failed as 'gaussian(mu=inf)' via the spec's own ratio)
        expect_usage_error(fdp, [cmd, "laplace:b=1e-320"], "b = ")
        for bad in ("0", "-1", "abc", "nan", "1.5"):
            expect_usage_error(fdp, [cmd, "laplace:b=1", "--tolerance", bad], "tolerance")
    for cmd in ("compose",):
        for opt, bad in (("--delta", "abc"), ("--delta", "2"), ("--delta", "-1e-5"), ("--delta", "nan"),
                         ("--eps", "abc"), ("--eps", "nan"), ("--eps", "inf"), ("--alpha", "-0.1"),
                         ("--alpha", "1.5"), ("--alpha", "x")):
            expect_usage_error(fdp, [cmd, "gdp:mu=1", opt, bad], opt.lstrip("-"))
        expect_usage_error(fdp, [cmd, "gdp:mu=1", "--delta"], "delta")
        expect_usage_error(fdp, [cmd, "laplace:b=1", "--method", "exact"], "exact")
        expect_usage_error(fdp, [cmd, "gdp:mu=1", "--curve-out", "/nonexistent/dir/c.csv"], "curve-out")
    for bad in ("1", "abc", "0", "-5"):
        expect_usage_error(fdp, ["curve", "gdp:mu=1", "--points", bad], "points")


def test_tolerance_flag(fdp):
    # assumptions.tolerance_met says whether the epsilon bracket at the tuned
    # delta is as narrow as --tolerance asks (it is certified either way)
    obj, what = compose_json(fdp, "laplace:b=10,times=100", "--delta", "1e-6")
    if obj is not None:
        n = obj["assumptions"]
        e = answers(obj, "epsilon")[0]
        width_ok = e["upper"] - e["lower"] <= n["tolerance"] * e["upper"]
        check(n["tolerance_met"] is True and width_ok, "%s: tolerance_met %r, bracket %r" % (what, n, e))
    # a tolerance the refinement cannot reach (1e-7 relative at delta 1e-10
    # is below the FFT's error floor for a 1000-fold subsampled Gaussian):
    # the flag must say so, and agree with the printed bracket
    obj, what = compose_json(fdp, "subsampled-gaussian:sigma=1,q=0.01,times=1000", "--delta", "1e-10",
                             "--tolerance", "1e-7")
    if obj is not None:
        e = answers(obj, "epsilon")[0]
        wide = e["upper"] - e["lower"] > obj["assumptions"]["tolerance"] * e["upper"]
        check(wide and obj["assumptions"]["tolerance_met"] is False,
              "%s: tolerance_met %r for bracket %r" % (what, obj["assumptions"]["tolerance_met"], e))
    # a subsampled Gaussian with sigma = 0.3 and small q (its optimistic side
    # used to collapse to Id: lower bound 0) now meets the default tolerance
    obj, what = compose_json(fdp, "subsampled-gaussian:sigma=0.3,q=0.004267", "--delta", "1e-5")
    if obj is not None:
        e = answers(obj, "epsilon")[0]
        wide = e["upper"] - e["lower"] > obj["assumptions"]["tolerance"] * e["upper"]
        check(e["lower"] > 0 and not wide and obj["assumptions"]["tolerance_met"] is True,
              "%s: tolerance_met %r for bracket %r" % (what, obj["assumptions"]["tolerance_met"], e))

    # a delta asked for at an epsilon, far below the default tuning (1e-5):
    # the grid is tuned again for it ([4.45e-10, 9.52e-10] before), and the
    # bracket agrees with the epsilon bracket at that delta
    obj, what = compose_json(fdp, "subsampled-gaussian:sigma=1,q=0.01,times=1000", "--eps", "3")
    if obj is not None:
        d = answers(obj, "delta")[0]
        check(0 < d["lower"] <= d["upper"] and d["upper"] - d["lower"] <= 0.05 * d["upper"],
              "%s: delta bracket %r" % (what, d))
        # the grid that answered it is reported beside the epsilon grid's
        # (it is finer: the delta was asked far below the default tuning)
        n = obj["numerics"]
        dq = n.get("delta_queries", {})
        check(0 < dq.get("grid_step", 0) < n["grid_step"] and dq.get("grid_points", 0) > n["grid_points"]
              and dq.get("grid_limit") == "none", "%s: numerics %r" % (what, n))
        obj2, what2 = compose_json(fdp, "subsampled-gaussian:sigma=1,q=0.01,times=1000", "--delta", repr(d["upper"]))
        if obj2 is not None:
            e = answers(obj2, "epsilon")[0]
            check(e["lower"] <= 3.0 * (1 + 1e-12), "%s: epsilon %r at delta %r (delta(3) <= it)" % (what2, e, d["upper"]))

    # a --delta below the mass at +inf (no finite epsilon) no longer takes
    # the tuning from the other queries: the 1e-3 bracket was 7% wide
    obj, what = compose_json(fdp, "laplace:b=5,times=3", "epsdelta:eps=0.3,delta=1e-7",
                             "subsampled-laplace:b=2,q=0.02,times=10000", "--delta", "1e-3", "--delta", "1e-10")
    if obj is not None:
        e, z = answers(obj, "epsilon")[0], answers(obj, "epsilon")[1]
        check(e["upper"] - e["lower"] <= obj["assumptions"]["tolerance"] * e["upper"] and z["lower"] is None
              and obj["assumptions"]["tolerance_met"] is True, "%s: %r %r" % (what, answers(obj, "epsilon"), obj["numerics"]))


def test_memory_ceiling(fdp):
    # --max-memory: sizes with K/M/G/T suffixes, 0 for none; anything else exit 2
    for cmd in ("compose", "curve", "group"):
        extra = ["--k", "2"] if cmd == "group" else []
        for bad in ("abc", "3", "1Q", "-1G", "2T"):
            expect_usage_error(fdp, [cmd, "gdp:mu=1", "--max-memory", bad] + extra, "max-memory")
    # a grid that would not fit is made coarser, says so, and stays certified
    # (G_1e-6 (x) G_1 is G_sqrt(1 + 1e-12): mpmath below)
    code, out, err = run(fdp, "compose", "gdp:mu=1e-6", "gdp:mu=1", "--method", "pld", "--max-memory", "64M")
    check(code == 0 and "coarser to fit the memory ceiling (--max-memory 64M)" in out,
          "coarsened grid note (%d, %r, %r)" % (code, out, err))
    obj, what = compose_json(fdp, "gdp:mu=1e-6", "gdp:mu=1", "--method", "pld", "--max-memory", "64M",
                             "--delta", "1e-5")
    if obj is not None:
        mu = mp.sqrt(1 + mpf("1e-12"))
        # GDP epsilon at delta: the root of Phi(-e/mu + mu/2) - e^e Phi(-e/mu - mu/2) = delta
        f = lambda e: mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2) - mpf("1e-5")
        truth = float(mp.findroot(f, 4.4))
        e = answers(obj, "epsilon")[0]
        check(obj["numerics"]["grid_limit"] == "coarsened" and e["lower"] <= truth <= e["upper"],
              "%s: %r around %r (%r)" % (what, e, truth, obj["numerics"]))
    # no composed window fits at all: Chernoff upper ends, trivial lower ends
    obj, what = compose_json(fdp, "gdp:mu=1,times=1000000000000", "--method", "pld")
    if obj is not None:
        e = answers(obj, "epsilon")[0]
        check(obj["numerics"]["grid_limit"] == "chernoff_only" and e["lower"] == 0 and e["upper"] >= 5e11,
              "%s: %r (%r)" % (what, e, obj["numerics"]))


def test_gdp_summaries(fdp):
    """Whole-curve mu omitted by default for subsampled specs; --mu-above."""
    sg = "subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062"
    obj, what = compose_json(fdp, sg)
    if obj is not None:
        check("mu" not in obj, "%s: whole-curve mu printed by default for a subsampled spec" % what)
    obj, what = compose_json(fdp, sg, "--mu")
    if obj is not None:
        # the cap sqrt(T)/sigma is the exact whole-curve summary here
        check(abs(obj["mu"]["upper"] - math.sqrt(14062) / 1.1) < 1e-6 * obj["mu"]["upper"],
              "%s: %r" % (what, obj.get("mu")))
    obj, what = compose_json(fdp, "gdp:mu=1.3", "--mu-above", "1e-6")
    if obj is not None:
        w = obj["mu_above"]["mu"]
        contains(what + " mu_above of G_1.3", w["lower"], w["upper"], 1.3)
        check(w["upper"] - w["lower"] < 1e-3, "%s: width %r" % (what, w))
    obj, what = compose_json(fdp, sg, "--mu-above", "1e-6")
    if obj is not None:
        w = obj["mu_above"]["mu"]
        check(0.5 < w["lower"] <= w["upper"] < 0.7, "%s: %r" % (what, w))
    expect_usage_error(fdp, ["compose", "gdp:mu=1", "--mu-above", "0.5"], "--mu-above")


def test_events(fdp):
    """--events: dp_accounting-shaped event files, as the specs they describe."""
    here = os.path.dirname(os.path.abspath(__file__))
    ex = os.path.join(here, "..", "..", "examples", "events", "dpsgd_then_queries.json")
    a, what = compose_json(fdp, "--events", ex, "--delta", "1e-5")
    b, _ = compose_json(fdp, "subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062",
                        "laplace:b=100,times=10", "zcdp:rho=0.01", "--delta", "1e-5")
    if a is not None and b is not None:
        check(a["queries"] == b["queries"], "%s: %r vs the hand-written specs %r"
              % (what, a["queries"], b["queries"]))
    code, out, err = run(fdp, "compose", "--events", ex + ".missing", "--json")
    check(code == 2 and json.loads(out)["error"]["message"].find("cannot be opened") >= 0,
          "--events of a missing file: exit %d %r" % (code, out))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write('{"type": "ComposedDpEvent", "events": [{"type": "BogusDpEvent"}]}')
    expect_usage_error(fdp, ["compose", "--events", f.name], "$.events[0]")
    os.unlink(f.name)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    fdp = sys.argv[1]
    for t in (test_shape, test_closed_forms, test_golden_containment, test_curves, test_degenerate, test_errors,
              test_tolerance_flag, test_memory_ceiling, test_gdp_summaries, test_events):
        n0 = len(failures)
        t(fdp)
        print("%s: %s" % (t.__name__, "ok" if len(failures) == n0 else "%d failures" % (len(failures) - n0)))
    print("%d checks, %d failures" % (checks[0], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

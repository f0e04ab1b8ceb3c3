#!/usr/bin/python3
"""CLI test of the spec kind discrete-laplace:t=T|eps=E[,sensitivity=D].

Usage: /usr/bin/python3 test_discrete_laplace.py PATH_TO_fdp   (exit 0 = all passed)

Against the mechanism written here from its definition (Canonne, Kamath &
Steinke 2020): Z on the integers with P(Z = z) = (1 - w)/(1 + w) w^|z|,
w = e^{-1/t}, the pair P = Z, Q = Z + D. Its outcomes z are enumerated and
grouped by j = min(max(z, 0), D) (the likelihood ratio depends on j only);
Neyman-Pearson on them gives f = T(P, Q), and their n-fold convolution the
exact delta(eps) of the n-fold composition:
  * `fdp curve` and `fdp compose --alpha` of one application bracket f;
  * `fdp compose --delta/--eps` of 5-fold compositions bracket the exact
    epsilon and delta;
  * `fdp group --k K` of one application brackets T(Z, Z + K D), the
    enumerated trade-off of sensitivity K D (group privacy is exact for
    this monotone-likelihood-ratio family);
  * D = 1 is f_{1/t,0}: the same answers as epsdelta:eps=1/t, bit for bit;
  * eps = D/t is an alias of t: the same answers in compose, compare, clt
    and group;
  * compare, clt, group, calibrate (t, eps, times), ledger add and audit
    --claim take the kind; an audit of the catalogue's discrete-laplace
    against a smaller claim finds the violation;
  * values outside the kind's domain (the key ranges, and D/t < 700,
    eps/D >= 1e-10 across keys) exit 2 with one line. (Bad keys and
    out-of-range values of every key in every command are also
    test_spec_table.py's, from the table.)
"""

import atexit
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fdp_json import answer, answers  # noqa: E402

FDP = sys.argv[1] if len(sys.argv) > 1 else "fdp"
TMP = tempfile.mkdtemp(prefix="fdp_dlap_cli_")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
failures = []
checks = [0]


def check(ok, msg):
    checks[0] += 1
    if not ok:
        failures.append(msg)
        print("FAIL: " + msg)
    return ok


def run(*args):
    p = subprocess.run([FDP, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def lattice(t, d):
    """[(P-mass, Q-mass)] of j = 0..D, summed over the enumerated z (|z| up to 60 t)."""
    w = math.exp(-1.0 / t)
    c = (1 - w) / (1 + w)
    n = int(math.ceil(60 * t))
    m = [[0.0, 0.0] for _ in range(d + 1)]
    for z in range(-n, d + n + 1):
        j = min(max(z, 0), d)
        m[j][0] += c * w ** abs(z)
        m[j][1] += c * w ** abs(z - d)
    return m


def convolve(a, b):
    out = [[0.0, 0.0] for _ in range(len(a) + len(b) - 1)]
    for i, (p1, q1) in enumerate(a):
        for k, (p2, q2) in enumerate(b):
            out[i + k][0] += p1 * p2
            out[i + k][1] += q1 * q2
    return out


def n_fold(t, d, n):
    one = lattice(t, d)
    r = [[1.0, 1.0]]
    for _ in range(n):
        r = convolve(r, one)
    return r


def f_exact(m, a):
    """T(P, Q)(a): reject the largest J (largest ratio Q/P) first."""
    acc_a, b = 0.0, 1.0
    for p, q in reversed(m):
        if acc_a + p >= a:
            return b - (a - acc_a) / p * q
        acc_a += p
        b -= q
    return 0.0


def delta_exact(m, eps):
    e = math.exp(eps)
    return sum(max(0.0, q - e * p) for p, q in m)


def eps_exact(m, delta):
    lo, hi = 0.0, 1.0
    if delta_exact(m, 0.0) <= delta:
        return 0.0
    while delta_exact(m, hi) > delta:
        lo, hi = hi, 2 * hi
    for _ in range(100):
        mid = (lo + hi) / 2
        if delta_exact(m, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def strip(j):
    """JSON answers without timings and the spec texts."""
    if isinstance(j, dict):
        return {k: strip(v) for k, v in j.items() if k not in ("seconds", "spec", "specs", "text")}
    if isinstance(j, list):
        return [strip(v) for v in j]
    return j


SLACK = 1e-12
# one application: curve and compose --alpha bracket f
for t, d in [(2.0, 3), (0.5, 2), (10.0, 5), (1.0, 1)]:
    spec = "discrete-laplace:t=%r,sensitivity=%d" % (t, d)
    m = lattice(t, d)
    rc, out, err = run("curve", spec, "--points", "33")
    if check(rc == 0, "curve %s: exit 0 (%r)" % (spec, err)):
        rows = [l.split(",") for l in out.strip().splitlines()[1:]]
        check(len(rows) >= 30, "curve %s: the points (%d)" % (spec, len(rows)))
        for a, lo, hi in rows:
            v = f_exact(m, float(a))
            check(float(lo) - SLACK <= v <= float(hi) + SLACK,
                  "curve %s at %s: [%s, %s] contains %r" % (spec, a, lo, hi, v))
    argv = ["compose", spec, "--json"]
    for a in [0.001, 0.05, 0.2, 0.5, 0.8]:
        argv += ["--alpha", repr(a)]
    rc, out, err = run(*argv)
    if check(rc == 0, "compose %s: exit 0 (%r)" % (spec, err)):
        for b in answers(json.loads(out), "beta"):
            v = f_exact(m, b["alpha"])
            check(b["lower"] - SLACK <= v <= b["upper"] + SLACK,
                  "compose %s beta at %r: [%r, %r] contains %r" % (spec, b["alpha"], b["lower"], b["upper"], v))

# 5-fold compositions: epsilon(delta) and delta(eps) against the enumeration
for t, d in [(2.0, 3), (4.0, 2), (1.0, 1)]:
    spec = "discrete-laplace:t=%r,sensitivity=%d,times=5" % (t, d)
    m = n_fold(t, d, 5)
    rc, out, err = run("compose", spec, "--delta", "1e-5", "--delta", "1e-3", "--eps", "1", "--eps", "3",
                       "--json")
    if check(rc == 0, "compose %s: exit 0 (%r)" % (spec, err)):
        j = json.loads(out)
        for e in answers(j, "epsilon"):
            v = eps_exact(m, e["delta"])
            check(e["lower"] - 1e-9 * v <= v <= e["upper"] + 1e-9 * v,
                  "compose %s epsilon at %r: [%r, %r] contains %r" % (spec, e["delta"], e["lower"], e["upper"], v))
        for e in answers(j, "delta"):
            v = delta_exact(m, e["epsilon"])
            check(e["lower"] - 1e-12 <= v <= e["upper"] + 1e-12,
                  "compose %s delta at %r: [%r, %r] contains %r" % (spec, e["epsilon"], e["lower"], e["upper"], v))

# group privacy: k neighbouring steps of size D are one step of size kD, and
# discrete Laplace is a monotone-likelihood-ratio family, so the group
# trade-off f o ... o f is T(Z, Z + kD) itself: group's bracket contains it
for t, d, k in [(2.0, 3, 2), (5.0, 1, 3), (1.5, 2, 4)]:
    spec = "discrete-laplace:t=%r,sensitivity=%d" % (t, d)
    m = lattice(t, k * d)
    argv = ["group", spec, "--k", str(k), "--json"]
    for a in [0.001, 0.05, 0.2, 0.5]:
        argv += ["--alpha", repr(a)]
    rc, out, err = run(*argv)
    if check(rc == 0, "group %s --k %d: exit 0 (%r)" % (spec, k, err)):
        for b in answers(json.loads(out), "beta"):
            v = f_exact(m, b["alpha"])
            check(b["lower"] - SLACK <= v <= b["upper"] + SLACK,
                  "group %s --k %d beta at %r: [%r, %r] contains T(Z, Z + %d) = %r"
                  % (spec, k, b["alpha"], b["lower"], b["upper"], k * d, v))

# D = 1 is f_{1/t,0}: the same composition as epsdelta, answer for answer
q = ["--delta", "1e-5", "--alpha", "0.1", "--eps", "1", "--mu", "--json"]
rc1, a, _ = run("compose", "discrete-laplace:t=4,times=40", *q)
rc2, b, _ = run("compose", "epsdelta:eps=0.25,times=40", *q)
check(rc1 == 0 and rc2 == 0 and strip(json.loads(a)) == strip(json.loads(b)),
      "discrete-laplace:t=4 (D = 1) composes as epsdelta:eps=0.25 (%s vs %s)" % (a[:300], b[:300]))

# eps = D/t is the same mechanism as t, answer for answer
for x, y in [("discrete-laplace:eps=1.5,sensitivity=3,times=20", "discrete-laplace:t=2,sensitivity=3,times=20"),
             ("discrete-laplace:eps=0.5,times=10", "discrete-laplace:t=2,times=10")]:
    for argv in (["compose", "--delta", "1e-5", "--alpha", "0.1", "--eps", "2"], ["compare", "--delta", "1e-5"],
                 ["clt", "--edgeworth"], ["group", "--k", "2", "--delta", "1e-5"]):
        ra, oa, ea = run(argv[0], x, *argv[1:], "--json")
        rb, ob, eb = run(argv[0], y, *argv[1:], "--json")
        check(ra == 0 and rb == 0 and strip(json.loads(oa)) == strip(json.loads(ob)),
              "fdp %s: %s and %s give the same answers (%r %r)" % (argv[0], x, y, ea, eb))

# the other accountants take it
spec = "discrete-laplace:t=20,sensitivity=3,times=50"
for argv in (["compare", spec, "--delta", "1e-5"], ["clt", spec, "--edgeworth"],
             ["group", spec, "--k", "2", "--delta", "1e-5"],
             ["calibrate", "discrete-laplace:sensitivity=3,times=50", "--solve", "t", "--eps", "2",
              "--delta", "1e-5"],
             ["calibrate", "discrete-laplace:sensitivity=3,times=50", "--solve", "eps", "--eps", "2",
              "--delta", "1e-5"],
             ["calibrate", "discrete-laplace:t=20,sensitivity=3", "--solve", "times", "--eps", "2",
              "--delta", "1e-5"]):
    rc, out, err = run(*argv)
    check(rc == 0 and err == "", "fdp %s: exit 0, nothing on stderr (%d, %r)" % (" ".join(argv), rc, err))

# calibrate t: the answer's composition meets the target, and the exact epsilon
# of the calibrated mechanism (1-fold, enumerated) is the target where it binds
rc, out, err = run("calibrate", "discrete-laplace:sensitivity=2", "--solve", "t", "--eps", "1", "--delta", "1e-6",
                   "--json")
if check(rc == 0, "calibrate --solve t (%r)" % err):
    tv = json.loads(out)["solve"]["value"]
    v = eps_exact(lattice(tv, 2), 1e-6)
    check(0.99 <= v <= 1.0 + 1e-9, "calibrated t = %r: exact epsilon %r is at most, and near, 1" % (tv, v))

ledger = os.path.join(TMP, "ledger.json")
# (plan mode: the tight composition, whose groups are checked here)
rc, _, err = run("ledger", "init", "--budget-eps", "5", "--delta", "1e-5", "--mode", "plan", ledger)
check(rc == 0, "ledger init (%r)" % err)
for s in ("discrete-laplace:t=20,sensitivity=3,times=20", "discrete-laplace:t=20,sensitivity=3,times=30"):
    rc, out, err = run("ledger", "add", ledger, s, "--json")
    check(rc == 0, "ledger add %s (%r)" % (s, err))
if rc == 0:
    j = json.loads(out)
    check(j["groups"] == 1 and j["applications"] == 50,
          "one group of 50 applications (%r)" % {k: j[k] for k in ("groups", "applications")})

# audit --claim: the catalogue's mechanism is consistent with its own claim,
# and a larger eps is caught against the smaller claim (exit 3)
base = ["audit", "--input0", "0", "--input1", "3", "--claim", "discrete-laplace:t=2,sensitivity=3", "--json"]
rc, out, err = run(*base, "--mechanism", "discrete-laplace:eps=1.5,sensitivity=3", "--samples", "20000")
check(rc == 0 and json.loads(out)["verdict"] == "consistent",
      "audit of discrete-laplace:eps=1.5,sensitivity=3 against its claim: consistent (%d, %r, %s)" % (rc, err, out[:200]))
rc, out, err = run(*base, "--mechanism", "discrete-laplace:eps=4,sensitivity=3", "--samples", "200000")
check(rc == 3 and json.loads(out)["verdict"] == "violation",
      "audit of discrete-laplace:eps=4,sensitivity=3 against the t=2 claim: violation (%d, %r, %s)" % (rc, err, out[:200]))

# values outside the domain: exit 2, one line naming the problem
for spec, needle in [("discrete-laplace:t=0", "t = 0 must be in (0, 1e+10]"),
                     ("discrete-laplace:t=2e10", "t = 2e+10 must be in (0, 1e+10]"),
                     ("discrete-laplace:eps=700", "eps = 700 must be in (0, 700)"),
                     ("discrete-laplace:t=1,sensitivity=0", "sensitivity: '0' must be an integer in [1, 10000]"),
                     ("discrete-laplace:t=1,sensitivity=1.5", "sensitivity: '1.5' must be an integer"),
                     ("discrete-laplace:t=1,eps=1", "eps"),
                     ("discrete-laplace:t=0.01,sensitivity=10", "sensitivity / t = 1000 must be < 700"),
                     ("discrete-laplace:eps=1e-7,sensitivity=10000", "eps / sensitivity = 1e-11 must be >= 1e-10")]:
    for argv in (["compose", spec], ["curve", spec, "--points", "3"], ["group", spec, "--k", "2"],
                 ["compare", spec, "--delta", "1e-5"], ["clt", spec]):
        rc, out, err = run(*argv)
        lines = [l for l in err.splitlines() if l.strip()]
        check(rc == 2 and out == "" and len(lines) == 1 and needle in err,
              "fdp %s: exit 2, one line naming %r (%d, %r)" % (" ".join(argv), needle, rc, err))

print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)

#!/usr/bin/python3
"""CLI test of the spec kind randomized-response:eps=E[,k=K] (k-ary RR).

Usage: /usr/bin/python3 test_randomized_response.py PATH_TO_fdp   (exit 0 = all passed)

Against its closed-form trade-off function, written here from the
definition (the truth w.p. p = e^eps / (e^eps + k - 1), each other category
w.p. q = 1 / (e^eps + k - 1); Kairouz, Oh & Viswanath 2016):
  f(alpha) = max{0, 1 - e^eps alpha, k / (e^eps + k - 1) - alpha, e^-eps (1 - alpha)},
which for k = 2 is f_{eps,0} (Dong, Roth & Su 2022, Sec. 2.2):
  * `fdp curve` and `fdp compose --alpha` of one application bracket f;
  * k = 2 composes exactly as epsdelta:eps=E (the same answers, bit for bit);
  * compare, clt, group, calibrate and ledger take the kind.
Bad keys and out-of-range values are test_spec_table.py's (from the table).
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
TMP = tempfile.mkdtemp(prefix="fdp_rr_cli_")
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


def f_closed(eps, k, a):
    e = math.exp(eps)
    return max(0.0, 1 - e * a, k / (e + k - 1) - a, (1 - a) / e)


def strip(j):
    """JSON answers without timings and the spec texts."""
    if isinstance(j, dict):
        return {k: strip(v) for k, v in j.items() if k not in ("seconds", "spec", "specs", "text")}
    if isinstance(j, list):
        return [strip(v) for v in j]
    return j


SLACK = 1e-12
for eps, k in [(1.0, 4), (0.5, 3), (2.0, 10), (0.1, 2)]:
    spec = "randomized-response:eps=%r,k=%d" % (eps, k)
    rc, out, err = run("curve", spec, "--points", "33")
    if check(rc == 0, "curve %s: exit 0 (%r)" % (spec, err)):
        rows = [l.split(",") for l in out.strip().splitlines()[1:]]
        check(len(rows) >= 30, "curve %s: the points (%d)" % (spec, len(rows)))
        for a, lo, hi in rows:
            t = f_closed(eps, k, float(a))
            check(float(lo) - SLACK <= t <= float(hi) + SLACK,
                  "curve %s at %s: [%s, %s] contains %r" % (spec, a, lo, hi, t))
    alphas = [0.001, 0.05, 0.2, 0.5, 0.8]
    argv = ["compose", spec, "--json"]
    for a in alphas:
        argv += ["--alpha", repr(a)]
    rc, out, err = run(*argv)
    if check(rc == 0, "compose %s: exit 0 (%r)" % (spec, err)):
        for b in answers(json.loads(out), "beta"):
            t = f_closed(eps, k, b["alpha"])
            check(b["lower"] - SLACK <= t <= b["upper"] + SLACK,
                  "compose %s beta at %r: [%r, %r] contains %r" % (spec, b["alpha"], b["lower"], b["upper"], t))

# k = 2 is f_{eps,0}: the same composition as epsdelta, answer for answer
q = ["--delta", "1e-5", "--alpha", "0.1", "--eps", "1", "--mu", "--json"]
rc1, a, _ = run("compose", "randomized-response:eps=0.3,times=40", *q)
rc2, b, _ = run("compose", "epsdelta:eps=0.3,times=40", *q)
check(rc1 == 0 and rc2 == 0 and strip(json.loads(a)) == strip(json.loads(b)),
      "randomized-response:eps=0.3 (k = 2) composes as epsdelta:eps=0.3 (%s vs %s)" % (a[:300], b[:300]))

# the other accountants take it
spec = "randomized-response:eps=0.2,k=5,times=50"
for argv in (["compare", spec, "--delta", "1e-5"], ["clt", spec, "--edgeworth"],
             ["group", spec, "--k", "2", "--delta", "1e-5"],
             ["calibrate", "randomized-response:k=5,times=50", "--solve", "eps", "--eps", "2",
              "--delta", "1e-5"],
             ["calibrate", "randomized-response:eps=0.2,k=5", "--solve", "times", "--eps", "2",
              "--delta", "1e-5"]):
    rc, out, err = run(*argv)
    check(rc == 0 and err == "", "fdp %s: exit 0, nothing on stderr (%d, %r)" % (" ".join(argv), rc, err))
ledger = os.path.join(TMP, "ledger.json")
# (plan mode: the tight composition, whose groups are checked here)
rc, _, err = run("ledger", "init", "--budget-eps", "5", "--delta", "1e-5", "--mode", "plan", ledger)
check(rc == 0, "ledger init (%r)" % err)
for s in ("randomized-response:eps=0.2,k=5,times=20", "randomized-response:eps=0.2,k=5,times=30"):
    rc, out, err = run("ledger", "add", ledger, s, "--json")
    check(rc == 0, "ledger add %s (%r)" % (s, err))
if rc == 0:
    j = json.loads(out)
    check(j["groups"] == 1 and j["applications"] == 50,
          "one group of 50 applications (%r)" % {k: j[k] for k in ("groups", "applications")})

print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)

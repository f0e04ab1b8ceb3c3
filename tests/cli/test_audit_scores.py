#!/usr/bin/python3
"""CLI tests for `fdp audit --scores FILE` (canary scores over many runs) and
`fdp audit --one-run FILE` (one run, Steinke, Nasr & Jagielski 2023), on
scores simulated by `fdp sample --gdp-scores MU` (exactly MU-GDP), and on the
bad input of issue 27: a class of a canary empty, inclusion bits other than
0/1, fewer canaries than guesses, confidence outside (0, 1), options of the
sampling audit given to a score audit. Bad input: exit 2, one line on
stderr, nothing on stdout (the JSON error object with --json).

Usage: /usr/bin/python3 test_audit_scores.py PATH_TO_fdp   (exit 0 = pass)
"""
import atexit
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

FDP = sys.argv[1] if len(sys.argv) > 1 else "fdp"
TMP = tempfile.mkdtemp(prefix="fdp_audit_scores_")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)
failures = []


def run(*args):
    p = subprocess.run([FDP, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)


def path(name):
    return os.path.join(TMP, name)


def write(name, text):
    with open(path(name), "w") as fh:
        fh.write(text)
    return path(name)


def bad(args, needle, what):
    rc, out, err = run("audit", *args)
    check(rc == 2, "%s: exit 2 (got %d, %r)" % (what, rc, err))
    check(err.count("\n") == 1 and needle in err, "%s: one line naming %r (%r)" % (what, needle, err))
    check(out == "", "%s: nothing on stdout (%r)" % (what, out[:200]))
    rc, out, err = run("audit", *args, "--json")
    check(rc == 2 and err == "" and "error" in json.loads(out or "{}"),
          "%s: JSON error object (%d, %r)" % (what, rc, out[:200]))


def sim(name, mu, runs, canaries, seed=1):
    rc, _, err = run("sample", "--gdp-scores", str(mu), "--runs", str(runs), "--canaries",
                     str(canaries), "--seed", str(seed), "--out", path(name))
    check(rc == 0, "fdp sample --gdp-scores: exit 0 (%r)" % err)
    return path(name)


# --- many runs ------------------------------------------------------------------
many = sim("many.csv", 2, 1000, 2)
rc, out, err = run("audit", "--scores", many, "--claim", "gdp:mu=1", "--delta", "1e-5", "--json",
                   "--curve-out", path("c.csv"))
check(rc == 3, "mu = 2 scores vs a 1-GDP claim: exit 3 (%d, %r)" % (rc, err))
d = json.loads(out)
check(d.get("kind") == "canary_scores" and d.get("verdict") == "violation", "kind and verdict")
check(0 < d["mu"]["lower"] <= 2.0, "certified mu_lower in (0, 2] (%s)" % d["mu"])
check(d["gdp_fit"]["is_bound"] is False and abs(d["gdp_fit"]["estimate"] - 2) < 0.3,
      "GDP fit labelled an estimate, near 2 (%s)" % d["gdp_fit"])
check(len(d["canaries"]) == 2 and d["witness"] is not None, "two canaries, a witness")
with open(path("c.csv")) as fh:
    rows = list(csv.reader(fh))
check(rows[0] == ["alpha", "beta_upper", "beta_estimate"], "score curve header (%s)" % rows[0])
rc, out, err = run("audit", "--scores", many, "--claim", "gdp:mu=2.5")
check(rc == 0 and "verdict: consistent" in out and "ESTIMATE, not a bound" in out,
      "true claim: consistent, the fit labelled (%d, %r)" % (rc, out))
rc, out, err = run("audit", "--scores", many)
check(rc == 0 and "verdict" not in out and "mu >= " in out, "no claim: bounds only (%r)" % out)

# --- one run --------------------------------------------------------------------
one = sim("one.csv", 2, 1, 1000)
rc, out, err = run("audit", "--one-run", one, "--guesses", "200", "--delta", "1e-5", "--json")
d = json.loads(out)
check(rc == 0 and d.get("kind") == "one_run" and d["guesses"] == 200 and d["canaries"] == 1000,
      "one run: shape (%d, %s)" % (rc, out[:300]))
check(d["correct"] > 150 and d["queries"][0]["epsilon"]["lower"] > 1,
      "mu = 2: many correct guesses, epsilon > 1 (%s)" % d["queries"])
rc, out, err = run("audit", "--one-run", one, "--guesses", "200", "--delta", "1e-5",
                   "--claim", "epsdelta:eps=0.5,delta=1e-5")
check(rc == 3 and "verdict: violation" in out, "one run vs eps = 0.5: violation (%d, %r)" % (rc, out))
# a GDP claim at delta 0: the (epsilon, delta) test has nothing to test, the
# f-DP test judges the curve (mu = 2 data: mu = 1 is contradicted, 2.5 not)
rc, out, err = run("audit", "--one-run", one, "--guesses", "200", "--claim", "gdp:mu=1")
check(rc == 3 and "verdict: violation" in out and "f-DP test" in out and "mu >= " in out,
      "GDP claim below the truth: violation by the f-DP test (%d, %r)" % (rc, out))
rc, out, err = run("audit", "--one-run", one, "--guesses", "200", "--claim", "gdp:mu=2.5",
                   "--json")
d = json.loads(out)
check(rc == 0 and d["verdict"] == "consistent" and d["tests"]["f_dp"]["claim_rejected"] is False
      and d["tests"]["epsilon_delta"]["p_value_at_claim"] is None and 0 < d["mu_lower"] < 2,
      "GDP claim above the truth: consistent, mu_lower below the truth (%d, %s)" % (rc, out[:400]))

# --- bad input ------------------------------------------------------------------
bad(["--scores", write("oneclass.csv", "score,in,canary,run\n1,1,a,r1\n2,1,a,r2\n")],
    "canary 'a' has no 'out' scores", "a canary without out scores")
bad(["--scores", write("bit.csv", "1,1,a,r1\n0.5,2,a,r2\n")],
    "bit.csv:2: inclusion bit '2' must be 0 (out) or 1 (in)", "inclusion bit 2")
bad(["--one-run", write("few.csv", "1,1\n0,0\n0.5,1\n")] + ["--guesses", "4"],
    "guesses", "more guesses than canaries")
bad(["--one-run", write("dup.csv", "1,1,a\n0,0,a\n")], "canary 'a' is listed twice", "duplicate canary")
bad(["--one-run", write("allin.csv", "1,1\n0,1\n")], "every canary has in = 1", "one class empty (one run)")
for c in ("0", "1", "1.5"):
    bad(["--scores", many, "--confidence", c], "--confidence", "confidence %s" % c)
bad(["--scores", many, "--guesses", "3"], "--guesses applies to --one-run", "--guesses with --scores")
bad(["--scores", many, "--mechanism", "laplace:eps=1"], "--mechanism does not apply", "mixed sources")
bad(["--scores", many, "--one-run", one], "not both", "two score sources")
bad(["--one-run", one, "--curve-out", path("x.csv")], "--curve-out applies to --scores", "one-run curve")

if failures:
    print("FAILED (%d):" % len(failures))
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("test_audit_scores: all checks passed")

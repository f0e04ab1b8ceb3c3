#!/usr/bin/python3
"""CLI tests for `fdp mechanisms` and `fdp sample` (exit codes, output format,
bad input -> exit 2 with one line on stderr).

Usage: /usr/bin/python3 test_mechanisms.py PATH_TO_fdp   (exit 0 = pass)
"""
import json
import math
import os
import subprocess
import sys
import tempfile

FDP = sys.argv[1] if len(sys.argv) > 1 else "fdp"
failures = []


def run(*args):
    p = subprocess.run([FDP, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)


def is_number(s):
    try:
        return math.isfinite(float(s))
    except ValueError:
        return False


# --- fdp mechanisms -------------------------------------------------------
rc, out, err = run("mechanisms")
check(rc == 0, "mechanisms: exit 0")
for name in ["laplace", "discrete-laplace", "gaussian", "randomized-response", "exponential",
             "report-noisy-max", "noisy-argmax-exp", "above-threshold", "sparse",
             "svt-lyu-alg3", "svt-lyu-alg4", "svt-lyu-alg5", "svt-lyu-alg6",
             "noisy-max-value-laplace", "noisy-max-value-exp", "histogram-inverted-scale",
             "laplace-fp-textbook"]:
    check(("  " + name + "\n") in out, "mechanisms lists " + name)
check("Known-flawed" in out, "mechanisms: flawed section")
check(out.index("Known-flawed") > out.index("  sparse\n"), "flawed listed after correct ones")

rc, out, err = run("mechanisms", "--json")
check(rc == 0, "mechanisms --json: exit 0")
cat = json.loads(out)["mechanisms"]
check(len(cat) == 17, "17 catalogue entries")
for m in cat:
    for key in ["name", "flawed", "summary", "params", "claim", "neighbours", "output", "example"]:
        check(key in m, "entry %s has %s" % (m.get("name"), key))
    # every example runs
    ex = m["example"]
    rc2, o2, e2 = run("sample", "--mechanism", ex["spec"], "--input",
                      ",".join(repr(float(x)) for x in ex["input"]), "--samples", "5")
    check(rc2 == 0 and len(o2.splitlines()) == 5, "example of %s samples (%s)" % (m["name"], e2))

rc, out, err = run("mechanisms", "svt-lyu-alg4:eps=0.1,c=1", "--json")
check(rc == 0, "describe flawed: exit 0")
d = json.loads(out)
check(d["flawed"] is True and d["claim"] == "f_{0.1,0}", "alg4 flawed, claim f_{0.1,0}")
check(abs(d["pairs"][0]["true_epsilon"] - 0.175) < 1e-12, "alg4 true eps 0.175")
check(d["pairs"][0]["input0"] == [1.0] * 10, "alg4 pair input0")

rc, out, err = run("mechanisms", "noisy-max-value-exp:eps=0.1", "--json")
d = json.loads(out)
check(d["pairs"][0]["true_epsilon"] is None and d["pairs"][0]["true_epsilon_unbounded"],
      "unbounded true eps is null + flag")

rc, out, err = run("mechanisms", "laplace:b=10")
check(rc == 0 and "Lap_0.1" in out and "f_{0.1,0}" in out, "describe laplace b=10")

rc, out, err = run("mechanisms", "--help")
check(rc == 0 and "example" in out, "mechanisms --help")

# --- fdp sample -----------------------------------------------------------
# a full device: one line naming the failure and exit 1, never an abort
# (the writer's destructor once threw a second exception and aborted)
if os.path.exists("/dev/full"):
    for n in ("10", "100000"):
        rcf, _, errf = run("sample", "--mechanism", "laplace:eps=0.1", "--input", "1",
                           "--samples", n, "--out", "/dev/full")
        check(rcf == 1 and errf.strip().count("\n") == 0 and "write failed" in errf,
              "sample to a full device (%s samples): exit 1, one line (%d, %r)" % (n, rcf, errf))
rc, out, err = run("sample", "--mechanism", "laplace:eps=0.1", "--input", "1", "--samples", "1000",
                   "--seed", "7")
lines = out.splitlines()
check(rc == 0 and len(lines) == 1000, "sample laplace: 1000 lines")
check(all(is_number(x) for x in lines), "laplace lines are numbers")
vals = [float(x) for x in lines]
check(abs(sum(vals) / len(vals) - 1) < 5 * 10 * math.sqrt(2) / math.sqrt(1000), "laplace mean ~1")
rc2, out2, _ = run("sample", "--mechanism", "laplace:eps=0.1", "--input", "1", "--samples", "1000",
                   "--seed", "7")
check(out2 == out, "same seed, same lines")
rc3, out3, _ = run("sample", "--mechanism", "laplace:eps=0.1", "--input", "1", "--samples", "1000",
                   "--seed", "7", "--shard", "1")
check(out3 != out, "another shard, other lines")
# a prefix of a longer run is the shorter run
rc4, out4, _ = run("sample", "--mechanism", "laplace:eps=0.1", "--input", "1", "--samples", "20000",
                   "--seed", "7")
check(out4.splitlines()[:1000] == lines, "prefix property")

# outputs that overflow are an error, never an "inf" line (sample files take finite numbers)
rc, out, err = run("sample", "--mechanism", "gaussian:sigma=1e308", "--input", "1", "--samples", "100")
check(rc == 1 and "overflowed" in err and len(err.strip().splitlines()) == 1
      and all(is_number(x) and math.isfinite(float(x)) for x in out.splitlines()),
      "sample: overflowing outputs end with one error line (%d, %r)" % (rc, err))

rc, out, err = run("sample", "--mechanism", "gaussian:mu=1", "--input", "1,2,3", "--samples", "10")
rows = [l.split(",") for l in out.splitlines()]
check(rc == 0 and len(rows) == 10 and all(len(r) == 3 and all(is_number(x) for x in r)
                                          for r in rows), "gaussian vectors")

rc, out, err = run("sample", "--mechanism", "report-noisy-max:eps=0.1", "--input", "1,1,1,1,1",
                   "--samples", "50")
toks = out.splitlines()
check(rc == 0 and all(t in {"r0", "r1", "r2", "r3", "r4"} for t in toks), "noisy max tokens")

rc, out, err = run("sample", "--mechanism", "above-threshold:eps=0.1,threshold=0.5", "--input",
                   "0,0,0,0,0,1,1,1,1,1", "--samples", "50")
toks = out.splitlines()
check(rc == 0 and all(len(t) == 10 and set(t) <= set("TF-") and t.count("T") <= 1 for t in toks),
      "svt tokens")

rc, out, err = run("sample", "--mechanism", "discrete-laplace:eps=1", "--input", "3,4",
                   "--samples", "20")
check(rc == 0 and all(float(x) == int(float(x)) for l in out.splitlines() for x in l.split(",")),
      "discrete laplace integers")

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "s.txt")
    rc, out, err = run("sample", "--mechanism", "randomized-response:eps=1,k=3", "--input", "2",
                       "--samples", "30", "--out", path)
    check(rc == 0 and out == "", "--out writes nothing on stdout")
    with open(path) as f:
        check(len(f.read().splitlines()) == 30, "--out file has 30 lines")

rc, out, err = run("sample", "--help")
check(rc == 0 and "example" in out and "--shard" in out, "sample --help")

# --- bad input: exit 2, one line on stderr naming the problem --------------
bad = [
    (["sample", "--mechanism", "nosuch:eps=1", "--input", "1", "--samples", "3"], "unknown"),
    (["sample", "--mechanism", "laplace:eps=0", "--input", "1", "--samples", "3"], "eps"),
    (["sample", "--mechanism", "laplace:eps=-1", "--input", "1", "--samples", "3"], "eps"),
    (["sample", "--mechanism", "laplace:eps=1,foo=1", "--input", "1", "--samples", "3"], "foo"),
    (["sample", "--mechanism", "laplace:eps=1", "--input", "", "--samples", "3"], "input"),
    (["sample", "--mechanism", "laplace:eps=1", "--input", "1,nan", "--samples", "3"], "input"),
    (["sample", "--mechanism", "laplace:eps=1", "--input", "1,inf", "--samples", "3"], "input"),
    (["sample", "--mechanism", "laplace:eps=1", "--input", "1,,2", "--samples", "3"], "input"),
    (["sample", "--mechanism", "laplace:eps=1", "--input", "1", "--samples", "0"], "samples"),
    (["sample", "--mechanism", "laplace:eps=1", "--input", "1", "--samples", "x"], "samples"),
    (["sample", "--mechanism", "laplace:eps=1", "--input", "1"], "samples"),
    (["sample", "--mechanism", "laplace:eps=1", "--input", "1", "--samples", "3", "--seed", "-1"],
     "seed"),
    (["sample", "--mechanism", "sparse:eps=1,threshold=0,c=0", "--input", "1", "--samples", "3"],
     "c="),
    (["sample", "--mechanism", "sparse:eps=1,threshold=0,delta=1", "--input", "1", "--samples",
      "3"], "delta"),
    (["sample", "--mechanism", "gaussian:eps=1,delta=-0.1", "--input", "1", "--samples", "3"],
     "delta"),
    (["sample", "--mechanism", "randomized-response:eps=1", "--input", "5", "--samples", "3"],
     "answers[0]"),
    (["sample", "--mechanism", "laplace:eps=1", "--input", "1", "--samples", "3", "--bogus"],
     "bogus"),
    (["mechanisms", "nosuch:eps=1"], "unknown"),
    (["mechanisms", "laplace:eps=1", "gaussian:mu=1"], "at most one"),
]
for args, needle in bad:
    rc, out, err = run(*args)
    check(rc == 2, "exit 2 for %s (got %d)" % (" ".join(args), rc))
    check(len(err.strip().splitlines()) == 1 and needle in err,
          "one-line error naming '%s' for %s: %r" % (needle, " ".join(args), err))
    check(out == "", "no stdout on error for %s" % " ".join(args))

if failures:
    print("FAILED (%d):" % len(failures))
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("test_mechanisms: all passed")

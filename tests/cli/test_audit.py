#!/usr/bin/python3
"""CLI tests for `fdp audit` (docs/cli.md): JSON shape, exit codes (0, 3 on
a certified violation, 2 with one line on stderr for bad input), sample files
written by `fdp sample`, the curve CSV read by plots/plot_audit.py, shards.

Usage: /usr/bin/python3 test_audit.py PATH_TO_fdp   (exit 0 = pass)
"""
import atexit
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fdp_json import answer  # noqa: E402

FDP = sys.argv[1] if len(sys.argv) > 1 else "fdp"
failures = []
TMP = tempfile.mkdtemp(prefix="fdp_audit_cli_")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)


def run(*args):
    p = subprocess.run([FDP, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)


def path(name):
    return os.path.join(TMP, name)


def bad(args, needle, what):
    rc, out, err = run("audit", *args)
    check(rc == 2, "%s: exit 2 (got %d, stderr %r)" % (what, rc, err))
    check(err.count("\n") == 1, "%s: one line on stderr (%r)" % (what, err))
    check(needle in err, "%s: stderr names %r (%r)" % (what, needle, err))
    check(out == "", "%s: nothing on stdout" % what)


# --- help --------------------------------------------------------------------
rc, out, err = run("audit", "--help")
check(rc == 0 and "usage: fdp audit" in out and "examples:" in out, "audit --help")
rc, out, err = run("--help")
check("audit" in out, "fdp --help lists audit")

# --- a correct mechanism: consistent, JSON shape (CLI.md) ---------------------
rc, out, err = run("audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                   "--samples", "200000", "--json", "--curve-out", path("lap.csv"))
check(rc == 0, "laplace audit: exit 0 (%s)" % err)
d = json.loads(out)
for key in ["fdp", "verdict", "assumptions", "samples", "queries", "mu", "witness", "timing"]:
    check(key in d, "JSON has %s" % key)
check(d["verdict"] == "consistent", "laplace eps=1 is consistent with its claim")
check(d["assumptions"]["confidence"] == 0.95, "default confidence 0.95")
check(d["samples"] == [200000, 200000], "samples per side")
check(answer(d, "epsilon")["delta"] == 0.0, "epsilon lower bound at delta 0")
check(0.8 < answer(d, "epsilon")["lower"] <= 1.0 and answer(d, "epsilon")["upper"] is None,
      "laplace epsilon lower bound in (0.8, 1], no upper (%s)" % d["queries"])
check(d["witness"] is None, "no witness when consistent")
check(d["oracle"] is not None and d["oracle"]["ratio"] > 0.85, "oracle ratio printed (%s)" % d.get("oracle"))
check(d["error_budget"] <= 0.05 + 1e-12, "error budget within 1 - confidence")
check(all(t["alpha_upper"] >= t["alpha_estimate"] and t["beta_upper"] >= t["beta_estimate"]
          for t in d["tests"]), "upper bounds above the estimates")

# the curve CSV: header, columns in order, band ordered, beta_upper non-increasing
with open(path("lap.csv")) as fh:
    rows = list(csv.reader(fh))
check(rows[0] == ["alpha", "tests_beta_lower", "beta_upper", "beta_estimate"], "curve header")
vals = [[float(x) for x in r] for r in rows[1:]]
check(len(vals) > 100, "curve has points")
check(vals[0][0] == 0.0 and vals[-1][0] == 1.0, "curve spans [0, 1]")
check(all(r[1] <= r[3] + 1e-12 <= r[2] + 2e-12 for r in vals), "tests_beta_lower <= estimate <= upper")
check(all(vals[i + 1][2] <= vals[i][2] + 1e-12 for i in range(len(vals) - 1)), "beta_upper non-increasing")
# the plot script reads it
plot = os.path.join(os.environ.get("FDP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                    "plots", "fdpplot.py")
if os.path.exists(plot):
    sys.path.insert(0, os.path.dirname(plot))
    try:
        import fdpplot
        c = fdpplot.read_curve_csv(path("lap.csv"))
        check(c.estimate is not None, "fdpplot reads beta_estimate")
    except SystemExit:
        check(False, "fdpplot.read_curve_csv accepts the curve")
    except ImportError:
        pass  # matplotlib/numpy missing: not this test's business

# human output
rc, out, err = run("audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                   "--samples", "50000", "--tests")
check(rc == 0 and "verdict: consistent" in out and "epsilon >=" in out and "[epsilon" in out,
      "human output (%s)" % out[:200])

# --- a flawed mechanism: exit 3, witness -------------------------------------
rc, out, err = run("audit", "--mechanism", "gaussian:sigma=0.8", "--input0", "0", "--input1", "1",
                   "--claim", "gdp:mu=1", "--samples", "200000", "--json")
check(rc == 3, "sigma=0.8 claimed 1-GDP: exit 3 (got %d)" % rc)
d = json.loads(out)
check(d["verdict"] == "violation", "violation verdict")
w = d["witness"]
check(w is not None and w["beta"] < w["claim_beta"], "witness beta < claim_beta")
check(d["mu"]["lower"] > 1.0, "mu lower bound above the claimed 1 (%s)" % d["mu"])
check(d["claim"] == "gdp:mu=1", "claim text")

rc, out, err = run("audit", "--mechanism", "svt-lyu-alg5:eps=1", "--input0", "2,2,2,2,2,0,0,0,0,0",
                   "--input1", "1,1,1,1,1,1,1,1,1,1", "--samples", "100000", "--json")
check(rc == 3, "svt alg5: exit 3")
check(answer(json.loads(out), "epsilon")["lower"] > 6, "support bug: epsilon_lower not capped at ln(100)")

# composed claim and --delta
rc, out, err = run("audit", "--mechanism", "laplace:eps=0.5", "--input0", "0", "--input1", "1",
                   "--claim", "laplace:b=1,times=2", "--samples", "50000", "--delta", "1e-3", "--json")
check(rc in (0, 3), "composed claim runs (%s)" % err)
if rc in (0, 3):
    d = json.loads(out)
    check(d["verdict"] != "violation", "Lap(2) is below the 2-fold Lap(1) claim")
    check(answer(d, "epsilon")["delta"] == 1e-3, "delta echoed")

# --- determinism: same seed, different thread counts --------------------------
outs = []
for t in ("1", "2"):
    rc, out, err = run("audit", "--mechanism", "report-noisy-max:eps=1", "--input0", "1,1,1",
                       "--input1", "0,2,2", "--samples", "50000", "--seed", "5", "--threads", t, "--json")
    outs.append(answer(json.loads(out), "epsilon")["lower"])
check(outs[0] == outs[1], "thread count does not change the result (%s)" % outs)

# --- black-box files ----------------------------------------------------------
for side, inp in (("a", "1,1,1"), ("b", "0,2,2")):
    rc, _, err = run("sample", "--mechanism", "report-noisy-max:eps=1", "--input", inp,
                     "--samples", "100000", "--seed", "3", "--out", path(side + ".txt"))
    check(rc == 0, "sample %s (%s)" % (side, err))
rc, out, err = run("audit", "--samples0", path("a.txt"), "--samples1", path("b.txt"),
                   "--claim", "epsdelta:eps=0.5", "--json")
check(rc == 3, "RNM eps=1 files vs claim eps=0.5: violation (exit %d, %s)" % (rc, err))
d = json.loads(out)
check(d["samples"] == [100000, 100000], "file line counts")
check(d["oracle"] is None, "no oracle for files")
rc, out, err = run("audit", "--samples0", path("a.txt"), "--samples1", path("b.txt"),
                   "--claim", "epsdelta:eps=1", "--json")
check(rc == 0 and json.loads(out)["verdict"] == "consistent", "RNM eps=1 files consistent with eps=1")

# --- shards: plan, extra evaluation outputs, merge ----------------------------
common = ["--mechanism", "gaussian:sigma=1", "--input0", "0", "--input1", "1"]
rc, out, err = run("audit", *common, "--samples", "50000", "--plan-out", path("plan.txt"),
                   "--stats-out", path("s0.txt"), "--json")
check(rc == 0, "plan run (%s)" % err)
rc, out, err = run("audit", *common, "--samples", "50000", "--plan-in", path("plan.txt"),
                   "--shard", "1", "--stats-out", path("s1.txt"))
check(rc == 0, "shard run (%s)" % err)
rc, out, err = run("audit", "--stats-in", path("s0.txt"), "--stats-in", path("s1.txt"),
                   "--claim", "gdp:mu=1", "--json")
check(rc == 0, "merge (%s)" % err)
if rc == 0:
    d = json.loads(out)
    check(d["samples"] == [100000, 100000], "merged sample counts (%s)" % d["samples"])
    check(d["verdict"] == "consistent", "merged verdict")

# --- bad input: exit 2, one line ----------------------------------------------
bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1", "--confidence", "1.5"],
    "confidence", "confidence > 1")
bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1", "--confidence", "0"],
    "confidence", "confidence 0")
bad(["--mechanism", "laplace:eps=1", "--input0", "0,0", "--input1", "1"], "same length", "input lengths")
bad(["--mechanism", "nosuch:eps=1", "--input0", "0", "--input1", "1"], "nosuch", "unknown mechanism")
bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "x"], "input1", "bad input vector")
bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1", "--claim", "gdp:mu=-1"], "mu",
    "invalid claim")
with open(path("nonconvex.csv"), "w") as fh:
    fh.write("alpha,beta\n0,1\n0.5,0.6\n0.6,0.1\n1,0\n")
bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1", "--claim",
     "curve:file=" + path("nonconvex.csv")], "nonconvex.csv", "claim not a trade-off function")
bad(["--samples0", path("a.txt")], "samples1", "one sample file")
bad(["--samples0", path("a.txt"), "--samples1", path("b.txt")], "--claim", "files need a claim")
bad([], "nothing to audit", "no source")
with open(path("empty.txt"), "w") as fh:
    pass
bad(["--samples0", path("empty.txt"), "--samples1", path("b.txt"), "--claim", "gdp:mu=1"],
    "empty sample file", "empty file")
with open(path("mixed.txt"), "w") as fh:
    fh.write("1.5\n2.5\nr3\n")
bad(["--samples0", path("mixed.txt"), "--samples1", path("b.txt"), "--claim", "gdp:mu=1"],
    "mixed.txt:3: mixed output types", "mixed types")
with open(path("huge.txt"), "w") as fh:
    fh.write("1.5\n1e999\n")
bad(["--samples0", path("huge.txt"), "--samples1", path("b.txt"), "--claim", "gdp:mu=1"],
    "huge.txt:2: number out of the range", "out-of-range number")
bad(["--samples0", path("missing.txt"), "--samples1", path("b.txt"), "--claim", "gdp:mu=1"],
    "missing.txt", "missing file")
bad(["--stats-in", path("a.txt"), "--claim", "gdp:mu=1"], "not an fdp audit stats file", "bad stats file")

# too few samples: an explicit inconclusive verdict with the samples needed
rc, out, err = run("audit", "--mechanism", "laplace:eps=3", "--input0", "0", "--input1", "1",
                   "--samples", "40", "--json")
check(rc == 0, "tiny audit runs")
d = json.loads(out)
check(d["verdict"] == "inconclusive" and d["samples_needed"] and d["samples_needed"] > 40,
      "inconclusive with samples_needed (%s)" % {k: d.get(k) for k in ("verdict", "samples_needed")})

if failures:
    print("FAILED (%d):" % len(failures))
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("test_audit: all checks passed")

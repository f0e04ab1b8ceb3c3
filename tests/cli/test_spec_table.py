#!/usr/bin/python3
"""CLI test generated from the table of spec kinds (`fdp specs --json`).

Usage: /usr/bin/python3 test_spec_table.py PATH_TO_fdp   (exit 0 = all passed)

For every kind in the table and every command that takes specs (compose,
curve, group, calibrate, ledger add, compare, clt, audit --claim):
  * one unknown key, and every out-of-range value of every numeric key (below
    its lower end, above its upper end when it has one) and times=0, exit 2
    with nothing on stdout and one line on stderr that names the key and its
    allowed range ("b = -1 must be > 0", "q = 2 must be in (0, 1]",
    "k: '1' must be an integer in [2, 2147483648]");
  * the kind's example is accepted by compose.
A new kind gets these cases without a change here. Also: `fdp --help` and
the help of every command that takes specs list every kind of the table, and
keys in other units (laplace:eps=, gaussian:mu=) give the same answers as
the keys they stand for.
"""

import atexit
import decimal
import json
import os
import shutil
import subprocess
import sys
import tempfile

FDP = sys.argv[1] if len(sys.argv) > 1 else "fdp"
TMP = tempfile.mkdtemp(prefix="fdp_spec_table_cli_")
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
    p = subprocess.run([FDP, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def fmt(x):
    """A number as the table's messages print it: the shortest round trip, as
    C++ std::to_chars writes it (fixed or scientific, whichever is shorter,
    fixed on a tie: 700, 10000, 0.5, 1e-05, 1e+10, 2147483648)."""
    x = float(x)
    if x == 0:
        return "0"
    sign, digits, exp = decimal.Decimal(repr(abs(x))).normalize().as_tuple()
    d = "".join(map(str, digits))
    e = exp + len(d) - 1
    sci = d[0] + ("." + d[1:] if len(d) > 1 else "") + "e%s%02d" % ("+" if e >= 0 else "-", abs(e))
    if exp >= 0:
        fixed = d + "0" * exp
    elif len(d) + exp > 0:
        fixed = d[:len(d) + exp] + "." + d[len(d) + exp:]
    else:
        fixed = "0." + "0" * -(len(d) + exp) + d
    return ("-" if x < 0 else "") + (fixed if len(fixed) <= len(sci) else sci)


CURVE = os.path.join(TMP, "curve.csv")
with open(CURVE, "w") as fh:
    fh.write("0,1\n0.2,0.3\n1,0\n")
RDP = os.path.join(TMP, "rdp.csv")  # (the rdp kind's file: order,rdp rows)
with open(RDP, "w") as fh:
    fh.write("order,rdp\n2,0.5\n4,1\n8,2\n")
FILE_OF_KIND = {"rdp": RDP}
LEDGER = os.path.join(TMP, "ledger.json")
rc, _, err = run("ledger", "init", "--budget-eps", "10", "--delta", "1e-5", LEDGER)
check(rc == 0, "ledger init (%s)" % err)

rc, out, err = run("specs", "--json")
check(rc == 0, "fdp specs --json (%s)" % err)
table = json.loads(out)["kinds"]
check(len(table) >= 8, "the table has the kinds (%d)" % len(table))


def items_of(kind):
    """The example's KEY=VALUE items (file keys pointed at a curve file, or the
    kind's own file format), times apart."""
    ex = kind["example"]
    items = {}
    if ":" in ex:
        for it in ex.split(":", 1)[1].split(","):
            k, v = it.split("=", 1)
            items[k] = v
    for key in kind["keys"]:
        if key["type"] == "text" and key["name"] == "file":  # (other text keys: lists)
            items[key["name"]] = FILE_OF_KIND.get(kind["name"], CURVE)
    times = items.pop("times", None)
    return items, times


def word(name, items):
    return name + (":" + ",".join("%s=%s" % kv for kv in items.items()) if items else "")


def key_def(kind, name):
    """The table's key (times and unknown keys: no group)."""
    return next((k for k in kind["keys"] if k["name"] == name), {"name": name, "group": None})


def without(kind, items, name):
    """items without key `name` and its alternatives."""
    g = key_def(kind, name)["group"] if name != "times" else None
    return {k: v for k, v in items.items() if k != name and (g is None or key_def(kind, k)["group"] != g)}


def out_of_range(key):
    if key["type"] == "choice":  # (a word not among the key's)
        return ["nosuchword"]
    lo, hi = key["lo"], key["hi"]
    v = [lo if key["lo_open"] else lo - 1]
    if hi < 1e300:
        v.append(hi if key["hi_open"] else hi + 1)
    return v


def range_words(key, value):
    """What the one line must say about the key and its range."""
    if key["type"] == "choice":
        return ["%s = '%s' must be one of %s" % (key["name"], value, ", ".join(key["choices"]))]
    if key["type"] == "integer":
        # (integers are printed in full, as the times= message shows)
        return ["%s: '%s' must be an integer in [%d, %d]" % (key["name"], fmt(value), key["lo"], key["hi"])]
    lo = ("(" if key["lo_open"] else "[") + fmt(key["lo"])
    if key["hi"] >= 1e300:
        return ["%s = %s must be %s %s" % (key["name"], fmt(value), ">" if key["lo_open"] else ">=", fmt(key["lo"]))]
    return ["%s = %s must be in %s, %s%s" % (key["name"], fmt(value), lo, fmt(key["hi"]), ")" if key["hi_open"] else "]")]


def solve_param(kind, bad_key):
    """The parameter calibrate solves for in a case spoiling `bad_key`: another
    one (None if there is none: the case is not a calibrate case)."""
    group = key_def(kind, bad_key)["group"] if bad_key not in (None, "times") else None
    for p in kind["calibratable"]:
        if p == bad_key or (p != "times" and group is not None and key_def(kind, p)["group"] == group):
            continue
        return p
    return None if kind["calibratable"] else "times"  # (refused before the parameter matters)


def commands(kind, items, bad_key):
    """(what, argv) of every command that takes specs, for the spec `items`."""
    spec = word(kind["name"], items)
    yield "compose", ["compose", spec]
    yield "curve", ["curve", spec, "--points", "3"]
    yield "group", ["group", spec, "--k", "2"]
    solve = solve_param(kind, bad_key)
    if solve:
        its = without(kind, items, solve) if solve != "times" else items
        yield "calibrate", ["calibrate", word(kind["name"], its), "--solve", solve, "--eps", "1", "--delta", "1e-5"]
    yield "ledger add", ["ledger", "add", LEDGER, spec]
    yield "compare", ["compare", spec, "--delta", "1e-5"]
    yield "clt", ["clt", spec]
    yield "audit --claim", ["audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                            "--samples", "1000", "--claim", spec]


def expect_refused(kind, items, bad_key, needles):
    for label, argv in commands(kind, items, bad_key):
        rc, out, err = run(*argv)
        what = "fdp " + " ".join(argv)
        lines = [l for l in err.splitlines() if l.strip()]
        if not check(rc == 2, "%s: exit 2, got %d (%r)" % (what, rc, err)):
            continue
        check(out == "", "%s: nothing on stdout (%r)" % (what, out[:200]))
        check(len(lines) == 1, "%s: one line on stderr (%r)" % (what, err))
        for n in needles:
            check(n in err, "%s: stderr %r names %r" % (what, err.strip(), n))


for kind in table:
    name = kind["name"]
    items, _ = items_of(kind)
    # the example composes
    ex = word(name, items)
    rc, out, err = run("compose", ex, "--json")
    check(rc == 0, "compose %s: exit 0 (%r)" % (ex, err))
    # an unknown key
    bad = dict(items)
    bad["nosuchkey"] = "1"
    expect_refused(kind, bad, None, ["unknown key 'nosuchkey' for %s (allowed: " % name])
    # out-of-range values of every numeric key
    for key in kind["keys"]:
        if key["type"] == "text":
            continue
        for v in out_of_range(key):
            its = without(kind, items, key["name"])
            its[key["name"]] = v if isinstance(v, str) else fmt(v)
            expect_refused(kind, its, key["name"], range_words(key, v))
    # times, the key every kind takes
    its = dict(items)
    its["times"] = "0"
    expect_refused(kind, its, "times", ["times: '0' must be an integer in [1, 1000000000000]"])

# every command that takes specs lists the table's kinds in its help
rc, main_help, _ = run("--help")
for cmd in ["compose", "curve", "group", "calibrate", "ledger", "compare", "clt", "audit"]:
    rc, out, err = run(cmd, "--help")
    for kind in table:
        check(kind["usage"] in out, "fdp %s --help lists %s" % (cmd, kind["usage"]))
for kind in table:
    check(kind["usage"] in main_help, "fdp --help lists %s" % kind["usage"])
# an unknown name lists the kinds
rc, out, err = run("compose", "nosuch:x=1")
check(rc == 2 and all(k["name"] in err for k in table), "unknown name lists the kinds (%r)" % err)

# Alternatives in other units are one mechanism: laplace:eps=E is laplace:b=S/E
# and gaussian:mu=M is gaussian:sigma=S/M, answer for answer in every command
# that composes (the spec texts apart).
def answers(out):
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("seconds", "spec", "specs", "text")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return strip(json.loads(out))


for a, b in [("laplace:eps=0.5,times=10", "laplace:b=2,times=10"),
             ("laplace:eps=1.5,times=3", "laplace:b=2,sensitivity=3,times=3"),
             ("gaussian:mu=0.5,times=10", "gaussian:sigma=2,times=10")]:
    for argv in (["compose", "--delta", "1e-5", "--alpha", "0.1", "--mu"],
                 ["compare", "--delta", "1e-5"], ["clt"], ["group", "--k", "2", "--delta", "1e-5"]):
        ra, oa, ea = run(argv[0], a, *argv[1:], "--json")
        rb, ob, eb = run(argv[0], b, *argv[1:], "--json")
        check(ra == 0 and rb == 0 and answers(oa) == answers(ob),
              "fdp %s: %s and %s give the same answers (%r %r)" % (argv[0], a, b, ea, eb))
rc, out, err = run("audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                   "--samples", "1000", "--claim", "laplace:eps=1")
check(rc == 0, "audit --claim laplace:eps=1 is accepted (%d, %r)" % (rc, err))

print("%d checks, %d failures" % (checks[0], len(failures)))
sys.exit(1 if failures else 0)

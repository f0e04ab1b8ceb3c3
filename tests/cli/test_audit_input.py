#!/usr/bin/python3
"""CLI tests for `fdp audit` on the bad input of issue 7 and its outputs:
mixed-type sample files, empty files, NaN/inf outputs, invalid claims,
confidence outside (0, 1), too few samples (an explicit `inconclusive` with
the sample count that would be needed), extreme mechanism parameters (a
verdict, never a crash), the progress bar on a terminal, and the curve CSV
drawn by plots/plot_audit.py from a real audit. Bad input: exit 2, one line
on stderr naming the file and line where there is one, nothing on stdout.

Usage: /usr/bin/python3 test_audit_input.py PATH_TO_fdp   (exit 0 = pass)
"""
import atexit
import json
import os
import pty
import shutil
import subprocess
import sys
import tempfile

FDP = sys.argv[1] if len(sys.argv) > 1 else "fdp"
SRC = os.environ.get("FDP_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
failures = []
TMP = tempfile.mkdtemp(prefix="fdp_audit_input_")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)


def run(*args, env=None):
    p = subprocess.run([FDP, *args], capture_output=True, text=True, timeout=120, env=env)
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
    check(rc == 2, "%s: exit 2 (got %d, stderr %r)" % (what, rc, err))
    check(err.count("\n") == 1, "%s: one line on stderr (%r)" % (what, err))
    check(needle in err, "%s: stderr names %r (%r)" % (what, needle, err))
    check(out == "", "%s: nothing on stdout" % what)


def verdict(args, what, codes=(0, 3)):
    rc, out, err = run("audit", *args, "--json")
    check(rc in codes, "%s: exit in %s (got %d, %r)" % (what, codes, rc, err))
    try:
        return json.loads(out)
    except ValueError:
        check(False, "%s: JSON on stdout (%r)" % (what, out[:200]))
        return {}


many = "".join("%d\n" % (i % 37) for i in range(200))
good = write("good.txt", many)
claim = ["--claim", "epsdelta:eps=1"]

# --- mixed types, malformed lines (file and line named) -----------------------
bad(["--samples0", write("tok_num.txt", "r1\nr2\n3.5\n"), "--samples1", good, *claim],
    "tok_num.txt:3: mixed output types", "token file with a number line")
bad(["--samples0", write("num_tok.txt", "1\n2\nr3\n"), "--samples1", good, *claim],
    "num_tok.txt:3: mixed output types", "number file with a token line")
bad(["--samples0", write("veclen.txt", "1,2\n3,4\n5\n"), "--samples1", good, *claim],
    "veclen.txt:3: vector of length 1", "vector file with a shorter line")
bad(["--samples0", write("veclen2.txt", "1,2\n3,4,5\n"), "--samples1", good, *claim],
    "veclen2.txt:2: vector of length 3", "vector file with a longer line")
bad(["--samples0", write("junk.txt", "1\n2.5abc\n"), "--samples1", good, *claim],
    "junk.txt:2", "number followed by junk")
bad(["--samples0", write("comma.txt", "1,x\n"), "--samples1", good, *claim],
    "comma.txt:1: malformed", "vector with a non-number field")
bad(["--samples0", write("blank.txt", "1\n\n2\n"), "--samples1", good, *claim],
    "blank.txt:2: empty line", "blank line")
bad(["--samples0", good, "--samples1", write("toks.txt", "a\nb\n"), *claim],
    "different kinds of output", "numbers vs tokens")
bad(["--samples0", write("v2.txt", "1,2\n"), "--samples1", write("v3.txt", "1,2,3\n"), *claim],
    "different kinds of output", "vectors of different lengths")

# a pipe: numeric files are read twice, so a clear error (token files are read once)
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    os.write(w, many.encode())
    os._exit(0)
os.close(w)
p = subprocess.run([FDP, "audit", "--samples0", "/dev/fd/%d" % r, "--samples1", good, *claim],
                   capture_output=True, text=True, timeout=60, pass_fds=(r,))
os.close(r)
os.waitpid(pid, 0)
check(p.returncode == 2 and p.stderr.count("\n") == 1 and "not a regular file" in p.stderr,
      "numbers from a pipe: a clear error (%d, %r)" % (p.returncode, p.stderr))

# --- empty files ---------------------------------------------------------------
empty = write("empty.txt", "")
bad(["--samples0", good, "--samples1", empty, *claim], "empty.txt: empty sample file", "empty samples1")
bad(["--samples0", empty, "--samples1", empty, *claim], "empty sample file", "both empty")

# --- NaN / inf are outputs; out-of-range numbers are refused ---------------------
for name, text in (("nan.txt", "1\nnan\n"), ("negnan.txt", "1\n2\n-NaN\n"),
                   ("inf.txt", "1\ninf\n"), ("neginf.txt", "1\n-infinity\n")):
    d = verdict(["--samples0", write(name, text), "--samples1", good, *claim], name)
    check(d.get("verdict") in ("consistent", "inconclusive", "violation"),
          "non-finite output in %s: read as an output (%s)" % (name, d.get("verdict")))
d = verdict(["--samples0", write("vecnan.txt", "1,2\n3,nan\n"),
             "--samples1", write("vec.txt", "1,2\n3,4\n"), *claim], "vecnan.txt")
check(d.get("verdict") in ("consistent", "inconclusive"), "NaN coordinate read as an output")
bad(["--samples0", write("huge.txt", "1\n1e999\n"), "--samples1", good, *claim],
    "huge.txt:2: number out of the range", "out-of-range number")
# inf on one side only (1 line in 7) is a leak the audit finds
leak0 = write("leak0.txt", "".join("inf\n" if i % 7 == 3 else "%d\n" % (i % 37) for i in range(20000)))
leak1 = write("leak1.txt", "".join("%d\n" % (i % 37) for i in range(20000)))
d = verdict(["--samples0", leak0, "--samples1", leak1, *claim], "inf on one side", codes=(3,))
check(d.get("verdict") == "violation", "inf on one side only: violation (%s)" % d.get("verdict"))

# --- header line, trailing blank lines -------------------------------------------
hdr = write("hdr.txt", "score\n" + many + "\n\n")
d = verdict(["--samples0", hdr, "--samples1", hdr, *claim, "--skip-header"], "header", codes=(0,))
check(d.get("samples") == [200, 200], "--skip-header: 200 outputs per side (%s)" % d.get("samples"))
bad(["--samples0", hdr, "--samples1", hdr, *claim], "hdr.txt:2: mixed output types",
    "a header without --skip-header")

# --- inputs that are not neighbours: refused unless --group K ----------------------
bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "5"],
    "not neighbours under laplace's neighbour relation (answers may change by l1 distance <= 1)",
    "laplace 0 vs 5 (the issue's false alarm)")
bad(["--mechanism", "report-noisy-max:eps=1,monotone=1", "--input0", "0,0", "--input1", "1,-1"],
    "all in the same direction", "monotone relation, mixed directions")
bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "5", "--group", "4"],
    "more than 4 steps apart", "group 4 for inputs 5 apart")
bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1", "--group", "0"],
    "--group", "group 0")
d = verdict(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "5", "--group", "5",
             "--samples", "100000"], "group 5", codes=(0,))
check(d.get("verdict") == "consistent" and d["assumptions"]["group"] == 5
      and d["source"]["distance"] == 5 and "group 5 of" in d.get("claim", ""),
      "laplace 0 vs 5 with --group 5: consistent against the group claim (%s)" % d.get("claim"))

# shards of a group audit: merged per neighbour they would raise false alarms
rc, _, err = run("audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "2", "--group", "2",
                 "--samples", "50000", "--stats-out", path("g0.txt"))
check(rc == 0, "group 2 shard: exit 0 (%r)" % err)
bad(["--stats-in", path("g0.txt"), "--claim", "epsdelta:eps=1"], "--group 1 is below the shards' own",
    "group shards merged without --group")
d = verdict(["--stats-in", path("g0.txt"), "--claim", "epsdelta:eps=1", "--group", "2"], "group merge",
            codes=(0,))
check(d.get("verdict") == "consistent", "group shards merged with --group 2: consistent (%s)" % d.get("verdict"))

# --- verdict wording: vacuous claims, outputs that never repeat -------------------
d = verdict(["--samples0", good, "--samples1", good, "--claim", "epsdelta:eps=1,delta=1"],
            "vacuous claim", codes=(0,))
check(d.get("verdict") == "vacuous", "delta = 1: verdict vacuous (%s)" % d.get("verdict"))
uniq0 = write("uniq0.txt", "".join("a%d\n" % i for i in range(3000)))
uniq1 = write("uniq1.txt", "".join("b%d\n" % i for i in range(3000)))
d = verdict(["--samples0", uniq0, "--samples1", uniq1, *claim], "unique tokens", codes=(0,))
check(d.get("nothing_learned") is True and "anything to learn from" in d.get("reason", ""),
      "tokens that never repeat: said so (%s)" % d.get("reason"))
rc, out, err = run("audit", "--samples0", uniq0, "--samples1", uniq1, *claim)
check("epsilon >= 0 at delta = 0  (vacuous" in out, "text: eps >= 0 marked vacuous (%r)" % out)
rc, out, err = run("audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                   "--samples", "20000")
check("floating-point bit patterns not tested" in out and "mu >= " in out and "no verdict on the claim" in out,
      "text: untested bit patterns and the meaning of mu_lower said (%r)" % out)

# --- invalid claims ------------------------------------------------------------
for spec, needle in (("epsdelta:eps=-1", "eps"), ("epsdelta:eps=1,delta=2", "delta"),
                     ("gdp:mu=inf", "mu"), ("gdp:mu=-1", "mu"), ("bogus:x=1", "bogus"),
                     ("curve:file=" + path("nosuch.csv"), "nosuch.csv")):
    bad(["--samples0", good, "--samples1", good, "--claim", spec], needle, "invalid claim " + spec)
write("nonconvex.csv", "alpha,beta\n0,1\n0.5,0.6\n0.6,0.1\n1,0\n")
bad(["--samples0", good, "--samples1", good, "--claim", "curve:file=" + path("nonconvex.csv")],
    "nonconvex.csv", "claim curve that is not a trade-off function")

# --- confidence outside (0, 1) ---------------------------------------------------
for c in ("0", "1", "-0.1", "1.5", "nan", "inf", "abc"):
    bad(["--samples0", good, "--samples1", good, *claim, "--confidence", c], "--confidence",
        "confidence %s (files)" % c)
    bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1", "--confidence", c],
        "--confidence", "confidence %s (mechanism)" % c)
bad(["--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1", "--samples", "0"],
    "--samples", "zero samples")

# --- too few samples: explicit inconclusive with the samples needed -------------
d = verdict(["--samples0", write("five0.txt", "1\n2\n3\n4\n5\n"),
             "--samples1", write("five1.txt", "1\n2\n3\n4\n6\n"), *claim], "five lines", codes=(0,))
check(d.get("verdict") == "inconclusive", "five lines: inconclusive (%s)" % d.get("verdict"))
check(isinstance(d.get("samples_needed"), (int, float)) and d["samples_needed"] > 5,
      "five lines: samples_needed > 5 (%s)" % d.get("samples_needed"))
const100 = write("const100.txt", "7\n" * 100)
d = verdict(["--samples0", const100, "--samples1", const100, "--claim", "epsdelta:eps=5"],
            "100 equal lines vs eps = 5", codes=(0,))
check(d.get("verdict") == "inconclusive" and (d.get("samples_needed") or 0) > 100,
      "100 equal lines cannot refute eps = 5: inconclusive with samples_needed (%s, %s)"
      % (d.get("verdict"), d.get("samples_needed")))
d = verdict(["--samples0", const100, "--samples1", const100, "--claim", "epsdelta:eps=0.1"],
            "100 equal lines vs eps = 0.1", codes=(0,))
check(d.get("verdict") == "consistent", "100 equal lines vs eps = 0.1: consistent (%s)" % d.get("verdict"))
d = verdict(["--mechanism", "randomized-response:eps=2", "--input0", "0", "--input1", "1",
             "--samples", "20"], "20 randomized-response outputs", codes=(0,))
check(d.get("verdict") == "inconclusive" and (d.get("samples_needed") or 0) > 20,
      "20 outputs vs eps = 2: inconclusive with samples_needed (%s)" % d.get("samples_needed"))

# --- extreme parameters: a verdict, never a crash ---------------------------------
for spec, in0, in1 in (("noisy-max-value-exp:eps=1e-320", "0", "1"),      # scale 2/eps = inf
                       ("noisy-max-value-laplace:eps=1e-320", "0", "1"),
                       ("svt-lyu-alg3:eps=1e-320", "0", "1"),             # no quadrature oracle
                       ("histogram-inverted-scale:eps=1e-320", "0", "1"),
                       ("laplace:eps=1e-308", "0", "1"),                  # infinite outputs
                       ("laplace:eps=1,sensitivity=1e308", "1e308", "0")):  # huge scale and inputs
    d = verdict(["--mechanism", spec, "--input0", in0, "--input1", in1, "--samples", "2000"], spec)
    check(d.get("verdict") in ("violation", "consistent", "inconclusive"), "%s: a verdict (%s)" % (spec, d))
# inputs 2e308 apart are no neighbours (they used to give a "violation")
bad(["--mechanism", "laplace:eps=1", "--input0", "1e308", "--input1", "-1e308", "--samples", "2000"],
    "too far apart", "far inputs")

# --- progress bar: on a terminal only, erased at the end --------------------------
env = dict(os.environ, FDP_PROGRESS_AFTER="0")
m, s = pty.openpty()
p = subprocess.Popen([FDP, "audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                      "--samples", "2000000", "--json"], stdout=subprocess.PIPE, stderr=s, env=env)
os.close(s)
tty = b""
while True:
    try:
        chunk = os.read(m, 4096)
    except OSError:
        break
    if not chunk:
        break
    tty += chunk
out = p.stdout.read()
p.wait()
os.close(m)
check(p.returncode == 0 and json.loads(out)["verdict"] == "consistent", "audit under a terminal")
check(b"%" in tty and b"[" in tty, "progress bar drawn on a terminal (%r)" % tty[:100])
check(tty.endswith(b"\r"), "progress bar erased at the end (%r)" % tty[-80:])
rc, out, err = run("audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                   "--samples", "2000000", env=env)
check(rc == 0 and err == "", "no progress bar when stderr is not a terminal (%r)" % err[:100])

# --- exit 3 and the curve drawn by plots/plot_audit.py ----------------------------
rc, out, err = run("audit", "--mechanism", "svt-lyu-alg6:eps=1", "--input0", "1,1,1,1,1,0,0,0,0,0",
                   "--input1", "0,0,0,0,0,1,1,1,1,1", "--samples", "200000",
                   "--curve-out", path("svt.csv"), "--json")
check(rc == 3, "flawed SVT: exit 3 (got %d)" % rc)
with open(path("svt.json"), "w") as fh:
    fh.write(out)
plot = os.path.join(SRC, "plots", "plot_audit.py")
try:
    import matplotlib  # noqa: F401
    have_mpl = True
except ImportError:
    have_mpl = False
if os.path.exists(plot) and have_mpl:
    p = subprocess.run(["/usr/bin/python3", plot, "--fdp", FDP, "--curve", path("svt.csv"),
                        "--json", path("svt.json"), "--claim", "epsdelta:eps=1", "-o", path("svt.png")],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and os.path.getsize(path("svt.png")) > 10000,
          "plot_audit.py draws a real audit (%d, %s)" % (p.returncode, p.stderr[-300:]))

if failures:
    print("FAILED (%d):" % len(failures))
    for f in failures:
        print("  " + f)
    sys.exit(1)
print("test_audit_input: all checks passed")

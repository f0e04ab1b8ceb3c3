#!/usr/bin/env python3
"""User-facing messages: each fix of issue 28's "Messages" bullet, kept fixed.

Usage: test_messages.py PATH_TO_FDP

- no doubled prefix: a library message naming its module ("calibrate: ...",
  "audit: ...") is not printed after "fdp calibrate: " as "fdp calibrate:
  calibrate: ...";
- no internal function names (curve::from_points) and no float noise
  (0.40000000000000002, q=0.010240000000000001, --delta = 1.1000000000000001):
  numbers as the user wrote them (the shortest decimal that reads back);
- "-d 1e-5" is an option spelled with one dash: the message says options take
  two dashes and names the options meant (--delta), not "unknown spec";
- audit's progress bar (drawn on a terminal) is erased before the results
  print: with stdout and stderr on one terminal, no bar is left on a results
  line.
"""

import os
import pty
import re
import select
import subprocess
import sys
import tempfile

FDP = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "fdp"
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
    return ok


def run(*args):
    p = subprocess.run([FDP] + list(args), capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


# Exactly one line on stderr, exit 2, nothing on stdout; returns the line.
def one_line_error(*args):
    rc, out, err = run(*args)
    what = "fdp " + " ".join(args)
    check(rc == 2 and out == "" and err.count("\n") == 1, "%s: exit %d, %r %r" % (what, rc, out, err))
    return err.strip()


FLOAT_NOISE = re.compile(r"\d\.\d*0000000000\d|\d\.\d*9999999999\d")


def test_no_doubled_prefix():
    cases = [
        ("calibrate", "gaussian", "laplace:b=1", "--solve", "sigma", "--eps", "0.5", "--delta", "1e-5"),
        ("audit", "--mechanism", "laplace:eps=1", "--input0", "0,0", "--input1", "1"),
        ("calibrate", "laplace:b=0.1", "--solve", "times", "--eps", "1", "--delta", "1e-5"),
        ("compose", "gdp:mu=-1"),
        ("ledger", "status", "/nonexistent/ledger.json"),
    ]
    for args in cases:
        line = one_line_error(*args)
        cmd = args[0]
        check(line.startswith("fdp %s: " % cmd), "%r: prefix" % line)
        rest = line[len("fdp %s: " % cmd):]
        check(not rest.startswith(cmd + ":"), "doubled prefix: %r" % line)
    line = one_line_error("calibrate", "gaussian", "laplace:b=1", "--solve", "sigma", "--eps", "0.5",
                          "--delta", "1e-5")
    check(line.startswith("fdp calibrate: no value of sigma"), "calibrate message: %r" % line)
    check("delta = 1e-05" in line and not FLOAT_NOISE.search(line.split("[")[0]),
          "calibrate message numbers as given: %r" % line)


def test_no_internal_names_or_noise(tmp):
    path = os.path.join(tmp, "bad_curve.csv")
    with open(path, "w") as f:
        f.write("alpha,beta\n0,1\n0.4,0.9\n1,0\n")
    line = one_line_error("compose", "curve:file=" + path)
    check("::" not in line and "from_points" not in line, "internal name in %r" % line)
    check("(0.4, 0.9)" in line and not FLOAT_NOISE.search(line), "point as written: %r" % line)
    line = one_line_error("compose", "gdp:mu=1", "--delta", "1.1")
    check("--delta = 1.1 must be in [0, 1]" in line, "range message: %r" % line)
    # q = B / N = 512 / 50000 = 0.01024 in the route's spec text
    rc, out, err = run("dpsgd", "--sigma", "1", "--steps", "10", "--dataset-size", "50000",
                       "--batch-size", "512", "--delta", "1e-5")
    check(rc == 0 and "q=0.01024," in out and not FLOAT_NOISE.search(out),
          "dpsgd route q as the shortest decimal: %r" % out)
    line = one_line_error("dpsgd", "--q", "0.5", "--sigma", "1", "--epochs", "2", "--dataset-size", "100",
                          "--batch-size", "10", "--delta", "1e-5")
    check("--q = 0.5 disagrees" in line and "= 0.1 (give" in line and not FLOAT_NOISE.search(line),
          "dpsgd q disagreement, numbers as the shortest decimals: %r" % line)


def test_compare_sentences_without_float_noise():
    rc, out, err = run("compare", "subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062",
                       "--delta", "1e-5")
    check(rc == 0 and "delta' = 5e-07" in out and not FLOAT_NOISE.search(out.split("classical")[-1]),
          "compare's delta split in plain numbers: %r" % out[-300:])


def test_single_dash():
    line = one_line_error("compose", "gdp:mu=1", "-d", "1e-5")
    check("unknown option -d" in line and "two dashes" in line and "--delta" in line,
          "-d message: %r" % line)
    line = one_line_error("dpsgd", "-sigma", "1")
    check("--sigma" in line and "two dashes" in line, "-sigma message: %r" % line)
    # a negative number as an option's value is still a value
    rc, out, err = run("compose", "gdp:mu=1", "--eps", "-1")
    check(rc == 0, "--eps -1 is a value: exit %d %r" % (rc, err))


def read_all(fd, proc):
    data = b""
    while True:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
        elif proc.poll() is not None:
            break
    return data.decode(errors="replace")


def test_progress_bar_cleared():
    master, slave = pty.openpty()
    env = dict(os.environ, FDP_PROGRESS_AFTER="0")
    proc = subprocess.Popen([FDP, "audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                             "--samples", "200000"], stdout=slave, stderr=slave, env=env)
    os.close(slave)
    text = read_all(master, proc)
    proc.wait(timeout=300)
    os.close(master)
    check(proc.returncode == 0, "audit under a terminal: exit %d" % proc.returncode)
    start = text.find("audit: ")
    bar = text.rfind("%")  # the bar's percentage
    check("[" in text[:start] and bar < start,
          "the progress bar is drawn (FDP_PROGRESS_AFTER=0) and ends before the results: %r" % text[:400])
    check("#" not in text[start:] and "\r" not in text[start:].replace("\r\n", ""),
          "no bar on or after the results: %r" % text[start:start + 200])


def test_help_command():
    # fdp help COMMAND is COMMAND --help, for every command
    rc, out, err = run("--help")
    names = [l.split()[0] for l in out.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()]
    check(len(names) >= 10, "commands listed by --help: %r" % names)
    for name in names:
        rc1, h1, _ = run("help", name)
        rc2, h2, _ = run(name, "--help")
        check(rc1 == 0 and rc2 == 0 and h1 == h2 and "usage: fdp " + name in h1,
              "fdp help %s differs from fdp %s --help" % (name, name))
    line = one_line_error("help", "nosuch")
    check("unknown command 'nosuch'" in line, "fdp help nosuch: %r" % line)
    # the man page generated from the help (when help2man built it)
    page = os.path.join(os.path.dirname(FDP), "fdp.1")
    if os.path.exists(page):
        with open(page) as f:
            text = f.read()
        check(all((".SS " + n) in text for n in names), "fdp.1 has a section per command")


def main():
    with tempfile.TemporaryDirectory(prefix="fdp_messages_") as tmp:
        test_help_command()
        test_no_doubled_prefix()
        test_no_internal_names_or_noise(tmp)
        test_single_dash()
        test_compare_sentences_without_float_noise()
        test_progress_bar_cleared()
    for f in failures:
        print("FAIL", f)
    print("%d checks, %d failures" % (checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""CLI tests: every command that reads a file the user names stops early on
oversized input, with exit 2, one line on stderr and small memory.

Usage: /usr/bin/python3 test_input_bounds.py PATH_TO_fdp   (exit 0 = pass)

`fdp compose curve:file=/dev/zero` grew to 17 GB before the readers were
bounded (lib/include/fdp/core/bounded_reader.hpp): /dev/zero is one endless
line, and a file without a newline was read whole. Each command below reads
/dev/zero and a 100 MB file without a newline, as a curve CSV, a sample file,
a stats or plan file and a ledger. Each run must end within 60 s (it takes
well under a second) and its peak RSS must stay under 256 MB (the ledger's
64 MiB limit is the largest read; the other readers hold at most 4 MiB). A
run past either bound is killed, so that a regression cannot eat the machine.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

FDP = sys.argv[1] if len(sys.argv) > 1 else "fdp"
TMP = tempfile.mkdtemp(prefix="fdp_input_bounds_")
MAX_SECONDS = 60
MAX_RSS_KB = 256 * 1024
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_bounded(args):
    """Runs fdp with args; returns (exit code or None if killed, stdout,
    stderr, seconds, peak RSS in KB (from wait4), why killed)."""
    out = tempfile.TemporaryFile(dir=TMP)
    err = tempfile.TemporaryFile(dir=TMP)
    t0 = time.time()
    p = subprocess.Popen([FDP, *args], stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    killed = ""
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if rss_kb(p.pid) > MAX_RSS_KB:
            killed = "RSS over %d MB" % (MAX_RSS_KB // 1024)
        elif time.time() - t0 > MAX_SECONDS:
            killed = "running for over %d s" % MAX_SECONDS
        if killed:
            p.kill()
            pid, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.01)
    p.returncode = os.waitstatus_to_exitcode(status)  # (reaped here, not by Popen)
    seconds = time.time() - t0
    out.seek(0)
    err.seek(0)
    return (None if killed else p.returncode), out.read().decode(errors="replace"), \
        err.read().decode(errors="replace"), seconds, ru.ru_maxrss, killed


def refused(args, needle, what):
    rc, out, err, seconds, peak, killed = run_bounded(args)
    check(not killed, "%s: killed (%s)" % (what, killed))
    if killed:
        return
    check(rc == 2, "%s: exit 2 (got %s, stderr %r)" % (what, rc, err[:300]))
    check(err.count("\n") == 1 and err.endswith("\n"), "%s: one line on stderr (%r)" % (what, err[:300]))
    check(needle in err, "%s: stderr names %r (%r)" % (what, needle, err[:300]))
    check(out == "", "%s: nothing on stdout (%r)" % (what, out[:200]))
    check(peak <= MAX_RSS_KB, "%s: peak RSS %d KB" % (what, peak))
    print("%-62s %5.2f s %7.1f MB" % (what, seconds, peak / 1024.0))


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as fh:
        fh.write(text)
    return path


def main():
    zero = "/dev/zero"
    big = os.path.join(TMP, "big_one_line.txt")
    with open(big, "wb") as fh:  # 100 MB of digits, no newline
        block = b"7" * (1 << 20)
        for _ in range(100):
            fh.write(block[: 1000000])
    samples = write("samples.txt", "".join("%d\n" % (i % 37) for i in range(200)))
    ledger = os.path.join(TMP, "ledger.json")
    rc, _, err, _, _, _ = run_bounded(["ledger", "init", "--budget-eps", "3", "--delta", "1e-5", ledger])
    check(rc == 0, "ledger init (%r)" % err)
    claim = ["--claim", "epsdelta:eps=1"]

    for path, tag in ((zero, "/dev/zero"), (big, "100 MB line")):
        long_line = "line 1 is longer than 65536 bytes"
        curve = "curve:file=" + path
        name = "curve file '%s': " % path
        refused(["compose", curve], name + long_line, "compose curve:file (%s)" % tag)
        refused(["curve", curve], name + long_line, "curve curve:file (%s)" % tag)
        refused(["group", curve, "--k", "2"], name + long_line, "group curve:file (%s)" % tag)
        refused(["calibrate", "gaussian:times=4", curve, "--solve", "sigma", "--eps", "1", "--delta", "1e-5"],
                name + long_line, "calibrate with a curve:file (%s)" % tag)
        refused(["clt", curve], name + long_line, "clt curve:file (%s)" % tag)
        refused(["compare", curve, "--delta", "1e-5"], name + long_line, "compare curve:file (%s)" % tag)
        refused(["ledger", "add", ledger, curve], name + long_line, "ledger add curve:file (%s)" % tag)
        refused(["ledger", "check", ledger, curve], name + long_line, "ledger check curve:file (%s)" % tag)
        refused(["audit", "--samples0", samples, "--samples1", samples, "--claim", curve], name + long_line,
                "audit --claim curve:file (%s)" % tag)
        sample_line = "sample file '%s': line 1 is longer than 1048576 bytes" % path
        refused(["audit", "--samples0", path, "--samples1", samples, *claim], sample_line,
                "audit --samples0 (%s)" % tag)
        refused(["audit", "--samples0", samples, "--samples1", path, *claim], sample_line,
                "audit --samples1 (%s)" % tag)
        refused(["audit", "--stats-in", path, *claim], "stats file '%s': %s" % (path, long_line),
                "audit --stats-in (%s)" % tag)
        refused(["audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1", "--plan-in", path,
                 "--stats-out", os.path.join(TMP, "part.txt")], "plan file '%s': %s" % (path, long_line),
                "audit --plan-in (%s)" % tag)
        refused(["ledger", "status", path], "ledger file '%s': larger than 67108864 bytes" % path,
                "ledger status (%s)" % tag)

    # the refused adds left the ledger as it was
    rc, _, err, _, _, _ = run_bounded(["ledger", "status", ledger])
    check(rc == 0, "the ledger still loads (%r)" % err)

    shutil.rmtree(TMP, ignore_errors=True)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

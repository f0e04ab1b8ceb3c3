#!/usr/bin/python3
"""Concurrent `fdp ledger add`s against one file: none is lost, the budget holds.

Usage: /usr/bin/python3 test_ledger_concurrency.py PATH_TO_fdp   (exit 0 = all passed)

PROCS processes each run ADDS adds of the same mechanism at once, against a
budget that admits only some of them (adaptive ledgers, the default, and
plan ledgers). Checks: every add exits 0 (recorded)
or 4 (refused), nothing else; the file holds exactly the adds that exited
0 (before the lock, two shells of 20 adds each kept 23 of 40 entries and
all exited 0); its certified spent epsilon is within the budget; and the
number admitted is the one a sequential run of the same adds admits (the
adds are identical, so order does not matter: the budget admits the
largest n whose n-fold composition fits). Then `init` twice at once: one
creates the file, the other is refused because it exists. Then kill -9 at
random moments of adds (KILLS rounds): afterwards the file is byte for byte
the old version, or the old entries plus the new one, and it verifies.
"""

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

PROCS, ADDS = 4, 50  # ~50 ms per add on a loaded 2-core machine: ~10 s
KILLS = 20
SPEC = "laplace:b=5"  # eps 0.2 per add
BUDGET = ["--budget-eps", "2", "--delta", "1e-5"]

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def entries(path):
    with open(path) as f:
        return len(json.load(f)["entries"])


# One worker: ADDS adds in a row, printing each exit code (a shell loop would
# do; this keeps the test in one interpreter).
WORKER = r"""
import subprocess, sys
fdp, ledger, spec, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for _ in range(n):
    r = subprocess.run([fdp, "ledger", "add", ledger, spec], capture_output=True, text=True)
    print(r.returncode, flush=True)
    if r.returncode not in (0, 4):
        sys.stderr.write(r.stderr)
"""


def concurrent_adds(fdp, ledger, adds):
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, fdp, ledger, SPEC, str(adds)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(PROCS)]
    codes = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        codes += [int(c) for c in out.split()]
        if err.strip():
            fail("a worker's add failed: %r" % err.strip()[:300])
    return codes


def sequential_admitted(fdp, ledger):
    # (the adds are identical and a refusal changes nothing, so after the
    # first refusal every later one is refused too: stop there)
    admitted = 0
    for _ in range(PROCS * ADDS):
        r = subprocess.run([fdp, "ledger", "add", ledger, SPEC], capture_output=True, text=True)
        if r.returncode == 0:
            admitted += 1
            continue
        if r.returncode != 4:
            fail("sequential add: exit %d (%r)" % (r.returncode, r.stderr))
        break
    return admitted


def test_adds(fdp, tmp, mode, adds):
    L = os.path.join(tmp, "shared-%s.json" % mode)
    subprocess.run([fdp, "ledger", "init", *BUDGET, "--mode", mode, L], check=True,
                   capture_output=True)
    codes = concurrent_adds(fdp, L, adds)
    if len(codes) != PROCS * adds:
        fail("expected %d exit codes, got %d" % (PROCS * adds, len(codes)))
    bad = [c for c in codes if c not in (0, 4)]
    if bad:
        fail("exit codes other than 0 (recorded) and 4 (refused): %r" % bad)
    recorded = codes.count(0)
    if entries(L) != recorded:
        fail("%d adds exited 0 but the file holds %d entries" % (recorded, entries(L)))
    if not 0 < recorded < PROCS * adds:
        fail("the budget should admit some adds and refuse others: %d of %d" % (recorded, len(codes)))
    st = json.loads(subprocess.run([fdp, "ledger", "status", L, "--json"], capture_output=True,
                                   text=True).stdout)
    if not st["spent"]["epsilon"]["upper"] <= 2:
        fail("spent epsilon %r exceeds the budget 2" % st["spent"])
    if st["mode"] != mode:
        fail("status says mode %r, the ledger was made %r" % (st["mode"], mode))
    S = os.path.join(tmp, "sequential-%s.json" % mode)
    subprocess.run([fdp, "ledger", "init", *BUDGET, "--mode", mode, S], check=True,
                   capture_output=True)
    seq = sequential_admitted(fdp, S)
    if seq != recorded:
        fail("concurrent adds admitted %d, a sequential run admits %d" % (recorded, seq))
    print("ledger concurrency (%s): %d processes x %d adds: %d recorded, %d refused "
          "(sequential: %d)" % (mode, PROCS, adds, recorded, codes.count(4), seq))


def test_inits(fdp, tmp):
    L = os.path.join(tmp, "twice.json")
    ps = [subprocess.Popen([fdp, "ledger", "init", *BUDGET, L], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True) for _ in range(2)]
    codes = sorted(p.wait(timeout=60) for p in ps)
    if codes != [0, 2]:
        fail("two inits of one file at once: exit codes %r, expected one 0 and one 2" % codes)


def test_kills(fdp, tmp):
    L = os.path.join(tmp, "killed.json")
    subprocess.run([fdp, "ledger", "init", "--budget-eps", "100", "--delta", "1e-5", L],
                   check=True, capture_output=True)
    rng = random.Random(26)
    for i in range(KILLS):
        with open(L, "rb") as f:
            before = f.read()
        old = json.loads(before)["entries"]
        p = subprocess.Popen([fdp, "ledger", "add", L, "laplace:b=1000", "--label", "k%d" % i],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, 0.03))
        p.send_signal(signal.SIGKILL)
        p.wait()
        with open(L, "rb") as f:
            after = f.read()
        r = subprocess.run([fdp, "ledger", "status", L, "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            fail("kill -9 round %d: the file no longer verifies: %r" % (i, r.stderr))
            return
        if after == before:
            continue
        new = json.loads(after)["entries"]
        if new[:-1] != old or len(new) != len(old) + 1 or new[-1]["label"] != "k%d" % i:
            fail("kill -9 round %d: neither the old file nor the old one plus the add" % i)
    # a later add removes what the killed ones left beside the file
    r = subprocess.run([fdp, "ledger", "add", L, "laplace:b=1000"], capture_output=True, text=True)
    left = [n for n in os.listdir(tmp) if n.startswith("killed.json.tmp.")]
    if r.returncode != 0 or left:
        fail("after the kills: add exit %d, temporary files left %r" % (r.returncode, left))
    print("kill -9: %d rounds, the file was always the old or the new version" % KILLS)


def main():
    fdp = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.time()
        test_adds(fdp, tmp, "adaptive", ADDS)
        test_adds(fdp, tmp, "plan", 12)  # (the same lock; fewer, to keep the test short)
        test_inits(fdp, tmp)
        test_kills(fdp, tmp)
        print("%.1f s" % (time.time() - t0))
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all ledger concurrency tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""fdp ledger: tamper evidence (--key), modes, labels, pure-DP ledgers, bad input.

Usage: /usr/bin/python3 test_ledger_integrity.py PATH_TO_fdp   (exit 0 = all passed)

Checks: a signed ledger (--key) whose budget was raised by hand is rejected
(also when the edit recomputes the SHA-256 checksum, the five-line attack of
issue 26), a wrong key is rejected, a signed ledger read without its key is
reported UNVERIFIED and cannot be added to; without a key the checksum is
reported as detecting accidents only. Every output states the mode; labels
and times are listed; a pure-DP ledger (--delta 0) works; the --help example
runs as printed. Bad input (missing, empty, truncated or foreign files, bad
keys, NaN or negative budgets, control characters in a label) exits 2 with
one line on stderr (or a JSON error with --json) and leaves the file as it
was; a lock held by a killed process does not block.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import shlex

failures = []
REFUSED = 4


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(fdp, *args):
    p = subprocess.run([fdp, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def ok(fdp, *args):
    code, out, err = run(fdp, *args)
    if code != 0:
        fail("fdp %s: exit %d, %r" % (" ".join(args), code, err))
    return out


def bad(fdp, args, needle, code=2, path=None):
    """Exit `code`, one line on stderr containing `needle`, nothing on stdout,
    the file at `path` unchanged; with --json, the error object instead."""
    before = open(path, "rb").read() if path and os.path.exists(path) else None
    c, out, err = run(fdp, *args)
    what = "fdp " + " ".join(args)
    if c != code or out or err.count("\n") != 1 or needle.lower() not in err.lower():
        fail("%s: exit %d (expected %d), stdout %r, stderr %r (wanted %r)"
             % (what, c, code, out[:200], err, needle))
    c, out, err = run(fdp, *args, "--json")
    try:
        e = json.loads(out)["error"]
        if c != code or e["code"] != code or needle.lower() not in e["message"].lower():
            fail("%s --json: exit %d, %r" % (what, c, e))
    except (ValueError, KeyError):
        fail("%s --json: no JSON error object: %r %r" % (what, out[:200], err))
    if before is not None and open(path, "rb").read() != before:
        fail("%s: the ledger file changed" % what)


def edit_budget(path, eps, recompute_checksum):
    """Raise the budget by hand; optionally recompute a SHA-256 checksum over
    the edited body (what anyone can do without a key)."""
    text = open(path).read()
    text = text.replace('"budget": {"epsilon": 1,', '"budget": {"epsilon": %s,' % eps)
    if recompute_checksum:
        body = text[:text.index(',\n  "checksum"')]
        text = body + ',\n  "checksum": "sha256:%s"\n}\n' % hashlib.sha256(body.encode()).hexdigest()
    with open(path, "w") as f:
        f.write(text)


def test_keys(fdp, tmp):
    key, wrong, short = (os.path.join(tmp, n) for n in ("key", "wrong", "short"))
    for p, data in ((key, b"k" * 32), (wrong, b"w" * 32), (short, b"abc")):
        with open(p, "wb") as f:
            f.write(data)
    L = os.path.join(tmp, "signed.json")
    ok(fdp, "ledger", "init", "--budget-eps", "1", "--delta", "1e-5", "--key", key, L)
    ok(fdp, "ledger", "add", L, "laplace:b=10", "--key", key)
    st = json.loads(ok(fdp, "ledger", "status", L, "--key", key, "--json"))
    if st["integrity"] != "hmac-verified":
        fail("signed ledger with its key: integrity %r" % st["integrity"])
    out = ok(fdp, "ledger", "status", L)
    if "UNVERIFIED" not in out:
        fail("signed ledger without --key is not reported unverified: %r" % out)
    bad(fdp, ["ledger", "add", L, "laplace:b=10"], "give its --key", path=L)
    bad(fdp, ["ledger", "status", L, "--key", wrong], "HMAC mismatch", path=L)
    bad(fdp, ["ledger", "status", L, "--key", short], "at least 16", path=L)
    bad(fdp, ["ledger", "status", L, "--key", os.path.join(tmp, "nokey")], "key", path=L)
    good = open(L, "rb").read()
    edit_budget(L, 5, recompute_checksum=False)
    bad(fdp, ["ledger", "status", L, "--key", key], "HMAC mismatch", path=L)
    bad(fdp, ["ledger", "add", L, "laplace:b=10", "--key", key], "HMAC mismatch", path=L)
    with open(L, "wb") as f:
        f.write(good)
    edit_budget(L, 5, recompute_checksum=True)  # the five-line attack
    bad(fdp, ["ledger", "status", L, "--key", key], "not signed", path=L)
    # without a key, a checksum cannot tell: say so
    U = os.path.join(tmp, "unsigned.json")
    ok(fdp, "ledger", "init", "--budget-eps", "1", "--delta", "1e-5", U)
    edit_budget(U, 5, recompute_checksum=True)
    st = json.loads(ok(fdp, "ledger", "status", U, "--json"))
    if st["integrity"] != "checksum" or st["budget"]["epsilon"] != 5:
        fail("unsigned edited ledger: %r" % st)
    if "not deliberate edits" not in ok(fdp, "ledger", "status", U):
        fail("status of an unsigned ledger does not say the checksum detects accidents only")
    if "NOT deliberate edits" not in ok(fdp, "ledger", "--help"):
        fail("--help does not say what the checksum detects")


def test_modes_labels(fdp, tmp):
    A = os.path.join(tmp, "a.json")
    ok(fdp, "ledger", "init", "--budget-eps", "1", "--delta", "0.01", A)
    ok(fdp, "ledger", "add", A, "epsdelta:eps=0.5", "--label", "first release")
    st = json.loads(ok(fdp, "ledger", "status", A, "--json"))
    if st["mode"] != "adaptive" or st["filter"]["kind"] != "pure-DP sum":
        fail("default ledger: mode %r, filter %r" % (st["mode"], st["filter"]))
    # the replayed counterexample (tests/ops/budget_privacy_filter_test.cpp):
    # the plan rule admits each branch, the adaptive filter refuses
    P = os.path.join(tmp, "p.json")
    ok(fdp, "ledger", "init", "--budget-eps", "1", "--delta", "0.01", "--mode", "plan", P)
    ok(fdp, "ledger", "add", P, "epsdelta:eps=0.5")
    for branch in ("epsdelta:eps=0.52", "epsdelta:eps=0,delta=0.0085"):
        c, out, _ = run(fdp, "ledger", "check", P, branch)
        if c != 0 or "plan rule" not in out:
            fail("plan ledger check %s: exit %d %r" % (branch, c, out))
        bad(fdp, ["ledger", "add", A, branch], "over budget", code=REFUSED, path=A)
    out = ok(fdp, "ledger", "list", A)
    if "first release" not in out or "epsdelta:eps=0.5" not in out or "Z" not in out:
        fail("ledger list: %r" % out)
    j = json.loads(ok(fdp, "ledger", "list", A, "--json"))
    if [r["label"] for r in j["records"]] != ["first release"]:
        fail("ledger list --json: %r" % j["records"])
    bad(fdp, ["ledger", "add", A, "laplace:b=100", "--label", "bad\x1b[2Jlabel"], "control",
        path=A)
    bad(fdp, ["ledger", "add", A, "laplace:b=100", "--label", "two\nlines"], "control", path=A)
    # pure DP
    Z = os.path.join(tmp, "pure.json")
    ok(fdp, "ledger", "init", "--budget-eps", "1", "--delta", "0", Z)
    ok(fdp, "ledger", "add", Z, "laplace:b=2", "laplace:b=2")
    st = json.loads(ok(fdp, "ledger", "status", Z, "--json"))
    if st["spent"]["epsilon"]["upper"] != 1.0:
        fail("pure-DP ledger: %r" % st["spent"])
    bad(fdp, ["ledger", "add", Z, "gaussian:sigma=100"], "over budget", code=REFUSED, path=Z)


def test_help_example(fdp, tmp):
    """Every example line of --help, run as printed (in a shell's word
    splitting), exits as it says."""
    text = ok(fdp, "ledger", "--help")
    lines = [l.strip() for l in text[text.index("examples:"):].splitlines()
             if l.strip().startswith("fdp ledger ")]
    if len(lines) < 4:
        fail("--help has %d example lines" % len(lines))
    for line in lines:
        cmd, _, note = line.partition("(refused: exit 4)")
        want = REFUSED if note is not None and "(refused" in line else 0
        args = shlex.split(cmd)
        c = subprocess.run([fdp, *args[1:]], capture_output=True, cwd=tmp).returncode
        if c != want:
            fail("--help example %r: exit %d, expected %d" % (line, c, want))


def test_bad_files(fdp, tmp):
    E = os.path.join(tmp, "empty.json")
    open(E, "w").close()
    bad(fdp, ["ledger", "status", E], "not a valid ledger", path=E)
    bad(fdp, ["ledger", "add", E, "laplace:b=10"], "not a valid ledger", path=E)
    F = os.path.join(tmp, "foreign.json")
    with open(F, "w") as f:
        f.write('{"name": "not a ledger"}')
    bad(fdp, ["ledger", "status", F], "ledger", path=F)
    T = os.path.join(tmp, "trunc.json")
    ok(fdp, "ledger", "init", "--budget-eps", "1", "--delta", "1e-5", T)
    data = open(T).read()
    with open(T, "w") as f:
        f.write(data[:len(data) // 2])
    bad(fdp, ["ledger", "add", T, "laplace:b=10"], "truncated", path=T)
    bad(fdp, ["ledger", "status", os.path.join(tmp, "missing.json")], "cannot be opened")
    X = os.path.join(tmp, "x.json")
    for eps in ("nan", "-1", "0", "inf"):
        bad(fdp, ["ledger", "init", "--budget-eps", eps, "--delta", "1e-5", X], "budget-eps")
    for d in ("nan", "-1e-5", "1"):
        bad(fdp, ["ledger", "init", "--budget-eps", "1", "--delta", d, X], "delta")
    bad(fdp, ["ledger", "init", "--budget-eps", "1", "--delta", "1e-5", "--mode", "maybe", X],
        "mode")
    if os.path.exists(X):
        fail("a refused init created the file")


def test_dead_lock_holder(fdp, tmp):
    L = os.path.join(tmp, "locked.json")
    ok(fdp, "ledger", "init", "--budget-eps", "1", "--delta", "1e-5", L)
    holder = subprocess.Popen([sys.executable, "-c",
                               "import fcntl, sys, time\n"
                               "f = open(sys.argv[1] + '.lock', 'a')\n"
                               "fcntl.flock(f, fcntl.LOCK_EX)\n"
                               "print('locked', flush=True)\n"
                               "time.sleep(600)\n", L], stdout=subprocess.PIPE, text=True)
    holder.stdout.readline()
    holder.kill()
    holder.wait()
    # the kernel released the dead holder's lock (a hang ends in run's timeout)
    ok(fdp, "ledger", "add", L, "laplace:b=10")


def main():
    fdp = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        test_keys(fdp, tmp)
        test_modes_labels(fdp, tmp)
        test_help_example(fdp, tmp)
        test_bad_files(fdp, tmp)
        test_dead_lock_holder(fdp, tmp)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("all ledger integrity tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

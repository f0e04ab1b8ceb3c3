#!/usr/bin/python3
"""fdp-mpi: a mechanism audit split over MPI processes reports exactly what one
process reports (the JSON, timing aside), and processes given different
arguments are refused (exit 2). Registered by tests/CMakeLists.txt when the
MPI build exists.

    mpi_audit_check.py FDP FDP_MPI MPIEXEC
"""

import json
import subprocess
import sys

MPI = ["--allow-run-as-root", "--oversubscribe"]  # (containers run tests as root)


def report(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    j = json.loads(out.stdout) if out.stdout.strip() else None
    if j is not None:
        j.pop("timing", None)
    return out.returncode, j, out.stderr


def main():
    fdp, fdp_mpi, mpiexec = sys.argv[1:4]
    failures = []
    for claim, code in (("laplace:eps=1", 0), ("laplace:eps=0.9", 3)):
        args = ["audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                "--samples", "300000", "--claim", claim, "--seed", "9", "--no-progress", "--json"]
        want = report([fdp] + args)
        if want[0] != code:
            failures.append("single process %s: exit %d, %r" % (claim, want[0], want[2]))
        for n in (2, 3):
            got = report([mpiexec] + MPI + ["-np", str(n), fdp_mpi] + args)
            if got[0] != code or got[1] != want[1]:
                failures.append("%d processes, %s: exit %d, differs: %r" % (n, claim, got[0],
                                                                             got[2][-300:]))
    base = ["audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
            "--samples", "100000", "--claim", "laplace:eps=1", "--no-progress"]
    code, _, err = report([mpiexec] + MPI + ["-np", "1", fdp_mpi] + base + ["--seed", "1", ":",
                          "-np", "1", fdp_mpi] + base + ["--seed", "2"])
    if code != 2 or "different test plans" not in err:
        failures.append("ranks with different arguments: exit %d, %r" % (code, err[-300:]))
    for f in failures:
        print("FAIL:", f)
    print("all passed" if not failures else "%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

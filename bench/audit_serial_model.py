#!/usr/bin/env python3
"""Where a scalar audit's time goes, and the thread scaling it allows (issue 27).

Profiles one ONE-thread run of the Laplace audit (eps = 1, inputs 0 and 1, N
samples per side) with `perf record -g`, classes every sample as work that
runs on all threads or on one, and prints the Amdahl serial fraction s and
S(T) = 1 / (s + (1 - s) / T) for T = 2, 8, 16, with the largest serial items.

Parallel work: the functions that run inside the audit's worker tasks
(Philox words, Laplace variates and their logs, accumulate, the radix sort,
the merge, the split of the selection columns, the threshold ranks). A page
the kernel zeroes on first touch counts as parallel only when the frame that
touched it is one of those (the threads touch their own pages); first
touches under memset or operator new on the calling thread are serial.

    bench/audit_serial_model.py [FDP] [N]     (defaults: build/tools/fdp, 1e8)

Needs perf (linux-perf). A model, not a measurement of T threads: on a
machine with fewer cores it says what the code allows; wall times on this
project's 2-core VM are in bench/results/audit_scaling.md.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

PARALLEL = re.compile(
    r"philox_words|fill_laplace|audit::accumulate|sort_doubles|merge_doubles|"
    r"laplace_mechanism::sample|ieee754_log|^__log|threshold_family|sort_column|real_families")
KERNEL = re.compile(r"clear_page|folio|fault|handle_mm|pmd|asm_exc|\[unknown\]|^\?$")


def stacks(perf_data):
    """Each sample's frames, leaf first (symbol names only)."""
    out = subprocess.run(["perf", "script", "-i", perf_data, "-F", "ip,sym"],
                         capture_output=True, text=True, check=True).stdout
    cur = []
    for line in out.splitlines():
        if not line.strip():
            if cur:
                yield cur
            cur = []
            continue
        parts = line.strip().split(None, 1)
        cur.append(parts[1] if len(parts) > 1 else "?")
    if cur:
        yield cur


def classify(samples):
    total = parallel = zero_serial = 0
    serial = collections.Counter()
    for st in samples:
        total += 1
        leaf = st[0]
        user = [f for f in st if not KERNEL.search(f)]
        first = user[0] if user else leaf
        if "clear_page" in leaf or "folio_zero" in leaf:
            if PARALLEL.search(first) and "threshold_family" not in first:
                parallel += 1
            else:
                zero_serial += 1
                serial["page zeroing under " + first[:60]] += 1
        elif PARALLEL.search(leaf):
            parallel += 1
        else:
            serial[leaf[:70]] += 1
    return total, parallel, zero_serial, serial


def main():
    fdp = sys.argv[1] if len(sys.argv) > 1 else "build/tools/fdp"
    n = sys.argv[2] if len(sys.argv) > 2 else "100000000"
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "-F", "499", "-g", "-q", "-o", data, fdp, "audit",
                        "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1",
                        "--samples", n, "--seed", "1", "--threads", "1"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        total, parallel, zero_serial, serial = classify(stacks(data))
    s = (total - parallel) / total
    print(f"{fdp}, N = {n} per side, one thread: {total} samples")
    print(f"serial fraction s = {s:.3f} (of which page zeroing {zero_serial / total:.3f})")
    print(" ".join(f"S({t}) = {1 / (s + (1 - s) / t):.2f}" for t in (2, 8, 16)))
    for name, count in serial.most_common(8):
        print(f"  {100 * count / total:5.2f}%  {name}")


if __name__ == "__main__":
    main()

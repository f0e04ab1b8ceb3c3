#!/usr/bin/python3
"""Regenerates tools/fdp/link_order.txt, the function order the fdp binary is
linked with (lld --symbol-ordering-file; see tools/CMakeLists.txt).

Why: on this project's VMs a page fault costs 10-20 us, and a short `fdp`
run spends most of its time faulting in code scattered over a 5 MB text
segment (S4: 83 faults, 2.5 ms). Laying out every function such a run
executes contiguously lets the kernel's fault-around map them in a few
faults. The order only moves code; a stale or missing entry costs speed,
never correctness (unknown names are ignored by the linker).

How: each command below runs once under valgrind's callgrind; every function
it executes is collected by mangled name. Functions used by more commands
come first (start-up code, used by all, leads), ties by name. valgrind
emulates a CPU without AVX-512, so glibc's ifunc picks other variants of the
string functions there; every variant of a listed one (same base name,
e.g. __strlen_evex for __strlen_avx2) is listed with it.

Usage: scripts/gen_link_order.py [path/to/fdp]   (default build/tools/fdp)
Needs valgrind and nm. Rebuild afterwards; bench/scenarios.sh shows the gain.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tools", "fdp", "link_order.txt")

# Representative runs: the accounting scenarios, the other short commands.
COMMANDS = [
    ["compose", "gaussian:sigma=1,times=100", "--delta", "1e-5"],
    ["compose", "laplace:b=10,times=100", "--delta", "1e-6"],
    ["compose", "laplace:b=10,times=1000", "--delta", "1e-6", "--json"],
    ["compose", "subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062", "--delta", "1e-5"],
    ["compose", "subsampled-gaussian:sigma=0.8,q=0.01,times=10000", "--delta", "1e-5"],
    ["compose", "epsdelta:eps=0.1,delta=1e-6,times=100", "--delta", "1e-3"],
    ["compose", "gaussian:sigma=2,times=50", "laplace:b=5,times=50",
     "subsampled-gaussian:sigma=1,q=0.01,times=50", "--delta", "1e-5"],
    ["compose", "gdp:mu=1", "epsdelta:eps=1,delta=1e-6", "--epsilon", "1", "--json"],
    ["curve", "gaussian:sigma=1,times=10", "--points", "50"],
    ["convert", "--mu", "1", "--delta", "1e-5"],
    ["--help"],
    ["compose", "--help"],
    ["--version"],
]

VARIANT = re.compile(r"^(__\w+?)_(sse2|sse4_1|sse4_2|ssse3|avx|avx2|avx2_rtm|evex|evex512|avx512|"
                     r"avx512f|avx512vl|erms|unaligned|fma|fma4)(_\w+)?$")


def base_name(sym):
    m = VARIANT.match(sym)
    return m.group(1) if m else None


def executed_functions(fdp, args, workdir):
    out = os.path.join(workdir, "cg.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                    "--demangle=no", fdp] + args,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    names = set()
    with open(out, errors="replace") as f:
        for line in f:
            m = re.match(r"^c?fn=\(\d+\) (.+)$", line)
            if m:
                name = m.group(1).strip()
                name = re.sub(r"'\d+$", "", name)  # callgrind's recursion suffix
                if not name.startswith("0x") and not name.startswith("("):
                    names.add(name)
    os.remove(out)
    return names


def main():
    fdp = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tools", "fdp")
    if not os.access(fdp, os.X_OK):
        sys.exit(f"gen_link_order: no executable at {fdp}; build the fdp_cli target first")
    symbols = subprocess.run(["nm", "--defined-only", fdp], capture_output=True, text=True,
                             check=True).stdout.split()
    by_base = collections.defaultdict(set)
    for s in symbols:
        b = base_name(s)
        if b:
            by_base[b].add(s)
    uses = collections.Counter()
    with tempfile.TemporaryDirectory() as work:
        for args in COMMANDS:
            names = executed_functions(fdp, args, work)
            expanded = set(names)
            for n in names:
                b = base_name(n)
                if b:
                    expanded |= by_base[b]
            uses.update(expanded)
            print(f"{len(names):5d} functions: fdp {' '.join(args)}", file=sys.stderr)
    order = sorted(uses, key=lambda n: (-uses[n], n))
    with open(OUT, "w") as f:
        f.write("\n".join(order) + "\n")
    print(f"wrote {len(order)} symbols to {os.path.relpath(OUT, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()

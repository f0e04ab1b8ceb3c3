#!/usr/bin/python3
"""The fdp process's huge-page pool (tools/fdp/big_blocks.cpp) changes no answer.

Usage: /usr/bin/python3 test_big_blocks.py PATH_TO_fdp   (exit 0 = all passed)

The fdp binary serves C++ allocations of 4 KiB and more from its own pool
(power-of-two blocks, reused after free, memory given back beyond a retained
limit). Each command below allocates and frees grids, spectra and curves of
many sizes on several threads; its output (less the wall-clock "seconds"
fields of the JSON) must be byte-identical
  * with the pool (default),
  * without it (FDP_HUGE_PAGES=0: every allocation from malloc), and
  * with the pool keeping no freed memory (FDP_HUGE_PAGES_RETAIN=0: every
    freed block above 64 KiB is given back to the kernel and refaulted on
    reuse, the path a long ledger session takes).
A block handed out twice, a header overwritten or a block of the wrong class
would show up as a different number or a crash.
"""

import json
import os
import subprocess
import sys

FDP = sys.argv[1]

COMMANDS = [
    # two threads, FFT grids of ~10^4-10^5 points, both orientations
    ["compose", "subsampled-gaussian:sigma=0.8,q=0.01,times=1000", "laplace:b=5,times=50",
     "--delta", "1e-5", "--alpha", "0.01", "--mu", "--json"],
    # a calibration: tens of compositions, blocks freed and reused
    ["calibrate", "subsampled-gaussian:q=0.01,times=500", "--solve", "sigma", "--eps", "2",
     "--delta", "1e-5", "--json"],
    # a curve of 200,000 points: blocks of several MiB
    ["curve", "laplace:b=2,times=20", "gaussian:sigma=3,times=10", "--points", "200000"],
    # an asymmetric composition: both orientations, their beta envelopes
    ["curve", "subsampled-laplace:b=1,q=0.05,times=100", "--points", "50000"],
]


def without_timings(out):
    """JSON output with its wall-clock fields ("seconds") removed; text as is."""
    try:
        doc = json.loads(out)
    except ValueError:
        return out

    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "seconds"}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return json.dumps(strip(doc), sort_keys=True)


def run(cmd, env_extra):
    env = dict(os.environ)
    env.pop("FDP_HUGE_PAGES", None)
    env.pop("FDP_HUGE_PAGES_RETAIN", None)
    env.update(env_extra)
    r = subprocess.run([FDP] + cmd, capture_output=True, text=True, env=env, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"{cmd} {env_extra}: exit {r.returncode}: {r.stderr.strip()}")
    return without_timings(r.stdout)


def main():
    failures = 0
    for cmd in COMMANDS:
        ref = run(cmd, {"FDP_HUGE_PAGES": "0"})
        if len(ref) < 20:
            print(f"FAIL {cmd[0]}: output too short to compare: {ref!r}")
            failures += 1
            continue
        for env in ({}, {"FDP_HUGE_PAGES_RETAIN": "0"}):
            out = run(cmd, env)
            if out != ref:
                print(f"FAIL {' '.join(cmd[:2])} with {env or 'the pool'}: output differs from malloc's")
                failures += 1
            else:
                print(f"ok   {' '.join(cmd[:2])} with {env or 'the pool'} ({len(out)} bytes identical)")
    if failures:
        print(f"{failures} failure(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Tests for the plot scripts in plots/.

Usage: /usr/bin/python3 test_plots.py PATH_TO_fdp   (exit 0 = all passed)

Runs every plots/plot_*.py on small inputs into a temporary directory and
checks that a non-empty PNG (or SVG) appears, that each run takes under 10 s
of CPU,
and that bad input gets exit code 2 with one line on stderr. Outputs of fdp
commands that do not exist yet (clt, group, audit) are synthetic files in the
formats of docs/cli.md (plots/examples/make_synthetic.py and below).
"""

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("FDP_SOURCE_DIR", os.path.dirname(os.path.dirname(HERE)))
PLOTS = os.path.join(SOURCE, "plots")
PY = "/usr/bin/python3"
LIMIT_S = 10.0

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(args, timeout=60):
    """(exit code, stdout, stderr, CPU seconds of the child and its children).
    CPU time, not wall time, so that a loaded machine (ctest -j) does not
    make the 10 s limit flaky."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return p.returncode, p.stdout, p.stderr, cpu


def script(name, *args):
    return run([PY, os.path.join(PLOTS, name)] + list(args))


def check_image(name, out, rc, stderr, secs):
    what = f"{name} -> {os.path.basename(out)}"
    if rc != 0:
        fail(f"{what}: exit {rc}: {stderr.strip()[-400:]}")
        return
    if not os.path.isfile(out) or os.path.getsize(out) < 1000:
        fail(f"{what}: no (or tiny) output file")
        return
    with open(out, "rb") as fh:
        head = fh.read(8)
    if out.endswith(".png") and head != b"\x89PNG\r\n\x1a\n":
        fail(f"{what}: not a PNG")
    if out.endswith(".svg") and b"<svg" not in open(out, "rb").read(2000):
        fail(f"{what}: not an SVG")
    if secs > LIMIT_S:
        fail(f"{what}: took {secs:.1f} s of CPU (limit {LIMIT_S:g} s)")
    print(f"ok   {what} ({os.path.getsize(out)} bytes, {secs:.2f} s CPU)")


def expect(name, tmp, *args, out=None):
    out = out or os.path.join(tmp, name.replace(".py", "") + "_" +
                              str(len(failures)) + str(time.monotonic_ns()) + ".png")
    rc, _, err, secs = script(name, *args, "-o", out)
    check_image(name, out, rc, err, secs)
    return out


def expect_usage_error(name, *args, mentions=None):
    rc, out, err, _ = script(name, *args)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    what = f"{name} {' '.join(args)}"
    if rc != 2:
        fail(f"{what}: exit {rc}, want 2 (stderr: {err.strip()[-300:]})")
    elif len(lines) != 1:
        fail(f"{what}: want one line on stderr, got {len(lines)}: {err!r}")
    elif mentions and mentions not in err:
        fail(f"{what}: stderr does not mention '{mentions}': {err.strip()}")
    else:
        print(f"ok   {what}: exit 2, '{lines[0]}'")


def write(path, text):
    with open(path, "w") as fh:
        fh.write(text)
    return path


def main():
    if len(sys.argv) != 2:
        print("usage: test_plots.py PATH_TO_fdp", file=sys.stderr)
        return 2
    fdp = os.path.abspath(sys.argv[1])
    rc, _, err, _ = run([PY, "-c", "import matplotlib, numpy"])
    if rc != 0:
        print("FAIL: /usr/bin/python3 lacks matplotlib/numpy "
              "(scripts/install-deps.sh installs python3-matplotlib): " + err)
        return 1

    with tempfile.TemporaryDirectory(prefix="fdp_plots_") as tmp:
        # Inputs: real fdp curve CSVs, synthetic clt/audit/group outputs.
        def curve_csv(name, *specs, points="101"):
            rc, out, err, _ = run([fdp, "curve"] + list(specs) + ["--points", points])
            if rc != 0:
                fail(f"fdp curve {' '.join(specs)}: exit {rc}: {err.strip()}")
            return write(os.path.join(tmp, name), out)

        g1 = curve_csv("g1.csv", "gdp:mu=1")
        g2 = curve_csv("g2.csv", "gdp:mu=2")
        g3 = curve_csv("g3.csv", "gdp:mu=3")
        f1 = curve_csv("f1.csv", "epsdelta:eps=1,delta=0.1")
        lap = curve_csv("lap.csv", "laplace:b=3,times=10")
        rc, _, err, _ = run([PY, os.path.join(PLOTS, "examples", "make_synthetic.py"), tmp])
        if rc != 0:
            fail(f"make_synthetic.py: exit {rc}: {err.strip()}")
        clt_json = os.path.join(tmp, "clt_laplace100.json")
        audit_csv = os.path.join(tmp, "audit_gauss.csv")
        audit_json = os.path.join(tmp, "audit_gauss.json")
        # `fdp compose --json` carrying a "clt" object (CLI.md): the certified
        # "mu" bracket must not be mistaken for the CLT mu.
        compose_clt = write(os.path.join(tmp, "compose_clt.json"), json.dumps({
            "fdp": {"version": "0.1.0", "schema": 1, "command": "compose"},
            "method": "pld", "mu": {"lower": 3.0, "upper": 3.1},
            "queries": [{"alpha": 0.1, "beta": {"lower": 0.5, "upper": 0.6}}],
            "clt": {"applicable": True, "mu": 1.0, "gamma": 0.05}}))
        # Bare fdp clt output without a band list (mu/gamma only).
        clt_bare = write(os.path.join(tmp, "clt_bare.json"),
                         json.dumps({"clt_mu": 1.0, "gamma": 0.7, "band_valid": False}))
        # fdp compose --eps ... --json, as a file.
        rc, out, err, _ = run([fdp, "compose", "laplace:b=1,times=3", "--json",
                               "--delta", "1e-5"] +
                              [w for e in range(0, 9) for w in ("--eps", str(e * 0.5))])
        if rc != 0:
            fail(f"fdp compose --eps ... --json: exit {rc}: {err.strip()}")
        prof_json = write(os.path.join(tmp, "lap3.json"), out)

        # plot_curves.py: specs, files, bracket, composed specs, SVG, log axis.
        expect("plot_curves.py", tmp, "--fdp", fdp, "gdp:mu=1", "gdp:mu=0.5",
               "epsdelta:eps=1", "epsdelta:eps=1,delta=0.1", "--points", "101")
        expect("plot_curves.py", tmp, g1, f1, lap, "--label", "G1")
        expect("plot_curves.py", tmp, "--fdp", fdp, "gdp:mu=0.5 laplace:b=3",
               "--logx", "--points", "51", out=os.path.join(tmp, "curves.svg"))

        # plot_composition.py: bracket + exact; + CLT from clt JSON, from a
        # compose JSON, and from a bare one; from a CSV bracket.
        expect("plot_composition.py", tmp, "--fdp", fdp, "gaussian:sigma=4,times=16",
               "--method", "pld", "--exact-gdp", "1", "--points", "101")
        expect("plot_composition.py", tmp, "--fdp", fdp, "laplace:b=10,times=100",
               "--clt", clt_json, "--points", "101")
        expect("plot_composition.py", tmp, "--curve", lap, "--clt", compose_clt)
        expect("plot_composition.py", tmp, "--curve", g1, "--exact-curve", g1,
               "--clt", clt_bare, "--no-residual")
        rc, _, _, _ = run([fdp, "clt", "--help"])
        if rc == 0:
            expect("plot_composition.py", tmp, "--fdp", fdp, "laplace:b=10,times=20",
                   "--clt", "auto", "--points", "101")
            rc, out, err, _ = run([fdp, "clt", "epsdelta:eps=1,delta=0.1", "--json"])
            na = write(os.path.join(tmp, "clt_na.json"), out)
            expect_usage_error("plot_composition.py", "--curve", g1, "--clt", na,
                               "-o", os.path.join(tmp, "x.png"), mentions="does not apply")
        else:
            print("skip plot_composition.py --clt auto (fdp has no 'clt' yet)")

        # plot_group.py: per-k files; template through fdp curve; fdp group
        # itself once it exists.
        expect("plot_group.py", tmp, g1, g2, g3)
        expect("plot_group.py", tmp, "--fdp", fdp, "--template",
               "gaussian:sigma=4,sensitivity={k}", "--k", "10", "--points", "51")
        rc, _, _, _ = run([fdp, "group", "--help"])
        if rc == 0:
            expect("plot_group.py", tmp, "--fdp", fdp, "gdp:mu=0.5", "--k", "4",
                   "--points", "51")
        else:
            print("skip plot_group.py SPEC --k (fdp has no 'group' yet)")
            expect_usage_error("plot_group.py", "--fdp", fdp, "gdp:mu=0.5", "--k", "3",
                               "-o", os.path.join(tmp, "x.png"), mentions="group")

        # plot_profile.py: specs through fdp compose, and a compose JSON file.
        expect("plot_profile.py", tmp, "--fdp", fdp, "gdp:mu=1", "laplace:b=1,times=4",
               "--eps-max", "6", "--eps-points", "25", "--delta", "1e-5")
        expect("plot_profile.py", tmp, prof_json, "--delta", "1e-5")

        # plot_audit.py: synthetic fdp audit outputs, claim as spec and as CSV;
        # and a real fdp audit run.
        expect("plot_audit.py", tmp, "--fdp", fdp, "--curve", audit_csv,
               "--json", audit_json, "--claim", "gdp:mu=1")
        expect("plot_audit.py", tmp, "--curve", audit_csv, "--claim-curve", g1)
        real_csv, real_json = os.path.join(tmp, "real_audit.csv"), os.path.join(tmp, "real_audit.json")
        rc, out, err, _ = run([fdp, "audit", "--mechanism", "gaussian:sigma=0.8", "--input0", "0",
                               "--input1", "1", "--claim", "gdp:mu=1", "--samples", "20000",
                               "--seed", "1", "--curve-out", real_csv, "--json"])
        if rc != 3:
            fail(f"fdp audit (a violation): exit {rc}: {err.strip()}")
        write(real_json, out)
        expect("plot_audit.py", tmp, "--fdp", fdp, "--curve", real_csv, "--json", real_json,
               "--claim", "gdp:mu=1")

        # The gallery script itself (plots/README.md's pictures), into tmp.
        rc, _, err, _ = run(["bash", os.path.join(PLOTS, "make_gallery.sh"), fdp,
                             os.path.join(tmp, "gallery")])
        if rc != 0:
            fail(f"make_gallery.sh: exit {rc}: {err.strip()[-400:]}")
        for name in ("tradeoffs", "composition", "composition_clt", "group", "profile", "audit"):
            if not os.path.getsize(os.path.join(tmp, "gallery", name + ".png")) > 10000:
                fail(f"make_gallery.sh: {name}.png missing or empty")

        # Bad input: exit 2, one line on stderr naming the problem.
        missing = os.path.join(tmp, "missing.csv")
        expect_usage_error("plot_curves.py", missing, "-o", os.path.join(tmp, "x.png"),
                           mentions="missing.csv")
        expect_usage_error("plot_curves.py", "--fdp", fdp, "bogus:x=1",
                           "-o", os.path.join(tmp, "x.png"), mentions="bogus")
        bad = write(os.path.join(tmp, "bad.csv"), "alpha,beta\n0,1\n0.5,zz\n1,0\n")
        expect_usage_error("plot_curves.py", bad, "-o", os.path.join(tmp, "x.png"),
                           mentions="bad.csv:3")
        expect_usage_error("plot_curves.py", g1, "-o", os.path.join(tmp, "x.jpg"),
                           mentions=".jpg")
        expect_usage_error("plot_composition.py", "--curve", g1, "--clt",
                           write(os.path.join(tmp, "nomu.json"), "{}"),
                           "-o", os.path.join(tmp, "x.png"), mentions="mu")
        expect_usage_error("plot_audit.py", "--curve", audit_csv, "--json", missing,
                           "-o", os.path.join(tmp, "x.png"), mentions="missing.csv")

    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("all plot tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The one JSON contract (docs/json.md, schema version 1), command by command.

Usage: test_json_contract.py PATH_TO_FDP   (FDP_SOURCE_DIR: the source tree)

1. Every example in `fdp COMMAND --help` (parsed out of the help text, so a
   new example is tested the day it is written) is run with --json added, in
   a scratch directory, in order (examples of other commands in the same
   help, e.g. `fdp sample` in audit's, are run as given: they make files the
   next examples read). Each output must be one JSON object valid against
   docs/schema/fdp-output.schema.json, naming its command and the project
   version; nothing may be printed on stderr. An example whose help line
   says "(... exit N)" must exit N; audit examples may exit 3 (a violation).
   Audit and sample examples run with at most 200000 samples per side (the
   shapes do not depend on the count; the CLI tests must stay short).
2. Every command with --json reports bad input as the error object on stdout
   ({"fdp", "error": {"code", "parameter", "message"}}), with exit 2 (4 for a
   ledger refusal) and nothing on stderr.
3. `fdp sample` is the only command without --json (it writes raw outputs).
"""

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

import jsonschema

FDP = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "fdp"
SRC = os.environ.get("FDP_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
with open(os.path.join(SRC, "docs", "schema", "fdp-output.schema.json")) as f:
    SCHEMA = json.load(f)
jsonschema.Draft202012Validator.check_schema(SCHEMA)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
with open(os.path.join(SRC, "CMakeLists.txt")) as f:
    VERSION = re.search(r"project\(fdp VERSION ([0-9.]+)", f.read()).group(1)

MAX_SAMPLES = 200000
failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
    return ok


def run(args, cwd=None):
    p = subprocess.run([FDP] + args, capture_output=True, text=True, cwd=cwd, timeout=600,
                       env=dict(os.environ, FDP_PROGRESS_AFTER="1e9"))
    return p.returncode, p.stdout, p.stderr


def commands():
    """The command names listed by `fdp --help`."""
    _, out, _ = run(["--help"])
    names, inside = [], False
    for line in out.splitlines():
        if line.strip() == "commands:":
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            names.append(line.split()[0])
    return names


def examples(help_text):
    """[(argv after 'fdp', expected exit code or None)] from the help's
    examples section: backslash continuations joined, '# comments', shell
    redirections and a trailing '(... exit N)' note removed."""
    lines = help_text.splitlines()
    out, i = [], next((k for k, l in enumerate(lines) if re.match(r"^examples?:$", l)), len(lines))
    for line in lines[i + 1:]:
        if not line.startswith("  "):
            break
        if out and out[-1][0].endswith("\\"):
            out[-1][0] = out[-1][0][:-1] + " " + line.strip()
            continue
        if line.strip().startswith("fdp "):
            out.append([line.strip()])
    result = []
    for (text,) in out:
        text = text.split("#")[0]
        code = None
        note = re.search(r"\s\(([^()]*)\)\s*$", text)
        if note:
            m = re.search(r"exit (\d)", note.group(1))
            code = int(m.group(1)) if m else None
            text = text[:note.start()]
        text = text.split(" > ")[0]
        result.append((shlex.split(text)[1:], code))
    return result


def capped(argv):
    """argv with --samples at most MAX_SAMPLES."""
    out = list(argv)
    for k, w in enumerate(out[:-1]):
        if w == "--samples" and float(out[k + 1]) > MAX_SAMPLES:
            out[k + 1] = str(MAX_SAMPLES)
    return out


def check_object(cmd, what, code, out, err, want_error=False):
    """One JSON object on stdout, valid, for cmd; nothing on stderr."""
    check(err == "", "%s: stderr not empty: %r" % (what, err[:300]))
    try:
        obj = json.loads(out)
    except ValueError as e:
        check(False, "%s: stdout is not one JSON object (%s): %r" % (what, e, out[:300]))
        return None
    errors = sorted(VALIDATOR.iter_errors(obj), key=lambda e: list(e.path))
    check(not errors, "%s: not valid against the schema: %s" %
          (what, "; ".join("%s: %s" % (list(e.path), e.message[:200]) for e in errors[:3])))
    env = obj.get("fdp", {})
    check(env.get("command") == cmd and env.get("version") == VERSION and env.get("schema") == 1,
          "%s: envelope %r (want command %r, version %r, schema 1)" % (what, env, cmd, VERSION))
    if want_error or "error" in obj:
        e = obj.get("error", {})
        check(want_error == ("error" in obj) or code == 4,
              "%s: error object %r where none was expected" % (what, e))
        check(e.get("code") == code, "%s: error code %r, exit %d" % (what, e.get("code"), code))
    return obj


def test_examples(names, tmp):
    tested = set()
    for cmd in names:
        _, help_text, _ = run([cmd, "--help"])
        if "--json" not in help_text:
            continue
        cwd = os.path.join(tmp, cmd)
        os.makedirs(cwd)
        exs = examples(help_text)
        check(any(argv[:1] == [cmd] for argv, _ in exs), "fdp %s --help has no example of itself" % cmd)
        for argv, want in exs:
            argv = capped(argv)
            if argv[:1] != [cmd]:  # another command's example: it makes files
                code, _, err = run(argv, cwd)
                check(code == 0, "fdp %s (from %s's help): exit %d %r" % (" ".join(argv), cmd, code, err))
                continue
            if "--json" not in argv:
                argv = argv + ["--json"]
            what = "fdp " + " ".join(argv)
            code, out, err = run(argv, cwd)
            allowed = {want} if want is not None else ({0, 3} if cmd == "audit" else {0})
            check(code in allowed, "%s: exit %d, want %s (stderr %r)" % (what, code, sorted(allowed), err))
            check_object(cmd, what, code, out, err, want_error=code in (1, 2, 4))
            tested.add(cmd)
    return tested


# One bad input per command: (argv, exit code, parameter named).
BAD = [
    (["compose", "gdp:mu=1", "--delta", "2"], 2, "delta"),
    (["group", "gdp:mu=1", "--delta", "1e-5"], 2, "k"),
    (["curve", "gdp:mu=1", "--points", "1"], 2, "points"),
    (["convert", "--mu", "1"], 2, None),
    (["calibrate", "gaussian", "--solve", "sigma", "--eps", "0", "--delta", "1e-5"], 2, "eps"),
    (["compare", "laplace:b=10"], 2, "delta"),
    (["dpsgd", "--q", "0", "--sigma", "1", "--steps", "100", "--delta", "1e-5"], 2, "q"),
    (["audit", "--mechanism", "laplace:eps=1", "--input0", "0", "--input1", "1", "--confidence", "2"],
     2, "confidence"),
    (["clt", "gdp:mu=-1"], 2, None),
    (["mechanisms", "nosuch:eps=1"], 2, None),
    (["specs", "gdp"], 2, None),
    (["ledger", "status"], 2, None),
]


def test_errors(names, tmp):
    covered = set()
    for argv, code, param in BAD:
        what = "fdp " + " ".join(argv) + " --json"
        rc, out, err = run(argv + ["--json"], tmp)
        check(rc == code, "%s: exit %d, want %d" % (what, rc, code))
        obj = check_object(argv[0], what, rc, out, err, want_error=True)
        if obj and "error" in obj:
            e = obj["error"]
            check(param is None or e["parameter"] == param,
                  "%s: parameter %r, want %r" % (what, e["parameter"], param))
            check("\n" not in e["message"] and not e["message"].startswith(argv[0] + ":"),
                  "%s: message %r (one line, no repeated prefix)" % (what, e["message"]))
        covered.add(argv[0])
    # the same input without --json: one line on stderr, nothing on stdout
    for argv, code, _ in BAD:
        rc, out, err = run(argv, tmp)
        check(rc == code and out == "" and err.count("\n") == 1 and err.startswith("fdp " + argv[0] + ": "),
              "fdp %s: exit %d, stdout %r, stderr %r (want one line)" % (" ".join(argv), rc, out, err))
    # options spelled wrong, for every command with --json
    for cmd in sorted(covered):
        for bad, param in (("--no-such-option", "no-such-option"), ("-d", "d")):
            what = "fdp %s %s 1 --json" % (cmd, bad)
            rc, out, err = run([cmd, bad, "1", "--json"], tmp)
            obj = check_object(cmd, what, rc, out, err, want_error=True)
            check(rc == 2 and obj is not None and obj.get("error", {}).get("parameter") == param,
                  "%s: exit %d, %r" % (what, rc, obj))
    # a ledger refusal (exit 4) is an error object too
    ledger = os.path.join(tmp, "refusal.json")
    run(["ledger", "init", "--budget-eps", "1", "--delta", "1e-5", ledger])
    rc, out, err = run(["ledger", "add", ledger, "gaussian:sigma=0.5", "--json"])
    obj = check_object("ledger", "fdp ledger add (over budget) --json", rc, out, err, want_error=True)
    check(rc == 4 and obj is not None and "over budget" in obj.get("error", {}).get("message", ""),
          "ledger refusal --json: exit %d %r" % (rc, obj))
    # fdp sample has no --json: it is an unknown option there, said in text
    rc, out, err = run(["sample", "--mechanism", "laplace:eps=1", "--input", "0", "--samples", "1", "--json"])
    check(rc == 2 and out == "" and "unknown option --json" in err,
          "fdp sample --json: exit %d, %r %r" % (rc, out, err))
    # an unknown command asked for JSON answers in JSON
    rc, out, err = run(["nosuchcommand", "--json"])
    obj = check_object("nosuchcommand", "fdp nosuchcommand --json", rc, out, err, want_error=True)
    check(rc == 2, "unknown command --json: exit %d" % rc)
    return covered


def main():
    names = commands()
    check(len(names) >= 12, "fdp --help lists the commands: %r" % names)
    with tempfile.TemporaryDirectory(prefix="fdp_json_contract_") as tmp:
        tested = test_examples(names, tmp)
        covered = test_errors(names, tmp)
    without = sorted(set(names) - tested)
    check(without == ["sample"], "commands whose help examples were not run with --json: %r" % without)
    check(covered == tested, "error cases cover %r, examples %r" % (sorted(covered), sorted(tested)))
    for f in failures:
        print("FAIL", f)
    print("%d checks, %d failures (%d commands: %s)" % (checks, len(failures), len(tested),
                                                      " ".join(sorted(tested))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

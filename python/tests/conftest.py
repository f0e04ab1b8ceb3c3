"""Shared fixtures: the fdp CLI (to compare digits with) and the golden tables."""

import csv
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _cli_path():
    p = os.environ.get("FDP_CLI") or str(ROOT / "build" / "tools" / "fdp")
    return p if os.path.exists(p) else None


@pytest.fixture(scope="session")
def cli():
    """cli(*args) -> the parsed --json output of `fdp ARGS --json`."""
    path = _cli_path()
    if path is None:
        pytest.skip("the fdp CLI is not built (set FDP_CLI)")

    def run(*args):
        out = subprocess.run([path, *args, "--json"], check=True, capture_output=True, text=True)
        return json.loads(out.stdout)

    return run


def answers(obj, value):
    """The bracketed answers for `value` ("epsilon", "delta" or "beta") in a
    --json output's "queries" (schema version 1, docs/json.md), in order,
    each as {"lower", "upper"}."""
    return [q[value] for q in obj.get("queries", []) if isinstance(q.get(value), dict)]


def golden_rows(name):
    """The rows of tests/golden/NAME as dicts (comment lines skipped)."""
    d = pathlib.Path(os.environ.get("FDP_GOLDEN_DIR", ROOT / "tests" / "golden"))
    with open(d / name) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))

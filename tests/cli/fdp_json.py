"""Reading fdp's --json output (schema version 1, docs/json.md) in the CLI tests.

Not a test itself (CTest registers tests/cli/test_*.py only): the tests
import it from their own directory.
"""

# The value each kind of query is asked at.
AT = {"epsilon": "delta", "delta": "epsilon", "beta": "alpha"}


def answers(obj, value):
    """The bracketed answers for `value` ("epsilon", "delta" or "beta") in
    obj["queries"], in order, each flattened to {AT[value]: x, "lower", "upper"}
    (the shape the tests compare against)."""
    at = AT[value]
    out = []
    for q in obj.get("queries", []):
        if isinstance(q.get(value), dict) and at in q:
            flat = dict(q[value])
            flat[at] = q[at]
            out.append(flat)
    return out


def answer(obj, value):
    """The only (or first) answer for `value`."""
    a = answers(obj, value)
    return a[0] if a else None

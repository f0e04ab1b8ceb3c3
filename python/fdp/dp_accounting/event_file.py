"""Events as JSON documents: the format of ``fdp compose --events FILE``.

A document is ``{"neighbouring_relation": R, "event": EVENT}``, an event being
an object whose ``"type"`` is the class name and whose other keys are the
class's fields (docs/cli.md, "Event files"). Writing a pipeline's events to a
file lets the command-line tool (or a reviewer) recompute the accountant's
numbers; reading one back gives the same events::

    doc = to_document(event, NeighboringRelation.REPLACE_ONE)
    write_event_file("run.json", event, NeighboringRelation.REPLACE_ONE)
    event, relation = read_event_file("run.json")   # equal to what was written

The accountant itself translates events through the same document (one
translation, in the C++ library, for the CLI and for Python).
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
from typing import Any, Dict, Tuple

import numpy as np

from . import dp_event as ev
from .privacy_accountant import NeighboringRelation

_CLASSES = {c.__name__: c for c in vars(ev).values()
            if isinstance(c, type) and issubclass(c, ev.DpEvent) and c is not ev.DpEvent}


def _value(x: Any, where: str) -> Any:
    """A field's JSON value; ValueError naming the field for what JSON cannot
    carry or no event field holds (NaN, infinities, booleans, strings)."""
    if isinstance(x, ev.DpEvent):
        return _event(x, where)
    if isinstance(x, (list, tuple)):
        return [_value(v, f"{where}[{i}]") for i, v in enumerate(x)]
    if x is None:
        return None
    # (NumPy scalars too: a count computed with NumPy is an np.int64)
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise ValueError(f"{where} = {x!r} must be a real number")
    if isinstance(x, numbers.Integral):
        return int(x)
    if not math.isfinite(x):
        raise ValueError(f"{where} = {x!r} must be finite")
    return float(x)


def _event(e: ev.DpEvent, where: str) -> Dict[str, Any]:
    if not isinstance(e, ev.DpEvent):
        raise TypeError(f"{where} must be a DpEvent, not {type(e).__name__}")
    # (an (inf, delta) guarantee is no guarantee: JSON has no infinity)
    if isinstance(e, ev.EpsilonDeltaDpEvent) and e.epsilon == math.inf:
        return {"type": "NonPrivateDpEvent"}
    out: Dict[str, Any] = {"type": type(e).__name__}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if v is not None:
            out[f.name] = _value(v, f"{type(e).__name__}.{f.name}")
    return out


def to_document(event: ev.DpEvent,
                neighboring_relation: NeighboringRelation =
                NeighboringRelation.ADD_OR_REMOVE_ONE) -> Dict[str, Any]:
    """The event file's document (a dict ready for ``json.dump``)."""
    if not isinstance(neighboring_relation, NeighboringRelation):
        raise TypeError("neighboring_relation must be a NeighboringRelation")
    return {"neighbouring_relation": neighboring_relation.name, "event": _event(event, "event")}


def _from(d: Any, path: str) -> ev.DpEvent:
    if not isinstance(d, dict) or not isinstance(d.get("type"), str):
        raise ValueError(f"{path} must be an object with a string 'type'")
    cls = _CLASSES.get(d["type"])
    if cls is None:
        raise ValueError(f"{path}: unknown event type {d['type']!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    extra = set(d) - names - {"type"}
    if extra:
        raise ValueError(f"{path}: {cls.__name__} has no field(s) {sorted(extra)}")
    kwargs = {}
    for k, v in d.items():
        if k == "event":
            v = _from(v, f"{path}.event")
        elif k == "events":
            if not isinstance(v, list):
                raise ValueError(f"{path}.events must be an array")
            v = [_from(x, f"{path}.events[{i}]") for i, x in enumerate(v)]
        if k != "type":
            kwargs[k] = v
    try:
        return cls(**kwargs)
    except TypeError as err:
        raise ValueError(f"{path}: {err}") from None


def from_document(doc: Dict[str, Any]) -> Tuple[ev.DpEvent, NeighboringRelation]:
    """(event, relation) of a document; a bare event means ADD_OR_REMOVE_ONE.
    ValueError naming the path for what is not an event document."""
    if isinstance(doc, dict) and "event" in doc and "type" not in doc:
        name = doc.get("neighbouring_relation", "ADD_OR_REMOVE_ONE")
        if name not in NeighboringRelation.__members__:
            raise ValueError(f"neighbouring_relation = {name!r} must be one of "
                             f"{', '.join(NeighboringRelation.__members__)}")
        return _from(doc["event"], "event"), NeighboringRelation[name]
    return _from(doc, "$"), NeighboringRelation.ADD_OR_REMOVE_ONE


def dumps(event: ev.DpEvent,
          neighboring_relation: NeighboringRelation =
          NeighboringRelation.ADD_OR_REMOVE_ONE) -> str:
    """The document as JSON text (floats written so that they read back exactly)."""
    return json.dumps(to_document(event, neighboring_relation), allow_nan=False)


def write_event_file(path: str, event: ev.DpEvent,
                     neighboring_relation: NeighboringRelation =
                     NeighboringRelation.ADD_OR_REMOVE_ONE) -> None:
    """Writes the document to ``path`` (for ``fdp compose --events path``)."""
    text = json.dumps(to_document(event, neighboring_relation), indent=1, allow_nan=False)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")


def read_event_file(path: str) -> Tuple[ev.DpEvent, NeighboringRelation]:
    """(event, relation) from an event file."""
    with open(path, encoding="utf-8") as f:
        try:
            doc = json.load(f)
        except json.JSONDecodeError as err:
            raise ValueError(f"event file {path!r}: not JSON ({err})") from None
    return from_document(doc)

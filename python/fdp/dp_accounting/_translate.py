"""DpEvent -> fdp spec terms, under a neighbouring relation.

There is one translation of events into specs, in the C++ library
(fdp/ops/events.hpp), which ``fdp compose --events`` uses too: an event goes
there as its event-file document (event_file.py), so the accountant and the
command line account for a document identically. What fdp cannot account for
soundly raises UnsupportedEventError, a bad field ValueError, each naming the
event's path.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Dict

import numpy as np

from .. import _fdp
from . import dp_event as ev
from .event_file import dumps
from .privacy_accountant import NeighboringRelation as Rel, UnsupportedEventError

MAX_TIMES = 10**12  # the spec grammar's limit on times=N


@dataclass
class Terms:
    """Spec (without times) -> repetitions."""

    times: Dict[str, int] = field(default_factory=dict)

    def add(self, spec: str, count: int) -> None:
        if count <= 0:
            return
        n = self.times.get(spec, 0) + count
        if n > MAX_TIMES:
            raise UnsupportedEventError(f"{spec} composed {n} times: at most {MAX_TIMES}")
        self.times[spec] = n

    def merge(self, other: "Terms") -> None:
        for s, n in other.times.items():
            self.add(s, n)

    def specs(self) -> list:
        """The specs with their times, sorted as the CLI's event files list them
        (so that both compose the same terms in the same order, to the digit)."""
        out = []
        for s, n in sorted(self.times.items()):
            out.append(s if n == 1 else f"{s},times={n}" if ":" in s else f"{s}:times={n}")
        return out


def _count(c: object, name: str = "count") -> int:
    """c as an int (NumPy integers too); ValueError unless an integer >= 0."""
    if isinstance(c, (bool, np.bool_)) or not isinstance(c, numbers.Integral) or c < 0:
        raise ValueError(f"{name} = {c!r} must be an integer >= 0")
    return int(c)


def translate(event: object, count: int, rel: Rel) -> Terms:
    """The terms of ``event`` repeated ``count`` times; UnsupportedEventError if fdp
    cannot account for it, ValueError for a bad field, TypeError for a non-event."""
    if not isinstance(event, ev.DpEvent):
        raise TypeError(f"event must be a DpEvent, not {type(event).__name__}")
    t = Terms()
    count = _count(count)
    if count == 0:
        return t
    for spec, n in _fdp.event_terms(dumps(ev.SelfComposedDpEvent(event, count), rel)):
        t.add(spec, n)
    return t

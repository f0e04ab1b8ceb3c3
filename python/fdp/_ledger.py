"""fdp.Ledger: a privacy ledger file shared with ``fdp ledger`` (same format,
lock and rules; see fdp/budget/ledger.hpp and docs/cli.md)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, List, Optional, Union

from . import _fdp
from ._composition import spec_text
from ._interval import Interval

BudgetExceeded = _fdp.BudgetExceeded

_KEY_MIN, _KEY_MAX = 16, 4096


def _read_key(key_file: Optional[Union[str, os.PathLike]]) -> bytes:
    """The key file's bytes, as ``--key FILE`` reads them (16 to 4096 bytes)."""
    if key_file is None:
        return b""
    with open(key_file, "rb") as f:
        key = f.read(_KEY_MAX + 1)
    if not _KEY_MIN <= len(key) <= _KEY_MAX:
        raise ValueError(f"key_file '{os.fspath(key_file)}' holds {len(key)} bytes; a key needs "
                         f"{_KEY_MIN} to {_KEY_MAX} (e.g. head -c 32 /dev/urandom > KEY)")
    return key


@dataclass(frozen=True)
class LedgerStatus:
    """A ledger's state (as ``fdp ledger status --json``).

    ``spent``: the certified epsilon bracket at ``delta`` by the mode's rule
    (plan: the composition; adaptive: the privacy filter); ``remaining`` =
    budget - spent.upper (>= 0); ``plan``: the plan composition's bracket,
    shown in both modes; ``filter_epsilon``: the adaptive filter's epsilon."""

    mode: str
    integrity: str
    budget_epsilon: float
    delta: float
    spent: Interval
    remaining: float
    plan: Interval
    filter_epsilon: float
    filter_kind: str
    entries: int
    applications: int
    exact: bool


@dataclass(frozen=True)
class LedgerCheck:
    """``Ledger.check``: would the specs fit? ``after`` is the rule's bracket with them."""

    affordable: bool
    after: Interval
    status: LedgerStatus


@dataclass(frozen=True)
class LedgerEntry:
    spec: str
    label: str
    time: str  # UTC, "YYYY-MM-DDTHH:MM:SSZ" (empty in version-1 files)


def _status(d: dict) -> LedgerStatus:
    return LedgerStatus(mode=d["mode"], integrity=d["integrity"],
                        budget_epsilon=d["budget_epsilon"], delta=d["delta"],
                        spent=Interval(*d["spent"]), remaining=d["remaining"],
                        plan=Interval(*d["plan"]), filter_epsilon=d["filter_epsilon"],
                        filter_kind=d["filter_kind"], entries=d["entries"],
                        applications=d["applications"], exact=d["exact"])


def _specs(spec: Union[str, object, Iterable[object]]) -> List[str]:
    if isinstance(spec, str) or hasattr(spec, "spec"):
        return [spec_text(spec)]
    return [spec_text(s) for s in spec]


class Ledger:
    """A ledger file. Each method reads the file afresh (the CLI may have
    changed it); ``add`` holds the file's lock from the read to the write."""

    def __init__(self, path: Union[str, os.PathLike], key: bytes) -> None:
        self.path = os.fspath(path)
        self._key = key

    @classmethod
    def create(cls, path: Union[str, os.PathLike], *, budget_eps: float, delta: float,
               mode: str = "adaptive", key_file: Optional[Union[str, os.PathLike]] = None,
               force: bool = False) -> "Ledger":
        """A new ledger file (as ``fdp ledger init``); ValueError if it exists (unless force)."""
        key = _read_key(key_file)
        _fdp.ledger_create(os.fspath(path), float(budget_eps), float(delta), mode, key,
                           bool(force))
        return cls(path, key)

    @classmethod
    def open(cls, path: Union[str, os.PathLike],
             key_file: Optional[Union[str, os.PathLike]] = None) -> "Ledger":
        """An existing ledger (verified now: ValueError if its tag does not match)."""
        led = cls(path, _read_key(key_file))
        led.status()
        return led

    def add(self, spec: Union[str, object, Iterable[object]], label: str = "") -> LedgerStatus:
        """Records the spec(s), all or nothing; raises :class:`BudgetExceeded`
        (nothing recorded) when the mode's rule refuses."""
        return _status(_fdp.ledger_add(self.path, _specs(spec), label, self._key))

    def check(self, spec: Union[str, object, Iterable[object]]) -> LedgerCheck:
        """Would the spec(s) fit? Nothing recorded (as ``fdp ledger check``)."""
        d = _fdp.ledger_check(self.path, _specs(spec), self._key)
        return LedgerCheck(affordable=d["affordable"], after=Interval(*d["after"]),
                           status=_status(d))

    def status(self) -> LedgerStatus:
        return _status(_fdp.ledger_status(self.path, self._key))

    def entries(self) -> List[LedgerEntry]:
        return [LedgerEntry(*e) for e in _fdp.ledger_entries(self.path, self._key)]

    def __repr__(self) -> str:
        return f"Ledger({self.path!r})"

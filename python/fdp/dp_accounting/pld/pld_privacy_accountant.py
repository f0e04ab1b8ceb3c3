"""PLDAccountant with dp_accounting's interface over fdp's certified engine."""

from __future__ import annotations

import threading
from typing import List, Optional

from ..._composition import Composition
from ..._interval import Interval
from .. import dp_event as ev
from .._translate import Terms, _count, translate
from ..event_file import to_document
from ..privacy_accountant import NeighboringRelation, UnsupportedEventError


class PLDAccountant:
    """A privacy accountant shaped like ``dp_accounting.pld.PLDAccountant``.

    ``get_epsilon`` / ``get_delta`` return the certified UPPER end of fdp's
    bracket (a valid guarantee); ``epsilon_interval`` / ``delta_interval``
    return the whole :class:`fdp.Interval`. Example::

        acc = PLDAccountant()
        event = PoissonSampledDpEvent(0.01, GaussianDpEvent(1.0))
        acc.compose(event, count=1000)
        acc.get_epsilon(1e-5)           # float: certified upper bound

    value_discretization_interval is accepted for compatibility and ignored:
    fdp refines its grid until the epsilon bracket is ``tolerance`` wide
    (relative).
    """

    def __init__(self, neighboring_relation: NeighboringRelation =
                 NeighboringRelation.ADD_OR_REMOVE_ONE,
                 value_discretization_interval: float = 1e-4, *,
                 tolerance: float = 3e-3) -> None:
        if not isinstance(neighboring_relation, NeighboringRelation):
            raise TypeError("neighboring_relation must be a NeighboringRelation")
        self._relation = neighboring_relation
        self._tolerance = tolerance
        self._terms = Terms()
        self._events: List[ev.DpEvent] = []
        self._composition: Optional[Composition] = None
        self._lock = threading.Lock()

    @property
    def neighboring_relation(self) -> NeighboringRelation:
        return self._relation

    @property
    def ledger(self) -> ev.ComposedDpEvent:
        """Everything composed so far, as one ComposedDpEvent."""
        return ev.ComposedDpEvent(list(self._events))

    def supports(self, event: ev.DpEvent) -> bool:
        """Whether compose(event) would succeed."""
        try:
            translate(event, 1, self._relation)
            return True
        except (UnsupportedEventError, ValueError):
            return False

    def compose(self, event: ev.DpEvent, count: int = 1) -> "PLDAccountant":
        """Adds ``event`` ``count`` times; returns self. UnsupportedEventError (nothing
        added) if fdp cannot account for the event soundly."""
        count = _count(count)
        terms = translate(event, count, self._relation)
        with self._lock:
            merged = Terms()
            merged.merge(self._terms)
            merged.merge(terms)  # may raise (too many repetitions): nothing changes then
            self._terms = merged
            self._events.append(event if count == 1 else ev.SelfComposedDpEvent(event, count))
            self._composition = None
        return self

    def _composed(self) -> Composition:
        with self._lock:
            if self._composition is None:
                specs = self._terms.specs() or ["id"]
                self._composition = Composition(specs, tolerance=self._tolerance)
            return self._composition

    def epsilon_interval(self, target_delta: float) -> Interval:
        """The certified bracket of the smallest epsilon at target_delta
        ([inf, inf] after a non-private event)."""
        return self._composed().epsilon(target_delta)

    def delta_interval(self, target_epsilon: float) -> Interval:
        """The certified bracket of delta at target_epsilon ([1, 1] after a
        non-private event)."""
        return self._composed().delta(target_epsilon)

    def get_epsilon(self, target_delta: float) -> float:
        """The certified upper bound on epsilon at target_delta (inf if non-private)."""
        return self.epsilon_interval(target_delta).upper

    def get_delta(self, target_epsilon: float) -> float:
        """The certified upper bound on delta at target_epsilon (1 if non-private)."""
        return self.delta_interval(target_epsilon).upper

    def specs(self) -> List[str]:
        """The fdp specs the composed events became (for ``fdp compose``)."""
        return self._terms.specs()

    def event_document(self) -> dict:
        """Everything composed so far as an event-file document (the ledger and
        this accountant's relation): ``fdp compose --events FILE`` on it gives
        this accountant's numbers. See :mod:`fdp.dp_accounting.event_file`."""
        return to_document(self.ledger, self._relation)

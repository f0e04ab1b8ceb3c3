"""DpEvent -> fdp spec terms, under a neighbouring relation.

The support mirrors what dp_accounting's PLD accountant accepts for these
events (its pld_privacy_accountant module), narrowed to what fdp certifies:
Poisson-sampled Gaussians under every relation (subsampled-gaussian's
neighbours key), Poisson-sampled Laplace under ADD_OR_REMOVE_ONE and
REPLACE_SPECIAL; anything else is refused rather than accounted for with an
analysis that does not hold. As in dp_accounting, a GaussianDpEvent's
sensitivity is one record's bound: under REPLACE_ONE the sum moves by twice it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict

from .. import _fdp
from . import dp_event as ev
from .privacy_accountant import NeighboringRelation as Rel, UnsupportedEventError

MAX_TIMES = 10**12  # the spec grammar's limit on times=N


@dataclass
class Terms:
    """Spec (without times) -> repetitions, and whether a non-private event occurred."""

    times: Dict[str, int] = field(default_factory=dict)
    non_private: bool = False

    def add(self, spec: str, count: int) -> None:
        """Adds spec x count; a bad parameter raises ValueError here, at compose
        time, so that nothing invalid ever enters an accountant."""
        if count <= 0:
            return
        _fdp.parse_spec(spec)
        n = self.times.get(spec, 0) + count
        if n > MAX_TIMES:
            raise UnsupportedEventError(f"{spec} composed {n} times: at most {MAX_TIMES}")
        self.times[spec] = n

    def merge(self, other: "Terms") -> None:
        for s, n in other.times.items():
            self.add(s, n)
        self.non_private |= other.non_private

    def specs(self) -> list:
        out = []
        for s, n in self.times.items():
            out.append(s if n == 1 else f"{s},times={n}" if ":" in s else f"{s}:times={n}")
        return out


def _num(x: object, name: str) -> str:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or math.isnan(x):
        raise ValueError(f"{name} = {x!r} must be a real number")
    return repr(float(x))


def _count(c: object, name: str = "count") -> int:
    if isinstance(c, bool) or not isinstance(c, int) or c < 0:
        raise ValueError(f"{name} = {c!r} must be an integer >= 0")
    return c


def _refuse(event: ev.DpEvent, why: str):
    raise UnsupportedEventError(f"{type(event).__name__}: {why}")


def _rr_eps(p: float, k: int) -> float:
    """The epsilon of randomized response with noise_parameter p over k buckets:
    e^eps = (1 - p + p/k) / (p/k) = 1 + k (1 - p) / p, rounded up (a slightly
    larger eps is a weaker, still valid guarantee)."""
    return math.log1p(k * (1.0 - p) / p) * (1.0 + 1e-14) + 1e-300


def _gaussian(e: ev.GaussianDpEvent, count: int, rel: Rel, t: Terms) -> None:
    if e.noise_multiplier == 0:
        t.non_private = True
    else:
        twice = ",sensitivity=2" if rel == Rel.REPLACE_ONE else ""
        t.add(f"gaussian:sigma={_num(e.noise_multiplier, 'noise_multiplier')}{twice}", count)


def _laplace(e: ev.LaplaceDpEvent, count: int, rel: Rel, t: Terms) -> None:
    if rel not in (Rel.ADD_OR_REMOVE_ONE, Rel.REPLACE_SPECIAL):
        _refuse(e, f"needs ADD_OR_REMOVE_ONE or REPLACE_SPECIAL neighbours, not {rel.name}")
    if e.noise_multiplier == 0:
        t.non_private = True
    else:
        t.add(f"laplace:b={_num(e.noise_multiplier, 'noise_multiplier')}", count)


def _epsdelta(e: ev.EpsilonDeltaDpEvent, count: int, rel: Rel, t: Terms) -> None:
    if e.epsilon == math.inf:
        t.non_private = True
    else:
        t.add(f"epsdelta:eps={_num(e.epsilon, 'epsilon')},delta={_num(e.delta, 'delta')}", count)


def _rr(e: ev.RandomizedResponseDpEvent, count: int, rel: Rel, t: Terms) -> None:
    if rel not in (Rel.REPLACE_ONE, Rel.REPLACE_SPECIAL):
        _refuse(e, f"needs REPLACE_ONE or REPLACE_SPECIAL neighbours, not {rel.name}")
    k = _count(e.num_buckets, "num_buckets")
    p = float(_num(e.noise_parameter, "noise_parameter"))
    if not 0 <= p <= 1:
        raise ValueError(f"noise_parameter = {p!r} must be in [0, 1]")
    if k < 1:
        raise ValueError(f"num_buckets = {k!r} must be >= 1")
    if k == 1:
        return  # one bucket reveals nothing, whatever p
    if p == 0:
        t.non_private = True
        return
    t.add(f"randomized-response:eps={_rr_eps(p, k)!r},k={k}", count)


def _poisson(e: ev.PoissonSampledDpEvent, count: int, rel: Rel, t: Terms) -> None:
    inner = e.event
    if not isinstance(inner, (ev.GaussianDpEvent, ev.LaplaceDpEvent)):
        _refuse(e, f"the sampled event must be a GaussianDpEvent or LaplaceDpEvent, not "
                   f"{type(inner).__name__}")
    if isinstance(inner, ev.LaplaceDpEvent) and rel == Rel.REPLACE_ONE:
        _refuse(e, "a Poisson-sampled Laplace needs ADD_OR_REMOVE_ONE or REPLACE_SPECIAL "
                   "neighbours, not REPLACE_ONE")
    q = float(_num(e.sampling_probability, "sampling_probability"))
    if not 0 <= q <= 1:
        raise ValueError(f"sampling_probability = {q!r} must be in [0, 1]")
    if q == 0:
        return
    if inner.noise_multiplier == 0:
        t.non_private = True
        return
    kind, key = ("subsampled-gaussian", "sigma") if isinstance(inner, ev.GaussianDpEvent) \
        else ("subsampled-laplace", "b")
    words = {Rel.REPLACE_ONE: ",neighbours=replace-one", Rel.REPLACE_SPECIAL: ",neighbours=zero-out"}
    t.add(f"{kind}:{key}={_num(inner.noise_multiplier, 'noise_multiplier')},q={q!r}"
          f"{words.get(rel, '')}", count)


_LEAVES = {
    ev.GaussianDpEvent: _gaussian,
    ev.LaplaceDpEvent: _laplace,
    ev.EpsilonDeltaDpEvent: _epsdelta,
    ev.RandomizedResponseDpEvent: _rr,
    ev.PoissonSampledDpEvent: _poisson,
}


def translate(event: object, count: int, rel: Rel) -> Terms:
    """The terms of ``event`` repeated ``count`` times; UnsupportedEventError if fdp
    cannot account for it, ValueError for a bad field."""
    t = Terms()
    if isinstance(event, ev.NoOpDpEvent):
        return t
    if isinstance(event, ev.NonPrivateDpEvent):
        t.non_private = count > 0
        return t
    if isinstance(event, ev.SelfComposedDpEvent):
        return translate(event.event, count * _count(event.count), rel)
    if isinstance(event, ev.ComposedDpEvent):
        for e in event.events:
            t.merge(translate(e, count, rel))
        return t
    leaf = _LEAVES.get(type(event))
    if leaf is None:
        if not isinstance(event, ev.DpEvent):
            raise TypeError(f"event must be a DpEvent, not {type(event).__name__}")
        _refuse(event, "fdp has no sound accounting for this event")
    if count > 0:
        leaf(event, count, rel, t)
    return t

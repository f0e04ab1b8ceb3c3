"""Group privacy: the guarantee of specs for groups of k records (fdp/ops/group.hpp)."""

from __future__ import annotations

import math
import threading
from typing import Iterable

from . import _fdp
from ._composition import DEFAULT_DELTA_HINT, spec_text
from ._interval import Interval


class Group:
    """The k-fold group guarantee of a composition; answers are Intervals.

    As ``fdp group``: epsilon(delta) is answered on a guarantee tuned for
    min(delta, 1e-5), everything else on one tuned for 1e-5 (cached).
    """

    def __init__(self, specs: Iterable[object], k: int, *, tolerance: float = 3e-3) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k = {k!r} must be an integer >= 1")
        self.specs = tuple(spec_text(s) for s in specs)
        if not self.specs:
            raise ValueError("specs: at least one spec is required")
        self.k, self.tolerance = k, float(tolerance)
        self._cache: dict = {}
        self._lock = threading.Lock()
        self._at(DEFAULT_DELTA_HINT)

    def _at(self, hint: float):
        with self._lock:
            g = self._cache.get(hint)
            if g is None:
                g = self._cache[hint] = _fdp.group(list(self.specs), self.k, self.tolerance, hint)
            return g

    @property
    def method(self) -> str:
        return self._at(DEFAULT_DELTA_HINT).method

    def epsilon(self, delta: float) -> Interval:
        d = _real(delta, "delta", 0.0, 1.0)
        hint = min(DEFAULT_DELTA_HINT, max(1e-300, d)) if d > 0 else DEFAULT_DELTA_HINT
        return Interval(*self._at(hint).epsilon(d))

    def delta(self, eps: float) -> Interval:
        return Interval(*self._at(DEFAULT_DELTA_HINT).delta(_real(eps, "eps", -math.inf,
                                                                  math.inf)))

    def beta(self, alpha: float) -> Interval:
        return Interval(*self._at(DEFAULT_DELTA_HINT).beta(_real(alpha, "alpha", 0.0, 1.0)))

    def mu(self) -> Interval:
        return Interval(*self._at(DEFAULT_DELTA_HINT).mu())


def _real(x: object, name: str, lo: float, hi: float) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or math.isnan(x) \
            or not lo <= x <= hi:
        raise ValueError(f"{name} = {x!r} must be a number in [{lo!r}, {hi!r}]")
    return float(x)


def group(specs: Iterable[object], k: int, *, tolerance: float = 3e-3) -> Group:
    """Group privacy: the guarantee of ``specs`` between datasets differing in k records.

        >>> fdp.group(["laplace:b=10,times=10"], 3).epsilon(1e-5)
        Interval(lower=2.98620..., upper=2.98997...)
    """
    return Group(specs, k, tolerance=tolerance)

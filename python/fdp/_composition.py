"""Composition: the composed guarantee of several specs, queried with brackets.

The grid the engine composes on is tuned for one delta (its "hint"); like
``fdp compose`` (tools/fdp/cmd_compose.cpp, whose tuning this follows so that
the two give the same digits), a query is answered by a composition tuned for
the smallest delta asked about, and a delta answered at an epsilon that comes
out far below the hint is recomputed on a grid tuned for it. The C++
compositions are cached per hint; the object is safe to share between threads.
"""

from __future__ import annotations

import math
import threading
from typing import Iterable, NamedTuple, Union

import numpy as np

from . import _fdp
from ._arrays import is_scalar, real_array
from ._interval import Interval

DEFAULT_DELTA_HINT = 1e-5


class Band(NamedTuple):
    """Element-wise brackets: arrays ``lower <= truth <= upper``."""

    lower: np.ndarray
    upper: np.ndarray

    @property
    def width(self) -> np.ndarray:
        return self.upper - self.lower


def spec_text(item: object) -> str:
    """A spec string, or the ``spec`` of a mechanism object (fdp.mechanisms)."""
    if isinstance(item, str):
        return item
    text = getattr(item, "spec", None)
    if isinstance(text, str):
        return text
    raise TypeError(f"a spec must be a string like 'gaussian:sigma=1' or a mechanism "
                    f"object with a .spec string, not {type(item).__name__}")


class Composition:
    """The composition (tensor product) of specs; see :func:`fdp.compose`."""

    def __init__(self, specs: Iterable[object], *, tolerance: float = 3e-3,
                 method: str = "auto", max_memory: int = 2 << 30) -> None:
        self.specs = tuple(spec_text(s) for s in specs)
        if not self.specs:
            raise ValueError("specs: at least one spec is required")
        if not (isinstance(tolerance, (int, float)) and 0 < tolerance < 1):
            raise ValueError(f"tolerance = {tolerance!r} must be in (0, 1)")
        self.tolerance = float(tolerance)
        self._method = method
        self._max_memory = int(max_memory)
        if method not in ("auto", "exact", "pld"):
            raise ValueError(f"method = {method!r} must be one of auto, exact, pld")
        for s in self.specs:
            _fdp.parse_spec(s)  # a bad spec raises here; the grids are composed at the first query
        self._cache: dict = {}
        self._lock = threading.Lock()

    def _at(self, hint: float):
        with self._lock:
            c = self._cache.get(hint)
            if c is None:
                c = _fdp.compose(list(self.specs), self.tolerance, hint, self._method,
                                 self._max_memory)
                self._cache[hint] = c
            return c

    @property
    def method(self) -> str:
        """"exact" (a closed form, rounded outward) or "pld" (the numeric engine)."""
        return self._at(DEFAULT_DELTA_HINT).method

    @property
    def is_exact(self) -> bool:
        return self._at(DEFAULT_DELTA_HINT).is_exact

    def _tuned(self, deltas, epsilons):
        # As fdp compose: the library's compose_for_queries (epsilons tuned
        # for the smallest asked delta with a finite one; deltas on a
        # composition of their own when the default one leaves them wide).
        key = (tuple(np.unique(deltas).tolist()), tuple(np.unique(epsilons).tolist()))
        with self._lock:
            pair = self._cache.get(key)
            if pair is None:
                pair = _fdp.compose_queries(list(self.specs), self.tolerance, self._method,
                                            self._max_memory, list(key[0]), list(key[1]))
                self._cache[key] = pair
            return pair

    def _for_deltas(self, deltas: np.ndarray):
        return self._tuned(deltas, np.empty(0))[0]

    def _for_epsilons(self, eps: np.ndarray):
        return self._tuned(np.empty(0), eps)[1]

    def epsilon(self, delta: Union[float, np.ndarray]):
        """The smallest eps >= 0 with delta(eps) <= delta: an Interval (a Band for arrays).

        delta in [0, 1]. The upper end is the certified guarantee.
        """
        d = _checked(delta, "delta", 0.0, 1.0)
        c = self._for_deltas(np.atleast_1d(d))
        return _answer(c.epsilon, c.epsilon_array, delta, d)

    def delta(self, eps: Union[float, np.ndarray]):
        """delta(eps), the privacy profile at eps (any real, not NaN): Interval or Band."""
        e = _checked(eps, "eps", -math.inf, math.inf)
        c = self._for_epsilons(np.atleast_1d(e))
        return _answer(c.delta, c.delta_array, eps, e)

    def beta(self, alpha: Union[float, np.ndarray]):
        """The trade-off function f(alpha), alpha in [0, 1]: Interval or Band."""
        a = _checked(alpha, "alpha", 0.0, 1.0)
        c = self._at(DEFAULT_DELTA_HINT)
        return _answer(c.beta, c.beta_array, alpha, a)

    def curve(self, alphas) -> Band:
        """beta at every alpha of an array, vectorized in C++: a Band."""
        a = _checked(alphas, "alphas", 0.0, 1.0)
        lo, hi = self._at(DEFAULT_DELTA_HINT).beta_array(np.atleast_1d(a))
        return Band(lo, hi)

    def mu(self) -> Interval:
        """The GDP summary: the smallest mu with f >= G_mu (upper may be +inf)."""
        return Interval(*self._at(DEFAULT_DELTA_HINT).mu())

    def __repr__(self) -> str:
        return f"fdp.Composition({list(self.specs)!r}, method={self.method!r})"


def _checked(x, name: str, lo: float, hi: float) -> np.ndarray:
    """x as a float64 array, every element in [lo, hi] and not NaN (ValueError)."""
    a = real_array(x, name)
    bad = np.isnan(a) | (a < lo) | (a > hi)
    if bad.any():
        v = a[bad].flat[0]
        raise ValueError(f"{name} = {v!r} must be in [{lo!r}, {hi!r}]" if math.isfinite(lo)
                         else f"{name} = {v!r} must not be NaN")
    return a


def _answer(scalar_fn, array_fn, original, arr: np.ndarray):
    if is_scalar(original):
        return Interval(*scalar_fn(float(arr)))
    return Band(*array_fn(arr))


def compose(specs: Iterable[object], *, tolerance: float = 3e-3, method: str = "auto",
            max_memory: int = 2 << 30) -> Composition:
    """Composes guarantees given as spec strings or mechanism objects.

    Every answer is a certified bracket (:class:`fdp.Interval`)::

        >>> c = fdp.compose(["subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062"])
        >>> c.epsilon(1e-5)
        Interval(lower=2.38029..., upper=2.38368...)
        >>> c.curve(np.linspace(0, 1, 5)).upper  # vectorized beta

    tolerance: target relative width of the epsilon bracket (as
    ``fdp compose --tolerance``); method: "auto", "exact" or "pld".
    ``fdp specs`` (or docs/cli.md) lists the spec kinds.
    """
    return Composition(specs, tolerance=tolerance, method=method, max_memory=max_memory)

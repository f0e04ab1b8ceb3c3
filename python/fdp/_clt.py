"""fdp.clt and fdp.edgeworth: approximations of a composition, labelled as
such (``is_bound = False``); use :func:`fdp.compose` for certified numbers."""

from __future__ import annotations

from typing import Iterable, Optional, Union

import numpy as np

from . import _fdp
from ._arrays import is_scalar, real_array
from ._composition import spec_text
from ._interval import Interval


def _texts(specs: Union[str, object, Iterable[object]]) -> list:
    if isinstance(specs, str) or hasattr(specs, "spec"):
        return [spec_text(specs)]
    return [spec_text(s) for s in specs]


class CltApproximation:
    """The CLT approximation G_mu of a composition (Dong, Roth & Su, Thm 3.5),
    as ``fdp clt``: ``mu`` is an APPROXIMATION, NOT A BOUND (it may over- or
    under-state the privacy loss); ``band(alpha)`` is the Berry-Esseen band,
    a two-sided bound on the true curve where it holds (gamma < 1/2 and alpha
    in [gamma, 1 - gamma]), else None. A Poisson-subsampled Gaussian
    (asymmetric) has no band, but ``mu`` is still given by the terms'
    central limits (Bu, Dong, Long & Su 2020), as ``fdp clt`` and ``fdp
    dpsgd`` give it; then ``gamma`` is None and ``reason`` says why there is
    no band. ``mu`` is None only when no CLT applies (infinite functionals)."""

    is_bound = False

    def __init__(self, specs: Union[str, object, Iterable[object]]) -> None:
        self.specs = tuple(_texts(specs))
        self._c = _fdp.clt(list(self.specs))
        self._limits = None if self._c.applicable else _fdp.clt_limits(list(self.specs))

    @property
    def applicable(self) -> bool:
        return self._c.applicable or bool(self._limits and self._limits["applicable"])

    @property
    def reason(self) -> str:
        return self._c.reason

    @property
    def mu(self) -> Optional[float]:
        if self._c.applicable:
            return self._c.mu
        return self._limits["mu"] if self._limits["applicable"] else None

    @property
    def gamma(self) -> Optional[float]:
        return self._c.gamma if self._c.applicable else None

    @property
    def band_valid(self) -> bool:
        return self._c.band_valid

    def band(self, alpha: float) -> Optional[Interval]:
        """The Berry-Esseen band on beta at alpha (a theorem), or None where none holds."""
        if not is_scalar(alpha):
            raise ValueError("alpha must be a real number in [0, 1]")
        b = self._c.band(float(alpha))
        return None if b is None else Interval(*b)

    def beta(self, alpha: float) -> float:
        """G_mu(alpha): the approximation itself (not a bound)."""
        if not is_scalar(alpha):
            raise ValueError("alpha must be a real number in [0, 1]")
        if self._c.applicable:
            return self._c.beta(float(alpha))
        if self.mu is None:
            raise ValueError(f"clt: not applicable ({self._c.reason})")
        return _fdp.gdp_beta(self.mu, float(alpha))

    def __repr__(self) -> str:
        return f"CltApproximation(mu={self.mu!r}, gamma={self.gamma!r}, is_bound=False)"


def clt(specs: Union[str, object, Iterable[object]]) -> CltApproximation:
    """The CLT approximation of the composition of ``specs`` (``fdp clt``)."""
    return CltApproximation(specs)


def edgeworth(specs: Union[str, object, Iterable[object]], alphas: object) -> np.ndarray:
    """First-order Edgeworth approximation of the composed beta at each alpha
    (Zheng, Dong, Long & Su 2020; ``fdp clt --edgeworth``): an APPROXIMATION,
    NOT A BOUND. alphas in (0, 1) (ValueError otherwise); NaN where the
    expansion does not reach alpha (the CLI's null)."""
    try:
        a = real_array(alphas, "alphas")
    except TypeError as e:
        raise ValueError(str(e)) from None
    return _fdp.edgeworth(_texts(specs), a)

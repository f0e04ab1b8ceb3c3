"""Gaussian differential privacy in closed form (Dong, Roth & Su 2022).

Every function takes floats (returns a float) or arrays (returns a float64
array, computed element-wise in C++ with the GIL released; the arguments are
broadcast together). The accuracy is the C++ library's (docs/numerics.md:
relative error below 1e-12 for delta >= 1e-300, 1e-11 for eps and mu).

    >>> fdp.gdp.eps(1.0, 1e-5)
    4.377178...
    >>> fdp.gdp.delta(1.0, [0.0, 1.0, 2.0])
    array([0.38292492, 0.12693674, 0.01720253])
    >>> fdp.gdp.G(1.0)(0.05)
    0.7404889...
"""

from __future__ import annotations

from typing import Callable, Union

import numpy as np

from . import _fdp
from ._arrays import is_scalar, real_array, real_arrays

ArrayLike = Union[float, np.ndarray, list]


def _pair(scalar_fn, array_fn, names):
    def call(x, y):
        if is_scalar(x) and is_scalar(y):
            return scalar_fn(float(x), float(y))
        a, b = real_arrays(x, y, names)
        return array_fn(a, b)

    return call


_eps = _pair(_fdp.gdp_eps, _fdp.gdp_eps_array, ("mu", "delta"))
_delta = _pair(_fdp.gdp_delta, _fdp.gdp_delta_array, ("mu", "eps"))
_mu = _pair(_fdp.gdp_mu, _fdp.gdp_mu_array, ("eps", "delta"))
_beta = _pair(_fdp.gdp_beta, _fdp.gdp_beta_array, ("mu", "alpha"))


def eps(mu: ArrayLike, delta: ArrayLike):
    """The smallest eps >= 0 with delta_mu(eps) <= delta (+inf for delta = 0).

    mu >= 0, delta in [0, 1]; ValueError naming the parameter otherwise. The
    result is the root-bracket end that satisfies the target (a guarantee).
    """
    return _eps(mu, delta)


def delta(mu: ArrayLike, eps: ArrayLike):
    """delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (DRS Cor. 2.13)."""
    return _delta(mu, eps)


def mu(eps: ArrayLike, delta: ArrayLike):
    """The largest mu whose GDP guarantee implies (eps, delta)-DP."""
    return _mu(eps, delta)


def G(mu: float) -> Callable[[ArrayLike], object]:
    """The trade-off function G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu).

        >>> fdp.gdp.G(1.0)([0.0, 0.05, 1.0])
        array([1.        , 0.74048898, 0.        ])
    """
    if not is_scalar(mu):
        raise TypeError(f"mu must be a real number, not {type(mu).__name__}")
    m = float(mu)
    _fdp.gdp_beta(m, 0.5)  # validates mu now (ValueError), not at the first call

    def g(alpha: ArrayLike):
        return _beta(m, alpha)

    g.__doc__ = f"G_{m!r}(alpha)"
    return g

"""Mechanisms as objects: each has a ``spec`` string that fdp.compose reads.

    >>> fdp.compose([fdp.mechanisms.SubsampledGaussian(sigma=1.1, q=0.01, times=1000)])

The parameters are checked by the C++ spec table when composed (ValueError
naming the key and its range); ``fdp specs`` documents the kinds.
"""

from __future__ import annotations

from dataclasses import dataclass


def _num(x: float) -> str:
    # repr is the shortest decimal that reads back as the same double, so
    # the spec carries exactly the caller's value.
    return repr(float(x))


def _spec(name: str, times: int, **params: float) -> str:
    if isinstance(times, bool) or not isinstance(times, int) or times < 1:
        raise ValueError(f"times = {times!r} must be an integer >= 1")
    keys = [f"{k}={v}" if isinstance(v, int) and not isinstance(v, bool) else f"{k}={_num(v)}"
            for k, v in params.items()]
    if times != 1:
        keys.append(f"times={times}")
    return name + (":" + ",".join(keys) if keys else "")


@dataclass(frozen=True)
class Gaussian:
    """The Gaussian mechanism: noise sigma on a query of l2 sensitivity (G_{sensitivity/sigma})."""

    sigma: float
    sensitivity: float = 1.0
    times: int = 1

    @property
    def spec(self) -> str:
        return _spec("gaussian", self.times, sigma=self.sigma, sensitivity=self.sensitivity)


@dataclass(frozen=True)
class Laplace:
    """The Laplace mechanism: scale b on a query of l1 sensitivity."""

    b: float
    sensitivity: float = 1.0
    times: int = 1

    @property
    def spec(self) -> str:
        return _spec("laplace", self.times, b=self.b, sensitivity=self.sensitivity)


@dataclass(frozen=True)
class SubsampledGaussian:
    """The Gaussian mechanism on a Poisson subsample with rate q (add/remove neighbours)."""

    sigma: float
    q: float
    sensitivity: float = 1.0
    times: int = 1

    @property
    def spec(self) -> str:
        return _spec("subsampled-gaussian", self.times, sigma=self.sigma, q=self.q,
                     sensitivity=self.sensitivity)


@dataclass(frozen=True)
class SubsampledLaplace:
    """The Laplace mechanism on a Poisson subsample with rate q (add/remove neighbours)."""

    b: float
    q: float
    sensitivity: float = 1.0
    times: int = 1

    @property
    def spec(self) -> str:
        return _spec("subsampled-laplace", self.times, b=self.b, q=self.q,
                     sensitivity=self.sensitivity)


@dataclass(frozen=True)
class EpsDelta:
    """An (eps, delta)-DP guarantee, f_{eps,delta}."""

    eps: float
    delta: float = 0.0
    times: int = 1

    @property
    def spec(self) -> str:
        return _spec("epsdelta", self.times, eps=self.eps, delta=self.delta)


@dataclass(frozen=True)
class GDP:
    """A mu-GDP guarantee, G_mu."""

    mu: float
    times: int = 1

    @property
    def spec(self) -> str:
        return _spec("gdp", self.times, mu=self.mu)


@dataclass(frozen=True)
class RandomizedResponse:
    """k-ary randomized response with parameter eps (true answer w.p. e^eps/(e^eps+k-1))."""

    eps: float
    k: int = 2
    times: int = 1

    @property
    def spec(self) -> str:
        if isinstance(self.k, bool) or not isinstance(self.k, int):
            raise ValueError(f"k = {self.k!r} must be an integer")
        return _spec("randomized-response", self.times, eps=self.eps, k=self.k)

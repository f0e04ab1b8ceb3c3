"""Calibration and DP-SGD accounting (fdp/budget/calibrate.hpp, dpsgd.hpp)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from . import _fdp
from ._composition import spec_text
from ._interval import Interval


@dataclass(frozen=True)
class CalibrationResult:
    """``value`` meets the target: its certified epsilon upper end is <= target_eps.

    ``certified_gap`` bounds how far value is from the best parameter that
    meets the target (relative; inf if unknown).
    """

    param: str
    value: float
    epsilon: Interval
    certified_gap: float
    certified_optimum_bound: float
    at_limit: bool
    evaluations: int


def calibrate(spec: object, param: str, target_eps: float, delta: float,
              others: Sequence[object] = ()) -> CalibrationResult:
    """The value of ``param`` (left out of ``spec``) that meets target_eps at delta.

    Never overshoots: the certified upper end of epsilon at the returned
    value is at most target_eps. Example (as ``fdp calibrate``)::

        >>> r = fdp.calibrate("subsampled-gaussian:q=0.0042666666666666667,times=14062",
        ...                   "sigma", target_eps=3.0, delta=1e-5)
        >>> r.value, r.epsilon.upper <= 3.0
    """
    r = _fdp.calibrate(spec_text(spec), param, float(target_eps), float(delta),
                       [spec_text(o) for o in others])
    return CalibrationResult(r["param"], r["value"], Interval(*r["epsilon"]),
                             r["certified_gap"], r["certified_optimum_bound"], r["at_limit"],
                             r["evaluations"])


@dataclass(frozen=True)
class DpsgdReport:
    """A DP-SGD budget: the certified epsilon bracket, the route, the CLT estimate (NOT a bound)."""

    epsilon: Interval
    mu: Optional[Interval]
    route: str
    sensitivity: float
    clt_epsilon: float
    clt_mu: float


def dpsgd(*, sigma: float, q: float, steps: int, delta: float = 1e-5,
          sampling: str = "poisson", neighbours: str = "add-remove",
          sensitivity: float = 0.0, gdp_summary: bool = True) -> DpsgdReport:
    """The certified budget of ``steps`` DP-SGD steps (as ``fdp dpsgd``).

    sampling: "poisson" or "without-replacement"; neighbours: "add-remove" or
    "replace-one" (sensitivity 0: the relation's default, 1 or 2). Combinations
    without a sound analysis (e.g. shuffling) raise ValueError with the reason.
    """
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise TypeError(f"steps must be an integer, not {type(steps).__name__}")
    r = _fdp.account_dpsgd(float(q), float(sigma), steps, float(delta), sampling, neighbours,
                           float(sensitivity), bool(gdp_summary))
    mu = Interval(*r["mu"]) if "mu" in r else None
    return DpsgdReport(Interval(*r["epsilon"]), mu, r["route"], r["sensitivity"],
                       r["clt_epsilon"], r["clt_mu"])



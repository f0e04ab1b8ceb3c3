"""Calibration and DP-SGD accounting (fdp/budget/calibrate.hpp, dpsgd.hpp)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

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
    """A DP-SGD budget: certified epsilon brackets, the route, the CLT estimate (NOT a bound).

    ``epsilon`` is at the first delta; ``epsilons`` pairs every delta asked
    with its bracket. ``mu`` is the whole-curve GDP summary (only with
    ``gdp_summary=True``; set by the alpha -> 0 tail, up to sqrt(T)/sigma),
    ``mu_above`` the certified mu on tests whose errors are both >= the
    level asked (``mu_above=A``). ``phases`` lists (q, sigma, steps).
    ``upper_certified`` False (shuffled batches under add-remove):
    ``epsilon.lower`` is a certified lower bound, ``epsilon.upper`` is inf.
    Shuffled and balls-in-bins batches: the CLT values are NaN and
    ``poisson_epsilons`` holds what Poisson accounting of the same run says
    (another sampler, NOT this run's guarantee). Shuffled batches: an upper
    end (when certified) credits no amplification. Balls-in-bins: a two-sided
    bracket on the epochs' dominating pair (the upper end crediting no
    amplification under replace-one).
    """

    epsilon: Interval
    mu: Optional[Interval]
    route: str
    sensitivity: float
    clt_epsilon: float
    clt_mu: float
    epsilons: Tuple[Tuple[float, Interval], ...] = ()
    mu_above: Optional[Interval] = None
    phases: Tuple[Tuple[float, float, int], ...] = ()
    upper_certified: bool = True
    poisson_epsilons: Tuple[Interval, ...] = ()

    @property
    def steps(self) -> int:
        """The total number of steps accounted for."""
        return sum(p[2] for p in self.phases)


@dataclass(frozen=True)
class DpsgdSolution:
    """What :func:`dpsgd_solve` found: ``value`` meets the target (certified upper end)."""

    param: str
    value: float
    certified_gap: float
    certified_optimum_bound: float
    at_limit: bool
    report: DpsgdReport


def _deltas(delta) -> list:
    ds = [delta] if isinstance(delta, (int, float)) else list(delta)
    return [float(d) for d in ds]


def _phases(phases) -> list:
    out = []
    for p in phases:
        if isinstance(p, dict):
            p = (p["q"], p["sigma"], p["steps"])
        q, sigma, steps = p
        if isinstance(steps, bool) or not isinstance(steps, int):
            raise TypeError(f"phase steps must be an integer, not {type(steps).__name__}")
        out.append((float(q), float(sigma), steps))
    return out


def _report(r: dict, deltas: list) -> DpsgdReport:
    eps = [Interval(*r["epsilon"])] + [Interval(*e) for e in r["more_epsilons"]]
    return DpsgdReport(eps[0], Interval(*r["mu"]) if "mu" in r else None, r["route"],
                       r["sensitivity"], r["clt_epsilon"], r["clt_mu"],
                       tuple(zip(deltas, eps)),
                       Interval(*r["mu_above"]) if "mu_above" in r else None,
                       tuple(tuple(p) for p in r["phases"]), r["upper_certified"],
                       tuple(Interval(*e) for e in r["poisson_epsilons"]))


def dpsgd(*, sigma: float, q: float, steps: int, delta=1e-5,
          sampling: str = "poisson", neighbours: str = "add-remove",
          sensitivity: float = 0.0, gdp_summary: bool = False, mu_above: float = 0.0,
          phases: Sequence = (), max_batch_size: int = 0, dataset_size: int = 0,
          steps_per_epoch: int = 0, uses: int = 0) -> DpsgdReport:
    """The certified budget of ``steps`` DP-SGD steps (as ``fdp dpsgd``).

    delta: one value or several. sampling: "poisson", "truncated-poisson"
    (Poisson batches cut at random to ``max_batch_size`` of ``dataset_size``
    records; both required then), "without-replacement" or
    "shuffle" (a certified lower bound; the upper end, where there is one,
    credits no amplification) or "balls-in-bins" (a two-sided bracket: see
    DpsgdReport; ``steps_per_epoch`` the loader's batches per epoch, between
    floor(1/q) and ceil(1/q); 0: both are covered) or "random-allocation"
    (each record in exactly ``uses`` of the ``steps`` steps, chosen uniformly;
    0: q * steps, which must then be whole; a two-sided bracket, tight when
    steps / uses is large);
    neighbours: "add-remove", "zero-out" or "replace-one" (sensitivity 0: the relation's
    default, 1 or 2). ``phases``: further (q, sigma, steps) stretches run
    after the first, all composed. Combinations without a sound analysis
    (e.g. without-replacement under add-remove) raise ValueError with the reason::

        >>> r = fdp.dpsgd(sigma=1.1, q=0.0042666666666666667, steps=14062,
        ...               delta=[1e-5, 1e-6], mu_above=1e-6)
        >>> r.epsilons[1], r.mu_above
    """
    if isinstance(steps, bool) or not isinstance(steps, int):
        raise TypeError(f"steps must be an integer, not {type(steps).__name__}")
    ds = _deltas(delta)
    for name, v in (("max_batch_size", max_batch_size), ("dataset_size", dataset_size),
                    ("steps_per_epoch", steps_per_epoch), ("uses", uses)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{name} must be an integer, not {type(v).__name__}")
    r = _fdp.account_dpsgd(float(q), float(sigma), steps, ds, sampling, neighbours,
                           float(sensitivity), bool(gdp_summary), float(mu_above), _phases(phases),
                           int(max_batch_size), int(dataset_size), int(steps_per_epoch),
                           int(uses))
    return _report(r, ds)


def dpsgd_steps(epochs: float, dataset_size: int, batch_size: int,
                steps_per_epoch: str = "ceil") -> int:
    """Steps of ``epochs`` epochs: "ceil" (ceil(N/B) per epoch, a loader that keeps
    the last partial batch; the default), "floor" (drop_last) or "total"
    (ceil(E N / B) over the run)."""
    return _fdp.dpsgd_steps(float(epochs), int(dataset_size), int(batch_size), steps_per_epoch)


def dpsgd_solve(target_eps: float, delta: float, *, solve: str = "sigma",
                sigma: Optional[float] = None, q: Optional[float] = None,
                steps: Optional[int] = None, dataset_size: int = 0, batch_size: int = 0,
                epochs: float = 0.0, steps_per_epoch: str = "ceil",
                sensitivity: float = 0.0, mu_above: float = 0.0,
                phases: Sequence = ()) -> DpsgdSolution:
    """The sigma (smallest), steps, epochs or batch size (largest) whose certified
    epsilon at delta is <= target_eps (as ``fdp dpsgd --eps``); Poisson sampling.

    Give the run as q/steps, or dataset_size/batch_size/epochs (steps counted
    by ``steps_per_epoch``); leave out what is solved for. With ``phases``,
    a phase whose sigma is 0 takes the one solved sigma::

        >>> s = fdp.dpsgd_solve(3.0, 1e-5, dataset_size=50000, batch_size=512, epochs=30)
        >>> s.value, s.report.steps, s.report.epsilon.upper <= 3.0
    """
    if dataset_size and batch_size and q is None:
        q = batch_size / dataset_size
    if steps is None and epochs and dataset_size and batch_size and solve != "epochs":
        steps = dpsgd_steps(epochs, dataset_size, batch_size, steps_per_epoch)
    r = _fdp.solve_dpsgd(float(target_eps), float(delta), solve, float(q or 0.0),
                         float(sigma or 0.0), int(steps or 0), int(dataset_size),
                         int(batch_size), float(epochs), steps_per_epoch, "poisson",
                         "add-remove", float(sensitivity), float(mu_above), _phases(phases))
    return DpsgdSolution(solve, r["value"], r["certified_gap"], r["certified_optimum_bound"],
                         r["at_limit"], _report(r, [float(delta)]))

"""Auditing from NumPy arrays: fdp.audit (two samples of a mechanism's
outputs) and fdp.audit_one_run (one training run's canary scores), the same
computations as ``fdp audit --samples0/--samples1`` and ``fdp audit --one-run``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Union

import numpy as np

from . import _fdp
from ._arrays import is_scalar
from ._composition import spec_text
from ._interval import Interval



def _outputs(x: object, name: str) -> np.ndarray:
    """x as a 1-D float64 array of outputs; ValueError naming `name` otherwise.

    NaN and +-inf are kept: they are outputs (a leak may hide in them) and the
    engine places them as the CLI places them in sample files."""
    a = np.asarray(x)
    if a.dtype.kind not in "fiu":
        raise ValueError(f"{name} must be an array of real numbers, not dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-D (one scalar output per entry), not of shape "
                         f"{a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} is empty: at least one output is required")
    return np.ascontiguousarray(a, dtype=np.float64)


def _probability(x: object, name: str, lo_open: bool) -> float:
    if not is_scalar(x):
        raise ValueError(f"{name} must be a real number")
    v = float(x)
    ok = (0 < v < 1) if lo_open else (0 <= v < 1)
    if not ok:
        raise ValueError(f"{name} = {v!r} must be in {'(0, 1)' if lo_open else '[0, 1)'}")
    return v


def _integer(x: object, name: str, lo: int, hi: int) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) \
            or not lo <= int(x) <= hi:
        raise ValueError(f"{name} = {x!r} must be an integer in [{lo}, {hi}]")
    return int(x)


@dataclass(frozen=True)
class AuditCurve:
    """The empirical trade-off curve, as ``fdp audit --curve-out`` writes it.

    ``beta_upper`` is a certified upper bound on the true curve at ``alpha``;
    ``tests_beta_lower`` bounds only the curve of the tests the audit found
    (not a band for the truth); ``beta_estimate`` is a point estimate."""

    alpha: np.ndarray
    tests_beta_lower: np.ndarray
    beta_upper: np.ndarray
    beta_estimate: np.ndarray


@dataclass(frozen=True)
class Witness:
    """The rejection event that certifies a violation (or the best test)."""

    alpha: float
    beta: float
    claim_beta: float
    event: str
    ordering: str


@dataclass(frozen=True)
class AuditResult:
    """fdp.audit's answer: the verdict and the certified lower bounds.

    ``epsilon`` (at ``delta``) and ``mu`` are Intervals with an infinite
    upper end: the audit certifies lower bounds only, at ``confidence``."""

    verdict: str
    reason: str
    claim: str
    confidence: float
    delta: float
    epsilon: Interval
    mu: Interval
    witness: Optional[Witness]
    samples: tuple
    samples_needed: Optional[float]
    nothing_learned: bool
    notes: tuple
    curve: AuditCurve

    @property
    def epsilon_lower(self) -> float:
        return self.epsilon.lower

    @property
    def mu_lower(self) -> float:
        return self.mu.lower


def audit(samples0: object, samples1: object, claim: Union[str, object, Iterable[object]], *,
          confidence: float = 0.95, delta: float = 0.0, selection_fraction: float = 0.1,
          curve_tests: int = 24, bit_features: bool = False, group: int = 1) -> AuditResult:
    """Audits a mechanism from its scalar outputs on two neighbouring inputs.

    ``samples0``/``samples1``: 1-D real arrays, i.i.d. outputs on input0 and
    input1. ``claim``: a spec or a list of specs (composed), as ``--claim``.
    Same split, tests and digits as ``fdp audit --samples0 F0 --samples1 F1``
    on the same outputs written one per line (entry i plays line i)."""
    x0, x1 = _outputs(samples0, "samples0"), _outputs(samples1, "samples1")
    specs = [spec_text(claim)] if isinstance(claim, str) or hasattr(claim, "spec") \
        else [spec_text(c) for c in claim]
    if not specs:
        raise ValueError("claim: at least one spec is required")
    d = _fdp.audit(x0, x1, specs, _probability(confidence, "confidence", True),
                   _probability(delta, "delta", False),
                   _probability(selection_fraction, "selection_fraction", True),
                   _integer(curve_tests, "curve_tests", 0, 1000), bool(bit_features),
                   _integer(group, "group", 1, 1000000))
    inf = float("inf")
    w = d["witness"]
    return AuditResult(
        verdict=d["verdict"], reason=d["reason"], claim=d["claim"], confidence=d["confidence"],
        delta=d["delta"], epsilon=Interval(d["epsilon_lower"], inf),
        mu=Interval(d["mu_lower"], inf), witness=None if w is None else Witness(**w),
        samples=tuple(d["samples"]), samples_needed=d["samples_needed"],
        nothing_learned=d["nothing_learned"], notes=tuple(d["notes"]),
        curve=AuditCurve(**d["curve"]))


@dataclass(frozen=True)
class OneRunResult:
    """fdp.audit_one_run's answer (Steinke, Nasr & Jagielski 2023, Thm 3.1)."""

    canaries: int
    guesses: int
    guessed_in: int
    correct: int
    included: int
    epsilon: Interval
    delta: float
    confidence: float
    p_value_at_zero: float
    mu_lower: float = 0.0  # the f-DP test's certified lower bound on GDP mu

    @property
    def epsilon_lower(self) -> float:
        return self.epsilon.lower


def audit_one_run(scores: object, included: object, *, guesses: Optional[int] = None,
                  delta: float = 0.0, confidence: float = 0.95) -> OneRunResult:
    """One-run audit: ``scores[i]`` is canary i's membership score, ``included[i]``
    1 if it was in the training set (each with probability 1/2), else 0.

    Guesses "in" on the ceil(K/2) highest scores and "out" on the floor(K/2)
    lowest, K = ``guesses`` (default: every canary), fixed before looking.
    As ``fdp audit --one-run FILE`` with rows ``score,in``."""
    s = _outputs(scores, "scores")
    inc = np.asarray(included)
    if inc.ndim != 1 or inc.shape != s.shape:
        raise ValueError(f"included must be 1-D of the shape of scores {s.shape}, "
                         f"not {inc.shape}")
    if inc.dtype.kind not in "biuf" or not np.all((inc == 0) | (inc == 1)):
        raise ValueError("included must hold 0 or 1 (False or True) for every canary")
    k = s.size if guesses is None else _integer(guesses, "guesses", 1, s.size)
    d = _fdp.audit_one_run(s, [int(v) for v in inc], k, _probability(delta, "delta", False),
                           _probability(confidence, "confidence", True))
    return OneRunResult(canaries=d["canaries"], guesses=d["guesses"],
                        guessed_in=d["guessed_in"], correct=d["correct"],
                        included=d["included"], epsilon=Interval(d["epsilon_lower"], float("inf")),
                        delta=d["delta"], confidence=d["confidence"],
                        p_value_at_zero=d["p_value_at_zero"], mu_lower=d["mu_lower"])

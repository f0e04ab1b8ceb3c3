"""DpEvents with the names and fields of Google's dp_accounting.

Reference: dp_accounting's ``dp_event`` module (github.com/google/
differential-privacy, python/dp_accounting); the classes here are
re-implementations with the same constructor fields, so that code building
events for dp_accounting builds them for fdp by changing the import. Which
events fdp can account for, and under which neighbouring relation, is
decided by :class:`fdp.dp_accounting.PLDAccountant`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence


class DpEvent:
    """Base class of the events: a description of a differentially private computation."""


@dataclass(frozen=True)
class NoOpDpEvent(DpEvent):
    """A computation that touches no private data (or its output is discarded)."""


@dataclass(frozen=True)
class NonPrivateDpEvent(DpEvent):
    """A computation without any privacy guarantee: epsilon is inf, delta is 1."""


@dataclass(frozen=True)
class UnsupportedDpEvent(DpEvent):
    """A computation no accountant supports."""


@dataclass(frozen=True)
class GaussianDpEvent(DpEvent):
    """The Gaussian mechanism; noise_multiplier = noise std / l2 sensitivity."""

    noise_multiplier: float


@dataclass(frozen=True)
class LaplaceDpEvent(DpEvent):
    """The Laplace mechanism; noise_multiplier = Laplace scale / l1 sensitivity."""

    noise_multiplier: float


@dataclass(frozen=True)
class EpsilonDeltaDpEvent(DpEvent):
    """A mechanism known only to be (epsilon, delta)-DP."""

    epsilon: float
    delta: float


@dataclass(frozen=True)
class RandomizedResponseDpEvent(DpEvent):
    """Randomized response over num_buckets values: with probability
    noise_parameter the output is a uniformly random bucket, otherwise the true one."""

    noise_parameter: float
    num_buckets: int


@dataclass(frozen=True)
class DiscreteLaplaceDpEvent(DpEvent):
    """The discrete Laplace mechanism: integer noise with P(x) proportional to
    exp(-noise_parameter |x|), added to a sum of l1 sensitivity ``sensitivity``."""

    noise_parameter: float
    sensitivity: int


@dataclass(frozen=True)
class DiscreteGaussianDpEvent(DpEvent):
    """The discrete Gaussian mechanism (Canonne, Kamath & Steinke 2020): integer
    noise with P(z) proportional to exp(-z^2 / (2 sigma^2)). fdp accounts for the
    univariate one only (``dimension=1``; None means unknown, as in dp_accounting)."""

    sigma: float
    sensitivity: float = 1.0
    dimension: Optional[int] = None


@dataclass(frozen=True)
class ZCDpEvent(DpEvent):
    """A mechanism known only to satisfy rho-zCDP (``xi`` must be 0 for fdp)."""

    rho: float
    xi: float = 0.0


@dataclass(frozen=True)
class MixtureOfGaussiansDpEvent(DpEvent):
    """Gaussian noise of ``standard_deviation`` added to a sum whose sensitivity is
    ``sensitivities[i]`` with probability ``sampling_probs[i]`` (user-level DP-SGD)."""

    standard_deviation: float
    sensitivities: Sequence[float]
    sampling_probs: Sequence[float]


@dataclass(frozen=True)
class SelfComposedDpEvent(DpEvent):
    """``event`` repeated ``count`` times."""

    event: DpEvent
    count: int


@dataclass(frozen=True)
class ComposedDpEvent(DpEvent):
    """The events in sequence."""

    events: List[DpEvent]


@dataclass(frozen=True)
class PoissonSampledDpEvent(DpEvent):
    """``event`` run on a Poisson subsample: each record kept with sampling_probability."""

    sampling_probability: float
    event: DpEvent


@dataclass(frozen=True)
class TruncatedSubsampledGaussianDpEvent(DpEvent):
    """The Gaussian mechanism (``noise_multiplier``) on a Poisson sample of rate
    ``sampling_probability`` from ``dataset_size`` records, cut at random to
    ``truncated_batch_size`` records when larger."""

    dataset_size: int
    sampling_probability: float
    truncated_batch_size: int
    noise_multiplier: float


@dataclass(frozen=True)
class SampledWithReplacementDpEvent(DpEvent):
    """``event`` on sample_size records drawn with replacement (not supported by fdp)."""

    source_dataset_size: int
    sample_size: int
    event: DpEvent


@dataclass(frozen=True)
class SampledWithoutReplacementDpEvent(DpEvent):
    """``event`` on sample_size records drawn without replacement (a Gaussian event)."""

    source_dataset_size: int
    sample_size: int
    event: DpEvent


@dataclass(frozen=True)
class SingleEpochTreeAggregationDpEvent(DpEvent):
    """Tree aggregation in one epoch (not supported by fdp)."""

    noise_multiplier: float
    step_counts: object

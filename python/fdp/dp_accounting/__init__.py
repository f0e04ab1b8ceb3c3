"""dp_accounting-shaped events and accountant over fdp's certified engine.

Code written for Google's dp_accounting runs by changing the import::

    from fdp import dp_accounting
    acc = dp_accounting.pld.PLDAccountant()
    acc.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.1)),
                count=1000)
    acc.get_epsilon(target_delta=1e-5)   # certified upper bound

Supported (the same events, translated by the same code, as ``fdp compose
--events``): NoOp, NonPrivate (epsilon inf, delta 1), Gaussian, Laplace,
DiscreteLaplace, DiscreteGaussian (dimension 1), EpsilonDelta, ZCDp (xi 0),
RandomizedResponse (REPLACE_ONE / REPLACE_SPECIAL), MixtureOfGaussians,
PoissonSampled of Gaussian (every relation) or Laplace (not REPLACE_ONE),
TruncatedSubsampledGaussian and SampledWithoutReplacement of Gaussian (every
relation), SelfComposed, Composed. Everything else raises UnsupportedEventError.
:mod:`fdp.dp_accounting.event_file` writes and reads events as the CLI's
event files.
"""

from . import dp_event, event_file, pld
from .dp_event import (ComposedDpEvent, DiscreteGaussianDpEvent, DiscreteLaplaceDpEvent, DpEvent,
                       EpsilonDeltaDpEvent, GaussianDpEvent, LaplaceDpEvent,
                       MixtureOfGaussiansDpEvent, NonPrivateDpEvent, NoOpDpEvent,
                       PoissonSampledDpEvent, RandomizedResponseDpEvent,
                       SampledWithoutReplacementDpEvent, SampledWithReplacementDpEvent,
                       SelfComposedDpEvent, SingleEpochTreeAggregationDpEvent,
                       TruncatedSubsampledGaussianDpEvent, UnsupportedDpEvent, ZCDpEvent)
from .event_file import read_event_file, write_event_file
from .pld import PLDAccountant
from .privacy_accountant import NeighboringRelation, UnsupportedEventError

__all__ = ["dp_event", "event_file", "pld", "PLDAccountant", "NeighboringRelation",
           "UnsupportedEventError", "read_event_file", "write_event_file",
           "DpEvent", "NoOpDpEvent", "NonPrivateDpEvent", "UnsupportedDpEvent", "GaussianDpEvent",
           "LaplaceDpEvent", "DiscreteLaplaceDpEvent", "DiscreteGaussianDpEvent",
           "EpsilonDeltaDpEvent", "ZCDpEvent", "RandomizedResponseDpEvent",
           "MixtureOfGaussiansDpEvent", "SelfComposedDpEvent", "ComposedDpEvent",
           "PoissonSampledDpEvent", "SampledWithReplacementDpEvent",
           "SampledWithoutReplacementDpEvent", "SingleEpochTreeAggregationDpEvent",
           "TruncatedSubsampledGaussianDpEvent"]

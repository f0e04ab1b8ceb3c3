"""dp_accounting-shaped events and accountant over fdp's certified engine.

Code written for Google's dp_accounting runs by changing the import::

    from fdp import dp_accounting
    acc = dp_accounting.pld.PLDAccountant()
    acc.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.1)),
                count=1000)
    acc.get_epsilon(target_delta=1e-5)   # certified upper bound

Supported: NoOp, NonPrivate (epsilon inf, delta 1), Gaussian, Laplace,
EpsilonDelta, RandomizedResponse (REPLACE_ONE / REPLACE_SPECIAL),
PoissonSampled of Gaussian or Laplace (ADD_OR_REMOVE_ONE), SelfComposed,
Composed. Everything else raises UnsupportedEventError.
"""

from . import dp_event, pld
from .dp_event import (ComposedDpEvent, DpEvent, EpsilonDeltaDpEvent, GaussianDpEvent,
                       LaplaceDpEvent, NonPrivateDpEvent, NoOpDpEvent, PoissonSampledDpEvent,
                       RandomizedResponseDpEvent, SampledWithoutReplacementDpEvent,
                       SampledWithReplacementDpEvent, SelfComposedDpEvent,
                       SingleEpochTreeAggregationDpEvent, UnsupportedDpEvent)
from .pld import PLDAccountant
from .privacy_accountant import NeighboringRelation, UnsupportedEventError

__all__ = ["dp_event", "pld", "PLDAccountant", "NeighboringRelation", "UnsupportedEventError",
           "DpEvent", "NoOpDpEvent", "NonPrivateDpEvent", "UnsupportedDpEvent", "GaussianDpEvent",
           "LaplaceDpEvent", "EpsilonDeltaDpEvent", "RandomizedResponseDpEvent",
           "SelfComposedDpEvent", "ComposedDpEvent", "PoissonSampledDpEvent",
           "SampledWithReplacementDpEvent", "SampledWithoutReplacementDpEvent",
           "SingleEpochTreeAggregationDpEvent"]

"""NeighboringRelation and UnsupportedEventError, as in dp_accounting."""

from __future__ import annotations

import enum

from .. import _fdp


class NeighboringRelation(enum.Enum):
    """Which datasets are neighbours (dp_accounting's enum, same members)."""

    ADD_OR_REMOVE_ONE = 1
    REPLACE_ONE = 2
    # A record replaced by a special one, e.g. the zero record.
    REPLACE_SPECIAL = 3


# compose() was given an event fdp cannot account for soundly (the message says
# why): raised by the C++ translation of events, an Exception as in dp_accounting.
UnsupportedEventError = _fdp.UnsupportedEventError

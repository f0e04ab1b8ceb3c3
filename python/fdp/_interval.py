"""Interval: the certified bracket every fdp answer is."""

from __future__ import annotations

from typing import NamedTuple


class Interval(NamedTuple):
    """A certified bracket ``[lower, upper]`` that contains the true value.

    Immutable (a tuple), so it unpacks::

        >>> lo, hi = fdp.Interval(1.0, 1.5)
        >>> fdp.Interval(1.0, 1.5).width
        0.5
    """

    lower: float
    upper: float

    @property
    def width(self) -> float:
        """``upper - lower`` (0 for a closed form known exactly)."""
        return self.upper - self.lower

    def __contains__(self, x: object) -> bool:  # type: ignore[override]
        return isinstance(x, (int, float)) and self.lower <= x <= self.upper

    def __repr__(self) -> str:
        return f"Interval(lower={self.lower!r}, upper={self.upper!r})"

"""Input checks for the vectorized entry points: real arrays only."""

from __future__ import annotations

import numbers

import numpy as np


def is_scalar(x: object) -> bool:
    """A Python or NumPy real number (not bool, not an array)."""
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def real_array(x: object, name: str) -> np.ndarray:
    """x as a float64 array; TypeError naming the parameter for a non-real dtype."""
    a = np.asarray(x)
    if a.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be a real number or an array of real numbers, "
                        f"not dtype {a.dtype}")
    return np.ascontiguousarray(a, dtype=np.float64)


def real_arrays(x: object, y: object, names: tuple) -> tuple:
    """Two real arrays broadcast to one shape (ValueError if they cannot be)."""
    a, b = real_array(x, names[0]), real_array(y, names[1])
    try:
        a, b = np.broadcast_arrays(a, b)
    except ValueError:
        raise ValueError(f"{names[0]} of shape {a.shape} and {names[1]} of shape "
                         f"{b.shape} cannot be broadcast together") from None
    return np.ascontiguousarray(a), np.ascontiguousarray(b)

"""An Opacus-shaped accountant and a certified get_noise_multiplier.

The interface follows Opacus' ``IAccountant`` (opacus/accountants/
accountant.py): ``step(noise_multiplier=, sample_rate=)``, ``get_epsilon(delta)``,
``history`` (a list of ``(noise_multiplier, sample_rate, num_steps)``, runs of
equal steps merged), ``mechanism()``, ``state_dict()`` / ``load_state_dict()``
and ``len()``. When Opacus is installed the class derives from its
IAccountant (so ``get_optimizer_hook_fn`` comes with it); Opacus is never
required.

Accounting: each history entry is ``num_steps`` Poisson-subsampled Gaussian
steps under add/remove neighbours (what Opacus' DPDataLoader samples), and
``get_epsilon`` returns the certified upper end of fdp's bracket.

    acc = FdpAccountant()
    for _ in range(1000):
        acc.step(noise_multiplier=1.1, sample_rate=0.01)
    acc.get_epsilon(delta=1e-5)
"""

from __future__ import annotations

import copy
import math
import threading
from collections import OrderedDict
from typing import List, Optional, Tuple

from . import _fdp
from ._budget import calibrate
from ._composition import Composition
from ._interval import Interval
from .mechanisms import _num

EvaluationError = _fdp.EvaluationError

try:  # Opacus is optional: derive from its interface when it is there
    from opacus.accountants.accountant import IAccountant as _Base  # type: ignore
except Exception:  # noqa: BLE001 - any failure to import means "not available"
    _Base = object


def _check_step(noise_multiplier: float, sample_rate: float) -> None:
    for name, v in (("noise_multiplier", noise_multiplier), ("sample_rate", sample_rate)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v):
            raise ValueError(f"{name} = {v!r} must be a real number")
    if not noise_multiplier >= 0:
        raise ValueError(f"noise_multiplier = {noise_multiplier!r} must be >= 0")
    if not 0 <= sample_rate <= 1:
        raise ValueError(f"sample_rate = {sample_rate!r} must be in [0, 1]")


class FdpAccountant(_Base):  # type: ignore[misc, valid-type]
    """Opacus-compatible accountant with certified epsilon (mechanism "fdp")."""

    def __init__(self) -> None:
        self.history: List[Tuple[float, float, int]] = []
        self._cache: dict = {}
        self._lock = threading.Lock()

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Records one optimizer step (consecutive equal steps share an entry)."""
        _check_step(noise_multiplier, sample_rate)
        if self.history and self.history[-1][:2] == (noise_multiplier, sample_rate):
            nm, sr, n = self.history[-1]
            self.history[-1] = (nm, sr, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def _specs(self) -> Optional[List[str]]:
        """The steps as fdp specs; None when a step had no noise (no guarantee)."""
        steps: dict = {}
        for nm, sr, n in self.history:
            _check_step(nm, sr)
            if sr == 0 or n == 0:
                continue
            if nm == 0:
                return None
            key = f"subsampled-gaussian:sigma={_num(nm)},q={_num(sr)}"
            steps[key] = steps.get(key, 0) + int(n)
        return [s if n == 1 else f"{s},times={n}" for s, n in steps.items()]

    def get_epsilon_interval(self, delta: float) -> Interval:
        """The certified bracket of epsilon at delta for the steps so far."""
        specs = self._specs()
        if specs is None:
            return Interval(math.inf, math.inf)
        if not specs:
            return Interval(0.0, 0.0)
        key = tuple(specs)
        with self._lock:
            c = self._cache.get(key)
            if c is None:
                self._cache = {key: Composition(specs)}  # keep only the latest
                c = self._cache[key]
        return c.epsilon(delta)

    def get_epsilon(self, delta: float, *args, **kwargs) -> float:
        """The certified upper bound on epsilon at delta (Opacus' get_epsilon)."""
        return self.get_epsilon_interval(delta).upper

    def __len__(self) -> int:
        return len(self.history)

    @classmethod
    def mechanism(cls) -> str:
        return "fdp"

    def state_dict(self, destination: Optional[dict] = None) -> dict:
        """``{"history": [...], "mechanism": "fdp"}`` (into destination if given)."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = copy.deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores a state_dict() of an FdpAccountant (ValueError otherwise)."""
        if "history" not in state_dict or "mechanism" not in state_dict:
            raise ValueError("state_dict must have the keys 'history' and 'mechanism'")
        mech = state_dict["mechanism"]
        mech = mech() if callable(mech) else mech
        if mech != self.mechanism():
            raise ValueError(f"state_dict is from a {mech!r} accountant, not {self.mechanism()!r}")
        history = [(float(nm), float(sr), int(n)) for nm, sr, n in state_dict["history"]]
        for nm, sr, _ in history:
            _check_step(nm, sr)
        self.history = history


def get_noise_multiplier(*, target_epsilon: float, target_delta: float, sample_rate: float,
                         epochs: Optional[float] = None, steps: Optional[int] = None,
                         sampling: str = "poisson", **kwargs) -> float:
    """The noise multiplier for ``steps`` Poisson-sampled steps (or ``epochs``, as
    Opacus: steps = int(epochs / sample_rate)) whose CERTIFIED epsilon at
    target_delta is at most target_epsilon: it never overshoots (fdp.calibrate;
    the value is within ~0.1% of the smallest that does), and FdpAccountant's
    get_epsilon for these steps is at most target_epsilon too.

    Extra keyword arguments of Opacus' version (accountant, epsilon_tolerance)
    are accepted and ignored.
    """
    if sampling != "poisson":
        raise ValueError(f"sampling = {sampling!r}: only 'poisson' is supported here "
                         "(fdp.dpsgd accounts for sampling without replacement)")
    if (epochs is None) == (steps is None):
        raise ValueError("give exactly one of epochs and steps")
    if steps is None:
        if not (isinstance(epochs, (int, float)) and epochs > 0):
            raise ValueError(f"epochs = {epochs!r} must be > 0")
        if not (isinstance(sample_rate, (int, float)) and 0 < sample_rate <= 1):
            raise ValueError(f"sample_rate = {sample_rate!r} must be in (0, 1]")
        steps = int(epochs / sample_rate)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps = {steps!r} must be an integer >= 1")
    if not (isinstance(sample_rate, (int, float)) and 0 < sample_rate <= 1):
        raise ValueError(f"sample_rate = {sample_rate!r} must be in (0, 1]")
    spec = f"subsampled-gaussian:q={_num(sample_rate)},times={steps}"
    sigma = calibrate(spec, "sigma", target_epsilon, target_delta).value
    # calibrate certifies the target on its own (finer) grids; the accountant
    # composes at its default tolerance, whose upper end can be a little
    # higher. More noise until that one meets the target too, so that
    # FdpAccountant.get_epsilon never reports more than target_epsilon.
    for _ in range(50):
        steps_spec = f"subsampled-gaussian:sigma={_num(sigma)},q={_num(sample_rate)},times={steps}"
        if Composition([steps_spec]).epsilon(target_delta).upper <= target_epsilon:
            return sigma
        sigma *= 1.0005
    raise EvaluationError("get_noise_multiplier: the accountant's bracket does not meet the "
                          "target near the calibrated noise")

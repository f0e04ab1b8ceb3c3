"""fdp: certified f-differential privacy accounting (Python interface to fdp's C++ core).

Every numeric answer about a composition is a certified bracket
:class:`Interval` ``(lower, upper)`` that contains the true value; a single
number reported as a guarantee (an accountant's ``get_epsilon``) is the upper
end of one.

    >>> import fdp
    >>> c = fdp.compose(["subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062"])
    >>> c.epsilon(1e-5)
    Interval(lower=2.380297..., upper=2.383684...)
    >>> fdp.gdp.eps(1.0, 1e-5)
    4.377178...

Modules: :mod:`fdp.gdp` (closed forms), :mod:`fdp.mechanisms` (mechanism
objects), :mod:`fdp.dp_accounting` (dp_accounting-shaped events and
PLDAccountant), :mod:`fdp.opacus` (an Opacus-shaped accountant and
get_noise_multiplier), :func:`fdp.calibrate`, :func:`fdp.dpsgd`, :func:`fdp.dpsgd_solve`, :func:`fdp.group`,
:func:`fdp.audit`, :func:`fdp.audit_one_run`.
Bad input raises ValueError (TypeError for a wrong type) naming the parameter.
"""

from . import _fdp
from ._interval import Interval
from ._composition import Band, Composition, compose
from ._budget import (CalibrationResult, DpsgdReport, DpsgdSolution, calibrate, dpsgd,
                      dpsgd_solve, dpsgd_steps)
from ._group import Group, group
from ._audit import (AuditCurve, AuditResult, OneRunResult, Witness, audit,
                     audit_one_run)
from ._ledger import BudgetExceeded, Ledger, LedgerCheck, LedgerEntry, LedgerStatus
from ._clt import CltApproximation, clt, edgeworth
from . import gdp, mechanisms

EvaluationError = _fdp.EvaluationError
parse_spec = _fdp.parse_spec

__version__ = "0.1.0"
__all__ = ["Interval", "Band", "Composition", "compose", "calibrate", "CalibrationResult",
           "dpsgd", "DpsgdReport", "dpsgd_solve", "DpsgdSolution", "dpsgd_steps", "group", "Group", "gdp", "mechanisms", "EvaluationError", "parse_spec",
           "audit", "AuditResult", "AuditCurve", "Witness", "audit_one_run", "OneRunResult",
           "Ledger", "LedgerStatus", "LedgerCheck", "LedgerEntry", "BudgetExceeded",
           "clt", "CltApproximation", "edgeworth"]

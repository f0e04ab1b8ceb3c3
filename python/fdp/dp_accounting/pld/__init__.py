"""dp_accounting.pld's accountant, over fdp's certified engine."""

from .pld_privacy_accountant import PLDAccountant

__all__ = ["PLDAccountant"]

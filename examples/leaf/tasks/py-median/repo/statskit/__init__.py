"""Tiny descriptive statistics helpers."""

from statskit.core import mean, median, mode

__all__ = ["mean", "median", "mode"]

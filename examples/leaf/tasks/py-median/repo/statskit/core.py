"""Core statistics functions."""

from collections import Counter


def _require_data(values):
    data = list(values)
    if not data:
        raise ValueError("need at least one value")
    return data


def mean(values):
    """Arithmetic mean of a non-empty iterable of numbers."""
    data = _require_data(values)
    return sum(data) / len(data)


def median(values):
    """Middle value of a non-empty iterable of numbers.

    For an even number of values this is the mean of the two middle values.
    """
    data = sorted(_require_data(values))
    middle = len(data) // 2
    return data[middle]


def mode(values):
    """Most common value; ties go to the value seen first."""
    data = _require_data(values)
    return Counter(data).most_common(1)[0][0]

"""Split sequences into fixed-size batches."""


def _check_size(size):
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError("size must be a positive integer")


def chunked(items, size):
    """Split items into lists of `size` elements.

    Every element of `items` appears in exactly one chunk, in order; the last
    chunk may be shorter than `size`.
    """
    _check_size(size)
    items = list(items)
    return [items[start:start + size] for start in range(0, len(items) - size + 1, size)]


def batch_count(total, size):
    """Number of batches needed to process `total` items `size` at a time."""
    _check_size(size)
    if total < 0:
        raise ValueError("total must be non-negative")
    return -(-total // size)

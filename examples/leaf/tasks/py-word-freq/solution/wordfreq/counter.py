"""Count how often each word occurs in a text."""

import re
from collections import Counter

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def _words(text):
    return _WORD.findall(text.lower())


def count_words(text):
    """Return a dict mapping each word to the number of times it occurs."""
    return dict(Counter(_words(text)))


def top_words(text, n):
    """Return the n most frequent (word, count) pairs, most frequent first.

    Ties are broken alphabetically.
    """
    if n < 0:
        raise ValueError("n must be non-negative")
    counts = count_words(text)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]

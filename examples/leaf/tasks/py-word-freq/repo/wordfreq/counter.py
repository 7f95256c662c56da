"""Count how often each word occurs in a text."""

from collections import Counter


def _words(text):
    return text.split()


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

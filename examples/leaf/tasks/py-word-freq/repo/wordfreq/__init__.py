"""Word frequency counting."""

from wordfreq.counter import count_words, top_words

__all__ = ["count_words", "top_words"]

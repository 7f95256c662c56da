"""Counting words."""


def word_count(text):
    """The number of words in text (words are separated by spaces)."""
    if text == "":
        return 0
    return len(text.split(" "))

"""URL slugs."""


def slugify(text):
    """Lower-cases text and joins its words with dashes."""
    words = text.strip().lower().split()
    return "-".join(words)

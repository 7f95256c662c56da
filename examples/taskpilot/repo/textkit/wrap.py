"""Shortening text to a width."""


def truncate(text, width, suffix="..."):
    """Returns text cut to at most width characters, ending with suffix when cut."""
    if len(text) <= width:
        return text
    return text[:width] + suffix

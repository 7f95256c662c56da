"""Identifier case conversion."""


def camel_to_snake(name):
    """Converts a camelCase or PascalCase identifier to snake_case."""
    out = []
    for i, ch in enumerate(name):
        if ch.isupper():
            if i > 0:
                out.append("_")
            out.append(ch.lower())
        else:
            out.append(ch)
    return "".join(out)

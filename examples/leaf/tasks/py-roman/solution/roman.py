"""Convert between integers and Roman numerals."""

_SYMBOLS = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]

_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(number):
    """Return the standard Roman numeral for an integer in 1..3999."""
    if not isinstance(number, int) or isinstance(number, bool):
        raise TypeError("number must be an int")
    if not 1 <= number <= 3999:
        raise ValueError("number must be between 1 and 3999")
    parts = []
    for value, symbol in _SYMBOLS:
        count, number = divmod(number, value)
        parts.append(symbol * count)
    return "".join(parts)


def from_roman(text):
    """Parse a Roman numeral (upper or lower case) into an integer."""
    text = text.strip().upper()
    if not text or any(ch not in _VALUES for ch in text):
        raise ValueError("invalid Roman numeral: %r" % text)
    total = 0
    for index, ch in enumerate(text):
        value = _VALUES[ch]
        if index + 1 < len(text) and _VALUES[text[index + 1]] > value:
            total -= value
        else:
            total += value
    return total

from textkit import camel_to_snake, slugify, truncate, word_count


def test_slugify_words():
    assert slugify("Hello World") == "hello-world"


def test_truncate_short_text_unchanged():
    assert truncate("short", 10) == "short"


def test_word_count_single_spaces():
    assert word_count("a b c") == 3


def test_word_count_empty():
    assert word_count("") == 0


def test_camel_to_snake_simple():
    assert camel_to_snake("fooBar") == "foo_bar"

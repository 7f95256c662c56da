import unittest

from wordfreq import count_words, top_words


class CountWordsTests(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(count_words("a b a"), {"a": 2, "b": 1})

    def test_whitespace(self):
        self.assertEqual(count_words("  one\ttwo\n\none  "), {"one": 2, "two": 1})

    def test_empty(self):
        self.assertEqual(count_words(""), {})


class TopWordsTests(unittest.TestCase):
    def test_top(self):
        self.assertEqual(top_words("x y x z x y", 2), [("x", 3), ("y", 2)])

    def test_ties_alphabetical(self):
        self.assertEqual(top_words("b a c", 2), [("a", 1), ("b", 1)])

    def test_negative(self):
        with self.assertRaises(ValueError):
            top_words("a", -1)


if __name__ == "__main__":
    unittest.main()

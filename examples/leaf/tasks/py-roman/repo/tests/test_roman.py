import unittest

from roman import from_roman, to_roman


class ToRomanTests(unittest.TestCase):
    def test_additive_numbers(self):
        self.assertEqual(to_roman(1), "I")
        self.assertEqual(to_roman(3), "III")
        self.assertEqual(to_roman(8), "VIII")
        self.assertEqual(to_roman(2023), "MMXXIII")

    def test_out_of_range(self):
        with self.assertRaises(ValueError):
            to_roman(0)
        with self.assertRaises(ValueError):
            to_roman(4000)

    def test_type_check(self):
        with self.assertRaises(TypeError):
            to_roman("12")


class FromRomanTests(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(from_roman("XLII"), 42)
        self.assertEqual(from_roman("MCMXCIV"), 1994)
        self.assertEqual(from_roman("mmxxiii"), 2023)

    def test_invalid(self):
        with self.assertRaises(ValueError):
            from_roman("ABC")
        with self.assertRaises(ValueError):
            from_roman("")


if __name__ == "__main__":
    unittest.main()

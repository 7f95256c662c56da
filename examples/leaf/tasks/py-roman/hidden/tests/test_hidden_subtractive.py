import unittest

from roman import from_roman, to_roman


class SubtractiveNotationTests(unittest.TestCase):
    def test_small_numbers(self):
        self.assertEqual(to_roman(4), "IV")
        self.assertEqual(to_roman(9), "IX")
        self.assertEqual(to_roman(14), "XIV")

    def test_tens_and_hundreds(self):
        self.assertEqual(to_roman(40), "XL")
        self.assertEqual(to_roman(90), "XC")
        self.assertEqual(to_roman(400), "CD")
        self.assertEqual(to_roman(900), "CM")

    def test_years(self):
        self.assertEqual(to_roman(1994), "MCMXCIV")
        self.assertEqual(to_roman(3999), "MMMCMXCIX")

    def test_round_trip(self):
        for number in range(1, 4000):
            self.assertEqual(from_roman(to_roman(number)), number)

    def test_additive_numbers_unchanged(self):
        self.assertEqual(to_roman(2023), "MMXXIII")


if __name__ == "__main__":
    unittest.main()

import unittest

from statskit import median


class EvenLengthMedianTests(unittest.TestCase):
    def test_two_middle_values_are_averaged(self):
        self.assertEqual(median([1, 2, 3, 4]), 2.5)

    def test_unsorted_input(self):
        self.assertEqual(median([4, 1, 3, 2]), 2.5)

    def test_two_values(self):
        self.assertEqual(median([10, 20]), 15)

    def test_equal_middle_values(self):
        self.assertEqual(median([5, 5]), 5)

    def test_floats(self):
        self.assertAlmostEqual(median([0.5, 1.5, 2.5, 10.0]), 2.0)

    def test_odd_length_unchanged(self):
        self.assertEqual(median([5, 1, 3]), 3)


if __name__ == "__main__":
    unittest.main()

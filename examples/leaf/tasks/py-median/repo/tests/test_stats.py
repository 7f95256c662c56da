import unittest

from statskit import mean, median, mode


class MeanTests(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([1, 2, 3, 4]), 2.5)

    def test_mean_empty(self):
        with self.assertRaises(ValueError):
            mean([])


class MedianTests(unittest.TestCase):
    def test_odd_length(self):
        self.assertEqual(median([3, 1, 2]), 2)

    def test_single_value(self):
        self.assertEqual(median([7]), 7)

    def test_accepts_generators(self):
        self.assertEqual(median(x for x in [9, 5, 1, 7, 3]), 5)

    def test_empty(self):
        with self.assertRaises(ValueError):
            median([])


class ModeTests(unittest.TestCase):
    def test_mode(self):
        self.assertEqual(mode(["a", "b", "b", "c"]), "b")


if __name__ == "__main__":
    unittest.main()

import unittest

from batching import batch_count, chunked


class ChunkedTests(unittest.TestCase):
    def test_even_split(self):
        self.assertEqual(chunked([1, 2, 3, 4], 2), [[1, 2], [3, 4]])

    def test_size_one(self):
        self.assertEqual(chunked("abc", 1), [["a"], ["b"], ["c"]])

    def test_empty(self):
        self.assertEqual(chunked([], 3), [])

    def test_bad_size(self):
        with self.assertRaises(ValueError):
            chunked([1, 2], 0)
        with self.assertRaises(ValueError):
            chunked([1, 2], True)


class BatchCountTests(unittest.TestCase):
    def test_counts(self):
        self.assertEqual(batch_count(10, 3), 4)
        self.assertEqual(batch_count(9, 3), 3)
        self.assertEqual(batch_count(0, 5), 0)


if __name__ == "__main__":
    unittest.main()

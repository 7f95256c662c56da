import unittest

from batching import batch_count, chunked


class RemainderTests(unittest.TestCase):
    def test_last_partial_chunk_is_kept(self):
        self.assertEqual(chunked([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]])

    def test_size_larger_than_input(self):
        self.assertEqual(chunked([1, 2], 5), [[1, 2]])

    def test_generator_input(self):
        self.assertEqual(chunked(range(7), 3), [[0, 1, 2], [3, 4, 5], [6]])

    def test_agrees_with_batch_count(self):
        for total in range(0, 12):
            for size in range(1, 5):
                chunks = chunked(range(total), size)
                self.assertEqual(len(chunks), batch_count(total, size))
                self.assertEqual([x for chunk in chunks for x in chunk], list(range(total)))


if __name__ == "__main__":
    unittest.main()

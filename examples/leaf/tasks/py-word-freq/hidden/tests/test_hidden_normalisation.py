import unittest

from wordfreq import count_words, top_words


class NormalisationTests(unittest.TestCase):
    def test_case_insensitive(self):
        self.assertEqual(count_words("Hello hello HELLO"), {"hello": 3})

    def test_punctuation_is_not_part_of_words(self):
        self.assertEqual(
            count_words("The cat and the hat."),
            {"the": 2, "cat": 1, "and": 1, "hat": 1},
        )
        self.assertEqual(count_words("Hello, hello! (hello?)"), {"hello": 3})

    def test_punctuation_only_text(self):
        self.assertEqual(count_words("... -- !!"), {})

    def test_contractions_stay_whole(self):
        self.assertEqual(count_words("Don't stop. don't!"), {"don't": 2, "stop": 1})

    def test_top_words_uses_normalised_counts(self):
        text = "Spam, spam, SPAM! Eggs and spam. Eggs?"
        self.assertEqual(top_words(text, 2), [("spam", 4), ("eggs", 2)])


if __name__ == "__main__":
    unittest.main()

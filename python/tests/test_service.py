"""The three entry points end to end against the real service (--budget 1000 --alpha 0.5)."""

import asyncio
import pickle
import sys
import unittest
from unittest import mock

from .support import (
    PLAIN_URL,
    REWARD_4000,
    RecordingSleep,
    Sample,
    Status,
    client_env,
    expected_reward,
    fc,
    needs_service,
    outcome,
)

EXTRA_LOG_KEYS = {"success", "budget_truncated", "assistant_tokens"}


def assert_floats(test, values):
    for i, v in enumerate(values):
        test.assertIs(type(v), float, f"entry {i} is {type(v).__name__} {v!r}, not float")


@needs_service
class VerlTest(unittest.TestCase):
    def setUp(self):
        self.env = client_env(PLAIN_URL)
        self.env.__enter__()
        self.addCleanup(self.env.__exit__, None, None, None)

    def test_compute_score_shapes_the_outcome_label(self):
        got = fc.compute_score(
            data_source="swe", solution_str="patch", ground_truth=outcome(True, False, 4000), extra_info={"index": 1, "num_turns": 3}
        )
        self.assertEqual(set(got), {"score", "raw"})
        self.assertAlmostEqual(got["score"], REWARD_4000, places=12)
        self.assertEqual(got["raw"], 1.0)
        assert_floats(self, got.values())

    def test_compute_score_all_zero_one_values_are_floats(self):
        for label, score, raw in [(outcome(True, False, 500), 1.0, 1.0), (outcome(False, False, 500), 0.0, 0.0), (outcome(True, True, 9000), 0.5, 1.0)]:
            got = fc.compute_score("swe", "patch", label)
            self.assertEqual(got, {"score": score, "raw": raw})
            assert_floats(self, got.values())

    def test_compute_score_batch_in_order(self):
        cases = [(False, False, 10), (True, True, 10), (True, False, 3000), (True, False, 4000), (True, False, 20)]
        got = fc.compute_score_batch(
            data_sources=["d"] * len(cases),
            solution_strs=["s"] * len(cases),
            ground_truths=[outcome(*c) for c in cases],
            extra_infos=[{"i": i} for i in range(len(cases))],
        )
        self.assertEqual(len(got), len(cases))
        for g, c in zip(got, cases):
            self.assertAlmostEqual(g["score"], expected_reward(*c), places=12)
            self.assertEqual(g["raw"], 1.0 if c[0] else 0.0)
            assert_floats(self, g.values())
        self.assertEqual(fc.compute_score_batch([], [], [], []), [])

    def test_response_length_from_extra_info_sets_the_log_length_reward(self):
        got = fc.compute_score("swe", "patch", outcome(True), extra_info={"response_length": 4000, "finish_reason": "stop"})
        self.assertAlmostEqual(got["score"], REWARD_4000, places=12)
        got = fc.compute_score("swe", "patch", outcome(True), extra_info={"valid_response_length": 4000, "finish_reason": "stop"})
        self.assertAlmostEqual(got["score"], REWARD_4000, places=12)
        got = fc.compute_score("swe", "patch", outcome(True, False), extra_info={"response_length": 4000})
        self.assertAlmostEqual(got["score"], REWARD_4000, places=12)
        got = fc.compute_score("swe", "patch", outcome(True), extra_info={"response_length": 400, "finish_reason": "stop"})
        self.assertEqual(got["score"], 1.0)
        got = fc.compute_score("swe", "patch", outcome(True, False, 100), extra_info={"response_length": 4000, "finish_reason": "length"})
        self.assertEqual(got["score"], 1.0, "the outcome's own fields win over the trainer's counts")

    def test_finish_reason_length_is_a_truncation(self):
        got = fc.compute_score("swe", "patch", outcome(True), extra_info={"response_length": 4000, "finish_reason": "length"})
        self.assertEqual(got, {"score": 0.5, "raw": 1.0})

    def test_a_ground_truth_that_is_not_an_outcome_is_a_400(self):
        with RecordingSleep().patch() as sleep:
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.compute_score("swe", "patch", "42")
        e = cm.exception
        self.assertEqual((e.status, e.code, e.field), (400, "INVALID_TYPE", "ground_truth"))
        self.assertIn("INVALID_TYPE", str(e))
        self.assertIn(e.message, str(e))
        self.assertEqual(sleep.delays, [])


@needs_service
class OpenRlhfTest(unittest.TestCase):
    def setUp(self):
        self.env = client_env(PLAIN_URL)
        self.env.__enter__()
        self.addCleanup(self.env.__exit__, None, None, None)
        # torch absent (also where it is installed): plain lists of float
        patcher = mock.patch.dict(sys.modules, {"torch": None})
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_reward_func_rewards_scores_extra_logs(self):
        cases = [(True, False, 4000), (True, True, 9000), (False, False, 30)]
        got = fc.reward_func(["p a", "p b", "p c"], ["p ", "p ", "p "], [outcome(*c) for c in cases])
        self.assertEqual(set(got), {"rewards", "scores", "extra_logs"})
        for a, c in zip(got["rewards"], cases):
            self.assertAlmostEqual(a, expected_reward(*c), places=12)
        self.assertEqual(got["scores"], [1.0, 1.0, 0.0])
        self.assertLessEqual(EXTRA_LOG_KEYS, set(got["extra_logs"]))
        self.assertEqual(got["extra_logs"]["success"], [1.0, 1.0, 0.0])
        self.assertEqual(got["extra_logs"]["assistant_tokens"], [4000.0, 9000.0, 30.0])
        self.assertEqual(got["extra_logs"]["budget_truncated"], [0.0, 1.0, 0.0])
        assert_floats(self, got["rewards"] + got["scores"])
        for values in got["extra_logs"].values():
            self.assertEqual(len(values), 3)
            assert_floats(self, values)

    def test_all_zero_one_batch_gives_floats(self):
        got = fc.reward_func(["a", "b", "c", "d"], ["", "", "", ""], [outcome(True, False, 10), outcome(False, False, 10)] * 2)
        self.assertEqual(got["rewards"], [1.0, 0.0, 1.0, 0.0])
        self.assertEqual(got["scores"], [1.0, 0.0, 1.0, 0.0])
        assert_floats(self, got["rewards"] + got["scores"])

    def test_empty_batch(self):
        got = fc.reward_func([], [], [])
        self.assertEqual(got["rewards"], [])
        self.assertEqual(got["scores"], [])
        self.assertEqual(set(got["extra_logs"]), EXTRA_LOG_KEYS)
        self.assertTrue(all(v == [] for v in got["extra_logs"].values()))

    def test_response_lengths_and_finish_reasons_change_the_reward(self):
        got = fc.reward_func(
            ["a", "b", "c"],
            ["", "", ""],
            [outcome(True)] * 3,
            response_lengths=[4000, 4000, 300],
            finish_reasons=["stop", "length", "stop"],
        )
        self.assertAlmostEqual(got["rewards"][0], REWARD_4000, places=12)
        self.assertEqual(got["rewards"][1:], [0.5, 1.0])
        self.assertEqual(got["extra_logs"]["assistant_tokens"], [4000.0, 4000.0, 300.0])
        got = fc.reward_func(["a"], [""], [outcome(True)], response_length=[4000], stop_reasons=["length"])
        self.assertEqual(got["rewards"], [0.5])

    def test_a_label_that_is_not_an_outcome_is_invalid_type_naming_it(self):
        with RecordingSleep().patch() as sleep:
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.reward_func(["a", "b"], ["", ""], [outcome(True, False, 10), "not an outcome"])
        e = cm.exception
        self.assertEqual((e.status, e.code, e.field, e.attempts), (400, "INVALID_TYPE", "labels[1]", 1))
        self.assertIn("INVALID_TYPE", str(e))
        self.assertIn("labels[1]", str(e))
        self.assertIn(e.message, str(e))
        self.assertEqual(sleep.delays, [], "a 4xx is not retried")
        again = pickle.loads(pickle.dumps(e))  # Ray ships exceptions between processes
        self.assertEqual((again.status, again.code, again.message, again.field), (e.status, e.code, e.message, e.field))
        self.assertEqual(str(again), str(e))

    def test_unknown_path_is_not_found(self):
        with self.assertRaises(fc.FrognanoClientError) as cm:
            fc.post("/no/such/path", {})
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "NOT_FOUND"))


@needs_service
class SlimeTest(unittest.TestCase):
    def setUp(self):
        self.env = client_env(PLAIN_URL)
        self.env.__enter__()
        self.addCleanup(self.env.__exit__, None, None, None)

    def test_rm_returns_a_float(self):
        for label, want in [(outcome(True, False, 4000), REWARD_4000), (outcome(True, False, 10), 1.0), (outcome(False, False, 10), 0.0)]:
            got = asyncio.run(fc.rm(None, Sample(label=label)))
            self.assertIs(type(got), float)
            self.assertAlmostEqual(got, want, places=12)

    def test_status_and_response_length_fill_the_outcome(self):
        got = asyncio.run(fc.rm(None, Sample(label=outcome(True), response_length=4000, status=Status.COMPLETED)))
        self.assertAlmostEqual(got, REWARD_4000, places=12)
        got = asyncio.run(fc.rm(None, Sample(label=outcome(True), response_length=300, status=Status.TRUNCATED)))
        self.assertEqual(got, 0.5)
        got = asyncio.run(fc.rm(None, Sample(label=outcome(True), response_length=4000, status="truncated")))
        self.assertEqual(got, 0.5)

    def test_batched_rm_and_a_list_given_to_rm(self):
        cases = [(True, True, 100), (True, False, 4000), (False, False, 5)]
        samples = [Sample(label=outcome(*c)) for c in cases]
        want = [expected_reward(*c) for c in cases]
        for got in (asyncio.run(fc.batched_rm(None, samples)), asyncio.run(fc.rm(None, samples))):
            self.assertEqual(len(got), 3)
            for g, w in zip(got, want):
                self.assertIs(type(g), float)
                self.assertAlmostEqual(g, w, places=12)

    def test_metadata_outcome_is_sent_as_the_label(self):
        sample = Sample(label=None, metadata={"outcome": {"success": True, "truncated": True, "assistantTokens": 14000}})
        self.assertEqual(asyncio.run(fc.rm(None, sample)), 0.5)

    def test_a_bad_label_raises_with_the_code(self):
        with self.assertRaises(fc.FrognanoClientError) as cm:
            asyncio.run(fc.rm(None, Sample(label="[1, 2]")))
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.field), (400, "INVALID_TYPE", "label"))


if __name__ == "__main__":
    unittest.main()

"""The bearer token (`frognano serve --token T`): FROGNANO_TOKEN or token=, read at call time."""

import asyncio
import json
import os
import unittest
import urllib.request

from .support import AUTH_TOKEN, AUTH_URL, PLAIN_URL, RecordingSleep, Sample, client_env, fc, needs_auth_service, outcome


@needs_auth_service
class BearerTokenTest(unittest.TestCase):
    def test_the_right_token_from_the_environment_works_on_every_protocol(self):
        with client_env(AUTH_URL, token=AUTH_TOKEN):
            self.assertEqual(fc.compute_score("d", "s", outcome(True, False, 10)), {"score": 1.0, "raw": 1.0})
            got = fc.reward_func(["q"], [""], [outcome(True, True, 10)])
            self.assertEqual(list(got["rewards"]), [0.5])
            self.assertEqual(asyncio.run(fc.rm(None, Sample(label=outcome(False, False, 10)))), 0.0)

    def test_the_token_argument_works(self):
        with client_env(AUTH_URL):
            answer = fc.post("/verl/reward", {"solution_str": "s", "ground_truth": outcome(True, False, 10)}, token=AUTH_TOKEN)
        self.assertEqual(answer["score"], 1.0)

    def test_a_missing_token_is_unauthorized_and_not_retried(self):
        with client_env(AUTH_URL), RecordingSleep().patch() as sleep:
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.compute_score("d", "s", outcome(True, False, 10))
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.attempts), (401, "UNAUTHORIZED", 1))
        self.assertIn("UNAUTHORIZED", str(cm.exception))
        self.assertEqual(sleep.delays, [])

    def test_a_wrong_token_is_unauthorized_and_not_retried(self):
        with client_env(AUTH_URL, token=AUTH_TOKEN + "-wrong"), RecordingSleep().patch() as sleep:
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.reward_func(["q"], [""], [outcome(True, False, 10)])
        self.assertEqual((cm.exception.status, cm.exception.code), (401, "UNAUTHORIZED"))
        self.assertEqual(sleep.delays, [])
        self.assertNotIn(AUTH_TOKEN, str(cm.exception), "the message does not echo a token")

    def test_health_needs_no_token(self):
        with urllib.request.urlopen(AUTH_URL + "/health", timeout=10) as res:
            self.assertEqual(res.status, 200)
            self.assertEqual(json.loads(res.read()), {"status": "ok"})

    @unittest.skipUnless(PLAIN_URL, "needs a service: set FROGNANO_URL")
    def test_url_and_token_are_read_at_call_time(self):
        with client_env(PLAIN_URL):
            self.assertEqual(fc.compute_score("d", "s", outcome(True, False, 10))["score"], 1.0)
            os.environ["FROGNANO_URL"] = AUTH_URL
            with self.assertRaises(fc.FrognanoClientError):
                fc.compute_score("d", "s", outcome(True, False, 10))
            os.environ["FROGNANO_TOKEN"] = AUTH_TOKEN
            self.assertEqual(fc.compute_score("d", "s", outcome(True, False, 10))["score"], 1.0)


if __name__ == "__main__":
    unittest.main()

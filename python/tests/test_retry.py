"""post(): retries with backoff on 5xx / connection errors / timeouts, none on 4xx (a local http.server)."""

import os
import socket
import unittest
from unittest import mock

from .support import RecordingSleep, ScriptedServer, client_env, fc, ok

ERROR_503 = (503, {"error": {"code": "OVERLOADED", "message": "too many requests waiting"}}, None)


def free_port():
    """A port nothing listens on (bound, then closed): connecting is refused."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class RetryTest(unittest.TestCase):
    def setUp(self):
        self.sleep = RecordingSleep()
        patcher = self.sleep.patch()
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_503_twice_then_200(self):
        with ScriptedServer([ERROR_503, ERROR_503, ok({"score": 1, "raw": 1})]) as srv, client_env(srv.url, FROGNANO_RETRIES="6"):
            got = fc.compute_score("d", "s", "{}")
        self.assertEqual(got, {"score": 1.0, "raw": 1.0})
        self.assertIs(type(got["score"]), float, "an integer JSON answer still gives a float")
        self.assertEqual(len(srv.requests), 3)
        self.assertEqual(len(self.sleep.delays), 2)
        self.assertLess(self.sleep.delays[0], self.sleep.delays[1] + 0.02)

    def test_a_real_short_sleep_between_attempts(self):
        with mock.patch.object(fc, "_sleep", fc.time.sleep):
            with ScriptedServer([ERROR_503, ok(0.25)]) as srv, client_env(srv.url):
                self.assertEqual(fc.post("/slime/reward", {}, backoff=0.01, backoff_max=0.01), 0.25)
        self.assertEqual(len(srv.requests), 2)

    def test_backoff_doubles_up_to_the_cap_with_jitter(self):
        with ScriptedServer([ERROR_503]) as srv, client_env(srv.url):
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.post("/verl/reward", {}, retries=6, backoff=0.5, backoff_max=8)
        e = cm.exception
        self.assertEqual((e.status, e.code, e.message, e.attempts), (503, "OVERLOADED", "too many requests waiting", 6))
        self.assertIn("after 6 attempts", str(e))
        self.assertEqual(len(srv.requests), 6)
        self.assertEqual(len(self.sleep.delays), 5)
        for k, d in enumerate(self.sleep.delays):
            base = min(8.0, 0.5 * 2**k)
            self.assertGreaterEqual(d, base)
            self.assertLess(d, base + 0.5)

    def test_retry_after_is_honoured(self):
        script = [(503, {"error": {"code": "SHUTTING_DOWN", "message": "draining"}}, {"Retry-After": "3"}), ok([])]
        with ScriptedServer(script) as srv, client_env(srv.url):
            fc.post("/x", {}, backoff=0.01, backoff_max=0.02)
        self.assertEqual(len(self.sleep.delays), 1)
        self.assertGreaterEqual(self.sleep.delays[0], 3.0)

    def test_500_is_retried_then_raises_with_the_last_code(self):
        script = [ERROR_503, (500, {"error": {"code": "USER_FUNCTION_ERROR", "message": "reward module threw: boom"}}, None)]
        with ScriptedServer(script) as srv, client_env(srv.url, FROGNANO_RETRIES="3"):
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.reward_func(["q"], [""], ["{}"])
        e = cm.exception
        self.assertEqual((e.status, e.code, e.attempts), (500, "USER_FUNCTION_ERROR", 3))
        self.assertIn("reward module threw: boom", str(e))
        self.assertEqual(len(srv.requests), 3)

    def test_a_4xx_raises_at_once(self):
        script = [(400, {"error": {"code": "LENGTH_MISMATCH", "message": "labels has length 1 but query has length 2", "field": "labels"}}, None)]
        with ScriptedServer(script) as srv, client_env(srv.url):
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.reward_func(["a", "b"], None, ["{}"])
        e = cm.exception
        self.assertEqual((e.status, e.code, e.field, e.attempts), (400, "LENGTH_MISMATCH", "labels", 1))
        self.assertIn("LENGTH_MISMATCH: labels has length 1 but query has length 2 (field labels)", str(e))
        self.assertEqual(len(srv.requests), 1)
        self.assertEqual(self.sleep.delays, [])

    def test_a_non_json_error_body_keeps_status_and_text(self):
        with ScriptedServer([(403, b"forbidden by proxy", None)]) as srv, client_env(srv.url):
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.post("/x", {})
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.message), (403, "HTTP_403", "forbidden by proxy"))

    def test_429_is_retried(self):
        with ScriptedServer([(429, b"slow down", {"Retry-After": "1"}), ok(1)]) as srv, client_env(srv.url):
            self.assertEqual(fc.post("/x", {}), 1)
        self.assertEqual(len(srv.requests), 2)
        self.assertGreaterEqual(self.sleep.delays[0], 1.0)

    def test_connection_refused_is_retried_then_raises(self):
        url = f"http://127.0.0.1:{free_port()}"
        with client_env(url, FROGNANO_RETRIES="4"):
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.compute_score("d", "s", "{}")
        e = cm.exception
        self.assertEqual((e.status, e.code, e.attempts), (None, "CONNECTION_ERROR", 4))
        self.assertIn(url, str(e))
        self.assertEqual(len(self.sleep.delays), 3)

    def test_a_timeout_is_retried(self):
        with ScriptedServer([(200, 0.75, None, 3.0), ok(0.25)]) as srv, client_env(srv.url):
            got = fc.post("/slime/reward", {}, timeout=0.5)
        self.assertEqual(got, 0.25)
        self.assertEqual(len(srv.requests), 2)
        self.assertEqual(len(self.sleep.delays), 1)

    def test_a_2xx_that_is_not_json_is_invalid_response(self):
        with ScriptedServer([(200, b"<html>", None)]) as srv, client_env(srv.url):
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.post("/x", {})
        self.assertEqual(cm.exception.code, "INVALID_RESPONSE")
        self.assertEqual(len(srv.requests), 1)

    def test_environment_is_read_at_call_time(self):
        with ScriptedServer([ERROR_503]) as srv, client_env(srv.url):
            os.environ["FROGNANO_RETRIES"] = "2"
            with self.assertRaises(fc.FrognanoClientError):
                fc.post("/x", {})
            self.assertEqual(len(srv.requests), 2)
            os.environ["FROGNANO_RETRIES"] = "3"
            with self.assertRaises(fc.FrognanoClientError):
                fc.post("/x", {})
            self.assertEqual(len(srv.requests), 5)
            os.environ["FROGNANO_RETRIES"] = "three"
            with self.assertRaises(ValueError):
                fc.post("/x", {})

    def test_token_header_only_when_set(self):
        with ScriptedServer([ok(1)]) as srv:
            with client_env(srv.url):
                fc.post("/x", {})
            with client_env(srv.url, token="t0k"):
                fc.post("/x", {})
            with client_env(srv.url, token="t0k"):
                fc.post("/x", {}, token="")
        auth = [r[1].get("Authorization") for r in srv.requests]
        self.assertEqual(auth, [None, "Bearer t0k", None])


if __name__ == "__main__":
    unittest.main()

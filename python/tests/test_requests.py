"""What each entry point sends and how it reads the answer (a local http.server that records the requests)."""

import asyncio
import sys
import unittest
from unittest import mock

from .support import BareSample, RecordingSleep, Sample, ScriptedServer, Status, client_env, fc, ok

VERL_OK = ok({"score": 1, "raw": 1})


class Scalar:
    """A numpy / torch scalar stand-in: only .item()."""

    def __init__(self, v):
        self.v = v

    def item(self):
        return self.v


class Array:
    """A numpy array / tensor stand-in: .tolist() (and .item() that fails, as for a multi-element array)."""

    def __init__(self, xs):
        self.xs = xs

    def tolist(self):
        return list(self.xs)

    def item(self):
        raise ValueError("only one element tensors can be converted to Python scalars")


class FakeTorch:
    """Records torch.tensor(data, dtype=...) calls."""

    float32 = "float32"

    class Tensor:
        def __init__(self, data, dtype):
            self.data, self.dtype = data, dtype

    def __init__(self):
        self.calls = []

    def tensor(self, data, dtype=None):
        self.calls.append((list(data), dtype))
        return FakeTorch.Tensor(list(data), dtype)


class VerlRequestTest(unittest.TestCase):
    def test_body_and_lenient_lengths(self):
        cases = [
            ({"response_length": 4000, "finish_reason": "length"}, {"response_length": 4000, "finish_reason": "length"}),
            ({"valid_response_length": Scalar(123)}, {"response_length": 123}),
            ({"response_length": 12.0, "finish_reason": "STOP"}, {"response_length": 12, "finish_reason": "stop"}),
            ({"response_length": "4000", "finish_reason": "tool_calls"}, {}),
            ({"response_length": True, "finish_reason": None}, {}),
            ({"response_length": 12.5}, {}),
            ({"response_length": -1}, {}),
            ({"response_length": Array([1, 2])}, {}),
            (None, {}),
        ]
        with ScriptedServer([VERL_OK]) as srv, client_env(srv.url):
            for info, _ in cases:
                fc.compute_score("src", "sol", "gt", info)
            fc.compute_score(None, "sol", "gt")
        for (info, extra), (path, headers, body) in zip(cases, srv.requests):
            self.assertEqual(path, "/verl/reward")
            self.assertEqual(headers.get("Content-Type"), "application/json")
            self.assertIn("extra_info", body)
            sent = {k: v for k, v in body.items() if k != "extra_info"}
            self.assertEqual(sent, {"data_source": "src", "solution_str": "sol", "ground_truth": "gt", **extra}, f"extra_info {info!r}")
        self.assertNotIn("data_source", srv.bodies[-1], "a None data_source is left out (the service wants a string)")

    def test_numpy_like_extra_info_is_sent_as_json(self):
        with ScriptedServer([VERL_OK]) as srv, client_env(srv.url):
            fc.compute_score("src", "sol", "gt", {"index": Scalar(3), "tokens": Array([1, 2])})
        self.assertEqual(srv.bodies[0]["extra_info"], {"index": 3, "tokens": [1, 2]})

    def test_nan_and_infinities_are_sent_as_null(self):
        with ScriptedServer([VERL_OK]) as srv, client_env(srv.url):
            fc.compute_score("src", "sol", "gt", {"x": float("nan"), "y": [float("inf"), 1.5], "z": Scalar(float("-inf")), 3: (1, 2)})
        self.assertEqual(srv.bodies[0]["extra_info"], {"x": None, "y": [None, 1.5], "z": None, "3": [1, 2]})

    @unittest.skipUnless(__import__("importlib").util.find_spec("numpy"), "optional: numpy is not installed")
    def test_with_real_numpy_columns_as_verl_passes_them(self):
        import numpy as np

        infos = np.array([{"response_length": np.int64(4000), "finish_reason": "length", "score": np.float32("nan")}, {"index": np.arange(2)}], dtype=object)
        with ScriptedServer([VERL_OK]) as srv, client_env(srv.url):
            got = fc.compute_score_batch(data_sources=np.array(["a", "b"], dtype=object), solution_strs=["s0", "s1"], ground_truths=np.array(["g0", "g1"]), extra_infos=infos)
        self.assertEqual(got, [{"score": 1.0, "raw": 1.0}] * 2)
        bodies = sorted(srv.bodies, key=lambda b: b["solution_str"])
        self.assertEqual(bodies[0]["response_length"], 4000)
        self.assertEqual(bodies[0]["finish_reason"], "length")
        self.assertEqual(bodies[0]["extra_info"], {"response_length": 4000, "finish_reason": "length", "score": None})
        self.assertEqual(bodies[1]["extra_info"], {"index": [0, 1]})
        self.assertEqual([b["ground_truth"] for b in bodies], ["g0", "g1"])

    def test_a_malformed_answer_is_invalid_response(self):
        with ScriptedServer([ok({"score": "high"})]) as srv, client_env(srv.url):
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.compute_score("src", "sol", "gt")
        self.assertEqual(cm.exception.code, "INVALID_RESPONSE")

    def test_batch_lengths_must_agree(self):
        with self.assertRaises(ValueError):
            fc.compute_score_batch(["a"], ["s", "t"], ["g", "h"], None)

    def test_batch_accepts_array_like_columns_and_extra_kwargs(self):
        with ScriptedServer([VERL_OK]) as srv, client_env(srv.url, FROGNANO_PARALLEL="2"):
            got = fc.compute_score_batch(
                data_sources=("a", "b", "c"), solution_strs=["s0", "s1", "s2"], ground_truths=["g0", "g1", "g2"], extra_infos=None, some_reward_kwarg=1
            )
        self.assertEqual(got, [{"score": 1.0, "raw": 1.0}] * 3)
        self.assertEqual(sorted(b["solution_str"] for b in srv.bodies), ["s0", "s1", "s2"])


class OpenRlhfRequestTest(unittest.TestCase):
    ANSWER = ok({"rewards": [1, 0], "scores": [1, 0], "extra_logs": {"success": [1, 0], "budget_truncated": [0, 0], "assistant_tokens": [5, 7]}})

    def test_body_with_aligned_lengths_and_reasons(self):
        with ScriptedServer([self.ANSWER]) as srv, client_env(srv.url), mock.patch.dict(sys.modules, {"torch": None}):
            fc.reward_func(["pa", "pb"], ["p", "p"], ["l0", "l1"], response_lengths=Array([5, 7]), finish_reasons=["stop", "length"])
            fc.reward_func(["pa", "pb"], ["p", "p"], ["l0", "l1"], response_length=[5, 7], finish_reason=["abort", "stop"])
            fc.reward_func(["pa", "pb"], ["p", "p"], ["l0", "l1"], response_lengths=[5], finish_reasons=["stop", None])
            fc.reward_func(["pa", "pb"], None, None, response_lengths=5, stop_reasons=("length", "length"))
            fc.reward_func(["pa", "pb"], None, None, response_lengths=["x", True], finish_reasons=[None, "tool_calls"])
        bodies = srv.bodies
        self.assertEqual(bodies[0], {"query": ["pa", "pb"], "prompts": ["p", "p"], "labels": ["l0", "l1"], "response_lengths": [5, 7], "finish_reasons": ["stop", "length"]})
        self.assertEqual(bodies[1]["response_lengths"], [5, 7])
        self.assertEqual(bodies[1]["finish_reasons"], ["abort", "stop"])
        self.assertEqual(bodies[2], {"query": ["pa", "pb"], "prompts": ["p", "p"], "labels": ["l0", "l1"], "finish_reasons": ["stop", None]}, "a list of another length is left out; an unknown entry is null")
        self.assertEqual(bodies[3], {"query": ["pa", "pb"], "finish_reasons": ["length", "length"]})
        self.assertEqual(bodies[4], {"query": ["pa", "pb"]}, "no usable entry: left out")

    def test_without_torch_lists_of_float(self):
        with ScriptedServer([self.ANSWER]) as srv, client_env(srv.url), mock.patch.dict(sys.modules, {"torch": None}):
            got = fc.reward_func(["a", "b"], ["", ""], ["", ""])
        self.assertEqual(got, {"rewards": [1.0, 0.0], "scores": [1.0, 0.0], "extra_logs": {"success": [1.0, 0.0], "budget_truncated": [0.0, 0.0], "assistant_tokens": [5.0, 7.0]}})
        for xs in [got["rewards"], got["scores"], *got["extra_logs"].values()]:
            self.assertTrue(all(type(x) is float for x in xs))

    def test_with_torch_float32_tensors(self):
        torch = FakeTorch()
        with ScriptedServer([self.ANSWER]) as srv, client_env(srv.url), mock.patch.dict(sys.modules, {"torch": torch}):
            got = fc.reward_func(["a", "b"], ["", ""], ["", ""])
        self.assertIsInstance(got["rewards"], FakeTorch.Tensor)
        self.assertEqual((got["rewards"].data, got["rewards"].dtype), ([1.0, 0.0], "float32"))
        self.assertEqual((got["scores"].data, got["scores"].dtype), ([1.0, 0.0], "float32"))
        self.assertEqual({k: (v.data, v.dtype) for k, v in got["extra_logs"].items()}, {
            "success": ([1.0, 0.0], "float32"),
            "budget_truncated": ([0.0, 0.0], "float32"),
            "assistant_tokens": ([5.0, 7.0], "float32"),
        })
        self.assertEqual(len(torch.calls), 5)
        self.assertTrue(all(type(x) is float for data, _ in torch.calls for x in data))

    @unittest.skipUnless(__import__("importlib").util.find_spec("torch"), "optional: torch is not installed")
    def test_with_real_torch(self):
        import torch

        with ScriptedServer([self.ANSWER]) as srv, client_env(srv.url):
            got = fc.reward_func(["a", "b"], ["", ""], ["", ""])
        self.assertEqual(got["rewards"].dtype, torch.float32)
        self.assertEqual(got["rewards"].tolist(), [1.0, 0.0])
        self.assertEqual(torch.cat([got["scores"], got["scores"]]).tolist(), [1.0, 0.0, 1.0, 0.0])

    def test_scores_default_to_rewards_and_a_wrong_count_is_refused(self):
        with ScriptedServer([ok({"rewards": [0.5]}), ok({"rewards": [0.5, 1]})]) as srv, client_env(srv.url), mock.patch.dict(sys.modules, {"torch": None}):
            self.assertEqual(fc.reward_func(["a"], [""], [""]), {"rewards": [0.5], "scores": [0.5], "extra_logs": {}})
            with self.assertRaises(fc.FrognanoClientError) as cm:
                fc.reward_func(["a"], [""], [""])
        self.assertEqual(cm.exception.code, "INVALID_RESPONSE")


class SlimeRequestTest(unittest.TestCase):
    def bodies_for(self, samples):
        with ScriptedServer([ok(1)]) as srv, client_env(srv.url):
            got = [asyncio.run(fc.rm(None, s)) for s in samples]
        self.assertEqual(got, [1.0] * len(samples))
        self.assertTrue(all(type(g) is float for g in got))
        self.assertTrue(all(p == "/slime/reward" for p, _, _ in srv.requests))
        return srv.bodies

    def test_status_mapping(self):
        statuses = [Status.TRUNCATED, Status.COMPLETED, Status.ABORTED, Status.PENDING, Status.FAILED, "TRUNCATED", "Status.COMPLETED", "aborted", "weird", None]
        bodies = self.bodies_for([Sample(status=s) for s in statuses])
        got = [b.get("finish_reason") for b in bodies]
        self.assertEqual(got, ["length", "stop", "abort", None, None, "length", "stop", "abort", None, None])

    def test_fields(self):
        chat = [{"role": "user", "content": "hi"}]
        bodies = self.bodies_for([
            Sample(prompt=chat, response="r", label="L", metadata={"rm_type": "x"}, response_length=42),
            Sample(label="L", metadata={}, response_length=Scalar(7)),
            Sample(label="L", metadata={"outcome": {"success": True}}),
            Sample(label="L", metadata={"outcome": '{"success": false}'}),
        ])
        self.assertEqual(bodies[0], {"prompt": chat, "response": "r", "label": "L", "metadata": {"rm_type": "x"}, "response_length": 42})
        self.assertEqual(bodies[1], {"prompt": "p", "response": "r", "label": "L", "response_length": 7})
        self.assertEqual(bodies[2]["label"], '{"success": true}')
        self.assertEqual(bodies[2]["response_length"], 0, "slime's default response_length is 0")
        self.assertEqual(bodies[3]["label"], '{"success": false}')

    def test_the_models_own_tokens_count_not_the_tool_tokens(self):
        # a multi-turn sample: 10 model tokens, 5 tool-output tokens (loss mask 0), 7 model tokens
        multi = Sample(label="L", response_length=22, loss_mask=[1] * 10 + [0] * 5 + [1] * 7)
        bodies = self.bodies_for([multi, BareSample("L")])
        self.assertEqual(bodies[0]["response_length"], 17)
        self.assertEqual(bodies[1], {"prompt": "p", "response": "r", "label": "L"}, "a bare object: only what it has")

    def test_an_object_answer_is_invalid_for_rm(self):
        with ScriptedServer([ok({"reward": 1})]) as srv, client_env(srv.url), RecordingSleep().patch():
            with self.assertRaises(fc.FrognanoClientError) as cm:
                asyncio.run(fc.rm(None, Sample()))
        self.assertEqual(cm.exception.code, "INVALID_RESPONSE")


if __name__ == "__main__":
    unittest.main()

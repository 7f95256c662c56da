"""What the trainers do with the answers, reproduced from their documented behaviour (no trainer code copied).

Each test names the repository and commit whose behaviour it reproduces.
They talk to the real service (--budget 1000 --alpha 0.5).
"""

import asyncio
import importlib.util
import json
import math
import os
import sys
import unittest
import urllib.request
from unittest import mock

from .support import PLAIN_URL, REWARD_4000, Sample, Status, client_env, expected_reward, fc, needs_service, outcome

CLIENT_PATH = os.path.abspath(fc.__file__)
ROOT = os.path.dirname(os.path.dirname(CLIENT_PATH))


def http_post_json(url, body):
    """POST JSON and parse the answer as the trainers do (aiohttp / requests .json() is json.loads)."""
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def load_by_path(name, path):
    """importlib.util.spec_from_file_location + exec_module: how OpenRLHF and verl load a reward file by path."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def group_norm(rewards, n_samples_per_prompt):
    """(r - group mean) / (group std + 1e-9), std unbiased (n - 1) as torch.std's default."""
    out = []
    for g in range(0, len(rewards), n_samples_per_prompt):
        group = rewards[g : g + n_samples_per_prompt]
        mean = sum(group) / len(group)
        std = math.sqrt(sum((r - mean) ** 2 for r in group) / (len(group) - 1))
        out.extend((r - mean) / (std + 1e-9) for r in group)
    return out


def assert_all_float(test, values, what):
    for i, v in enumerate(values):
        test.assertIs(type(v), float, f"{what}[{i}] is {type(v).__name__} {v!r}")


@needs_service
class OpenRlhfReproductionTest(unittest.TestCase):
    # Reproduces OpenRLHF/OpenRLHF@89308a0b768dec168dff240ae746710fc967a49b,
    # openrlhf/trainer/ppo_utils/experience_maker.py: update_samples_with_rewards concatenates the
    # "rewards" and "scores" of every reward call (torch.cat) and, for each key of the FIRST call's
    # "extra_logs", that key of every call; compute_advantages_and_returns reshapes the rewards to
    # (-1, n_samples_per_prompt) and for group_norm takes (r - mean) / (std + 1e-9), torch's default
    # (unbiased) std. And OpenRLHF/OpenRLHF@d4ef67f5374e7c72915228c7ebb062ac311d93ce,
    # openrlhf/utils/agent.py (SingleTurnAgentExecutor): a remote RM URL ending in ".py" is loaded
    # with spec_from_file_location("reward_func", path) and its reward_func called positionally,
    # reward_func(queries, prompts, labels), one rollout per call, in a thread (asyncio.to_thread).
    GROUPS = [
        [(True, False, 10), (True, False, 500), (True, False, 900), (True, False, 1000)],  # all 1.0: std 0
        [(True, False, 4000), (False, False, 50), (True, True, 9000), (True, False, 500)],
        [(False, False, 10), (False, True, 20000), (False, False, 30), (False, False, 40)],  # all 0.0: std 0
    ]

    def setUp(self):
        env = client_env(PLAIN_URL)
        env.__enter__()
        self.addCleanup(env.__exit__, None, None, None)
        patcher = mock.patch.dict(sys.modules, {"torch": None})  # torch absent: lists of float
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_group_norm_on_rewards_from_reward_func_chunks(self):
        module = load_by_path("reward_func", CLIENT_PATH)
        rollouts = [c for group in self.GROUPS for c in group]
        infos = [module.reward_func([f"prompt {i} answer"], [f"prompt {i} "], [outcome(*c)]) for i, c in enumerate(rollouts)]
        first_keys = set(infos[0]["extra_logs"])
        for info in infos:
            self.assertEqual(set(info), {"rewards", "scores", "extra_logs"})
            self.assertEqual(set(info["extra_logs"]), first_keys, "every call has the extra_logs keys of the first (torch.cat by key)")
        rewards = [r for info in infos for r in info["rewards"]]
        scores = [s for info in infos for s in info["scores"]]
        assert_all_float(self, rewards, "rewards")
        assert_all_float(self, scores, "scores")
        for key in first_keys:
            assert_all_float(self, [v for info in infos for v in info["extra_logs"][key]], f"extra_logs.{key}")

        for r, c in zip(rewards, rollouts):
            self.assertAlmostEqual(r, expected_reward(*c), places=12)
        advantages = group_norm(rewards, 4)
        assert_all_float(self, advantages, "advantages")
        self.assertEqual(advantages[0:4], [0.0] * 4, "all-success group: no signal, no NaN")
        self.assertEqual(advantages[8:12], [0.0] * 4, "all-failure group: no signal, no NaN")
        want = group_norm([expected_reward(*c) for c in self.GROUPS[1]], 4)
        for a, w in zip(advantages[4:8], want):
            self.assertAlmostEqual(a, w, places=9)
        self.assertAlmostEqual(sum(advantages[4:8]), 0.0, places=9)
        self.assertGreater(advantages[7], advantages[4])  # 500 tokens beats 4000 tokens
        self.assertGreater(advantages[4], advantages[5])  # a slow success beats a failure

    def test_one_call_for_the_whole_batch_gives_the_same_rewards(self):
        rollouts = [c for group in self.GROUPS for c in group]
        info = fc.reward_func([f"q{i}" for i in range(len(rollouts))], [""] * len(rollouts), [outcome(*c) for c in rollouts])
        self.assertEqual(len(info["rewards"]), 12)
        assert_all_float(self, info["rewards"] + info["scores"], "rewards+scores")
        self.assertEqual(info["scores"], [1.0] * 4 + [1.0, 0.0, 1.0, 1.0] + [0.0] * 4)

    def test_the_http_answer_has_float_numbers(self):
        # OpenRLHF's HTTP mode (--reward.remote_url http://.../openrlhf/reward) posts
        # {"query", "prompts", "labels"} and reads the JSON answer's "rewards", "scores", "extra_logs".
        labels = [outcome(True, False, 10), outcome(False, False, 10), outcome(True, False, 4000)]
        answer = http_post_json(PLAIN_URL + "/openrlhf/reward", {"query": ["p a", "p b", "p c"], "prompts": ["p "] * 3, "labels": labels})
        assert_all_float(self, answer["rewards"], "rewards")
        assert_all_float(self, answer["scores"], "scores")
        self.assertEqual(answer["rewards"][:2], [1.0, 0.0])
        self.assertAlmostEqual(answer["rewards"][2], REWARD_4000, places=12)
        for key in ("success", "budget_truncated", "assistant_tokens"):
            assert_all_float(self, answer["extra_logs"][key], f"extra_logs.{key}")


@needs_service
class SlimeReproductionTest(unittest.TestCase):
    # Reproduces THUDM/slime@0b420f1ef4161f02d2a00d47c1318eec955a4e2e, slime/rollout/rm_hub/__init__.py:
    # remote_rm POSTs {"prompt": sample.prompt, "response": sample.response, "label": sample.label}
    # as JSON to args.rm_url and returns the parsed JSON answer as the reward; batched_async_rm with
    # --custom-rm-path awaits custom_rm(args, samples) with the LIST of samples.
    # And THUDM/slime@7985bf23a5a043f51bc1411ef2bb115ee6a2e174, slime/utils/types.py:
    # Sample.get_reward_value(args) is reward if not args.reward_key else reward[args.reward_key];
    # Sample.Status values are the strings "pending", "completed", "truncated", "aborted", "failed".

    class Args:
        def __init__(self, rm_url, reward_key=None):
            self.rm_url = rm_url
            self.reward_key = reward_key
            self.custom_rm_path = None

    @staticmethod
    def remote_rm(args, sample):
        return http_post_json(args.rm_url, {"prompt": sample.prompt, "response": sample.response, "label": sample.label})

    @staticmethod
    def get_reward_value(args, sample):
        return sample.reward if not args.reward_key else sample.reward[args.reward_key]

    def test_plain_number_form(self):
        args = self.Args(PLAIN_URL + "/slime/reward")
        cases = [(True, False, 10), (False, False, 10), (True, True, 10), (True, False, 4000)]
        for c in cases:
            sample = Sample(label=outcome(*c))
            sample.reward = self.remote_rm(args, sample)
            value = self.get_reward_value(args, sample)
            self.assertIs(type(value), float, f"{c}: {value!r}")
            self.assertAlmostEqual(value, expected_reward(*c), places=12)

    def test_object_form_with_reward_key(self):
        args = self.Args(PLAIN_URL + "/slime/reward?format=object", reward_key="reward")
        for c in [(True, False, 10), (False, False, 10), (True, False, 4000)]:
            sample = Sample(label=outcome(*c))
            sample.reward = self.remote_rm(args, sample)
            value = self.get_reward_value(args, sample)
            self.assertIs(type(value), float, f"{c}: {value!r}")
            self.assertAlmostEqual(value, expected_reward(*c), places=12)
            self.assertIs(type(sample.reward["raw"]), float)
            self.assertEqual(sample.reward["raw"], 1.0 if c[0] else 0.0)

    def test_custom_rm_path_single_and_batched(self):
        # load_function("frognano_client.rm") imports the module from PYTHONPATH and takes the attribute.
        with client_env(PLAIN_URL):
            rm = getattr(__import__("frognano_client"), "rm")
            samples = [Sample(label=outcome(True), response_length=4000, status=Status.COMPLETED), Sample(label=outcome(True), response_length=10, status=Status.TRUNCATED)]
            one = asyncio.run(rm(self.Args(None), samples[0]))
            many = asyncio.run(rm(self.Args(None), samples))
        self.assertAlmostEqual(one, REWARD_4000, places=12)
        self.assertEqual(len(many), 2)
        self.assertAlmostEqual(many[0], REWARD_4000, places=12)
        self.assertEqual(many[1], 0.5)
        assert_all_float(self, [one, *many], "rewards")


@needs_service
class VerlReproductionTest(unittest.TestCase):
    # Reproduces volcengine/verl@10a6180e1d0078b2d2454369db83482d4de8ac60,
    # verl/workers/reward_manager/naive.py: extra_info = non_tensor_batch.get("extra_info", {}) with
    # extra_info["num_turns"] set; result = compute_score(data_source=..., solution_str=...,
    # ground_truth=..., extra_info=...) (keyword arguments); reward = result["score"] if it is a dict
    # (each of its keys appended to reward_extra_info) else result; written into a float32 tensor.
    # And volcengine/verl@abddec4c2d33d3893e84dcd9970f2d45b8637a65, verl/workers/reward_manager/batch.py:
    # compute_score(data_sources=..., solution_strs=..., ground_truths=..., extra_infos=..., **reward_kwargs)
    # returns one result per item, read with the same dict-or-number rule.
    # And volcengine/verl@8af95bc4d7d8c1112dccd9cc682873d730972d8f, verl/trainer/ppo/reward.py:
    # get_custom_reward_fn imports custom_reward_function.path as the module "custom_module" and
    # takes the attribute custom_reward_function.name.

    def setUp(self):
        env = client_env(PLAIN_URL)
        env.__enter__()
        self.addCleanup(env.__exit__, None, None, None)
        self.module = load_by_path("custom_module", CLIENT_PATH)

    @staticmethod
    def reward_of(result):
        return result["score"] if isinstance(result, dict) else float(result)

    def test_naive_reward_manager(self):
        rows = [(True, False, 500), (False, False, 500), (True, True, 9000), (True, False, 4000)]
        reward_extra_info = {}
        rewards = []
        for i, c in enumerate(rows):
            extra_info = {"index": i, "split": "train"}
            extra_info["num_turns"] = None
            result = self.module.compute_score(data_source="swe-synth", solution_str="...patch...", ground_truth=outcome(*c), extra_info=extra_info)
            self.assertIsInstance(result, dict)
            for key, value in result.items():
                reward_extra_info.setdefault(key, []).append(value)
            rewards.append(self.reward_of(result))
        assert_all_float(self, rewards, "rewards")
        for r, c in zip(rewards, rows):
            self.assertAlmostEqual(r, expected_reward(*c), places=12)
        self.assertEqual(set(reward_extra_info), {"score", "raw"})
        self.assertEqual(reward_extra_info["raw"], [1.0, 0.0, 1.0, 1.0])
        self.assertTrue(all(len(v) == len(rows) for v in reward_extra_info.values()), "aligned reward_extra_info")

    def test_batch_reward_manager(self):
        rows = [(True, False, 500), (False, False, 500), (True, False, 4000)]
        results = self.module.compute_score_batch(
            data_sources=["swe"] * 3,
            solution_strs=["a", "b", "c"],
            ground_truths=[outcome(*c) for c in rows],
            extra_infos=[{"index": i} for i in range(3)],
        )
        self.assertEqual(len(results), 3)
        rewards = [self.reward_of(r) for r in results]
        assert_all_float(self, rewards, "rewards")
        for r, c in zip(rewards, rows):
            self.assertAlmostEqual(r, expected_reward(*c), places=12)

    def test_the_http_answer_has_float_numbers(self):
        answer = http_post_json(PLAIN_URL + "/verl/reward", {"data_source": "swe", "solution_str": "x", "ground_truth": outcome(True, False, 10), "extra_info": None})
        self.assertEqual(answer, {"score": 1.0, "raw": 1.0})
        assert_all_float(self, answer.values(), "answer")


class ExampleShimsTest(unittest.TestCase):
    """examples/interop's verl and slime files are shims over this client (one definition per fact)."""

    def test_verl_shim_loads_by_path_and_is_the_client(self):
        module = load_by_path("verl_shim", os.path.join(ROOT, "examples", "interop", "verl_frognano_reward.py"))
        self.assertIs(module.compute_score.__code__, fc.compute_score.__code__)
        self.assertIs(module.compute_score_batch.__code__, fc.compute_score_batch.__code__)

    def test_slime_shim_imports_and_is_the_client(self):
        with mock.patch.object(sys, "path", [os.path.join(ROOT, "examples", "interop"), *sys.path]):
            sys.modules.pop("slime_frognano_rm", None)
            import slime_frognano_rm as shim  # noqa: PLC0415

        self.assertIs(shim.frognano_rm.__code__, fc.rm.__code__)
        self.assertTrue(callable(shim.frognano_raw_outcome_filter))


if __name__ == "__main__":
    unittest.main()

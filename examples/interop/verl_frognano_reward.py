"""verl custom reward function that asks a running `frognano serve` for the reward.

Written against verl 0.5 / 0.6 (`custom_reward_function.path` / `.name`, called by
`NaiveRewardManager` as `compute_score(data_source=..., solution_str=...,
ground_truth=..., extra_info=...)`; a dict result must hold "score", its other
keys go to `reward_extra_info`).

    python3 -m verl.trainer.main_ppo \
        custom_reward_function.path=examples/interop/verl_frognano_reward.py \
        custom_reward_function.name=compute_score ...

The service URL comes from FROGNANO_URL (default http://127.0.0.1:8000).
Standard library only: no extra dependency in the trainer's environment.
"""

import json
import os
import time
import urllib.error
import urllib.request

FROGNANO_URL = os.environ.get("FROGNANO_URL", "http://127.0.0.1:8000").rstrip("/")
TIMEOUT_S = float(os.environ.get("FROGNANO_TIMEOUT_S", "60"))
RETRIES = int(os.environ.get("FROGNANO_RETRIES", "5"))


def _plain(value):
    """JSON fallback for what verl puts in extra_info (numpy scalars and arrays)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    return str(value)


def _post(path, body):
    data = json.dumps(body, default=_plain).encode("utf-8")
    last = None
    for attempt in range(RETRIES):
        req = urllib.request.Request(
            FROGNANO_URL + path, data=data, headers={"content-type": "application/json"}, method="POST"
        )
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", "replace")
            if e.code <= 500:
                # 4xx: the request is wrong; 500: the reward module failed. Retrying will not help.
                raise RuntimeError(f"frognano {path} answered {e.code}: {detail}") from None
            last = f"{e.code}: {detail}"  # 503 overloaded / shutting down, 504 timeout: retry
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            last = repr(e)
        time.sleep(min(2**attempt, 10))
    raise RuntimeError(f"frognano {path} failed after {RETRIES} attempts: {last}")


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's reward-function signature; returns {"score": shaped reward, "raw": raw outcome}."""
    return _post(
        "/verl/reward",
        {
            "data_source": data_source,
            "solution_str": solution_str,
            "ground_truth": ground_truth,
            "extra_info": extra_info,
        },
    )


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos, **kwargs):
    """verl's BatchRewardManager signature (reward_model.reward_manager=batch): one request
    per rollout, FROGNANO_PARALLEL (default 32) at a time; returns the dicts in order."""
    from concurrent.futures import ThreadPoolExecutor

    extra_infos = extra_infos if extra_infos is not None else [None] * len(solution_strs)
    with ThreadPoolExecutor(max_workers=int(os.environ.get("FROGNANO_PARALLEL", "32"))) as pool:
        return list(pool.map(compute_score, data_sources, solution_strs, ground_truths, extra_infos))

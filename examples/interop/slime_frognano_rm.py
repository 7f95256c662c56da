"""slime custom reward model that forwards each sample to `frognano serve`.

Written against slime's rm_hub (slime/rollout/rm_hub/__init__.py: `async_rm` calls
`custom_rm(args, sample)`, `batched_async_rm` calls `custom_rm(args, samples)`;
`--custom-rm-path` is a dotted "module.function" path loaded by slime.utils.misc.load_function).

Plain `--rm-type remote_rm --rm-url http://HOST:8000/slime/reward` needs no code:
slime POSTs {"prompt", "response", "label"} itself. Use this file instead when your
rollout (a custom generate function) has already run the tests and stored the
verifier's outcome in `sample.metadata["outcome"]`:

    PYTHONPATH=examples/interop:$PYTHONPATH ... --custom-rm-path slime_frognano_rm.frognano_rm

It sends that outcome as the label, so frognano shapes it (0 / 0.5 / the
log-length reward). Standard library only. FROGNANO_URL defaults to
http://127.0.0.1:8000.
"""

import asyncio
import json
import os
import urllib.request

FROGNANO_URL = os.environ.get("FROGNANO_URL", "http://127.0.0.1:8000").rstrip("/")
TIMEOUT_S = float(os.environ.get("FROGNANO_TIMEOUT_S", "60"))


def _post(body):
    req = urllib.request.Request(
        FROGNANO_URL + "/slime/reward",
        data=json.dumps(body).encode("utf-8"),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
        return json.loads(resp.read())


def _body(sample):
    metadata = sample.metadata if isinstance(getattr(sample, "metadata", None), dict) else {}
    outcome = metadata.get("outcome")
    label = json.dumps(outcome) if outcome is not None else sample.label
    return {"prompt": sample.prompt, "response": sample.response, "label": label}


async def frognano_rm(args, sample, **kwargs):
    """One sample -> its reward; a list of samples -> the list of rewards."""
    if isinstance(sample, list):
        return await asyncio.gather(*(frognano_rm(args, s, **kwargs) for s in sample))
    return await asyncio.to_thread(_post, _body(sample))


def frognano_raw_outcome_filter(args, samples, **kwargs):
    """Dynamic-sampling filter on RAW outcomes, as FrogNano filters (not on shaped rewards).

    Use with `/slime/reward?format=object` and `--reward-key reward`, so that each
    sample.reward is the service's object {"reward", "raw", ...}:

        --dynamic-sampling-filter-path slime_frognano_rm.frognano_raw_outcome_filter

    A group is kept when its raw outcomes are not all equal (slime's own
    check_reward_nonzero_std looks at the shaped reward, which a length penalty
    can make differ inside an all-success group).
    """
    from slime.rollout.filter_hub.base_types import DynamicFilterOutput

    raws = [(s[0] if isinstance(s, list) else s).reward["raw"] for s in samples]
    keep = len(set(raws)) > 1
    return DynamicFilterOutput(keep=keep, reason=None if keep else f"raw_all_{raws[0]}")

"""slime hooks for `frognano serve`: the custom RM (a shim over python/frognano_client.py) and a raw-outcome filter.

Plain `--rm-type remote_rm --rm-url http://HOST:8000/slime/reward` needs no code:
slime POSTs {"prompt", "response", "label"} itself. The custom RM is
python/frognano_client.py's `rm` (one definition): it also sends the sample's
response_length and status (as finish_reason) and, when a custom generate
function stored the verifier's verdict in `sample.metadata["outcome"]`, that
outcome as the label, so frognano shapes it (0 / 0.5 / the log-length reward):

    PYTHONPATH=/path/to/frognano/python:$PYTHONPATH ... --custom-rm-path frognano_client.rm
    PYTHONPATH=/path/to/frognano/examples/interop:$PYTHONPATH ... --custom-rm-path slime_frognano_rm.frognano_rm

It handles one sample and a list (--group-rm). Standard library only;
FROGNANO_URL defaults to http://127.0.0.1:8000 (see python/frognano_client.py).
"""

import os
import sys

_CLIENT_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
if _CLIENT_DIR not in sys.path:
    sys.path.insert(0, _CLIENT_DIR)

from frognano_client import batched_rm  # noqa: E402
from frognano_client import rm as frognano_rm  # noqa: E402

__all__ = ["batched_rm", "frognano_rm", "frognano_raw_outcome_filter"]


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

"""verl custom reward function for `frognano serve`: a shim over python/frognano_client.py.

The client is the one definition (request body, retries, errors, float answers);
this file keeps the path older configurations use. Either path works:

    custom_reward_function.path=/path/to/frognano/python/frognano_client.py
    custom_reward_function.path=/path/to/frognano/examples/interop/verl_frognano_reward.py
    custom_reward_function.name=compute_score     (reward_manager=batch: compute_score_batch)

See python/frognano_client.py for the environment (FROGNANO_URL, FROGNANO_TOKEN, ...).
"""

import os
import sys

_CLIENT_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
if _CLIENT_DIR not in sys.path:
    sys.path.insert(0, _CLIENT_DIR)

from frognano_client import FrognanoClientError, compute_score, compute_score_batch  # noqa: E402

__all__ = ["FrognanoClientError", "compute_score", "compute_score_batch"]

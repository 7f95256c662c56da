"""frognano_client: the Python side of `frognano serve`, for verl, OpenRLHF and slime.

One file, Python 3.9+ standard library only (no torch, no requests, no
aiohttp needed), so it can be copied into any trainer's environment. Each trainer's
reward hook sends the rollout to the frognano reward service over HTTP and
returns the shaped reward in the form that trainer expects:

    verl      compute_score / compute_score_batch  -> POST /verl/reward
    OpenRLHF  reward_func                          -> POST /openrlhf/reward
    slime     rm / batched_rm                      -> POST /slime/reward

Usage (the service runs as `frognano serve --port 8000 --budget 6000 --alpha 0.25`):

    verl:      custom_reward_function.path=/path/to/frognano/python/frognano_client.py
               custom_reward_function.name=compute_score
               (reward_model.reward_manager=batch: custom_reward_function.name=compute_score_batch)
    OpenRLHF:  --remote_rm_url /path/to/frognano/python/frognano_client.py
               (0.10's dotted CLI: --reward.remote_url /path/...; a path ending in .py is
               OpenRLHF's local `reward_func(queries, prompts, labels)` mode)
    slime:     PYTHONPATH=/path/to/frognano/python:$PYTHONPATH ...
               --custom-rm-path frognano_client.rm

Environment (read at every call, not at import, so it can change at run time;
on Ray, pass it to the workers through the job's runtime_env env_vars):

    FROGNANO_URL            the service, default http://127.0.0.1:8000
    FROGNANO_TOKEN          when set, sent as `Authorization: Bearer <token>`
                            (the service's --token / FROGNANO_TOKEN)
    FROGNANO_RETRIES        attempts per request, default 6
    FROGNANO_TIMEOUT        seconds per attempt, default 60 (FROGNANO_TIMEOUT_S also read)
    FROGNANO_BACKOFF        first retry delay in seconds, default 0.5 (doubles per attempt)
    FROGNANO_BACKOFF_MAX    largest retry delay in seconds, default 8
    FROGNANO_PARALLEL       requests at once in compute_score_batch, default 16

Retries: connection errors, timeouts, 5xx (and 408 / 429) are retried with
exponential backoff plus jitter, honouring `Retry-After`. A 4xx is the
request's fault: it raises FrognanoClientError at once, whose message carries
frognano's error code, message and field (`INVALID_TYPE: labels[1] must be ...`),
so the reason reaches the trainer's log instead of being retried away. After
the last attempt a 5xx or a connection failure raises FrognanoClientError too.
Proxies from http_proxy / https_proxy are not used: the service is on the
training cluster's network.

Every reward returned is a Python float (OpenRLHF: a float32 tensor when torch
is importable, as OpenRLHF concatenates them with torch.cat).

Tests (need two running services, see python/tests/support.py; the vitest
runner `npx vitest run test/python` starts them and runs this same command):

    FROGNANO_URL=http://127.0.0.1:8000 FROGNANO_AUTH_URL=http://127.0.0.1:8001 \\
    FROGNANO_AUTH_TOKEN=secret-token python3 -m unittest discover -s python/tests -t python -v
"""

import asyncio
import http.client
import json
import os
import random
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor

__all__ = [
    "FrognanoClientError",
    "post",
    "compute_score",
    "compute_score_batch",
    "reward_func",
    "rm",
    "batched_rm",
]

DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_RETRIES = 6
DEFAULT_TIMEOUT = 60.0
DEFAULT_BACKOFF = 0.5
DEFAULT_BACKOFF_MAX = 8.0
DEFAULT_PARALLEL = 16
# The longest Retry-After honoured (seconds); a larger value is cut to this.
MAX_RETRY_AFTER = 60.0
# Statuses retried besides 5xx: request timeout, too many requests (a proxy in front may send them).
RETRYABLE_4XX = frozenset({408, 429})
# slime's Sample.Status and vLLM / SGLang finish reasons -> the finish_reason frognano reads.
_FINISH_REASONS = {
    "length": "length",
    "stop": "stop",
    "abort": "abort",
    "truncated": "length",
    "completed": "stop",
    "aborted": "abort",
}

# Indirections the tests replace (record the delays instead of sleeping).
_sleep = time.sleep
_random = random.random


class FrognanoClientError(RuntimeError):
    """The service refused a request (4xx), kept failing (5xx), or could not be reached.

    Attributes: status (the HTTP status, None when no answer came), code
    (frognano's error code: INVALID_TYPE, UNAUTHORIZED, ...; CONNECTION_ERROR or
    INVALID_RESPONSE from the client itself), message, field (the request field
    at fault, e.g. "labels[1]", or None), path, attempts. str() holds them all,
    so a trainer that logs the exception logs the reason. Picklable (Ray ships
    exceptions between processes).
    """

    def __init__(self, status, code, message, field=None, path=None, attempts=1):
        super().__init__(status, code, message, field, path, attempts)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.path = path
        self.attempts = attempts

    def __str__(self):
        where = f"frognano {self.path}" if self.path else "frognano"
        how = f"answered {self.status}" if self.status is not None else "failed"
        text = f"{where} {how} {self.code}: {self.message}"
        if self.field:
            text += f" (field {self.field})"
        if self.attempts and self.attempts > 1:
            text += f" after {self.attempts} attempts"
        return text


# --------------------------------------------------------------------------- configuration


def _env_number(names, default, kind=float):
    for name in names:
        value = os.environ.get(name)
        if value is not None and value.strip() != "":
            try:
                return kind(value)
            except ValueError:
                raise ValueError(f"{name}={value!r} is not a valid {kind.__name__}") from None
    return default


def _base_url(url):
    return (url if url is not None else os.environ.get("FROGNANO_URL") or DEFAULT_URL).rstrip("/")


def _token(token):
    if token is None:
        token = os.environ.get("FROGNANO_TOKEN")
    return token or None


# --------------------------------------------------------------------------- HTTP


def _plain(value):
    """JSON fallback for what trainers put in their fields (numpy scalars and arrays, tensors, enums)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item"):
        return value.item()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _jsonable(value, depth=0):
    """`value` as JSON data: numpy / torch values as plain ones, NaN and infinities as null
    (pandas writes NaN for a missing parquet field; JSON has no NaN), other objects as str."""
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if depth > 64:
        return str(value)
    if isinstance(value, Mapping):
        return {(k if isinstance(k, (str, int, float, bool)) or k is None else str(k)): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v, depth + 1) for v in value]
    converted = _plain(value)
    if isinstance(converted, str):
        return converted
    return _jsonable(converted, depth + 1)


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _retry_after(headers):
    value = headers.get("Retry-After") if headers is not None else None
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None  # the HTTP-date form: fall back to the backoff
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def _delay(attempt, backoff, backoff_max, retry_after):
    """Delay before attempt `attempt + 1`: backoff * 2^(attempt-1), capped, plus jitter in [0, backoff)."""
    delay = min(backoff_max, backoff * (2 ** (attempt - 1))) + backoff * _random()
    if retry_after is not None:
        delay = max(delay, retry_after)
    return delay


def _error_from_http(err, path, attempt):
    try:
        raw = err.read()
    except Exception:  # noqa: BLE001 - a body that cannot be read still leaves the status
        raw = b""
    text = raw.decode("utf-8", "replace")
    code, message, field = f"HTTP_{err.code}", (text.strip()[:500] or str(err.reason)), None
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, Mapping) and isinstance(doc.get("error"), Mapping):
        e = doc["error"]
        code = str(e.get("code") or code)
        message = str(e.get("message") or message)
        field = e.get("field")
    return FrognanoClientError(err.code, code, message, field, path, attempt)


def post(path, body, *, url=None, token=None, retries=None, timeout=None, backoff=None, backoff_max=None):
    """POST `body` as JSON to `path` of the service and return the parsed JSON answer.

    url: the service (default env FROGNANO_URL, else http://127.0.0.1:8000);
    token: the bearer token (default env FROGNANO_TOKEN; "" sends none);
    retries: attempts in all (env FROGNANO_RETRIES, 6); timeout: seconds per
    attempt (FROGNANO_TIMEOUT, 60); backoff / backoff_max: first and largest
    retry delay (FROGNANO_BACKOFF 0.5, FROGNANO_BACKOFF_MAX 8).

    Connection errors, timeouts, 5xx, 408 and 429 are retried (exponential
    backoff plus jitter, at least Retry-After when the answer has one). Raises
    FrognanoClientError at once on any other 4xx, and after the last attempt.
    """
    base = _base_url(url)
    bearer = _token(token)
    attempts = max(1, int(retries if retries is not None else _env_number(["FROGNANO_RETRIES"], DEFAULT_RETRIES, int)))
    timeout_s = float(timeout if timeout is not None else _env_number(["FROGNANO_TIMEOUT", "FROGNANO_TIMEOUT_S"], DEFAULT_TIMEOUT))
    first = float(backoff if backoff is not None else _env_number(["FROGNANO_BACKOFF"], DEFAULT_BACKOFF))
    cap = float(backoff_max if backoff_max is not None else _env_number(["FROGNANO_BACKOFF_MAX"], DEFAULT_BACKOFF_MAX))

    target = base + (path if path.startswith("/") else "/" + path)
    data = json.dumps(_jsonable(body), allow_nan=False).encode("utf-8")
    headers = {"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "frognano-client-python"}
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"

    last = None
    for attempt in range(1, attempts + 1):
        retry_after = None
        request = urllib.request.Request(target, data=data, headers=headers, method="POST")
        try:
            with _OPENER.open(request, timeout=timeout_s) as response:
                raw = response.read()
                status = response.status
        except urllib.error.HTTPError as err:
            error = _error_from_http(err, path, attempt)
            if err.code < 500 and err.code not in RETRYABLE_4XX:
                raise error from None
            last = error
            retry_after = _retry_after(err.headers)
        except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
            reason = getattr(err, "reason", None) or err
            last = FrognanoClientError(None, "CONNECTION_ERROR", f"{target}: {reason!r}", None, path, attempt)
        else:
            try:
                return json.loads(raw.decode("utf-8"))
            except ValueError:
                snippet = raw[:200].decode("utf-8", "replace")
                raise FrognanoClientError(status, "INVALID_RESPONSE", f"the answer is not JSON: {snippet!r}", None, path, attempt) from None
        if attempt < attempts:
            _sleep(_delay(attempt, first, cap, retry_after))
    last.attempts = attempts
    last.args = (last.status, last.code, last.message, last.field, last.path, attempts)
    raise last


# --------------------------------------------------------------------------- value helpers


def _int_like(value):
    """A non-negative int from an int, an integral float or a numpy / torch scalar; None for anything else."""
    if value is None or isinstance(value, bool):
        return None
    if not isinstance(value, (int, float)) and hasattr(value, "item"):
        try:
            value = value.item()
        except Exception:  # noqa: BLE001 - not a scalar: ignored
            return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    return None


def _finish_reason(value):
    """"length" / "stop" / "abort" from a finish reason or a slime status (enum or string); None otherwise."""
    if value is None:
        return None
    candidates = []
    if isinstance(value, str):
        candidates.append(value)
    for attr in ("value", "name"):
        v = getattr(value, attr, None)
        if isinstance(v, str):
            candidates.append(v)
    for c in candidates:
        key = c.strip().lower()
        if key.startswith("status."):
            key = key[len("status.") :]
        if key in _FINISH_REASONS:
            return _FINISH_REASONS[key]
    return None


def _number(value, what, path):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FrognanoClientError(200, "INVALID_RESPONSE", f"{what} is not a number: {value!r}", None, path)
    return float(value)


def _numbers(values, what, path, n=None):
    if not isinstance(values, list):
        raise FrognanoClientError(200, "INVALID_RESPONSE", f"{what} is not a list: {values!r}", None, path)
    if n is not None and len(values) != n:
        raise FrognanoClientError(200, "INVALID_RESPONSE", f"{what} has {len(values)} entries for {n} queries", None, path)
    return [float(v) if isinstance(v, bool) else _number(v, f"{what}[{i}]", path) for i, v in enumerate(values)]


def _as_list(value):
    if value is None:
        return None
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return list(value)
    return None


def _aligned(kwargs, keys, n, convert):
    """The first of `keys` given as a list of n entries, converted (None, sent as null, where unusable).

    None (the field is left out) when no key holds a list, when its length is
    not n, or when no entry is usable.
    """
    for key in keys:
        values = _as_list(kwargs.get(key))
        if values is None:
            continue
        converted = [convert(v) for v in values]
        if len(converted) == n and any(c is not None for c in converted):
            return converted
        return None
    return None


def _torch():
    try:
        import torch  # noqa: PLC0415 - optional, and looked up at call time
    except ImportError:
        return None
    return torch


# --------------------------------------------------------------------------- verl


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl custom reward function: POST /verl/reward, return {"score": float, "raw": float}.

    verl's reward managers call it with keyword arguments
    (data_source=, solution_str=, ground_truth=, extra_info=); "score" is the
    shaped reward verl trains on, "raw" the raw outcome (verl logs every key of
    the dict in reward_extra_info). When extra_info holds `response_length` (or
    `valid_response_length`, an int) or `finish_reason` ("length" = truncated),
    they are sent so the service can fill an outcome label that lacks
    assistantTokens / truncated. Other keyword arguments (reward_kwargs) are ignored.
    """
    body = {"solution_str": solution_str, "ground_truth": ground_truth, "extra_info": extra_info}
    if data_source is not None:
        body["data_source"] = data_source
    if isinstance(extra_info, Mapping):
        n = _int_like(extra_info.get("response_length"))
        if n is None:
            n = _int_like(extra_info.get("valid_response_length"))
        if n is not None:
            body["response_length"] = n
        reason = _finish_reason(extra_info.get("finish_reason"))
        if reason is not None:
            body["finish_reason"] = reason
    path = "/verl/reward"
    answer = post(path, body)
    if not isinstance(answer, Mapping):
        raise FrognanoClientError(200, "INVALID_RESPONSE", f"expected {{score, raw}}, got {answer!r}", None, path)
    return {"score": _number(answer.get("score"), "score", path), "raw": _number(answer.get("raw"), "raw", path)}


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, **kwargs):
    """verl BatchRewardManager function (reward_model.reward_manager=batch): a list of compute_score dicts.

    Called with keyword arguments data_sources=, solution_strs=, ground_truths=,
    extra_infos= (lists or numpy arrays of equal length). Sends one request per
    rollout, FROGNANO_PARALLEL (16) at a time, and returns the results in order;
    the first failure raises.
    """
    solutions = list(solution_strs)
    n = len(solutions)
    sources = list(data_sources) if data_sources is not None else [None] * n
    truths = list(ground_truths) if ground_truths is not None else [None] * n
    infos = list(extra_infos) if extra_infos is not None else [None] * n
    if not len(sources) == len(truths) == len(infos) == n:
        raise ValueError(
            f"compute_score_batch: lengths differ (data_sources {len(sources)}, solution_strs {n}, "
            f"ground_truths {len(truths)}, extra_infos {len(infos)})"
        )
    if n == 0:
        return []
    workers = max(1, min(n, _env_number(["FROGNANO_PARALLEL"], DEFAULT_PARALLEL, int)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda i: compute_score(sources[i], solutions[i], truths[i], infos[i]), range(n)))


# --------------------------------------------------------------------------- OpenRLHF


def reward_func(queries, prompts, labels, **kwargs):
    """OpenRLHF custom reward function (`--remote_rm_url path/frognano_client.py`): POST /openrlhf/reward.

    queries are prompt + response, prompts and labels aligned with them
    (without a --reward-module on the service each label is the outcome JSON).
    Optional keyword lists aligned with queries: response_lengths (or
    response_length) of ints, finish_reasons (or finish_reason, stop_reasons);
    an entry that is not an int / a known reason is sent as null (unknown), a
    list of another length is left out. Returns {"rewards", "scores",
    "extra_logs": {name: values}}, each a float32 torch tensor when torch is
    importable (OpenRLHF concatenates them with torch.cat), else a list of
    floats. An empty batch returns empty ones with the same keys.
    """
    query = list(queries)
    n = len(query)
    body = {"query": query}
    prompt_list = _as_list(prompts)
    if prompt_list is not None:
        body["prompts"] = prompt_list
    label_list = _as_list(labels)
    if label_list is not None:
        body["labels"] = label_list
    lengths = _aligned(kwargs, ("response_lengths", "response_length"), n, _int_like)
    if lengths is not None:
        body["response_lengths"] = lengths
    reasons = _aligned(kwargs, ("finish_reasons", "finish_reason", "stop_reasons"), n, _finish_reason)
    if reasons is not None:
        body["finish_reasons"] = reasons
    path = "/openrlhf/reward"
    answer = post(path, body)
    if not isinstance(answer, Mapping):
        raise FrognanoClientError(200, "INVALID_RESPONSE", f"expected {{rewards, scores, extra_logs}}, got {answer!r}", None, path)
    rewards = _numbers(answer.get("rewards"), "rewards", path, n)
    scores = _numbers(answer["scores"], "scores", path, n) if "scores" in answer else list(rewards)
    logs = answer.get("extra_logs") or {}
    if not isinstance(logs, Mapping):
        raise FrognanoClientError(200, "INVALID_RESPONSE", f"extra_logs is not an object: {logs!r}", None, path)
    extra_logs = {str(k): _numbers(v, f"extra_logs.{k}", path, n) for k, v in logs.items()}
    torch = _torch()
    if torch is None:
        return {"rewards": rewards, "scores": scores, "extra_logs": extra_logs}
    as_tensor = lambda xs: torch.tensor(xs, dtype=torch.float32)  # noqa: E731
    return {
        "rewards": as_tensor(rewards),
        "scores": as_tensor(scores),
        "extra_logs": {k: as_tensor(v) for k, v in extra_logs.items()},
    }


# --------------------------------------------------------------------------- slime


def _slime_body(sample):
    metadata = getattr(sample, "metadata", None)
    label = getattr(sample, "label", None)
    if isinstance(metadata, Mapping) and metadata.get("outcome") is not None:
        outcome = metadata["outcome"]
        label = outcome if isinstance(outcome, str) else json.dumps(outcome, default=_plain)
    body = {"prompt": getattr(sample, "prompt", None), "response": getattr(sample, "response", None), "label": label}
    if metadata:
        body["metadata"] = metadata
    # effective_response_length (slime: sum(loss_mask), else response_length) counts the model's own
    # tokens; response_length also counts the tool / environment tokens of a multi-turn sample.
    n = _int_like(getattr(sample, "effective_response_length", None))
    if n is None:
        n = _int_like(getattr(sample, "response_length", None))
    if n is not None:
        body["response_length"] = n
    reason = _finish_reason(getattr(sample, "status", None))
    if reason is not None:
        body["finish_reason"] = reason
    return body


async def rm(args, sample, **kwargs):
    """slime custom reward model (`--custom-rm-path frognano_client.rm`): POST /slime/reward, return a float.

    Sends sample.prompt, .response, .label, .metadata (when non-empty), the
    model's token count as response_length (.effective_response_length: the
    loss-mask sum, which leaves out a multi-turn sample's tool tokens; else
    .response_length) and .status as finish_reason (TRUNCATED -> "length",
    COMPLETED -> "stop", ABORTED -> "abort"; others left out). When a custom
    generate function stored the verifier's verdict in sample.metadata["outcome"],
    that outcome is sent as the label. The HTTP call runs in a thread
    (asyncio.to_thread). With --group-rm slime passes a list of samples: the
    list of rewards is returned (as batched_rm).
    """
    if isinstance(sample, (list, tuple)):
        return await batched_rm(args, sample, **kwargs)
    path = "/slime/reward"
    answer = await asyncio.to_thread(post, path, _slime_body(sample))
    return _number(answer, "the reward", path)


async def batched_rm(args, samples, **kwargs):
    """slime batched reward model: the rewards (floats) of `samples`, requested concurrently, in order."""
    return list(await asyncio.gather(*(rm(args, s, **kwargs) for s in samples)))

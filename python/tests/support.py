"""Shared helpers of the client tests.

The tests talk to REAL `frognano serve` processes, named by the environment:

    FROGNANO_URL          a service started with `--budget 1000 --alpha 0.5` (no token)
    FROGNANO_AUTH_URL     a service started with `--token T --budget 1000 --alpha 0.5`
    FROGNANO_AUTH_TOKEN   that T

(test/python/client.test.ts starts both and runs the suite). Without them the
tests that need a service are skipped with the reason "needs a service: ...";
the vitest runner fails on such a skip. Skips whose reason starts with
"optional:" (torch not installed) are expected.

The retry tests use a local http.server (ScriptedServer) that answers what the
test scripts, and replace frognano_client._sleep to record the delays.
"""

import json
import math
import os
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import frognano_client as fc  # noqa: E402

# Captured at import: the tests change FROGNANO_URL / FROGNANO_TOKEN while they run.
PLAIN_URL = os.environ.get("FROGNANO_URL")
AUTH_URL = os.environ.get("FROGNANO_AUTH_URL")
AUTH_TOKEN = os.environ.get("FROGNANO_AUTH_TOKEN")

BUDGET = 1000
ALPHA = 0.5

needs_service = unittest.skipUnless(PLAIN_URL, "needs a service: set FROGNANO_URL (frognano serve --budget 1000 --alpha 0.5)")
needs_auth_service = unittest.skipUnless(
    AUTH_URL and AUTH_TOKEN, "needs a service: set FROGNANO_AUTH_URL and FROGNANO_AUTH_TOKEN (frognano serve --token T ...)"
)

# Fast, bounded retries for the tests that talk to the real service (a failing test does not hang).
FAST_RETRIES = {"FROGNANO_RETRIES": "2", "FROGNANO_BACKOFF": "0.01", "FROGNANO_BACKOFF_MAX": "0.02", "FROGNANO_TIMEOUT": "10"}


def client_env(url, token=None, **extra):
    """A mock.patch.dict of os.environ pointing the client at `url` (with `token`, or none)."""
    env = dict(FAST_RETRIES, FROGNANO_URL=url)
    env.update(extra)
    patcher = mock.patch.dict(os.environ, env)

    class _Env:
        def __enter__(self):
            patcher.__enter__()
            os.environ.pop("FROGNANO_TOKEN", None)
            if token is not None:
                os.environ["FROGNANO_TOKEN"] = token
            return self

        def __exit__(self, *exc):
            return patcher.__exit__(*exc)

    return _Env()


def outcome(success, truncated=None, tokens=None):
    """The outcome label JSON string; truncated / tokens left out when None (the service fills them)."""
    o = {"success": success}
    if truncated is not None:
        o["truncated"] = truncated
    if tokens is not None:
        o["assistantTokens"] = tokens
    return json.dumps(o)


def expected_reward(success, truncated, tokens):
    """frognano's shaping with --budget 1000 --alpha 0.5 (docs/service.md)."""
    if not success:
        return 0.0
    if truncated:
        return 0.5
    if tokens <= BUDGET:
        return 1.0
    return min(1.0, 1.0 - ALPHA * math.log(tokens / BUDGET))


REWARD_4000 = expected_reward(True, False, 4000)  # 1 - 0.5 ln 4 = 0.3068528194400547


class RecordingSleep:
    """Replaces frognano_client._sleep: records each delay, sleeps none."""

    def __init__(self):
        self.delays = []

    def __call__(self, seconds):
        self.delays.append(seconds)

    def patch(self):
        return mock.patch.object(fc, "_sleep", self)


class ScriptedServer:
    """A local HTTP server answering POSTs from a script of (status, body, headers[, delay]).

    The last entry repeats once the script is used up. `requests` records
    (path, headers, parsed body) of every request.
    """

    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                with outer.lock:
                    try:
                        body = json.loads(raw)
                    except ValueError:
                        body = raw
                    outer.requests.append((self.path, dict(self.headers), body))
                    entry = outer.script[min(len(outer.requests), len(outer.script)) - 1]
                status, payload, headers = entry[:3]
                delay = entry[3] if len(entry) > 3 else 0
                if delay:
                    threading.Event().wait(delay)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        return False

    @property
    def bodies(self):
        return [r[2] for r in self.requests]


def ok(payload):
    """A script entry: 200 with `payload`."""
    return (200, payload, None)


class Sample:
    """The fields of slime's Sample that the custom RM reads (slime/utils/types.py at
    THUDM/slime@7985bf23a5a043f51bc1411ef2bb115ee6a2e174: response_length defaults to 0,
    effective_response_length is sum(loss_mask) when a loss mask exists, else response_length)."""

    def __init__(self, prompt="p", response="r", label=None, metadata=None, response_length=0, status=None, loss_mask=None):
        self.prompt = prompt
        self.response = response
        self.label = label
        self.metadata = metadata if metadata is not None else {}
        self.response_length = response_length
        self.status = status
        self.loss_mask = loss_mask
        self.reward = None

    @property
    def effective_response_length(self):
        return sum(self.loss_mask) if self.loss_mask is not None else self.response_length


class BareSample:
    """A sample object with only prompt, response, label (no slime Sample fields)."""

    def __init__(self, label):
        self.prompt, self.response, self.label = "p", "r", label


from enum import Enum  # noqa: E402


class Status(Enum):
    """slime's Sample.Status (slime/utils/types.py): the values are strings."""

    PENDING = "pending"
    COMPLETED = "completed"
    TRUNCATED = "truncated"
    ABORTED = "aborted"
    FAILED = "failed"

"""The FastAPI/uvicorn anchor of bench/service.bench.ts.

A minimal OpenRLHF remote reward server, written the way a Python user would
write one next to their trainer: POST /openrlhf/reward with
``{"query": [...], "prompts": [...], "labels": [...]}``, where each label is the
verifier's outcome as a JSON string
``{"success": bool, "truncated": bool, "assistantTokens": int}``. The reward is
the same shaping as ``frognano serve --budget 6000 --alpha 0.25``:

    failure                         -> 0
    success, truncated              -> 0.5
    success, completed, n tokens    -> min(1, max(floor, 1 - alpha * ln(n / budget)))

(floor defaults to -inf, as frognano's). The answer is OpenRLHF's
``{"rewards", "scores", "extra_logs"}`` with per-query lists.

Choices, stated so that the anchor is neither handicapped nor tuned:
- The body is a pydantic model (``RewardRequest``), as FastAPI's tutorial and
  OpenRLHF-style servers do; FastAPI validates it (lists of strings).
- The endpoint is ``async def``: the work is pure CPU, so it runs on the event
  loop without a threadpool hop (a ``def`` endpoint would go through anyio's
  threadpool on every request).
- The handler returns a plain dict, which FastAPI encodes (jsonable_encoder +
  JSONResponse), the default a user gets.
- One uvicorn worker process (``workers=1``), log level ``warning`` (no access
  log), bound to 127.0.0.1. uvicorn's ``loop="auto"`` / ``http="auto"`` pick
  uvloop / httptools when they are installed, asyncio / h11 otherwise; the
  choice can be forced with ``--loop`` / ``--http`` and is printed on stdout.

Run: ``python3 bench/fastapi_reward_server.py --port 8000`` (the bench starts
and stops it itself; SIGTERM stops it).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import List, Optional

import fastapi
import uvicorn
from fastapi import FastAPI
from pydantic import BaseModel

BUDGET = 6000.0
ALPHA = 0.25
TRUNCATED_REWARD = 0.5
FLOOR = -math.inf


class RewardRequest(BaseModel):
    query: List[str]
    prompts: Optional[List[str]] = None
    labels: Optional[List[str]] = None


def shape(success: bool, truncated: bool, n: float) -> float:
    if not success:
        return 0.0
    if truncated:
        return TRUNCATED_REWARD
    return min(1.0, max(FLOOR, 1.0 - ALPHA * math.log(n / BUDGET)))


app = FastAPI()


@app.get("/health")
async def health() -> dict:
    return {"status": "ok"}


@app.post("/openrlhf/reward")
async def openrlhf_reward(req: RewardRequest) -> dict:
    labels = req.labels or []
    if len(labels) != len(req.query):
        raise fastapi.HTTPException(status_code=400, detail="labels and query differ in length")
    rewards: List[float] = []
    success: List[float] = []
    truncated: List[float] = []
    tokens: List[float] = []
    for label in labels:
        o = json.loads(label)
        s, t, n = bool(o["success"]), bool(o["truncated"]), float(o["assistantTokens"])
        rewards.append(shape(s, t, n))
        success.append(1.0 if s else 0.0)
        truncated.append(1.0 if t else 0.0)
        tokens.append(n)
    return {
        "rewards": rewards,
        "scores": success,
        "extra_logs": {"success": success, "budget_truncated": truncated, "assistant_tokens": tokens},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--loop", default="auto", help="uvicorn event loop: auto | asyncio | uvloop")
    ap.add_argument("--http", default="auto", help="uvicorn HTTP parser: auto | h11 | httptools")
    a = ap.parse_args()
    # What uvicorn's "auto" resolves to (uvicorn/config.py: uvloop / httptools when importable).
    loop, http = a.loop, a.http
    if loop == "auto":
        try:
            import uvloop  # noqa: F401

            loop = "uvloop"
        except ImportError:
            loop = "asyncio"
    if http == "auto":
        try:
            import httptools  # noqa: F401

            http = "httptools"
        except ImportError:
            http = "h11"
    print(json.dumps({"python": sys.version.split()[0], "fastapi": fastapi.__version__, "uvicorn": uvicorn.__version__,
                      "pydantic": __import__("pydantic").VERSION, "loop": loop, "http": http}), flush=True)
    uvicorn.run(app, host=a.host, port=a.port, workers=1, log_level="warning", loop=loop, http=http)


if __name__ == "__main__":
    main()

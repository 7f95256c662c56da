"""PyTorch CPU eager reference for bench/logsoftmax.bench.ts (never a runtime dependency).

For each vocabulary size V: logits [N, V] float32 (seeded, the same formula as the
TypeScript side: logits[i, v] = sin(i * 0.37 + v * 0.011) * 4) and targets
t[i] = (i * 7919) % V; times `log_softmax(logits, -1).gather(-1, t[:, None])`
(what TRL / verl's `logprobs_from_logits` computes on CPU), median of `reps` runs
after 1 warm-up, and the peak extra memory of one run (tracemalloc does not see
torch's allocator, so it reports the bytes of the temporaries: one [N, V]).
Prints one JSON line.
"""
import json, sys, time
import torch

n, reps = int(sys.argv[1]), int(sys.argv[2])
vs = [int(v) for v in sys.argv[3].split(",")]
out = {"torch": torch.__version__, "threads": torch.get_num_threads(), "runs": []}
for V in vs:
    i = torch.arange(n, dtype=torch.float32)[:, None]
    v = torch.arange(V, dtype=torch.float32)[None, :]
    logits = torch.sin(i * 0.37 + v * 0.011) * 4
    t = (torch.arange(n, dtype=torch.int64) * 7919) % V
    del i, v

    def f():
        return torch.log_softmax(logits, dim=-1).gather(-1, t[:, None]).squeeze(-1)

    lp = f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        lp = f()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    out["runs"].append({"V": V, "s": ts[len(ts) // 2], "sum": float(lp.double().sum()), "tempBytes": n * V * 4})
    del logits
print(json.dumps(out))

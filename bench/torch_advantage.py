"""PyTorch CPU reference for bench/advantage.bench.ts (never a runtime dependency).

Reads the synthetic batch the TypeScript bench wrote (raw float64 / int32 files),
computes the same pipeline with torch tensors and prints one JSON line:
median seconds over `reps` runs and checksums to compare with the TypeScript side.

pipeline: shaped reward (FrogNano §4.2) -> group advantages with the raw-outcome
zero-variance filter (std with Bessel's correction, eps 1e-6) -> broadcast to
tokens -> DPPO Binary-TV mask (delta 0.2).
"""
import json, sys, time
import numpy as np
import torch

d, reps = sys.argv[1], int(sys.argv[2])
meta = json.load(open(f"{d}/meta.json"))
G, R = meta["groups"], meta["rolloutsPerGroup"]
success = torch.from_numpy(np.fromfile(f"{d}/success.u8", dtype=np.uint8).astype(np.bool_))
truncated = torch.from_numpy(np.fromfile(f"{d}/truncated.u8", dtype=np.uint8).astype(np.bool_))
ntok = torch.from_numpy(np.fromfile(f"{d}/assistantTokens.f64", dtype=np.float64))
seq_len = torch.from_numpy(np.fromfile(f"{d}/seqLen.i32", dtype=np.int32).astype(np.int64))
lp_new = torch.from_numpy(np.fromfile(f"{d}/logpNew.f64", dtype=np.float64))
lp_old = torch.from_numpy(np.fromfile(f"{d}/logpRollout.f64", dtype=np.float64))
mask = torch.from_numpy(np.fromfile(f"{d}/lossMask.f64", dtype=np.float64))
budget, alpha, delta, eps = meta["budget"], meta["alpha"], meta["delta"], 1e-6


def pipeline():
    pen = torch.where(ntok <= budget, torch.ones_like(ntok), 1 - alpha * torch.log(ntok / budget))
    shaped = torch.where(success, torch.where(truncated, torch.full_like(ntok, 0.5), pen), torch.zeros_like(ntok))
    raw = success.to(torch.float64).view(G, R)
    r = shaped.view(G, R)
    keep = raw.max(dim=1).values != raw.min(dim=1).values
    adv = (r - r.mean(dim=1, keepdim=True)) / (r.std(dim=1, keepdim=True) + eps)
    adv = torch.where(keep[:, None], adv, torch.zeros_like(adv)).reshape(-1)
    tok_adv = torch.repeat_interleave(adv, seq_len) * mask
    dp = torch.exp(lp_new) - torch.exp(lp_old)
    pos = tok_adv > 0
    drop = (pos & (dp > delta)) | (~pos & (dp < -delta))
    m = (~drop).to(torch.float64)
    return adv, m


times = []
for _ in range(reps):
    t0 = time.perf_counter()
    adv, m = pipeline()
    times.append(time.perf_counter() - t0)
times.sort()
print(json.dumps({
    "median_s": times[len(times) // 2],
    "advSum": float(adv.abs().sum()),
    "kept": int(m.sum()),
    "torch": torch.__version__,
    "threads": torch.get_num_threads(),
}))

"""PyTorch CPU eager reference for bench/advantage.bench.ts (never a runtime dependency).

Reads the batch the TypeScript bench wrote (raw little-endian files), times each
primitive alone on the same data, median of `reps` runs after 3 warm-ups, and
prints one JSON line: seconds and checksums of the outputs (every output is a
materialised CPU tensor, as frognano's typed arrays are).

- shapeRewards: FrogNano §4.2 shaped reward + the raw outcome (uint8), from the columns.
- groupAdvantages: TRL / verl GRPO, groups of G consecutive rollouts (view(-1, G)),
  Bessel std, eps 1e-6, zero-variance filter on the raw outcomes; the per-rollout kept mask.
- broadcastToTokens: verl's `scores.unsqueeze(-1) * response_mask` on [B, L];
  the faster of a uint8 mask (frognano's input) and a float64 one is reported.
"""
import json, sys, time
import numpy as np
import torch

d, reps = sys.argv[1], int(sys.argv[2])
meta = json.load(open(f"{d}/meta.json"))
G, B, L = meta["groupSize"], meta["sequences"], meta["seqLen"]
budget, alpha, eps = meta["budget"], meta["alpha"], 1e-6
success = torch.from_numpy(np.fromfile(f"{d}/success.u8", dtype=np.uint8).astype(np.bool_))
truncated = torch.from_numpy(np.fromfile(f"{d}/truncated.u8", dtype=np.uint8).astype(np.bool_))
ntok = torch.from_numpy(np.fromfile(f"{d}/assistantTokens.u32", dtype=np.uint32).astype(np.float64))
rewards = torch.from_numpy(np.fromfile(f"{d}/rewards.f64", dtype=np.float64))
raw = torch.from_numpy(np.fromfile(f"{d}/raw.u8", dtype=np.uint8))
seq_adv = torch.from_numpy(np.fromfile(f"{d}/seqAdv.f64", dtype=np.float64))
mask_u8 = torch.from_numpy(np.fromfile(f"{d}/mask.u8", dtype=np.uint8)).view(B, L)
mask_f64 = mask_u8.to(torch.float64)


def shape():
    pen = torch.where(ntok <= budget, torch.ones_like(ntok), 1 - alpha * torch.log(ntok / budget))
    shaped = torch.where(success, torch.where(truncated, torch.full_like(ntok, 0.5), pen), torch.zeros_like(ntok))
    return shaped, success.to(torch.uint8)


def group():
    r = rewards.view(-1, G)
    f = raw.view(-1, G)
    keep = f.max(dim=1).values != f.min(dim=1).values
    adv = (r - r.mean(dim=1, keepdim=True)) / (r.std(dim=1, keepdim=True) + eps)
    adv = torch.where(keep[:, None], adv, torch.zeros_like(adv)).reshape(-1)
    return adv, keep.repeat_interleave(G).to(torch.uint8)


def bcast_u8():
    return (seq_adv.unsqueeze(-1) * mask_u8).reshape(-1)


def bcast_f64():
    return (seq_adv.unsqueeze(-1) * mask_f64).reshape(-1)


def timed(f):
    for _ in range(3):
        out = f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2], out


s_shape, (shaped, rawo) = timed(shape)
s_group, (adv, kept) = timed(group)
s_b8, tok8 = timed(bcast_u8)
s_b64, tok64 = timed(bcast_f64)
print(json.dumps({
    "torch": torch.__version__,
    "threads": torch.get_num_threads(),
    "shapeRewards": {"s": s_shape, "sum": float(shaped.sum()), "raw": int(rawo.sum(dtype=torch.int64))},
    "groupAdvantages": {"s": s_group, "sumAbs": float(adv.abs().sum()), "kept": int(kept.sum(dtype=torch.int64))},
    "broadcastToTokens": {"s": min(s_b8, s_b64), "u8_s": s_b8, "f64_s": s_b64, "sum": float(tok64.sum())},
}))

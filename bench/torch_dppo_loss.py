"""PyTorch CPU reference for bench/dppo-loss.bench.ts (never a runtime dependency).

Usage: torch_dppo_loss.py DIR REPS [cpu|cuda]. The DPPO token-mean loss of FrogNano §4.1 / SPEC §3, forward + backward, on the
same float32 data the TypeScript bench wrote. Prints one JSON line per size.
"""
import json, sys, time
import numpy as np
import torch

d, reps, delta = sys.argv[1], int(sys.argv[2]), 0.2
device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
sizes = json.load(open(f"{d}/meta.json"))["sizes"]
out = []
for n in sizes:
    load = lambda name: torch.from_numpy(np.fromfile(f"{d}/{name}_{n}.f32", dtype=np.float32)).to(device)
    lp_new0, lp_old, adv, mask = load("logpNew"), load("logpRollout"), load("adv"), load("mask")

    def step():
        lp_new = lp_new0.clone().requires_grad_(True)
        with torch.no_grad():
            dp = torch.exp(lp_new) - torch.exp(lp_old)
            pos = adv > 0
            keep = ~((pos & (dp > delta)) | (~pos & (dp < -delta)))
            k = keep.to(torch.float32) * mask
        rho = torch.exp(torch.clamp(lp_new - lp_old, -20, 20))
        loss = -(adv * rho * k).sum() / mask.sum().clamp(min=1)
        loss.backward()
        v = loss.detach().item()  # reads the scalar back to the host, as the tfjs side does
        sync()
        return v, lp_new.grad

    step()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        loss, g = step()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    out.append({"n": n, "median_s": ts[len(ts) // 2], "loss": loss, "gradAbsSum": float(g.abs().sum())})
print(json.dumps({"torch": torch.__version__, "device": device, "threads": torch.get_num_threads(), "results": out}))

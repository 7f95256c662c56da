"""PyTorch CPU reference for bench/dppo-loss.bench.ts (never a runtime dependency).

Usage: torch_dppo_loss.py DIR REPS [cpu|cuda]. On the data the TypeScript bench wrote:
- the DPPO token-mean loss of FrogNano §4.1 / SPEC §3 (float32), forward + backward, reading
  back the loss (.item()) and the whole gradient (.numpy()) inside the timed step, as the
  tfjs side does;
- the DPPO mask (Binary-TV, delta 0.2) on float64 arrays, returned as a float64 numpy array.
Prints one JSON line: medians and minima in seconds, the losses and the kept counts.
"""
import json, sys, time
import numpy as np
import torch

d, reps, delta = sys.argv[1], int(sys.argv[2]), 0.2
device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
sizes = json.load(open(f"{d}/meta.json"))["sizes"]


def median_time(step):
    last = step()  # warm-up
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        last = step()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return ts[len(ts) // 2], last, ts[0]


loss_out, mask_out = [], []
for n in sizes:
    load = lambda name, ext, dt: torch.from_numpy(np.fromfile(f"{d}/{name}_{n}.{ext}", dtype=dt)).to(device)
    lp_new0, lp_old = load("logpNew", "f32", np.float32), load("logpRollout", "f32", np.float32)
    adv, mask = load("adv", "f32", np.float32), load("mask", "f32", np.float32)

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
        v = loss.detach().item()  # the scalar on the host
        g = lp_new.grad.detach().cpu().numpy()  # the whole gradient on the host
        sync()
        return v

    s, v, mn = median_time(step)
    loss_out.append({"n": n, "median_s": s, "min_s": mn, "loss": v})

    p64, q64, a64 = load("logpNew", "f64", np.float64), load("logpRollout", "f64", np.float64), load("adv", "f64", np.float64)

    def mstep():
        dp = torch.exp(p64) - torch.exp(q64)
        pos = a64 > 0
        keep = ~((pos & (dp > delta)) | (~pos & (dp < -delta)))
        return keep.to(torch.float64).cpu().numpy()  # 1 = kept, float64, on the host

    s, m, mn = median_time(mstep)
    mask_out.append({"n": n, "median_s": s, "min_s": mn, "kept": int(m.sum())})

print(json.dumps({"torch": torch.__version__, "device": device, "threads": torch.get_num_threads(), "loss": loss_out, "mask": mask_out}))

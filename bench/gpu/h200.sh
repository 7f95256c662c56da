#!/usr/bin/env bash
# One prepared device call for the H200 (see docs/gpu.md). Run from the repo root
# on the device machine through the gpu tool's remote.sh:
#   ../shared/tools/gpu/pack.sh --dev     (here, once: packs node, node_modules with vitest, webgpu)
#   device run: carry [".gpu"], command: bash .gpu/remote.sh bash bench/gpu/h200.sh
# Writes its logs under $OUT (the device tool brings them back). Budget: under 9 minutes of device time
# (losses suite 150 s, two benches 90 s each, training 200 s at most, each under its own timeout):
# call the device tool with timeout_s 600.
set -uo pipefail
OUT=${OUT:-/tmp/frognano-gpu-out}
mkdir -p "$OUT"
date -u +%Y-%m-%dT%H:%M:%SZ | tee "$OUT/date.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" | tee -a "$OUT/gpu.txt"

echo "== losses suite on webgpu"
FROGNANO_TEST_BACKENDS=webgpu timeout 150 vitest run src/losses src/backend --reporter=verbose 2>&1 | tee "$OUT/losses-webgpu.log" | tail -40
echo "rc=${PIPESTATUS[0]}" | tee -a "$OUT/losses-webgpu.log"

echo "== dppoLoss bench: webgpu vs PyTorch CUDA"
BENCH_BACKEND=webgpu TORCH_DEVICE=cuda PYTHON=python3 BENCH_REPS=10 timeout 90 \
  node --conditions=@frognano/source --import tsx bench/dppo-loss.bench.ts 2>&1 | tee "$OUT/bench-webgpu-vs-cuda.log" | tail -12
echo "== dppoLoss bench: webgpu (validate off: no host read of the inputs) vs PyTorch CUDA"
BENCH_BACKEND=webgpu BENCH_VALIDATE=0 TORCH_DEVICE=cuda PYTHON=python3 BENCH_REPS=10 timeout 90 \
  node --conditions=@frognano/source --import tsx bench/dppo-loss.bench.ts 2>&1 | tee "$OUT/bench-webgpu-novalidate.log" | tail -12

echo "== training loop on webgpu (the demo configuration; issue 4's GPU run)"
( time timeout 200 node --conditions=@frognano/source --import tsx examples/train-demo.ts --backend webgpu --seed 1 --out /tmp/train-webgpu ) 2>&1 | tee "$OUT/train-webgpu.log" | tail -8
cp /tmp/train-webgpu/updates.jsonl "$OUT/train-updates.jsonl" 2>/dev/null || true   # 7 files in $OUT (the tool brings back 8 at most)
# updates.jsonl has seconds and token counts per update: tokens per second = sum(tokens) / sum(seconds).

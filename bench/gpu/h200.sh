#!/usr/bin/env bash
# One prepared device call for the H200 (see docs/gpu.md). Run from the repo root on the device machine:
#   here, once:  npm ci && bash bench/gpu/pack.sh --with-checkpoint         (node, node_modules with vitest/tsx, webgpu, the Vulkan loader)
#   device run:  carry [".gpu"], timeout_s 500, command: bash .gpu/remote.sh bash bench/gpu/h200.sh
# Writes at most 7 files under $OUT (the device tool brings back 8). Each step has its own timeout; the
# worst case is 150 + 100 + 150 + 60 s plus unpacking, inside one 500 s call.
# Rehearsal without a GPU (SwiftShader's Vulkan on the CPU, see docs/gpu.md):
#   GPU_BACKEND=webgpu TORCH_DEVICE=cpu PYTHON=/usr/bin/python3 VK_DRIVER_FILES=.../vk_swiftshader_icd.json bash bench/gpu/h200.sh
set -uo pipefail
OUT=${OUT:-/tmp/frognano-gpu-out}
GPU_BACKEND=${GPU_BACKEND:-webgpu}
TORCH_DEVICE=${TORCH_DEVICE:-cuda}
PYTHON=${PYTHON:-python3}
mkdir -p "$OUT"
# the webgpu packages and the wasm binaries that the gpu tool's pack.sh leaves out (bench/gpu/pack.sh)
[ -f .gpu/webgpu.tar.xz ] && tar xJf .gpu/webgpu.tar.xz
{ date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2
  echo "node $(node --version); $("$PYTHON" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" 2>&1 | tail -1)"
} | tee "$OUT/machine.txt"
TSX="node --conditions=@frognano/source --import tsx"   # word-split on purpose: timeout runs programs, not functions

echo "== 1. losses and backend suites with FROGNANO_TEST_BACKENDS=$GPU_BACKEND"
FROGNANO_TEST_BACKENDS=$GPU_BACKEND timeout 150 vitest run src/losses src/backend --reporter=verbose 2>&1 | tee "$OUT/suite-$GPU_BACKEND.log" | grep -E "✓|✗|×|FAIL|Test Files|Tests |Duration" | tail -200
echo "rc=${PIPESTATUS[0]}" | tee -a "$OUT/suite-$GPU_BACKEND.log"

echo "== 2. dppoLoss forward+backward: $GPU_BACKEND vs PyTorch $TORCH_DEVICE (validate: the loss's default, off on webgpu in Node)"
BENCH_BACKEND=$GPU_BACKEND TORCH_DEVICE=$TORCH_DEVICE PYTHON=$PYTHON BENCH_REPS=${BENCH_REPS:-10} timeout 100 \
  $TSX bench/dppo-loss.bench.ts 2>&1 | tee "$OUT/bench.log" | grep -v "^$" | tail -8
echo "rc=${PIPESTATUS[0]}" | tee -a "$OUT/bench.log"

# 3. The training demo's RL phase. bench/gpu/pack.sh --with-checkpoint stores in .gpu/train-seed1 the demo
# (seed 1) stopped after its first update on wasm here (SFT warm start and TaskPilot iteration 1 done);
# the run resumes it there and times the DPPO updates (rollouts with per-token sampling + the update)
# on webgpu, then the same on the H200's CPU through wasm for comparison. updates.jsonl holds tokens and
# seconds per update: tokens per second = sum(tokens) / sum(seconds).
for b in "$GPU_BACKEND" wasm; do
  limit=150; [ "$b" = wasm ] && limit=60
  echo "== 3. the training demo's RL phase on $b (resumed from .gpu/train-seed1, stopped at $limit s)"
  rm -rf /tmp/train-$b; mkdir -p /tmp/train-$b
  if [ -d .gpu/train-seed1 ]; then cp .gpu/train-seed1/* /tmp/train-$b/; resume=--resume; else resume=; fi
  ( time timeout $limit $TSX examples/train-demo.ts --backend "$b" --seed 1 --out /tmp/train-$b $resume ) 2>&1 | tee "$OUT/train-$b.log" | grep -v "^$" | tail -6
  cp /tmp/train-$b/updates.jsonl "$OUT/train-updates-$b.jsonl" 2>/dev/null || echo "no updates.jsonl" | tee -a "$OUT/train-$b.log"
done
ls "$OUT"

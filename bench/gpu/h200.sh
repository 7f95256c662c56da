#!/usr/bin/env bash
# One prepared device call for the H200 (see docs/gpu.md). Run from the repo root on the device machine:
#   here, once:  npm ci && bash bench/gpu/pack.sh --with-checkpoint         (node, node_modules with vitest/tsx/webgpu, the Vulkan loader)
#   device run:  carry [".gpu"], timeout_s 540, command: bash .gpu/remote.sh bash bench/gpu/h200.sh
# Writes at most 7 files under $OUT (the device tool brings back 8). Each step has its own timeout; the
# worst case is 150 + 120 + 150 + 60 s plus unpacking, inside one 540 s call.
#
# Step 2 is the fair comparison of issue 13: bench/dppo-loss.bench.ts gives both sides the same float32
# data (written once by the TypeScript side, read by bench/torch_dppo_loss.py), and both read back the
# loss AND the whole gradient inside every timed step (tfjs `await data()`, PyTorch `.item()` and
# `.cpu().numpy()`); the two losses must agree or the bench fails. On webgpu, dppoLoss runs the fused
# WGSL kernel FrognanoDppo (src/losses/kernels/dppoKernelWebgpu.ts): there is no other path there
# (without the kernel the loss is a BACKEND_UNAVAILABLE error), so a row on webgpu is a row of the kernel.
#
# Rehearsal without a GPU (SwiftShader, the Vulkan driver on the CPU of Debian's chromium; see docs/gpu.md):
#   VK_DRIVER_FILES=/usr/lib/chromium/vk_swiftshader_icd.json LD_LIBRARY_PATH=/usr/lib/chromium \
#   TORCH_DEVICE=cpu PYTHON=/usr/bin/python3 BENCH_SIZES=65536 BENCH_REPS=3 TRAIN_S=40 TRAIN_WASM_S=20 SUITE_S=400 \
#   OUT=/tmp/h200-rehearsal bash bench/gpu/h200.sh
set -uo pipefail
OUT=${OUT:-/tmp/frognano-gpu-out}
GPU_BACKEND=${GPU_BACKEND:-webgpu}
TORCH_DEVICE=${TORCH_DEVICE:-cuda}
PYTHON=${PYTHON:-python3}
BENCH_SIZES=${BENCH_SIZES:-65536,1048576,8388608}
BENCH_REPS=${BENCH_REPS:-10}
SUITE_S=${SUITE_S:-150}
BENCH_S=${BENCH_S:-120}
TRAIN_S=${TRAIN_S:-150}
TRAIN_WASM_S=${TRAIN_WASM_S:-60}
export PATH=$PWD/node_modules/.bin:$PATH
mkdir -p "$OUT"
# the wasm backend's .wasm binaries, which the gpu tool's pack.sh prunes (bench/gpu/pack.sh)
[ -f .gpu/extra.tar.xz ] && tar xJf .gpu/extra.tar.xz
{ date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2
  echo "node $(node --version); $("$PYTHON" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" 2>&1 | tail -1)"
  echo "Vulkan drivers: ${VK_DRIVER_FILES:-${VK_ADD_DRIVER_FILES:-system}}"
} | tee "$OUT/machine.txt"
TSX="node --conditions=@frognano/source --import tsx"   # word-split on purpose: timeout runs programs, not functions

echo "== 1. losses and backend suites with FROGNANO_TEST_BACKENDS=$GPU_BACKEND (the WGSL kernel tests included)"
FROGNANO_TEST_BACKENDS=$GPU_BACKEND timeout "$SUITE_S" vitest run src/losses src/backend --reporter=verbose 2>&1 | tee "$OUT/suite-$GPU_BACKEND.log" | grep -E "✓|✗|×|FAIL|Test Files|Tests |Duration" | tail -200
echo "rc=${PIPESTATUS[0]}" | tee -a "$OUT/suite-$GPU_BACKEND.log"

echo "== 2. dppoLoss forward+backward, loss and gradient read back on both sides: $GPU_BACKEND (fused WGSL kernel) vs PyTorch $TORCH_DEVICE, tokens $BENCH_SIZES"
BENCH_BACKENDS=$GPU_BACKEND BENCH_SIZES=$BENCH_SIZES TORCH_DEVICE=$TORCH_DEVICE PYTHON=$PYTHON BENCH_REPS=$BENCH_REPS timeout "$BENCH_S" \
  $TSX bench/dppo-loss.bench.ts 2>&1 | tee "$OUT/bench.log" | grep -v "^$" | tail -12
echo "rc=${PIPESTATUS[0]}" | tee -a "$OUT/bench.log"

# 3. The training demo's RL phase. bench/gpu/pack.sh --with-checkpoint stores in .gpu/train-seed1 the demo
# (seed 1) stopped after its first update on wasm here (SFT warm start and TaskPilot iteration 1 done);
# the run resumes it there and times the DPPO updates (rollouts with per-token sampling + the update)
# on webgpu, then the same on the H200's CPU through wasm for comparison. updates.jsonl holds tokens and
# seconds per update: tokens per second = sum(tokens) / sum(seconds).
for b in "$GPU_BACKEND" wasm; do
  limit=$TRAIN_S; [ "$b" = wasm ] && limit=$TRAIN_WASM_S
  echo "== 3. the training demo's RL phase on $b (resumed from .gpu/train-seed1, stopped at $limit s)"
  rm -rf "/tmp/train-$b"; mkdir -p "/tmp/train-$b"
  if [ -d .gpu/train-seed1 ]; then cp .gpu/train-seed1/* "/tmp/train-$b/"; resume=--resume; else resume=; fi
  ( time timeout "$limit" $TSX examples/train-demo.ts --backend "$b" --seed 1 --out "/tmp/train-$b" $resume ) 2>&1 | tee "$OUT/train-$b.log" | grep -v "^$" | tail -6
  cp "/tmp/train-$b/updates.jsonl" "$OUT/train-updates-$b.jsonl" 2>/dev/null || echo "no updates.jsonl" | tee -a "$OUT/train-$b.log"
done
ls "$OUT"

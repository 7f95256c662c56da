#!/usr/bin/env bash
# Packs what bench/gpu/h200.sh needs on the device machine into .gpu/ (ignored by git):
#   1. the gpu tool's pack.sh --dev: node, node_modules with devDependencies (vitest, tsx, and the
#      `webgpu` package (Dawn) with @tensorflow/tfjs-backend-webgpu, devDependencies since issue 13),
#      the Vulkan loader, remote.sh;
#   2. .gpu/extra.tar.xz: the wasm backend's .wasm binaries, which that pack prunes (it keeps only each
#      tfjs package's JS bundle), so that the suite's wasm tests (useBackend, wasmSimd) and the training
#      demo's wasm run work there as here. Taken from this checkout's node_modules: no registry needed.
#   3. with --with-checkpoint: .gpu/train-seed1, the training demo (seed 1) stopped on wasm after its first
#      DPPO update (SFT warm start and TaskPilot iteration 1 done, about a minute here), which h200.sh
#      resumes on webgpu to time the RL phase.
# Usage, from the repo root after `npm ci`: bash bench/gpu/pack.sh [--with-checkpoint]
set -euo pipefail
ckpt=0
for a in "$@"; do case "$a" in --with-checkpoint) ckpt=1;; *) echo "unknown option $a" >&2; exit 2;; esac; done
root=$(git rev-parse --show-toplevel)
cd "$root"
bash ../shared/tools/gpu/pack.sh --dev
wasm=node_modules/@tensorflow/tfjs-backend-wasm
tar -cf - "$wasm"/wasm-out "$wasm"/dist/*.wasm | xz -T0 -6 > .gpu/extra.tar.xz
echo "added .gpu/extra.tar.xz ($(du -sh .gpu/extra.tar.xz | cut -f1)); .gpu/ is $(du -sh .gpu | cut -f1)"
if [ $ckpt = 1 ]; then
  rm -rf .gpu/train-seed1
  node --conditions=@frognano/source --import tsx examples/train-demo.ts --seed 1 --out .gpu/train-seed1 --stop-after 1 --quiet
  echo "added .gpu/train-seed1 ($(du -sh .gpu/train-seed1 | cut -f1))"
fi

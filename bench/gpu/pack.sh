#!/usr/bin/env bash
# Packs what bench/gpu/h200.sh needs on the device machine into .gpu/ (ignored by git):
#   1. the gpu tool's pack.sh --dev: node, node_modules with devDependencies (vitest, tsx), the Vulkan loader, remote.sh;
#   2. .gpu/webgpu.tar.xz: the wasm backend's binaries, the `webgpu` package (Dawn, linux-x64 only) and @tensorflow/tfjs-backend-webgpu at the
#      tfjs version of the lockfile. pack.sh's own step cannot add them here: this package declares both as optional
#      peer dependencies, and `npm install --no-save` of a declared peer is a no-op ("up to date").
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
tfv=$(node -p "require('@tensorflow/tfjs-core/package.json').version")
tmp=$(mktemp -d)
( cd "$tmp"
  npm init -y >/dev/null
  npm install --ignore-scripts --no-audit --no-fund --no-package-lock "webgpu@0.6.2" "@tensorflow/tfjs-backend-webgpu@$tfv" >/dev/null
  cd node_modules
  rm -rf webgpu/dist/win32-* webgpu/dist/darwin-* webgpu/dist/linux-arm64
  main=$(node -p "require('./@tensorflow/tfjs-backend-webgpu/package.json').main")
  find @tensorflow/tfjs-backend-webgpu/dist -type f ! -path "*/$main" ! -name '*.d.ts' -delete
  find . -name '*.map' -type f -delete
)
# webgpu's index.js imports `debug` (which needs `ms`); @webgpu/types is types only.
# pack.sh also prunes the wasm backend's .wasm binaries (dist/ keeps only the JS bundle); put them back so that
# the suite's wasm tests (useBackend, wasmSimd) run there as here.
wasm=node_modules/@tensorflow/tfjs-backend-wasm
cp -r --parents "$wasm/wasm-out" "$tmp/" && cp --parents "$wasm"/dist/*.wasm "$tmp/"
tar -C "$tmp" -cf - node_modules/webgpu node_modules/@tensorflow/tfjs-backend-webgpu node_modules/debug node_modules/ms "$wasm" | xz -T0 -6 > .gpu/webgpu.tar.xz
rm -rf "$tmp"
echo "added .gpu/webgpu.tar.xz ($(du -sh .gpu/webgpu.tar.xz | cut -f1)); .gpu/ is $(du -sh .gpu | cut -f1)"
if [ $ckpt = 1 ]; then
  rm -rf .gpu/train-seed1
  node --conditions=@frognano/source --import tsx examples/train-demo.ts --seed 1 --out .gpu/train-seed1 --stop-after 1 --quiet
  echo "added .gpu/train-seed1 ($(du -sh .gpu/train-seed1 | cut -f1))"
fi

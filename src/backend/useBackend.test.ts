import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { TEST_BACKENDS, WEBGPU_ADAPTER } from '../../test/helpers/backends.js';
import { useBackend } from './useBackend.js';

// The real packages: @tensorflow/tfjs, @tensorflow/tfjs-backend-wasm, and (devDependencies)
// @tensorflow/tfjs-backend-webgpu with webgpu (Dawn) are installed here; @tensorflow/tfjs-node-gpu
// is not. The real webgpu path runs where the suite runs webgpu (TEST_BACKENDS): on SwiftShader
// where Debian's chromium is installed, on the GPU in the H200 run (test/helpers/backends.ts).
const installed = (pkg: string): boolean => {
  try {
    createRequire(import.meta.url).resolve(pkg);
    return true;
  } catch {
    return false;
  }
};
const webgpuHere = installed('webgpu') && installed('@tensorflow/tfjs-backend-webgpu');
const webgpuRequested = TEST_BACKENDS.includes('webgpu');

describe('useBackend', () => {
  it("'cpu' is always there", async () => {
    expect(await useBackend('cpu')).toEqual({ backend: 'cpu', package: '@tensorflow/tfjs' });
    expect(tf.getBackend()).toBe('cpu');
  });

  it("'wasm' loads @tensorflow/tfjs-backend-wasm and computes", async () => {
    expect(await useBackend('wasm')).toEqual({ backend: 'wasm', package: '@tensorflow/tfjs-backend-wasm' });
    expect(tf.getBackend()).toBe('wasm');
    const y = tf.matMul(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor2d([[5], [6]]));
    expect(Array.from(y.dataSync())).toEqual([17, 39]);
    // the runtime offers SIMD, so tfjs picks the SIMD binary (wasmSimd.test.ts proves it is the one loaded)
    expect(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')).toBe(true);
  });

  it("'cuda' without @tensorflow/tfjs-node-gpu: BACKEND_UNAVAILABLE naming the package and CUDA 11.2 / cuDNN 8.1; the previous backend stays", async () => {
    await useBackend('cpu');
    const err = await expectFrognanoErrorAsync(
      () => useBackend('cuda'),
      'BACKEND_UNAVAILABLE',
      'useBackend',
      "'cuda'",
      '@tensorflow/tfjs-node-gpu',
      'CUDA 11.2',
      'cuDNN 8.1',
      'libtensorflow',
    );
    expect(err.field).toBe('name');
    expect(tf.getBackend()).toBe('cpu');
  });

  it.runIf(!webgpuHere)("'webgpu' in Node without the webgpu package: BACKEND_UNAVAILABLE naming webgpu and @tensorflow/tfjs-backend-webgpu", async () => {
    await expectFrognanoErrorAsync(() => useBackend('webgpu'), 'BACKEND_UNAVAILABLE', "'webgpu'", '`webgpu` package', '@tensorflow/tfjs-backend-webgpu', 'Vulkan');
    expect(tf.getBackend()).toBe('cpu');
  });

  it.runIf(webgpuHere && webgpuRequested)("'webgpu' with the packages and a GPU (or SwiftShader): Dawn's navigator.gpu, the backend starts and computes", async () => {
    expect(await useBackend('webgpu')).toEqual({ backend: 'webgpu', package: '@tensorflow/tfjs-backend-webgpu' });
    expect(tf.getBackend()).toBe('webgpu');
    const y = tf.matMul(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor2d([[5], [6]]));
    expect(Array.from(await y.data())).toEqual([17, 39]);
    // 'auto' finds no tfjs-node-gpu and takes webgpu next
    const sel = await useBackend('auto');
    expect(sel.backend).toBe('webgpu');
    expect(sel.skipped?.map((s) => s.name)).toEqual(['cuda']);
    await useBackend('cpu');
  });

  // where webgpu cannot start (no package, or no adapter: no GPU and no SwiftShader)
  it.runIf(!webgpuHere || WEBGPU_ADAPTER === null)("'auto' tries cuda, webgpu, wasm, cpu in order and reports what it skipped", async () => {
    const sel = await useBackend('auto');
    expect(sel.backend).toBe('wasm');
    expect(sel.package).toBe('@tensorflow/tfjs-backend-wasm');
    expect(sel.skipped?.map((s) => s.name)).toEqual(['cuda', 'webgpu']);
    expect(sel.skipped?.[0]?.reason).toContain('@tensorflow/tfjs-node-gpu');
    expect(tf.getBackend()).toBe('wasm');
  });

  it('rejects an unknown backend name', async () => {
    await expectFrognanoErrorAsync(() => useBackend('webgl' as never), 'INVALID_TYPE', 'name');
  });

  it('rejects a non-function importModule', async () => {
    await expectFrognanoErrorAsync(() => useBackend('cpu', { importModule: 'x' as never }), 'INVALID_TYPE', 'opts.importModule');
  });
});

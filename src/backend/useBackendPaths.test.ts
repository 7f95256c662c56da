import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { useBackend } from './useBackend.js';

// The webgpu and cuda code paths with stand-in modules (the real packages cannot be
// installed here): `importModule` supplies them, and the stand-in backends are the cpu
// backend registered under the names tfjs-backend-webgpu / tfjs-node-gpu would register.
const cpuFactory = tf.findBackendFactory('cpu')!;
const g = globalThis as { navigator?: { gpu?: unknown } };

describe('useBackend code paths with stand-in packages', () => {
  afterAll(() => {
    for (const name of ['webgpu', 'tensorflow']) if (tf.findBackend(name) || tf.findBackendFactory(name)) tf.removeBackend(name);
  });

  it("'webgpu' in Node: installs the Dawn globals and navigator.gpu, then imports the backend and starts it", async () => {
    const fakeGpu = { requestAdapter: async () => ({}) };
    const loaded: string[] = [];
    const importModule = async (s: string): Promise<unknown> => {
      loaded.push(s);
      if (s === 'webgpu') return { create: (flags: string[]) => (flags.length === 0 ? fakeGpu : null), globals: { GPUBufferUsage: { MAP_READ: 1 } } };
      if (s === '@tensorflow/tfjs-backend-webgpu') {
        // tfjs-backend-webgpu registers its backend when imported, reading navigator.gpu
        expect(g.navigator?.gpu).toBe(fakeGpu);
        if (!tf.findBackendFactory('webgpu')) tf.registerBackend('webgpu', cpuFactory, 3);
        return {};
      }
      throw new Error(`unexpected import ${s}`);
    };
    expect(await useBackend('webgpu', { importModule })).toEqual({ backend: 'webgpu', package: '@tensorflow/tfjs-backend-webgpu' });
    expect(loaded).toEqual(['webgpu', '@tensorflow/tfjs-backend-webgpu']);
    expect((globalThis as Record<string, unknown>).GPUBufferUsage).toEqual({ MAP_READ: 1 });
    expect(tf.getBackend()).toBe('webgpu');
    // navigator.gpu present (as in a browser): the webgpu package is not loaded again
    loaded.length = 0;
    await useBackend('webgpu', { importModule });
    expect(loaded).toEqual(['@tensorflow/tfjs-backend-webgpu']);
    delete g.navigator;
  });

  it("'webgpu' whose backend cannot start (no adapter): BACKEND_UNAVAILABLE, previous backend restored", async () => {
    await useBackend('cpu');
    tf.removeBackend('webgpu');
    const importModule = async (s: string): Promise<unknown> => {
      if (s === 'webgpu') return { create: () => ({ requestAdapter: async () => null }), globals: {} };
      tf.registerBackend('webgpu', async () => {
        throw new Error('no adapter');
      });
      return {};
    };
    const errorLog = console.warn;
    console.warn = () => undefined; // tfjs warns about the failed initialisation
    try {
      await expectFrognanoErrorAsync(() => useBackend('webgpu', { importModule }), 'BACKEND_UNAVAILABLE', 'no WebGPU adapter');
    } finally {
      console.warn = errorLog;
    }
    expect(tf.getBackend()).toBe('cpu');
    // the GPU object it installed is removed again (it would keep Node running)
    expect(g.navigator?.gpu).toBeUndefined();
  });

  it("'webgpu' with Dawn but without @tensorflow/tfjs-backend-webgpu: BACKEND_UNAVAILABLE, navigator.gpu removed", async () => {
    const importModule = async (s: string): Promise<unknown> => {
      if (s === 'webgpu') return { create: () => ({}), globals: {} };
      throw new Error(`Cannot find package '${s}'`);
    };
    await expectFrognanoErrorAsync(() => useBackend('webgpu', { importModule }), 'BACKEND_UNAVAILABLE', '@tensorflow/tfjs-backend-webgpu could not be loaded');
    expect(g.navigator?.gpu).toBeUndefined();
  });

  it("'cuda': imports @tensorflow/tfjs-node-gpu and selects its 'tensorflow' backend", async () => {
    const importModule = async (s: string): Promise<unknown> => {
      expect(s).toBe('@tensorflow/tfjs-node-gpu');
      tf.registerBackend('tensorflow', cpuFactory, 3);
      return {};
    };
    expect(await useBackend('cuda', { importModule })).toEqual({ backend: 'tensorflow', package: '@tensorflow/tfjs-node-gpu' });
    expect(tf.getBackend()).toBe('tensorflow');
  });

  it('an import that throws (e.g. libcudart.so.11.0 missing) becomes BACKEND_UNAVAILABLE with the cause', async () => {
    const cause = new Error('libcudart.so.11.0: cannot open shared object file');
    const err = await expectFrognanoErrorAsync(
      () => useBackend('cuda', { importModule: async () => Promise.reject(cause) }),
      'BACKEND_UNAVAILABLE',
      'libcudart.so.11.0',
      'CUDA 11.2',
    );
    expect((err as Error & { cause?: unknown }).cause).toBe(cause);
  });
});

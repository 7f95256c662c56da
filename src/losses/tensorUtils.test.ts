import * as tf from '@tensorflow/tfjs';
import { afterAll, describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { canReadSync } from '../backend/canReadSync.js';
import { tokenEntropy } from './tokenEntropy.js';
import { checkFiniteOnDevice, resolveValidate } from './tensorUtils.js';

// The backend-dependent branches, with the cpu backend registered under a GPU backend's
// name (webgl, webgpu): the code decides by tf.getBackend(), and the cpu kernels give
// the IEEE answers to compare with. The real webgpu runs are in docs/gpu.md.
const cpuFactory = tf.findBackendFactory('cpu')!;
const g = globalThis as { OffscreenCanvas?: unknown };

async function as(name: string, f: () => void | Promise<void>): Promise<void> {
  if (!tf.findBackendFactory(name)) tf.registerBackend(name, cpuFactory, -1);
  await tf.setBackend(name);
  try {
    await f();
  } finally {
    await tf.setBackend('cpu');
  }
}

describe('backend-dependent checks', () => {
  afterAll(() => {
    for (const name of ['webgl', 'webgpu']) if (tf.findBackendFactory(name)) tf.removeBackend(name);
    delete g.OffscreenCanvas;
  });

  it("canReadSync: false only for 'webgpu' without OffscreenCanvas", async () => {
    await tf.setBackend('cpu');
    expect(canReadSync()).toBe(true);
    await as('webgl', () => expect(canReadSync()).toBe(true));
    await as('webgpu', () => {
      expect(canReadSync()).toBe(false);
      g.OffscreenCanvas = class {}; // a browser
      expect(canReadSync()).toBe(true);
      delete g.OffscreenCanvas;
    });
  });

  it('resolveValidate: the default follows canReadSync; an explicit true without synchronous reads is BACKEND_UNAVAILABLE', async () => {
    expect(resolveValidate('f', undefined)).toBe(true);
    expect(resolveValidate('f', false)).toBe(false);
    await as('webgpu', () => {
      expect(resolveValidate('f', undefined)).toBe(false);
      expect(resolveValidate('f', false)).toBe(false);
      expectFrognanoError(() => resolveValidate('f', true), 'BACKEND_UNAVAILABLE', "backend 'webgpu'", 'OffscreenCanvas', 'checkFiniteAsync');
    });
  });

  it('checkFiniteOnDevice scans on the host on a GPU backend (shader NaN semantics are not trusted) and names the element', async () => {
    const bad = tf.tensor2d([[0, 1], [2, NaN]]);
    expectFrognanoError(() => checkFiniteOnDevice('f', 'logits', bad), 'NON_FINITE', 'logits[1][1]', 'NaN');
    await as('webgl', () => {
      expectFrognanoError(() => checkFiniteOnDevice('f', 'logits', bad), 'NON_FINITE', 'logits[1][1]', 'NaN');
      // the probe tensor of the on-device path is not created: nothing is left behind either way
      const before = tf.memory().numTensors;
      checkFiniteOnDevice('f', 'logits', tf.tensor1d([1, 2]));
      expect(tf.memory().numTensors).toBe(before + 1);
      // through a loss: tokenEntropy validates its logits this way
      expectFrognanoError(() => tokenEntropy(bad), 'NON_FINITE', 'tokenEntropy', 'logits[1][1]');
    });
  });
});

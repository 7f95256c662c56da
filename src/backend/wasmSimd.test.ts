import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { useBackend } from './useBackend.js';

// Runs in its own process (vitest pool 'forks'), before any other wasm start: only the
// SIMD binary is given a real path, so the backend can start only if it loads that one.
describe('wasm backend binary', () => {
  it('loads tfjs-backend-wasm-simd.wasm (SIMD) in Node, leaving no Emscripten process hooks', async () => {
    const hooks = () => ['uncaughtException', 'unhandledRejection'].flatMap((ev) => process.listeners(ev as 'uncaughtException').map(String));
    const before = hooks();
    const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
    const sel = await useBackend('wasm', {
      wasmPaths: {
        'tfjs-backend-wasm-simd.wasm': path.join(dist, 'tfjs-backend-wasm-simd.wasm'),
        'tfjs-backend-wasm.wasm': '/nonexistent/tfjs-backend-wasm.wasm',
        'tfjs-backend-wasm-threaded-simd.wasm': '/nonexistent/tfjs-backend-wasm-threaded-simd.wasm',
      },
    });
    expect(sel.backend).toBe('wasm');
    expect(Array.from(tf.add(tf.tensor1d([1, 2]), 1).dataSync())).toEqual([2, 3]);
    // the Emscripten glue adds `uncaughtException` / `unhandledRejection` re-throwers; useBackend removes them
    expect(hooks().filter((h) => !before.includes(h) && (h.includes('ExitStatus') || /throw\s+reason/.test(h)))).toEqual([]);
  });
});

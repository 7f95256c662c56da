import * as tf from '@tensorflow/tfjs';

/**
 * Whether the active tfjs backend can read a tensor's values synchronously
 * (`dataSync()`), which the losses' host-side input checks (`validate`),
 * {@link dppoLossDetailed} and the one-call form of {@link spanKtoLoss} need.
 *
 * | backend | synchronous read |
 * | --- | --- |
 * | `cpu`, `wasm`, `tensorflow` (tfjs-node / tfjs-node-gpu) | yes |
 * | `webgpu` in a browser | yes (slow: tfjs-backend-webgpu copies through an `OffscreenCanvas`) |
 * | `webgpu` in Node (the `webgpu` package, Dawn) | **no**: Node has no `OffscreenCanvas`, and Dawn maps buffers only asynchronously (its `mapAsync` completes on the event loop) |
 *
 * Where this is `false`, read with `await tensor.data()` and use the
 * asynchronous forms ({@link dppoDiagnostics}, {@link spanKtoReference},
 * {@link checkFiniteAsync}); the losses' `validate` option then defaults to
 * `false`.
 *
 * @returns `false` exactly for `webgpu` without `OffscreenCanvas`
 * @example if (!canReadSync()) console.log(await loss.data()); else console.log(loss.dataSync());
 */
export function canReadSync(): boolean {
  return !(tf.getBackend() === 'webgpu' && typeof (globalThis as { OffscreenCanvas?: unknown }).OffscreenCanvas === 'undefined');
}

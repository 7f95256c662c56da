/**
 * The tfjs backends the losses suite runs on. Default `cpu` and `wasm` (CI, no
 * GPU). On a GPU machine: `FROGNANO_TEST_BACKENDS=webgpu npx vitest run src/losses`
 * (see docs/gpu.md).
 */
export type TestBackend = 'cpu' | 'wasm' | 'webgpu' | 'cuda';

export const TEST_BACKENDS: readonly TestBackend[] = (process.env.FROGNANO_TEST_BACKENDS ?? 'cpu,wasm')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean) as TestBackend[];

/**
 * Whether `backend`, once active, can read tensors synchronously: what
 * `canReadSync()` will say (known before the backend starts, so that
 * `it.runIf` can use it at collection time). Only webgpu in Node cannot.
 */
export const readsSync = (backend: string): boolean =>
  backend !== 'webgpu' || typeof (globalThis as { OffscreenCanvas?: unknown }).OffscreenCanvas !== 'undefined';

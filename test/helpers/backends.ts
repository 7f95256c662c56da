/**
 * The tfjs backends the losses suite runs on (`describe.each(TEST_BACKENDS)`).
 *
 * - `FROGNANO_TEST_BACKENDS` set (comma-separated): exactly those, e.g.
 *   `FROGNANO_TEST_BACKENDS=webgpu npx vitest run src/losses` on the H200 (docs/gpu.md),
 *   or `FROGNANO_TEST_BACKENDS=cpu,wasm` to leave webgpu out.
 * - Otherwise `cpu`, `wasm`, and `webgpu` whenever Dawn (the `webgpu` package) finds
 *   a WebGPU adapter: a real GPU, or SwiftShader, the CPU Vulkan driver of Debian's
 *   `chromium` package, which `vitest.config.ts` points the workers at
 *   (`test/helpers/swiftshader.ts`). So `npm test` proves the WGSL kernels on any
 *   machine with `chromium` installed. Where there is no adapter, the webgpu runs are
 *   left out with one visible line naming `chromium`, and under
 *   `FROGNANO_REQUIRE_SYSTEM=1` (CI) importing this module fails instead (SPEC conventions).
 */
import { existsSync, readdirSync } from 'node:fs';
import { needsPackage } from './system.js';

export type TestBackend = 'cpu' | 'wasm' | 'webgpu' | 'cuda';

/** What {@link probeWebGpu} found: the adapter's description, or why there is none. */
export type WebGpuProbe = { adapter: string } | { adapter: null; why: string };

/** Whether some Vulkan driver is configured: SwiftShader through the environment, or a system ICD (a real GPU). */
function vulkanDriverConfigured(): boolean {
  if (process.platform !== 'linux') return true; // Metal / D3D12: let Dawn look
  const env = process.env;
  if (env.VK_DRIVER_FILES || env.VK_ICD_FILENAMES || env.VK_ADD_DRIVER_FILES) return true;
  return ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d'].some((d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.json')));
}

/**
 * Asks Dawn for a WebGPU adapter, without starting tfjs (about 0.1 s with SwiftShader). On Linux it only asks when a
 * Vulkan driver is configured (otherwise Dawn would print a loader warning in every worker).
 */
export async function probeWebGpu(): Promise<WebGpuProbe> {
  if (!vulkanDriverConfigured()) return { adapter: null, why: 'no Vulkan driver (neither SwiftShader nor a GPU driver)' };
  let dawn: { create(flags: string[]): { requestAdapter(): Promise<{ info?: { description?: string; vendor?: string } } | null> } };
  try {
    dawn = (await import('webgpu')) as unknown as typeof dawn;
  } catch (e) {
    return { adapter: null, why: `the webgpu package did not load: ${(e as Error).message.split('\n')[0]}` };
  }
  const adapter = await dawn.create([]).requestAdapter();
  if (adapter === null) return { adapter: null, why: 'Dawn found no adapter' };
  return { adapter: adapter.info?.description || adapter.info?.vendor || 'unknown adapter' };
}

async function resolveBackends(): Promise<{ backends: readonly TestBackend[]; adapter: string | null }> {
  const explicit = process.env.FROGNANO_TEST_BACKENDS;
  if (explicit !== undefined && explicit.trim() !== '') {
    const backends = explicit
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean) as TestBackend[];
    return { backends, adapter: null };
  }
  // once per worker process, also where vitest re-evaluates this module for the next file
  const g = globalThis as { __frognanoWebGpuProbe?: Promise<WebGpuProbe> };
  const probe = await (g.__frognanoWebGpuProbe ??= probeWebGpu());
  const why = probe.adapter === null ? probe.why : '';
  const webgpu = needsPackage('chromium', probe.adapter !== null, `the webgpu runs of the loss tests (the WGSL kernels on SwiftShader, Chromium's Vulkan driver on the CPU; ${why})`);
  return { backends: webgpu ? ['cpu', 'wasm', 'webgpu'] : ['cpu', 'wasm'], adapter: probe.adapter };
}

const resolved = await resolveBackends();

/** The backends of this run, resolved once per test file (see the module comment). */
export const TEST_BACKENDS: readonly TestBackend[] = resolved.backends;

/**
 * What the probe found when this run chose the backends itself: the adapter's
 * description, `null` when Dawn found none (so `useBackend('webgpu')` fails here);
 * `undefined` when `FROGNANO_TEST_BACKENDS` chose them (no probe).
 */
export const WEBGPU_ADAPTER: string | null | undefined = process.env.FROGNANO_TEST_BACKENDS?.trim() ? undefined : resolved.adapter;

/**
 * True for `webgpu` when this run added it itself and Dawn's adapter is SwiftShader
 * (a CPU running the GPU's shaders, about 10x slower than `wasm` on tfjs's many small
 * dispatches). The long training loops of `training.test.ts` skip such a run; every
 * loss's own tests and the kernel tests still run on it. False when
 * `FROGNANO_TEST_BACKENDS` names webgpu: then everything runs (the H200 script, or a
 * full rehearsal on SwiftShader).
 */
export const emulatedGpu = (backend: string): boolean => backend === 'webgpu' && /swiftshader/i.test(resolved.adapter ?? '');

/**
 * Whether `backend`, once active, can read tensors synchronously: what
 * `canReadSync()` will say (known before the backend starts, so that
 * `it.runIf` can use it at collection time). Only webgpu in Node cannot.
 */
export const readsSync = (backend: string): boolean =>
  backend !== 'webgpu' || typeof (globalThis as { OffscreenCanvas?: unknown }).OffscreenCanvas !== 'undefined';

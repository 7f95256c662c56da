import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { parseOptions, parseWith, functionSchema } from '../errors/validate.js';

/** The backends {@link useBackend} can select. */
export const BackendNameSchema = z.enum(['auto', 'cpu', 'wasm', 'webgpu', 'cuda']);
/** `'auto' | 'cpu' | 'wasm' | 'webgpu' | 'cuda'`. */
export type BackendName = z.infer<typeof BackendNameSchema>;

/** The npm package each concrete backend comes from. */
export const BACKEND_PACKAGES = {
  cpu: '@tensorflow/tfjs',
  wasm: '@tensorflow/tfjs-backend-wasm',
  webgpu: '@tensorflow/tfjs-backend-webgpu',
  cuda: '@tensorflow/tfjs-node-gpu',
} as const;

/** What each backend needs besides its package, quoted in `BACKEND_UNAVAILABLE` messages. */
export const BACKEND_REQUIREMENTS = {
  cpu: 'nothing beyond @tensorflow/tfjs (pure JavaScript, slow)',
  wasm: 'npm install @tensorflow/tfjs-backend-wasm at the version of @tensorflow/tfjs (4.22); runs wherever WebAssembly does, SIMD when the runtime has it (Node >= 16, current browsers); in a bundle pass wasmPaths so the .wasm files are found',
  webgpu:
    'npm install @tensorflow/tfjs-backend-webgpu at the version of @tensorflow/tfjs (4.22), and in Node also the `webgpu` package (Dawn), which needs a GPU driver with Vulkan (Linux), Metal (macOS) or D3D12 (Windows); browsers need WebGPU enabled',
  cuda:
    'npm install @tensorflow/tfjs-node-gpu at the version of @tensorflow/tfjs (4.22); Linux x86-64 with an NVIDIA GPU, CUDA 11.2 and cuDNN 8.1; its install script downloads its own libtensorflow (GPU build), so installing needs network access',
} as const;

/** Options of {@link useBackend}. */
export const UseBackendOptionsSchema = z
  .object({
    /**
     * Where the wasm backend finds its `.wasm` binaries: a URL/path prefix ending in `/`,
     * or a map from file name (`tfjs-backend-wasm.wasm`, `tfjs-backend-wasm-simd.wasm`,
     * `tfjs-backend-wasm-threaded-simd.wasm`) to its location; passed to
     * `setWasmPaths`. Not needed in Node (the package finds its own `dist/`); needed
     * in most bundles. Only takes effect before the wasm backend first starts.
     */
    wasmPaths: z.union([z.string(), z.record(z.string(), z.string())]).optional(),
    /**
     * The dynamic `import` used to load the optional packages. Default: the
     * runtime's `import()`. Pass your own where a bundler needs literal specifiers
     * (`(s) => import(/* webpackIgnore: true *\/ s)`) or to supply modules directly.
     */
    importModule: functionSchema<(specifier: string) => Promise<unknown>>('(specifier) => Promise<module>').optional(),
  })
  .strict();
/** Options of {@link useBackend} as the caller writes them. */
export type UseBackendOptions = z.input<typeof UseBackendOptionsSchema>;
type ParsedOptions = z.output<typeof UseBackendOptionsSchema>;

/** The result of {@link useBackend}. */
export interface BackendSelection {
  /** The tfjs backend now active (`tf.getBackend()`): `'cpu'`, `'wasm'`, `'webgpu'` or `'tensorflow'` (for `'cuda'`). */
  backend: string;
  /** The npm package that provides it. */
  package: string;
  /** For `'auto'`: the backends tried before this one and why each was unavailable. */
  skipped?: { name: Exclude<BackendName, 'auto'>; reason: string }[];
}

const defaultImport = (specifier: string): Promise<unknown> => import(specifier);

/**
 * Selects and starts a tfjs backend, loading its npm package on demand.
 *
 * | name | package | tfjs backend | when |
 * | --- | --- | --- | --- |
 * | `'cpu'` | `@tensorflow/tfjs` | `cpu` | always available; plain JS, for tests and tiny models |
 * | `'wasm'` | `@tensorflow/tfjs-backend-wasm` | `wasm` | CPU training and inference, 10-20x `cpu` on matmuls (SIMD) |
 * | `'webgpu'` | `@tensorflow/tfjs-backend-webgpu` (+ `webgpu` in Node) | `webgpu` | a GPU, browser or Node (Dawn over Vulkan/Metal/D3D12) |
 * | `'cuda'` | `@tensorflow/tfjs-node-gpu` | `tensorflow` | Node on Linux with CUDA 11.2 + cuDNN 8.1 |
 * | `'auto'` | the first of `cuda`, `webgpu`, `wasm`, `cpu` that starts | | |
 *
 * The packages are optional peer dependencies, loaded with a dynamic `import`
 * of a variable specifier, so none of them is needed to compile or to use the
 * other backends. For `'webgpu'` in Node, the `webgpu` package's `globals` are
 * installed on `globalThis` and `navigator.gpu` is set to its `create([])`
 * before the backend is imported (skipped when `navigator.gpu` exists, as in a
 * browser); Node then stays alive while that GPU object is referenced, so end
 * the process explicitly or `delete navigator.gpu` when done. When a backend
 * fails to start, the previous one stays active.
 *
 * @param name - which backend; default `'auto'`
 * @returns the active backend and the package it comes from (for `'auto'`, also what was skipped)
 * @throws FrognanoError `BACKEND_UNAVAILABLE` naming the npm package and what it needs
 *   (for `'auto'`, only if even `cpu` fails); `INVALID_TYPE` for an unknown name or option
 * @example
 * ```ts
 * const { backend } = await useBackend('wasm'); // 'wasm'
 * const chosen = await useBackend('auto');      // e.g. { backend: 'wasm', package: '@tensorflow/tfjs-backend-wasm', skipped: [...] }
 * ```
 */
export async function useBackend(name: BackendName = 'auto', opts: UseBackendOptions = {}): Promise<BackendSelection> {
  const fn = 'useBackend';
  const which = parseWith(fn, 'name', BackendNameSchema, name);
  const o = parseOptions(fn, UseBackendOptionsSchema, opts);
  if (which !== 'auto') return start(which, o);
  const skipped: { name: Exclude<BackendName, 'auto'>; reason: string }[] = [];
  for (const candidate of ['cuda', 'webgpu', 'wasm', 'cpu'] as const) {
    try {
      const sel = await start(candidate, o);
      return { ...sel, skipped };
    } catch (e) {
      if (!(e instanceof FrognanoError) || e.code !== ErrorCode.BACKEND_UNAVAILABLE) throw e;
      skipped.push({ name: candidate, reason: e.message });
    }
  }
  throw new FrognanoError(
    ErrorCode.BACKEND_UNAVAILABLE,
    `no backend could start: ${skipped.map((s) => `${s.name}: ${s.reason}`).join('; ')}`,
    { fn, field: 'name' },
  );
}

async function start(name: Exclude<BackendName, 'auto'>, o: ParsedOptions): Promise<BackendSelection> {
  const load = o.importModule ?? defaultImport;
  switch (name) {
    case 'cpu':
      await activate('cpu', 'cpu', 'the cpu backend did not start');
      return { backend: 'cpu', package: BACKEND_PACKAGES.cpu };
    case 'wasm': {
      await withoutEmscriptenProcessHooks(async () => {
        const mod = (await loadPackage('wasm', BACKEND_PACKAGES.wasm, load)) as { setWasmPaths?: (p: unknown) => void };
        if (o.wasmPaths !== undefined) mod.setWasmPaths?.(o.wasmPaths);
        await activate('wasm', 'wasm', 'the WebAssembly binary did not load or compile (in a bundle, pass wasmPaths)');
      });
      return { backend: 'wasm', package: BACKEND_PACKAGES.wasm };
    }
    case 'webgpu': {
      const undo = await installNodeWebGpu(load);
      try {
        await loadPackage('webgpu', BACKEND_PACKAGES.webgpu, load);
        await activate('webgpu', 'webgpu', 'no WebGPU adapter was found (no usable GPU or driver)');
      } catch (e) {
        undo(); // a GPU object left on navigator would keep Node running
        throw e;
      }
      return { backend: 'webgpu', package: BACKEND_PACKAGES.webgpu };
    }
    case 'cuda':
      await loadPackage('cuda', BACKEND_PACKAGES.cuda, load);
      await activate('cuda', 'tensorflow', 'the TensorFlow C library did not start (check CUDA 11.2 / cuDNN 8.1)');
      return { backend: 'tensorflow', package: BACKEND_PACKAGES.cuda };
  }
}

function unavailable(name: Exclude<BackendName, 'auto'>, pkg: string, what: string, cause?: unknown): FrognanoError {
  const detail = cause instanceof Error ? `: ${cause.message.split('\n')[0]}` : '';
  const err = new FrognanoError(
    ErrorCode.BACKEND_UNAVAILABLE,
    `backend '${name}' is unavailable: ${what}${detail}. Package ${pkg}: ${BACKEND_REQUIREMENTS[name]}`,
    { fn: 'useBackend', field: 'name' },
  );
  if (cause !== undefined) Object.defineProperty(err, 'cause', { value: cause, enumerable: false });
  return err;
}

async function loadPackage(
  name: Exclude<BackendName, 'auto'>,
  pkg: string,
  load: (specifier: string) => Promise<unknown>,
): Promise<unknown> {
  try {
    return await load(pkg);
  } catch (e) {
    throw unavailable(name, pkg, `${pkg} could not be loaded`, e);
  }
}

/** `tf.setBackend` that restores the previous backend when the new one fails to start. */
async function activate(name: Exclude<BackendName, 'auto'>, tfName: string, why: string): Promise<void> {
  const previous = tf.getBackend();
  let ok = false;
  let cause: unknown;
  try {
    ok = await tf.setBackend(tfName);
    if (ok) await tf.ready();
  } catch (e) {
    cause = e;
    ok = false;
  }
  if (ok && tf.getBackend() === tfName) return;
  if (previous && previous !== tfName) await tf.setBackend(previous).catch(() => false);
  throw unavailable(name, BACKEND_PACKAGES[name], why, cause);
}

/**
 * Runs `f` (which starts the wasm backend) and then removes the process-level
 * `uncaughtException` / `unhandledRejection` listeners that the Emscripten glue
 * of tfjs-backend-wasm adds in Node. Those listeners re-throw every error from
 * inside the one-line minified glue file, so any later crash of the host program
 * prints ~100 KB of minified source, and an application's own
 * `uncaughtException` handler can no longer keep the process alive. Only
 * listeners added while `f` ran and recognisably Emscripten's are removed;
 * Node's default handling then applies.
 */
async function withoutEmscriptenProcessHooks(f: () => Promise<void>): Promise<void> {
  type Listener = (...args: unknown[]) => void;
  const proc = (globalThis as { process?: { listeners(ev: string): Listener[]; removeListener(ev: string, l: Listener): unknown } }).process;
  if (typeof proc?.listeners !== 'function') return f();
  const events = ['uncaughtException', 'unhandledRejection'] as const;
  const before = events.map((ev) => proc.listeners(ev));
  try {
    await f();
  } finally {
    events.forEach((ev, i) => {
      for (const l of proc.listeners(ev)) {
        const src = String(l);
        if (!before[i]!.includes(l) && (src.includes('ExitStatus') || /throw\s+reason/.test(src))) {
          proc.removeListener(ev, l);
        }
      }
    });
  }
}

/**
 * In Node, provides `navigator.gpu` from the `webgpu` package (Dawn) before
 * tfjs-backend-webgpu is imported. Returns a function that removes what it
 * installed (a no-op when `navigator.gpu` already existed).
 */
async function installNodeWebGpu(load: (specifier: string) => Promise<unknown>): Promise<() => void> {
  const g = globalThis as { navigator?: { gpu?: unknown } };
  if (g.navigator?.gpu) return () => undefined;
  let dawn: { create?: (flags: string[]) => unknown; globals?: object };
  try {
    dawn = (await load('webgpu')) as typeof dawn;
  } catch (e) {
    throw unavailable('webgpu', 'webgpu', 'there is no navigator.gpu and the `webgpu` package (Dawn, for Node) could not be loaded', e);
  }
  if (typeof dawn.create !== 'function') {
    throw unavailable('webgpu', 'webgpu', 'the `webgpu` package has no create() export');
  }
  if (dawn.globals) Object.assign(globalThis, dawn.globals);
  const gpu = dawn.create([]);
  const nav = g.navigator;
  if (nav && Object.isExtensible(nav)) {
    Object.defineProperty(nav, 'gpu', { value: gpu, configurable: true, writable: true });
    return () => {
      delete nav.gpu;
    };
  }
  Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true, writable: true });
  return () => {
    if (nav === undefined) delete g.navigator;
    else Object.defineProperty(globalThis, 'navigator', { value: nav, configurable: true, writable: true });
  };
}

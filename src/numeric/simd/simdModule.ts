import { SIMD_WASM_BASE64 } from './simdBytes.js';

/** A WebAssembly memory (the project's `lib` has no DOM types). @internal */
export interface WasmMemory {
  buffer: ArrayBuffer;
}

/** A mutable WebAssembly global of the module (a counter the passes add to). @internal */
interface WasmGlobal {
  value: number;
}

/**
 * The exports of the WASM SIMD module of `simd.wat`, plus the memory it runs on (the
 * module imports its memory: its own, or tfjs-backend-wasm's heap). Addresses are byte
 * offsets into that memory. @internal
 */
export interface SimdExports {
  memory: WasmMemory;
  exp_f64(src: number, dst: number, n: number): void;
  exp_f32(src: number, dst: number, n: number): void;
  log_f64(src: number, dst: number, n: number): void;
  /** Fast float32 exp (`fexp4`), n a multiple of 4. */
  fexp_f32(src: number, dst: number, n: number): void;
  /** The DPPO tv mask of n (a multiple of 4) float64 tokens; writes the near tokens' indices to `list`, returns their count (see simd.wat). */
  tv_mask_f64(lp: number, lq: number, a: number, out: number, n: number, list: number, lo: number, hi: number, win: number, tol32: number): number;
  /** Validation of the DPPO loss's four float32 inputs (see simd.wat). */
  check_f32(lp: number, lq: number, a: number, m: number, n: number, tol: number): void;
  /** The DPPO tv loss of n (a multiple of 4) float32 tokens; writes the near tokens' indices to `list` (count in `nearN`), returns the loss sum (see simd.wat). */
  tv_loss_f32(lp: number, lq: number, a: number, w: number, g: number, n: number, list: number, lo: number, hi: number, win: number, cap: number, opt: number, wScale: number): number;
  ones: WasmGlobal;
  bad: WasmGlobal;
  nearN: WasmGlobal;
}

/** The part of the WebAssembly JS API used here (the project's `lib` has no DOM types). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => unknown;
  Instance: new (module: unknown, imports: object) => { exports: unknown };
  Memory: new (d: { initial: number }) => WasmMemory;
}

/** Pages (64 KiB) of the module's own memory: the chunk buffers of every pass fit in 512 KiB. */
const OWN_PAGES = 8;

let compiled: unknown | null | undefined;
let cached: SimdExports | null | undefined;
let disabled = false;
const onMemory = new WeakMap<object, SimdExports>();

function decodeBase64(b64: string): Uint8Array {
  const g = globalThis as { Buffer?: { from(s: string, enc: string): Uint8Array }; atob?: (s: string) => string };
  if (g.Buffer) return new Uint8Array(g.Buffer.from(b64, 'base64'));
  const bin = g.atob!(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function wasmApi(): WasmApi | undefined {
  return (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
}

/**
 * The module compiled once, synchronously, or `null` without WebAssembly SIMD. It is ~5.4 KB:
 * above the 4 KB that browsers allow for synchronous compilation on the main thread, where
 * `new WebAssembly.Module` throws and the callers take their pure-JS paths (same masks).
 */
function compiledModule(): unknown | null {
  if (compiled !== undefined) return compiled;
  compiled = null;
  const W = wasmApi();
  if (W === undefined) return null;
  try {
    const bytes = decodeBase64(SIMD_WASM_BASE64);
    if (W.validate(bytes)) compiled = new W.Module(bytes); // else: no SIMD in this runtime
  } catch {
    compiled = null;
  }
  return compiled;
}

function instantiate(memory: WasmMemory): SimdExports | null {
  const mod = compiledModule();
  if (mod === null) return null;
  try {
    const exports = new (wasmApi()!).Instance(mod, { env: { memory } }).exports as Omit<SimdExports, 'memory'>;
    return Object.assign(Object.create(null) as object, exports, { memory }) as SimdExports;
  } catch {
    return null;
  }
}

/** The module on its own memory, or `null` where WebAssembly SIMD is unavailable (or disabled by {@link setSimdEnabled}). @internal */
export function simdModule(): SimdExports | null {
  if (disabled) return null;
  if (cached !== undefined) return cached;
  cached = null;
  if (compiledModule() === null) return null;
  try {
    cached = instantiate(new (wasmApi()!).Memory({ initial: OWN_PAGES }));
  } catch {
    cached = null;
  }
  return cached;
}

/**
 * The module on another WebAssembly memory (tfjs-backend-wasm's heap), one instance per
 * memory; `null` as {@link simdModule}. Its passes then read and write that memory in place.
 * @internal
 */
export function simdModuleOn(memory: WasmMemory): SimdExports | null {
  if (simdModule() === null) return null;
  let m = onMemory.get(memory);
  if (m === undefined) {
    const made = instantiate(memory);
    if (made === null) return null;
    m = made;
    onMemory.set(memory, m);
  }
  return m;
}

/**
 * Turns the WASM SIMD path off (`false`) or back on (`true`) for this process, e.g.
 * to test or measure the pure-JS fallback. Returns the previous setting.
 */
export function setSimdEnabled(enabled: boolean): boolean {
  const was = !disabled;
  disabled = !enabled;
  return was;
}

/** Whether the WASM SIMD kernels are in use (available and not disabled). */
export function simdEnabled(): boolean {
  return simdModule() !== null;
}

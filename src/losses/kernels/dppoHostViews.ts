import * as tf from '@tensorflow/tfjs';
import { SIMD_CHUNK } from '../../numeric/simd/expInto.js';
import type { SimdExports, WasmMemory } from '../../numeric/simd/simdModule.js';
import { viewCache } from '../../numeric/simd/viewCache.js';

/**
 * The float32 memory the cpu/wasm DPPO kernel and its input check work on (issue #13):
 * the `cpu` backend's arrays (read in place), views into tfjs-backend-wasm's heap (the
 * WASM SIMD module runs there in place), a scratch area per heap, and the copy buffers
 * in the SIMD module's own memory that chunks are copied through elsewhere.
 * Views into the wasm heap are valid until the next tfjs allocation (which may grow the
 * heap and detach them).
 * @internal
 */

/**
 * What the kernel uses of tfjs-backend-cpu's `MathBackendCPU` (4.22): `readSync` (the
 * backend's own array, no copy) and `makeTensorInfo`. frognano does not import the
 * backend's types, so the object tfjs hands a kernel (typed `{}`) is checked by
 * {@link isCpuBackend}. @internal
 */
export interface CpuBackendLike {
  readSync(dataId: object): ArrayLike<number>;
  makeTensorInfo(shape: number[], dtype: tf.DataType, values: Float32Array): tf.TensorInfo;
}

/** Whether `b` has the methods of {@link CpuBackendLike}. @internal */
export function isCpuBackend(b: unknown): b is CpuBackendLike {
  return typeof b === 'object' && b !== null && 'readSync' in b && typeof b.readSync === 'function' && 'makeTensorInfo' in b && typeof b.makeTensorInfo === 'function';
}

/**
 * What the kernel uses of tfjs-backend-wasm's `BackendWasm` (4.22): `makeOutput` and
 * `typedArrayFromHeap` (views into its heap), and `wasm`, its Emscripten module (the heap's
 * `WebAssembly.Memory` and `_malloc`), which tfjs does not type as public; it is read
 * only through {@link heapMemory} and {@link heapScratchOf}. Checked by {@link isWasmBackend}. @internal
 */
export interface WasmBackendLike {
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array;
  wasm?: { _malloc(bytes: number): number; asm?: { memory?: WasmMemory }; wasmMemory?: WasmMemory; HEAPU8: Uint8Array };
}

/** Whether `b` has the methods of {@link WasmBackendLike} (its `wasm` module is checked by {@link heapMemory}). @internal */
export function isWasmBackend(b: unknown): b is WasmBackendLike {
  return typeof b === 'object' && b !== null && 'makeOutput' in b && typeof b.makeOutput === 'function' && 'typedArrayFromHeap' in b && typeof b.typedArrayFromHeap === 'function';
}

/** Byte size of one float32 chunk of {@link SIMD_CHUNK} values. @internal */
export const CB = SIMD_CHUNK * 4;
/** Byte offsets of the copy buffers in the module's own memory (float32 chunks). @internal */
export const C_LP = 0;
/** @internal */
export const C_LQ = CB;
/** @internal */
export const C_A = 2 * CB;
/** @internal */
export const C_W = 3 * CB;
/** @internal */
export const C_G = 4 * CB;
/** Scratch after the copy buffers (two chunks; `tv_loss_f32` keeps its near list there). @internal */
export const C_SCRATCH = 5 * CB; // 2 CB

/** Float32 views of the copy buffers (`lp`, `lq`, `a`, `w` in, `g` out) in the module's memory. @internal */
export interface CopyViews {
  lp: Float32Array;
  lq: Float32Array;
  a: Float32Array;
  w: Float32Array;
  g: Float32Array;
  /** The near list of `tv_loss_f32` (token indices in the chunk), at {@link C_SCRATCH}. */
  near: Int32Array;
}
/** The {@link CopyViews} of a module's memory, made again when the memory grew (a new buffer). @internal */
export const copyViewsOf: (m: SimdExports) => CopyViews = viewCache((buf) => {
  const v = (at: number) => new Float32Array(buf, at, SIMD_CHUNK);
  return { lp: v(C_LP), lq: v(C_LQ), a: v(C_A), w: v(C_W), g: v(C_G), near: new Int32Array(buf, C_SCRATCH, SIMD_CHUNK) };
});

/**
 * tfjs-backend-wasm's heap memory: the Emscripten module's `WebAssembly.Memory`
 * (`asm.memory`, or `wasmMemory` in other Emscripten builds), `null` when this backend
 * object does not expose it or it is not the memory of `HEAPU8`. @internal
 */
export function heapMemory(b: WasmBackendLike): WasmMemory | null {
  const w = b.wasm;
  if (w === undefined || w === null) return null;
  const mem = w.asm?.memory ?? w.wasmMemory;
  return mem !== undefined && mem.buffer === w.HEAPU8.buffer ? mem : null;
}

/** Scratch (two float32 chunks) per tfjs-backend-wasm heap, allocated once with its `_malloc`. */
const heapScratch = new WeakMap<object, number>();

/**
 * The byte offset of the scratch of backend `b`'s heap, allocated with its `_malloc` on
 * first use (an allocation may grow the heap: call it before taking views). Call it only
 * where {@link heapMemory} found the heap. @internal
 */
export function heapScratchOf(b: WasmBackendLike): number {
  let scratch = heapScratch.get(b);
  if (scratch === undefined) {
    scratch = b.wasm!._malloc(2 * CB);
    heapScratch.set(b, scratch);
  }
  return scratch;
}

/**
 * The float32 values of the four DPPO inputs on `cpu` (the backend's arrays, no copy) or
 * `wasm` (views into its heap), or `null` on another backend or dtype. Views into the
 * wasm heap are valid until the next tfjs allocation. @internal
 */
export function hostFloat32Views(tensors: readonly tf.Tensor[]): Float32Array[] | null {
  const name = tf.getBackend();
  if ((name !== 'cpu' && name !== 'wasm') || tensors.some((t) => t.dtype !== 'float32')) return null;
  const b = tf.backend();
  const out: Float32Array[] = [];
  for (const t of tensors) {
    const v = name === 'wasm' ? (isWasmBackend(b) ? b.typedArrayFromHeap(t) : null) : b.readSync(t.dataId);
    if (!(v instanceof Float32Array) || v.length !== t.size) return null;
    out.push(v);
  }
  return out;
}

import type { WasmMemory } from './simdModule.js';

/**
 * A cache of typed-array views into a WebAssembly module's memory (the chunk buffers a
 * pass copies its values through), written once for `expInto`, the typed-array
 * `dppoMask` and the cpu/wasm DPPO kernel. `make(buffer)` builds the views; the returned
 * function gives them for a module, building them again only when the memory's buffer
 * changed (a memory that grew has a new `ArrayBuffer`, and views of the old one are detached).
 * The passes are synchronous, so one set of views per cache is enough.
 *
 * @param make - builds the views on `buffer`
 * @returns `(m) => views` of `m.memory`
 * @example const viewsOf = viewCache((buf) => ({ x: new Float64Array(buf, 0, SIMD_CHUNK) }));
 * @internal
 */
export function viewCache<V>(make: (buffer: ArrayBuffer) => V): (m: { memory: WasmMemory }) => V {
  let cached: { buffer: ArrayBuffer; views: V } | null = null;
  return (m) => {
    const buffer = m.memory.buffer;
    if (cached === null || cached.buffer !== buffer) cached = { buffer, views: make(buffer) };
    return cached.views;
  };
}

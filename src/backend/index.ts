/**
 * Backend selection for the tensor losses: {@link useBackend} loads and starts
 * `cpu`, `wasm`, `webgpu` or `cuda` (tfjs-node-gpu) on demand, or the first of
 * them that works (`'auto'`). The backend packages are optional peer
 * dependencies, imported only when asked for. See `docs/backends.md`.
 * @module backend
 */
export { useBackend, BackendNameSchema, UseBackendOptionsSchema, BACKEND_PACKAGES, BACKEND_REQUIREMENTS } from './useBackend.js';
export type { BackendName, BackendSelection, UseBackendOptions } from './useBackend.js';
export { canReadSync } from './canReadSync.js';

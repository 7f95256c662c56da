/**
 * frognano: reinforcement-learning primitives and reward shaping for training
 * coding agents, from FrogNano, GAGAR and Verification Horizon.
 *
 * The root entry re-exports every module, the tfjs losses included (so it loads
 * `@tensorflow/tfjs`). Import a subpath such as `frognano/advantage` to use
 * the array primitives without loading a tensor engine.
 * @module frognano
 */
export * from './errors/index.js';
export * from './rewards/index.js';
export * from './advantage/index.js';
export * from './judges/index.js';
export * from './metrics/index.js';
export * from './curriculum/index.js';
export * from './compaction/index.js';
export * from './schema/index.js';
export * from './llm/index.js';
export * from './losses/index.js';
export * from './backend/index.js';
export * from './env/index.js';
export * from './models/index.js';
export * from './train/index.js';

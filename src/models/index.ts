/**
 * Models: {@link TinyGpt}, a GPT-style causal transformer on plain
 * `tf.variable`s with one-hot embeddings (trainable on the `wasm` backend),
 * small enough to train with the FrogNano recipe on two CPU cores. It
 * implements the `Policy` interface of `frognano/train`.
 * @module models
 */
export { createTinyGpt, TinyGpt, TinyGptOptionsSchema } from './tinyGpt.js';
export type { TinyGptConfig, TinyGptOptions } from './tinyGpt.js';

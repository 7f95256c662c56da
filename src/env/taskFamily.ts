export type { RefineDirection, TaskFamily } from '../curriculum/taskPilot.js';

/** A uniform random number in [0, 1), e.g. a `seedrandom` generator. */
export type Rng = () => number;

/** One supervised example: a token sequence and which of its tokens are trained on. */
export interface Demonstration {
  /** Prompt and assistant tokens (and observations, for multi-turn demonstrations). */
  tokens: number[];
  /** 1 for tokens the SFT loss trains on (assistant tokens), 0 for prompt and observations; same length as `tokens`. */
  lossMask: number[];
}

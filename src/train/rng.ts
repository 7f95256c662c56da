import seedrandom from 'seedrandom';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';

/** The serialisable state of a {@link SeededRng} (seedrandom's ARC4 state: `{ i, j, S }`). */
export type RngState = seedrandom.State.Arc4;

/**
 * A seeded random stream whose state can be saved and restored exactly, so a
 * run resumed from a checkpoint draws the same numbers as one that never
 * stopped. A thin wrapper over `seedrandom(seed, { state: true })`.
 *
 * @example
 * ```ts
 * const a = new SeededRng('run:1');
 * a.next();
 * const b = SeededRng.restore(a.state());
 * a.next() === b.next(); // true
 * ```
 */
export class SeededRng {
  private readonly prng: seedrandom.StatefulPRNG<seedrandom.State.Arc4>;

  constructor(seed: string | number, state?: RngState) {
    this.prng = state === undefined ? seedrandom(String(seed), { state: true }) : seedrandom('', { state });
  }

  /** A stream continuing exactly from `state`. */
  static restore(state: RngState): SeededRng {
    if (state === null || typeof state !== 'object' || !Array.isArray((state as { S?: unknown }).S)) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, 'state must be a seedrandom ARC4 state { i, j, S }', { fn: 'SeededRng.restore', field: 'state' });
    }
    return new SeededRng('', state);
  }

  /** A uniform number in [0, 1). */
  next(): number {
    return this.prng();
  }

  /** The stream as a plain function `() => number` (shares the state). */
  get fn(): () => number {
    return () => this.prng();
  }

  /** A copy of the current state (JSON-serialisable). */
  state(): RngState {
    return this.prng.state();
  }
}

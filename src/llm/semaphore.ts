import { integerAtLeast } from '../errors/validate.js';

/** A counting semaphore: at most `limit` holders at once, waiters served first come, first served. */
export interface Semaphore {
  /** Resolves when a slot is free; the returned function frees it (calling it twice frees once). */
  acquire(): Promise<() => void>;
  /** Runs `f` holding a slot and frees the slot when `f` settles. */
  run<T>(f: () => Promise<T>): Promise<T>;
  /** Slots held now. */
  readonly active: number;
  /** Callers waiting for a slot now. */
  readonly waiting: number;
}

/**
 * A small FIFO counting semaphore, the concurrency limit of
 * `openAiChatModel` (one per client, shared by all its calls).
 *
 * @param limit - the most holders at once, an integer >= 1
 * @throws FrognanoError `OUT_OF_RANGE` when `limit` is not an integer >= 1 (`INVALID_TYPE` for a
 *   non-number, `NON_FINITE` for NaN/±Infinity), naming `limit`
 * @example
 * const sem = createSemaphore(2);
 * await Promise.all(jobs.map((j) => sem.run(() => j()))); // at most 2 jobs run at once
 */
export function createSemaphore(limit: number): Semaphore {
  integerAtLeast('createSemaphore', 'limit', limit, 1);
  let active = 0;
  const queue: (() => void)[] = [];
  const release = (): void => {
    const next = queue.shift();
    if (next) next();
    else active--;
  };
  const acquire = (): Promise<() => void> =>
    new Promise((resolve) => {
      const grant = (): void => {
        let freed = false;
        resolve(() => {
          if (!freed) {
            freed = true;
            release();
          }
        });
      };
      if (active < limit) {
        active++;
        grant();
      } else queue.push(grant); // the slot passes directly from the releaser to this waiter
    });
  return {
    acquire,
    async run<T>(f: () => Promise<T>): Promise<T> {
      const free = await acquire();
      try {
        return await f();
      } finally {
        free();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}

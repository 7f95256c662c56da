/**
 * A concurrency limiter: at most `max` holders at a time, at most `maxQueue`
 * waiters; a further `acquire` fails at once (the caller answers 503), so an
 * overloaded service sheds load instead of queueing without bound.
 */
export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly max: number;
  private readonly maxQueue: number;

  constructor(max: number, maxQueue: number) {
    this.max = max;
    this.maxQueue = maxQueue;
  }

  /** Holders now. */
  get running(): number {
    return this.active;
  }

  /** Waiters now. */
  get queued(): number {
    return this.waiters.length;
  }

  /**
   * Resolves to a `release` function once a slot is free, or to `undefined`
   * at once when the queue is full.
   */
  acquire(): Promise<(() => void) | undefined> {
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiters.length >= this.maxQueue) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiters.push(() => resolve(this.releaser()));
    });
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiters.shift();
      if (next) next();
      else this.active--;
    };
  }
}

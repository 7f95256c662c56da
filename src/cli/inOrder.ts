/** What one item's work gave: its value, its error, or null when it never started (stopped). */
type Settled<R> = { value: R } | { error: unknown } | null;

/** A promise with its resolver. */
function slot<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Runs `work` on every item, at most `concurrency` at once (items started in
 * order), and hands each result to `emit` in the items' order, as soon as it and
 * every result before it are done: a slow first item holds the later lines back,
 * never their work. `emit` calls run one at a time. Once `stopped()` is true no
 * item starts and nothing more is emitted (the results of items still running
 * are dropped). An error of `work` or of `emit` stops the items not started yet
 * and is thrown once the running ones have finished; results after a failed item
 * are not emitted.
 */
export async function runInOrder<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>, emit: (result: R, index: number) => Promise<void>, stopped: () => boolean = () => false): Promise<void> {
  const slots = items.map(() => slot<Settled<R>>());
  let next = 0;
  let halted = false;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      if (halted || stopped()) {
        slots[i]!.resolve(null);
        continue;
      }
      try {
        slots[i]!.resolve({ value: await work(items[i]!, i) });
      } catch (error) {
        halted = true;
        slots[i]!.resolve({ error });
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker);
  try {
    for (let i = 0; i < items.length; i++) {
      const s = await slots[i]!.promise;
      if (s === null || stopped()) break;
      if ('error' in s) throw s.error;
      await emit(s.value, i);
    }
  } finally {
    halted = true;
    await Promise.all(workers);
  }
}

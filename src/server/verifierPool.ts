import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * A pool of worker threads that run a reward module (`frognano serve
 * --reward-module FILE --workers N`).
 *
 * Why threads: a verifier is user code. In the service's own thread a loop
 * that never ends would block every request, `/health` included, and nothing
 * could stop it. In a worker thread it blocks only that worker, and
 * `worker.terminate()` stops it even mid-loop. A module that patches globals
 * (`JSON.stringify`, `Array.prototype`) changes only its own worker, and a
 * worker that crashes (an uncaught error in a timer, `process.exit()`) is
 * replaced.
 *
 * Each worker imports the module once and runs one call at a time. Calls wait
 * in one FIFO queue. A call whose `signal` aborts (the request's `--timeout-ms`
 * passed) leaves the queue, or, when it is running, its worker is terminated and
 * a fresh one started: a hard limit, as the issue asks, not a hint the module
 * may ignore.
 *
 * This isolates the service from the module. It is not a sandbox for untrusted
 * code: a module that runs a model's answer must run it in a sandbox of its own
 * (see `examples/reward-module.mjs`, which uses the Leaf sandbox).
 */

/** Options of {@link VerifierPool.start}. */
export interface VerifierPoolOptions {
  /** Path of the reward module (an ES module; default export or export `reward`). */
  modulePath: string;
  /** Worker threads. Default: the number of cores (`os.availableParallelism()`). */
  workers?: number;
  /** How long a worker may take to import the module. Default 30000 ms. */
  loadTimeoutMs?: number;
}

/** Why a verifier call did not return a value. */
export type VerifierFailureKind = 'threw' | 'crashed' | 'aborted';

/** A verifier call that failed: the module threw (`threw`), its worker died (`crashed`), or the call was aborted (`aborted`, its worker replaced). */
export class VerifierCallError extends Error {
  readonly kind: VerifierFailureKind;
  constructor(kind: VerifierFailureKind, message: string) {
    super(message);
    this.name = 'VerifierCallError';
    this.kind = kind;
  }
}

/** Counters of the pool, for logs and tests. */
export interface VerifierPoolStats {
  /** Workers alive (loading or ready). */
  workers: number;
  /** Workers running a call now. */
  busy: number;
  /** Calls waiting for a worker. */
  queued: number;
  /** Workers replaced after an abort or a crash. */
  replaced: number;
  /** Calls completed (value or error). */
  completed: number;
}

interface Call {
  input: unknown;
  signal: AbortSignal | undefined;
  resolve(value: unknown): void;
  reject(e: VerifierCallError): void;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  call: Call | undefined;
  /** Set when the pool itself terminates this worker (abort, close): its exit is expected. */
  retiring: boolean;
}

/**
 * The worker's program: a plain JavaScript module loaded from a `data:` URL, so
 * it runs the same from the TypeScript sources and from `dist/`. (Unlike an
 * `eval` worker, a URL worker runs the process's `--import` preloads, so a
 * module that imports TypeScript works under tsx too.)
 */
const WORKER_SOURCE = String.raw`
import { parentPort, workerData } from 'node:worker_threads';
(async () => {
  let fn;
  try {
    if (workerData.tsx) (await import(workerData.tsx)).register();
    const mod = await import(workerData.url);
    fn = typeof mod.default === 'function' ? mod.default : mod.reward;
    if (typeof fn !== 'function') throw new Error(workerData.file + ' must export a function as its default export or as "reward"');
  } catch (e) {
    parentPort.postMessage({ type: 'load-error', message: e instanceof Error ? e.message : String(e) });
    return;
  }
  parentPort.on('message', async (m) => {
    let value;
    try {
      value = await fn(m.input);
    } catch (e) {
      parentPort.postMessage({ type: 'result', ok: false, message: e instanceof Error ? e.message : String(e) });
      return;
    }
    try {
      parentPort.postMessage({ type: 'result', ok: true, value });
    } catch (e) {
      parentPort.postMessage({ type: 'result', ok: false, message: 'returned a value that cannot be sent between threads (' + (e instanceof Error ? e.message : String(e)) + ')' });
    }
  });
  parentPort.postMessage({ type: 'ready' });
})();
`;

/**
 * tsx's register API when this process runs under tsx (frognano from its
 * TypeScript sources: `npm run frognano`, the tests). tsx does not hook worker
 * threads itself, so a reward module importing `frognano/leaf` would reach `.ts`
 * files its worker cannot load. Undefined for the built package.
 */
const TSX_API: string | undefined = (() => {
  if (!process.execArgv.some((a) => a.includes('tsx'))) return undefined;
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
})();

const WORKER_URL = new URL(`data:text/javascript,${encodeURIComponent(WORKER_SOURCE)}`);

/** See the module comment. Create with {@link VerifierPool.start}. */
export class VerifierPool {
  private readonly file: string;
  private readonly url: string;
  private readonly slots = new Set<Slot>();
  private readonly queue: Call[] = [];
  private readonly size: number;
  private closed = false;
  private counters = { replaced: 0, completed: 0 };

  private constructor(file: string, size: number) {
    this.file = file;
    this.url = pathToFileURL(resolve(file)).href;
    this.size = size;
  }

  /**
   * Starts `workers` workers and waits until each has imported the module.
   * @throws Error when the module cannot be imported or exports no function (the message says why)
   */
  static async start(opts: VerifierPoolOptions): Promise<VerifierPool> {
    const size = opts.workers ?? availableParallelism();
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`workers must be an integer >= 1, got ${size}`);
    const pool = new VerifierPool(opts.modulePath, size);
    const loads = Array.from({ length: size }, () => pool.spawn(opts.loadTimeoutMs ?? 30_000));
    const settled = await Promise.allSettled(loads);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await pool.close();
      throw failed.reason as Error;
    }
    return pool;
  }

  /** Current counters. */
  get stats(): VerifierPoolStats {
    let busy = 0;
    for (const s of this.slots) if (s.call) busy++;
    return { workers: this.slots.size, busy, queued: this.queue.length, ...this.counters };
  }

  /**
   * Runs the module's function on `input` (structured-cloned into a worker) and
   * resolves to what it returned (or resolved to).
   * @throws VerifierCallError `threw`, `crashed` or `aborted`
   */
  run(input: unknown, signal?: AbortSignal): Promise<unknown> {
    if (this.closed) return Promise.reject(new VerifierCallError('aborted', 'the verifier pool is closed'));
    if (signal?.aborted) return Promise.reject(new VerifierCallError('aborted', 'aborted before it started'));
    return new Promise((resolvePromise, rejectPromise) => {
      const call: Call = { input, signal, resolve: resolvePromise, reject: rejectPromise };
      if (signal) {
        call.onAbort = () => this.abort(call);
        signal.addEventListener('abort', call.onAbort, { once: true });
      }
      this.queue.push(call);
      this.dispatch();
    });
  }

  /** Terminates every worker; queued and running calls reject as `aborted`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const call of this.queue.splice(0)) this.settle(call, new VerifierCallError('aborted', 'the verifier pool closed'));
    const exits: Promise<number>[] = [];
    for (const slot of this.slots) {
      slot.retiring = true;
      if (slot.call) this.settle(slot.call, new VerifierCallError('aborted', 'the verifier pool closed'));
      slot.call = undefined;
      exits.push(slot.worker.terminate());
    }
    this.slots.clear();
    await Promise.allSettled(exits);
  }

  /** Starts one worker; resolves once it has imported the module. */
  private spawn(loadTimeoutMs: number): Promise<void> {
    const worker = new Worker(WORKER_URL, { workerData: { url: this.url, file: this.file, tsx: TSX_API } });
    const slot: Slot = { worker, ready: false, call: undefined, retiring: false };
    this.slots.add(slot);
    return new Promise<void>((resolveLoad, rejectLoad) => {
      let loading = true;
      const timer = setTimeout(() => {
        if (!loading) return;
        loading = false;
        slot.retiring = true;
        this.slots.delete(slot);
        void worker.terminate();
        rejectLoad(new Error(`${this.file} took longer than ${loadTimeoutMs} ms to import`));
      }, loadTimeoutMs);
      worker.on('message', (m: { type: string; ok?: boolean; value?: unknown; message?: string }) => {
        if (m.type === 'ready') {
          loading = false;
          clearTimeout(timer);
          slot.ready = true;
          resolveLoad();
          this.dispatch();
        } else if (m.type === 'load-error') {
          loading = false;
          clearTimeout(timer);
          slot.retiring = true;
          this.slots.delete(slot);
          void worker.terminate();
          rejectLoad(new Error(m.message ?? 'the module failed to load'));
        } else if (m.type === 'result' && slot.call) {
          const call = slot.call;
          slot.call = undefined;
          if (m.ok) this.settle(call, undefined, m.value);
          else this.settle(call, new VerifierCallError('threw', m.message ?? 'the reward module threw'));
          this.dispatch();
        }
      });
      const onDeath = (why: string): void => {
        if (slot.retiring) return;
        slot.retiring = true;
        this.slots.delete(slot);
        if (loading) {
          loading = false;
          clearTimeout(timer);
          rejectLoad(new Error(`the worker died while importing ${this.file}: ${why}`));
          return;
        }
        if (slot.call) this.settle(slot.call, new VerifierCallError('crashed', `the reward module's worker died (${why}); it was replaced`));
        slot.call = undefined;
        this.replace();
      };
      worker.on('error', (e) => onDeath(e instanceof Error ? e.message : String(e)));
      worker.on('exit', (code) => onDeath(`exit code ${code}`));
    });
  }

  /** Starts a worker in place of one that was terminated or died. */
  private replace(): void {
    if (this.closed) return;
    this.counters.replaced++;
    // A module that loaded once and now fails to load (a file edited in place)
    // leaves the pool a worker short; the calls still run on the others.
    this.spawn(30_000).catch(() => undefined);
  }

  private abort(call: Call): void {
    const i = this.queue.indexOf(call);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.settle(call, new VerifierCallError('aborted', 'aborted while waiting for a worker'));
      return;
    }
    for (const slot of this.slots) {
      if (slot.call !== call) continue;
      slot.call = undefined;
      slot.retiring = true;
      this.slots.delete(slot);
      void slot.worker.terminate();
      this.settle(call, new VerifierCallError('aborted', 'aborted while running; its worker was terminated and replaced'));
      this.replace();
      return;
    }
  }

  private settle(call: Call, error: VerifierCallError | undefined, value?: unknown): void {
    if (call.onAbort) call.signal?.removeEventListener('abort', call.onAbort);
    this.counters.completed++;
    if (error) call.reject(error);
    else call.resolve(value);
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.call || slot.retiring) continue;
      const call = this.queue.shift()!;
      slot.call = call;
      try {
        slot.worker.postMessage({ input: call.input });
      } catch (e) {
        slot.call = undefined;
        this.settle(call, new VerifierCallError('threw', `its input cannot be sent to a worker: ${e instanceof Error ? e.message : String(e)}`));
      }
    }
  }

  /** The number of workers the pool keeps. */
  get workers(): number {
    return this.size;
  }
}

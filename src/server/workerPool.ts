import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * A pool of worker threads, each running one call at a time, fed from one FIFO
 * queue, with a hard stop: a call whose `signal` aborts leaves the queue, or,
 * when it is running, its worker is terminated (`worker.terminate()` stops even
 * a synchronous endless loop) and a fresh one started. A worker that dies
 * (an uncaught error, `process.exit()`) fails its call and is replaced.
 *
 * The service uses two: a {@link VerifierPool} for a reward module, and a
 * compute pool (`computePool.ts`) that parses and computes the requests of the
 * built-in endpoints, so that neither user code nor a large body ever blocks the
 * thread that answers `/health`.
 *
 * A worker script speaks this protocol: it posts `{ type: 'ready' }` once
 * loaded (or `{ type: 'load-error', message }`), then answers each message with
 * `{ type: 'result', ok: true, value }` or `{ type: 'result', ok: false, message }`.
 */

/** Options of {@link WorkerPool.create}. */
export interface WorkerPoolOptions {
  /** The worker script (see {@link workerScript}). */
  script: URL;
  /** Given to every worker as `workerData`. */
  workerData?: unknown;
  /** Worker threads (>= 1). */
  workers: number;
  /** How long a worker may take to load. Default 30000 ms. */
  loadTimeoutMs?: number;
  /** What the workers run, for messages (`the reward module`, `the compute worker`). */
  what: string;
}

/** Why a call did not return a value. */
export type WorkerFailureKind = 'threw' | 'crashed' | 'aborted';

/** A call that failed: the worker's code threw (`threw`), its worker died (`crashed`), or the call was aborted (`aborted`, its worker replaced). */
export class WorkerCallError extends Error {
  readonly kind: WorkerFailureKind;
  constructor(kind: WorkerFailureKind, message: string) {
    super(message);
    this.name = 'WorkerCallError';
    this.kind = kind;
  }
}

/** Counters of the pool, for logs and tests. */
export interface WorkerPoolStats {
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
  transfer: readonly ArrayBuffer[] | undefined;
  signal: AbortSignal | undefined;
  resolve(value: unknown): void;
  reject(e: WorkerCallError): void;
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
 * tsx's register API when this process runs under tsx (frognano from its
 * TypeScript sources: `npm run frognano`, the tests). tsx does not hook worker
 * threads itself, so a reward module importing `frognano/leaf` would reach `.ts`
 * files its worker cannot load. Undefined for the built package.
 */
const TSX_API: string | undefined = (() => {
  // from the .ts sources (tsx, vitest); the built package never needs it
  if (!import.meta.url.endsWith('.ts') && !process.execArgv.some((a) => a.includes('tsx'))) return undefined;
  try {
    if (typeof import.meta.resolve === 'function') return import.meta.resolve('tsx/esm/api');
    // vitest: resolve through require, then take the ES build next to the CommonJS one
    const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
    return new URL(`file://${cjs.replace(/index\.cjs$/, 'index.mjs')}`).href;
  } catch {
    return undefined;
  }
})();

/**
 * A worker script from JavaScript source: a `data:` URL module (so it runs the
 * same from the TypeScript sources and from `dist/`; unlike an `eval` worker, a
 * URL worker runs the process's `--import` preloads). Under tsx its first step
 * registers tsx in the worker (`workerData.tsx`), which tsx does not do itself,
 * so the worker can import `.ts` files.
 */
export function workerScript(source: string): URL {
  return new URL(`data:text/javascript,${encodeURIComponent(source)}`);
}

/** What every worker gets besides the pool's own `workerData`: tsx's register API when running from source. */
function withTsx(data: unknown): unknown {
  return { ...(data as object), tsx: TSX_API };
}

/** See the module comment. Create with {@link WorkerPool.create}. */
export class WorkerPool {
  private readonly script: URL;
  private readonly data: unknown;
  private readonly what: string;
  private readonly slots = new Set<Slot>();
  private readonly queue: Call[] = [];
  private readonly size: number;
  private closed = false;
  private counters = { replaced: 0, completed: 0 };

  protected constructor(opts: WorkerPoolOptions) {
    this.script = opts.script;
    this.data = withTsx(opts.workerData ?? {});
    this.what = opts.what;
    this.size = opts.workers;
  }

  /**
   * Starts the workers and waits until each has loaded.
   * @throws Error when a worker cannot load (its message says why); RangeError for a bad `workers`
   */
  static async create(opts: WorkerPoolOptions): Promise<WorkerPool> {
    const pool = new WorkerPool(opts);
    await pool.load(opts.loadTimeoutMs ?? 30_000);
    return pool;
  }

  /** Spawns the workers; rejects (after closing the pool) when one cannot load. */
  protected async load(loadTimeoutMs: number): Promise<void> {
    const size = this.size;
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`workers must be an integer >= 1, got ${size}`);
    const pool = this;
    const loads = Array.from({ length: size }, () => pool.spawn(loadTimeoutMs));
    const settled = await Promise.allSettled(loads);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      await pool.close();
      throw failed.reason as Error;
    }
  }

  /** Current counters. */
  get stats(): WorkerPoolStats {
    let busy = 0;
    for (const s of this.slots) if (s.call) busy++;
    return { workers: this.slots.size, busy, queued: this.queue.length, ...this.counters };
  }

  /**
   * Sends `input` to a free worker (structured-cloned; an `ArrayBuffer` in
   * `transfer` is moved, not copied) and resolves to the value it answers.
   * @throws WorkerCallError `threw`, `crashed` or `aborted`
   */
  run(input: unknown, signal?: AbortSignal, transfer?: readonly ArrayBuffer[]): Promise<unknown> {
    if (this.closed) return Promise.reject(new WorkerCallError('aborted', 'the verifier pool is closed'));
    if (signal?.aborted) return Promise.reject(new WorkerCallError('aborted', 'aborted before it started'));
    return new Promise((resolvePromise, rejectPromise) => {
      const call: Call = { input, signal, transfer, resolve: resolvePromise, reject: rejectPromise };
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
    for (const call of this.queue.splice(0)) this.settle(call, new WorkerCallError('aborted', 'the verifier pool closed'));
    const exits: Promise<number>[] = [];
    for (const slot of this.slots) {
      slot.retiring = true;
      if (slot.call) this.settle(slot.call, new WorkerCallError('aborted', 'the verifier pool closed'));
      slot.call = undefined;
      exits.push(slot.worker.terminate());
    }
    this.slots.clear();
    await Promise.allSettled(exits);
  }

  /** Starts one worker; resolves once it has imported the module. */
  private spawn(loadTimeoutMs: number): Promise<void> {
    const worker = new Worker(this.script, { workerData: this.data });
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
        rejectLoad(new Error(`${this.what} took longer than ${loadTimeoutMs} ms to load`));
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
          rejectLoad(new Error(m.message ?? `${this.what} failed to load`));
        } else if (m.type === 'result' && slot.call) {
          const call = slot.call;
          slot.call = undefined;
          if (m.ok) this.settle(call, undefined, m.value);
          else this.settle(call, new WorkerCallError('threw', m.message ?? `${this.what} threw`));
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
          rejectLoad(new Error(`the worker died while loading ${this.what}: ${why}`));
          return;
        }
        if (slot.call) this.settle(slot.call, new WorkerCallError('crashed', `the worker running ${this.what} died (${why}); it was replaced`));
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
      this.settle(call, new WorkerCallError('aborted', 'aborted while waiting for a worker'));
      return;
    }
    for (const slot of this.slots) {
      if (slot.call !== call) continue;
      slot.call = undefined;
      slot.retiring = true;
      this.slots.delete(slot);
      void slot.worker.terminate();
      this.settle(call, new WorkerCallError('aborted', 'aborted while running; its worker was terminated and replaced'));
      this.replace();
      return;
    }
  }

  private settle(call: Call, error: WorkerCallError | undefined, value?: unknown): void {
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
        slot.worker.postMessage({ input: call.input }, call.transfer as ArrayBuffer[] | undefined);
      } catch (e) {
        slot.call = undefined;
        this.settle(call, new WorkerCallError('threw', `its input cannot be sent to a worker: ${e instanceof Error ? e.message : String(e)}`));
      }
    }
  }

  /** The number of workers the pool keeps. */
  get workers(): number {
    return this.size;
  }
}

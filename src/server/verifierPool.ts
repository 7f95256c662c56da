import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkerPool, workerScript } from './workerPool.js';

/**
 * A {@link WorkerPool} that runs a reward module (`frognano serve
 * --reward-module FILE --workers N`).
 *
 * Why threads: a verifier is user code. In the service's own thread a loop
 * that never ends would block every request, `/health` included, and nothing
 * could stop it. In a worker thread it blocks only that worker, and the pool
 * terminates it at the request's `--timeout-ms`. A module that patches globals
 * (`JSON.stringify`, `Array.prototype`) changes only its own worker, and a
 * worker that crashes is replaced.
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

/** The worker's program: imports the module once, then calls it on each input. */
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
  const message = (e) => (e instanceof Error ? e.message : String(e));
  const UNSENDABLE = 'returned a value that cannot be sent between threads';
  parentPort.on('message', async (m) => {
    if (m.input && m.input.batch) {
      // a chunk of a request's rollouts, one message each way: one result per input
      const results = [];
      for (const input of m.input.batch) {
        try {
          results.push({ ok: true, value: await fn(input) });
        } catch (e) {
          results.push({ ok: false, message: message(e) });
        }
      }
      try {
        parentPort.postMessage({ type: 'result', ok: true, value: results });
      } catch {
        const safe = results.map((r) => {
          if (!r.ok) return r;
          try {
            structuredClone(r.value);
            return r;
          } catch (e) {
            return { ok: false, message: UNSENDABLE + ' (' + message(e) + ')' };
          }
        });
        parentPort.postMessage({ type: 'result', ok: true, value: safe });
      }
      return;
    }
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

const SCRIPT = workerScript(WORKER_SOURCE);

/** One input's result in {@link VerifierPool.runBatch}. */
export type VerifierResult = { ok: true; value: unknown } | { ok: false; message: string };

/** See the module comment. */
export class VerifierPool extends WorkerPool {
  /**
   * Runs the module on every input, in chunks spread over the workers (one
   * message per chunk each way, not one per rollout: per-rollout messages made
   * the main thread the bottleneck). Resolves to one result per input, in
   * order; a module that throws on one input fails that input only.
   * @throws WorkerCallError `crashed` (a worker died) or `aborted` (`signal`: the chunks still running are terminated)
   */
  async runBatch(inputs: readonly unknown[], signal?: AbortSignal): Promise<VerifierResult[]> {
    if (inputs.length === 0) return [];
    const size = Math.ceil(inputs.length / this.workers);
    const chunks: unknown[][] = [];
    for (let i = 0; i < inputs.length; i += size) chunks.push(inputs.slice(i, i + size));
    const parts = (await Promise.all(chunks.map((batch) => this.run({ batch }, signal)))) as VerifierResult[][];
    return parts.flat();
  }

  /**
   * Starts `workers` workers and waits until each has imported the module.
   * @throws Error when the module cannot be imported or exports no function (the message says why)
   */
  static async start(opts: VerifierPoolOptions): Promise<VerifierPool> {
    const pool = new VerifierPool({
      script: SCRIPT,
      workerData: { url: pathToFileURL(resolve(opts.modulePath)).href, file: opts.modulePath },
      workers: opts.workers ?? availableParallelism(),
      what: `the reward module ${opts.modulePath}`,
    });
    await pool.load(opts.loadTimeoutMs ?? 30_000);
    return pool;
  }
}

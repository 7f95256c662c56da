import { availableParallelism } from 'node:os';
import type { ShapeRewardOptions } from '../rewards/index.js';
import type { ComputeAnswer, ComputeRequest } from './computeProtocol.js';
import { WorkerPool, workerScript } from './workerPool.js';

/**
 * The service's compute workers: a {@link WorkerPool} whose workers parse the
 * body and compute the answer of every endpoint that runs no reward module
 * (the OpenRLHF / slime / verl endpoints with the built-in shaper, and
 * `/v1/...`).
 *
 * Why: `JSON.parse` of a 100 MB batch, or a large computation, would hold the
 * service's thread for hundreds of milliseconds, and every other request,
 * `/health` included, would wait. In a worker it holds only that worker; a
 * request past `--timeout-ms` has its worker terminated (a computation that
 * never ends cannot keep its slot), and several workers use several cores.
 * The body's bytes are transferred to the worker, not copied.
 */

/** Options of {@link ComputePool.start}. */
export interface ComputePoolOptions {
  /** Worker threads. Default: the number of cores. */
  workers?: number;
  /** The built-in shaper's options (the service's `--budget/--alpha/...`). */
  shaping: ShapeRewardOptions;
  /** Defaults of `POST /v1/rewards` (the shaping flags as given). */
  rewardDefaults: Partial<ShapeRewardOptions>;
}

/** The worker: registers tsx when running from source, then loads computeWorker. */
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const WORKER_FILE = new URL(`./computeWorker${ext}`, import.meta.url).href;
const SCRIPT = workerScript(`
import { workerData } from 'node:worker_threads';
if (workerData.tsx) (await import(workerData.tsx)).register();
await import(${JSON.stringify(WORKER_FILE)});
`);

/** See the module comment. */
export class ComputePool extends WorkerPool {
  /** Starts the workers; resolves once each has loaded the service's routes. */
  static async start(opts: ComputePoolOptions): Promise<ComputePool> {
    const pool = new ComputePool({
      script: SCRIPT,
      workerData: { shaping: opts.shaping, rewardDefaults: opts.rewardDefaults },
      workers: opts.workers ?? availableParallelism(),
      what: 'the compute worker',
    });
    await pool.load(30_000);
    return pool;
  }

  /**
   * Computes one request's answer in a worker. The body's buffer is
   * transferred: the caller must not use it afterwards.
   * @throws WorkerCallError `aborted` (the signal aborted: the worker was terminated) or `crashed`
   */
  async compute(path: string, search: string, body: Buffer, signal?: AbortSignal): Promise<ComputeAnswer> {
    // a Buffer may share a pooled ArrayBuffer: transfer only a buffer it owns alone
    const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : Buffer.from(body);
    const bytes = new Uint8Array(own.buffer, own.byteOffset, own.byteLength);
    const request: ComputeRequest = { path, search, body: bytes };
    return (await this.run(request, signal, [bytes.buffer as ArrayBuffer])) as ComputeAnswer;
  }
}

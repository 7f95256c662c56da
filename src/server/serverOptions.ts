import type { ComputePool } from './computePool.js';
import type { Logger } from './logger.js';
import type { RewardEngine } from './rewardEngine.js';
import type { ShapeRewardOptions } from '../rewards/index.js';

/**
 * Options of {@link FrognanoServer} (SPEC §11). Every limit has the default
 * written here; {@link resolveServerOptions} fills them in.
 */
export interface ServerOptions {
  /** Address to bind. Default `127.0.0.1` (loopback only; pass `0.0.0.0` deliberately to expose it). */
  host?: string;
  /** Port; 0 picks a free one (see the `listening` log line). Default 8000. */
  port?: number;
  /**
   * Largest accepted request body in bytes; larger -> 413 naming `--max-body`.
   * Default 128 MiB: an OpenRLHF batch of 256 queries of 80k characters, with
   * prompts and labels, and multi-byte text, fits.
   */
  maxBodyBytes?: number;
  /**
   * Per-request time limit in ms, from the first byte to the response; later ->
   * 504. A hard limit for a reward module in a worker pool: its calls are
   * terminated (the workers replaced) and the answer is 504 `VERIFIER_TIMEOUT`.
   * Default 30000.
   */
  timeoutMs?: number;
  /**
   * Bearer token: when set, every route but `GET /health` needs
   * `Authorization: Bearer <token>`, else 401 `UNAUTHORIZED` (SPEC §11).
   * Default none (no authentication; bind loopback only).
   */
  token?: string;
  /** Requests computed at the same time. Default 64. */
  maxConcurrency?: number;
  /** Requests waiting for a slot; beyond -> 503 OVERLOADED. Default 1024. */
  maxQueue?: number;
  /** How long a graceful shutdown waits for in-flight requests before closing connections. Default 30000. */
  shutdownTimeoutMs?: number;
  /**
   * Drain period of a shutdown, in ms: open connections stay open this long (or
   * until their clients close them), and a request arriving on one is answered
   * 503 `SHUTTING_DOWN` with `Connection: close` instead of meeting a closed
   * socket. Default 2000.
   */
  drainMs?: number;
  /** Open TCP connections at most; beyond, a new connection is closed at once. Default 1000. */
  maxConnections?: number;
  /** Time a connection may take to send a request's headers, from its first byte or from connecting; later -> the socket is closed. Default 10000. */
  headersTimeoutMs?: number;
  /** Time an idle keep-alive connection is kept open between requests. Default 5000. */
  keepAliveTimeoutMs?: number;
  /** Scores OpenRLHF / slime / verl requests. */
  engine: RewardEngine;
  /** Shaping options given on the command line: the defaults of `POST /v1/rewards`. Default `{}` (each body gives budget and alpha). */
  rewardDefaults?: Partial<ShapeRewardOptions>;
  /**
   * Worker threads that parse and compute the requests of every endpoint that
   * runs no reward module, so that a large body or computation never blocks
   * the service's thread (`/health` answers meanwhile) and a request past
   * `timeoutMs` has its worker terminated. Default none: computed in the
   * service's thread (`frognano serve` always starts one).
   */
  computePool?: ComputePool;
  /** Structured logs. */
  logger: Logger;
  /** Reported by `GET /`. */
  version?: string;
}

/** The default body limit: 128 MiB (see {@link ServerOptions.maxBodyBytes}). */
export const DEFAULT_MAX_BODY_BYTES = 128 * 1024 * 1024;

/** {@link ServerOptions} with every limit filled in (the token is kept apart, as its digest). @internal */
export type ResolvedServerOptions = Required<Omit<ServerOptions, 'engine' | 'logger' | 'version' | 'rewardDefaults' | 'token' | 'computePool'>> &
  Pick<ServerOptions, 'engine' | 'logger' | 'version' | 'rewardDefaults' | 'computePool'>;

/**
 * Fills in the defaults of {@link ServerOptions}; a field given as `undefined`
 * takes its default too. @internal
 */
export function resolveServerOptions(options: ServerOptions): ResolvedServerOptions {
  return {
    host: '127.0.0.1',
    port: 8000,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    timeoutMs: 30_000,
    maxConcurrency: 64,
    maxQueue: 1024,
    shutdownTimeoutMs: 30_000,
    drainMs: 2_000,
    maxConnections: 1_000,
    headersTimeoutMs: 10_000,
    keepAliveTimeoutMs: 5_000,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  } as ResolvedServerOptions;
}

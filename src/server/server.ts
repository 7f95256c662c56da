import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { HttpError } from './httpError.js';
import { ConcurrencyLimiter } from './limiter.js';
import type { Logger } from './logger.js';
import type { ComputePool } from './computePool.js';
import { wireError, type WireError } from './computeProtocol.js';
import { postRoutes, type PostRoute } from './postRoutes.js';
import type { RewardEngine } from './rewardEngine.js';
import type { ShapeRewardOptions } from '../rewards/index.js';
import { stringifyWire } from '../wire/index.js';
import { formatBytes } from '../commands/index.js';
import { WorkerCallError } from './workerPool.js';

/** Options of {@link FrognanoServer}. Every limit has the default written here. */
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

/** A GET route (`/health`, `/`). */
interface GetRoute {
  method: 'GET';
  handle(): unknown;
}

/** A POST route: one of {@link postRoutes}. */
type Route = GetRoute | (PostRoute & { method: 'POST' });

/**
 * The frognano HTTP service (node:http, no framework): OpenRLHF's and slime's
 * remote reward protocols, a verl endpoint, and native JSON endpoints for the
 * library's primitives, with a body-size limit, a per-request timeout, a
 * concurrency limit with a bounded queue, structured logs and a graceful
 * shutdown that finishes the requests in flight.
 */
export class FrognanoServer {
  /** The underlying node:http server. */
  readonly server: Server;
  private readonly opts: Required<Omit<ServerOptions, 'engine' | 'logger' | 'version' | 'rewardDefaults' | 'token' | 'computePool'>> &
    Pick<ServerOptions, 'engine' | 'logger' | 'version' | 'rewardDefaults' | 'computePool'>;
  /** sha256 of the bearer token, or undefined without authentication. */
  private readonly tokenDigest: Buffer | undefined;
  private readonly limiter: ConcurrencyLimiter;
  private readonly routes = new Map<string, Route>();
  private seq = 0;
  private inFlight = 0;
  private draining = false;
  /** Open TCP connections. */
  private readonly openSockets = new Set<import('node:net').Socket>();
  /** Called when the last open connection closes during a drain. */
  private socketsGone: (() => void) | undefined;
  /** Sockets with a request being answered (never closed by the idle timer). */
  private readonly busySockets = new Set<import('node:net').Socket>();
  private drained: (() => void) | undefined;

  constructor(options: ServerOptions) {
    this.opts = {
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
    } as FrognanoServer['opts'];
    this.tokenDigest = options.token === undefined ? undefined : sha256(options.token);
    this.limiter = new ConcurrencyLimiter(this.opts.maxConcurrency, this.opts.maxQueue);
    this.routes.set('/health', { method: 'GET', handle: () => ({ status: 'ok' }) });
    this.routes.set('/', { method: 'GET', handle: () => this.index() });
    for (const [path, route] of postRoutes(this.opts.engine, this.opts.rewardDefaults ?? {})) this.routes.set(path, { ...route, method: 'POST' });
    this.server = createServer((req, res) => {
      // Last resort: no error in one request may end the process.
      this.handle(req, res).catch((e: unknown) => this.lastResort(e, req, res));
    });
    // Slow or silent clients: the headers must arrive within headersTimeoutMs
    // (a socket that never sends a byte included), the whole request within
    // timeoutMs + 5 s; an idle keep-alive socket closes after keepAliveTimeoutMs.
    this.server.headersTimeout = this.opts.headersTimeoutMs;
    this.server.requestTimeout = Math.max(this.opts.timeoutMs + 5_000, this.opts.headersTimeoutMs + 1);
    this.server.keepAliveTimeout = this.opts.keepAliveTimeoutMs;
    this.server.maxConnections = this.opts.maxConnections;
    // A socket that connects and never sends a byte is not parsing headers yet in
    // every Node version: give it the same limit.
    this.server.on('connection', (socket) => {
      this.openSockets.add(socket);
      socket.once('close', () => {
        this.openSockets.delete(socket);
        if (this.openSockets.size === 0) this.socketsGone?.();
      });
      socket.setTimeout(this.opts.headersTimeoutMs + this.opts.keepAliveTimeoutMs, () => {
        if (!this.busySockets.has(socket)) socket.destroy();
      });
    });
    this.server.on('drop', (data?: { remoteAddress?: string }) => {
      this.opts.logger.warn('connection refused: --max-connections reached', { maxConnections: this.opts.maxConnections, remoteAddress: data?.remoteAddress });
    });
  }

  private index(): unknown {
    return {
      name: 'frognano',
      version: this.opts.version,
      endpoints: [...this.routes.entries()].map(([path, r]) => `${r.method} ${path}`),
    };
  }

  /** Requests accepted and not yet answered. */
  get pending(): number {
    return this.inFlight;
  }

  /** Binds and resolves to the bound address. */
  listen(): Promise<{ host: string; port: number; url: string }> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void => reject(e);
      this.server.once('error', onError);
      this.server.listen(this.opts.port, this.opts.host, () => {
        this.server.off('error', onError);
        const a = this.server.address() as AddressInfo;
        const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
        resolve({ host: a.address, port: a.port, url: `http://${host}:${a.port}` });
      });
    });
  }

  /**
   * Graceful shutdown:
   * 1. drain: for `drainMs`, or until every client has closed its connection,
   *    keep listening and answer every new request, on an open keep-alive
   *    connection or a new one, with 503 `SHUTTING_DOWN`, `Retry-After: 1` and
   *    `Connection: close`, so a request that crosses the shutdown gets an answer
   *    instead of a reset;
   * 2. stop listening, close the idle connections, wait for the requests in
   *    flight (up to `shutdownTimeoutMs`), then close every connection.
   * Resolves to true when every in-flight request was answered in time. A
   * client connecting in the instant the listener closes can still see a reset
   * or a refused connection: clients retry those (the Python client does).
   */
  async shutdown(): Promise<boolean> {
    if (!this.draining) {
      this.draining = true;
      if (this.openSockets.size > 0 && this.opts.drainMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          this.socketsGone = resolve;
          timer = setTimeout(resolve, this.opts.drainMs);
        });
        clearTimeout(timer);
        this.socketsGone = undefined;
      }
      this.server.close();
      this.server.closeIdleConnections();
    }
    let graceful = true;
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      graceful = await new Promise<boolean>((resolve) => {
        this.drained = () => resolve(true);
        timer = setTimeout(() => resolve(false), this.opts.shutdownTimeoutMs);
      });
      clearTimeout(timer);
      this.drained = undefined;
    }
    this.server.closeAllConnections();
    return graceful;
  }

  /** Closes every connection at once (a second signal). */
  forceClose(): void {
    this.draining = true;
    this.server.close();
    this.server.closeAllConnections();
  }

  private lastResort(e: unknown, req: IncomingMessage, res: ServerResponse): void {
    const err = e instanceof Error ? e : new Error(String(e));
    this.opts.logger.error('unhandled error in a request', { method: req.method, url: req.url, error: { message: err.message, stack: err.stack } });
    if (!res.headersSent) {
      const text = '{"error":{"code":"INTERNAL","message":"internal error (see the service log)"}}';
      res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close' });
      res.end(text);
    } else {
      res.destroy();
    }
  }

  /** True when the request carries the right bearer token (or none is required). */
  private authorized(req: IncomingMessage): boolean {
    if (this.tokenDigest === undefined) return true;
    const h = req.headers.authorization;
    if (typeof h !== 'string') return false;
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(h);
    return m !== null && timingSafeEqual(sha256(m[1]!), this.tokenDigest);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = ++this.seq;
    const t0 = performance.now();
    const socket = req.socket;
    this.busySockets.add(socket);
    let path = '?';
    this.inFlight++;
    let status = 500;
    let error: { code: string; message: string; stack?: string | undefined } | undefined;
    let bytesIn = 0;
    let release: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    let answered = false;
    let computing = false;
    let route: Route | undefined;
    const aborter = new AbortController();

    /** Sends an answer's text (written here, or by a compute worker). */
    const sendText = (code: number, text: string, headers: Record<string, string> = {}): void => {
      if (answered || res.headersSent) return;
      answered = true;
      // An answer before the body was read (401, 404, 503, 413...): read and drop
      // the rest, so closing the connection does not reset it under the client.
      if (!req.readableEnded) req.resume();
      status = code;
      const h: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers };
      if (this.draining) h.connection = 'close';
      res.writeHead(code, h);
      res.end(text);
    };
    const send = (code: number, payload: unknown, headers: Record<string, string> = {}, bareReward = false): void => {
      if (!answered && !res.headersSent) sendText(code, stringifyWire(payload, bareReward), headers);
    };
    /** Answers a {@link WireError}: a 500 `INTERNAL` shows the client no detail (the log has it). */
    const sendError = (w: WireError): void => {
      const { status: code, stack, headers, ...fields } = w;
      error = { code: fields.code, message: fields.message, ...(stack ? { stack } : {}) };
      const shown = fields.code === 'INTERNAL' ? { code: 'INTERNAL', message: 'internal error (see the service log)' } : fields;
      send(code, { error: shown }, headers);
    };
    const fail = (e: unknown): void => {
      if (e instanceof WorkerCallError && answered) return; // aborted at the time limit: the 504 is already sent
      sendError(wireError(e));
    };

    res.on('finish', () => {
      clearTimeout(timer);
      const durationMs = Math.round((performance.now() - t0) * 1000) / 1000;
      const fields = { id, method: req.method, path, status, durationMs, bytesIn, ...(error ? { error } : {}) };
      if (status >= 500) this.opts.logger.error('request', fields);
      else if (status >= 400) this.opts.logger.warn('request', fields);
      else this.opts.logger.info('request', fields);
    });
    res.on('close', () => {
      this.busySockets.delete(socket);
      clearTimeout(timer);
      aborter.abort(); // a client gone before its answer: stop its verifier calls
      this.inFlight--;
      if (this.inFlight === 0) this.drained?.();
    });

    try {
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://localhost');
      } catch {
        req.resume();
        throw new HttpError(400, 'BAD_REQUEST', `the request target ${JSON.stringify((req.url ?? '').slice(0, 200))} is not a valid path`);
      }
      path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
      this.opts.logger.debug('received', { id, method: req.method, path });
      if (this.draining) {
        // read the body before answering with Connection: close: closing with
        // unread bytes would reset the connection before the client reads the 503
        await discardBody(req, 1_000);
        throw new HttpError(503, 'SHUTTING_DOWN', 'the service is shutting down', { headers: { 'retry-after': '1' } });
      }
      if (path !== '/health' && !this.authorized(req)) {
        req.resume();
        throw new HttpError(401, 'UNAUTHORIZED', 'this service needs "Authorization: Bearer <token>" (the token given to frognano serve --token or FROGNANO_TOKEN)', {
          headers: { 'www-authenticate': 'Bearer realm="frognano"' },
        });
      }
      route = this.routes.get(path);
      if (!route) throw new HttpError(404, 'NOT_FOUND', `no endpoint ${path}; GET / lists them`);
      if (req.method !== route.method && !(route.method === 'GET' && req.method === 'HEAD')) {
        throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${path} takes ${route.method}, got ${req.method}`, { headers: { allow: route.method } });
      }
      if (route.method === 'GET') {
        req.resume();
        send(200, route.handle());
        return;
      }
      const limited = route;
      timer = setTimeout(() => {
        aborter.abort();
        if (computing && limited.runsVerifier) {
          fail(new HttpError(504, 'VERIFIER_TIMEOUT', `the reward module did not finish within --timeout-ms ${this.opts.timeoutMs}; its calls were terminated and their workers replaced`));
        } else {
          fail(new HttpError(504, 'TIMEOUT', `the request took longer than --timeout-ms ${this.opts.timeoutMs}`));
        }
      }, this.opts.timeoutMs);
      // A slot before the body: a body is buffered only when it can be computed
      // (32 large bodies waiting for 2 slots must not all sit in memory).
      release = await this.limiter.acquire();
      if (!release) {
        req.resume();
        throw new HttpError(503, 'OVERLOADED', `more than ${this.opts.maxQueue} requests are waiting; retry later`, { headers: { 'retry-after': '1' } });
      }
      if (answered) {
        req.resume();
        return;
      }
      const body = await this.readBody(req, (n) => (bytesIn = n));
      if (answered) return;
      computing = true;
      const pool = this.opts.computePool;
      if (pool && !route.runsVerifier) {
        const a = await pool.compute(path, url.search, body, aborter.signal);
        if (a.text !== undefined) sendText(200, a.text);
        else sendError(a.error);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (e) {
        throw new HttpError(400, 'INVALID_JSON', `the body is not valid JSON: ${(e as Error).message}`);
      }
      const result = await route.handle(parsed, url.searchParams, aborter.signal);
      send(200, result, {}, route.bareReward === true && typeof result === 'number');
    } catch (e) {
      fail(e);
    } finally {
      release?.();
    }
  }

  private readBody(req: IncomingMessage, onBytes: (n: number) => void): Promise<Buffer> {
    const limit = this.opts.maxBodyBytes;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      return Promise.reject(new HttpError(413, 'PAYLOAD_TOO_LARGE', `the body has ${declared} bytes, more than the limit of ${limit} (${formatBytes(limit)}); start the service with a larger --max-body`, { headers: { connection: 'close' } }));
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let total = 0;
      let over = false;
      req.on('data', (c: Buffer) => {
        if (over) return;
        total += c.length;
        onBytes(total);
        if (total > limit) {
          over = true;
          chunks.length = 0;
          reject(new HttpError(413, 'PAYLOAD_TOO_LARGE', `the body is larger than the limit of ${limit} bytes (${formatBytes(limit)}); start the service with a larger --max-body`, { headers: { connection: 'close' } }));
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        if (!over) resolve(Buffer.concat(chunks, total));
      });
      req.on('error', (e) => reject(new HttpError(400, 'BAD_REQUEST', `reading the body failed: ${e.message}`)));
    });
  }
}

/** The default body limit: 128 MiB (see {@link ServerOptions.maxBodyBytes}). */
export const DEFAULT_MAX_BODY_BYTES = 128 * 1024 * 1024;

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Reads and drops a request's body; resolves at its end, on an error, or after `maxMs`. */
function discardBody(req: IncomingMessage, maxMs: number): Promise<void> {
  if (req.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, maxMs);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    req.once('end', done);
    req.once('error', done);
    req.once('close', done);
    req.resume();
  });
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isAuthorized, tokenDigest, unauthorizedError } from './bearerAuth.js';
import { ServerConnections } from './connections.js';
import { HttpError } from './httpError.js';
import { answerLastResort } from './lastResort.js';
import { ConcurrencyLimiter } from './limiter.js';
import { wireError, type WireError } from './computeProtocol.js';
import { postRoutes, type PostRoute } from './postRoutes.js';
import { discardBody, readBody } from './requestBody.js';
import { resolveServerOptions, type ResolvedServerOptions, type ServerOptions } from './serverOptions.js';
import { stringifyWire } from '../wire/index.js';
import { WorkerCallError } from './workerPool.js';

export type { ServerOptions } from './serverOptions.js';

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
 *
 * This file holds the request path (routing, the time limit, the concurrency
 * slot, the answer and its log line); its parts live beside it: the options
 * and their defaults (`serverOptions.ts`), bearer authentication
 * (`bearerAuth.ts`), reading the body under its limit (`requestBody.ts`), the
 * connections, drain and shutdown (`connections.ts`) and the last-resort
 * handler (`lastResort.ts`).
 */
export class FrognanoServer {
  /** The underlying node:http server. */
  readonly server: Server;
  private readonly opts: ResolvedServerOptions;
  /** sha256 of the bearer token, or undefined without authentication. */
  private readonly tokenDigest: Buffer | undefined;
  private readonly limiter: ConcurrencyLimiter;
  private readonly routes = new Map<string, Route>();
  /** Open connections, requests in flight, drain and shutdown. */
  private readonly connections: ServerConnections;
  private seq = 0;

  constructor(options: ServerOptions) {
    this.opts = resolveServerOptions(options);
    this.tokenDigest = options.token === undefined ? undefined : tokenDigest(options.token);
    this.limiter = new ConcurrencyLimiter(this.opts.maxConcurrency, this.opts.maxQueue);
    this.routes.set('/health', { method: 'GET', handle: () => ({ status: 'ok' }) });
    this.routes.set('/', { method: 'GET', handle: () => this.index() });
    for (const [path, route] of postRoutes(this.opts.engine, this.opts.rewardDefaults ?? {})) this.routes.set(path, { ...route, method: 'POST' });
    this.server = createServer((req, res) => {
      // Last resort: no error in one request may end the process.
      this.handle(req, res).catch((e: unknown) => answerLastResort(e, req, res, this.opts.logger));
    });
    this.connections = new ServerConnections(this.server, this.opts, this.opts.logger);
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
    return this.connections.pending;
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
   * 1. stop listening at once: a new connection is refused (never accepted, so
   *    safe to retry), and none queues up to be reset when a listener kept open
   *    closes later; the open connections, idle keep-alive ones included, stay
   *    open;
   * 2. drain: for `drainMs`, or until every client has closed its connection,
   *    answer every request on an open connection with 503 `SHUTTING_DOWN`,
   *    `Retry-After: 1` and `Connection: close` (and every answer of a request
   *    in flight with `Connection: close`), so a request that crosses the
   *    shutdown gets an answer instead of a reset;
   * 3. close the idle connections, wait for the requests in flight (up to
   *    `shutdownTimeoutMs`), then close every connection.
   * Resolves to true when every in-flight request was answered in time. Two
   * instants can still see a reset: a connection the kernel completed just
   * before the shutdown and the service had not accepted yet (closing the
   * listener resets its accept queue), and a request sent on an idle
   * connection as the drain ends. Clients retry those (the Python client does).
   */
  shutdown(): Promise<boolean> {
    return this.connections.shutdown();
  }

  /** Closes every connection at once (a second signal). */
  forceClose(): void {
    this.connections.forceClose();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = ++this.seq;
    const t0 = performance.now();
    const socket = req.socket;
    this.connections.requestStarted(socket);
    let path = '?';
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
      if (this.connections.draining) h.connection = 'close';
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
      clearTimeout(timer);
      aborter.abort(); // a client gone before its answer: stop its verifier calls
      this.connections.requestEnded(socket);
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
      if (this.connections.draining) {
        // read the body before answering with Connection: close: closing with
        // unread bytes would reset the connection before the client reads the 503
        await discardBody(req, 1_000);
        throw new HttpError(503, 'SHUTTING_DOWN', 'the service is shutting down', { headers: { 'retry-after': '1' } });
      }
      if (path !== '/health' && !isAuthorized(req, this.tokenDigest)) {
        req.resume();
        throw unauthorizedError();
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
      const body = await readBody(req, this.opts.maxBodyBytes, (n) => (bytesIn = n));
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
}

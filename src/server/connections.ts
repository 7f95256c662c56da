import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Logger } from './logger.js';

/** The limits {@link ServerConnections} applies (fields of `ServerOptions`, defaults filled in). */
export interface ConnectionLimits {
  /** Per-request time limit, ms (the whole request may take this + 5 s to arrive). */
  timeoutMs: number;
  /** Time to send a request's headers, ms. */
  headersTimeoutMs: number;
  /** Time an idle keep-alive connection stays open, ms. */
  keepAliveTimeoutMs: number;
  /** Open TCP connections at most. */
  maxConnections: number;
  /** Drain period of a shutdown, ms. */
  drainMs: number;
  /** How long a shutdown waits for in-flight requests, ms. */
  shutdownTimeoutMs: number;
}

/**
 * The service's TCP connections and their lifecycle: the limits on slow or
 * silent clients and on the number of connections, the open and busy sockets,
 * the requests in flight, and the drain and graceful shutdown that answer every
 * request crossing a shutdown instead of resetting it.
 *
 * The request handler calls {@link requestStarted} when a request arrives and
 * {@link requestEnded} when its response closes, and reads {@link draining} to
 * answer 503 `SHUTTING_DOWN` with `Connection: close`.
 * @internal
 */
export class ServerConnections {
  private readonly server: Server;
  private readonly limits: ConnectionLimits;
  private inFlight = 0;
  private isDraining = false;
  /** Open TCP connections. */
  private readonly openSockets = new Set<Socket>();
  /** Called when the last open connection closes during a drain. */
  private socketsGone: (() => void) | undefined;
  /** Sockets with a request being answered (never closed by the idle timer). */
  private readonly busySockets = new Set<Socket>();
  /** Called when the last request in flight is answered during a shutdown. */
  private drained: (() => void) | undefined;

  /** Sets the limits on `server` and tracks its connections; `logger` hears the ones refused at `maxConnections`. */
  constructor(server: Server, limits: ConnectionLimits, logger: Logger) {
    this.server = server;
    this.limits = limits;
    // Slow or silent clients: the headers must arrive within headersTimeoutMs
    // (a socket that never sends a byte included), the whole request within
    // timeoutMs + 5 s; an idle keep-alive socket closes after keepAliveTimeoutMs.
    server.headersTimeout = limits.headersTimeoutMs;
    server.requestTimeout = Math.max(limits.timeoutMs + 5_000, limits.headersTimeoutMs + 1);
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    server.maxConnections = limits.maxConnections;
    // A socket that connects and never sends a byte is not parsing headers yet in
    // every Node version: give it the same limit.
    server.on('connection', (socket) => {
      this.openSockets.add(socket);
      socket.once('close', () => {
        this.openSockets.delete(socket);
        if (this.openSockets.size === 0) this.socketsGone?.();
      });
      socket.setTimeout(limits.headersTimeoutMs + limits.keepAliveTimeoutMs, () => {
        if (!this.busySockets.has(socket)) socket.destroy();
      });
    });
    server.on('drop', (data?: { remoteAddress?: string }) => {
      logger.warn('connection refused: --max-connections reached', { maxConnections: limits.maxConnections, remoteAddress: data?.remoteAddress });
    });
  }

  /** True from the start of a shutdown (or a force close). */
  get draining(): boolean {
    return this.isDraining;
  }

  /** Requests accepted and not yet answered. */
  get pending(): number {
    return this.inFlight;
  }

  /** A request arrived on `socket`: it is busy (its idle timer spares it) and counted in flight. */
  requestStarted(socket: Socket): void {
    this.busySockets.add(socket);
    this.inFlight++;
  }

  /** The response to a request on `socket` closed (sent, or the client left). */
  requestEnded(socket: Socket): void {
    this.busySockets.delete(socket);
    this.inFlight--;
    if (this.inFlight === 0) this.drained?.();
  }

  /** The graceful shutdown of `FrognanoServer.shutdown` (see there). */
  async shutdown(): Promise<boolean> {
    if (!this.isDraining) {
      this.isDraining = true;
      this.stopListening();
      if (this.openSockets.size > 0 && this.limits.drainMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          this.socketsGone = resolve;
          timer = setTimeout(resolve, this.limits.drainMs);
        });
        clearTimeout(timer);
        this.socketsGone = undefined;
      }
      // The listener is closed already: http's close() now only closes the idle
      // connections and stops its timeout checks.
      this.server.close();
    }
    let graceful = true;
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      graceful = await new Promise<boolean>((resolve) => {
        this.drained = () => resolve(true);
        timer = setTimeout(() => resolve(false), this.limits.shutdownTimeoutMs);
      });
      clearTimeout(timer);
      this.drained = undefined;
    }
    this.server.closeAllConnections();
    return graceful;
  }

  /**
   * Closes the listening socket and nothing else, at the start of a shutdown:
   * a new connection is refused from then on (never accepted, so safe to
   * retry). Kept open through the drain, the listener accepted the clients
   * told 503 + `Connection: close` coming straight back, and the kernel reset
   * every connection still in its accept queue when it finally closed (Node 20
   * accepted one queued connection per event-loop turn in an experiment, so a
   * busy service has a queue). Closed at once, only the connections queued in that instant are
   * reset.
   *
   * It calls net.Server's close, not http.Server's: in Node >= 19 the latter
   * first runs `closeIdleConnections()` (lib/_http_server.js,
   * `httpServerPreClose`), which would close every idle keep-alive connection
   * at once, under a client that may be sending its next request on it (a
   * reset). Checked on Node 20: after `net.Server.prototype.close.call(server)`
   * a new connection is refused and an idle keep-alive socket still gets its
   * next request answered; after `server.close()` that socket is closed at once.
   * The idle connections are closed at the end of the drain instead, once
   * each has had the chance to hear 503 + `Connection: close`.
   */
  private stopListening(): void {
    if (this.server.listening) NetServer.prototype.close.call(this.server);
  }

  /** Closes every connection at once (a second signal). */
  forceClose(): void {
    this.isDraining = true;
    this.server.close();
    this.server.closeAllConnections();
  }
}

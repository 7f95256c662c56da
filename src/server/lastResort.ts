import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from './logger.js';

/**
 * The service's last-resort handler: no error in one request may end the
 * process. An error that escaped the request handler is logged with its stack
 * and answered 500 `INTERNAL` (no detail shown to the client) with
 * `Connection: close`; when the answer had already started, the socket is
 * destroyed instead.
 */
export function answerLastResort(e: unknown, req: IncomingMessage, res: ServerResponse, logger: Logger): void {
  const err = e instanceof Error ? e : new Error(String(e));
  logger.error('unhandled error in a request', { method: req.method, url: req.url, error: { message: err.message, stack: err.stack } });
  if (!res.headersSent) {
    const text = '{"error":{"code":"INTERNAL","message":"internal error (see the service log)"}}';
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close' });
    res.end(text);
  } else {
    res.destroy();
  }
}

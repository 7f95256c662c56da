import type { IncomingMessage } from 'node:http';
import { formatBytes } from '../commands/index.js';
import { HttpError } from './httpError.js';

/**
 * Reading a request's body under the size limit (`--max-body`, SPEC §11).
 * A declared `Content-Length` over the limit is refused before a byte is read;
 * a body that grows past it while streaming is refused at that chunk and what
 * was buffered is dropped. Both refusals are 413 `PAYLOAD_TOO_LARGE` with
 * `Connection: close`.
 */

/**
 * Buffers the body of `req`, at most `limit` bytes; `onBytes` hears the running
 * total (for the request log). Rejects with an HttpError 413 over the limit, or
 * 400 `BAD_REQUEST` when the stream fails.
 */
export function readBody(req: IncomingMessage, limit: number, onBytes: (n: number) => void): Promise<Buffer> {
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

/** Reads and drops a request's body; resolves at its end, on an error, or after `maxMs`. */
export function discardBody(req: IncomingMessage, maxMs: number): Promise<void> {
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

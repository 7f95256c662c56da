import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, sep } from 'node:path';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';

/** Content types by file extension (lower case); anything else is `application/octet-stream`. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.bmp': 'image/bmp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.pdf': 'application/pdf',
  '.webmanifest': 'application/manifest+json',
});

/** A running static server. */
export interface StaticServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Stops the server and closes its connections (idempotent). */
  close(): Promise<void>;
}

/**
 * The file a request path names inside `root` (a real path), or null when it
 * names nothing servable: not GET-able, outside `root` once `..` segments and
 * symbolic links are resolved, or with a NUL byte or a malformed escape.
 * A folder serves its `index.html`. @internal
 */
export async function resolveServedFile(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split(/[?#]/)[0]!);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  // segments resolved by hand: '..' never climbs above the root, whatever its encoding was
  const parts: string[] = [];
  for (const seg of decoded.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') return null;
    parts.push(seg);
  }
  let path = join(root, ...parts);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return null;
  }
  // a symbolic link that leads out of the folder is not followed
  if (real !== root && !real.startsWith(root + sep)) return null;
  let st = await stat(real).catch(() => null);
  if (st?.isDirectory()) {
    path = join(real, 'index.html');
    real = await realpath(path).catch(() => '');
    if (!real || (real !== root && !real.startsWith(root + sep))) return null;
    st = await stat(real).catch(() => null);
  }
  return st?.isFile() ? real : null;
}

/**
 * Serves the folder `dir` on 127.0.0.1 at an OS-chosen port (GET and HEAD only):
 * each file with the content type of its extension ({@link CONTENT_TYPES}), a
 * folder as its `index.html`, `404` for anything else, including every path
 * that leaves the folder (`..`, encoded or not, and symbolic links pointing
 * out). Responses are never cached (`Cache-Control: no-store`).
 *
 * @throws FrognanoError `INVALID_TYPE` when `dir` is not a folder
 */
export async function serveStatic(dir: string): Promise<StaticServer> {
  const fn = 'serveStatic';
  const root = await realpath(dir).catch(() => null);
  if (root === null || !(await stat(root)).isDirectory()) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `app folder ${dir} is not a folder`, { fn, field: 'app.dir' });
  }
  const notFound = (res: ServerResponse, status = 404, text = 'Not found'): void => {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(text);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return notFound(res, 405, 'Method not allowed');
    const file = await resolveServedFile(root, req.url ?? '/');
    if (file === null) return notFound(res);
    const st = await stat(file);
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': st.size,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) notFound(res, 500, 'Internal error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | null = null;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })),
  };
}

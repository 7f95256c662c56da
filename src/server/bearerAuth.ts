import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './httpError.js';

/**
 * Bearer-token authentication of the service (SPEC §11, `--token` /
 * `FROGNANO_TOKEN`): a request must carry `Authorization: Bearer <token>`.
 * The token is kept as its sha256 digest and compared in constant time
 * (`timingSafeEqual` on two 32-byte digests), so neither its length nor its
 * bytes leak through the time of a refusal.
 */

/** sha256 of the token: what the service keeps and compares. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * True when the request carries the right bearer token, or when `digest` is
 * undefined (no authentication). The scheme is case-insensitive; spaces or tabs
 * may surround the token.
 */
export function isAuthorized(req: IncomingMessage, digest: Buffer | undefined): boolean {
  if (digest === undefined) return true;
  const h = req.headers.authorization;
  if (typeof h !== 'string') return false;
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(h);
  return m !== null && timingSafeEqual(tokenDigest(m[1]!), digest);
}

/** The 401 `UNAUTHORIZED` answer, with `WWW-Authenticate: Bearer realm="frognano"`. */
export function unauthorizedError(): HttpError {
  return new HttpError(401, 'UNAUTHORIZED', 'this service needs "Authorization: Bearer <token>" (the token given to frognano serve --token or FROGNANO_TOKEN)', {
    headers: { 'www-authenticate': 'Bearer realm="frognano"' },
  });
}

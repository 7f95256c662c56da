/**
 * The codes of the service's own errors, with their HTTP status, as
 * `{ "error": { "code", "message", "field"? } }` answers them:
 *
 * | status | code | when |
 * | --- | --- | --- |
 * | 400 | `BAD_REQUEST` | the request target is not a valid path (`//a:b`), or reading the body failed |
 * | 400 | `INVALID_JSON` | the body is not JSON |
 * | 400 | `INVALID_TYPE`, `NON_FINITE`, `LENGTH_MISMATCH`, `EMPTY_INPUT`, `OUT_OF_RANGE` | the body fails validation: the library's codes, carried by a `RecordError` (`RecordErrorCode`), not by an HttpError |
 * | 401 | `UNAUTHORIZED` | the service has a token (`--token`) and the request lacks `Authorization: Bearer <token>` |
 * | 404 | `NOT_FOUND` | no such endpoint |
 * | 405 | `METHOD_NOT_ALLOWED` | wrong method (the `Allow` header lists the right one) |
 * | 413 | `PAYLOAD_TOO_LARGE` | body over `--max-body` |
 * | 500 | `USER_FUNCTION_ERROR` | the reward module threw, crashed its worker, or returned something that is not a number or an outcome |
 * | 500 | `INTERNAL` | a bug in frognano |
 * | 503 | `OVERLOADED` | more requests waiting than `--max-queue` (retry; `Retry-After` is set) |
 * | 503 | `SHUTTING_DOWN` | the service is draining before it stops |
 * | 504 | `TIMEOUT` | the request took longer than `--timeout-ms` |
 * | 504 | `VERIFIER_TIMEOUT` | the reward module was still running at `--timeout-ms` (terminated, its worker replaced) |
 */
export type HttpErrorCode =
  | 'BAD_REQUEST'
  | 'INVALID_JSON'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'USER_FUNCTION_ERROR'
  | 'INTERNAL'
  | 'OVERLOADED'
  | 'SHUTTING_DOWN'
  | 'TIMEOUT'
  | 'VERIFIER_TIMEOUT';

/**
 * An error with its HTTP status and a stable {@link HttpErrorCode}, answered as
 * `{ "error": { "code", "message", "field"? } }`. A body that fails validation
 * is a `RecordError` (400, the library's codes), not an HttpError.
 */
export class HttpError extends Error {
  /** The HTTP status, e.g. 413. */
  readonly status: number;
  /** Stable code, one of the table above. */
  readonly code: HttpErrorCode;
  /** The body field at fault, when there is one. */
  readonly field: string | undefined;
  /** Extra response headers (`Allow`, `Retry-After`). */
  readonly headers: Record<string, string>;

  constructor(status: number, code: HttpErrorCode, message: string, opts: { field?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.field = opts.field;
    this.headers = opts.headers ?? {};
  }
}

/** The user's reward module threw, timed out inside, or returned a bad value (500 for that request only). */
export class UserFunctionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UserFunctionError';
  }
}

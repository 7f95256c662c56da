import { RecordError, type RecordErrorCode } from '../commands/index.js';
import { HttpError, type HttpErrorCode, UserFunctionError } from './httpError.js';

/** A request for a compute worker: the path, the query string and the body's bytes (transferred, not copied). */
export interface ComputeRequest {
  path: string;
  search: string;
  body: Uint8Array;
}

/** An error as it crosses from a compute worker: the HTTP status and the `{ error }` fields. */
export interface WireError {
  status: number;
  /** The service's own code, or a bad body's (the library's codes, `INVALID_JSON`). */
  code: HttpErrorCode | RecordErrorCode;
  message: string;
  field?: string;
  headers?: Record<string, string>;
  /** For a 500: the stack, for the service's log (never sent to the client). */
  stack?: string;
}

/** A compute worker's answer: the response text, or an error. */
export type ComputeAnswer = { text: string; error?: undefined } | { text?: undefined; error: WireError };

/**
 * The wire form of an error thrown while computing an answer, in the service's
 * thread or a compute worker: an HttpError keeps its status, a bad record is
 * 400, a reward module's failure 500 `USER_FUNCTION_ERROR`, anything else 500
 * `INTERNAL` (its message and stack are for the log only).
 */
export function wireError(e: unknown): WireError {
  if (e instanceof HttpError) return { status: e.status, code: e.code, message: e.message, headers: e.headers, ...(e.field ? { field: e.field } : {}) };
  if (e instanceof RecordError) return { status: 400, code: e.code, message: e.message, ...(e.field ? { field: e.field } : {}) };
  if (e instanceof UserFunctionError) {
    const stack = e.cause instanceof Error ? e.cause.stack : undefined;
    return { status: 500, code: 'USER_FUNCTION_ERROR', message: e.message, ...(stack ? { stack } : {}) };
  }
  const err = e instanceof Error ? e : new Error(String(e));
  return { status: 500, code: 'INTERNAL', message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
}

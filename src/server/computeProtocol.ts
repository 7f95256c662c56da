import { RecordError } from '../cli/record.js';
import { HttpError } from './httpError.js';

/** A request for a compute worker: the path, the query string and the body's bytes (transferred, not copied). */
export interface ComputeRequest {
  path: string;
  search: string;
  body: Uint8Array;
}

/** An error as it crosses from a compute worker: the HTTP status and the `{ error }` fields. */
export interface WireError {
  status: number;
  code: string;
  message: string;
  field?: string;
  headers?: Record<string, string>;
  /** For a 500: the stack, for the service's log (never sent to the client). */
  stack?: string;
}

/** A compute worker's answer: the response text, or an error. */
export type ComputeAnswer = { text: string; error?: undefined } | { text?: undefined; error: WireError };

/** The wire form of an error thrown while computing an answer (400 for a bad record, 500 INTERNAL for anything unexpected). */
export function wireError(e: unknown): WireError {
  if (e instanceof HttpError) return { status: e.status, code: e.code, message: e.message, headers: e.headers, ...(e.field ? { field: e.field } : {}) };
  if (e instanceof RecordError) return { status: 400, code: e.code, message: e.message, ...(e.field ? { field: e.field } : {}) };
  const err = e instanceof Error ? e : new Error(String(e));
  return { status: 500, code: 'INTERNAL', message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
}

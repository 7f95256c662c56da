import { z } from 'zod';
import { describeGot } from '../errors/describeValue.js';
import { errorFromZodIssue } from '../errors/errorFromZodIssue.js';
import { type ErrorCode, isFrognanoError } from '../errors/FrognanoError.js';

/**
 * Validation of one input record (a JSONL line or an HTTP request body) and the
 * translation of library errors into the record's own field names.
 *
 * Records are parsed with zod for their structure (which fields, which types);
 * the numbers are then handed to the library function unchanged, which checks
 * the semantics (lengths, ranges) and throws a `FrognanoError`. Both kinds of
 * failure become a {@link RecordError} naming the record field, e.g.
 * `rewards[2]` rather than the library's `groups[0][2]`.
 */

/**
 * A record-level error code: the library's `FrognanoError` codes
 * ({@link ErrorCode}: `NON_FINITE`, `LENGTH_MISMATCH`, `EMPTY_INPUT`,
 * `OUT_OF_RANGE`, `INVALID_TYPE`, ...) plus `INVALID_JSON` for a line that is
 * not JSON (or not UTF-8) and `LINE_TOO_LONG` for a line longer than `--max-line`.
 */
export type RecordErrorCode = ErrorCode | 'INVALID_JSON' | 'LINE_TOO_LONG';

/** One record is invalid. `field` is the path inside the record (`rewards[2]`, `opts.eps`), when known. */
export class RecordError extends Error {
  /** Stable code, see {@link RecordErrorCode}. */
  readonly code: RecordErrorCode;
  /** Field path inside the record, e.g. `rewards[2]`; undefined for the record as a whole. */
  readonly field: string | undefined;
  /**
   * The record's position (`line 7`), when it differs from the record being
   * processed: an aggregating subcommand reports at the end which line was bad.
   */
  readonly where: string | undefined;

  constructor(code: RecordErrorCode, message: string, field?: string, where?: string) {
    super(message);
    this.name = 'RecordError';
    this.code = code;
    this.field = field;
    this.where = where;
  }
}

/** The optional `id` every record may carry; it is copied to the output record unchanged. */
export const IdSchema = z.union([z.string(), z.number()]).optional();

/** A finite number, or `"Infinity"` / `"-Infinity"` (JSON has no infinite numbers), as a number. */
export const ExtendedNumberSchema = z
  .union([z.number(), z.literal('Infinity'), z.literal('-Infinity'), z.literal('inf'), z.literal('-inf')])
  .transform((v) => (typeof v === 'number' ? v : v.startsWith('-') ? -Infinity : Infinity));

/** An array of numbers (JSON numbers are finite; `1e999` parses to Infinity and is reported NON_FINITE). */
export const NumberArray = checkedArray<number>('number');

/**
 * An array of `number`s or `string`s checked in one tight loop that stops at
 * the first bad element: `z.array(z.number())` builds one issue per bad
 * element, and 3 million nulls took 12 s and 2 GB to reject. The issue names
 * the first bad index, as before. `min` is the least length (an empty array
 * is `EMPTY_INPUT` when `min` is 1).
 */
export function checkedArray<T extends number | string>(element: T extends number ? 'number' : 'string', min = 0): z.ZodType<T[]> {
  return z.any().superRefine((v: unknown, ctx) => {
    if (!Array.isArray(v)) {
      ctx.addIssue({ code: 'invalid_type', expected: 'array', input: v, message: `expected an array` });
      return;
    }
    if (v.length < min) {
      ctx.addIssue({ code: 'too_small', origin: 'array', minimum: min, inclusive: true, input: v, message: `Too small: expected array to have >=${min} items` });
      return;
    }
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (element === 'number' ? !(typeof x === 'number' && Number.isFinite(x)) : typeof x !== 'string') {
        ctx.addIssue({ code: 'invalid_type', expected: element, input: x, path: [i], message: `expected ${element}` });
        return;
      }
    }
  }) as unknown as z.ZodType<T[]>;
}

/**
 * Converts a zod error into a RecordError naming the field, with the library's
 * {@link errorFromZodIssue}. An unknown field is reported first: a typo
 * (`rewardz`) explains the missing field it causes.
 */
function recordErrorFromZod(error: z.ZodError, value: unknown): RecordError {
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys') ?? error.issues[0]!;
  const e = errorFromZodIssue(issue, value);
  return new RecordError(e.code, e.message, e.field);
}

/** True for a plain JSON object (not an array, not null). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses a record with `schema`; a non-object record or the first schema issue
 * becomes a {@link RecordError}.
 */
export function parseRecord<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  if (!isPlainObject(value)) {
    throw new RecordError('INVALID_TYPE', `a record must be a JSON object, got ${describeGot(value)}`);
  }
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw recordErrorFromZod(r.error, value);
}

/**
 * A library-field -> record-field renaming, e.g. `['groups[0]', 'rewards']`.
 * The renames apply in order, each replacing every occurrence of its `from`
 * in the field and in the message (`groups[0][3]` -> `rewards[3]`).
 */
export type FieldRenames = readonly (readonly [from: string, to: string])[];

function rename(s: string, renames: FieldRenames): string {
  let out = s;
  for (const [from, to] of renames) out = out.split(from).join(to);
  return out;
}

/**
 * Calls a library function; a `FrognanoError` it throws becomes a
 * {@link RecordError} with the same code and the field renamed to the record's
 * names (in the field and in the message). Other errors propagate.
 */
export function callLibrary<T>(f: () => T, renames: FieldRenames = []): T {
  try {
    return f();
  } catch (e) {
    if (isFrognanoError(e)) {
      const field = e.field === undefined ? undefined : rename(e.field, renames);
      throw new RecordError(e.code, rename(e.message, renames), field);
    }
    throw e;
  }
}

/** Copies the record's `id` (when present) in front of the output fields. */
export function withId<T extends object>(id: string | number | undefined, out: T): T | ({ id: string | number } & T) {
  return id === undefined ? out : { id, ...out };
}

import { z } from 'zod';
import { isFrognanoError } from '../errors/index.js';
import { describeValue } from '../errors/validate.js';

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
 * (`NON_FINITE`, `LENGTH_MISMATCH`, `EMPTY_INPUT`, `OUT_OF_RANGE`,
 * `INVALID_TYPE`) plus `INVALID_JSON` for a line that is not JSON (or not
 * UTF-8) and `LINE_TOO_LONG` for a line longer than `--max-line`.
 */
export type RecordErrorCode = 'INVALID_JSON' | 'LINE_TOO_LONG' | 'NON_FINITE' | 'LENGTH_MISMATCH' | 'EMPTY_INPUT' | 'OUT_OF_RANGE' | 'INVALID_TYPE' | string;

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

function fieldOf(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s === '' ? String(p) : `.${String(p)}`;
  return s;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** The library's {@link describeValue}, plus `nothing` for a missing field and a boolean's value. */
function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  return typeof v === 'boolean' ? String(v) : describeValue(v);
}

type Issue = z.core.$ZodIssue;

/**
 * In a union, the branch that got furthest into the value explains the failure
 * best (`candidates[0].tier` rather than "not a candidate and not null").
 */
function deepestUnionIssue(issue: Issue): Issue | undefined {
  const branches = (issue as { errors?: Issue[][] }).errors ?? [];
  let best: Issue | undefined;
  for (const b of branches) {
    const first = b.find((i) => i.code === 'unrecognized_keys') ?? b[0];
    if (first && first.path.length > 0 && (!best || first.path.length > best.path.length)) best = first;
  }
  return best && { ...best, path: [...issue.path, ...best.path] };
}

/** Converts a zod issue into a RecordError naming the field. */
function recordErrorFromIssue(issue: Issue, value: unknown): RecordError {
  let field = fieldOf(issue.path);
  const got = valueAt(value, issue.path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
      return new RecordError('INVALID_TYPE', `${field ? `${field}: ` : ''}unknown field(s) ${keys}`, field || undefined);
    }
    case 'invalid_type': {
      if (typeof got === 'number' && !Number.isFinite(got)) {
        return new RecordError('NON_FINITE', `${field} must be a finite number, got ${got}`, field);
      }
      const what = /^[aeiou]/.test(issue.expected) ? `an ${issue.expected}` : `a ${issue.expected}`;
      if (got === undefined) return new RecordError('INVALID_TYPE', `${field} is required (${what})`, field);
      return new RecordError('INVALID_TYPE', `${field} must be ${what}, got ${describe(got)}`, field);
    }
    case 'too_small': {
      const origin = (issue as { origin?: string }).origin;
      if (origin === 'array' && Number(issue.minimum) === 1 && Array.isArray(got) && got.length === 0) {
        return new RecordError('EMPTY_INPUT', `${field} must have at least 1 element, got 0`, field);
      }
      return new RecordError('OUT_OF_RANGE', `${field}: ${issue.message}, got ${describe(got)}`, field);
    }
    case 'too_big':
    case 'not_multiple_of':
      return new RecordError('OUT_OF_RANGE', `${field}: ${issue.message}, got ${describe(got)}`, field);
    case 'invalid_union': {
      if (typeof got === 'number' && !Number.isFinite(got)) {
        return new RecordError('NON_FINITE', `${field} must be a finite number, got ${got}`, field);
      }
      const deeper = deepestUnionIssue(issue);
      if (deeper) return recordErrorFromIssue(deeper, value);
      return new RecordError('INVALID_TYPE', `${field}: ${issue.message.replace(/^Invalid input$/, 'not one of the accepted forms')}, got ${describe(got)}`, field);
    }
    case 'invalid_value':
      return new RecordError('INVALID_TYPE', `${field ? `${field}: ` : ''}${issue.message.replace(/^Invalid (option|input): /, '')}, got ${describe(got)}`, field || undefined);
    case 'custom': {
      const params = (issue as { params?: { code?: string; field?: string } }).params;
      if (params?.field) field = field ? `${field}.${params.field}` : params.field;
      return new RecordError(params?.code ?? 'OUT_OF_RANGE', `${field ? `${field}: ` : ''}${issue.message}`, field || undefined);
    }
    default:
      return new RecordError('INVALID_TYPE', `${field ? `${field}: ` : ''}${issue.message}, got ${describe(got)}`, field || undefined);
  }
}

/**
 * Converts a zod error into a RecordError naming the field. An unknown field
 * is reported first: a typo (`rewardz`) explains the missing field it causes.
 */
function recordErrorFromZod(error: z.ZodError, value: unknown): RecordError {
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys') ?? error.issues[0]!;
  return recordErrorFromIssue(issue, value);
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
    throw new RecordError('INVALID_TYPE', `a record must be a JSON object, got ${describe(value)}`);
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

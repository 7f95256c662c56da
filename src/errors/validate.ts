import { z } from 'zod';
import { describeValue } from './describeValue.js';
import { errorFromZodIssue, isOptionsRoot, zodFieldPath } from './errorFromZodIssue.js';
import { ErrorCode, FrognanoError } from './FrognanoError.js';

export { describeValue };

/**
 * Boundary validation shared by every public function.
 *
 * Options objects are parsed with zod (they are small). Numeric arrays are
 * checked with one tight loop each, never element by element through zod, so
 * that validating a million tokens costs less than computing on them.
 */

/**
 * An array or a typed array (what the numeric checks accept), whatever its elements.
 * A `DataView` is not one: `ArrayBuffer.isView` admits it, but it has no `length`
 * and no indexed elements.
 */
export function isArrayLikeOfAny(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

/**
 * Checks that `value` is an array (or typed array) of finite numbers and
 * returns it typed. Throws `INVALID_TYPE` for a non-array or a non-number
 * element, `NON_FINITE` for NaN/±Infinity, `EMPTY_INPUT` when `minLength`
 * is not met.
 */
export function finiteArray(
  fn: string,
  field: string,
  value: unknown,
  opts: { minLength?: number; indexPrefix?: number[] } = {},
): ArrayLike<number> {
  const prefix = opts.indexPrefix ?? [];
  const where = field + prefix.map((i) => `[${i}]`).join('');
  if (!isArrayLikeOfAny(value)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${where} must be an array of numbers, got ${describeValue(value)}`, {
      fn,
      field: where,
      index: prefix.length ? prefix : undefined,
    });
  }
  const n = value.length;
  if (opts.minLength !== undefined && n < opts.minLength) {
    throw new FrognanoError(
      ErrorCode.EMPTY_INPUT,
      `${where} must have at least ${opts.minLength} element${opts.minLength === 1 ? '' : 's'}, got ${n}`,
      { fn, field: where, index: prefix.length ? prefix : undefined },
    );
  }
  for (let i = 0; i < n; i++) {
    const x = value[i];
    // `x - x === 0` is false exactly for NaN, ±Infinity and non-numbers coerced to NaN.
    if (typeof x !== 'number' || x - x !== 0) {
      if (x === undefined && !(i in value)) hole(fn, field, [...prefix, i]);
      badNumber(fn, field, x, [...prefix, i]);
    }
  }
  return value as ArrayLike<number>;
}

function hole(fn: string, field: string, index: number[]): never {
  const where = field + index.map((i) => `[${i}]`).join('');
  throw new FrognanoError(ErrorCode.INVALID_TYPE, `${where} is a hole of a sparse array (arrays must have every element)`, {
    fn,
    field: where,
    index,
  });
}

/** Checks a finite number (a scalar argument that is not an option). */
export function finiteNumber(fn: string, field: string, value: unknown): number {
  if (typeof value !== 'number' || value - value !== 0) badNumber(fn, field, value, []);
  return value as number;
}

/**
 * Checks a scalar integer argument `>= min` (a count, a budget, an iteration):
 * `INVALID_TYPE` / `NON_FINITE` as {@link finiteNumber}, `OUT_OF_RANGE` for a
 * fractional value or one below `min`. `index` is passed through to the error.
 */
export function integerAtLeast(fn: string, field: string, value: unknown, min: number, index?: number[]): number {
  const x = finiteNumber(fn, field, value);
  if (!Number.isInteger(x) || x < min) {
    throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `${field} must be an integer >= ${min}, got ${x}`, { fn, field, index });
  }
  return x;
}

function badNumber(fn: string, field: string, x: unknown, index: number[]): never {
  const where = field + index.map((i) => `[${i}]`).join('');
  const code = typeof x !== 'number' ? ErrorCode.INVALID_TYPE : ErrorCode.NON_FINITE;
  throw new FrognanoError(code, `${where} must be a finite number, got ${describeValue(x)}`, {
    fn,
    field: where,
    index: index.length ? index : undefined,
  });
}

/**
 * Checks a ragged matrix (array of arrays) of finite numbers.
 * `minRows` / `minCols` give `EMPTY_INPUT` when not met.
 */
export function finiteMatrix(
  fn: string,
  field: string,
  value: unknown,
  opts: { minRows?: number; minCols?: number } = {},
): ArrayLike<number>[] {
  if (!Array.isArray(value)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be an array of arrays, got ${describeValue(value)}`, {
      fn,
      field,
    });
  }
  if (opts.minRows !== undefined && value.length < opts.minRows) {
    throw new FrognanoError(ErrorCode.EMPTY_INPUT, `${field} must have at least ${opts.minRows} row(s), got ${value.length}`, {
      fn,
      field,
    });
  }
  for (let i = 0; i < value.length; i++) {
    finiteArray(fn, field, value[i], {
      minLength: opts.minCols,
      indexPrefix: [i],
    });
  }
  return value as ArrayLike<number>[];
}

/** Throws `LENGTH_MISMATCH` unless `a.length === b.length`. */
export function sameLength(
  fn: string,
  fieldA: string,
  a: { length: number },
  fieldB: string,
  b: { length: number },
): void {
  if (a.length !== b.length) {
    throw new FrognanoError(
      ErrorCode.LENGTH_MISMATCH,
      `${fieldB} has length ${b.length} but ${fieldA} has length ${a.length}`,
      { fn, field: fieldB },
    );
  }
}

/** Throws `LENGTH_MISMATCH` unless two ragged matrices have the same shape, naming the first differing row. */
export function sameShape(
  fn: string,
  fieldA: string,
  a: ArrayLike<ArrayLike<unknown>>,
  fieldB: string,
  b: ArrayLike<ArrayLike<unknown>>,
): void {
  sameLength(fn, fieldA, a, fieldB, b);
  for (let i = 0; i < a.length; i++) {
    const ra = a[i]!;
    const rb = b[i]!;
    if (ra.length !== rb.length) {
      throw new FrognanoError(
        ErrorCode.LENGTH_MISMATCH,
        `${fieldB}[${i}] has length ${rb.length} but ${fieldA}[${i}] has length ${ra.length}`,
        { fn, field: `${fieldB}[${i}]`, index: [i] },
      );
    }
  }
}

/**
 * What zod cannot be trusted with, found in one pass before it runs (arrays and
 * plain objects only; class instances, typed arrays and functions are not entered):
 *
 * - a hole of a sparse array: zod reads it as `undefined` and builds one issue per
 *   hole, which takes seconds for `new Array(5e5)`; the scan stops at the first;
 * - with `protoKeys`, an own `__proto__` key (what `JSON.parse('{"__proto__": ...}')`
 *   makes): zod's non-strict objects drop it silently, so it would be ignored
 *   rather than rejected as an unknown option.
 *
 * The walk is iterative (no recursion, so any nesting depth is safe) and linear in
 * the number of nodes: each node keeps a pointer to its parent and its key, and the
 * path of a bad node is built only when it is reported.
 */
function precheck(fn: string, root: string, value: unknown, protoKeys: boolean): void {
  if (value === null || typeof value !== 'object') return;
  const seen = new WeakSet<object>();
  const stack: PrecheckNode[] = [{ v: value, parent: null, key: '' }];
  seen.add(value);
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.v as object;
    if (Array.isArray(v)) {
      const n = v.length;
      for (let i = 0; i < n; i++) {
        if (!(i in v)) {
          const path = pathOf({ v: undefined, parent: node, key: i });
          const field = zodFieldPath(root, path);
          const index = path.filter((p): p is number => typeof p === 'number');
          throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} is a hole of a sparse array (arrays must have every element)`, {
            fn,
            field,
            index,
          });
        }
        const x: unknown = v[i];
        if (x !== null && typeof x === 'object' && enters(x, seen)) stack.push({ v: x, parent: node, key: i });
      }
      continue;
    }
    if (protoKeys && Object.prototype.hasOwnProperty.call(v, '__proto__')) {
      const field = zodFieldPath(root, pathOf(node));
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field}: unknown option(s) "__proto__"`, { fn, field });
    }
    for (const k of Object.keys(v)) {
      const x: unknown = (v as Record<string, unknown>)[k];
      if (x !== null && typeof x === 'object' && enters(x, seen)) stack.push({ v: x, parent: node, key: k });
    }
  }
}

/** A node of {@link precheck}'s walk: the value, its parent node and its key there (the root has none). */
interface PrecheckNode {
  v: unknown;
  parent: PrecheckNode | null;
  key: PropertyKey;
}

/** Whether {@link precheck} walks into `v` (an array or a plain object not seen before); marks it seen. */
function enters(v: object, seen: WeakSet<object>): boolean {
  if (seen.has(v)) return false;
  if (!Array.isArray(v)) {
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return false;
  }
  seen.add(v);
  return true;
}

/** The keys from the root down to `node` (built only for an error message). */
function pathOf(node: PrecheckNode): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let n: PrecheckNode | null = node; n !== null && n.parent !== null; n = n.parent) path.push(n.key);
  return path.reverse();
}

/**
 * Parses `value` with a zod schema and converts the first issue into a
 * {@link FrognanoError} naming the field (`opts.eps`, `outcome.assistantTokens`)
 * with {@link errorFromZodIssue} (an empty array is `EMPTY_INPUT`).
 * Use for options objects and small records, not for long numeric arrays.
 *
 * Before zod runs, one pass rejects a sparse array (`INVALID_TYPE` naming the
 * first hole, e.g. `outcomes[3]`) and, in options (`root` `opts` or `opts.*`), an
 * own `__proto__` key at any depth (`INVALID_TYPE`, an unknown option).
 */
export function parseWith<S extends z.ZodType>(fn: string, root: string, schema: S, value: unknown): z.output<S> {
  precheck(fn, root, value, isOptionsRoot(root));
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw errorFromZodIssue(r.error.issues[0]!, value, { fn, root });
}

/**
 * Parses an options object (undefined means `{}`); unknown keys are rejected so
 * typos surface, and so is an own `__proto__` key (from `JSON.parse`) at any depth,
 * whatever the schema's strictness.
 */
export function parseOptions<S extends z.ZodType>(fn: string, schema: S, opts: unknown): z.output<S> {
  return parseWith(fn, 'opts', schema, opts ?? {});
}

/** zod: a number that may also be +Infinity or -Infinity but not NaN (e.g. `lambdaMax`, `floor`). */
export const extendedNumber = (): z.ZodType<number> =>
  z.union([z.number(), z.literal(Infinity), z.literal(-Infinity)]) as unknown as z.ZodType<number>;

/**
 * zod: a function-valued option (a callback, a model call, a loader). Fails with
 * `INVALID_TYPE` and the message `must be a function <signature>`, e.g.
 * `functionSchema<typeof fetch>('(url, init) => Promise<Response>')`.
 */
export const functionSchema = <F>(signature = ''): z.ZodCustom<F, F> =>
  z.custom<F>((v) => typeof v === 'function', {
    message: signature === '' ? 'must be a function' : `must be a function ${signature}`,
    params: { code: ErrorCode.INVALID_TYPE },
  });

/**
 * zod: an `AbortSignal`-valued option (`signal`, which cancels a call, an episode
 * or a run from outside). Fails with `INVALID_TYPE` and `must be an AbortSignal`.
 * Defined once here for every module that takes a signal.
 */
export const AbortSignalSchema: z.ZodCustom<AbortSignal, AbortSignal> = z.custom<AbortSignal>(
  (v) => typeof AbortSignal !== 'undefined' && v instanceof AbortSignal,
  { message: 'must be an AbortSignal', params: { code: ErrorCode.INVALID_TYPE } },
);

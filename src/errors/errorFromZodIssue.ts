import { z } from 'zod';
import { describeGot } from './describeValue.js';
import { ErrorCode, FrognanoError } from './FrognanoError.js';

/**
 * The one way from a zod issue to a {@link FrognanoError}: the library's
 * `parseWith` / `parseOptions`, the CLI and service records, the CLI's option
 * flags, `askStructured`'s rejected answers and the trainer's checkpoint check
 * all render a failed parse with this function, so a bad value gets the same
 * code, field path and wording wherever it comes in.
 */

/** Where the parsed value sits, for {@link errorFromZodIssue}. */
export interface ZodIssueContext {
  /** The public function that parsed (`FrognanoError.fn`; the message is prefixed with `fn: `). Default none. */
  fn?: string;
  /**
   * The name of the parsed value, put in front of every path: `opts` gives
   * `opts.filterBy[0][1]`, `line 3` gives `line 3.tests.command`, `--eps` gives
   * `--eps`. Default none: paths start at the value's own fields (`rewards[2]`).
   * A root of `opts` or `opts.*` calls unknown keys "option(s)", any other "field(s)".
   */
  root?: string;
}

/** Whether `root` names an options object (`opts`, `opts.risk`): its unknown keys are "option(s)". */
export function isOptionsRoot(root: string): boolean {
  return root === 'opts' || root.startsWith('opts.');
}

/**
 * The field path of a zod issue path below `root`, rendered by zod's own
 * `z.core.toDotPath`: `zodFieldPath('opts', ['filterBy', 0, 1])` is
 * `opts.filterBy[0][1]`; a key that is not an identifier is quoted
 * (`files["../a.py"]`); `zodFieldPath('', [])` is `''`.
 */
export function zodFieldPath(root: string, path: readonly PropertyKey[]): string {
  const rel = z.core.toDotPath(path as PropertyKey[]);
  if (root === '') return rel;
  if (rel === '') return root;
  return rel.startsWith('[') ? `${root}${rel}` : `${root}.${rel}`;
}

/**
 * Converts one zod issue into a {@link FrognanoError} naming the field (see
 * {@link zodFieldPath}), with the code and the wording every frognano boundary uses:
 *
 * | issue | code | message |
 * | --- | --- | --- |
 * | `unrecognized_keys` | `INVALID_TYPE` | `opts: unknown option(s) "epz"` (`field(s)` outside options) |
 * | `invalid_type`, the value a NaN / ±Infinity | `NON_FINITE` | `rewards[2] must be a finite number, got NaN` |
 * | `invalid_type`, an integer expected | `OUT_OF_RANGE` | `tokens[0] must be an integer, got 1.5` |
 * | `invalid_type`, the field missing | `INVALID_TYPE` | `rewards is required (an array)` |
 * | `invalid_type` | `INVALID_TYPE` | `opts.eps must be a number, got "x"` |
 * | `too_small` on an empty array | `EMPTY_INPUT` | `opts.options must have at least 1 element, got 0` (always, whatever the minimum) |
 * | `too_small`, `too_big`, `not_multiple_of` | `OUT_OF_RANGE` | `opts.eps: Too small: expected number to be >=0, got -1` |
 * | `invalid_union` | the branch that got furthest into the value, else `INVALID_TYPE` | `candidates[1].tier: expected one of "T1"\|"T2"\|"T3", got "T9"` |
 * | `invalid_value` | `INVALID_TYPE` | `opts.std: expected one of "std"\|"none", got "x"` |
 * | `custom` | `params.code` when it is an {@link ErrorCode}, else `OUT_OF_RANGE` | `field: message`; `params.field` extends the path |
 * | any other | `INVALID_TYPE` | `field: message, got <value>` |
 *
 * `index` holds the numbers of the path (outermost first), when there are any.
 * Which issue to report is the caller's choice (the first; records take an
 * unknown key first, as a typo explains the missing field it causes).
 *
 * @param issue - one issue of a failed `safeParse` (`result.error.issues[i]`)
 * @param value - the value that was parsed (the issue's path is followed into it to say what was there)
 * @param at - the function and the root name, see {@link ZodIssueContext}
 * @example
 * const r = Schema.safeParse(opts);
 * if (!r.success) throw errorFromZodIssue(r.error.issues[0]!, opts, { fn: 'groupAdvantages', root: 'opts' });
 * // FrognanoError OUT_OF_RANGE 'groupAdvantages: opts.eps: Too small: expected number to be >=0, got -1'
 */
export function errorFromZodIssue(issue: z.core.$ZodIssue, value: unknown, at: ZodIssueContext = {}): FrognanoError {
  const root = at.root ?? '';
  const { code, message, field, path } = render(issue, value, root, isOptionsRoot(root) ? 'option' : 'field');
  const index = path.filter((p): p is number => typeof p === 'number');
  return new FrognanoError(code, message, { fn: at.fn, field: field === '' ? undefined : field, index: index.length ? index : undefined });
}

type Issue = z.core.$ZodIssue;

/** The message, code and field of one issue (unions resolved to their deepest branch). */
function render(issue: Issue, value: unknown, root: string, noun: 'option' | 'field'): { code: ErrorCode; message: string; field: string; path: readonly PropertyKey[] } {
  let field = zodFieldPath(root, issue.path);
  const subject = field === '' ? 'the value' : field;
  const prefix = field === '' ? '' : `${field}: `;
  const got = valueAt(value, issue.path);
  const result = (code: ErrorCode, message: string) => ({ code, message, field, path: issue.path });
  switch (issue.code) {
    case 'unrecognized_keys':
      return result(ErrorCode.INVALID_TYPE, `${prefix}unknown ${noun}(s) ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`);
    case 'invalid_type': {
      if (isNonFinite(got)) return result(ErrorCode.NON_FINITE, `${subject} must be a finite number, got ${got}`);
      if (issue.expected === 'int') return result(ErrorCode.OUT_OF_RANGE, `${subject} must be an integer, got ${describeGot(got)}`);
      const what = /^[aeiou]/.test(issue.expected) ? `an ${issue.expected}` : `a ${issue.expected}`;
      if (got === undefined) return result(ErrorCode.INVALID_TYPE, `${subject} is required (${what})`);
      return result(ErrorCode.INVALID_TYPE, `${subject} must be ${what}, got ${describeGot(got)}`);
    }
    case 'too_small':
      if (issue.origin === 'array' && Array.isArray(got) && got.length === 0) {
        const min = Number(issue.minimum);
        return result(ErrorCode.EMPTY_INPUT, `${subject} must have at least ${min} element${min === 1 ? '' : 's'}, got 0`);
      }
      return result(ErrorCode.OUT_OF_RANGE, `${subject}: ${issue.message}, got ${describeGot(got)}`);
    case 'too_big':
    case 'not_multiple_of':
      return result(ErrorCode.OUT_OF_RANGE, `${subject}: ${issue.message}, got ${describeGot(got)}`);
    case 'invalid_union': {
      if (isNonFinite(got)) return result(ErrorCode.NON_FINITE, `${subject} must be a finite number, got ${got}`);
      const deeper = deepestUnionIssue(issue);
      if (deeper) return render(deeper, value, root, noun);
      return result(ErrorCode.INVALID_TYPE, `${subject}: ${issue.message.replace(/^Invalid input$/, 'not one of the accepted forms')}, got ${describeGot(got)}`);
    }
    case 'invalid_value':
      return result(ErrorCode.INVALID_TYPE, `${prefix}${issue.message.replace(/^Invalid (option|input): /, '')}, got ${describeGot(got)}`);
    case 'custom': {
      const params = issue.params as { code?: unknown; field?: unknown } | undefined;
      if (typeof params?.field === 'string' && params.field !== '') field = field ? `${field}.${params.field}` : params.field;
      const code = typeof params?.code === 'string' && Object.hasOwn(ErrorCode, params.code) ? (params.code as ErrorCode) : ErrorCode.OUT_OF_RANGE;
      return result(code, `${field ? `${field}: ` : ''}${issue.message}`);
    }
    default:
      return result(ErrorCode.INVALID_TYPE, `${prefix}${issue.message}, got ${describeGot(got)}`);
  }
}

function isNonFinite(v: unknown): v is number {
  return typeof v === 'number' && !Number.isFinite(v);
}

/** The value at `path` inside `root` (undefined where the path leaves the objects). */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/**
 * In a union, the branch that got furthest into the value explains the failure
 * best (`candidates[0].tier` rather than "not a candidate and not null"); an
 * unknown key is that branch's first issue.
 */
function deepestUnionIssue(issue: z.core.$ZodIssueInvalidUnion): Issue | undefined {
  let best: Issue | undefined;
  for (const b of issue.errors) {
    const first = b.find((i) => i.code === 'unrecognized_keys') ?? b[0];
    if (first && first.path.length > 0 && (!best || first.path.length > best.path.length)) best = first;
  }
  return best && ({ ...best, path: [...issue.path, ...best.path] } as Issue);
}

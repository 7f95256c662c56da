import { UsageError } from './exitCodes.js';
import type { ParsedFlags } from './command.js';
import { parseSize } from '../server/size.js';

/**
 * Typed readers for flag values. A value of the wrong type is bad usage
 * (exit code 2), reported with the flag's name.
 */

/**
 * A plain decimal number as people write one on a command line: an optional
 * sign, digits with an optional fraction, an optional exponent (`3`, `-0.5`,
 * `.25`, `1e-8`, `6E3`). `Number()` would also take `0x10`, `0b11`, `0o7`,
 * `Infinity` and surrounding whitespace; those are refused.
 */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `text` as a finite decimal number (see {@link DECIMAL}), or undefined. */
export function parseDecimal(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const x = Number(text);
  return Number.isFinite(x) ? x : undefined;
}

/** A finite number flag (plain decimal, exponent allowed: `1e-8`), or undefined when absent. */
export function numberFlag(flags: ParsedFlags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const x = typeof v === 'string' ? parseDecimal(v) : undefined;
  if (x === undefined) throw new UsageError(`--${name} must be a finite decimal number, got ${JSON.stringify(v)}`);
  return x;
}

/** A number flag that also accepts `inf`, `Infinity`, `-inf`, `-Infinity` (any case). */
export function extendedNumberFlag(flags: ParsedFlags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const s = String(v).toLowerCase();
  if (s === 'inf' || s === 'infinity' || s === '+inf' || s === '+infinity') return Infinity;
  if (s === '-inf' || s === '-infinity') return -Infinity;
  const x = typeof v === 'string' ? parseDecimal(v) : undefined;
  if (x === undefined) throw new UsageError(`--${name} must be a decimal number or inf, got ${JSON.stringify(v)}`);
  return x;
}

/**
 * A byte size flag: bytes (`1048576`) or with a unit (`64MiB`, `1GiB`, `512K`;
 * `KB`/`MB`/`GB` are powers of 1000), as `serve --max-body` reads it; in
 * [min, max]. Undefined when absent.
 */
export function sizeFlag(flags: ParsedFlags, name: string, min = 1, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && !/\s/.test(v) ? parseSize(v) : undefined;
  if (n === undefined || n < min) throw new UsageError(`--${name} must be a size of at least ${min} byte(s): bytes, or with a unit (64MiB, 1GiB), got ${JSON.stringify(v)}`);
  if (n > max) throw new UsageError(`--${name} must be at most ${max} bytes, got ${JSON.stringify(v)}`);
  return n;
}

/** One of `allowed`, or undefined when absent. */
export function enumFlag<T extends string>(flags: ParsedFlags, name: string, allowed: readonly T[]): T | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (!allowed.includes(v as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  return v as T;
}

/** A comma-separated list of integers (e.g. `--k 1,5,10`), each a plain decimal (no spaces, no hex). */
export function intListFlag(flags: ParsedFlags, name: string): number[] | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const out = String(v).split(',').map(parseDecimal);
  if (out.some((x) => x === undefined || !Number.isInteger(x))) {
    throw new UsageError(`--${name} must be an integer or a comma-separated list of integers, got ${JSON.stringify(v)}`);
  }
  return out as number[];
}

/** Drops undefined entries, so that `{ ...defaults, ...lineOpts }` keeps only what was given. */
export function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as Partial<T>;
}

/**
 * Validates option defaults given as flags with the library's exported zod
 * schema, so that a bad flag is bad usage (exit 2) before any line is read.
 * `flagOf` maps an option key to its flag name for the message.
 */
export function checkFlagOptions(
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } } },
  value: Record<string, unknown>,
  flagOf: Readonly<Record<string, string>>,
): void {
  const r = schema.safeParse(value);
  if (r.success) return;
  const issue = r.error!.issues[0]!;
  const key = String(issue.path[0] ?? '');
  throw new UsageError(`--${flagOf[key] ?? key}: ${issue.message}`);
}

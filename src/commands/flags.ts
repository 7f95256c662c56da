import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { errorFromZodIssue } from '../errors/errorFromZodIssue.js';
import type { FlagSpec, ParsedFlags } from './command.js';
import { UsageError } from './exitCodes.js';
import { parseSize } from './size.js';
import { didYouMean } from './suggest.js';

/**
 * Flags: parsing `argv` against a command's flag specs, typed readers for the
 * values, and the help's flag table. A flag value of the wrong type is bad
 * usage (exit code 2), reported with the flag's name.
 */

/** The "unknown flag" message, with the nearest known `--flag` when one is close (`--budjet` -> `--budget`). */
function unknownFlagMessage(message: string, specs: Readonly<Record<string, FlagSpec>>): string {
  const flag = /^Unknown option '(--[^'=]+)'/.exec(message)?.[1];
  const hint = flag === undefined ? '' : didYouMean(flag, Object.keys(specs).map((n) => `--${n}`), (f) => f);
  return message.replace(/\. To specify a positional argument.*$/s, '').replace(/^Unknown option/, 'unknown flag') + hint;
}

/** Parses `argv` against the flag specs; unknown flags (with a "did you mean") and positionals are bad usage. */
export function parseFlags(argv: readonly string[], specs: Readonly<Record<string, FlagSpec>>): ParsedFlags {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, f] of Object.entries(specs)) options[name] = { type: f.type };
  if (options.help) options.help.short = 'h';
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
    if (positionals.length) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (flags start with --)`);
    return values as ParsedFlags;
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(unknownFlagMessage(e instanceof Error ? e.message : String(e), specs));
  }
}

/** The help's flag table: `--name VALUE` and the description, aligned. */
export function flagLines(flags: Readonly<Record<string, FlagSpec>>): string[] {
  const rows = Object.entries(flags).map(([name, f]) => [`--${name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`, f.description] as const);
  const width = Math.max(0, ...rows.map(([l]) => l.length)) + 2;
  return rows.map(([l, d]) => `  ${l.padEnd(width)}${d}`);
}

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

/**
 * An integer flag in [min, max] (a plain decimal, see {@link numberFlag}), or
 * undefined when absent: `--workers 4`. Out of range or fractional is bad
 * usage: `--workers must be an integer >= 1, got "0"` (`in [min, max]` when
 * there is an upper bound).
 */
export function intFlag(flags: ParsedFlags, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = numberFlag(flags, name);
  if (v !== undefined && (!Number.isInteger(v) || v < min || v > max)) {
    throw new UsageError(`--${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`}, got ${String(flags[name])}`);
  }
  return v;
}

/** A number flag > 0 (a duration, a limit), or undefined when absent: `--max-seconds 90`. */
export function positiveFlag(flags: ParsedFlags, name: string): number | undefined {
  const v = numberFlag(flags, name);
  if (v !== undefined && !(v > 0)) throw new UsageError(`--${name} must be > 0, got ${String(flags[name])}`);
  return v;
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

/** The flag that sets option `key`: its kebab-case (`lambdaMax` -> `lambda-max`). */
export function flagOfOption(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * Validates option defaults given as flags with the library's exported zod
 * schema, so that a bad flag is bad usage (exit 2) before any line is read.
 * The first issue is rendered by {@link errorFromZodIssue} below the flag that
 * set the option (its kebab-case, see {@link flagOfOption}):
 * `--lambda-max: Too small: expected number to be >=1, got 0.5`.
 */
export function checkFlagOptions(schema: z.ZodType, value: Readonly<Record<string, unknown>>): void {
  const r = schema.safeParse(value);
  if (r.success) return;
  const issue = r.error.issues[0]!;
  const key = String(issue.path[0] ?? '');
  const below = { ...issue, path: issue.path.slice(1) } as z.core.$ZodIssue;
  throw new UsageError(errorFromZodIssue(below, value[key], { root: `--${flagOfOption(key)}` }).message);
}

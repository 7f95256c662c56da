import { UsageError } from './exitCodes.js';
import type { ParsedFlags } from './command.js';

/**
 * Typed readers for flag values. A value of the wrong type is bad usage
 * (exit code 2), reported with the flag's name.
 */

/** A finite number flag, or undefined when absent. */
export function numberFlag(flags: ParsedFlags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const s = String(v).trim();
  const x = Number(s);
  if (s === '' || !Number.isFinite(x)) throw new UsageError(`--${name} must be a finite number, got ${JSON.stringify(v)}`);
  return x;
}

/** A number flag that also accepts `inf`, `Infinity`, `-inf`, `-Infinity`. */
export function extendedNumberFlag(flags: ParsedFlags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const s = String(v).trim().toLowerCase();
  if (s === 'inf' || s === 'infinity' || s === '+inf' || s === '+infinity') return Infinity;
  if (s === '-inf' || s === '-infinity') return -Infinity;
  return numberFlag(flags, name);
}

/** One of `allowed`, or undefined when absent. */
export function enumFlag<T extends string>(flags: ParsedFlags, name: string, allowed: readonly T[]): T | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (!allowed.includes(v as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  return v as T;
}

/** A comma-separated list of integers (e.g. `--k 1,5,10`). */
export function intListFlag(flags: ParsedFlags, name: string): number[] | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const parts = String(v).split(',').map((p) => p.trim());
  const out = parts.map((p) => Number(p));
  if (parts.some((p) => p === '') || out.some((x) => !Number.isInteger(x))) {
    throw new UsageError(`--${name} must be an integer or a comma-separated list of integers, got ${JSON.stringify(v)}`);
  }
  return out;
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

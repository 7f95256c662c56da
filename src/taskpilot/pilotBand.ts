/**
 * The pilot's target band from the CLI's words (SPEC §15): `--band "(0,1)"` in
 * interval notation, or `--target t` with a tolerance of one rollout.
 * @module
 */
import { ErrorCode, FrognanoError } from '../errors/index.js';
import { type ParsedResolveRateBand, ResolveRateBandSchema } from '../curriculum/index.js';
import { parseWith } from '../errors/validate.js';

/** The default band of the pilot: the broad learnable band `(0, 1)` (FrogNano §3.1). */
export const DEFAULT_PILOT_BAND: Readonly<ParsedResolveRateBand> = Object.freeze({ low: 0, high: 1, lowInclusive: false, highInclusive: false });

/**
 * Parses a band in interval notation: `(`/`)` exclusive, `[`/`]` inclusive, two numbers in
 * [0, 1] separated by a comma, spaces anywhere: `"(0,1)"`, `"(0, 0.5]"`, `"[0.25,0.75]"`, `"[0.5,0.5]"`.
 * @throws FrognanoError `INVALID_TYPE` (not that shape) or `OUT_OF_RANGE` (an end outside [0, 1],
 *   low > high, an empty band such as `(0.5,0.5]`), naming `band`
 */
export function parseBand(text: string): ParsedResolveRateBand {
  const fn = 'parseBand';
  const m = typeof text === 'string' ? /^\s*([[(])\s*([^,\s]+)\s*,\s*([^\])\s]+)\s*([\])])\s*$/.exec(text) : null;
  if (!m) throw new FrognanoError(ErrorCode.INVALID_TYPE, `band must be an interval like "(0,1)" or "[0.25, 0.75]" (( ) exclusive, [ ] inclusive), got ${JSON.stringify(text)}`, { fn, field: 'band' });
  const num = (s: string): number => {
    const v = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s) ? Number(s) : NaN;
    if (!Number.isFinite(v)) throw new FrognanoError(ErrorCode.INVALID_TYPE, `band end ${JSON.stringify(s)} is not a number (in ${JSON.stringify(text)})`, { fn, field: 'band' });
    return v;
  };
  return parseWith(fn, 'band', ResolveRateBandSchema, { low: num(m[2]!), high: num(m[3]!), lowInclusive: m[1] === '[', highInclusive: m[4] === ']' });
}

/**
 * The band of `--target t` with N rollouts: `[t - 1/N, t + 1/N]` (a tolerance of one
 * rollout), clipped to [0, 1], both ends inclusive. (Rates 0 and 1 stay too-hard /
 * saturated whatever the band: `classifyResolveRate`.)
 * @throws FrognanoError `OUT_OF_RANGE` (t outside [0, 1], N not an integer >= 1)
 */
export function targetBand(target: number, rollouts: number): ParsedResolveRateBand {
  const fn = 'targetBand';
  if (typeof target !== 'number' || !Number.isFinite(target) || target < 0 || target > 1) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `target must be a number in [0, 1], got ${String(target)}`, { fn, field: 'target' });
  if (!Number.isInteger(rollouts) || rollouts < 1) throw new FrognanoError(ErrorCode.OUT_OF_RANGE, `rollouts must be an integer >= 1, got ${String(rollouts)}`, { fn, field: 'rollouts' });
  const tol = 1 / rollouts;
  return { low: Math.max(0, target - tol), high: Math.min(1, target + tol), lowInclusive: true, highInclusive: true };
}

/** How a band is written back: `(0, 1)`, `[0.375, 0.625]`. */
export function formatBand(b: ParsedResolveRateBand): string {
  return `${b.lowInclusive ? '[' : '('}${b.low}, ${b.high}${b.highInclusive ? ']' : ')'}`;
}

/**
 * Cross-check against an independent Python reference of SPEC.md.
 *
 * The expected values in `spec-reference.json` come from
 * `bench/reference/spec_reference.py` (float64 / exact rationals, written from
 * the text of SPEC.md only). Regenerate with
 * `/usr/bin/python3 bench/reference/spec_reference.py`.
 *
 * Encoding: `"Infinity"` / `"-Infinity"` strings stand for ±Infinity (JSON has
 * no such numbers); JSON `null` is SPEC's `null`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bonAccuracy,
  broadcastToTokens,
  compactionBudget,
  dppoMask,
  fleissKappa,
  gagarCoefficients,
  gagarRedistribute,
  gagarWeightedScore,
  groupAdvantages,
  kendallTau,
  logLengthReward,
  macroPearson,
  macroSpearman,
  meanRegret,
  passAtK,
  passAtShort,
  reciprocalRankReward,
  resolveRate,
  shapeReward,
  thresholdScore,
} from '../../src/index.js';

/** Absolute tolerance for float comparisons. */
const TOL = 1e-9;
/** At most this many differing cases are listed per function. */
const MAX_REPORTED = 15;

// The reference data is untyped JSON; each runner forwards it positionally.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Args = any[];

interface Case {
  args: Args;
  expected: unknown;
}

const raw = readFileSync(new URL('./spec-reference.json', import.meta.url), 'utf8');
const data = JSON.parse(raw, (_key, value: unknown) =>
  value === 'Infinity' ? Infinity : value === '-Infinity' ? -Infinity : value,
) as Record<string, Case[]>;

interface Runner {
  call: (a: Args) => unknown;
  /** Numbers must match exactly (integer / 0-1 outputs). */
  exact?: boolean;
}

const runners: Record<string, Runner> = {
  logLengthReward: { call: (a) => logLengthReward(a[0], a[1], a[2]) },
  shapeReward: { call: (a) => shapeReward(a[0], a[1]) },
  groupAdvantages: { call: (a) => groupAdvantages(a[0], a[1]) },
  broadcastToTokens: { call: (a) => broadcastToTokens(a[0], a[1]) },
  dppoMask: { call: (a) => dppoMask(a[0], a[1], a[2], a[3]), exact: true },
  gagarWeightedScore: { call: (a) => gagarWeightedScore(a[0]) },
  gagarCoefficients: { call: (a) => gagarCoefficients(a[0]) },
  gagarRedistribute: { call: (a) => gagarRedistribute(a[0], a[1], a[2]) },
  passAtK: { call: (a) => passAtK(a[0], a[1], a[2]) },
  passAtShort: { call: (a) => passAtShort(a[0]) },
  reciprocalRankReward: { call: (a) => reciprocalRankReward(a[0], a[1]) },
  bonAccuracy: { call: (a) => bonAccuracy(a[0]) },
  meanRegret: { call: (a) => meanRegret(a[0]) },
  kendallTau: { call: (a) => kendallTau(a[0]) },
  macroPearson: { call: (a) => macroPearson(a[0]) },
  macroSpearman: { call: (a) => macroSpearman(a[0]) },
  thresholdScore: { call: (a) => thresholdScore(a[0], a[1]) },
  fleissKappa: { call: (a) => fleissKappa(a[0]) },
  resolveRate: { call: (a) => resolveRate(a[0]) },
  compactionBudget: { call: (a) => compactionBudget(a[0]), exact: true },
};

function show(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

/** Recursively compares `actual` to `expected`, pushing a message per difference into `errs`. */
function compare(actual: unknown, expected: unknown, path: string, exact: boolean, errs: string[]): void {
  if (expected === null) {
    if (actual !== null) errs.push(`${path}: expected null, got ${show(actual)}`);
    return;
  }
  if (typeof expected === 'number') {
    if (typeof actual !== 'number') {
      errs.push(`${path}: expected number ${show(expected)}, got ${show(actual)}`);
      return;
    }
    // `count` fields are integers: compare exactly.
    const mustBeExact = exact || path.endsWith('.count');
    if (Number.isNaN(actual)) {
      errs.push(`${path}: expected ${show(expected)}, got NaN`);
    } else if (!Number.isFinite(expected) || mustBeExact) {
      if (actual !== expected) errs.push(`${path}: expected ${show(expected)}, got ${show(actual)}`);
    } else if (!(Math.abs(actual - expected) <= TOL)) {
      errs.push(`${path}: expected ${expected}, got ${actual} (|diff| = ${Math.abs(actual - expected)})`);
    }
    return;
  }
  if (typeof expected === 'boolean') {
    if (actual !== expected) errs.push(`${path}: expected ${expected}, got ${show(actual)}`);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) {
      errs.push(`${path}: expected a plain array, got ${show(actual)}`);
      return;
    }
    if (actual.length !== expected.length) {
      errs.push(`${path}: expected length ${expected.length}, got ${actual.length}`);
      return;
    }
    for (let i = 0; i < expected.length; i++) compare(actual[i], expected[i], `${path}[${i}]`, exact, errs);
    return;
  }
  if (typeof expected === 'object') {
    if (typeof actual !== 'object' || actual === null) {
      errs.push(`${path}: expected an object, got ${show(actual)}`);
      return;
    }
    for (const [k, v] of Object.entries(expected as Record<string, unknown>)) {
      compare((actual as Record<string, unknown>)[k], v, `${path}.${k}`, exact, errs);
    }
    return;
  }
  errs.push(`${path}: unsupported expected value ${show(expected)}`);
}

describe('SPEC.md cross-check against the independent Python reference', () => {
  it('has reference data for every checked function', () => {
    const missing = Object.keys(runners).filter((name) => !Array.isArray(data[name]) || data[name].length === 0);
    expect(missing).toEqual([]);
  });

  for (const [name, runner] of Object.entries(runners)) {
    const cases = data[name] ?? [];
    it(`${name} agrees with the reference (${cases.length} cases)`, () => {
      // a runner whose data went missing must not pass with zero cases
      expect(cases.length, `no reference cases for ${name}`).toBeGreaterThan(0);
      const failures: string[] = [];
      let failed = 0;
      cases.forEach((c, idx) => {
        const before = JSON.stringify(c.args);
        const args = structuredClone(c.args);
        const errs: string[] = [];
        try {
          const actual = runner.call(args);
          compare(actual, c.expected, 'result', runner.exact ?? false, errs);
          if (JSON.stringify(args) !== before) errs.push('inputs were mutated');
        } catch (e) {
          errs.push(`threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
        }
        if (errs.length > 0) {
          failed++;
          if (failures.length < MAX_REPORTED) {
            failures.push(`case #${idx} args=${show(c.args)}\n    ${errs.slice(0, 4).join('\n    ')}`);
          }
        }
      });
      expect(failures, `${name}: ${failed} of ${cases.length} cases differ from the reference`).toEqual([]);
    });
  }
});

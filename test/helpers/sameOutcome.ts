import { expect } from 'vitest';
import { FrognanoError } from '../../src/errors/FrognanoError.js';

/**
 * What a call did, for comparing two paths of one function (a fast path and the
 * careful one): its numeric outputs as plain arrays, or the FrognanoError it threw
 * (code, message, field, index). Any other throw propagates.
 */
export type Outcome =
  | { ok: true; values: Record<string, number[]> }
  | { ok: false; code: string; message: string; field?: string; index?: number[] };

/** Runs `f` and records its typed-array outputs (by name) or its FrognanoError. */
export function outcomeOf<T extends { [K in keyof T]: ArrayLike<number> }>(f: () => T): Outcome {
  try {
    const r = f();
    return { ok: true, values: Object.fromEntries(Object.entries<ArrayLike<number>>(r).map(([k, v]) => [k, Array.from(v)])) };
  } catch (e) {
    if (!(e instanceof FrognanoError)) throw e;
    return { ok: false, code: e.code, message: e.message, ...(e.field ? { field: e.field } : {}), ...(e.index ? { index: e.index } : {}) };
  }
}

/** The same outcome: every output bit for bit (`Object.is`, so 0 and -0 differ), or the same error. */
export function expectSameOutcome(a: Outcome, b: Outcome): void {
  expect(a.ok).toBe(b.ok);
  if (a.ok && b.ok) {
    expect(Object.keys(a.values).sort()).toEqual(Object.keys(b.values).sort());
    for (const [k, xs] of Object.entries(a.values)) {
      const ys = b.values[k]!;
      expect(xs.length, k).toBe(ys.length);
      for (let i = 0; i < xs.length; i++) if (!Object.is(xs[i], ys[i])) expect([k, i, xs[i]]).toEqual([k, i, ys[i]]);
    }
  } else expect(a).toEqual(b);
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ldexp, unitExponent } from './ldexp.js';

describe('ldexp / unitExponent', () => {
  it('scales exactly across the whole exponent range', () => {
    expect(ldexp(1, 1023)).toBe(2 ** 1023);
    expect(ldexp(1.5, -1074 + 1)).toBe(1.5 * 2 ** -1073);
    expect(ldexp(ldexp(3, 1000), -1000)).toBe(3);
    expect(ldexp(2 ** -1000, 2000)).toBe(2 ** 1000);
    expect(unitExponent(0)).toBe(0);
    expect(unitExponent(1e308)).toBe(-1023);
    expect(unitExponent(5e-324)).toBe(1074);
  });

  it('property: m * 2^unitExponent(m) lies in [1, 2) and scaling back is exact', () => {
    fc.assert(
      fc.property(fc.double({ min: 5e-324, max: Number.MAX_VALUE, noNaN: true }), (m) => {
        const e = unitExponent(m);
        const u = ldexp(m, e);
        expect(u >= 1 && u < 2).toBe(true);
        if (m >= 2 ** -1022) expect(ldexp(u, -e)).toBe(m);
      }),
    );
  });
});

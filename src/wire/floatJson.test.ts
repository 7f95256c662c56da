import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { floatToJson, stringifyWire } from './floatJson.js';

describe('floatToJson', () => {
  it('writes every finite number with a fraction part or an exponent', () => {
    expect(floatToJson(1)).toBe('1.0');
    expect(floatToJson(0)).toBe('0.0');
    expect(floatToJson(-0)).toBe('-0.0');
    expect(floatToJson(-3)).toBe('-3.0');
    expect(floatToJson(0.5)).toBe('0.5');
    expect(floatToJson(1e21)).toBe('1e+21');
    expect(floatToJson(5e-7)).toBe('5e-7');
    expect(floatToJson(2 ** 53)).toBe('9007199254740992.0');
  });

  it('NaN and ±Infinity are null, as JSON.stringify writes them', () => {
    expect(floatToJson(Number.NaN)).toBe('null');
    expect(floatToJson(Infinity)).toBe('null');
    expect(floatToJson(-Infinity)).toBe('null');
  });

  it('property: parses back to the same double, and Python would see a float (a "." or "e")', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const s = floatToJson(x);
        expect(Object.is(JSON.parse(s), x) || (x === 0 && JSON.parse(s) === 0)).toBe(true);
        expect(/[.e]/.test(s)).toBe(true);
      }),
    );
  });
});

describe('stringifyWire', () => {
  it('rewards, scores, advantages and raw are floats; other numbers stay as JSON.stringify writes them', () => {
    const v = { rewards: [1, 0, 0.5], scores: [1, 0, 1], kept: true, n: 3, advantages: [[1, -1], [0, 0]], raw: 1, id: 7 };
    expect(stringifyWire(v)).toBe('{"rewards":[1.0,0.0,0.5],"scores":[1.0,0.0,1.0],"kept":true,"n":3,"advantages":[[1.0,-1.0],[0.0,0.0]],"raw":1.0,"id":7}');
  });

  it('every list of extra_logs is floats (OpenRLHF takes their mean)', () => {
    expect(stringifyWire({ extra_logs: { success: [1, 0], assistant_tokens: [9000, 31] } })).toBe('{"extra_logs":{"success":[1.0,0.0],"assistant_tokens":[9000.0,31.0]}}');
    expect(stringifyWire({ extra_logs: { success: [] } })).toBe('{"extra_logs":{"success":[]}}');
  });

  it('a bare reward (slime) is a float when rootIsFloat', () => {
    expect(stringifyWire(1, true)).toBe('1.0');
    expect(stringifyWire(0, true)).toBe('0.0');
    expect(stringifyWire(1)).toBe('1');
  });

  it('objects inside a float field keep their own rule (integer rubric scores stay integers)', () => {
    expect(stringifyWire({ scores: { approach: 4 }, reward: { value: 1, score: 1 } })).toBe('{"scores":{"approach":4},"reward":{"value":1,"score":1.0}}');
  });

  it('typed arrays are written as arrays', () => {
    expect(stringifyWire({ advantages: new Float64Array([1, -0.5]) })).toBe('{"advantages":[1.0,-0.5]}');
  });

  it('property: equal to JSON.stringify as a value, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const s = stringifyWire(v);
        expect(JSON.parse(s)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 300 },
    );
  });

  it('is byte-identical to JSON.stringify when no float field is present (strings, escapes, undefined, toJSON), but for U+2028 escaped', () => {
    const v = { a: 'é\n"\u2028', b: [undefined, () => 1, null], c: undefined, d: new Date(0), e: { f: -0, g: NaN } };
    expect(stringifyWire(v)).toBe(JSON.stringify(v).replace('\u2028', '\\u2028'));
    expect(stringifyWire(undefined)).toBe('null');
  });

  it('a BigInt throws as in JSON.stringify', () => {
    expect(() => stringifyWire({ a: 1n })).toThrow(TypeError);
  });
});

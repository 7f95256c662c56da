import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, jsonHash } from './canonicalJson.js';

/** `v` with every object's keys in a shuffled order (by `rank`), as another writer could emit it. */
function reorder(v: unknown, rank: (k: string) => number): unknown {
  if (Array.isArray(v)) return v.map((x) => reorder(x, rank));
  if (typeof v !== 'object' || v === null) return v;
  const keys = Object.keys(v).sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((k) => [k, reorder((v as Record<string, unknown>)[k], rank)]));
}

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order, writes no white space', () => {
    expect(canonicalJson({ b: [3, { d: 1, c: [{ f: 0, e: 'x y' }] }], a: null, é: true })).toBe('{"a":null,"b":[3,{"c":[{"e":"x y","f":0}],"d":1}],"é":true}');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson('a"\n')).toBe('"a\\"\\n"');
  });
  it('orders keys by UTF-16 code units (uppercase before lowercase, "10" before "9")', () => {
    expect(canonicalJson({ b: 1, B: 2, 9: 3, 10: 4, '': 5 })).toBe('{"":5,"10":4,"9":3,"B":2,"b":1}');
  });
  it('texts that parse to the same value have the same canonical JSON (1.0 and 1, \\u escapes, spacing)', () => {
    const a = JSON.parse('{ "x" : 1.0, "y": [ 1e2, "\\u0041" ] }');
    const b = JSON.parse('{"y":[100,"A"],"x":1}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
  });
  it('leaves out undefined entries of objects, as JSON.stringify does', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
  it('is independent of key order and spacing, and parses back to the value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), fc.integer({ min: 0, max: 4 }), (v, salt, indent) => {
        const rank = (k: string): number => createHash('md5').update(`${salt}:${k}`).digest().readInt32LE(0);
        const text = JSON.stringify(reorder(v, rank), null, indent);
        const c = canonicalJson(JSON.parse(text));
        expect(c).toBe(canonicalJson(v));
        expect(c.length).toBe(JSON.stringify(JSON.parse(c)).length); // no white space
        expect(JSON.parse(c)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });
});

describe('jsonHash', () => {
  it('is sha256:<hex> of the canonical JSON\'s UTF-8 bytes', () => {
    const hex = createHash('sha256').update(Buffer.from('{"a":"é","b":[1,2]}', 'utf8')).digest('hex');
    expect(jsonHash({ b: [1, 2], a: 'é' })).toBe(`sha256:${hex}`);
  });
  it('differs when a value differs', () => {
    expect(jsonHash({ a: 1 })).not.toBe(jsonHash({ a: 2 }));
    expect(jsonHash({ a: [1, 2] })).not.toBe(jsonHash({ a: [2, 1] }));
  });
});

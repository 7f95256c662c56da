import { createHash } from 'node:crypto';

/**
 * Canonical JSON of a parsed JSON value: object keys sorted (by UTF-16 code
 * units, as `Array.prototype.sort` orders strings) at every depth, no
 * whitespace, strings and numbers as `JSON.stringify` writes them. Two texts
 * that parse to the same value (key order, spacing, `1.0` vs `1`, `\u0041`
 * vs `A`) have the same canonical JSON. Object entries whose value is
 * `undefined` are left out, as `JSON.stringify` leaves them out.
 *
 * @example canonicalJson({ b: [1, { d: 2, c: 3 }], a: 'x' }) // '{"a":"x","b":[1,{"c":3,"d":2}]}'
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `sha256:<hex>` of the UTF-8 bytes of {@link canonicalJson}`(value)`: the same for every text of the same record. */
export function jsonHash(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')}`;
}

/**
 * Issue 20 finding 10: a lone surrogate, raw C1 controls and U+2028 / U+2029
 * must not pass raw into `rollouts.jsonl` (nor into any line the CLI or the
 * service writes): {@link stringifyWire} escapes them, and its text still
 * parses back to the same value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyWire } from './floatJson.js';

/** Every character stringifyWire must never write raw (with the u flag a surrogate pair is one character, a lone half matches). */
const RAW = /[\u007f-\u009f\u2028\u2029\ud800-\udfff]/u;

describe('stringifyWire escapes', () => {
  it('DEL and the C1 controls (U+007F-U+009F) are written as \\u00XX, in values and in keys', () => {
    expect(stringifyWire('a\u007fb')).toBe('"a\\u007fb"');
    expect(stringifyWire('\u0080\u0085\u009b\u009f')).toBe('"\\u0080\\u0085\\u009b\\u009f"');
    expect(stringifyWire({ 'k\u0085': 'v\u009b' })).toBe('{"k\\u0085":"v\\u009b"}');
    // U+00A0 (no-break space) and U+007E (~) are the neighbours: left as they are
    expect(stringifyWire('~\u00a0')).toBe('"~\u00a0"');
  });

  it('U+2028 and U+2029 are written as \\u2028 and \\u2029, in values and in keys', () => {
    expect(stringifyWire('line\u2028para\u2029end')).toBe('"line\\u2028para\\u2029end"');
    expect(stringifyWire({ '\u2028': ['\u2029'] })).toBe('{"\\u2028":["\\u2029"]}');
  });

  it('lone surrogates are written as \\udXXX escapes, in values and in keys; a surrogate pair stays one raw character', () => {
    expect(stringifyWire('x\ud800')).toBe('"x\\ud800"');
    expect(stringifyWire('\udfffy')).toBe('"\\udfffy"');
    expect(stringifyWire('\udc00\ud83d')).toBe('"\\udc00\\ud83d"'); // a reversed pair is two lone halves
    expect(stringifyWire({ 'k\udbff': 'v\udc01' })).toBe('{"k\\udbff":"v\\udc01"}');
    expect(stringifyWire('\ud83d\ude00')).toBe('"\ud83d\ude00"'); // 😀
  });

  it('a nested trajectory-like record: every class escaped wherever it sits, floats kept, the value round-trips', () => {
    const record = {
      task: { id: 't\u2029', repo: 'r' },
      messages: [
        { role: 'assistant', content: 'ok\u0085done\u2028', toolCalls: [{ name: 'read', arguments: { path: 'a\u007f.txt', 'x\ud800': [null, 'y\udfff'] } }] },
        { role: 'tool', content: '\u009b31m red \u009b0m' },
      ],
      reward: 1,
      advantages: [0, -1],
    };
    const text = stringifyWire(record);
    expect(text).toBe(
      '{"task":{"id":"t\\u2029","repo":"r"},"messages":[{"role":"assistant","content":"ok\\u0085done\\u2028","toolCalls":[{"name":"read","arguments":{"path":"a\\u007f.txt","x\\ud800":[null,"y\\udfff"]}}]},{"role":"tool","content":"\\u009b31m red \\u009b0m"}],"reward":1.0,"advantages":[0.0,-1.0]}',
    );
    expect(JSON.parse(text)).toEqual(record);
  });

  it('text without such a character is the same text as before (JSON.stringify\'s, floats aside)', () => {
    const v = { a: 'é\n"\t\u001f\\', b: ['😀', 'ü'], n: 3 };
    expect(stringifyWire(v)).toBe(JSON.stringify(v));
  });

  it('property: no raw DEL, C1, U+2028/2029 or surrogate in the output, which parses back to the same value', () => {
    // strings drawn from every UTF-16 code unit, the escaped ones made likely
    const unit = fc.oneof(
      fc.integer({ min: 0x7f, max: 0x9f }),
      fc.constantFrom(0x2028, 0x2029),
      fc.integer({ min: 0xd800, max: 0xdfff }),
      fc.integer({ min: 0, max: 0xffff }),
    );
    const str = fc.array(unit, { maxLength: 12 }).map((cs) => String.fromCharCode(...cs));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, str, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie('arr'), tie('obj')),
      arr: fc.array(tie('node'), { maxLength: 4 }),
      obj: fc.dictionary(str, tie('node'), { maxKeys: 4 }),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = stringifyWire(v);
        expect(RAW.test(text)).toBe(false);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });
});

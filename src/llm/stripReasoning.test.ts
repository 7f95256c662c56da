import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripReasoning } from './askStructured.js';

/** The original, regex-based definition: the oracle on short inputs (quadratic on repeated unclosed tags). */
const oracle = (text: string): string =>
  text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, '').replace(/^[\s\S]*?<\/(think|thinking|reasoning)>/i, '');

describe('stripReasoning', () => {
  it('drops reasoning blocks and a leading block whose opening tag was in the prompt', () => {
    expect(stripReasoning('<think>plan</think>{"a":1}')).toBe('{"a":1}');
    expect(stripReasoning('a<THINKING>x</thinking>b<reasoning>y</reasoning>c')).toBe('abc');
    expect(stripReasoning('still thinking</think>{"a":1}')).toBe('{"a":1}');
    expect(stripReasoning('<think>never closed {"a":1}')).toBe('<think>never closed {"a":1}');
    expect(stripReasoning('<think>x</thinking>y</think>z')).toBe('z');
  });

  it('property: equals the regex definition', () => {
    const piece = fc.constantFrom('<think>', '</think>', '<thinking>', '</thinking>', '<reasoning>', '</reasoning>', '<THINK>', '</Think>', 'a', ' ', '{', '}', '<', '>', '/');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const t = parts.join('');
        expect(stripReasoning(t)).toBe(oracle(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('is linear on repeated unclosed tags (200,000 characters)', () => {
    const t = '<think>'.repeat(30_000) + '{"a":1}';
    expect(stripReasoning(t)).toBe(t);
    const u = '<think>x</thinking>'.repeat(10_000);
    expect(oracle(u.slice(0, 19 * 50))).toBe(u.slice(19, 19 * 50)); // what the definition does on a short copy
    expect(stripReasoning(u)).toBe(u.slice(19));
  });
});

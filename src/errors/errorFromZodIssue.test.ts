import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { errorFromZodIssue, zodFieldPath } from './errorFromZodIssue.js';
import { FrognanoError } from './FrognanoError.js';
import { parseOptions, parseWith } from './validate.js';

/** The error of the first issue of `schema.safeParse(value)`. */
function first(schema: z.ZodType, value: unknown, at?: Parameters<typeof errorFromZodIssue>[2]): FrognanoError {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected a failed parse');
  return errorFromZodIssue(r.error.issues[0]!, value, at);
}

describe('zodFieldPath: z.core.toDotPath below a root', () => {
  it('renders keys and indices', () => {
    expect(zodFieldPath('opts', ['filterBy', 0, 1])).toBe('opts.filterBy[0][1]');
    expect(zodFieldPath('', ['rewards', 2])).toBe('rewards[2]');
    expect(zodFieldPath('groups', [0, 3])).toBe('groups[0][3]');
    expect(zodFieldPath('line 3', ['tests', 'command'])).toBe('line 3.tests.command');
    expect(zodFieldPath('opts', [])).toBe('opts');
    expect(zodFieldPath('', [])).toBe('');
  });
  it('quotes a key that is not an identifier', () => {
    expect(zodFieldPath('files', ['../a.py'])).toBe('files["../a.py"]');
  });
});

describe('errorFromZodIssue: one code, path and wording per issue', () => {
  const Opts = z.object({ eps: z.number().min(0).optional(), filterBy: z.array(z.array(z.number())).optional(), std: z.enum(['std', 'none']).optional() }).strict();
  it('a number of the wrong type: INVALID_TYPE naming the path and the value', () => {
    const e = first(Opts, { filterBy: [[1], [2, 'x']] }, { fn: 'f', root: 'opts' });
    expect([e.code, e.message, e.field, e.index]).toEqual(['INVALID_TYPE', 'f: opts.filterBy[1][1] must be a number, got "x"', 'opts.filterBy[1][1]', [1, 1]]);
    expect(e.fn).toBe('f');
  });
  it('NaN and ±Infinity: NON_FINITE, also through a union', () => {
    expect(first(Opts, { eps: NaN }, { root: 'opts' })).toMatchObject({ code: 'NON_FINITE', message: 'opts.eps must be a finite number, got NaN' });
    const Ext = z.object({ x: z.union([z.number(), z.literal('inf')]) });
    expect(first(Ext, { x: -Infinity })).toMatchObject({ code: 'NON_FINITE', message: 'x must be a finite number, got -Infinity', field: 'x' });
  });
  it('a fraction where an integer is required: OUT_OF_RANGE', () => {
    expect(first(z.object({ n: z.number().int() }), { n: 1.5 })).toMatchObject({ code: 'OUT_OF_RANGE', message: 'n must be an integer, got 1.5' });
  });
  it('a missing field: INVALID_TYPE, "is required"', () => {
    expect(first(z.object({ rewards: z.array(z.number()) }), {})).toMatchObject({ code: 'INVALID_TYPE', message: 'rewards is required (an array)' });
  });
  it('an empty array is always EMPTY_INPUT, whatever the minimum', () => {
    const e1 = first(z.object({ options: z.array(z.string()).min(1) }), { options: [] }, { fn: 'judge', root: 'opts' });
    expect([e1.code, e1.message]).toEqual(['EMPTY_INPUT', 'judge: opts.options must have at least 1 element, got 0']);
    expect(first(z.array(z.number()).min(2), [], { root: 'tokens' })).toMatchObject({ code: 'EMPTY_INPUT', message: 'tokens must have at least 2 elements, got 0' });
    // a non-empty array below its minimum is out of range
    expect(first(z.array(z.number()).min(2), [1], { root: 'tokens' })).toMatchObject({ code: 'OUT_OF_RANGE', message: 'tokens: Too small: expected array to have >=2 items, got an array of length 1' });
  });
  it('a value out of range: OUT_OF_RANGE with zod\'s bound and the value', () => {
    expect(first(Opts, { eps: -1 }, { root: 'opts' })).toMatchObject({ code: 'OUT_OF_RANGE', message: 'opts.eps: Too small: expected number to be >=0, got -1' });
    expect(first(z.number().max(1), 2, { root: '--x' })).toMatchObject({ code: 'OUT_OF_RANGE', message: '--x: Too big: expected number to be <=1, got 2' });
  });
  it('an unknown key: INVALID_TYPE, "option(s)" in options and "field(s)" elsewhere', () => {
    expect(first(Opts, { epz: 1 }, { root: 'opts' })).toMatchObject({ code: 'INVALID_TYPE', message: 'opts: unknown option(s) "epz"', field: 'opts' });
    expect(first(Opts, { epz: 1, b: 2 })).toMatchObject({ message: 'unknown field(s) "epz", "b"', field: undefined });
  });
  it('an enum: INVALID_TYPE listing the members', () => {
    expect(first(Opts, { std: 'x' }, { root: 'opts' })).toMatchObject({ code: 'INVALID_TYPE', message: 'opts.std: expected one of "std"|"none", got "x"' });
  });
  it('a union is explained by the branch that got furthest', () => {
    const C = z.array(z.union([z.object({ tier: z.enum(['T1', 'T2']) }).strict(), z.null()]));
    expect(first(C, [null, { tier: 'T9' }], { root: 'candidates' })).toMatchObject({ message: 'candidates[1].tier: expected one of "T1"|"T2", got "T9"', field: 'candidates[1].tier', index: [1] });
    expect(first(z.union([z.number(), z.string()]), true)).toMatchObject({ code: 'INVALID_TYPE', message: 'the value: not one of the accepted forms, got true' });
  });
  it('a custom issue: its code (when a known one) and its extra field', () => {
    const S = z.object({ a: z.number() }).superRefine((v, ctx) => ctx.addIssue({ code: 'custom', message: 'must be even', params: { code: 'LENGTH_MISMATCH', field: 'a' } }));
    expect(first(S, { a: 1 }, { root: 'x' })).toMatchObject({ code: 'LENGTH_MISMATCH', message: 'x.a: must be even', field: 'x.a' });
    const T = z.number().refine(() => false, { message: 'no', params: { code: 'NOT_A_CODE' } });
    expect(first(T, 1, { root: 'y' })).toMatchObject({ code: 'OUT_OF_RANGE', message: 'y: no' });
  });
});

describe('parseWith and parseOptions report through errorFromZodIssue', () => {
  it('the same error as the function itself', () => {
    const S = z.object({ xs: z.array(z.number()).min(1) }).strict();
    const viaParse = (() => {
      try {
        parseOptions('g', S, { xs: [] });
      } catch (e) {
        return e as FrognanoError;
      }
      throw new Error('no error');
    })();
    const direct = first(S, { xs: [] }, { fn: 'g', root: 'opts' });
    expect([viaParse.code, viaParse.message, viaParse.field]).toEqual([direct.code, direct.message, direct.field]);
    expect(viaParse.code).toBe('EMPTY_INPUT');
  });
  it('a data root says field(s)', () => {
    expect(() => parseWith('h', 'trajectory', z.object({}).strict(), { a: 1 })).toThrow('h: trajectory: unknown field(s) "a"');
  });
});

import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { functionSchema, parseOptions } from './validate.js';

describe('functionSchema', () => {
  const Schema = z.object({ onStep: functionSchema<(s: number) => void>('(step) => void').optional(), f: functionSchema().optional() }).strict();
  it('accepts a function (and the option left out)', () => {
    const onStep = (s: number): void => void s;
    expect(parseOptions('fn', Schema, { onStep }).onStep).toBe(onStep);
    expect(parseOptions('fn', Schema, {})).toEqual({});
  });
  it('rejects a non-function with INVALID_TYPE, naming the field and the signature', () => {
    expectFrognanoError(() => parseOptions('fn', Schema, { onStep: 3 }), 'INVALID_TYPE', 'opts.onStep', 'must be a function (step) => void');
    expectFrognanoError(() => parseOptions('fn', Schema, { f: 'x' }), 'INVALID_TYPE', 'opts.f', 'must be a function');
  });
});

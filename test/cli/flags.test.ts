/**
 * The numeric flag readers of src/commands/flags.ts: plain decimals (an exponent is
 * fine: 1e-8), nothing that `Number()` would also take (0x10, 0b11, 0o7,
 * whitespace around the number, Infinity where it is not asked for).
 */
import { describe, expect, it } from 'vitest';
import { extendedNumberFlag, intListFlag, numberFlag, type ParsedFlags, parseDecimal, sizeFlag } from '../../src/commands/index.js';
import { runInProcess } from './helpers.js';

const f = (v: string | boolean | undefined): ParsedFlags => ({ x: v });
/** Literals `Number()` accepts that are not plain decimals. */
const NOT_DECIMAL = ['0x10', '0X10', '0b11', '0B11', '0o7', '0O7', ' 1', '1 ', '\t1', '1\n', ' ', '', '1_000', 'Infinity', '-Infinity', 'NaN', '1e', 'e5', '.', '+', '-', '--1', '1..2', '1e999', true] as const;

describe('parseDecimal / numberFlag', () => {
  it('takes plain decimals and exponent forms', () => {
    const ok: [string, number][] = [
      ['0', 0],
      ['16', 16],
      ['-3', -3],
      ['+2.5', 2.5],
      ['.25', 0.25],
      ['1.', 1],
      ['1e-8', 1e-8],
      ['6E3', 6000],
      ['1e+3', 1000],
      ['007', 7],
      ['-0.5e-2', -0.005],
    ];
    for (const [s, x] of ok) {
      expect(parseDecimal(s), s).toBe(x);
      expect(numberFlag(f(s), 'x'), s).toBe(x);
    }
  });

  it('refuses hex, binary and octal literals, whitespace padding, Infinity and NaN', () => {
    for (const s of NOT_DECIMAL) {
      if (typeof s === 'string') expect(parseDecimal(s), JSON.stringify(s)).toBeUndefined();
      expect(() => numberFlag(f(s), 'x'), JSON.stringify(s)).toThrow(/--x must be a finite decimal number/);
    }
  });

  it('absent is undefined', () => {
    expect(numberFlag({}, 'x')).toBeUndefined();
  });
});

describe('extendedNumberFlag', () => {
  it('takes decimals and inf / infinity in any case, with a sign', () => {
    for (const [s, x] of [
      ['1.5', 1.5],
      ['-2', -2],
      ['1e3', 1000],
      ['inf', Infinity],
      ['Infinity', Infinity],
      ['+INF', Infinity],
      ['-inf', -Infinity],
      ['-Infinity', -Infinity],
    ] as const) {
      expect(extendedNumberFlag(f(s), 'x'), s).toBe(x);
    }
  });

  it('refuses what is not a decimal or an infinity', () => {
    for (const s of ['0x10', '0b1', '0o7', ' inf', 'inf ', ' 1', '1 ', '', 'NaN', 'infinite', true]) {
      expect(() => extendedNumberFlag(f(s), 'x'), JSON.stringify(s)).toThrow(/--x must be a decimal number or inf/);
    }
  });
});

describe('intListFlag', () => {
  it('takes one integer or a comma-separated list', () => {
    expect(intListFlag(f('5'), 'x')).toEqual([5]);
    expect(intListFlag(f('1,5,10'), 'x')).toEqual([1, 5, 10]);
    expect(intListFlag(f('1e1,-2'), 'x')).toEqual([10, -2]);
  });

  it('refuses fractions, hex and other literals, spaces and empty entries', () => {
    for (const s of ['0x10', '1,0x2', '0b1', '0o7', '1.5', '1, 5', ' 1', '1 ', '1,,2', '', ',', 'x', 'Infinity', true]) {
      expect(() => intListFlag(f(s), 'x'), JSON.stringify(s)).toThrow(/--x must be an integer or a comma-separated list of integers/);
    }
  });
});

describe('sizeFlag', () => {
  it('takes bytes and sizes with a unit', () => {
    expect(sizeFlag(f('1048576'), 'x')).toBe(1048576);
    expect(sizeFlag(f('64MiB'), 'x')).toBe(64 * 1024 ** 2);
    expect(sizeFlag(f('1gib'), 'x')).toBe(1024 ** 3);
    expect(sizeFlag(f('512K'), 'x')).toBe(512 * 1024);
    expect(sizeFlag(f('2MB'), 'x')).toBe(2_000_000);
    expect(sizeFlag({}, 'x')).toBeUndefined();
    expect(sizeFlag(f('1KiB'), 'x', 1, 1024)).toBe(1024);
    expect(() => sizeFlag(f('1025'), 'x', 1, 1024)).toThrow('--x must be at most 1024 bytes, got "1025"');
  });

  it('refuses zero, negatives, hex, exponents, spaces and unknown units', () => {
    for (const s of ['0', '-1', '0x10', '1e6', ' 64MiB', '64MiB ', '64 MiB', '', 'MiB', '12 parsecs', true]) {
      expect(() => sizeFlag(f(s), 'x'), JSON.stringify(s)).toThrow(/--x must be a size/);
    }
  });
});

describe('numeric flags on the command line', () => {
  it('--eps 0x10 is bad usage (exit 2), not 16', async () => {
    const r = await runInProcess(['advantages', '--eps', '0x10'], '{"rewards":[1,0]}\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--eps must be a finite decimal number, got "0x10"');
    expect(r.stdout).toBe('');
  });

  it('every number flag of every record subcommand refuses 0x10, 0b1, 0o7 and " 1"', async () => {
    const cases: [string, string, string][] = [
      ['advantages', 'eps', '{"rewards":[1,0]}'],
      ['rewards', 'budget', '{"outcome":{"success":true,"truncated":false,"assistantTokens":1}}'],
      ['rewards', 'alpha', '{"outcome":{"success":true,"truncated":false,"assistantTokens":1}}'],
      ['rewards', 'truncated-reward', '{"outcome":{"success":true,"truncated":false,"assistantTokens":1}}'],
      ['rewards', 'floor', '{"outcome":{"success":true,"truncated":false,"assistantTokens":1}}'],
      ['gagar', 'lambda-max', '{"rewards":[1,0],"coefficients":[1,null]}'],
      ['dppo-mask', 'delta', '{"logpNew":[0],"logpRollout":[0],"advantages":1}'],
      ['dppo-mask', 'delta-low', '{"logpNew":[0],"logpRollout":[0],"advantages":1}'],
      ['dppo-mask', 'delta-high', '{"logpNew":[0],"logpRollout":[0],"advantages":1}'],
      ['metrics', 'theta', '{"ut":[1],"eval":[1]}'],
      ['pass-at-k', 'k', '{"n":2,"c":1}'],
      ['advantages', 'max-line', '{"rewards":[1,0]}'],
    ];
    for (const [cmd, flag, line] of cases) {
      for (const v of ['0x10', '0b1', '0o7', ' 1']) {
        const r = await runInProcess([cmd, `--${flag}=${v}`], `${line}\n`);
        expect(r.code, `${cmd} --${flag}=${JSON.stringify(v)}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(`--${flag}`);
      }
    }
  });

  it('exponent forms are fine: --eps 1e-8, --budget 1e3', async () => {
    const a = await runInProcess(['advantages', '--eps', '1e-8'], '{"rewards":[1,0]}\n');
    expect(a.code).toBe(0);
    const r = await runInProcess(['rewards', '--budget', '1e3', '--alpha', '0.5'], '{"outcome":{"success":true,"truncated":false,"assistantTokens":10}}\n');
    expect(r.code, r.stderr).toBe(0);
  });
});

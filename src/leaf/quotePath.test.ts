import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../../test/helpers/leafTask.js';
import { pathNeedsQuoting, quotePath } from './quotePath.js';

const b = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('quotePath', () => {
  it('ordinary paths, valid non-ASCII UTF-8 and spaces included, are left as they are', () => {
    expect(quotePath(b('src/m.py'))).toBe('src/m.py');
    expect(quotePath(b('caf\u00e9/\u20ac \u{1f600}.txt'))).toBe('caf\u00e9/\u20ac \u{1f600}.txt');
    expect(quotePath(b('a b/-x'))).toBe('a b/-x');
    expect(pathNeedsQuoting(b('src/m.py'))).toBe(false);
  });
  it('control bytes, DEL, " and \\ are escaped as git does: named escapes, else three octal digits', () => {
    expect(quotePath(b('x\n+++ b/conftest.py'))).toBe('"x\\n+++ b/conftest.py"');
    expect(quotePath(b('t\tab'))).toBe('"t\\tab"');
    expect(quotePath(b('q"uote'))).toBe('"q\\"uote"');
    expect(quotePath(b('back\\slash'))).toBe('"back\\\\slash"');
    expect(quotePath(b([7, 8, 11, 12, 13]))).toBe('"\\a\\b\\v\\f\\r"');
    expect(quotePath(b([0x01, 0x1b, 0x7f]))).toBe('"\\001\\033\\177"');
  });
  it('bytes that are not UTF-8 are octal; inside quotes every byte >= 0x80 is', () => {
    expect(quotePath(b([0xff]))).toBe('"\\377"');
    expect(quotePath(b([0xfe]))).toBe('"\\376"');
    expect(quotePath(b('caf', [0xe9], '.txt'))).toBe('"caf\\351.txt"');
    expect(quotePath(b('\u00e9\n'))).toBe('"\\303\\251\\n"');
    expect(pathNeedsQuoting(b([0xc3]))).toBe(true); // a truncated sequence
    expect(pathNeedsQuoting(b([0xed, 0xa0, 0x80]))).toBe(true); // an encoded surrogate
  });
  it('distinct byte strings give distinct results, and only quoted ones start with "', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.uint8Array({ maxLength: 12 }), (x, y) => {
        if (Buffer.from(x).equals(Buffer.from(y))) return;
        expect(quotePath(x)).not.toBe(quotePath(y));
        expect(quotePath(x).startsWith('"')).toBe(pathNeedsQuoting(x));
      }),
      { numRuns: 2000 },
    );
  });
  it.skipIf(spawnSync('git', ['--version']).status !== 0)('a quoted path is exactly what git writes (git ls-files, core.quotePath on)', async () => {
    const names = [b('x\ny'), b('t\tab'), b('q"uote'), b('back\\slash'), b([0x01, 0x7f]), b('caf', [0xe9])];
    const dir = await scratchDir('frognano-quote-');
    expect(spawnSync('git', ['init', '-q', dir]).status).toBe(0);
    for (const n of names) await writeFile(Buffer.concat([Buffer.from(`${dir}/`), n]), '');
    const listed = spawnSync('git', ['-C', dir, 'ls-files', '--others'], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l !== '');
    expect(listed.sort()).toEqual(names.map((n) => quotePath(n)).sort());
  });
});

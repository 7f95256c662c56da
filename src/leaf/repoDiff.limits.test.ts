import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { scratchDir } from '../../test/helpers/leafTask.js';
import { tree } from '../../test/leaf/trees.js';
import { DEFAULT_DIFF_LIMITS, diffRepo } from './repoDiff.js';

/** Text of at least `bytes` bytes in numbered lines of `width` bytes (newline included). */
const text = (bytes: number, tag = 'line', width = 32): string => {
  const n = Math.ceil(bytes / width);
  return Array.from({ length: n }, (_, i) => `${tag} ${String(i).padStart(width - tag.length - 2, '0')}\n`).join('');
};
/** The `diff --git` lines of a diff. */
const headers = (diff: string): string[] => diff.split('\n').filter((l) => l.startsWith('diff --git'));

/** Runs `f` while a 10 ms interval probes the event loop; the longest gap between ticks (ms). */
async function stallOf<T>(f: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; maxGapMs: number }> {
  let maxGapMs = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    maxGapMs = Math.max(maxGapMs, now - last);
    last = now;
  }, 10);
  const [result] = await Promise.allSettled([f()]);
  clearInterval(probe);
  maxGapMs = Math.max(maxGapMs, performance.now() - last);
  return { result: result!, maxGapMs };
}

describe('diffRepo: the output caps', () => {
  it('the defaults', () => {
    expect(DEFAULT_DIFF_LIMITS).toEqual({ maxEntries: 100_000, maxSeconds: 30, maxDiffBytes: 8_388_608, maxFileDiffBytes: 1_048_576, maxFiles: 2000, maxPathBytes: 67_108_864 });
  });
  it('a section over maxFileDiffBytes (1 MiB) is omitted whole; a small change in a 3 MB file is not', async () => {
    const big = text(3_000_000);
    const second = big.split('\n')[1]!;
    const a = await tree({ 'big-edit.txt': big, 'big-rewrite.txt': big });
    const b = await tree({ 'big-edit.txt': big.replace(`${second}\n`, 'LINE 1\n'), 'big-rewrite.txt': text(3_000_000, 'new'), 'big-new.txt': big, 'small.txt': 's\n' });
    const r = await diffRepo(a, b);
    expect(r.cut).toEqual({ reason: 'file-bytes', shownFiles: 2, omittedFiles: 2, limitBytes: 1_048_576, omittedBy: { 'file-bytes': 2 } });
    expect(headers(r.diff)).toEqual(['diff --git a/big-edit.txt b/big-edit.txt', 'diff --git a/small.txt b/small.txt']);
    expect(r.diff).toContain(`\n-${second}\n+LINE 1\n`);
    expect(r.changes.map((c) => [c.path, c.status])).toEqual([
      ['big-edit.txt', 'modified'],
      ['big-new.txt', 'added'],
      ['big-rewrite.txt', 'modified'],
      ['small.txt', 'added'],
    ]);
  });
  it('a new binary file over maxFileDiffBytes is still the one-line binary note', async () => {
    const r = await diffRepo(await tree({}), await tree({ 'blob.bin': Buffer.concat([Buffer.from([0]), Buffer.alloc(3_000_000, 7)]) }));
    expect(r).toEqual({ diff: 'diff --git a/blob.bin b/blob.bin\nnew file mode 100644\nBinary files /dev/null and b/blob.bin differ\n', changes: [{ path: 'blob.bin', raw: Buffer.from('blob.bin'), status: 'added' }], ignored: [] });
  });
  it('5,000 changed files with maxFiles 2,000: the first 2,000 in path order get sections, changes lists all', async () => {
    const a = await scratchDir();
    const b = await scratchDir();
    await mkdir(join(b, 'f'));
    for (let i = 0; i < 5000; i++) await writeFile(join(b, 'f', String(i).padStart(5, '0')), `${i}\n`);
    const r = await diffRepo(a, b, { limits: { maxFiles: 2000 } });
    expect(r.cut).toEqual({ reason: 'files', shownFiles: 2000, omittedFiles: 3000, omittedBy: { files: 3000 } });
    const h = headers(r.diff);
    expect(h).toHaveLength(2000);
    expect(h[1999]).toBe('diff --git a/f/01999 b/f/01999');
    expect(r.changes).toHaveLength(5000);
    expect(r.changes[4999]).toEqual({ path: 'f/04999', raw: Buffer.from('f/04999'), status: 'added' });
  }, 60_000);
  it('the total: the section that would pass maxDiffBytes and every later one are omitted (a section that just fits is kept)', async () => {
    const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}`, `${'x'.repeat(99)}\n`]));
    const a = await tree({});
    const b = await tree(files);
    const whole = await diffRepo(a, b);
    const section = Buffer.byteLength(whole.diff) / 5; // the five sections are alike: 81 bytes of header lines + 101 of content
    expect(section).toBe(182);
    const fits = await diffRepo(a, b, { limits: { maxDiffBytes: 3 * section } });
    expect(fits.cut).toEqual({ reason: 'total-bytes', shownFiles: 3, omittedFiles: 2, limitBytes: 3 * section, omittedBy: { 'total-bytes': 2 } });
    expect(fits.diff).toBe(whole.diff.slice(0, 3 * section));
    const short = await diffRepo(a, b, { limits: { maxDiffBytes: 3 * section - 1 } });
    expect(short.cut).toEqual({ reason: 'total-bytes', shownFiles: 2, omittedFiles: 3, limitBytes: 3 * section - 1, omittedBy: { 'total-bytes': 3 } });
    expect(short.changes).toHaveLength(5);
  });
  it('the default total, 8 MiB: twelve new files of 1 MB give eight sections, and the record serializes', async () => {
    const mb = text(1_000_000, 'row', 100); // 10,000 lines of 100 bytes: a section of 100 bytes of header lines + 1,010,000
    const b = await tree(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`d${String(i).padStart(2, '0')}.txt`, mb])));
    const r = await diffRepo(await tree({}), b);
    expect(r.cut).toEqual({ reason: 'total-bytes', shownFiles: 8, omittedFiles: 4, limitBytes: 8_388_608, omittedBy: { 'total-bytes': 4 } });
    expect(Buffer.byteLength(r.diff)).toBe(8 * 1_010_100);
    expect(JSON.stringify(r).length).toBeGreaterThan(8 * 1_000_000);
  }, 60_000);
  it('sections not made by maxSeconds are omitted (cut reason time)', async () => {
    // a full rewrite of 50,000 lines takes its whole line-diff time (what is left of the second), then the rest is past the deadline
    const a = await tree({ 'a-rewrite.txt': text(50_000 * 32), 'b.txt': 'b\n', 'c.txt': 'c\n' });
    const b = await tree({ 'a-rewrite.txt': text(50_000 * 32, 'new'), 'b.txt': 'B\n', 'c.txt': 'C\n' });
    const r = await diffRepo(a, b, { limits: { maxSeconds: 1, maxFileDiffBytes: 8 * 1024 * 1024 } });
    expect(r.cut).toEqual({ reason: 'time', shownFiles: 1, omittedFiles: 2, omittedBy: { time: 2 } });
    expect(r.diff.startsWith('diff --git a/a-rewrite.txt b/a-rewrite.txt\n--- a/a-rewrite.txt\n+++ b/a-rewrite.txt\n@@ -1,50000 +1,50000 @@\n')).toBe(true);
  });
  it('the line diffs of one call take 5 s in all at most: then a rewritten file gets the whole-file hunk at once', async () => {
    // eight full rewrites of 30,000 lines: each line diff would run into its 1 s timeout (8 s); the budget stops that after 5
    const names = Array.from({ length: 8 }, (_, i) => `r${i}.txt`);
    const a = await tree(Object.fromEntries(names.map((n) => [n, text(30_000 * 32)])));
    const b = await tree(Object.fromEntries(names.map((n) => [n, text(30_000 * 32, 'new')])));
    const t0 = performance.now();
    const r = await diffRepo(a, b, { limits: { maxFileDiffBytes: 8 * 1024 * 1024, maxDiffBytes: 64 * 1024 * 1024 } });
    const seconds = (performance.now() - t0) / 1000;
    expect(r.cut).toBeUndefined();
    expect(headers(r.diff)).toHaveLength(8);
    expect(r.diff.split('\n').filter((l) => l.startsWith('@@ '))).toEqual(names.map(() => '@@ -1,30000 +1,30000 @@'));
    expect(seconds).toBeGreaterThan(4.5);
    expect(seconds).toBeLessThan(7.5);
  }, 60_000);
});

describe('diffRepo: the walk bounds', () => {
  it('150,000 files over maxEntries 100,000: DIFF_UNAVAILABLE naming the count, with the event loop free (longest gap < 1 s)', async () => {
    const a = await tree({});
    const b = await scratchDir('frognano-diff-many-');
    const made = spawnSync('python3', ['-c', 'import os,sys\nfor i in range(150000): open(os.path.join(sys.argv[1], "f%06d" % i), "w").close()', b]);
    expect(made.status).toBe(0);
    const { result, maxGapMs } = await stallOf(() => diffRepo(a, b, { limits: { maxEntries: 100_000 } }));
    expect(result.status).toBe('rejected');
    expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'DIFF_UNAVAILABLE', message: `diffRepo: too many entries below ${b}: 150000 > maxEntries 100000` });
    expect(maxGapMs).toBeLessThan(1000);
    // under a higher bound the same tree is diffed (150,000 changes, sections capped), the event loop still free
    const big = await stallOf(() => diffRepo(a, b, { limits: { maxEntries: 150_000, maxFiles: 10 } }));
    expect(big.result.status).toBe('fulfilled');
    const r = (big.result as PromiseFulfilledResult<Awaited<ReturnType<typeof diffRepo>>>).value;
    expect(r.changes).toHaveLength(150_000);
    expect(r.cut).toEqual({ reason: 'files', shownFiles: 10, omittedFiles: 149_990, omittedBy: { files: 149_990 } });
    expect(big.maxGapMs).toBeLessThan(1000);
  }, 120_000);
  it('a walk longer than maxSeconds: DIFF_UNAVAILABLE saying so', async () => {
    const b = await tree({ a: 'a', b: 'b' });
    await expectFrognanoErrorAsync(() => diffRepo(b, b, { limits: { maxSeconds: 0.001 } }), 'DIFF_UNAVAILABLE', 'diffRepo: the walk of', 'took longer than 0.001 s (maxSeconds)');
  });
  it('paths adding up to more than maxPathBytes: DIFF_UNAVAILABLE', async () => {
    const b = await tree({ 'abc/def': 'x' });
    await expectFrognanoErrorAsync(() => diffRepo(b, b, { limits: { maxPathBytes: 9 } }), 'DIFF_UNAVAILABLE', `the relative paths below ${b} add up to more than maxPathBytes 9 bytes`);
  });
  it('an abort signal stops the diff with its reason', async () => {
    const ac = new AbortController();
    const p = diffRepo(await tree({ a: 'a' }), await tree({ a: 'b' }), { signal: ac.signal });
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });
  it('limits out of range: OUT_OF_RANGE naming the field', async () => {
    const d = await tree({});
    await expectFrognanoErrorAsync(() => diffRepo(d, d, { limits: { maxEntries: -1 } }), 'OUT_OF_RANGE', 'opts.limits.maxEntries must be an integer >= 0, got -1');
    await expectFrognanoErrorAsync(() => diffRepo(d, d, { limits: { maxFiles: 1.5 } }), 'OUT_OF_RANGE', 'opts.limits.maxFiles');
    await expectFrognanoErrorAsync(() => diffRepo(d, d, { limits: { maxSeconds: 0 } }), 'OUT_OF_RANGE', 'opts.limits.maxSeconds must be a finite number > 0, got 0');
    await expectFrognanoErrorAsync(() => diffRepo(d, d, { limits: { maxSeconds: Number.NaN } }), 'OUT_OF_RANGE', 'opts.limits.maxSeconds');
  });
});

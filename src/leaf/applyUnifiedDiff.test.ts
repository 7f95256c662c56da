import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { scratchDir } from '../../test/helpers/leafTask.js';
import { NINE, tree } from '../../test/leaf/trees.js';
import { applyUnifiedDiff } from './applyUnifiedDiff.js';
import { diffTrees } from './repoDiff.js';

/** Every regular file below `dir` (relative path -> utf8 content), folders ignored. */
async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    for (const e of await readdir(join(dir, rel), { withFileTypes: true })) {
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) await walk(p);
      else out[p] = await readFile(join(dir, p), 'utf8');
    }
  };
  await walk('');
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A copy of `dir` in a fresh folder. */
async function copyOf(dir: string): Promise<string> {
  const d = await scratchDir('frognano-diff-copy-');
  await cp(dir, d, { recursive: true });
  return d;
}

const hasGit = spawnSync('git', ['--version']).status === 0;

/** Runs `git apply` (outside any repository) in `dir`; the exit status and stderr. */
function gitApply(dir: string, patch: string): { status: number | null; stderr: string } {
  const r = spawnSync('git', ['apply', '--whitespace=nowarn', '-'], {
    cwd: dir,
    input: patch,
    env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(dir) },
  });
  return { status: r.status, stderr: r.stderr.toString() };
}
describe('applyUnifiedDiff', () => {
  it('applies a diffTrees diff with new, changed and deleted files, returning the paths', async () => {
    const a = await tree({ 'a.txt': NINE, 'gone.txt': 'bye\n', 'keep': 'k\n' });
    const b = await tree({ 'a.txt': NINE.replace('l5', 'L5'), 'new/deep/n.txt': 'n\n', 'keep': 'k\n' });
    const c = await copyOf(a);
    expect(await applyUnifiedDiff(c, await diffTrees(a, b))).toEqual(['a.txt', 'gone.txt', 'new/deep/n.txt']);
    expect(await readTree(c)).toEqual(await readTree(b));
  });
  it('applies plain diff -u output (no git header)', async () => {
    const c = await tree({ 'f': 'a\nb\n' });
    await applyUnifiedDiff(c, '--- f.orig\t2024-01-01\n+++ f\t2024-01-01\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n');
    expect(await readFile(join(c, 'f'), 'utf8')).toBe('a\nc\n');
  });
  it('not a diff: INVALID_TYPE', async () => {
    const c = await tree({});
    await expectFrognanoErrorAsync(() => applyUnifiedDiff(c, 'hello, this is not a patch'), 'INVALID_TYPE', 'applyUnifiedDiff', 'changes no file');
  });
  it('the empty string: INVALID_TYPE', async () => {
    await expectFrognanoErrorAsync(async () => applyUnifiedDiff(await tree({}), ''), 'INVALID_TYPE', 'changes no file');
  });
  it('a malformed hunk: INVALID_TYPE', async () => {
    const c = await tree({ x: 'a\n' });
    await expectFrognanoErrorAsync(() => applyUnifiedDiff(c, '--- a/x\n+++ b/x\n@@ -1,5 +1,5 @@\n-a\n+b\n'), 'INVALID_TYPE', 'not a unified diff');
  });
  it('a --- header without +++: INVALID_TYPE', async () => {
    const c = await tree({ x: 'a\n' });
    await expectFrognanoErrorAsync(() => applyUnifiedDiff(c, '--- a/x\n@@ -1 +1 @@\n-a\n+b\n'), 'INVALID_TYPE', 'not a unified diff');
  });
  it('a path with .. : INVALID_TYPE naming the path, nothing written', async () => {
    const parent = await scratchDir('frognano-diff-parent-');
    const c = join(parent, 'repo');
    await mkdir(c);
    await expectFrognanoErrorAsync(
      () => applyUnifiedDiff(c, '--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n'),
      'INVALID_TYPE',
      '"../escape.txt"',
      'leaves the repository',
    );
    expect((await readdir(parent)).sort()).toEqual(['repo']);
  });
  it('a path with .. in the middle past the root: INVALID_TYPE', async () => {
    const c = await tree({});
    await expectFrognanoErrorAsync(() => applyUnifiedDiff(c, '--- /dev/null\n+++ b/a/../../x\n@@ -0,0 +1 @@\n+x\n'), 'INVALID_TYPE', 'a/../../x');
  });
  it('an absolute path: INVALID_TYPE', async () => {
    const c = await tree({});
    await expectFrognanoErrorAsync(() => applyUnifiedDiff(c, '--- /dev/null\n+++ /tmp/abs.txt\n@@ -0,0 +1 @@\n+x\n'), 'INVALID_TYPE', '/tmp/abs.txt');
  });
  it('a hunk that does not apply: OUT_OF_RANGE naming the file, file unchanged', async () => {
    const c = await tree({ 'src/m.py': 'a\nb\n' });
    await expectFrognanoErrorAsync(
      () => applyUnifiedDiff(c, '--- a/src/m.py\n+++ b/src/m.py\n@@ -1,2 +1,2 @@\n a\n-zzz\n+b2\n'),
      'OUT_OF_RANGE',
      'src/m.py',
      'does not apply',
    );
    expect(await readFile(join(c, 'src/m.py'), 'utf8')).toBe('a\nb\n');
  });
  it('a missing file: OUT_OF_RANGE naming the file', async () => {
    const c = await tree({});
    await expectFrognanoErrorAsync(
      () => applyUnifiedDiff(c, '--- a/lib/q.js\n+++ b/lib/q.js\n@@ -1 +1 @@\n-a\n+b\n'),
      'OUT_OF_RANGE',
      'lib/q.js',
      'does not exist',
    );
  });
  it('deleting a missing file: OUT_OF_RANGE naming the file', async () => {
    const c = await tree({});
    await expectFrognanoErrorAsync(() => applyUnifiedDiff(c, 'diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-d\n'), 'OUT_OF_RANGE', 'changes d, which does not exist');
  });
  it('a mode-only diff changes no file: INVALID_TYPE', async () => {
    const c = await tree({ x: 'x\n' });
    await expectFrognanoErrorAsync(() => applyUnifiedDiff(c, 'diff --git a/x b/x\nold mode 100644\nnew mode 100755\n'), 'INVALID_TYPE', 'changes no file');
  });
  // A binary section is refused (a text diff does not carry the bytes), as `git apply` refuses it.
  it('a binary section is refused rather than applied as an empty file', async () => {
    const c = await tree({});
    await expectFrognanoErrorAsync(
      () => applyUnifiedDiff(c, 'diff --git a/y b/y\nnew file mode 100644\nBinary files /dev/null and b/y differ\n'),
      'OUT_OF_RANGE',
      'binary change to y',
    );
    expect(existsSync(join(c, 'y'))).toBe(false);
    const d = await tree({ z: 'a\0b' });
    await expectFrognanoErrorAsync(() => applyUnifiedDiff(d, 'diff --git a/z b/z\nBinary files a/z and b/z differ\n'), 'OUT_OF_RANGE', 'binary change to z');
  });
});

describe('diffTrees + applyUnifiedDiff round trip (property)', () => {
  /** Lines that look like diff syntax are the interesting ones. */
  const line = fc.oneof(
    fc.constantFrom('', 'a', 'b', ' x', '-- y', '--- a/f', '+++ b/f', '++ z', '@@ -1 +1 @@', 'diff --git a/q b/q', '\\ No newline at end of file', '\tt', 'Index: f', '=' .repeat(67), 'c\r'),
    fc.string({ maxLength: 6 }),
  );
  /** A file as lines plus whether it ends with a newline. */
  const fileArb = fc.record({ lines: fc.array(line, { maxLength: 12 }), nl: fc.boolean() });
  type File = { lines: string[]; nl: boolean };
  const render = (f: File): string => f.lines.join('\n') + (f.nl && f.lines.length > 0 ? '\n' : '');
  const names = ['f1.txt', 'f2', 'd/f3.txt', 'd/e/f4'];
  const newNames = ['n1.txt', 'd/n2', 'new/deep/n3'];
  const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom('insert', 'delete', 'replace'), line });
  const change = fc.oneof(
    fc.record({ t: fc.constant('keep' as const) }),
    fc.record({ t: fc.constant('delete' as const) }),
    fc.record({ t: fc.constant('edit' as const), edits: fc.array(edit, { minLength: 1, maxLength: 4 }), toggleNl: fc.boolean() }),
    fc.record({ t: fc.constant('rewrite' as const), file: fileArb }),
  );
  const scenario = fc
    .uniqueArray(fc.constantFrom(...names), { maxLength: names.length })
    .chain((present) =>
      fc.record({
        before: fc.tuple(...present.map((n) => fc.tuple(fc.constant(n), fileArb))),
        changes: fc.tuple(...present.map(() => change)),
        added: fc.dictionary(fc.constantFrom(...newNames), fileArb, { maxKeys: 2 }),
      }),
    );

  function applyEdits(f: File, edits: { at: number; kind: string; line: string }[], toggleNl: boolean): File {
    const lines = [...f.lines];
    for (const e of edits) {
      const i = e.at % (lines.length + 1);
      if (e.kind === 'insert') lines.splice(i, 0, e.line);
      else if (i < lines.length) lines.splice(i, 1, ...(e.kind === 'replace' ? [e.line] : []));
    }
    return { lines, nl: toggleNl ? !f.nl : f.nl };
  }

  it('applying diffTrees(before, after) to a copy of before gives after exactly (and git apply agrees)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ before, changes, added }) => {
        const beforeFiles: Record<string, string> = {};
        const afterFiles: Record<string, string> = {};
        before.forEach(([name, f], i) => {
          beforeFiles[name] = render(f);
          const c = changes[i]!;
          if (c.t === 'keep') afterFiles[name] = render(f);
          else if (c.t === 'edit') afterFiles[name] = render(applyEdits(f, c.edits, c.toggleNl));
          else if (c.t === 'rewrite') afterFiles[name] = render(c.file);
        });
        for (const [n, f] of Object.entries(added)) afterFiles[n] = render(f);
        const a = await tree(beforeFiles);
        const b = await tree(afterFiles);
        const diff = await diffTrees(a, b);
        const want = await readTree(b);
        if (diff === '') {
          expect(await readTree(a)).toEqual(want);
        } else {
          const c = await copyOf(a);
          await applyUnifiedDiff(c, diff);
          expect(await readTree(c)).toEqual(want);
          if (hasGit) {
            const g = await copyOf(a);
            const r = gitApply(g, diff);
            expect(r.stderr).toBe('');
            expect(r.status).toBe(0);
            expect(await readTree(g)).toEqual(want);
            await rm(g, { recursive: true, force: true });
          }
          await rm(c, { recursive: true, force: true });
        }
        await rm(a, { recursive: true, force: true });
        await rm(b, { recursive: true, force: true });
      }),
      { numRuns: 150 },
    );
  }, 120_000);
  it.skipIf(!hasGit)('git apply accepts new, deleted, mode-changed and empty files', async () => {
    const a = await tree({ 'x.sh': 'echo\n', 'gone': 'g\n', 'e': '' });
    const b = await tree({ 'x.sh': 'echo\n', 'new/n': 'n\n', 'e2': '' });
    await chmod(join(b, 'x.sh'), 0o755);
    const g = await copyOf(a);
    const r = gitApply(g, await diffTrees(a, b));
    expect(r).toEqual({ status: 0, stderr: '' });
    expect(await readTree(g)).toEqual(await readTree(b));
    expect((await diffTrees(g, b))).toBe('');
  });
});


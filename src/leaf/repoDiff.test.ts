import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { scratchDir } from '../../test/helpers/leafTask.js';
import { applyUnifiedDiff } from './applyUnifiedDiff.js';
import { diffTrees, isBinary, snapshotTree } from './repoDiff.js';

/** A fresh folder holding `files` (relative path -> content). */
async function tree(files: Record<string, string | Buffer>): Promise<string> {
  const d = await scratchDir('frognano-diff-');
  for (const [p, c] of Object.entries(files)) {
    await mkdir(dirname(join(d, p)), { recursive: true });
    await writeFile(join(d, p), c);
  }
  return d;
}

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

const NINE = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n';

describe('diffTrees: exact text', () => {
  it('a one-line change: git headers and 3 lines of context', async () => {
    const a = await tree({ 'a.txt': NINE });
    const b = await tree({ 'a.txt': NINE.replace('l5', 'L5') });
    expect(await diffTrees(a, b)).toBe(
      ['diff --git a/a.txt b/a.txt', '--- a/a.txt', '+++ b/a.txt', '@@ -2,7 +2,7 @@', ' l2', ' l3', ' l4', '-l5', '+L5', ' l6', ' l7', ' l8', ''].join('\n'),
    );
  });
  it('two distant changes make two hunks', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `r${i + 1}`);
    const a = await tree({ 'f': `${lines.join('\n')}\n` });
    const changed = [...lines];
    changed[1] = 'X2';
    changed[17] = 'X18';
    const b = await tree({ 'f': `${changed.join('\n')}\n` });
    expect(await diffTrees(a, b)).toBe(
      [
        'diff --git a/f b/f',
        '--- a/f',
        '+++ b/f',
        '@@ -1,5 +1,5 @@',
        ' r1',
        '-r2',
        '+X2',
        ' r3',
        ' r4',
        ' r5',
        '@@ -15,6 +15,6 @@',
        ' r15',
        ' r16',
        ' r17',
        '-r18',
        '+X18',
        ' r19',
        ' r20',
        '',
      ].join('\n'),
    );
  });
  it('a new file: new file mode 100644 and --- /dev/null', async () => {
    const a = await tree({});
    const b = await tree({ 'sub/new.txt': 'hello\nworld\n' });
    expect(await diffTrees(a, b)).toBe(
      ['diff --git a/sub/new.txt b/sub/new.txt', 'new file mode 100644', '--- /dev/null', '+++ b/sub/new.txt', '@@ -0,0 +1,2 @@', '+hello', '+world', ''].join('\n'),
    );
  });
  it('a new executable file: new file mode 100755', async () => {
    const a = await tree({});
    const b = await tree({ 'run.sh': 'echo\n' });
    await chmod(join(b, 'run.sh'), 0o755);
    expect(await diffTrees(a, b)).toBe(['diff --git a/run.sh b/run.sh', 'new file mode 100755', '--- /dev/null', '+++ b/run.sh', '@@ -0,0 +1,1 @@', '+echo', ''].join('\n'));
  });
  it('a deleted file: deleted file mode and +++ /dev/null', async () => {
    const a = await tree({ 'gone.txt': 'bye\n', 'keep.txt': 'k\n' });
    const b = await tree({ 'keep.txt': 'k\n' });
    expect(await diffTrees(a, b)).toBe(['diff --git a/gone.txt b/gone.txt', 'deleted file mode 100644', '--- a/gone.txt', '+++ /dev/null', '@@ -1,1 +0,0 @@', '-bye', ''].join('\n'));
  });
  it('a new empty file: only the header', async () => {
    expect(await diffTrees(await tree({}), await tree({ e: '' }))).toBe('diff --git a/e b/e\nnew file mode 100644\n');
  });
  it('a deleted empty file: only the header', async () => {
    expect(await diffTrees(await tree({ e: '' }), await tree({}))).toBe('diff --git a/e b/e\ndeleted file mode 100644\n');
  });
  it('a missing newline at the end is marked', async () => {
    const a = await tree({ n: 'x\ny' });
    const b = await tree({ n: 'x\nz' });
    expect(await diffTrees(a, b)).toBe(
      ['diff --git a/n b/n', '--- a/n', '+++ b/n', '@@ -1,2 +1,2 @@', ' x', '-y', '\\ No newline at end of file', '+z', '\\ No newline at end of file', ''].join('\n'),
    );
  });
  it('adding the final newline', async () => {
    const a = await tree({ n: 'x' });
    const b = await tree({ n: 'x\n' });
    expect(await diffTrees(a, b)).toBe(['diff --git a/n b/n', '--- a/n', '+++ b/n', '@@ -1,1 +1,1 @@', '-x', '\\ No newline at end of file', '+x', ''].join('\n'));
  });
  it('an executable mode change only: old mode / new mode, no hunk', async () => {
    const a = await tree({ 'x.sh': 'echo\n' });
    const b = await tree({ 'x.sh': 'echo\n' });
    await chmod(join(b, 'x.sh'), 0o755);
    expect(await diffTrees(a, b)).toBe('diff --git a/x.sh b/x.sh\nold mode 100644\nnew mode 100755\n');
    expect(await diffTrees(b, a)).toBe('diff --git a/x.sh b/x.sh\nold mode 100755\nnew mode 100644\n');
  });
  it('a mode change together with a content change', async () => {
    const a = await tree({ 'x.sh': 'echo 1\n' });
    const b = await tree({ 'x.sh': 'echo 2\n' });
    await chmod(join(b, 'x.sh'), 0o700);
    expect(await diffTrees(a, b)).toBe(
      ['diff --git a/x.sh b/x.sh', 'old mode 100644', 'new mode 100755', '--- a/x.sh', '+++ b/x.sh', '@@ -1,1 +1,1 @@', '-echo 1', '+echo 2', ''].join('\n'),
    );
  });
  it('only the executable bits matter for the mode', async () => {
    const a = await tree({ 'f': 'x\n' });
    const b = await tree({ 'f': 'x\n' });
    await chmod(join(b, 'f'), 0o600);
    expect(await diffTrees(a, b)).toBe('');
  });
  it('a changed binary file: Binary files a/x and b/x differ', async () => {
    const a = await tree({ 'x': Buffer.from([0, 1, 2]) });
    const b = await tree({ 'x': Buffer.from([0, 1, 3]) });
    expect(await diffTrees(a, b)).toBe('diff --git a/x b/x\nBinary files a/x and b/x differ\n');
  });
  it('a new and a deleted binary file name /dev/null', async () => {
    const bin = Buffer.from([137, 80, 78, 71, 0]);
    expect(await diffTrees(await tree({}), await tree({ 'i.png': bin }))).toBe('diff --git a/i.png b/i.png\nnew file mode 100644\nBinary files /dev/null and b/i.png differ\n');
    expect(await diffTrees(await tree({ 'i.png': bin }), await tree({}))).toBe('diff --git a/i.png b/i.png\ndeleted file mode 100644\nBinary files a/i.png and /dev/null differ\n');
  });
  it('a text file becoming binary is a binary diff', async () => {
    const a = await tree({ 'x': 'text\n' });
    const b = await tree({ 'x': Buffer.from([0]) });
    expect(await diffTrees(a, b)).toBe('diff --git a/x b/x\nBinary files a/x and b/x differ\n');
  });
  it('a symbolic link: mode 120000, the target as content', async () => {
    const a = await tree({});
    const b = await tree({});
    await symlink('some/target', join(b, 'l'));
    expect(await diffTrees(a, b)).toBe(
      ['diff --git a/l b/l', 'new file mode 120000', '--- /dev/null', '+++ b/l', '@@ -0,0 +1,1 @@', '+some/target', '\\ No newline at end of file', ''].join('\n'),
    );
  });
  it('files in path order', async () => {
    const a = await tree({});
    const b = await tree({ 'b': 'b\n', 'a/z': 'z\n', 'a.txt': 'a\n', 'C': 'c\n' });
    const headers = (await diffTrees(a, b)).split('\n').filter((l) => l.startsWith('diff --git'));
    expect(headers).toEqual(['diff --git a/C b/C', 'diff --git a/a.txt b/a.txt', 'diff --git a/a/z b/a/z', 'diff --git a/b b/b']);
  });
});

describe('diffTrees: what is left out', () => {
  it('an unchanged tree gives the empty string', async () => {
    const files = { 'a.txt': NINE, 'src/b.py': 'print(1)\n', 'bin': Buffer.from([0, 9]) };
    expect(await diffTrees(await tree(files), await tree(files))).toBe('');
  });
  it('a tree compared with itself gives the empty string', async () => {
    const a = await tree({ x: 'x\n' });
    expect(await diffTrees(a, a)).toBe('');
  });
  it('two empty trees give the empty string', async () => {
    expect(await diffTrees(await tree({}), await tree({}))).toBe('');
  });
  it('empty folders are not content', async () => {
    const a = await tree({});
    const b = await tree({});
    await mkdir(join(b, 'empty/nested'), { recursive: true });
    expect(await diffTrees(a, b)).toBe('');
  });
  it('the top-level .git, .hg and .svn are skipped', async () => {
    const a = await tree({ '.git/HEAD': 'ref: a\n', 'f': 'x\n' });
    const b = await tree({ '.git/HEAD': 'ref: b\n', '.git/objects/new': 'o', '.hg/x': 'h', '.svn/y': 's', 'f': 'x\n' });
    expect(await diffTrees(a, b)).toBe('');
  });
  it('a .git folder deeper down is content (hiding it would hide changes from the rule funnel)', async () => {
    const b = await tree({ 'sub/.git/config': 'c\n' });
    expect(await diffTrees(await tree({}), b)).toBe('diff --git a/sub/.git/config b/sub/.git/config\nnew file mode 100644\n--- /dev/null\n+++ b/sub/.git/config\n@@ -0,0 +1,1 @@\n+c\n');
  });
  it('a file named .git (not a folder) is content', async () => {
    const b = await tree({ 'sub/.gitx': 'x\n' });
    expect(await diffTrees(await tree({}), b)).toContain('diff --git a/sub/.gitx b/sub/.gitx');
  });
  it('exclude leaves out the given paths only', async () => {
    const a = await tree({ 'src/m.py': 'a\n' });
    const b = await tree({ 'src/m.py': 'b\n', 'tests/test_hidden.py': 'assert 1\n', 'tests/test_other.py': 'assert 2\n' });
    const diff = await diffTrees(a, b, { exclude: ['tests/test_hidden.py'] });
    expect(diff).not.toContain('test_hidden');
    expect(diff).toContain('diff --git a/tests/test_other.py b/tests/test_other.py');
    expect(diff).toContain('diff --git a/src/m.py b/src/m.py');
  });
  it('exclude paths are normalized (./x, a//b)', async () => {
    const a = await tree({});
    const b = await tree({ 'tests/h.py': 'h\n', 'x/y.py': 'y\n' });
    expect(await diffTrees(a, b, { exclude: ['./tests/h.py', 'x//y.py'] })).toBe('');
  });
  it('exclude accepts any iterable (a Set)', async () => {
    const b = await tree({ 'h.py': 'h\n' });
    expect(await diffTrees(await tree({}), b, { exclude: new Set(['h.py']) })).toBe('');
  });
  it('exclude also hides a deleted or changed excluded file', async () => {
    const a = await tree({ 'h.py': 'old\n' });
    expect(await diffTrees(a, await tree({}), { exclude: ['h.py'] })).toBe('');
    expect(await diffTrees(a, await tree({ 'h.py': 'new\n' }), { exclude: ['h.py'] })).toBe('');
  });
  it('a missing before-root counts as empty', async () => {
    const b = await tree({ 'q': 'q\n' });
    expect(await diffTrees(join(b, 'does-not-exist'), b)).toBe('diff --git a/q b/q\nnew file mode 100644\n--- /dev/null\n+++ b/q\n@@ -0,0 +1,1 @@\n+q\n');
  });
});

describe('isBinary and snapshotTree', () => {
  it('isBinary: a NUL in the first 8000 bytes', () => {
    expect(isBinary(Buffer.from('plain text\n'))).toBe(false);
    expect(isBinary(Buffer.alloc(0))).toBe(false);
    expect(isBinary(Buffer.from([0]))).toBe(true);
    expect(isBinary(Buffer.concat([Buffer.alloc(7999, 97), Buffer.from([0])]))).toBe(true);
    expect(isBinary(Buffer.concat([Buffer.alloc(8000, 97), Buffer.from([0])]))).toBe(false);
  });
  it('snapshotTree records files with modes and links with targets', async () => {
    const d = await tree({ 'a': 'A', 'x/b.sh': 'B' });
    await chmod(join(d, 'x/b.sh'), 0o755);
    await symlink('a', join(d, 'l'));
    const s = await snapshotTree(d);
    expect([...s.keys()].sort()).toEqual(['a', 'l', 'x/b.sh']);
    expect(s.get('a')).toEqual({ kind: 'file', host: Buffer.from(join(d, 'a')), size: 1, mode: '100644' });
    expect(s.get('x/b.sh')).toEqual({ kind: 'file', host: Buffer.from(join(d, 'x/b.sh')), size: 1, mode: '100755' });
    expect(s.get('l')).toEqual({ kind: 'link', target: 'a' });
  });
  it('snapshotTree of a missing folder is empty', async () => {
    expect((await snapshotTree('/nonexistent/frognano/dir')).size).toBe(0);
  });
});

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

describe('diffTrees: hostile trees', () => {
  it('a fully rewritten file of 20,000 lines diffs within the time limit, as one whole-file hunk if need be', async () => {
    const a = await tree({ 'big.txt': Array.from({ length: 20_000 }, (_, i) => `old line ${i}`).join('\n') + '\n' });
    const b = await tree({ 'big.txt': Array.from({ length: 20_000 }, (_, i) => `new ${i} line`).join('\n') + '\n' });
    const t0 = performance.now();
    const d = await diffTrees(a, b);
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(d.startsWith('diff --git a/big.txt b/big.txt\n--- a/big.txt\n+++ b/big.txt\n@@ -1,20000 +1,20000 @@\n-old line 0\n')).toBe(true);
    const c = await scratchDir();
    await cp(a, c, { recursive: true });
    await applyUnifiedDiff(c, d);
    expect(await readFile(join(c, 'big.txt'), 'utf8')).toBe(await readFile(join(b, 'big.txt'), 'utf8'));
  });
  it('a file name that is not UTF-8 is found, not a crash', async () => {
    const a = await tree({});
    const b = await tree({});
    await writeFile(Buffer.concat([Buffer.from(`${b}/caf`), Buffer.from([0xe9]), Buffer.from('.txt')]), 'x\n');
    const d = await diffTrees(a, b);
    expect(d.startsWith('diff --git a/caf\ufffd.txt b/caf\ufffd.txt\nnew file mode 100644\n')).toBe(true);
    expect(d.endsWith('@@ -0,0 +1,1 @@\n+x\n')).toBe(true);
  });
});

describe('diffTrees: large files', () => {
  it('a file over 8 MiB is compared by digest and diffed as binary, whatever its content', async () => {
    const big = 'line\n'.repeat(2 * 1024 * 1024); // 10 MiB of text
    const a = await scratchDir();
    const b = await scratchDir();
    await writeFile(join(a, 'big.txt'), big);
    await writeFile(join(b, 'big.txt'), big);
    expect(await diffTrees(a, b)).toBe('');
    await writeFile(join(b, 'big.txt'), `${big}more\n`);
    expect(await diffTrees(a, b)).toBe('diff --git a/big.txt b/big.txt\nBinary files a/big.txt and b/big.txt differ\n');
  });
});

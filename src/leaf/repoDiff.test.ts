import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../../test/helpers/leafTask.js';
import { NINE, tree } from '../../test/leaf/trees.js';
import { applyUnifiedDiff } from './applyUnifiedDiff.js';
import { diffRepo, diffTrees, isBinary, restorePermissions } from './repoDiff.js';

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

describe('isBinary', () => {
  it('isBinary: a NUL in the first 8000 bytes', () => {
    expect(isBinary(Buffer.from('plain text\n'))).toBe(false);
    expect(isBinary(Buffer.alloc(0))).toBe(false);
    expect(isBinary(Buffer.from([0]))).toBe(true);
    expect(isBinary(Buffer.concat([Buffer.alloc(7999, 97), Buffer.from([0])]))).toBe(true);
    expect(isBinary(Buffer.concat([Buffer.alloc(8000, 97), Buffer.from([0])]))).toBe(false);
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
  it('a file name that is not UTF-8 is found and C-quoted as git does', async () => {
    const a = await tree({});
    const b = await tree({});
    await writeFile(Buffer.concat([Buffer.from(`${b}/caf`), Buffer.from([0xe9]), Buffer.from('.txt')]), 'x\n');
    expect(await diffTrees(a, b)).toBe(
      ['diff --git "a/caf\\351.txt" "b/caf\\351.txt"', 'new file mode 100644', '--- /dev/null', '+++ "b/caf\\351.txt"', '@@ -0,0 +1,1 @@', '+x', ''].join('\n'),
    );
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

/** `dir/` followed by the bytes of `parts` (strings as UTF-8), for names that are not UTF-8. */
const at = (dir: string, ...parts: (string | number[])[]): Buffer => Buffer.concat([Buffer.from(`${dir}/`), ...parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p)))]);
/** The lines of `diff` starting with `prefix`. */
const linesStarting = (diff: string, prefix: string): string[] => diff.split('\n').filter((l) => l.startsWith(prefix));
/** Runs a bash script with arguments `$1`...; its stdout, or an error with its stderr. */
function sh(script: string, ...args: string[]): string {
  const r = spawnSync('bash', ['-c', script, 'bash', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bash exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

describe('diffRepo: the list of changes', () => {
  it('every changed path with its status, in byte order; exclude leaves paths out of it too; a type change is git\'s pair of sections', async () => {
    const a = await tree({ 'm.txt': 'a\n', 'gone': 'g\n', 'same': 's\n', 'h.py': 'h\n', 'x.sh': 'x\n', 'k': 'file\n' });
    const b = await tree({ 'm.txt': 'b\n', 'new/n': 'n\n', 'same': 's\n', 'h.py': 'changed\n', 'x.sh': 'x\n' });
    await chmod(join(b, 'x.sh'), 0o755);
    await symlink('target', join(b, 'k'));
    const r = await diffRepo(a, b, { exclude: ['h.py'] });
    expect(r.changes.map((c) => [c.path, c.raw.toString(), c.status])).toEqual([
      ['gone', 'gone', 'deleted'],
      ['k', 'k', 'type-changed'],
      ['m.txt', 'm.txt', 'modified'],
      ['new/n', 'new/n', 'added'],
      ['x.sh', 'x.sh', 'modified'],
    ]);
    expect(r.cut).toBeUndefined();
    expect(r.diff).toBe(
      [
        'diff --git a/gone b/gone', 'deleted file mode 100644', '--- a/gone', '+++ /dev/null', '@@ -1,1 +0,0 @@', '-g',
        'diff --git a/k b/k', 'deleted file mode 100644', '--- a/k', '+++ /dev/null', '@@ -1,1 +0,0 @@', '-file',
        'diff --git a/k b/k', 'new file mode 120000', '--- /dev/null', '+++ b/k', '@@ -0,0 +1,1 @@', '+target', '\\ No newline at end of file',
        'diff --git a/m.txt b/m.txt', '--- a/m.txt', '+++ b/m.txt', '@@ -1,1 +1,1 @@', '-a', '+b',
        'diff --git a/new/n b/new/n', 'new file mode 100644', '--- /dev/null', '+++ b/new/n', '@@ -0,0 +1,1 @@', '+n',
        'diff --git a/x.sh b/x.sh', 'old mode 100644', 'new mode 100755',
        '',
      ].join('\n'),
    );
    expect(await diffTrees(a, b, { exclude: ['h.py'] })).toBe(r.diff);
  });
  it('a mode change of a binary or large file is the mode lines only (equal bytes by digest)', async () => {
    const a = await tree({ 'bin': Buffer.from([0, 1, 2]) });
    const b = await tree({ 'bin': Buffer.from([0, 1, 2]) });
    await chmod(join(b, 'bin'), 0o755);
    expect(await diffTrees(a, b)).toBe('diff --git a/bin b/bin\nold mode 100644\nnew mode 100755\n');
  });
  it('an unchanged tree: no changes, no cut', async () => {
    const files = { 'a': 'a\n', 'b/c': 'c\n' };
    expect(await diffRepo(await tree(files), await tree(files))).toEqual({ diff: '', changes: [], ignored: [] });
  });
});

describe('diffRepo: hostile names', () => {
  it('two names that are not UTF-8 (\\xff and \\xfe) stay two entries, each C-quoted', async () => {
    const a = await tree({});
    const b = await tree({});
    await writeFile(at(b, [0xff]), 'ff\n');
    await writeFile(at(b, [0xfe]), 'fe\n');
    const r = await diffRepo(a, b);
    expect(r.changes).toEqual([
      { path: '"\\376"', raw: Buffer.from([0xfe]), status: 'added' },
      { path: '"\\377"', raw: Buffer.from([0xff]), status: 'added' },
    ]);
    expect(r.diff).toBe(
      [
        'diff --git "a/\\376" "b/\\376"', 'new file mode 100644', '--- /dev/null', '+++ "b/\\376"', '@@ -0,0 +1,1 @@', '+fe',
        'diff --git "a/\\377" "b/\\377"', 'new file mode 100644', '--- /dev/null', '+++ "b/\\377"', '@@ -0,0 +1,1 @@', '+ff',
        '',
      ].join('\n'),
    );
  });
  it('a name with newlines cannot forge a diff --git, --- or +++ line', async () => {
    const forged = ['x\n+++ b/conftest.py', 'a\ndiff --git a/tests/test_a.py b/tests/test_a.py', 'y\n--- a/setup.py'];
    const a = await tree({ 'tests/test_a.py': 'assert f()\n' });
    const b = await tree({ 'tests/test_a.py': 'assert f()\n', ...Object.fromEntries(forged.map((n) => [n, 'import os\n'])) });
    const r = await diffRepo(a, b);
    expect(linesStarting(r.diff, 'diff --git')).toEqual([
      'diff --git "a/a\\ndiff --git a/tests/test_a.py b/tests/test_a.py" "b/a\\ndiff --git a/tests/test_a.py b/tests/test_a.py"',
      'diff --git "a/x\\n+++ b/conftest.py" "b/x\\n+++ b/conftest.py"',
      'diff --git "a/y\\n--- a/setup.py" "b/y\\n--- a/setup.py"',
    ]);
    expect(linesStarting(r.diff, '+++ ')).toEqual(['+++ "b/a\\ndiff --git a/tests/test_a.py b/tests/test_a.py"', '+++ "b/x\\n+++ b/conftest.py"', '+++ "b/y\\n--- a/setup.py"']);
    expect(linesStarting(r.diff, '--- ')).toEqual(['--- /dev/null', '--- /dev/null', '--- /dev/null']);
    expect(r.changes.map((c) => c.raw.toString())).toEqual([forged[1], forged[0], forged[2]]);
  });
  it.skipIf(spawnSync('git', ['--version']).status !== 0)('git apply accepts quoted names, a name that is not UTF-8, a type change and a mode change', async () => {
    const build = async (after: boolean): Promise<string> => {
      const d = await scratchDir('frognano-diff-git-');
      await writeFile(at(d, [0xff]), after ? 'new\n' : 'old\n');
      await writeFile(at(d, 'x.sh'), 'echo\n');
      if (after) {
        await chmod(at(d, 'x.sh'), 0o755);
        for (const n of ['n\nl', 'q"uote', 'back\\slash', 'caf\u20ac', 'ctl\x01\x7f']) await writeFile(at(d, n), `${n}\n`);
        await mkdir(at(d, 'c', [0xe9]));
        await writeFile(at(d, 'c', [0xe9], '/inner'), 'inner\n');
        await symlink('target', at(d, 'kind'));
      } else {
        await writeFile(at(d, 'tab\tname'), 'gone\n');
        await writeFile(at(d, 'kind'), 'a file\n');
      }
      return d;
    };
    const [a, b, g] = [await build(false), await build(true), await build(false)];
    const diff = await diffTrees(a, b);
    expect(linesStarting(diff, 'diff --git')).toEqual([
      'diff --git "a/back\\\\slash" "b/back\\\\slash"',
      'diff --git a/caf\u20ac b/caf\u20ac',
      'diff --git "a/ctl\\001\\177" "b/ctl\\001\\177"',
      'diff --git "a/c\\351/inner" "b/c\\351/inner"', // byte order: 0xe9 after 'a' and 't'
      'diff --git a/kind b/kind',
      'diff --git a/kind b/kind',
      'diff --git "a/n\\nl" "b/n\\nl"',
      'diff --git "a/q\\"uote" "b/q\\"uote"',
      'diff --git "a/tab\\tname" "b/tab\\tname"',
      'diff --git a/x.sh b/x.sh',
      'diff --git "a/\\377" "b/\\377"',
    ]);
    const r = spawnSync('git', ['apply', '--whitespace=nowarn', '-'], { cwd: g, input: diff, env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(g) } });
    expect({ status: r.status, stderr: r.stderr.toString() }).toEqual({ status: 0, stderr: '' });
    expect(await diffRepo(g, b)).toEqual({ diff: '', changes: [], ignored: [] });
  });
});

describe.skipIf(spawnSync('git', ['--version']).status !== 0)('diffRepo: names of any bytes (property, with git apply)', () => {
  // a name: 1-6 bytes, anything but NUL and '/', not '.' or '..'
  const name = fc.uint8Array({ minLength: 1, maxLength: 6 }).map((u) => Buffer.from(u.map((x) => (x === 0 || x === 0x2f ? 0x41 : x)))).filter((n) => n.toString('latin1') !== '.' && n.toString('latin1') !== '..');
  const files = fc.uniqueArray(fc.tuple(name, fc.constantFrom('one\n', 'two\n', 'x')), { maxLength: 5, selector: ([n]) => n.toString('latin1') });
  it('git apply turns before into after, every name one entry, one diff --git line per section', async () => {
    await fc.assert(
      fc.asyncProperty(files, files, async (x, y) => {
        const build = async (entries: [Buffer, string][]): Promise<string> => {
          const d = await scratchDir('frognano-diff-bytes-');
          for (const [n, c] of entries) await writeFile(at(d, [...n]), c);
          return d;
        };
        const [a, b, g] = [await build(x), await build(y), await build(x)];
        const r = await diffRepo(a, b);
        const want = new Set([...x, ...y].map(([n]) => n.toString('latin1')));
        const same = x.filter(([n, c]) => y.some(([m, d]) => m.equals(n) && d === c)).length;
        expect(r.changes).toHaveLength(want.size - same);
        expect(linesStarting(r.diff, 'diff --git')).toHaveLength(r.changes.length);
        if (r.diff !== '') {
          const applied = spawnSync('git', ['-c', 'core.protectNTFS=false', '-c', 'core.protectHFS=false', 'apply', '--whitespace=nowarn', '-'], { cwd: g, input: r.diff, env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(g) } });
          expect({ status: applied.status, stderr: applied.stderr.toString() }).toEqual({ status: 0, stderr: '' });
        }
        expect((await diffRepo(g, b)).changes).toEqual([]);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});

describe('diffRepo: a tree deeper than PATH_MAX', () => {
  it('is diffed whole with its long path, even chmod 000; restorePermissions fixes every mode; rm -rf removes it', async () => {
    const a = await tree({});
    const b = await scratchDir('frognano-diff-deep-');
    const name = 'd'.repeat(20);
    // 300 levels of 20 characters: a path of 6,311 bytes, past PATH_MAX (4096); mkdir and cd by relative names
    sh('cd "$1" && for i in $(seq 300); do mkdir "$2" && cd "$2" || exit 1; done && printf "import os\\n" > conftest.py && chmod 000 conftest.py && cd ../.. && chmod 000 .', b, name);
    try {
      const rel = `${Array.from({ length: 300 }, () => name).join('/')}/conftest.py`;
      expect(rel.length).toBe(6311);
      const r = await diffRepo(a, b);
      expect(r).toEqual({ diff: `diff --git a/${rel} b/${rel}\nnew file mode 100644\n--- /dev/null\n+++ b/${rel}\n@@ -0,0 +1,1 @@\n+import os\n`, changes: [{ path: rel, raw: Buffer.from(rel), status: 'added' }], ignored: [] });
      const lacking = 'find "$1" \\( -type d ! -perm -u=rwx \\) -o \\( -type f ! -perm -u=rw \\) | wc -l';
      expect(sh(lacking, b).trim()).toBe('2');
      await restorePermissions(b);
      expect(sh(lacking, b).trim()).toBe('0');
    } finally {
      spawnSync('rm', ['-rf', b]);
    }
    expect(existsSync(b)).toBe(false);
  });
});

describe('diffRepo: ignoredBy (SPEC §14 ignoredChanges)', () => {
  it('added paths it names leave the diff text and are listed with their sizes; they stay in changes', async () => {
    const r = await diffRepo(await tree({ 'a.py': 'x\n' }), await tree({ 'a.py': 'y\n', 'run.log': 'hello', 'cache/x.bin': 'abc' }), { ignoredBy: (p) => p.endsWith('.log') || p.startsWith('cache/') });
    expect(r.diff).toBe('diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,1 @@\n-x\n+y\n');
    expect(r.ignored).toEqual([{ path: 'cache/x.bin', bytes: 3 }, { path: 'run.log', bytes: 5 }]);
    expect(r.changes.map((c) => [c.path, c.status])).toEqual([['a.py', 'modified'], ['cache/x.bin', 'added'], ['run.log', 'added']]);
  });
  it('a changed or deleted path it names stays in the diff (only what the agent created is set aside)', async () => {
    const r = await diffRepo(await tree({ 'x.log': 'a\n', 'y.log': 'b\n' }), await tree({ 'x.log': 'c\n' }), { ignoredBy: (p) => p.endsWith('.log') });
    expect(r.ignored).toEqual([]);
    expect(r.diff.split('\n').filter((l) => l.startsWith('diff --git'))).toEqual(['diff --git a/x.log b/x.log', 'diff --git a/y.log b/y.log']);
  });
});

import { chmod, cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDir } from '../../test/helpers/leafTask.js';
import { NINE, tree } from '../../test/leaf/trees.js';
import { applyUnifiedDiff } from './applyUnifiedDiff.js';
import { diffTrees, isBinary, snapshotTree } from './repoDiff.js';

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

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, chown, lchown, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { scratchDir } from '../../test/helpers/leafTask.js';
import { hasMkfifo } from '../../test/leaf/fileToolScratch.js';
import { tree } from '../../test/leaf/trees.js';
import { TreeWalker, type WalkLimits } from './treeWalker.js';

const LIMITS: WalkLimits = { maxEntries: 1000, maxPathBytes: 1 << 20, skipTop: ['.git', '.hg', '.svn'] };
const sha = (s: string | Buffer): Buffer => createHash('sha256').update(s).digest();
const at = (dir: string, ...raw: (string | number[])[]): Buffer => Buffer.concat([Buffer.from(`${dir}/`), ...raw.map((r) => Buffer.from(r as string))]);

let walkers: TreeWalker[] = [];
const start = (opts: { maxSeconds?: number; user?: { uid: number; gid: number } } = {}): TreeWalker => {
  const w = TreeWalker.start({ fn: 'test', maxSeconds: opts.maxSeconds ?? 30, ...(opts.user ? { user: opts.user } : {}) });
  walkers.push(w);
  return w;
};
afterEach(() => {
  for (const w of walkers.splice(0)) w.close();
});

describe('TreeWalker.walk', () => {
  it('lists files (size, executable bit, SHA-256) and links (target, never followed), in git path order', async () => {
    const d = await tree({ 'a.txt': 'A', 'a/z': 'zz', 'b.sh': 'echo\n', 'C': '' });
    await chmod(join(d, 'b.sh'), 0o755);
    await symlink('/etc', join(d, 'etc-link'));
    await symlink('a', join(d, 'dir-link'));
    const e = await start().walk(d, LIMITS);
    expect(e.map((x) => x.raw.toString())).toEqual(['C', 'a.txt', 'a/z', 'b.sh', 'dir-link', 'etc-link']);
    const file = (size: number, executable: boolean, content: string) => ({ kind: 'file', executable, size, digest: sha(content), target: Buffer.alloc(0) });
    const link = (t: string) => ({ kind: 'link', executable: false, size: t.length, digest: Buffer.alloc(0), target: Buffer.from(t) });
    expect(e.map(({ raw: _raw, ...rest }) => rest)).toEqual([file(0, false, ''), file(1, false, 'A'), file(2, false, 'zz'), file(5, true, 'echo\n'), link('a'), link('/etc')]);
  });
  it('skips the top-level .git, .hg and .svn folders only; empty folders are not listed', async () => {
    const d = await tree({ '.git/HEAD': 'x', '.hg/x': 'h', '.svn/y': 's', 'sub/.git/config': 'c', '.gitignore': 'g' });
    await mkdir(join(d, 'empty/nested'), { recursive: true });
    expect((await start().walk(d, LIMITS)).map((x) => x.raw.toString())).toEqual(['.gitignore', 'sub/.git/config']);
  });
  it.skipIf(!hasMkfifo)('a FIFO is not content, and is never opened (the walk does not block on it)', async () => {
    const d = await tree({ a: 'a' });
    expect(spawnSync('mkfifo', [join(d, 'fifo')]).status).toBe(0);
    expect((await start().walk(d, LIMITS)).map((x) => x.raw.toString())).toEqual(['a']);
  });
  it('a missing root is an empty tree', async () => {
    expect(await start().walk('/nonexistent/frognano/dir', LIMITS)).toEqual([]);
  });
  it('names are bytes: two names that are not UTF-8 stay two entries, and a folder with such a name is walked', async () => {
    const d = await scratchDir();
    await writeFile(at(d, [0xff]), 'ff');
    await writeFile(at(d, [0xfe]), 'fe');
    await mkdir(at(d, 'dir', [0x80]), { recursive: true });
    await writeFile(at(d, 'dir', [0x80], '/in\nside'), 'deep');
    const w = start();
    const e = await w.walk(d, LIMITS);
    expect(e.map((x) => x.raw)).toEqual([Buffer.from('dir\x80/in\nside', 'latin1'), Buffer.from([0xfe]), Buffer.from([0xff])]);
    expect(e.map((x) => x.digest)).toEqual([sha('deep'), sha('fe'), sha('ff')]);
    expect((await w.read(d, e[0]!.raw, 100)).toString()).toBe('deep');
  });
  it('counts entries: over maxEntries is DIFF_UNAVAILABLE with the exact count', async () => {
    const d = await tree(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f/${i}`, ''])));
    // 30 files + the folder f = 31 entries
    expect(await start().walk(d, { ...LIMITS, maxEntries: 31 })).toHaveLength(30);
    await expectFrognanoErrorAsync(() => start().walk(d, { ...LIMITS, maxEntries: 30 }), 'DIFF_UNAVAILABLE', 'test: too many entries below', ': 31 > maxEntries 30');
  });
  it('bounds the paths\' total length (folders count too)', async () => {
    const d = await tree({ 'abc/def': '' }); // 'abc' + 'abc/def' = 10 bytes
    expect(await start().walk(d, { ...LIMITS, maxPathBytes: 10 })).toHaveLength(1);
    await expectFrognanoErrorAsync(() => start().walk(d, { ...LIMITS, maxPathBytes: 9 }), 'DIFF_UNAVAILABLE', 'add up to more than maxPathBytes 9 bytes', 'at abc/def');
  });
  it('past maxSeconds: DIFF_UNAVAILABLE saying so', async () => {
    const d = await tree({ a: 'a', b: 'b' });
    await expectFrognanoErrorAsync(() => start({ maxSeconds: 0.001 }).walk(d, LIMITS), 'DIFF_UNAVAILABLE', `the walk of ${d} took longer than 0.001 s (maxSeconds)`);
  });
  it('a walker keeps answering after a failed command; a closed one rejects', async () => {
    const d = await tree({ a: 'a' });
    const w = start();
    await expect(w.walk(d, { ...LIMITS, maxEntries: 0 })).rejects.toMatchObject({ code: 'DIFF_UNAVAILABLE' });
    expect(await w.walk(d, LIMITS)).toHaveLength(1);
    w.close();
    await expectFrognanoErrorAsync(() => w.walk(d, LIMITS), 'DIFF_UNAVAILABLE', 'closed');
  });
  it('an abort signal kills the child and rejects with its reason', async () => {
    const ac = new AbortController();
    const w = TreeWalker.start({ fn: 'test', maxSeconds: 30, signal: ac.signal });
    walkers.push(w);
    const p = w.walk(await tree({ a: 'a' }), LIMITS);
    ac.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('TreeWalker.read', () => {
  it('reads at most max bytes, through folders only, and moves between paths and roots', async () => {
    const d = await tree({ 'x/y/f': 'hello world', 'x/g': 'g', 'h': 'h' });
    const e = await tree({ 'x/y/f': 'other' });
    const w = start();
    expect((await w.read(d, Buffer.from('x/y/f'), 5)).toString()).toBe('hello');
    expect((await w.read(d, Buffer.from('x/g'), 100)).toString()).toBe('g');
    expect((await w.read(d, Buffer.from('h'), 100)).toString()).toBe('h');
    expect((await w.read(e, Buffer.from('x/y/f'), 100)).toString()).toBe('other');
    expect((await w.read(d, Buffer.from('x/y/f'), 100)).toString()).toBe('hello world');
  });
  it('never through a link: a linked folder or file is refused', async () => {
    const d = await tree({ 'real/f': 'secret' });
    await symlink('real', join(d, 'l'));
    await symlink('real/f', join(d, 'lf'));
    const w = start();
    await expectFrognanoErrorAsync(() => w.read(d, Buffer.from('l/f'), 100), 'DIFF_UNAVAILABLE', 'at l/f');
    await expectFrognanoErrorAsync(() => w.read(d, Buffer.from('lf'), 100), 'DIFF_UNAVAILABLE', 'at lf');
    expect((await w.read(d, Buffer.from('real/f'), 100)).toString()).toBe('secret');
  });
});

describe('TreeWalker.restore', () => {
  it('adds the owner rwx to folders and rw to files, keeping the other bits; links are not followed', async () => {
    const d = await tree({ 'tests/t.py': 't', 'run.sh': 'r', 'x': 'x', 'ok.txt': 'o', 'd/e/f': 'f' });
    const outside = await tree({ 'target': 's' });
    await chmod(join(outside, 'target'), 0);
    await symlink(join(outside, 'target'), join(d, 'link'));
    await chmod(join(d, 'tests/t.py'), 0);
    await chmod(join(d, 'run.sh'), 0o100);
    await chmod(join(d, 'x'), 0o4111);
    await chmod(join(d, 'ok.txt'), 0o644);
    await chmod(join(d, 'd/e/f'), 0o200);
    await chmod(join(d, 'd/e'), 0o100);
    await chmod(join(d, 'd'), 0o555);
    await chmod(join(d, 'tests'), 0);
    await chmod(d, 0o500);
    expect(await start().restore(d)).toEqual({ entries: 9, failed: 0 }); // the link counts as an entry
    const mode = async (p: string): Promise<string> => ((await stat(join(d, p))).mode & 0o7777).toString(8);
    expect(await Promise.all(['.', 'tests', 'tests/t.py', 'run.sh', 'x', 'ok.txt', 'd', 'd/e', 'd/e/f'].map(mode))).toEqual(['700', '700', '600', '700', '4711', '644', '755', '700', '600']);
    expect((await stat(join(outside, 'target'))).mode & 0o7777).toBe(0);
  });
  it('a missing root is nothing to do', async () => {
    expect(await start().restore('/nonexistent/frognano/dir')).toEqual({ entries: 0, failed: 0 });
  });
});

// The machine's tests run as root, where permission bits do not stop reading: the walker runs here as an
// unprivileged user (nobody) to see what an agent's `chmod 000` does to a walk, and that restore undoes it.
describe.skipIf(process.getuid?.() !== 0)('as an unprivileged user (uid 65534)', () => {
  const nobody = { uid: 65534, gid: 65534 };
  const chownTree = async (dir: string): Promise<void> => {
    await lchown(dir, nobody.uid, nobody.gid);
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await chownTree(p);
      else await lchown(p, nobody.uid, nobody.gid);
    }
  };
  it('chmod 000 makes the walk fail naming the entry; restore fixes it; an entry of another owner is reported', async () => {
    const parent = await scratchDir();
    await chmod(parent, 0o755);
    const d = join(parent, 'repo');
    await mkdir(join(d, 'tests'), { recursive: true });
    await writeFile(join(d, 'tests/t.py'), 'assert 1\n');
    await writeFile(join(d, 'secret'), 's');
    await chownTree(d);
    await chmod(join(d, 'tests/t.py'), 0);
    await chmod(join(d, 'tests'), 0);
    await expectFrognanoErrorAsync(() => start({ user: nobody }).walk(d, LIMITS), 'DIFF_UNAVAILABLE', `an unreadable entry below ${d}: tests (EACCES)`);
    await chown(join(d, 'secret'), 0, 0);
    await chmod(join(d, 'secret'), 0);
    const w = start({ user: nobody });
    expect(await w.restore(d)).toEqual({ entries: 3, failed: 1, first: { path: Buffer.from('secret'), code: 'EPERM' } });
    await expectFrognanoErrorAsync(() => w.walk(d, LIMITS), 'DIFF_UNAVAILABLE', 'an unreadable entry', ': secret (EACCES)');
    await chown(join(d, 'secret'), nobody.uid, nobody.gid);
    expect(await w.restore(d)).toEqual({ entries: 3, failed: 0 });
    const e = await w.walk(d, LIMITS);
    expect(e.map((x) => [x.raw.toString(), x.digest])).toEqual([
      ['secret', sha('s')],
      ['tests/t.py', sha('assert 1\n')],
    ]);
  });
});

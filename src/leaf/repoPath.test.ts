import { existsSync } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { scratchDir, writeTree } from '../../test/helpers/leafTask.js';
import { type RepoRoot, resolveRepoPath } from './repoPath.js';

let host: string;
let outsideDir: string;
let root: RepoRoot;

const outsideReason = (p: string): string => `${p} is outside the repository (/repo); file tools only work inside it`;
const linkReason = (p: string, target: string): string => `${p} leads through a symbolic link to ${target}, outside the repository`;

beforeAll(async () => {
  host = await scratchDir('frognano-repopath-');
  outsideDir = await scratchDir('frognano-repopath-outside-');
  root = { host, aliases: ['/repo', host] };
  await writeTree(host, { 'top.txt': 't\n', 'src/a.ts': 'a\n', 'src/deep/b.ts': 'b\n' });
  await writeTree(outsideDir, { 'secret.txt': 's\n' });
  await mkdir(join(host, 'empty-dir'));
  // links, relative and absolute
  await symlink('src/a.ts', join(host, 'rel-link'));
  await symlink('src', join(host, 'dir-link'));
  await symlink('/repo/src', join(host, 'repo-abs-link'));
  await symlink('/repo', join(host, 'repo-root-link'));
  await symlink(`${host}/src`, join(host, 'host-abs-link'));
  await symlink('/etc', join(host, 'etc-link'));
  await symlink(join(outsideDir, 'secret.txt'), join(host, 'outside-file-link'));
  await symlink('../../top.txt', join(host, 'src/deep/up-link'));
  await symlink('../..', join(host, 'src/deep/root-link'));
  await symlink('../../..', join(host, 'src/deep/escape-link'));
  await symlink('deep/../a.ts', join(host, 'src/dotdot-link'));
  await symlink('/repo/../etc', join(host, 'repo-dotdot-link'));
  await symlink('rel-link', join(host, 'chain-link')); // chain-link -> rel-link -> src/a.ts
  // loops
  await symlink('loop-b', join(host, 'loop-a'));
  await symlink('loop-a', join(host, 'loop-b'));
  await symlink('self-link', join(host, 'self-link'));
  // dangling
  await symlink('src/new.txt', join(host, 'dangling-in'));
  await symlink('/repo/new/dir/f.txt', join(host, 'dangling-repo-abs'));
  await symlink(join(outsideDir, 'nope.txt'), join(host, 'dangling-out'));
  await symlink('../outside-nope.txt', join(host, 'dangling-up'));
});

describe('resolveRepoPath: plain paths', () => {
  it('a relative path', async () => {
    expect(await resolveRepoPath(root, 'src/a.ts')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
  });
  it('a ./ path', async () => {
    expect(await resolveRepoPath(root, './src/a.ts')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
  });
  it('an absolute path under /repo', async () => {
    expect(await resolveRepoPath(root, '/repo/src/deep/b.ts')).toEqual({ ok: true, rel: 'src/deep/b.ts', host: join(host, 'src/deep/b.ts'), exists: true });
  });
  it('/repo itself, /repo/ and . are the root (rel "")', async () => {
    for (const p of ['/repo', '/repo/', '.', './', '/repo/.']) {
      expect(await resolveRepoPath(root, p)).toEqual({ ok: true, rel: '', host, exists: true });
    }
  });
  it('the host alias (what pwd shows without a sandbox)', async () => {
    expect(await resolveRepoPath(root, `${host}/top.txt`)).toEqual({ ok: true, rel: 'top.txt', host: join(host, 'top.txt'), exists: true });
    expect(await resolveRepoPath(root, host)).toEqual({ ok: true, rel: '', host, exists: true });
  });
  it('a folder exists', async () => {
    expect(await resolveRepoPath(root, 'empty-dir')).toEqual({ ok: true, rel: 'empty-dir', host: join(host, 'empty-dir'), exists: true });
  });
  it('repeated slashes and surrounding blanks are ignored', async () => {
    expect(await resolveRepoPath(root, 'src//a.ts')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
    expect(await resolveRepoPath(root, '  src/a.ts  ')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
  });
  it('.. that stays inside is resolved', async () => {
    expect(await resolveRepoPath(root, 'src/../top.txt')).toEqual({ ok: true, rel: 'top.txt', host: join(host, 'top.txt'), exists: true });
    expect(await resolveRepoPath(root, 'src/deep/../../top.txt')).toEqual({ ok: true, rel: 'top.txt', host: join(host, 'top.txt'), exists: true });
    expect(await resolveRepoPath(root, '/repo/src/..')).toEqual({ ok: true, rel: '', host, exists: true });
  });
  it('a non-existent nested path: exists false, rel and host correct', async () => {
    expect(await resolveRepoPath(root, 'no/such/dir/file.txt')).toEqual({ ok: true, rel: 'no/such/dir/file.txt', host: join(host, 'no/such/dir/file.txt'), exists: false });
    expect(await resolveRepoPath(root, 'src/deep/new/x.ts')).toEqual({ ok: true, rel: 'src/deep/new/x.ts', host: join(host, 'src/deep/new/x.ts'), exists: false });
    expect(await resolveRepoPath(root, '/repo/src/missing.ts')).toEqual({ ok: true, rel: 'src/missing.ts', host: join(host, 'src/missing.ts'), exists: false });
  });
});

describe('resolveRepoPath: refused paths', () => {
  it('.. past the root', async () => {
    expect(await resolveRepoPath(root, '../x')).toEqual({ ok: false, reason: outsideReason('../x') });
  });
  it('.. past the root after going down', async () => {
    expect(await resolveRepoPath(root, 'src/../../x')).toEqual({ ok: false, reason: outsideReason('src/../../x') });
  });
  it('/repo/..', async () => {
    expect(await resolveRepoPath(root, '/repo/../etc')).toEqual({ ok: false, reason: outsideReason('/repo/../etc') });
  });
  it('an absolute path elsewhere', async () => {
    expect(await resolveRepoPath(root, '/etc/passwd')).toEqual({ ok: false, reason: outsideReason('/etc/passwd') });
  });
  it('an absolute path that only shares the prefix /repo', async () => {
    expect(await resolveRepoPath(root, '/repository/x')).toEqual({ ok: false, reason: outsideReason('/repository/x') });
    expect(await resolveRepoPath(root, `${host}x/a`)).toEqual({ ok: false, reason: outsideReason(`${host}x/a`) });
  });
  it('the host folder of another path outside', async () => {
    const p = join(outsideDir, 'secret.txt');
    expect(await resolveRepoPath(root, p)).toEqual({ ok: false, reason: outsideReason(p) });
  });
  it('the empty path', async () => {
    expect(await resolveRepoPath(root, '')).toEqual({ ok: false, reason: 'the path is empty' });
  });
  it('a blank path', async () => {
    expect(await resolveRepoPath(root, '   ')).toEqual({ ok: false, reason: 'the path is empty' });
  });
  it('a non-string path', async () => {
    expect(await resolveRepoPath(root, undefined as unknown as string)).toEqual({ ok: false, reason: 'the path is empty' });
    expect(await resolveRepoPath(root, 42 as unknown as string)).toEqual({ ok: false, reason: 'the path is empty' });
  });
  it('a NUL byte', async () => {
    expect(await resolveRepoPath(root, 'src/a\0.ts')).toEqual({ ok: false, reason: 'the path contains a NUL byte' });
  });
  it('only the given aliases count: without the host alias, the host path is outside', async () => {
    const p = `${host}/top.txt`;
    expect(await resolveRepoPath({ host, aliases: ['/repo'] }, p)).toEqual({ ok: false, reason: outsideReason(p) });
  });
});

describe('resolveRepoPath: symbolic links', () => {
  it('a relative link inside', async () => {
    expect(await resolveRepoPath(root, 'rel-link')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
  });
  it('a link to a folder, followed by more components', async () => {
    expect(await resolveRepoPath(root, 'dir-link/deep/b.ts')).toEqual({ ok: true, rel: 'src/deep/b.ts', host: join(host, 'src/deep/b.ts'), exists: true });
  });
  it('a chain of links', async () => {
    expect(await resolveRepoPath(root, 'chain-link')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
  });
  it('an absolute /repo/... target maps into the copy', async () => {
    expect(await resolveRepoPath(root, 'repo-abs-link/a.ts')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
    expect(await resolveRepoPath(root, 'repo-root-link')).toEqual({ ok: true, rel: '', host, exists: true });
  });
  it('an absolute target under the host alias maps into the copy', async () => {
    expect(await resolveRepoPath(root, 'host-abs-link/a.ts')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
  });
  it('a link to /etc is refused, and so is any path through it', async () => {
    expect(await resolveRepoPath(root, 'etc-link')).toEqual({ ok: false, reason: linkReason('etc-link', '/etc') });
    expect(await resolveRepoPath(root, 'etc-link/passwd')).toEqual({ ok: false, reason: linkReason('etc-link/passwd', '/etc') });
    expect(await resolveRepoPath(root, '/repo/etc-link/passwd')).toEqual({ ok: false, reason: linkReason('/repo/etc-link/passwd', '/etc') });
  });
  it('a link to an existing file outside is refused', async () => {
    const target = join(outsideDir, 'secret.txt');
    expect(await resolveRepoPath(root, 'outside-file-link')).toEqual({ ok: false, reason: linkReason('outside-file-link', target) });
  });
  it('an absolute /repo/.. target is refused', async () => {
    expect(await resolveRepoPath(root, 'repo-dotdot-link')).toEqual({ ok: false, reason: linkReason('repo-dotdot-link', '/repo/../etc') });
  });
  it('a ../.. chain that stays inside', async () => {
    expect(await resolveRepoPath(root, 'src/deep/up-link')).toEqual({ ok: true, rel: 'top.txt', host: join(host, 'top.txt'), exists: true });
    expect(await resolveRepoPath(root, 'src/deep/root-link')).toEqual({ ok: true, rel: '', host, exists: true });
    expect(await resolveRepoPath(root, 'src/deep/root-link/src/a.ts')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
    expect(await resolveRepoPath(root, 'src/dotdot-link')).toEqual({ ok: true, rel: 'src/a.ts', host: join(host, 'src/a.ts'), exists: true });
  });
  it('a ../../.. chain past the root is refused', async () => {
    expect(await resolveRepoPath(root, 'src/deep/escape-link')).toEqual({ ok: false, reason: outsideReason('src/deep/escape-link') });
    expect(await resolveRepoPath(root, 'src/deep/escape-link/etc/passwd')).toEqual({ ok: false, reason: outsideReason('src/deep/escape-link/etc/passwd') });
  });
  it('a loop of two links: too many levels', async () => {
    expect(await resolveRepoPath(root, 'loop-a')).toEqual({ ok: false, reason: 'loop-a: too many levels of symbolic links' });
    expect(await resolveRepoPath(root, 'loop-b/x')).toEqual({ ok: false, reason: 'loop-b/x: too many levels of symbolic links' });
  });
  it('a link to itself: too many levels', async () => {
    expect(await resolveRepoPath(root, 'self-link')).toEqual({ ok: false, reason: 'self-link: too many levels of symbolic links' });
  });
  it('a chain of exactly 40 links is followed, 41 is refused', async () => {
    const d = await scratchDir('frognano-repopath-chain-');
    await writeTree(d, { 'end.txt': 'e' });
    await symlink('end.txt', join(d, 'l1'));
    for (let i = 2; i <= 41; i++) await symlink(`l${i - 1}`, join(d, `l${i}`));
    const r = { host: d, aliases: ['/repo'] };
    expect(await resolveRepoPath(r, 'l40')).toEqual({ ok: true, rel: 'end.txt', host: join(d, 'end.txt'), exists: true });
    expect(await resolveRepoPath(r, 'l41')).toEqual({ ok: false, reason: 'l41: too many levels of symbolic links' });
  });
  it('a dangling link whose target is inside: ok, exists false, rel is the target', async () => {
    expect(await resolveRepoPath(root, 'dangling-in')).toEqual({ ok: true, rel: 'src/new.txt', host: join(host, 'src/new.txt'), exists: false });
  });
  it('a dangling absolute /repo/... link: the nested target inside', async () => {
    expect(await resolveRepoPath(root, 'dangling-repo-abs')).toEqual({ ok: true, rel: 'new/dir/f.txt', host: join(host, 'new/dir/f.txt'), exists: false });
  });
  it('a dangling link whose target is outside (absolute) is refused', async () => {
    const target = join(outsideDir, 'nope.txt');
    expect(await resolveRepoPath(root, 'dangling-out')).toEqual({ ok: false, reason: linkReason('dangling-out', target) });
  });
  it('a dangling link whose target is outside (relative ..) is refused', async () => {
    expect(await resolveRepoPath(root, 'dangling-up')).toEqual({ ok: false, reason: outsideReason('dangling-up') });
  });
  it('a path through a file (not a folder) exists false', async () => {
    // lstat of top.txt/x fails (ENOTDIR): treated as not existing, nothing escapes
    expect(await resolveRepoPath(root, 'top.txt/x')).toEqual({ ok: true, rel: 'top.txt/x', host: join(host, 'top.txt/x'), exists: false });
  });
  it('touches nothing: refused and missing paths create no file', async () => {
    await resolveRepoPath(root, 'dangling-in');
    await resolveRepoPath(root, 'no/such/dir/file.txt');
    expect(existsSync(join(host, 'src/new.txt'))).toBe(false);
    expect(existsSync(join(host, 'no'))).toBe(false);
  });
});

describe('resolveRepoPath: properties', () => {
  const component = fc.constantFrom('src', 'deep', 'a.ts', 'b.ts', 'top.txt', '..', '.', '', 'x', 'rel-link', 'dir-link', 'etc-link', 'src/deep/escape-link', 'loop-a', 'dangling-out', 'repo-abs-link');
  it('a resolved path is always under the host root, and its rel matches its host (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(component, { minLength: 1, maxLength: 6 }), fc.constantFrom('', '/repo/', './'), async (parts, prefix) => {
        const p = prefix + parts.join('/');
        const r = await resolveRepoPath(root, p);
        if (!r.ok) {
          expect(r.reason.length).toBeGreaterThan(0);
          return;
        }
        expect(r.host).toBe(r.rel === '' ? host : join(host, r.rel));
        expect(r.rel.startsWith('/')).toBe(false);
        expect(r.rel.split('/')).not.toContain('..');
        expect(r.exists).toBe(existsSync(r.host));
      }),
      { numRuns: 300 },
    );
  });
});

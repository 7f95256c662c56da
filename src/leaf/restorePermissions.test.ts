import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod, lstat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { tree } from '../../test/leaf/trees.js';
import { restorePermissions } from './restorePermissions.js';

const mode = async (p: string): Promise<number> => (await lstat(p)).mode & 0o7777;

describe('restorePermissions', () => {
  it('undoes chmod 000 on folders and files (owner rwx / rw), keeps the executable bits, follows no link', async () => {
    const d = await tree({ 'tests/test_a.py': 'assert 1\n', 'run.sh': 'echo\n', 'keep.txt': 'k\n' });
    const outside = await tree({ 'o': 'o' });
    await chmod(join(outside, 'o'), 0);
    await symlink(join(outside, 'o'), join(d, 'link'));
    await chmod(join(d, 'tests/test_a.py'), 0);
    await chmod(join(d, 'tests'), 0);
    await chmod(join(d, 'run.sh'), 0o111);
    await restorePermissions(d);
    expect(await Promise.all([d, join(d, 'tests'), join(d, 'tests/test_a.py'), join(d, 'run.sh'), join(d, 'keep.txt')].map(mode))).toEqual([0o700, 0o700, 0o600, 0o711, 0o644]);
    expect(await mode(join(outside, 'o'))).toBe(0);
  });
  it('a missing root is nothing to do', async () => {
    await expect(restorePermissions('/nonexistent/frognano/dir')).resolves.toBeUndefined();
  });
  it('maxSeconds must be a finite number > 0', async () => {
    await expectFrognanoErrorAsync(() => restorePermissions('/tmp', { maxSeconds: 0 }), 'OUT_OF_RANGE', 'restorePermissions: opts.maxSeconds must be a finite number > 0, got 0');
  });
  it('an abort signal stops it with its reason', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(restorePermissions(await tree({ a: 'a' }), { signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
  // an immutable file (chattr +i, root on ext4 and the like) is one whose mode even root cannot change
  const probe = mkdtempSync(join(tmpdir(), 'frognano-chattr-'));
  const canImmutable = spawnSync('bash', ['-c', 'touch "$1/probe" && chattr +i "$1/probe" && chattr -i "$1/probe"', 'bash', probe]).status === 0;
  rmSync(probe, { recursive: true, force: true });
  it.skipIf(!canImmutable)('an entry it cannot fix: DIFF_UNAVAILABLE counting them and naming the first; the rest is fixed', async () => {
    const r = await tree({ 'a/stuck': 's', 'b/ok': 'o' });
    await chmod(join(r, 'a/stuck'), 0);
    await chmod(join(r, 'b/ok'), 0);
    expect(spawnSync('chattr', ['+i', join(r, 'a/stuck')]).status).toBe(0);
    try {
      await expectFrognanoErrorAsync(() => restorePermissions(r), 'DIFF_UNAVAILABLE', `restorePermissions: could not restore the permissions of 1 of 4 entries below ${r}, the first a/stuck (EPERM)`);
      expect(await mode(join(r, 'b/ok'))).toBe(0o600);
    } finally {
      spawnSync('chattr', ['-i', join(r, 'a/stuck')]);
    }
  });
});

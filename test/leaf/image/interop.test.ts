/**
 * Interoperability with real tools (SPEC §14 "Environments"): an OCI layout
 * made by umoci, and the same image as a docker archive by skopeo, import to
 * the same files. Their digests differ: the OCI digest is the manifest blob's
 * sha256, the docker archive's the canonical manifest derived from its config
 * (see readImagePlan.ts).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importImage } from '../../../src/leaf/image/index.js';
import { needsPackage } from '../../helpers/system.js';

const has = (bin: string): boolean => spawnSync(bin, ['--version']).status === 0;
const tools = needsPackage('umoci', has('umoci'), 'the umoci interoperability test') && needsPackage('skopeo', has('skopeo'), 'the skopeo interoperability test');
const work = mkdtempSync(join(tmpdir(), 'frognano-interop-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = (cmd: string, args: string[]): void => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
};
const rootless = process.getuid?.() !== 0 ? ['--rootless'] : [];

describe.runIf(tools)('importImage reads what umoci and skopeo write', () => {
  it('umoci OCI layout and skopeo docker-archive: the same files', async () => {
    const L = join(work, 'L');
    const B = join(work, 'B');
    run('umoci', ['init', '--layout', L]);
    run('umoci', ['new', '--image', `${L}:t`]);
    run('umoci', ['unpack', ...rootless, '--image', `${L}:t`, B]);
    mkdirSync(join(B, 'rootfs/bin'), { recursive: true });
    copyFileSync('/bin/busybox', join(B, 'rootfs/bin/busybox'));
    symlinkSync('busybox', join(B, 'rootfs/bin/sh'));
    writeFileSync(join(B, 'rootfs/hello.txt'), 'hi\n');
    run('umoci', ['repack', '--image', `${L}:t`, B]);
    run('umoci', ['config', '--image', `${L}:t`, '--config.workingdir', '/src', '--config.env', 'FOO=bar']);
    const docker = join(work, 'x.tar');
    run('skopeo', ['copy', `oci:${L}:t`, `docker-archive:${docker}:t:t`]);

    const cacheDir = join(work, 'cache');
    const a = await importImage(L, { cacheDir });
    const b = await importImage(docker, { cacheDir });
    expect(a.digest).not.toBe(b.digest);
    for (const img of [a, b]) {
      expect(readFileSync(join(img.root, 'bin/busybox')).equals(readFileSync('/bin/busybox'))).toBe(true);
      expect(readFileSync(join(img.root, 'hello.txt'), 'utf8')).toBe('hi\n');
      expect(img.config.workdir).toBe('/src');
      expect(img.config.env.FOO).toBe('bar');
    }
    const files = (root: string) => spawnSync('find', ['.', '-printf', '%p %y %m\n'], { cwd: root, encoding: 'utf8' }).stdout.split('\n').sort();
    expect(files(b.root)).toEqual(files(a.root));
  });
});

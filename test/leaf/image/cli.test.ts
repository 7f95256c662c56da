/** `frognano image import` / `image ls` (SPEC §14 "Environments"): two lines, then the listing; coded errors naming the file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../cli/helpers.js';
import { configOf, dockerSaveLegacy, tarOf } from './imageBuilders.js';

const work = mkdtempSync(join(tmpdir(), 'frognano-image-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('frognano image', () => {
  it('import prints the rootfs and the digest; ls lists it', async () => {
    const layer = await tarOf([{ name: 'hello.txt', data: 'hi' }]);
    const file = join(work, 'img.tar');
    writeFileSync(file, await dockerSaveLegacy([layer], configOf([layer])));
    const cache = join(work, 'cache');
    const r = await runInProcess(['image', 'import', file, '--cache', cache]);
    expect(r.code).toBe(0);
    const [root, digest, ...rest] = r.stdout.split('\n');
    expect(rest).toEqual(['']);
    expect(digest).toMatch(/^sha256:[a-f0-9]{64}$/);
    expect(root).toBe(join(cache, digest!.replace(':', '-'), 'rootfs'));
    const ls = await runInProcess(['image', 'ls', '--cache', cache]);
    expect(ls.stdout).toBe(`${digest}\t${root}\t${file}\t2\n`);
  });
  it('a bad archive: exit 1, IMAGE_INVALID naming the file', async () => {
    const file = join(work, 'junk.tar');
    writeFileSync(file, 'not a tar at all'.repeat(100));
    const r = await runInProcess(['image', 'import', file, '--cache', join(work, 'c2')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('IMAGE_INVALID');
    expect(r.stderr).toContain(file);
  });
  it('no ARCHIVE, or an unknown subcommand: bad usage', async () => {
    expect((await runInProcess(['image', 'import'])).code).toBe(2);
    expect((await runInProcess(['image', 'pull', 'x'])).code).toBe(2);
  });
});

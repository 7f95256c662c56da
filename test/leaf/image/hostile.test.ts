/**
 * Hostile layers (SPEC §14 "Environments": "an entry whose path or link leaves
 * the root is refused"): each is IMAGE_INVALID naming the layer and entry, the
 * cache keeps no temporary folder, and nothing lands outside it (a canary
 * folder beside the cache stays empty).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importImage } from '../../../src/leaf/image/index.js';
import type { ImportImageOptions } from '../../../src/leaf/image/importImage.js';
import { expectFrognanoErrorAsync } from '../../helpers/expectError.js';
import { configOf, dockerSaveLegacy, gzip, headerOnly, ociMembers, type TarEntry, tarOf, writeLayout } from './imageBuilders.js';

const work = mkdtempSync(join(tmpdir(), 'frognano-hostile-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

/** Imports an OCI layout of one layer (its bytes as given) and checks the refusal and the aftermath. */
async function refused(layer: Buffer, ...mentions: string[]): Promise<void> {
  return refusedWith(layer, { maxBytes: 1 << 30 }, ...mentions);
}
/** {@link refused} with the import's options `opts`. */
async function refusedWith(layer: Buffer, opts: ImportImageOptions, ...mentions: string[]): Promise<void> {
  const dir = join(work, `case${n++}`);
  const canary = join(dir, 'canary');
  const cacheDir = join(dir, 'cache');
  mkdirSync(canary, { recursive: true });
  writeLayout(join(dir, 'layout'), ociMembers([{ bytes: layer, mediaType: 'application/vnd.oci.image.layer.v1.tar' }], configOf([layer])));
  await expectFrognanoErrorAsync(() => importImage(join(dir, 'layout'), { cacheDir, ...opts }), 'IMAGE_INVALID', ...mentions);
  expect(readdirSync(cacheDir), 'no temp folder left').toEqual([]);
  expect(readdirSync(canary), 'nothing written outside').toEqual([]);
  expect(existsSync(join(dir, 'x'))).toBe(false);
}
const tar = (entries: TarEntry[]): Promise<Buffer> => tarOf(entries);

describe('importImage refuses hostile layers', () => {
  it('path traversal ../../x', async () => {
    await refused(await tar([{ name: 'ok', data: 'a' }, { name: '../../x', data: 'evil' }]), 'leaves the root', '../../x', 'layer sha256:');
  });
  it('an absolute path /etc/x lands inside the root (OCI: names are relative to the root)', async () => {
    const dir = join(work, 'abs');
    const layer = await tar([{ name: '/etc/x', data: 'inside' }]);
    writeLayout(dir, ociMembers([{ bytes: layer, mediaType: 'application/vnd.oci.image.layer.v1.tar' }], configOf([layer])));
    const img = await importImage(dir, { cacheDir: join(work, 'abs-cache') });
    expect(readdirSync(join(img.root, 'etc'))).toEqual(['x']);
  });
  it('a symlink out of the root, then a file written through it', async () => {
    const canaryLink = join(work, `case${n}`, 'canary');
    await refused(await tar([{ name: 'esc', type: 'symlink', linkname: canaryLink }, { name: 'esc/pwned', data: 'evil' }]), 'goes through the symlink /esc', 'esc/pwned');
  });
  it('a symlink to .. then a file through it', async () => {
    await refused(await tar([{ name: 'up', type: 'symlink', linkname: '../../..' }, { name: 'up/x', data: 'evil' }]), 'symlink /up');
  });
  it('a hard link to outside the root', async () => {
    await refused(await tar([{ name: 'h', type: 'link', linkname: '../../../../etc/passwd' }]), 'hard link target', 'leaves the root');
  });
  it('a hard link to a file not unpacked (an absolute host path is read inside the root)', async () => {
    await refused(await tar([{ name: 'h', type: 'link', linkname: '/etc/passwd' }]), 'not unpacked');
  });
  it('a whiteout of ..', async () => {
    await refused(await tar([{ name: 'a/', type: 'directory' }, { name: 'a/.wh...' }]), 'whiteout of ".."');
  });
  it('a 10 GB entry with no data: refused from its header, before any data', async () => {
    const bomb = await headerOnly('big', 10 * 1024 ** 3);
    expect(bomb.length).toBeLessThan(4096);
    await refused(bomb, '10737418240 bytes', 'opts.maxBytes');
  });
  it('a truncated gzip layer', async () => {
    const gz = gzip(await tar([{ name: 'f', data: 'x'.repeat(100_000) }]));
    await refused(gz.subarray(0, gz.length >> 1), 'layer sha256:');
  });
  it('a truncated tar', async () => {
    const t = await tar([{ name: 'f', data: Buffer.alloc(5000, 1) }]);
    await refused(t.subarray(0, 2048), 'truncated or corrupt tar');
  });
  it('too many entries (opts.maxEntries)', async () => {
    const dir = join(work, 'many');
    const layer = await tar([{ name: 'a', data: '' }, { name: 'b', data: '' }, { name: 'c', data: '' }]);
    writeLayout(dir, ociMembers([{ bytes: layer, mediaType: 'x' }], configOf([layer])));
    await expectFrognanoErrorAsync(() => importImage(dir, { cacheDir: join(work, 'many-cache'), maxEntries: 2 }), 'IMAGE_INVALID', 'more than 2 entries');
    expect(readdirSync(join(work, 'many-cache'))).toEqual([]);
  });
  // maxBytes bounds the disk of the root: a file counts its size, a folder, symlink or hard link 4096 bytes plus its target's length
  it('many folders with maxBytes small (each counts 4096 bytes)', async () => {
    const entries: TarEntry[] = Array.from({ length: 30 }, (_, i) => ({ name: `d${i}/`, type: 'directory' }));
    await refusedWith(await tar(entries), { maxBytes: 100_000 }, 'a folder (4096 bytes)', 'limit of 100000 bytes', 'opts.maxBytes', 'entry "d24/"');
  });
  it('many symlinks with long targets, maxBytes 0 (each counts 4096 bytes plus its target)', async () => {
    const entries: TarEntry[] = Array.from({ length: 50 }, (_, i) => ({ name: `s${i}`, type: 'symlink', linkname: 'x'.repeat(3000) + i }));
    await refusedWith(await tar(entries), { maxBytes: 0 }, 'a symlink (7097 bytes)', 'opts.maxBytes', 'entry "s0"');
    await refusedWith(await tar(entries), { maxBytes: 7097 * 10 }, 'entry "s10"');
  });
  it('many hard links, maxBytes small', async () => {
    const entries: TarEntry[] = [{ name: 'f', data: 'x' }, ...Array.from({ length: 50 }, (_, i): TarEntry => ({ name: `h${i}`, type: 'link', linkname: 'f' }))];
    await refusedWith(await tar(entries), { maxBytes: 1 + 4097 * 20 }, 'a hard link (4097 bytes)', 'entry "h20"');
  });
  it('the rule is exact: folders, links and content together up to maxBytes import, one byte less is refused', async () => {
    const layer = await tar([{ name: 'd/', type: 'directory' }, { name: 'd/f', data: 'abc' }, { name: 'd/s', type: 'symlink', linkname: 'f' }, { name: 'd/h', type: 'link', linkname: 'd/f' }]);
    const need = 4096 + 3 + (4096 + 1) + (4096 + 3);
    const dir = join(work, 'exact');
    writeLayout(dir, ociMembers([{ bytes: layer, mediaType: 'x' }], configOf([layer])));
    await expectFrognanoErrorAsync(() => importImage(dir, { cacheDir: join(work, 'exact-cache1'), maxBytes: need - 1 }), 'IMAGE_INVALID', 'a hard link');
    expect(readdirSync(join(work, 'exact-cache1'))).toEqual([]);
    const img = await importImage(dir, { cacheDir: join(work, 'exact-cache2'), maxBytes: need });
    expect(readdirSync(join(img.root, 'd')).sort()).toEqual(['f', 'h', 's']);
  });

  // the decompressed tar is capped at maxBytes + 1 MiB per layer + 16 KiB per entry: a bomb stops there
  const bombOf = async (): Promise<{ tar: Buffer; gz: Buffer }> => {
    const t = Buffer.concat([await tar([{ name: 'ok', data: 'x' }]), Buffer.alloc(50 * 1024 * 1024)]);
    return { tar: t, gz: gzip(t) };
  };
  it('a gzip bomb: a tiny tar then 50 MiB of zeros, maxBytes 1 MiB (OCI: digest over the compressed bytes)', async () => {
    const { gz } = await bombOf();
    expect(gz.length).toBeLessThan(100_000);
    const t0 = Date.now();
    await refusedWith(gz, { maxBytes: 1024 * 1024 }, 'tar data (decompressed) passes', 'opts.maxBytes (1048576)', 'compression bomb', 'layer sha256:');
    expect(Date.now() - t0).toBeLessThan(5000);
  });
  it('a gzip bomb in a docker save archive (diff_ids: digest over the decompressed tar, capped the same)', async () => {
    const { tar: t, gz } = await bombOf();
    const file = join(work, 'bomb-docker.tar');
    writeFileSync(file, await dockerSaveLegacy([gz], configOf([t])));
    await expectFrognanoErrorAsync(() => importImage(file, { cacheDir: join(work, 'bomb-docker-cache'), maxBytes: 1024 * 1024 }), 'IMAGE_INVALID', 'compression bomb', 'layer.tar');
    expect(readdirSync(join(work, 'bomb-docker-cache'))).toEqual([]);
  });
  it('a layer near maxBytes still imports (the allowance covers headers and padding)', async () => {
    const entries: TarEntry[] = [{ name: 'big', data: Buffer.alloc(900 * 1024, 7) }, ...Array.from({ length: 200 }, (_, i) => ({ name: `f${i}`, data: 'y' }))];
    const layer = gzip(await tar(entries));
    const dir = join(work, 'near');
    writeLayout(dir, ociMembers([{ bytes: layer, mediaType: 'x' }], configOf([layer])));
    const img = await importImage(dir, { cacheDir: join(work, 'near-cache'), maxBytes: 1024 * 1024 });
    expect(readdirSync(img.root)).toContain('big');
  });

  it('too many layers (opts.maxLayers; default 500)', async () => {
    const empty = await tar([]);
    const layout = (count: number): string => {
      const dir = join(work, `layers${count}`);
      writeLayout(dir, ociMembers(Array.from({ length: count }, () => ({ bytes: empty, mediaType: 'x' })), configOf([empty])));
      return dir;
    };
    await expectFrognanoErrorAsync(() => importImage(layout(3), { cacheDir: join(work, 'layers-cache'), maxLayers: 2 }), 'IMAGE_INVALID', '3 layers, more than 2 (opts.maxLayers)');
    await expectFrognanoErrorAsync(() => importImage(layout(501), { cacheDir: join(work, 'layers-cache'), maxEntries: 1 }), 'IMAGE_INVALID', '501 layers, more than 500');
    expect(existsSync(join(work, 'layers-cache')), 'refused before any folder is made').toBe(false);
    await importImage(layout(2), { cacheDir: join(work, 'layers-cache'), maxLayers: 2 });
  });

  it('a layer whose bytes do not match its digest', async () => {
    const dir = join(work, 'mismatch');
    const layer = await tar([{ name: 'a', data: 'a' }]);
    writeLayout(dir, ociMembers([{ bytes: layer, mediaType: 'x' }], configOf([layer])));
    const blob = join(dir, 'blobs/sha256', readdirSync(join(dir, 'blobs/sha256')).find((f) => f === require256(layer))!);
    const evil = Buffer.from(layer);
    evil[600] = 0x41;
    writeFileSync(blob, evil);
    await expectFrognanoErrorAsync(() => importImage(dir, { cacheDir: join(work, 'mm-cache') }), 'IMAGE_INVALID', 'digest mismatch');
  });
});

function require256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}
import { createHash } from 'node:crypto';

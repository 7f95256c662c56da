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
import { expectFrognanoErrorAsync } from '../../helpers/expectError.js';
import { configOf, gzip, headerOnly, ociMembers, type TarEntry, tarOf, writeLayout } from './imageBuilders.js';

const work = mkdtempSync(join(tmpdir(), 'frognano-hostile-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

/** Imports an OCI layout of one layer (its bytes as given) and checks the refusal and the aftermath. */
async function refused(layer: Buffer, ...mentions: string[]): Promise<void> {
  const dir = join(work, `case${n++}`);
  const canary = join(dir, 'canary');
  const cacheDir = join(dir, 'cache');
  mkdirSync(canary, { recursive: true });
  writeLayout(join(dir, 'layout'), ociMembers([{ bytes: layer, mediaType: 'application/vnd.oci.image.layer.v1.tar' }], configOf([layer])));
  await expectFrognanoErrorAsync(() => importImage(join(dir, 'layout'), { cacheDir, maxBytes: 1 << 30 }), 'IMAGE_INVALID', ...mentions);
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

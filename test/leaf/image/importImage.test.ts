/**
 * importImage (SPEC §14 "Environments"): docker save (legacy and Docker 25+),
 * OCI layout and archive, gzip and zstd layers, whiteouts, links, modes, the
 * config, the cache.
 */
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importImage, listImages } from '../../../src/leaf/image/index.js';
import { needsPackage } from '../../helpers/system.js';
import { archiveOf, configOf, dockerSaveLegacy, gzip, hasZstd, ociMembers, tarOf, writeLayout, zstd } from './imageBuilders.js';

const work = mkdtempSync(join(tmpdir(), 'frognano-image-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = (): string => join(work, `c${n++}`);
const busybox = readFileSync('/bin/busybox');

const base = () => tarOf([
  { name: 'bin/', type: 'directory' },
  { name: 'bin/busybox', data: busybox, mode: 0o4755 },
  { name: 'bin/sh', type: 'symlink', linkname: 'busybox' },
  { name: 'bin/abs', type: 'symlink', linkname: '/bin/busybox' },
  { name: 'etc/', type: 'directory' },
  { name: 'etc/doomed', data: 'bye' },
  { name: 'opq/', type: 'directory' },
  { name: 'opq/old', data: 'old' },
  { name: 'dev/null', type: 'character-device' },
]);
const upper = () => tarOf([
  { name: 'etc/.wh.doomed' },
  { name: 'opq/', type: 'directory' },
  { name: 'opq/.wh..wh..opq' },
  { name: 'opq/new', data: 'new', mode: 0o600 },
  { name: 'bin/bb-link', type: 'link', linkname: 'bin/busybox' },
  { name: 'usr/share/hello.txt', data: 'hello\n', mode: 0o444 },
]);
const CONFIG = { Env: ['PATH=/bin', 'A=x=y'], WorkingDir: '/work', User: '1000' };

/** The rootfs tree as `path type mode` lines. */
function tree(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, rel)).sort()) {
    const p = rel ? `${rel}/${name}` : name;
    const st = lstatSync(join(root, p));
    if (st.isSymbolicLink()) out.push(`${p} -> ${readlinkSync(join(root, p))}`);
    else if (st.isDirectory()) out.push(`${p}/`, ...tree(root, p));
    else out.push(`${p} ${(st.mode & 0o7777).toString(8)}`);
  }
  return out;
}

const EXPECTED = [
  'bin/', 'bin/abs -> /bin/busybox', 'bin/bb-link 755', 'bin/busybox 755', 'bin/sh -> busybox',
  'dev/', 'etc/', 'opq/', 'opq/new 600', 'proc/', 'tmp/', 'usr/', 'usr/share/', 'usr/share/hello.txt 444', 'work/',
];

describe('importImage: docker save', () => {
  it('applies two layers (whiteout, opaque folder, hard link, modes) and reads the config', async () => {
    const [l1, l2] = [await base(), await upper()];
    const file = join(work, 'legacy.tar');
    writeFileSync(file, await dockerSaveLegacy([l1, l2], configOf([l1, l2], CONFIG)));
    const cacheDir = fresh();
    const img = await importImage(file, { cacheDir });
    expect(img.digest).toMatch(/^sha256:[a-f0-9]{64}$/);
    expect(img.root).toBe(join(cacheDir, img.digest.replace(':', '-'), 'rootfs'));
    expect(img.source).toBe(file);
    expect(img.config).toEqual({ env: { PATH: '/bin', A: 'x=y' }, workdir: '/work', user: '1000' });
    expect(tree(img.root)).toEqual(EXPECTED);
    expect(statSync(join(img.root, 'bin/bb-link')).ino).toBe(statSync(join(img.root, 'bin/busybox')).ino);
    expect(readFileSync(join(img.root, 'bin/busybox')).equals(busybox)).toBe(true);
    expect((statSync(join(img.root, 'tmp')).mode & 0o7777).toString(8)).toBe('1777');
    const record = JSON.parse(readFileSync(join(img.root, '..', 'image.json'), 'utf8'));
    expect(record).toMatchObject({ digest: img.digest, source: file, layers: expect.any(Array), bytes: busybox.length + 3 + 3 + 3 + 6 });

    // the cache: a second import returns at once with the same digest, no unpack
    const marker = join(img.root, 'marker');
    writeFileSync(marker, '');
    const again = await importImage(file, { cacheDir });
    expect(again).toEqual(img);
    expect(lstatSync(marker).isFile()).toBe(true);
    const listed = await listImages({ cacheDir });
    expect(listed.map((i) => [i.digest, i.root])).toEqual([[img.digest, img.root]]);
    expect(readdirSync(cacheDir)).toEqual([img.digest.replace(':', '-')]);
  });

  it('concurrent imports of one image: one unpacks, both get the same root, no temp folder is left', async () => {
    const l1 = await base();
    const file = join(work, 'conc.tar');
    writeFileSync(file, await dockerSaveLegacy([l1], configOf([l1])));
    const cacheDir = fresh();
    const [a, b] = await Promise.all([importImage(file, { cacheDir }), importImage(file, { cacheDir })]);
    expect(a).toEqual(b);
    expect(readdirSync(cacheDir)).toEqual([a.digest.replace(':', '-')]);
  });

  it('reads a Docker 25+ docker save (blobs/sha256 + OCI index + manifest.json), gzip layers', async () => {
    const [l1, l2] = [await base(), await upper()];
    const layers = [gzip(l1), gzip(l2)].map((bytes) => ({ bytes, mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip' }));
    const members = ociMembers(layers, configOf([l1, l2], CONFIG));
    members.push(['manifest.json', JSON.stringify([{ Config: 'blobs/sha256/x', Layers: [] }])]);
    const file = join(work, 'docker25.tar');
    writeFileSync(file, await archiveOf(members));
    const img = await importImage(file, { cacheDir: fresh() });
    expect(tree(img.root)).toEqual(EXPECTED);
    expect(img.config.workdir).toBe('/work');
  });
});

describe('importImage: OCI', () => {
  it('an OCI layout folder (index inside an index: linux/amd64) and the same as an OCI archive: one digest', async () => {
    const [l1, l2] = [await base(), await upper()];
    const layers = [{ bytes: gzip(l1), mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip' }, { bytes: l2, mediaType: 'application/vnd.oci.image.layer.v1.tar' }];
    const members = ociMembers(layers, configOf([l1, l2], CONFIG), true);
    const dir = join(work, 'layout');
    writeLayout(dir, members);
    const cacheDir = fresh();
    const a = await importImage(dir, { cacheDir });
    expect(tree(a.root)).toEqual(EXPECTED);
    const file = join(work, 'oci.tar');
    writeFileSync(file, await archiveOf(members));
    const b = await importImage(file, { cacheDir });
    expect(b.digest).toBe(a.digest);
    expect(b.root).toBe(a.root);
  });

  it.runIf(needsPackage('zstd', hasZstd(), 'the zstd layer test'))('zstd layers (told by magic bytes, whatever the media type)', async () => {
    const [l1, l2] = [await base(), await upper()];
    const layers = [zstd(l1)!, zstd(l2)!].map((bytes) => ({ bytes, mediaType: 'application/vnd.oci.image.layer.v1.tar' }));
    const dir = join(work, 'zstd-layout');
    writeLayout(dir, ociMembers(layers, configOf([l1, l2], CONFIG)));
    const img = await importImage(dir, { cacheDir: fresh(), workdir: '/srv/app' });
    expect(tree(img.root)).toEqual([...EXPECTED.filter((l) => l !== 'work/'), 'srv/', 'srv/app/'].sort());
  });

  it('a plain folder without oci-layout is not an image', async () => {
    const dir = join(work, 'plain');
    writeLayout(dir, [['etc/hostname', 'x']]);
    await expect(importImage(dir, { cacheDir: fresh() })).rejects.toMatchObject({ code: 'IMAGE_INVALID', message: expect.stringContaining('without oci-layout') });
  });
});

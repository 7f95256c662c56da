/**
 * Builders of image archives at test time (no registry, no binary fixture):
 * layer tars written with tar-stream's pack, then wrapped as `docker save`
 * (legacy and Docker 25+), an OCI layout folder or an OCI archive.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/** One tar entry to write. */
export interface TarEntry {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'fifo' | 'character-device';
  mode?: number;
  data?: Buffer | string;
  linkname?: string;
  size?: number;
}

export const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** A tar of `entries`, in order. */
export async function tarOf(entries: readonly TarEntry[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on("data", (c: unknown) => chunks.push(c as Buffer));
  const done = new Promise<void>((res, rej) => {
    p.on('end', () => res());
    p.on('error', rej);
  });
  for (const e of entries) {
    const type = e.type ?? 'file';
    const data = type === 'file' ? Buffer.from(e.data ?? '') : undefined;
    await new Promise<void>((res, rej) => {
      const header = { name: e.name, type, mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644), mtime: new Date(1_700_000_000_000), ...(e.linkname ? { linkname: e.linkname } : {}) };
      if (data) p.entry({ ...header, size: data.length }, data, (err) => (err ? rej(err) : res()));
      else p.entry(header, (err) => (err ? rej(err) : res()));
    });
  }
  p.finalize();
  await done;
  return Buffer.concat(chunks);
}

/** The bytes of a tar header declaring `size` bytes for `name`, and no data after it (a sparse-looking bomb). */
export async function headerOnly(name: string, size: number): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  p.on("data", (c: unknown) => chunks.push(c as Buffer));
  p.entry({ name, size, type: 'file', mode: 0o644 });
  await new Promise((r) => setTimeout(r, 20));
  p.destroy();
  return Buffer.concat(chunks);
}

export const gzip = (b: Buffer): Buffer => gzipSync(b);
/** zstd via the `zstd` CLI (Debian package zstd); undefined when it is missing. */
export function zstd(b: Buffer): Buffer | undefined {
  const r = spawnSync('zstd', ['-q', '-c'], { input: b, maxBuffer: 1 << 30 });
  return r.status === 0 ? r.stdout : undefined;
}
export const hasZstd = (): boolean => spawnSync('zstd', ['--version']).status === 0;

/** An image config with `Env`, `WorkingDir`, `User` and the layers' diff_ids. */
export function configOf(uncompressed: readonly Buffer[], c: { Env?: string[]; WorkingDir?: string; User?: string } = {}): Buffer {
  return Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: c, rootfs: { type: 'layers', diff_ids: uncompressed.map((l) => `sha256:${sha256(l)}`) } }));
}

/** A file of an archive to write: its name and bytes. */
type Member = [string, Buffer | string];

/** A legacy `docker save` archive: `<id>/layer.tar`, `<config hex>.json`, `manifest.json`. */
export async function dockerSaveLegacy(layers: readonly Buffer[], config: Buffer): Promise<Buffer> {
  const members: Member[] = [];
  const names = layers.map((l, i) => `${sha256(Buffer.concat([l, Buffer.from([i])]))}/layer.tar`);
  layers.forEach((l, i) => members.push([names[i]!, l]));
  const cfg = `${sha256(config)}.json`;
  members.push([cfg, config]);
  members.push(['manifest.json', JSON.stringify([{ Config: cfg, RepoTags: ['test:latest'], Layers: names }])]);
  return tarOf(members.map(([name, data]) => ({ name, data })));
}

/** The OCI layout files (`oci-layout`, `index.json`, blobs) of one image; `nested` puts an index inside the index. */
export function ociMembers(layers: readonly { bytes: Buffer; mediaType: string }[], config: Buffer, nested = false): Member[] {
  const blob = (b: Buffer | string): [string, Buffer | string] => [`blobs/sha256/${sha256(b)}`, b];
  const desc = (b: Buffer | string, mediaType: string, extra = {}) => ({ mediaType, digest: `sha256:${sha256(b)}`, size: Buffer.byteLength(b), ...extra });
  const manifest = JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: desc(config, 'application/vnd.oci.image.config.v1+json'), layers: layers.map((l) => desc(l.bytes, l.mediaType)) });
  const members: Member[] = [['oci-layout', '{"imageLayoutVersion":"1.0.0"}'], ...layers.map((l) => blob(l.bytes)), blob(config), blob(manifest)];
  let top = [desc(manifest, 'application/vnd.oci.image.manifest.v1+json', { platform: { architecture: 'amd64', os: 'linux' } })];
  if (nested) {
    const other = JSON.stringify({ schemaVersion: 2, config: desc(config, 'x'), layers: [] });
    members.push(blob(other));
    const inner = JSON.stringify({ schemaVersion: 2, manifests: [desc(other, 'application/vnd.oci.image.manifest.v1+json', { platform: { architecture: 'arm64', os: 'linux' } }), ...top] });
    members.push(blob(inner));
    top = [desc(inner, 'application/vnd.oci.image.index.v1+json')];
  }
  members.push(['index.json', JSON.stringify({ schemaVersion: 2, manifests: top })]);
  return members;
}

/** Writes OCI layout members into the folder `dir`. */
export function writeLayout(dir: string, members: readonly Member[]): void {
  for (const [name, data] of members) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), data);
  }
}

/** A tar of archive members (an OCI archive; with `manifest.json` too, a Docker 25+ `docker save`). */
export const archiveOf = (members: readonly Member[]): Promise<Buffer> => tarOf(members.map(([name, data]) => ({ name, data })));

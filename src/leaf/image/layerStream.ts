/**
 * A layer's bytes as an uncompressed tar stream (SPEC §14 "Environments"):
 * compression is told by magic bytes (gzip `1f 8b`, zstd `28 b5 2f fd`, else a
 * plain tar), not by the media type alone; the digest the manifest (or the
 * config's `diff_ids`) gives is checked as the bytes go by.
 * @module
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Decompress } from 'fzstd';
import { type BlobRange, readRange } from './blobStore.js';
import { imageError } from './imageError.js';

/** How a layer's bytes are compressed. */
export type LayerCompression = 'none' | 'gzip' | 'zstd';

/** The digest a layer's bytes must have, and which bytes: as stored, or once decompressed (`diff_ids`). */
export interface LayerDigestCheck {
  /** `sha256:<hex>`. */
  digest: string;
  /** `stored`: the blob as it lies in the source; `uncompressed`: the tar once decompressed. */
  over: 'stored' | 'uncompressed';
}

/** The compression the first bytes show; xz and bzip2 are refused by name. */
export function detectCompression(head: Buffer, where: string): LayerCompression {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'gzip';
  if (head.length >= 4 && head.readUInt32LE(0) === 0xfd2fb528) return 'zstd';
  if (head[0] === 0xfd && head.subarray(1, 6).toString('latin1') === '7zXZ\0') throw imageError(`${where}: xz-compressed layers are not supported (gzip, zstd or none)`);
  if (head.subarray(0, 3).toString('latin1') === 'BZh') throw imageError(`${where}: bzip2-compressed layers are not supported (gzip, zstd or none)`);
  return 'none';
}

/** A pass-through stream that fails at its end when the bytes' sha256 is not `digest`. */
export function digestCheck(digest: string, where: string): Transform {
  const hash = createHash('sha256');
  return new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      hash.update(chunk);
      cb(null, chunk);
    },
    flush(cb: TransformCallback) {
      const got = `sha256:${hash.digest('hex')}`;
      cb(got === digest ? null : imageError(`${where}: digest mismatch: the bytes are ${got}, the manifest says ${digest}`));
    },
  });
}

/** zstd decompression as a stream (fzstd, pure JavaScript); a truncated or corrupt frame fails the stream. */
export function zstdDecompress(where: string): Transform {
  const t: Transform = new Transform({
    transform(chunk: Buffer, _enc, cb: TransformCallback) {
      try {
        d.push(chunk);
        cb();
      } catch (e) {
        cb(imageError(`${where}: corrupt zstd data (${(e as Error).message})`, e));
      }
    },
    flush(cb: TransformCallback) {
      try {
        d.push(new Uint8Array(0), true);
        cb();
      } catch (e) {
        cb(imageError(`${where}: truncated or corrupt zstd data (${(e as Error).message})`, e));
      }
    },
  });
  const d = new Decompress((data) => {
    t.push(Buffer.from(data));
  });
  return t;
}

/** The decompressor for `c` (none: undefined); zlib's errors carry a `Z_*` code (see {@link describeStreamError}). */
function decompressor(c: LayerCompression, where: string): Transform | undefined {
  if (c === 'zstd') return zstdDecompress(where);
  return c === 'gzip' ? createGunzip() : undefined;
}

/** Words for a stream error: zlib's `Z_*` codes as "truncated or corrupt gzip data", tar-stream's as a corrupt tar. */
export function describeStreamError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (typeof err?.code === 'string' && err.code.startsWith('Z_')) return `truncated or corrupt gzip data (${err.message})`;
  const m = e instanceof Error ? e.message : String(e);
  return /Unexpected end of data|Invalid tar header|Invalid header|Header exceeds max size|Stream was destroyed|Premature close/i.test(m) ? `truncated or corrupt tar (${m})` : m;
}

/**
 * The transforms between a layer's stored bytes and its tar: the digest check
 * (before or after decompression) and the decompressor.
 */
export async function layerTransforms(range: BlobRange, check: LayerDigestCheck | undefined, where: string): Promise<Transform[]> {
  const compression = detectCompression(await readRange(range, 8), where);
  const dec = decompressor(compression, where);
  const out: Transform[] = [];
  if (check?.over === 'stored') out.push(digestCheck(check.digest, where));
  if (dec) out.push(dec);
  if (check?.over === 'uncompressed') out.push(digestCheck(check.digest, where));
  return out;
}

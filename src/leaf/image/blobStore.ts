/**
 * Read access to the files of an image source (SPEC §14 "Environments"): an OCI
 * image layout folder, or a tar archive (`docker save`, an OCI archive) read in
 * place by byte ranges, never unpacked to disk.
 * @module
 */
import { open } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { imageError } from './imageError.js';

/** The largest JSON document (manifest, index, config) an image may hold: 16 MiB. */
export const MAX_JSON_BYTES = 16 * 1024 * 1024;

/** Where one member's bytes lie: a file and the range in it. */
export interface BlobRange {
  /** The file holding the bytes (the archive, or the blob file of a layout). */
  file: string;
  /** First byte in `file`. */
  start: number;
  /** Number of bytes. */
  size: number;
}

/** The members of an image source by their path inside it (`index.json`, `blobs/sha256/<hex>`, `<id>/layer.tar`). */
export interface BlobStore {
  /** What the messages call the source: its path. */
  readonly label: string;
  /** The member at `path`, or undefined when there is none. */
  find(path: string): Promise<BlobRange | undefined>;
}

/** The member at `path`, or an `IMAGE_INVALID` naming it and the source. */
export async function requireBlob(store: BlobStore, path: string): Promise<BlobRange> {
  const r = await store.find(path);
  if (!r) throw imageError(`${store.label}: ${path} is missing`);
  return r;
}

/** The whole bytes of a member (at most `max`, else `IMAGE_INVALID`). */
export async function readBlob(store: BlobStore, path: string, max = MAX_JSON_BYTES): Promise<Buffer> {
  const r = await requireBlob(store, path);
  if (r.size > max) throw imageError(`${store.label}: ${path} is ${r.size} bytes, more than the ${max} a manifest or config may have`);
  return readRange(r, r.size);
}

/** The first `n` bytes of a range (fewer when it is shorter). */
export async function readRange(r: BlobRange, n: number): Promise<Buffer> {
  const len = Math.min(n, r.size);
  const buf = Buffer.alloc(len);
  const fh = await open(r.file, 'r');
  try {
    let done = 0;
    while (done < len) {
      const { bytesRead } = await fh.read(buf, done, len - done, r.start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done === len ? buf : buf.subarray(0, done);
  } finally {
    await fh.close();
  }
}

/** A member parsed as JSON (`IMAGE_INVALID` naming it when it is not). */
export async function readJson(store: BlobStore, path: string): Promise<{ bytes: Buffer; value: unknown }> {
  const bytes = await readBlob(store, path);
  try {
    return { bytes, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch (e) {
    throw imageError(`${store.label}: ${path} is not valid JSON (${(e as Error).message})`, e);
  }
}

/** A stream of a range's bytes. */
export function openRange(r: BlobRange): Readable {
  if (r.size === 0) return Readable.from([]);
  return createReadStream(r.file, { start: r.start, end: r.start + r.size - 1, highWaterMark: 1 << 20 });
}

import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, integerAtLeast } from '../errors/validate.js';

/** The first line of every checkpoint file. */
export interface CheckpointHeader {
  /** Always `'frognano-checkpoint'`. */
  format: 'frognano-checkpoint';
  /** Format version (currently 1). */
  version: number;
  /** Byte length of the payload that follows the header line. */
  bytes: number;
  /** Hex sha256 of the payload bytes. */
  sha256: string;
}

/** The checkpoint format this library writes and reads. */
export const CHECKPOINT_FORMAT_VERSION = 1;

/**
 * Writes a checkpoint atomically: the header line
 * `{"format":"frognano-checkpoint","version":1,"bytes":N,"sha256":"..."}` then
 * the payload as JSON, into `path.tmp-<pid>`, `fsync`, then `rename` over
 * `path` (and an `fsync` of the directory where the platform allows it). A
 * crash at any moment leaves either the old checkpoint or the new one, never a
 * mix; a torn copy made some other way is caught by the length and checksum.
 * Node only (`node:fs`).
 *
 * @param payload - any JSON-serialisable value (use {@link encodeFloat32} for weights)
 * @example saveCheckpoint('run/ckpt.json', { step: 10, weights: weights.map(encodeFloat32) });
 */
export function saveCheckpoint(path: string, payload: unknown): void {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  const header: CheckpointHeader = {
    format: 'frognano-checkpoint',
    version: CHECKPOINT_FORMAT_VERSION,
    bytes: body.length,
    sha256: createHash('sha256').update(body).digest('hex'),
  };
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(header)}\n`);
    writeSync(fd, body);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
  try {
    const dfd = openSync(dirname(path), 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // Directory fsync is not available everywhere (e.g. Windows); the rename is still atomic.
  }
}

/**
 * Reads a checkpoint written by {@link saveCheckpoint} and returns its payload,
 * after checking the header, the payload length and the sha256.
 *
 * @throws FrognanoError `CHECKPOINT_INVALID` naming the file and what is wrong:
 *   unreadable, no header line, another format or version, truncated (fewer
 *   bytes than the header says), trailing bytes, checksum mismatch (corrupt), payload not JSON
 * @example const payload = loadCheckpoint('run/ckpt.json');
 */
export function loadCheckpoint(path: string): unknown {
  const fn = 'loadCheckpoint';
  const bad = (why: string): FrognanoError =>
    new FrognanoError(ErrorCode.CHECKPOINT_INVALID, `${path}: ${why}`, { fn, field: 'path' });
  let raw: Buffer;
  try {
    raw = readFileSync(path);
  } catch (e) {
    throw bad(`cannot be read (${(e as Error).message.split('\n')[0]})`);
  }
  const nl = raw.indexOf(0x0a);
  if (nl < 0) throw bad('no header line: not a frognano checkpoint, or truncated inside the header');
  let header: Partial<CheckpointHeader>;
  try {
    header = JSON.parse(raw.subarray(0, nl).toString('utf8')) as Partial<CheckpointHeader>;
  } catch {
    throw bad('the header line is not JSON: not a frognano checkpoint');
  }
  if (header?.format !== 'frognano-checkpoint') throw bad(`format is ${JSON.stringify(header?.format)}, expected "frognano-checkpoint"`);
  if (header.version !== CHECKPOINT_FORMAT_VERSION) {
    throw bad(`format version ${String(header.version)} is not supported (this library reads version ${CHECKPOINT_FORMAT_VERSION})`);
  }
  if (!Number.isInteger(header.bytes) || typeof header.sha256 !== 'string') throw bad('the header lacks bytes or sha256');
  const body = raw.subarray(nl + 1);
  if (body.length < header.bytes!) throw bad(`truncated: the payload has ${body.length} of ${header.bytes} bytes`);
  if (body.length > header.bytes!) throw bad(`${body.length - header.bytes!} unexpected bytes after the payload`);
  const sha = createHash('sha256').update(body).digest('hex');
  if (sha !== header.sha256) throw bad(`corrupt: sha256 of the payload is ${sha}, the header says ${header.sha256}`);
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw bad('the payload is not JSON');
  }
}

/**
 * A float32 array as base64 of its little-endian bytes (exact, compact; every bit
 * pattern, NaN included, survives {@link decodeFloat32}).
 *
 * @throws FrognanoError `INVALID_TYPE` when `values` is not a `Float32Array`
 * @example decodeFloat32(encodeFloat32(new Float32Array([0.1]))) // Float32Array [0.1]
 */
export function encodeFloat32(values: Float32Array): string {
  if (!(values instanceof Float32Array)) {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `values must be a Float32Array, got ${describeValue(values)}`, { fn: 'encodeFloat32', field: 'values' });
  }
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
}

/**
 * The inverse of {@link encodeFloat32}.
 *
 * @param b64 - the base64 text (its length bounds the work: nothing larger than it is allocated)
 * @param expectedLength - the number of floats it must hold, an integer >= 0 (optional)
 * @param field - the name used in error messages (default `'weights'`)
 * @throws FrognanoError `INVALID_TYPE` (`b64` or `field` not a string), `OUT_OF_RANGE` / `NON_FINITE`
 *   (`expectedLength` not an integer >= 0); `CHECKPOINT_INVALID` when the byte length is not a multiple
 *   of 4 (or not `4 * expectedLength`)
 * @example decodeFloat32(saved.weights[0], policy.variables[0].size)
 */
export function decodeFloat32(b64: string, expectedLength?: number, field = 'weights'): Float32Array {
  const fn = 'decodeFloat32';
  if (typeof field !== 'string') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `field must be a string, got ${describeValue(field)}`, { fn, field: 'field' });
  }
  if (typeof b64 !== 'string') {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${field} must be a base64 string, got ${describeValue(b64)}`, { fn, field });
  }
  if (expectedLength !== undefined) integerAtLeast(fn, 'expectedLength', expectedLength, 0);
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length % 4 !== 0 || (expectedLength !== undefined && bytes.length !== 4 * expectedLength)) {
    throw new FrognanoError(
      ErrorCode.CHECKPOINT_INVALID,
      `${field} holds ${bytes.length} bytes, expected ${expectedLength === undefined ? 'a multiple of 4' : 4 * expectedLength}`,
      { fn, field },
    );
  }
  const out = new Float32Array(bytes.length / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectFrognanoError } from '../../test/helpers/expectError.js';
import { decodeFloat32, encodeFloat32, loadCheckpoint, saveCheckpoint } from './checkpoint.js';

const dir = mkdtempSync(join(tmpdir(), 'frognano-ckpt-'));

describe('checkpoints', () => {
  it('round-trip a payload, weights bit for bit', () => {
    const w = new Float32Array([0.1, -2.5e-8, 3.4028234663852886e38, Number.NaN, -0]);
    const path = join(dir, 'a.ckpt');
    saveCheckpoint(path, { step: 3, weights: [encodeFloat32(w)], nested: { x: [1, 2] } });
    const back = loadCheckpoint(path) as { step: number; weights: string[]; nested: unknown };
    expect(back.step).toBe(3);
    expect(back.nested).toEqual({ x: [1, 2] });
    const w2 = decodeFloat32(back.weights[0]!, 5);
    expect(new Uint8Array(w2.buffer)).toEqual(new Uint8Array(w.buffer));
    // written atomically: no temporary file is left behind
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
  it('float32 arrays survive encoding (property)', () => {
    fc.assert(
      fc.property(fc.float32Array({ maxLength: 50 }), (xs) => {
        expect(new Uint8Array(decodeFloat32(encodeFloat32(xs)).buffer)).toEqual(new Uint8Array(xs.buffer, xs.byteOffset, xs.byteLength));
      }),
    );
  });
  it('overwrites an existing checkpoint', () => {
    const path = join(dir, 'b.ckpt');
    saveCheckpoint(path, { v: 1 });
    saveCheckpoint(path, { v: 2 });
    expect(loadCheckpoint(path)).toEqual({ v: 2 });
  });
  it('refuses a truncated checkpoint', () => {
    const path = join(dir, 'c.ckpt');
    saveCheckpoint(path, { weights: [encodeFloat32(new Float32Array(100))] });
    const raw = readFileSync(path);
    writeFileSync(path, raw.subarray(0, raw.length - 10));
    expectFrognanoError(() => loadCheckpoint(path), 'CHECKPOINT_INVALID', 'c.ckpt', 'truncated');
  });
  it('refuses a corrupt checkpoint (one byte flipped)', () => {
    const path = join(dir, 'd.ckpt');
    saveCheckpoint(path, { weights: [encodeFloat32(new Float32Array([1, 2, 3]))] });
    const raw = Buffer.from(readFileSync(path));
    raw[raw.length - 5] = raw[raw.length - 5]! ^ 0x01;
    writeFileSync(path, raw);
    expectFrognanoError(() => loadCheckpoint(path), 'CHECKPOINT_INVALID', 'corrupt', 'sha256');
  });
  it('refuses a file cut inside the header', () => {
    const path = join(dir, 'e.ckpt');
    writeFileSync(path, '{"format":"frognano-chec');
    expectFrognanoError(() => loadCheckpoint(path), 'CHECKPOINT_INVALID', 'no header line');
  });
  it('refuses another format and another version', () => {
    const path = join(dir, 'f.ckpt');
    writeFileSync(path, '{"format":"other"}\n{}');
    expectFrognanoError(() => loadCheckpoint(path), 'CHECKPOINT_INVALID', 'format');
    writeFileSync(path, '{"format":"frognano-checkpoint","version":99,"bytes":2,"sha256":"x"}\n{}');
    expectFrognanoError(() => loadCheckpoint(path), 'CHECKPOINT_INVALID', 'version 99');
  });
  it('refuses extra bytes after the payload', () => {
    const path = join(dir, 'g.ckpt');
    saveCheckpoint(path, { a: 1 });
    writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.from('xx')]));
    expectFrognanoError(() => loadCheckpoint(path), 'CHECKPOINT_INVALID', 'unexpected bytes');
  });
  it('refuses a missing file', () => expectFrognanoError(() => loadCheckpoint(join(dir, 'none.ckpt')), 'CHECKPOINT_INVALID', 'cannot be read'));
  it('refuses weights of the wrong size', () => expectFrognanoError(() => decodeFloat32(encodeFloat32(new Float32Array(3)), 4, 'weights[2]'), 'CHECKPOINT_INVALID', 'weights[2]'));
});

/** Issue 12 (fuzz): the float32 codec checks its argument types before touching them. */
describe('encodeFloat32 / decodeFloat32: bad arguments', () => {
  it('encodeFloat32(null) is INVALID_TYPE', () => expect(expectFrognanoError(() => encodeFloat32(null as never), 'INVALID_TYPE', 'Float32Array').field).toBe('values'));
  it('encodeFloat32 of a plain array is INVALID_TYPE', () => expect(expectFrognanoError(() => encodeFloat32([1, 2] as never), 'INVALID_TYPE').field).toBe('values'));
  it('encodeFloat32 of a Float64Array is INVALID_TYPE', () => expect(expectFrognanoError(() => encodeFloat32(new Float64Array(2) as never), 'INVALID_TYPE').field).toBe('values'));
  it('decodeFloat32({ length: 1e9 }) is INVALID_TYPE at once', () => {
    const e = expectFrognanoError(() => decodeFloat32({ length: 1e9 } as never), 'INVALID_TYPE', 'base64 string');
    expect(e.field).toBe('weights');
  });
  it('decodeFloat32 names the given field', () => expect(expectFrognanoError(() => decodeFloat32(5 as never, 1, 'optimizer.m[2]'), 'INVALID_TYPE').field).toBe('optimizer.m[2]'));
  it('decodeFloat32 refuses a fractional expectedLength', () =>
    expect(expectFrognanoError(() => decodeFloat32(encodeFloat32(new Float32Array(2)), 1.5), 'OUT_OF_RANGE').field).toBe('expectedLength'));
  it('decodeFloat32 refuses a NaN expectedLength', () =>
    expect(expectFrognanoError(() => decodeFloat32(encodeFloat32(new Float32Array(2)), NaN), 'NON_FINITE').field).toBe('expectedLength'));
  it('decodeFloat32 refuses a non-string field name', () =>
    expect(expectFrognanoError(() => decodeFloat32('', 0, Symbol('x') as never), 'INVALID_TYPE').field).toBe('field'));
});

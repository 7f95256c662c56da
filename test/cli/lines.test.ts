/**
 * The line reader (src/cli/jsonl.ts): linear in the input, a `--max-line`
 * limit (default 64 MiB) past which a line is invalid input and is no longer
 * buffered, and strict UTF-8: a line that is not valid UTF-8 is invalid input
 * naming the line, never silently U+FFFD.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_LINE_BYTES, invalidUtf8At, MAX_LINE_LIMIT, readLines, readRecords } from '../../src/cli/jsonl.js';
import { RecordError } from '../../src/commands/index.js';
import { jsonLines, rng, runFrognano, runInProcess } from './helpers.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** A stream that delivers exactly `chunks`, one by one. */
function stream(chunks: readonly (Buffer | string)[]): Readable {
  return Readable.from(chunks, { objectMode: true });
}

/** `total` bytes of `byte`, in chunks of `size`, without a newline; then `tail`. */
async function* filler(total: number, size: number, byte = 0x61, tail?: Buffer): AsyncGenerator<Buffer> {
  const chunk = Buffer.alloc(size, byte);
  for (let sent = 0; sent < total; sent += size) yield sent + size <= total ? chunk : chunk.subarray(0, total - sent);
  if (tail) yield tail;
}

const MiB = 1024 * 1024;

describe('--max-line: a line past the limit is invalid input, read in linear time', () => {
  it('the default is 64 MiB', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(64 * MiB);
  });

  it('a 20 MB single line with --max-line 1MiB: exit 1 naming line 1, its length and the flag (spawned, piped in 64 KiB chunks)', async () => {
    const long = `{"rewards":[${'1,'.repeat(10 * 1000 * 1000)}1]}`;
    const r = await runFrognano(['advantages', '--max-line', '1MiB'], `${long}\n{"rewards":[1,0]}\n`, 60_000);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`frognano advantages: line 1: the line is ${long.length} bytes, longer than --max-line 1048576`);
    expect(r.stderr).toContain('--max-line 20MiB would read it [LINE_TOO_LONG]');
  }, 60_000);

  it('with --skip-invalid the long line is skipped and reading resumes at the next line', async () => {
    const long = `{"rewards":[${'0,'.repeat(3 * MiB)}1]}`;
    const r = await runInProcess(['advantages', '--max-line', '1MiB', '--skip-invalid'], `{"id":1,"rewards":[1,0]}\n${long}\n{"id":3,"rewards":[0,1]}\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((o) => (o as { id: number }).id)).toEqual([1, 3]);
    expect(r.stderr).toContain('skipped line 2: the line is');
    expect(r.stderr).toContain('3 record(s) read, 2 written, 1 invalid skipped');
  });

  it('lines right at the limit pass, one byte more does not (\\n and \\r\\n are not counted)', async () => {
    const rec = '{"id":"x","rewards":[1,0]}';
    const max = String(Buffer.byteLength(rec));
    const at = await runInProcess(['advantages', '--max-line', max], `${rec}\n${rec}\r\n${rec}`);
    expect(at.code, at.stderr).toBe(0);
    expect(jsonLines(at.stdout)).toHaveLength(3);
    const over = await runInProcess(['advantages', '--max-line', String(Number(max) - 1)], `${rec}\n`);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain(`line 1: the line is ${max} bytes, longer than --max-line ${Number(max) - 1}`);
    // a multi-byte character counts its bytes
    const e = '{"id":"é","rewards":[1,0]}';
    expect((await runInProcess(['advantages', '--max-line', String(Buffer.byteLength(e))], `${e}\n`)).code).toBe(0);
    expect((await runInProcess(['advantages', '--max-line', String(Buffer.byteLength(e) - 1)], `${e}\n`)).code).toBe(1);
  });

  it('at the limit whatever the chunking: split in every place, the line at the limit passes and the longer one fails', async () => {
    const a = Buffer.from('{"a":"12345"}'); // 13 bytes
    const b = Buffer.from('{"a":"123456"}'); // 14 bytes
    const bytes = Buffer.concat([a, Buffer.from('\r\n'), b, Buffer.from('\n'), a]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const items = await collect(readRecords(stream([bytes.subarray(0, cut), bytes.subarray(cut)]), 'jsonl', { maxLineBytes: 13 }));
      expect(items.map((i) => (i.error ? `${i.where} ${i.error.code}` : JSON.stringify(i.value))), `cut ${cut}`).toEqual([
        '{"a":"12345"}',
        'line 2 LINE_TOO_LONG',
        '{"a":"12345"}',
      ]);
      expect(items[1]!.error!.message).toContain('the line is 14 bytes');
    }
  });

  it('50 MB without a newline, fed in 64 KiB chunks, is read once (linear): one INVALID_JSON line with the default limit', async () => {
    const items = await collect(readRecords(filler(50 * 1000 * 1000, 64 * 1024)));
    expect(items).toHaveLength(1);
    expect(items[0]!.where).toBe('line 1');
    expect(items[0]!.error!.code).toBe('INVALID_JSON');
  }, 5_000); // vitest's default timeout (this project's default is 30 s); the quadratic reader took 22 s here

  it('100 MB without a newline, past the default limit: LINE_TOO_LONG with the exact length, then the next line', async () => {
    const total = 100 * 1000 * 1000;
    const items = await collect(readRecords(filler(total, 64 * 1024, 0x61, Buffer.from('\n{"ok":1}\n'))));
    expect(items.map((i) => i.where)).toEqual(['line 1', 'line 2']);
    expect(items[0]!.error!.code).toBe('LINE_TOO_LONG');
    expect(items[0]!.error!.message).toContain(`the line is ${total} bytes, longer than --max-line ${64 * MiB}`);
    expect(items[1]!.value).toEqual({ ok: 1 });
  }, 5_000);

  it('readLines throws a RecordError naming the line', async () => {
    const err = await collect(readLines(stream(['ok\n', 'x'.repeat(20), '\n']), { maxLineBytes: 10 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordError);
    expect((err as RecordError).where).toBe('line 2');
    expect((err as RecordError).code).toBe('LINE_TOO_LONG');
  });

  it('--max-line must be a size: bad usage (exit 2)', async () => {
    for (const v of ['0', '-5', 'lots', '0x100', '1e6']) {
      const r = await runInProcess(['advantages', `--max-line=${v}`], '{"rewards":[1,0]}\n');
      expect(r.code, v).toBe(2);
      expect(r.stderr).toContain('--max-line must be a size');
    }
    // above the longest string V8 can make (about 512 MiB), a line could not be parsed anyway
    const big = await runInProcess(['advantages', '--max-line', '1GiB'], '{"rewards":[1,0]}\n');
    expect(big.code).toBe(2);
    expect(big.stderr).toContain(`--max-line must be at most ${MAX_LINE_LIMIT} bytes`);
    expect((await runInProcess(['advantages', '--max-line', '256MiB'], '{"rewards":[1,0]}\n')).code).toBe(0);
  });

  it('a JSON document is limited per line too: a one-line array past the limit names the flag', async () => {
    const r = await runInProcess(['pass-at-k', '--k', '1', '--max-line', '64'], `[${'{"n":2,"c":1},'.repeat(10)}{"n":2,"c":1}]\n`);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('line 1: the line is');
    expect(r.stderr).toContain('--max-line');
    // a pretty-printed document with short lines is fine
    const pretty = JSON.stringify(Array.from({ length: 10 }, () => ({ n: 2, c: 1 })), null, 1);
    expect((await runInProcess(['pass-at-k', '--k', '1', '--max-line', '64'], pretty)).code).toBe(0);
  });
});

describe('strict UTF-8: a line that is not UTF-8 is invalid input naming the line', () => {
  const line = (...parts: (string | number[])[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  it('a raw 0xFF inside an id: exit 1, "line 2: not valid UTF-8", nothing becomes U+FFFD', async () => {
    const bytes = line('{"id":"ok","n":2,"c":1}\n', '{"id":"a', [0xff], 'b","n":2,"c":1}\n', '{"id":"z","n":2,"c":1}\n');
    const r = await runFrognano(['pass-at-k', '--k', '1'], bytes);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('frognano pass-at-k: line 2: not valid UTF-8 (byte 0xFF at byte 9 of the line) [INVALID_JSON]');
    expect(jsonLines(r.stdout)).toEqual([{ id: 'ok', n: 2, c: 1, k: 1, passAtK: 0.5 }]);
    expect(r.stdout).not.toContain('\uFFFD');
  });

  it('with --skip-invalid the line is skipped and counted', async () => {
    const bad = line('{"id":"a', [0xff], '","n":2,"c":1}\n{"id":"b","n":2,"c":1}\n');
    const r = await runInProcess(['pass-at-k', '--k', '1', '--skip-invalid'], bad);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([{ id: 'b', n: 2, c: 1, k: 1, passAtK: 0.5 }]);
    expect(r.stderr).toContain('skipped line 1: not valid UTF-8');
    const items = await collect(readRecords(stream([bad])));
    expect(items[0]!.error?.code).toBe('INVALID_JSON');
    expect(items[0]!.where).toBe('line 1');
    expect(items[1]!.value).toEqual({ id: 'b', n: 2, c: 1 });
  });

  it('overlong forms, surrogates, code points past U+10FFFF, stray continuation bytes and truncated sequences are refused', async () => {
    const bad: number[][] = [[0xc0, 0x80], [0xc1, 0xbf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98]];
    for (const b of bad) {
      for (const tail of ['"}\n', '']) {
        // '' puts the broken sequence at the very end of the stream
        const items = await collect(readRecords(stream([line('{"id":"', b, tail)]), 'jsonl'));
        expect(items, `${b.map((x) => x.toString(16)).join(' ')} ${JSON.stringify(tail)}`).toHaveLength(1);
        expect(items[0]!.error?.message).toMatch(/^not valid UTF-8/);
      }
    }
  });

  it('multi-byte characters split across chunks at every byte are read whole', async () => {
    const text = '{"id":"é€😀\uFEFF","s":"ü"}\n{"id":"😀"}\r\n';
    const bytes = Buffer.from(text);
    for (let i = 1; i < bytes.length; i++) {
      for (const j of [i + 1, i + 2, bytes.length]) {
        if (j > bytes.length) continue;
        const chunks = [bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)];
        expect(await collect(readLines(stream(chunks))), `cuts ${i},${j}`).toEqual(['{"id":"é€😀\uFEFF","s":"ü"}', '{"id":"😀"}']);
      }
    }
  });

  it('invalidUtf8At agrees with a fatal TextDecoder on random bytes', () => {
    const rand = rng(12);
    const strict = new TextDecoder('utf-8', { fatal: true });
    const pick = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff];
    for (let t = 0; t < 20000; t++) {
      const len = 1 + Math.floor(rand() * 6);
      const b = Uint8Array.from({ length: len }, () => pick[Math.floor(rand() * pick.length)]!);
      let ok = true;
      try {
        strict.decode(b);
      } catch {
        ok = false;
      }
      expect(invalidUtf8At(b) === -1, Buffer.from(b).toString('hex')).toBe(ok);
    }
    expect(invalidUtf8At(Buffer.from('abc\xff', 'latin1'))).toBe(3);
    expect(invalidUtf8At(Buffer.from('é😀'))).toBe(-1);
  });
});

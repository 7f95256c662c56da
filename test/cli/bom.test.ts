/**
 * A UTF-8 byte order mark (EF BB BF, U+FEFF) at the very start of the input,
 * as Windows editors write it, is read as if it were absent: for every record
 * subcommand, from stdin and from --in FILE, also when the stream splits its
 * three bytes across chunks. A U+FEFF anywhere else is data.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { RECORD_COMMANDS } from '../../src/commands/index.js';
import { readLines, readRecords } from '../../src/cli/jsonl.js';
import { jsonLines, runFrognano, runInProcess } from './helpers.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const dir = mkdtempSync(join(tmpdir(), 'frognano-bom-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** `bytes` cut into chunks at the given offsets. */
function chunked(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [0, ...cuts, bytes.length];
  return at.slice(1).map((end, i) => bytes.subarray(at[i], end));
}

/** A stream that delivers exactly `chunks`, one by one. */
function stream<T extends Buffer | string>(chunks: readonly T[]): Readable {
  return Readable.from(chunks, { objectMode: true });
}

class Collector extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.text += chunk.toString();
    cb();
  }
}

/** Runs the CLI in-process with stdin delivering exactly `chunks`. */
async function runChunks(args: readonly string[], chunks: readonly Buffer[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Collector();
  const stderr = new Collector();
  const code = await runCli(args, { stdin: stream(chunks), stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe('readLines: the BOM at the start of the stream', () => {
  const body = Buffer.from('{"n":2,"c":1}\n{"n":3,"c":0}\n');

  it('is dropped in one chunk, split EF | BB BF, split EF BB | BF, and byte by byte', async () => {
    const bytes = Buffer.concat([BOM, body]);
    for (const cuts of [[], [1], [2], [3], [1, 2], Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)]) {
      expect(await collect(readLines(stream(chunked(bytes, cuts)))), `cuts ${cuts.join(',')}`).toEqual(['{"n":2,"c":1}', '{"n":3,"c":0}']);
    }
  });

  it('is dropped from string chunks too, after empty chunks', async () => {
    expect(await collect(readLines(stream(['', '\uFEFF{"a":1}\n'])))).toEqual(['{"a":1}']);
    expect(await collect(readLines(stream([Buffer.alloc(0), BOM, body])))).toEqual(['{"n":2,"c":1}', '{"n":3,"c":0}']);
  });

  it('only once, and only at the start: U+FEFF elsewhere is data', async () => {
    expect(await collect(readLines(stream([Buffer.concat([BOM, BOM, Buffer.from('x\n')])])))).toEqual(['\uFEFFx']);
    expect(await collect(readLines(stream([Buffer.from('a\n\uFEFFb\nc\uFEFF\n')])))).toEqual(['a', '\uFEFFb', 'c\uFEFF']);
    expect(await collect(readLines(stream([Buffer.from('a'), BOM, Buffer.from('\n')])))).toEqual(['a\uFEFF']);
  });

  it('a BOM alone is an empty input', async () => {
    expect(await collect(readLines(stream([BOM])))).toEqual([]);
    expect(await collect(readRecords(stream([BOM])))).toEqual([]);
  });

  it('auto-detection sees the document after the BOM: a JSON array, a pretty-printed object', async () => {
    const arr = await collect(readRecords(stream([BOM, Buffer.from('[{"a":1},\n{"a":2}]')])));
    expect(arr).toEqual([
      { where: 'record 1', value: { a: 1 } },
      { where: 'record 2', value: { a: 2 } },
    ]);
    const obj = await collect(readRecords(stream([Buffer.concat([BOM, Buffer.from('{\n  "a": 1\n}\n')])])));
    expect(obj).toEqual([{ where: 'record 1', value: { a: 1 } }]);
  });
});

describe('every record subcommand reads input that starts with a BOM', () => {
  for (const cmd of RECORD_COMMANDS) {
    it(`${cmd.name}: its help example with a BOM, from stdin (split EF | BB BF) and from --in FILE, as without it`, async () => {
      for (const [i, ex] of cmd.examples.entries()) {
        const argv = ex.command.split(' ').slice(1);
        const plain = await runInProcess(argv, `${ex.input}\n`);
        expect(plain.stderr).toBe('');
        expect(plain.code).toBe(0);
        expect(jsonLines(plain.stdout)).toEqual(jsonLines(ex.output));
        const bytes = Buffer.concat([BOM, Buffer.from(`${ex.input}\n`)]);
        const stdin = await runChunks(argv, chunked(bytes, [1]));
        expect(stdin).toEqual({ code: 0, stdout: plain.stdout, stderr: '' });
        const file = join(dir, `${cmd.name}-${i}.jsonl`);
        writeFileSync(file, bytes);
        const fromFile = await runInProcess([...argv, '--in', file]);
        expect(fromFile).toEqual({ ...plain, signal: null });
      }
    });
  }

  it('a U+FEFF inside a value is kept; at the start of a later line it is not JSON (exit 1, line 2)', async () => {
    const kept = await runInProcess(['pass-at-k', '--k', '1'], '\uFEFF{"id":"\uFEFFa","n":2,"c":1}\n');
    expect(kept.code).toBe(0);
    expect(jsonLines(kept.stdout)).toEqual([{ id: '\uFEFFa', n: 2, c: 1, k: 1, passAtK: 0.5 }]);
    const later = await runInProcess(['pass-at-k', '--k', '1'], '\uFEFF{"n":2,"c":1}\n\uFEFF{"n":2,"c":1}\n');
    expect(later.code).toBe(1);
    expect(later.stderr).toContain('line 2: not valid JSON');
    expect(jsonLines(later.stdout)).toHaveLength(1);
  });
});

describe.concurrent('the spawned binary with a BOM', () => {
  const input = Buffer.concat([BOM, Buffer.from('{"rewards":[1,0,0,1]}\r\n{"rewards":[2,2]}\r\n')]);
  const expected = [
    { advantages: [1, -1, -1, 1], kept: true },
    { advantages: [0, 0], kept: false },
  ];

  it('--in FILE (a Windows-style file: BOM and CRLF)', async () => {
    const file = join(dir, 'windows.jsonl');
    writeFileSync(file, input);
    const res = await runFrognano(['advantages', '--std', 'population', '--eps', '0', '--in', file]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(jsonLines(res.stdout)).toEqual(expected);
  });

  it('stdin', async () => {
    // runFrognano writes its string as UTF-8: the child reads EF BB BF first
    const res = await runFrognano(['advantages', '--std', 'population', '--eps', '0'], input.toString('utf8'));
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(jsonLines(res.stdout)).toEqual(expected);
  });
});

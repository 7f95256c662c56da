import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { RecordError } from './record.js';
import { stringifyWire } from '../wire/index.js';

/**
 * Streaming input and output of records.
 *
 * Input is JSONL (one JSON value per line; blank lines are skipped) or one JSON
 * document (an array of records, or a single record, possibly spread over many
 * lines). JSONL is read line by line, so memory stays flat in the number of
 * lines; a JSON document is parsed whole. Output is always JSONL.
 */

/** `jsonl`: one record per line. `json`: one JSON document (array or object). `auto`: decide from the first line. */
export type InputFormat = 'auto' | 'jsonl' | 'json';

/** One input record, or the reason it could not be read. `where` is `line N` (JSONL) or `record N` (JSON array). */
export type InputItem = { where: string; value: unknown; error?: undefined } | { where: string; value?: undefined; error: RecordError };

/** U+FEFF, the byte order mark: UTF-8 `EF BB BF`, which Windows editors put at the start of a file. */
const BOM = '\uFEFF';

/**
 * Splits a byte or string stream into lines (without the trailing `\n` / `\r\n`).
 *
 * Bytes are decoded as UTF-8 with `StringDecoder`, which keeps a character
 * split across chunks (the BOM `EF | BB BF` included) for the next chunk and
 * never drops a BOM itself. One U+FEFF at the very start of the stream is
 * dropped here, explicitly; a U+FEFF anywhere else is data.
 */
export async function* readLines(source: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let atStart = true;
  for await (const chunk of source) {
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (text.length === 0) continue;
    if (atStart) {
      atStart = false;
      if (text.startsWith(BOM)) text = text.slice(BOM.length);
    }
    const buf = rest.length ? rest + text : text;
    let start = 0;
    let nl = buf.indexOf('\n', start);
    while (nl !== -1) {
      const end = nl > start && buf.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      yield buf.slice(start, end);
      start = nl + 1;
      nl = buf.indexOf('\n', start);
    }
    rest = buf.slice(start);
  }
  rest += decoder.end();
  if (rest.length > 0) yield rest.endsWith('\r') ? rest.slice(0, -1) : rest;
}

function isBlank(s: string): boolean {
  return s.trim().length === 0;
}

function jsonError(e: unknown): RecordError {
  const msg = e instanceof Error ? e.message : String(e);
  return new RecordError('INVALID_JSON', `not valid JSON: ${msg}`);
}

function* documentRecords(text: string, firstLineError: RecordError | undefined): Generator<InputItem> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // Neither JSONL nor one JSON document: report the JSONL reading of line 1, the likelier intent.
    yield { where: 'line 1', error: firstLineError ?? jsonError(e) };
    return;
  }
  if (Array.isArray(doc)) {
    for (let i = 0; i < doc.length; i++) yield { where: `record ${i + 1}`, value: doc[i] };
  } else {
    yield { where: 'record 1', value: doc };
  }
}

/**
 * Reads records from `source`.
 * - `jsonl`: every non-blank line is one record; a line that is not JSON gives an `INVALID_JSON` item.
 * - `json`: the whole input is one JSON document: an array (one record per element) or one record.
 * - `auto` (default): JSON when the first non-blank line starts with `[`, or starts with `{` and
 *   is not JSON on its own (a pretty-printed object); JSONL otherwise.
 */
export async function* readRecords(source: AsyncIterable<Buffer | string>, format: InputFormat = 'auto'): AsyncGenerator<InputItem> {
  const lines = readLines(source);
  let lineNo = 0;
  let mode: 'jsonl' | 'json' | undefined = format === 'auto' ? undefined : format;
  const held: string[] = [];
  let firstLineError: RecordError | undefined;

  for await (const line of lines) {
    lineNo++;
    if (mode === 'json') {
      held.push(line);
      continue;
    }
    if (isBlank(line)) {
      if (mode === undefined) held.push(line);
      continue;
    }
    if (mode === undefined) {
      const t = line.trimStart();
      if (t.startsWith('[')) {
        mode = 'json';
        held.push(line);
        continue;
      }
      try {
        const value: unknown = JSON.parse(line);
        mode = 'jsonl';
        held.length = 0;
        yield { where: `line ${lineNo}`, value };
      } catch (e) {
        if (t.startsWith('{')) {
          mode = 'json';
          firstLineError = jsonError(e);
          held.push(line);
        } else {
          mode = 'jsonl';
          held.length = 0;
          yield { where: `line ${lineNo}`, error: jsonError(e) };
        }
      }
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      yield { where: `line ${lineNo}`, error: jsonError(e) };
      continue;
    }
    yield { where: `line ${lineNo}`, value };
  }
  if (mode === 'json') {
    const text = held.join('\n');
    if (isBlank(text)) return;
    yield* documentRecords(text, firstLineError);
  }
}

/**
 * Writes records as JSONL with batching (one `write` per ~64 KiB) and
 * backpressure: `write` waits for `drain` when the destination is full, so a
 * slow consumer slows the reader down instead of growing memory.
 */
export class RecordWriter {
  private buf = '';
  private readonly out: Writable;
  private readonly batchBytes: number;
  /** Records written so far. */
  count = 0;

  constructor(out: Writable, batchBytes = 1 << 16) {
    this.out = out;
    this.batchBytes = batchBytes;
  }

  /** Queues one record; resolves once it is buffered (after a drain when needed). */
  async write(record: unknown): Promise<void> {
    this.buf += stringifyWire(record) + '\n';
    this.count++;
    if (this.buf.length >= this.batchBytes) await this.flush();
  }

  /** Writes what is buffered; waits for `drain` if the destination asks for it. */
  async flush(): Promise<void> {
    if (this.buf.length === 0) return;
    const chunk = this.buf;
    this.buf = '';
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }
}

import { constants } from 'node:buffer';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { RecordError } from '../commands/index.js';
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

/** The UTF-8 byte order mark `EF BB BF` (U+FEFF), which Windows editors put at the start of a file. */
const BOM_BYTES = Buffer.from([0xef, 0xbb, 0xbf]);

/** The default longest line, 64 MiB (`--max-line`): far above any real record, far below what exhausts memory. */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** The largest `--max-line`: the longest string V8 makes (about 512 MiB); a longer line could not be parsed anyway. */
export const MAX_LINE_LIMIT = constants.MAX_STRING_LENGTH;

/** Options of {@link readLines} and {@link readRecords}. */
export interface ReadOptions {
  /** The longest line in bytes, without its `\n` / `\r\n` (default {@link DEFAULT_MAX_LINE_BYTES}). */
  maxLineBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * The offset of the first byte of `b` that does not start a well-formed UTF-8
 * sequence (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF, no truncated sequence), or -1 when `b` is valid UTF-8.
 */
export function invalidUtf8At(b: Uint8Array): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    if (i + need >= n) return i;
    const c1 = b[i + 1]!;
    if (c1 < lo || c1 > hi) return i;
    for (let k = 2; k <= need; k++) if ((b[i + k]! & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return -1;
}

function tooLong(bytes: number, max: number): RecordError {
  const mib = Math.ceil(bytes / (1024 * 1024));
  return new RecordError('LINE_TOO_LONG', `the line is ${bytes} bytes, longer than --max-line ${max}; --max-line ${mib}MiB would read it`);
}

function notUtf8(line: Uint8Array): RecordError {
  const at = invalidUtf8At(line);
  const where = at < 0 ? '' : ` (byte 0x${line[at]!.toString(16).toUpperCase().padStart(2, '0')} at byte ${at + 1} of the line)`;
  return new RecordError('INVALID_JSON', `not valid UTF-8${where}`);
}

/**
 * Splits a byte or string stream into lines (without the trailing `\n` / `\r\n`):
 * a line is its text, or a {@link RecordError} when it is longer than
 * `maxLineBytes` (`LINE_TOO_LONG`) or not valid UTF-8 (`INVALID_JSON`).
 *
 * Works on bytes, in time linear in the input: the pieces of a line that spans
 * chunks are kept in a list and joined once, when its `\n` arrives; past
 * `maxLineBytes` they are dropped and the rest of the line is only counted.
 * `\n` never occurs inside a multi-byte UTF-8 character, so a character split
 * across chunks (the BOM `EF | BB BF` included) is whole once the line is. One
 * BOM at the very start of the stream is dropped; a U+FEFF anywhere else is data.
 */
async function* lineItems(source: AsyncIterable<Buffer | string>, maxLineBytes: number): AsyncGenerator<string | RecordError> {
  // ignoreBOM: a U+FEFF at the start of a later line is data, not a mark to drop
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const parts: Buffer[] = [];
  let partsBytes = 0;
  /** Bytes of the current line seen after it passed the limit (its pieces are dropped); -1 while within it. */
  let skipped = -1;
  /** The first bytes of the stream, until it is known whether they start with a BOM; null after. */
  let head: Buffer | null = Buffer.alloc(0);

  const decodeLine = (bytes: Buffer): string | RecordError => {
    const line = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.subarray(0, -1) : bytes;
    if (line.length > maxLineBytes) return tooLong(line.length, maxLineBytes);
    try {
      return decoder.decode(line);
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') throw e;
      return notUtf8(line);
    }
  };

  /** Adds a piece of the current (unfinished) line. One byte over the limit is allowed: it may be the `\r` of `\r\n`. */
  const append = (piece: Buffer): void => {
    if (skipped >= 0) {
      skipped += piece.length;
    } else if (partsBytes + piece.length > maxLineBytes + 1) {
      skipped = partsBytes + piece.length;
      parts.length = 0;
      partsBytes = 0;
    } else {
      parts.push(piece);
      partsBytes += piece.length;
    }
  };

  /** Ends the current line with its last piece. */
  const finish = (last: Buffer): string | RecordError => {
    if (skipped >= 0 || partsBytes + last.length > maxLineBytes + 1) {
      const total = (skipped >= 0 ? skipped : partsBytes) + last.length;
      const cr = last.length > 0 && last[last.length - 1] === CR;
      skipped = -1;
      parts.length = 0;
      partsBytes = 0;
      return tooLong(cr ? total - 1 : total, maxLineBytes);
    }
    parts.push(last);
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, partsBytes + last.length);
    parts.length = 0;
    partsBytes = 0;
    return decodeLine(bytes);
  };

  /** Complete lines, pushed to `out`: `block` holds one or more lines separated by `\n`, without the last one's `\n`. */
  const lines = (block: Buffer, out: (string | RecordError)[]): void => {
    if (block.length <= maxLineBytes) {
      // the common case: every line fits, decode the block at once
      let text: string | undefined;
      try {
        text = decoder.decode(block);
      } catch (e) {
        if ((e as { code?: unknown }).code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') throw e;
        // some line is not UTF-8: line by line below names it
      }
      if (text !== undefined) {
        let start = 0;
        for (;;) {
          const nl = text.indexOf('\n', start);
          const end = nl === -1 ? text.length : nl;
          out.push(end > start && text.charCodeAt(end - 1) === CR ? text.slice(start, end - 1) : text.slice(start, end));
          if (nl === -1) return;
          start = nl + 1;
        }
      }
    }
    let start = 0;
    for (;;) {
      const nl = block.indexOf(LF, start);
      out.push(decodeLine(block.subarray(start, nl === -1 ? block.length : nl)));
      if (nl === -1) return;
      start = nl + 1;
    }
  };

  /** Takes one chunk: the lines it completes go to `out`, the rest waits for the next chunk. */
  const take = (chunk: Buffer, out: (string | RecordError)[]): void => {
    if (chunk.length === 0) return;
    const first = chunk.indexOf(LF);
    if (first === -1) {
      append(chunk);
      return;
    }
    let start = 0;
    if (partsBytes > 0 || skipped >= 0) {
      out.push(finish(chunk.subarray(0, first)));
      start = first + 1;
    }
    const last = chunk.lastIndexOf(LF);
    if (last >= start) {
      lines(chunk.subarray(start, last), out);
      start = last + 1;
    }
    if (start < chunk.length) append(chunk.subarray(start));
  };

  const out: (string | RecordError)[] = [];
  for await (const c of source) {
    let chunk = typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
    if (head !== null) {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      if (head.length < BOM_BYTES.length && BOM_BYTES.subarray(0, head.length).equals(head)) continue;
      chunk = head.subarray(0, BOM_BYTES.length).equals(BOM_BYTES) ? head.subarray(BOM_BYTES.length) : head;
      head = null;
    }
    take(chunk, out);
    for (const item of out) yield item;
    out.length = 0;
  }
  if (head !== null) take(head, out); // fewer than 3 bytes in all, a prefix of the BOM: data (not UTF-8)
  for (const item of out) yield item;
  if (partsBytes > 0 || skipped >= 0) yield finish(Buffer.alloc(0));
}

/**
 * Splits a byte or string stream into lines (without the trailing `\n` / `\r\n`).
 *
 * Bytes are decoded as UTF-8, strictly: a line that is not valid UTF-8, or
 * longer than `maxLineBytes` (default 64 MiB), throws a {@link RecordError}
 * whose `where` is `line N`. A character split across chunks (the BOM
 * `EF | BB BF` included) is decoded whole. One U+FEFF at the very start of
 * the stream is dropped; a U+FEFF anywhere else is data. Time is linear in
 * the input, memory bounded by the longest line.
 */
export async function* readLines(source: AsyncIterable<Buffer | string>, opts: ReadOptions = {}): AsyncGenerator<string> {
  let lineNo = 0;
  for await (const item of lineItems(source, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)) {
    lineNo++;
    if (typeof item !== 'string') throw new RecordError(item.code, item.message, undefined, `line ${lineNo}`);
    yield item;
  }
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
export async function* readRecords(source: AsyncIterable<Buffer | string>, format: InputFormat = 'auto', opts: ReadOptions = {}): AsyncGenerator<InputItem> {
  const lines = lineItems(source, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  let lineNo = 0;
  let mode: 'jsonl' | 'json' | undefined = format === 'auto' ? undefined : format;
  const held: string[] = [];
  let firstLineError: RecordError | undefined;

  for await (const line of lines) {
    lineNo++;
    if (typeof line !== 'string') {
      // too long, or not UTF-8: invalid input, like a line that is not JSON
      yield { where: `line ${lineNo}`, error: line };
      if (mode === 'json') return; // the document cannot be read without it
      mode ??= 'jsonl';
      held.length = 0;
      continue;
    }
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

import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';

/** One record of a tasks file, as parsed, and where it is: `line N` (JSONL) or `record N` (a JSON array, from 1). */
export interface TaskRecord {
  /** `line N` or `record N`, for messages. */
  where: string;
  /** The parsed JSON value (not validated yet). */
  value: unknown;
}

/** `(line L, column C)` of a `JSON.parse` message's `position N` in `text`, or `''` when it names none. */
function positionOf(message: string, text: string): string {
  const m = /position (\d+)/.exec(message);
  if (!m) return '';
  const before = text.slice(0, Number(m[1]));
  const line = before.split('\n').length;
  return ` (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
}

/** The elements of a tasks file that is one JSON array. */
function arrayRecords(text: string, file: string, fn: string): TaskRecord[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file}: starts with "[" but is not a JSON array${positionOf(msg, text)}: ${msg}`, { fn, field: 'file' });
  }
  return (doc as unknown[]).map((value, i) => ({ where: `record ${i + 1}`, value }));
}

/** The non-blank lines of a JSONL tasks file, each parsed. */
function lineRecords(text: string, file: string, fn: string): TaskRecord[] {
  const out: TaskRecord[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const where = `line ${i + 1}`;
    try {
      out.push({ where, value: JSON.parse(line) });
    } catch (e) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${file} ${where}: not JSON: ${(e as Error).message}`, { fn, field: where });
    }
  }
  return out;
}

/**
 * The records of a tasks file's text (a leading UTF-8 BOM dropped), decided by
 * the content, never by the file's name: a text whose first character other
 * than white space is `[` is one JSON array, each element a task (`record N`,
 * counted from 1); any other text is JSONL, one task per non-blank line
 * (`line N`, blank lines counted, CRLF accepted). A `.json` file holding one
 * array and a `.jsonl` file starting with `[` are read alike.
 *
 * @param file - the file's name as the user gave it, for messages
 * @param fn - the public function reading it, for `FrognanoError.fn`
 * @throws FrognanoError `INVALID_TYPE`: `<file> line N: not JSON: ...`, or
 *   `<file>: starts with "[" but is not a JSON array: ...`
 */
export function taskRecords(text: string, file: string, fn: string): TaskRecord[] {
  const body = text.replace(/^\uFEFF/, '');
  return body.trimStart().startsWith('[') ? arrayRecords(body, file, fn) : lineRecords(body, file, fn);
}

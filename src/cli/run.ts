import type { Writable } from 'node:stream';
import { readRecords, RecordWriter, type InputFormat } from './jsonl.js';
import { Progress } from './progress.js';
import { RecordError, type RecordProcessor } from '../commands/index.js';

/** The run stopped at an invalid record (exit code 1). The message names the line and the field. */
export class InvalidInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidInputError';
  }
}

/** The destination stopped accepting output (EPIPE: the reader went away). The run ends quietly. */
export class OutputClosedError extends Error {
  constructor() {
    super('output closed');
    this.name = 'OutputClosedError';
  }
}

/** Options of {@link runRecords}. */
export interface RunRecordsOptions {
  /** Prefix of stderr messages, e.g. `frognano advantages`. */
  label: string;
  /** The subcommand's processor. */
  processor: RecordProcessor;
  /** Input bytes (a file or stdin). */
  input: AsyncIterable<Buffer | string>;
  /** Output stream (a file or stdout). */
  output: Writable;
  /** Where messages, the progress line and the skip summary go. */
  stderr: Writable;
  /** Input format, default `auto`. */
  format?: InputFormat;
  /** Skip invalid records (and count them) instead of stopping at the first. */
  skipInvalid?: boolean;
  /** Draw a progress line on `stderr`. */
  progress?: boolean;
  /** With `skipInvalid`, how many skipped records are described individually (default 10). */
  maxReported?: number;
  /** The longest input line in bytes (`--max-line`, default 64 MiB); a longer line is invalid input (`LINE_TOO_LONG`). */
  maxLineBytes?: number;
}

/** What a run did. */
export interface RunSummary {
  /** Records read (valid or not). */
  read: number;
  /** Records written. */
  written: number;
  /** Invalid records skipped (only with `skipInvalid`). */
  skipped: number;
}

/** `line 7: rewards[2] must be a finite number, got Infinity [NON_FINITE]`. */
export function describeRecordError(where: string, e: RecordError): string {
  return `${e.where ?? where}: ${e.message} [${e.code}]`;
}

function isEpipe(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: string }).code === 'EPIPE';
}

/**
 * Streams records through a processor: read a record, process it, write the
 * output, with backpressure, so memory stays flat in the number of records.
 * An invalid record stops the run with {@link InvalidInputError}, or with
 * `skipInvalid` is counted, described on stderr (the first `maxReported`) and
 * skipped. Errors that are not {@link RecordError}s propagate (they are bugs).
 */
export async function runRecords(o: RunRecordsOptions): Promise<RunSummary> {
  const writer = new RecordWriter(o.output);
  const progress = o.progress ? new Progress(o.stderr, o.label) : undefined;
  const maxReported = o.maxReported ?? 10;
  let outputError: unknown;
  const onError = (e: unknown): void => {
    outputError ??= e;
  };
  o.output.on('error', onError);
  let read = 0;
  let skipped = 0;

  const invalid = (where: string, e: RecordError): void => {
    if (!o.skipInvalid) {
      progress?.clear();
      throw new InvalidInputError(describeRecordError(where, e));
    }
    skipped++;
    if (skipped <= maxReported) {
      progress?.clear();
      o.stderr.write(`${o.label}: skipped ${describeRecordError(where, e)}\n`);
    }
  };

  const write = async (out: unknown): Promise<void> => {
    if (outputError !== undefined) throw outputError;
    try {
      await writer.write(out);
    } catch (e) {
      throw outputError ?? e;
    }
  };

  try {
    for await (const item of readRecords(o.input, o.format ?? 'auto', { maxLineBytes: o.maxLineBytes })) {
      read++;
      progress?.tick();
      if (item.error) {
        invalid(item.where, item.error);
        continue;
      }
      let out: unknown;
      try {
        out = o.processor.process(item.value, item.where);
      } catch (e) {
        if (e instanceof RecordError) {
          invalid(item.where, e);
          continue;
        }
        throw e;
      }
      if (out !== undefined) await write(out);
    }
    if (o.processor.finish) {
      let outs: unknown[] = [];
      try {
        outs = o.processor.finish();
      } catch (e) {
        if (e instanceof RecordError) {
          // An aggregate cannot skip one record after the fact: always stop.
          progress?.clear();
          throw new InvalidInputError(describeRecordError('input', e));
        }
        throw e;
      }
      for (const out of outs) await write(out);
    }
    try {
      await writer.flush();
    } catch (e) {
      throw outputError ?? e;
    }
    if (outputError !== undefined) throw outputError;
  } catch (e) {
    if (isEpipe(e)) throw new OutputClosedError();
    if (e instanceof InvalidInputError && outputError === undefined) {
      // The records before the invalid one are complete: hand them over before stopping.
      await writer.flush().catch(() => {});
    }
    throw e;
  } finally {
    progress?.clear();
    o.output.off('error', onError);
  }
  if (o.skipInvalid) {
    const more = skipped > maxReported ? ` (the first ${maxReported} described above)` : '';
    o.stderr.write(`${o.label}: ${read} record(s) read, ${writer.count} written, ${skipped} invalid skipped${more}\n`);
  }
  return { read, written: writer.count, skipped };
}

import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * An append-only JSON Lines log (one record per line), written synchronously so
 * a killed run loses at most the line being written. Node only (`node:fs`).
 *
 * @example
 * ```ts
 * const log = new JsonlLog('run/updates.jsonl');
 * log.write({ update: 1, solveRate: 0.5 });
 * ```
 */
export class JsonlLog {
  /** The file. */
  readonly path: string;

  /** Opens `path` (creating its folder); `truncate: true` empties an existing file. */
  constructor(path: string, opts: { truncate?: boolean } = {}) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    if (opts.truncate) writeFileSync(path, '');
  }

  /** Appends one record as one line. */
  write(record: object): void {
    appendFileSync(this.path, `${JSON.stringify(record)}\n`);
  }

  /** Replaces the whole file with `records` (e.g. after resuming from a checkpoint, the log is rewritten to what the checkpoint knows). */
  rewrite(records: readonly object[]): void {
    writeFileSync(this.path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }
}

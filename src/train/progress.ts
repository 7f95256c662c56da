import type { Writable } from 'node:stream';

/** What the progress line shows after an update. */
export interface ProgressState {
  /** Current iteration (1-based) and the total. */
  iteration: number;
  iterations: number;
  /** Updates done in this climb and the climb's length. */
  update: number;
  updates: number;
  /** Training solve rate of the last batch. */
  solveRate: number;
  /** Policy lag of the last batch (max). */
  lag: number;
  /** Seconds since the run started. */
  elapsed: number;
}

/**
 * Training progress on a stream (stderr by default): a bar redrawn in place on
 * a TTY, plain lines otherwise (every 10th update and the last of each climb;
 * logs and pipes never see control characters). Messages (`note`) are printed on their own line in both modes.
 *
 * @example
 * ```ts
 * const p = new TrainingProgress();
 * p.update({ iteration: 1, iterations: 3, update: 5, updates: 40, solveRate: 0.5, lag: 1, elapsed: 12 });
 * p.done();
 * ```
 */
export class TrainingProgress {
  private readonly stream: Writable & { isTTY?: boolean; columns?: number };
  private readonly tty: boolean;
  private readonly every: number;
  private drawn = false;

  /**
   * @param stream - where to write; default `process.stderr`
   * @param opts - `tty`: force the mode (default: `stream.isTTY`); `every`: without a TTY, print every
   *   `every`-th update and the last of each climb (default 10)
   */
  constructor(stream: Writable & { isTTY?: boolean; columns?: number } = process.stderr, opts: { tty?: boolean; every?: number } = {}) {
    this.stream = stream;
    this.tty = opts.tty ?? Boolean(stream.isTTY);
    this.every = Math.max(1, Math.floor(opts.every ?? 10));
  }

  /** Redraws the bar (TTY) or prints a line (otherwise). */
  update(s: ProgressState): void {
    const frac = s.updates === 0 ? 1 : s.update / s.updates;
    const text = `iteration ${s.iteration}/${s.iterations}  update ${s.update}/${s.updates}  solve ${s.solveRate.toFixed(2)}  lag ${s.lag}  ${s.elapsed.toFixed(0)}s`;
    if (!this.tty) {
      if (s.update % this.every === 0 || s.update === s.updates) this.stream.write(`${text}\n`);
      return;
    }
    const width = 24;
    const filled = Math.round(frac * width);
    this.stream.write(`\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
    this.drawn = true;
  }

  /** Prints a message on its own line (the bar is redrawn by the next update). */
  note(message: string): void {
    this.clear();
    this.stream.write(`${message}\n`);
  }

  /** Ends the bar's line. */
  done(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }

  private clear(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}

import type { Writable } from 'node:stream';

/**
 * A one-line progress report on stderr for long inputs, redrawn in place at
 * most every 250 ms: `frognano advantages: 1,234,567 lines, 412,000 lines/s`.
 * Drawn when stderr is a TTY or `--progress` is given (never with
 * `--no-progress`), so logs and pipes do not see it by default.
 */
export class Progress {
  private readonly stream: Writable;
  private readonly label: string;
  private readonly started = Date.now();
  private last = 0;
  private drawn = false;
  /** Records read so far. */
  count = 0;

  constructor(stream: Writable, label: string) {
    this.stream = stream;
    this.label = label;
  }

  /** Counts one record; redraws when 250 ms have passed since the last redraw. */
  tick(): void {
    this.count++;
    if ((this.count & 1023) !== 0) return;
    const now = Date.now();
    if (now - this.last < 250) return;
    this.last = now;
    const secs = Math.max((now - this.started) / 1000, 1e-3);
    const rate = Math.round(this.count / secs);
    this.stream.write(`\r\x1b[K${this.label}: ${this.count.toLocaleString('en-US')} lines, ${rate.toLocaleString('en-US')} lines/s`);
    this.drawn = true;
  }

  /** Erases the progress line (before the final summary or an error message). */
  clear(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}

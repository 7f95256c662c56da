/**
 * The exit codes of the `frognano` command (SPEC §11). Stable: scripts and
 * trainers switch on them.
 *
 * | code | name | when |
 * | --- | --- | --- |
 * | 0 | `OK` | every line was processed (with `--skip-invalid`: every valid line; the skipped ones are counted on stderr) |
 * | 1 | `INVALID_INPUT` | a line (or request body) is not valid JSON or fails validation; stderr names the line number and the field |
 * | 2 | `USAGE` | bad usage: unknown subcommand or flag, a flag value of the wrong type, an `--in` file that cannot be opened, an `--out` file that cannot be created, a reward module that cannot be loaded, a port that cannot be bound |
 * | 3 | `IO_ERROR` | reading the input or writing the output failed part-way (disk full, closed pipe other than EPIPE, ...) |
 * | 70 | `INTERNAL` | a bug in frognano (an unexpected exception); the stack goes to stderr |
 *
 * A closed stdout (EPIPE, e.g. `frognano advantages < big.jsonl | head`) ends
 * the run quietly with 0, as `head` asked for no more.
 */
export const ExitCode = {
  OK: 0,
  INVALID_INPUT: 1,
  USAGE: 2,
  IO_ERROR: 3,
  INTERNAL: 70,
} as const;

/** One of the {@link ExitCode} values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Bad usage of the command line (exit code 2). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Reading the input or writing the output failed (exit code 3). */
export class IoError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IoError';
  }
}

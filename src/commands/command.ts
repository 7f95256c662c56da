import type { Readable, Writable } from 'node:stream';

/**
 * The shape of a record subcommand (`frognano advantages`, `frognano rewards`, ...):
 * its help text, its flags, and a processor that maps one input record to one
 * output record. The CLI streams JSONL through a processor; the service calls
 * the same processor on a request body, so both return the same numbers.
 */

/** The streams a command run uses (the process's own, or test doubles). */
export interface CliIo {
  /** Where records come from when there is no `--in`. */
  stdin: Readable & { isTTY?: boolean };
  /** Where output records (and help) go when there is no `--out`. */
  stdout: Writable;
  /** Messages, the progress line and logs. */
  stderr: Writable & { isTTY?: boolean };
}

/** A flag of a subcommand, as `--name VALUE` (string) or `--name` (boolean). */
export interface FlagSpec {
  /** `'string'` takes a value, `'boolean'` is a switch. */
  type: 'string' | 'boolean';
  /** Placeholder of the value in the help, e.g. `N` or `std|none`. */
  value?: string;
  /** One line of help. */
  description: string;
}

/** Parsed flag values: strings for `'string'` flags, true for a given boolean flag, undefined when absent. */
export type ParsedFlags = Readonly<Record<string, string | boolean | undefined>>;

/** A worked example shown by `--help` and checked by the tests. */
export interface CommandExample {
  /** The command line, e.g. `frognano advantages --eps 0`. */
  command: string;
  /** One input line. */
  input: string;
  /** The output line it produces. */
  output: string;
}

/** Turns records into output records. */
export interface RecordProcessor {
  /**
   * Maps one record (a parsed JSON value) to its output record, or to
   * `undefined` when the output comes only at the end (see `finish`).
   * Throws {@link RecordError} for an invalid record.
   * @param where - the record's position for messages, e.g. `line 7`
   */
  process(value: unknown, where: string): unknown;
  /** Output records emitted after the last input record (aggregating subcommands). */
  finish?(): unknown[];
}

/** A record subcommand. `C` is its configuration (defaults taken from flags). */
export interface RecordCommand<C = unknown> {
  /** Subcommand name, e.g. `advantages`. */
  name: string;
  /** One-line summary for `frognano --help`. */
  summary: string;
  /** The library function(s) it calls, for the help and the docs. */
  calls: string;
  /** Input record format (help text, may span lines). */
  input: string;
  /** Output record format (help text, may span lines). */
  output: string;
  /** Subcommand-specific flags (without the leading `--`). */
  flags: Readonly<Record<string, FlagSpec>>;
  /** At least one worked example. */
  examples: readonly CommandExample[];
  /** Builds the configuration from the flags; throws `UsageError` on a bad flag value. */
  configure(flags: ParsedFlags): C;
  /** A fresh processor (aggregating subcommands keep state in it). */
  create(config: C): RecordProcessor;
}

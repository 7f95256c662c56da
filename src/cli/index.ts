/**
 * The `frognano` command line (SPEC §11): record subcommands that stream JSONL
 * through the library's public functions (`rewards`, `advantages`, `gagar`,
 * `gagar-coefficients`, `gagar-score`, `dppo-mask`, `pass-at-k`, `metrics`,
 * `tinker-datums`) and `serve`, the HTTP service (see the server module).
 *
 * The subcommands are thin shells: every number comes from a public function
 * of `frognano/rewards`, `frognano/advantage`, `frognano/judges` or
 * `frognano/metrics`; the CLI only validates the record structure, calls the
 * function and writes its result. Exit codes: {@link ExitCode}.
 * @module cli
 */
export { runCli, parseFlags, packageVersion } from './cli.js';
export type { CliIo } from './cli.js';
export { ExitCode, UsageError, IoError } from './exitCodes.js';
export type { RecordCommand, RecordProcessor, FlagSpec, ParsedFlags, CommandExample } from './command.js';
export { RecordError, parseRecord, callLibrary } from './record.js';
export type { RecordErrorCode, FieldRenames } from './record.js';
export { readRecords, readLines, RecordWriter } from './jsonl.js';
export type { InputFormat, InputItem } from './jsonl.js';
export { runRecords, InvalidInputError, OutputClosedError, describeRecordError } from './run.js';
export type { RunRecordsOptions, RunSummary } from './run.js';
export { commandHelp, mainHelp } from './help.js';
export * from './commands/index.js';

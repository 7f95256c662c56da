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
export { runCli } from './cli.js';
export { parseFlags, packageVersion, ExitCode, UsageError, IoError, RecordError, parseRecord, callLibrary } from '../commands/index.js';
export type { CliIo, RecordCommand, RecordProcessor, FlagSpec, ParsedFlags, CommandExample, RecordErrorCode, FieldRenames } from '../commands/index.js';
export { readRecords, readLines, RecordWriter } from './jsonl.js';
export type { InputFormat, InputItem } from './jsonl.js';
export { runRecords, InvalidInputError, OutputClosedError, describeRecordError } from './run.js';
export type { RunRecordsOptions, RunSummary } from './run.js';
export { commandHelp, mainHelp } from './help.js';
export {
  RECORD_COMMANDS,
  findRecordCommand,
  advantagesRecord,
  AdvantagesRecordSchema,
  advantagesCommand,
  rewardsRecord,
  RewardsRecordSchema,
  rewardsCommand,
  gagarRecord,
  GagarRecordSchema,
  gagarCommand,
  gagarCoefficientsRecord,
  gagarCoefficientsCommand,
  gagarScoreRecord,
  gagarScoreCommand,
  dppoMaskRecord,
  DppoMaskRecordSchema,
  dppoMaskCommand,
  passAtKRecord,
  PassAtKRecordSchema,
  passAtKCommand,
  metricsSetRecord,
  evaluatorMetrics,
  metricsCommand,
  tinkerDatumRecord,
  TinkerDatumRecordSchema,
  tinkerDatumsCommand,
} from '../commands/index.js';
export type { AdvantagesOutput, RewardsGroupOutput, RewardsSingleOutput, GagarOutput, DppoMaskOutput, PassAtKOutput, MetricsOutput, TinkerDatumOutput } from '../commands/index.js';

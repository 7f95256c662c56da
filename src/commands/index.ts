/**
 * The commands the CLI and the service share, below both (`cli` and `server`
 * import this module; neither imports the other's internals): the record
 * subcommands and their table, record parsing and its errors, flags and their
 * readers, exit codes, byte sizes and the package version.
 *
 * A record subcommand (`advantages`, `rewards`, ...) is a {@link RecordCommand}:
 * the CLI streams JSONL through its processor, the service calls the same
 * processor on a request body, so both return the same numbers. Internal: the
 * public names are re-exported by `frognano/cli` (and `frognano/server`).
 * @module commands
 */
export type { CliIo, CommandExample, FlagSpec, ParsedFlags, RecordCommand, RecordProcessor } from './command.js';
export { ExitCode, IoError, UsageError } from './exitCodes.js';
export { checkFlagOptions, defined, enumFlag, extendedNumberFlag, flagLines, flagOfOption, intFlag, intListFlag, numberFlag, parseDecimal, parseFlags, positiveFlag, sizeFlag } from './flags.js';
export { callLibrary, checkedArray, ExtendedNumberSchema, IdSchema, isPlainObject, NumberArray, parseRecord, RecordError, withId } from './record.js';
export type { FieldRenames, RecordErrorCode } from './record.js';
export { findRecordCommand, RECORD_COMMANDS } from './recordCommands.js';
export { formatBytes, parseSize } from './size.js';
export { didYouMean, editDistance, nearest } from './suggest.js';
export { packageVersion } from './version.js';
export { advantagesRecord, AdvantagesRecordSchema, advantagesCommand } from './advantages.js';
export type { AdvantagesOutput } from './advantages.js';
export { rewardsRecord, RewardsRecordSchema, rewardsCommand } from './rewards.js';
export type { RewardsGroupOutput, RewardsSingleOutput } from './rewards.js';
export { gagarRecord, GagarRecordSchema, gagarCommand } from './gagar.js';
export type { GagarOutput } from './gagar.js';
export { gagarCoefficientsRecord, gagarCoefficientsCommand } from './gagarCoefficients.js';
export { gagarScoreRecord, gagarScoreCommand } from './gagarScore.js';
export { dppoMaskRecord, DppoMaskRecordSchema, dppoMaskCommand } from './dppoMask.js';
export type { DppoMaskOutput } from './dppoMask.js';
export { passAtKRecord, PassAtKRecordSchema, passAtKCommand } from './passAtK.js';
export type { PassAtKOutput } from './passAtK.js';
export { metricsSetRecord, evaluatorMetrics, metricsCommand } from './metrics.js';
export type { MetricsOutput } from './metrics.js';
export { tinkerDatumRecord, TinkerDatumRecordSchema, tinkerDatumsCommand } from './tinkerDatums.js';
export type { TinkerDatumOutput } from './tinkerDatums.js';

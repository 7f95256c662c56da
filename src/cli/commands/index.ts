/**
 * The record subcommands of `frognano`, by name. `serve` is separate (it
 * starts the service rather than streaming records).
 */
import type { RecordCommand } from '../command.js';
import { advantagesCommand } from './advantages.js';
import { dppoMaskCommand } from './dppoMask.js';
import { gagarCommand } from './gagar.js';
import { gagarCoefficientsCommand } from './gagarCoefficients.js';
import { gagarScoreCommand } from './gagarScore.js';
import { metricsCommand } from './metrics.js';
import { passAtKCommand } from './passAtK.js';
import { rewardsCommand } from './rewards.js';
import { tinkerDatumsCommand } from './tinkerDatums.js';

/** Every record subcommand, in the order `frognano --help` lists them. */
export const RECORD_COMMANDS: readonly RecordCommand<never>[] = [
  rewardsCommand,
  advantagesCommand,
  gagarCommand,
  gagarCoefficientsCommand,
  gagarScoreCommand,
  dppoMaskCommand,
  passAtKCommand,
  metricsCommand,
  tinkerDatumsCommand,
] as unknown as readonly RecordCommand<never>[];

/** The record subcommand called `name`, if any. */
export function findRecordCommand(name: string): RecordCommand<unknown> | undefined {
  return RECORD_COMMANDS.find((c) => c.name === name) as RecordCommand<unknown> | undefined;
}

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

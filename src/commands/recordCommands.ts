/**
 * The record subcommands of `frognano`, by name: the table the CLI dispatches
 * on and the service's `/v1/<name>` endpoints call. `serve`, `rollout` and
 * `validate-tasks` are not record filters: the CLI runs them itself
 * (`OTHER_COMMANDS` in `src/cli/help.ts`).
 */
import type { RecordCommand } from './command.js';
import { advantagesCommand } from './advantages.js';
import { dppoMaskCommand } from './dppoMask.js';
import { gagarCommand } from './gagar.js';
import { gagarCoefficientsCommand } from './gagarCoefficients.js';
import { gagarScoreCommand } from './gagarScore.js';
import { metricsCommand } from './metrics.js';
import { passAtKCommand } from './passAtK.js';
import { rewardsCommand } from './rewards.js';
import { tinkerDatumsCommand } from './tinkerDatums.js';

/** Every record subcommand, in the order `frognano --help` lists them (a new one: one line here). */
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

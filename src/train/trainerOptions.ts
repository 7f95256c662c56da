import { z } from 'zod';
import { ResolveRateBandSchema } from '../curriculum/resolveRateBand.js';
import { parseOptions } from '../errors/validate.js';
import { DppoLossOptionsSchema } from '../losses/dppoLoss.js';

/** Options of {@link FrognanoTrainer}: the FrogNano recipe's knobs (FrogNano §3-4, Table 2). */
export const TrainerOptionsSchema = z
  .object({
    /** Seed of every random stream (task order, sampling, TaskPilot). Default 0. */
    seed: z.union([z.number(), z.string()]).default(0),
    /** TaskPilot + RL-climb iterations. Default 5 (the paper's). */
    iterations: z.number().int().min(1).default(5),
    /** Updates per climb, `U`. Default 200 (FrogNano §4). */
    updatesPerIteration: z.number().int().min(1).default(200),
    /** Task groups per update. Default 32 (Table 2). */
    groupsPerUpdate: z.number().int().min(1).default(32),
    /** Rollouts per task group, `G`. Default 8 (Table 2). */
    groupSize: z.number().int().min(2).default(8),
    /** Sampling temperature of training rollouts (the learner divides its logits by it too). Default 1. */
    temperature: z.number().gt(0).default(1),
    /** Largest policy lag a batch may have when it trains the learner. Default 1 (FrogNano uses 1 or 3). */
    maxLag: z.number().int().min(0).default(1),
    /**
     * How many batches the rollout actor runs ahead of the learner. While the learner
     * trains on batch `u`, the actor generates batch `u + rolloutAhead` from its
     * snapshot of the current weights, so that batch trains with lag `rolloutAhead`.
     * 0 is synchronous, on-policy RL. Default 1.
     */
    rolloutAhead: z.number().int().min(0).default(1),
    /** What to do with groups staler than `maxLag`: regenerate them with the current policy, or drop them. Default `'regenerate'`. */
    stalePolicy: z.enum(['regenerate', 'drop']).default('regenerate'),
    /** Adam step size. Default 1e-6 (verl's actor default; tiny models want ~1e-3). */
    learningRate: z.number().gt(0).default(1e-6),
    /** Adam first-moment decay. Default 0.9. */
    beta1: z.number().min(0).lt(1).default(0.9),
    /** Adam second-moment decay. Default 0.999. */
    beta2: z.number().min(0).lt(1).default(0.999),
    /** Global-norm gradient clipping. Default 1. */
    clipNorm: z.number().gt(0).default(1),
    /** Options of `dppoLoss` (`delta = 0.2`, ...). */
    dppo: DppoLossOptionsSchema.optional(),
    /** Reward shaping (FrogNano §4.2). */
    reward: z
      .object({
        /** Log-length budget `N` in assistant tokens (>= 1). */
        budget: z.number().min(1),
        /** Log-length penalty strength. Default 0.2. */
        alpha: z.number().min(0).default(0.2),
        /** Reward of a truncated success. Default 0.5. */
        truncatedReward: z.number().default(0.5),
        /** First iteration with the log-length penalty on. Default 3 (FrogNano §4.2). */
        lengthPenaltyFromIteration: z.number().int().min(1).default(3),
      })
      .strict(),
    /** TaskPilot (FrogNano §3.1). */
    pilot: z
      .object({
        /** Fresh candidates per iteration. Default 64. */
        candidates: z.number().int().min(1).default(64),
        /** Calibration rollouts per candidate, `N`. Default 8. */
        rollouts: z.number().int().min(1).default(8),
        /** Refinement rounds, `R`. Default 3. */
        maxRounds: z.number().int().min(0).default(3),
        /** A fixed target band for every iteration; default the paper's schedule (`iterationBand`). */
        band: ResolveRateBandSchema.optional(),
      })
      .strict()
      .default({ candidates: 64, rollouts: 8, maxRounds: 3 }),
    /** Checkpoint file; none is written when omitted. */
    checkpointPath: z.string().min(1).optional(),
    /** Updates between checkpoints (one is also written after each TaskPilot and at the end of each climb). Default 10. */
    checkpointEvery: z.number().int().min(1).default(10),
    /** JSONL file with one record per update; none when omitted. */
    logPath: z.string().min(1).optional(),
    /** Progress on stderr: `'auto'` (default), `true` or `false`. A bar on a TTY, plain lines otherwise. */
    progress: z.union([z.boolean(), z.literal('auto')]).default('auto'),
    /** Most sequences per rollout forward pass. Default 256 (raise it on a GPU). */
    maxBatch: z.number().int().min(1).default(256),
  })
  .strict();
/** Options of {@link FrognanoTrainer} as the caller writes them. */
export type TrainerOptions = z.input<typeof TrainerOptionsSchema>;
/** The trainer's options after validation, defaults filled in (`trainer.options`). */
export type ParsedTrainerOptions = z.output<typeof TrainerOptionsSchema>;

/**
 * The options that change a run's numbers, as a checkpoint records them and a
 * resume compares them: everything but the file paths (`checkpointPath`,
 * `logPath`), `checkpointEvery`, `progress`, `maxBatch` (a throughput knob) and
 * `dppo.validate` (a read-back check); `seed` is compared on its own. `dppo` is
 * written with its defaults filled in, so leaving it out equals passing its
 * defaults.
 *
 * @param opts - trainer options, as written or as parsed (`trainer.options`)
 * @throws FrognanoError as {@link FrognanoTrainer}'s constructor for invalid options
 * @example trainingConfig(new FrognanoTrainer(parts, opts).options).learningRate
 */
export function trainingConfig(opts: TrainerOptions | ParsedTrainerOptions): Record<string, unknown> {
  const o = parseOptions('trainingConfig', TrainerOptionsSchema, opts);
  const { validate: _validate, ...dppo } = DppoLossOptionsSchema.parse(o.dppo ?? {});
  const config = {
    iterations: o.iterations,
    updatesPerIteration: o.updatesPerIteration,
    groupsPerUpdate: o.groupsPerUpdate,
    groupSize: o.groupSize,
    temperature: o.temperature,
    maxLag: o.maxLag,
    rolloutAhead: o.rolloutAhead,
    stalePolicy: o.stalePolicy,
    learningRate: o.learningRate,
    beta1: o.beta1,
    beta2: o.beta2,
    clipNorm: o.clipNorm,
    dppo,
    reward: o.reward,
    pilot: o.pilot,
  };
  // As JSON stores it (undefined members dropped), so a saved config and a fresh one compare equal.
  return JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
}

/** Leaf paths of a config (`reward.alpha`) with their values. */
function flattenConfig(v: unknown, prefix: string, out: Map<string, unknown>): Map<string, unknown> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
    for (const [k, x] of Object.entries(v)) flattenConfig(x, prefix === '' ? k : `${prefix}.${k}`, out);
  } else if (prefix !== '') out.set(prefix, v);
  return out;
}

/** One field whose value differs between a checkpoint's training config and this run's. @internal */
export interface ConfigDifference {
  /** The field's path (`reward.alpha`). */
  field: string;
  /** Its value in the checkpoint (`undefined`: unset). */
  saved: unknown;
  /** Its value in this run (`undefined`: unset). */
  current: unknown;
}

/** The fields whose values differ between two training configs, in the current config's order. @internal */
export function configDifferences(saved: Record<string, unknown>, current: Record<string, unknown>): ConfigDifference[] {
  const a = flattenConfig(saved, '', new Map());
  const b = flattenConfig(current, '', new Map());
  const fields = [...new Set([...b.keys(), ...a.keys()])];
  return fields
    .filter((f) => JSON.stringify(a.get(f)) !== JSON.stringify(b.get(f)))
    .map((f) => ({ field: f, saved: a.get(f), current: b.get(f) }));
}

/** A config value in a message: its JSON, or `unset`. @internal */
export const showConfigValue = (v: unknown): string => (v === undefined ? 'unset' : JSON.stringify(v));


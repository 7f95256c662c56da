/**
 * The FrogNano recipe end to end on tfjs (FrogNano Fig. 3, §3.1, §4): a
 * {@link Policy} interface, seeded rollouts with per-token log-probs and a
 * loss mask on generated tokens, a rollout buffer with the bounded-lag rule,
 * the DPPO update (shaped rewards, group advantages with the raw-outcome
 * zero-variance filter, `dppoLoss`, global-norm clipping, Adam), SFT warm
 * start, held-out evaluation, atomic checksummed checkpoints, a JSONL log, a
 * progress bar and an HTML report, composed by {@link FrognanoTrainer}
 * (TaskPilot iterations with RL climbs, asynchronous rollouts).
 * See `docs/training.md`.
 *
 * Loads `@tensorflow/tfjs`; checkpoints, logs and reports use `node:fs`.
 * @module train
 */
export { copyWeights, functionPolicy, layersModelPolicy, readWeights, writeWeights } from './policy.js';
export type { FunctionPolicyOptions, LayersModelPolicyOptions, Policy } from './policy.js';
export { SeededRng } from './rng.js';
export type { RngState } from './rng.js';
export { generateRollouts, GenerateRolloutsOptionsSchema, sampleToken, yieldToEventLoop } from './rollout.js';
export type { GenerateRolloutsOptions, Rollout, RolloutGroup } from './rollout.js';
export { isFresh, policyLag, RolloutBuffer } from './rolloutBuffer.js';
export type { TakeResult } from './rolloutBuffer.js';
export { PAD_BATCH_MAX_CELLS, padBatch } from './batch.js';
export type { PaddedBatch, SequenceInput } from './batch.js';
export { Adam, AdamOptionsSchema, clipByGlobalNorm } from './adam.js';
export type { AdamOptions, AdamState } from './adam.js';
export { dppoUpdate, DppoUpdateOptionsSchema, groupRewardsAndAdvantages } from './update.js';
export type { DppoUpdateOptions, GroupAdvantageResult, UpdateStats } from './update.js';
export { sftPretrain, SftPretrainOptionsSchema, shuffle } from './sft.js';
export type { SftPretrainOptions } from './sft.js';
export { evaluateSolveRate, EvaluateOptionsSchema } from './evaluate.js';
export type { EvaluateOptions, EvaluationResult } from './evaluate.js';
export { policyOutcomeEstimator } from './estimator.js';
export type { PolicyEstimatorOptions } from './estimator.js';
export { CHECKPOINT_FORMAT_VERSION, decodeFloat32, encodeFloat32, loadCheckpoint, saveCheckpoint } from './checkpoint.js';
export type { CheckpointHeader } from './checkpoint.js';
export { JsonlLog } from './jsonlLog.js';
export { TrainingProgress } from './progress.js';
export type { ProgressState } from './progress.js';
export { FrognanoTrainer } from './trainer.js';
export type { RunControl, RunResult } from './trainer.js';
export { TrainerOptionsSchema, trainingConfig } from './trainerOptions.js';
export type { TrainerOptions } from './trainerOptions.js';
export type { TrainerState, UpdateRecord } from './trainerCheckpoint.js';
export { renderTrainingReport, REPORT_MAX_HISTOGRAM_BINS, writeTrainingReport } from './report.js';
export type { TrainingReportInput } from './report.js';

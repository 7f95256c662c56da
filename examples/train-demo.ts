/**
 * The FrogNano recipe end to end on a CPU, in a few minutes: a tiny GPT learns
 * digit tasks with TaskPilot iterations and DPPO climbs (FrogNano Fig. 3).
 *
 *   npx tsx --conditions=@frognano/source examples/train-demo.ts [--seed N] [--out DIR] [--resume] [--stop-after N] [--backend wasm|cpu|webgpu|auto]
 *
 * 1. SFT warm start: the starting checkpoint imitates a sloppy solver that
 *    misreads the operation 30% of the time (and sometimes checks its answer
 *    with the tool), so supervised learning alone plateaus at its accuracy.
 * 2. Held-out solve rate before RL (200 terse tasks x 4 samples, temperature 0.6).
 * 3. FrogNanoTrainer: 5 iterations of TaskPilot (512 candidates, N = 8,
 *    the paper's bands: p̂ = 0.5, then (0, 0.5] in iteration 5; 3 refinement
 *    rounds), each followed by an RL climb of 60 updates (16 tasks x 8
 *    rollouts, DPPO, asynchronous actor one version behind, log-length
 *    penalty from iteration 3), checkpointed every 10 updates.
 * 4. Held-out solve rate after RL, and a report (HTML) of the run.
 *
 * Outputs go to runs/train-demo-seed<N>/ (report.html, updates.jsonl,
 * pilots.json, checkpoint.ckpt). Kill it at any point and rerun with
 * --resume: it continues from the last checkpoint and ends with the same numbers.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useBackend, type BackendName } from 'frognano/backend';
import { DigitTaskFamily, type DigitTaskOptions } from 'frognano/env';
import { createTinyGpt, type TinyGptOptions } from 'frognano/models';
import {
  evaluateSolveRate,
  FrogNanoTrainer,
  sftPretrain,
  type TrainerOptions,
  writeTrainingReport,
} from 'frognano/train';

/** The demo's configuration (the bench runs exactly this). */
export const DEMO_CONFIG = {
  family: {
    ops: ['reverse', 'sort'],
    minLength: 2,
    maxLength: 5,
    checkTool: true,
    maxTurns: 2,
    demoMisreadRate: 0.3,
    demoCheckRate: 0.3,
    specificityWeights: [1, 6, 1, 1, 1],
    refineFirst: 'difficulty',
  } satisfies DigitTaskOptions,
  model: { dModel: 32, layers: 2, heads: 4 } satisfies Partial<TinyGptOptions>,
  sft: { demonstrations: 4000, steps: 600, batchSize: 64, learningRate: 3e-3 },
  eval: { tasks: 200, samples: 4, temperature: 0.6 },
  trainer: {
    iterations: 5,
    updatesPerIteration: 60,
    groupsPerUpdate: 16,
    groupSize: 8,
    temperature: 1,
    maxLag: 1,
    rolloutAhead: 1,
    learningRate: 1e-3,
    clipNorm: 1,
    reward: { budget: 4, alpha: 0.2, lengthPenaltyFromIteration: 3 },
    pilot: { candidates: 512, rollouts: 8, maxRounds: 3 },
    checkpointEvery: 10,
  } satisfies Partial<TrainerOptions>,
};

/** Options of {@link runTrainDemo}. */
export interface TrainDemoOptions {
  /** Seed of everything (model init, demonstrations, TaskPilot, sampling). Default 1. */
  seed?: number;
  /** Output folder. Default `runs/train-demo-seed<seed>`. */
  outDir?: string;
  /** Continue from the folder's checkpoint when there is one. */
  resume?: boolean;
  /** Stop after this many RL updates (as if killed). */
  stopAfterUpdates?: number;
  /** The tfjs backend. Default `'wasm'`. */
  backend?: BackendName;
  /** No progress output (the bench). */
  quiet?: boolean;
}

/** What {@link runTrainDemo} returns. */
export interface TrainDemoResult {
  seed: number;
  backend: string;
  parameters: number;
  before: number;
  after: number | null;
  gain: number | null;
  stopped: boolean;
  seconds: { sft: number; rl: number; total: number };
  outDir: string;
}

/** Runs the demo; see the file comment. */
export async function runTrainDemo(opts: TrainDemoOptions = {}): Promise<TrainDemoResult> {
  const started = Date.now();
  const seed = opts.seed ?? 1;
  const outDir = resolve(opts.outDir ?? join('runs', `train-demo-seed${seed}`));
  mkdirSync(outDir, { recursive: true });
  const say = opts.quiet ? () => undefined : (s: string) => console.log(s);
  const { backend } = await useBackend(opts.backend ?? 'wasm');
  const cfg = DEMO_CONFIG;
  const family = new DigitTaskFamily(cfg.family);
  const model = createTinyGpt({ vocabSize: family.vocabSize, contextLength: family.maxEpisodeTokens, ...cfg.model, seed });
  const heldOut = family.heldOut(cfg.eval.tasks, `heldout-${seed}`);
  const evaluate = async () =>
    (await evaluateSolveRate(model, family, heldOut, { samples: cfg.eval.samples, temperature: cfg.eval.temperature, seed })).solveRate;
  const paths = {
    checkpoint: join(outDir, 'checkpoint.ckpt'),
    log: join(outDir, 'updates.jsonl'),
    warm: join(outDir, 'warm-start.json'),
    pilots: join(outDir, 'pilots.json'),
    report: join(outDir, 'report.html'),
    summary: join(outDir, 'summary.json'),
  };
  say(
    `frognano train demo: seed ${seed}, backend ${backend}, TinyGpt ${model.parameterCount.toLocaleString('en-US')} parameters, digit tasks (${cfg.family.ops.join(', ')}; length ${cfg.family.minLength}-${cfg.family.maxLength}; check tool)`,
  );

  const resuming = opts.resume === true && existsSync(paths.checkpoint) && existsSync(paths.warm);
  let before: number;
  let sftSeconds = 0;
  if (resuming) {
    before = (JSON.parse(readFileSync(paths.warm, 'utf8')) as { before: number }).before;
    say(`resuming from ${paths.checkpoint} (held-out before RL was ${pct(before)})`);
  } else {
    const t0 = Date.now();
    say(`1/4 SFT warm start: ${cfg.sft.steps} steps on ${cfg.sft.demonstrations} demonstrations of a sloppy solver (misreads the operation ${cfg.family.demoMisreadRate * 100}% of the time)`);
    const losses = await sftPretrain(model, family.demonstrations(cfg.sft.demonstrations, seed), {
      steps: cfg.sft.steps,
      batchSize: cfg.sft.batchSize,
      learningRate: cfg.sft.learningRate,
      seed,
      onStep: (s, loss) => {
        if (!opts.quiet && process.stderr.isTTY) process.stderr.write(`\r\x1b[K    step ${s + 1}/${cfg.sft.steps}  loss ${loss.toFixed(3)}`);
      },
    });
    if (!opts.quiet && process.stderr.isTTY) process.stderr.write('\r\x1b[K');
    sftSeconds = (Date.now() - t0) / 1000;
    say(`    loss ${losses[0]!.toFixed(3)} -> ${losses[losses.length - 1]!.toFixed(3)} (${sftSeconds.toFixed(0)} s)`);
    before = await evaluate();
    writeFileSync(paths.warm, JSON.stringify({ seed, before, sftLosses: losses }));
  }
  say(`2/4 held-out solve rate before RL: ${pct(before)} (${cfg.eval.tasks} terse tasks x ${cfg.eval.samples} samples, temperature ${cfg.eval.temperature})`);

  const t1 = Date.now();
  const tc = cfg.trainer;
  say(
    `3/4 FrogNano: ${tc.iterations} iterations of TaskPilot (${tc.pilot.candidates} candidates, N = ${tc.pilot.rollouts}, target p̂ = 0.5, ${tc.pilot.maxRounds} refinement rounds) + RL climb (${tc.updatesPerIteration} updates of ${tc.groupsPerUpdate} tasks x ${tc.groupSize} rollouts, DPPO, policy lag <= ${tc.maxLag})`,
  );
  const trainer = new FrogNanoTrainer(
    { policy: model, env: family, family },
    { ...tc, seed, checkpointPath: paths.checkpoint, logPath: paths.log, progress: !opts.quiet },
  );
  const run = await trainer.run({ resume: resuming, stopAfterUpdates: opts.stopAfterUpdates });
  const rlSeconds = (Date.now() - t1) / 1000;
  writeFileSync(paths.pilots, JSON.stringify(run.pilots));
  if (run.stopped) {
    say(`stopped after ${run.records.length} updates (as if killed); rerun with --resume to continue from ${paths.checkpoint}`);
    model.dispose();
    return { seed, backend, parameters: model.parameterCount, before, after: null, gain: null, stopped: true, seconds: { sft: sftSeconds, rl: rlSeconds, total: (Date.now() - started) / 1000 }, outDir };
  }
  const after = await evaluate();
  say(`4/4 held-out solve rate after RL: ${pct(after)} (${after >= before ? '+' : ''}${((after - before) * 100).toFixed(1)} points)`);
  const total = (Date.now() - started) / 1000;
  writeTrainingReport(paths.report, {
    title: `FrogNano train demo, seed ${seed}`,
    records: run.records,
    pilots: run.pilots,
    heldOut: { before, after, label: `${cfg.eval.tasks} terse tasks x ${cfg.eval.samples} samples, temperature ${cfg.eval.temperature}` },
    notes: [
      `TinyGpt ${model.parameterCount} parameters (${JSON.stringify(cfg.model)}), backend ${backend}; digit tasks ${JSON.stringify(cfg.family)}`,
      `trainer ${JSON.stringify(tc)}`,
      `wall clock: SFT ${sftSeconds.toFixed(0)} s, TaskPilot + RL ${rlSeconds.toFixed(0)} s, total ${total.toFixed(0)} s`,
    ],
    describe: (t) => family.describe(t),
  });
  const result: TrainDemoResult = {
    seed,
    backend,
    parameters: model.parameterCount,
    before,
    after,
    gain: after - before,
    stopped: false,
    seconds: { sft: sftSeconds, rl: rlSeconds, total },
    outDir,
  };
  writeFileSync(paths.summary, JSON.stringify(result, null, 2));
  say(`report ${paths.report}\nlog ${paths.log}\ncheckpoint ${paths.checkpoint}\ntotal ${total.toFixed(0)} s`);
  model.dispose();
  return result;
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

function parseArgs(argv: string[]): TrainDemoOptions {
  const o: TrainDemoOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--seed') o.seed = Number(next());
    else if (a === '--out') o.outDir = next();
    else if (a === '--resume') o.resume = true;
    else if (a === '--stop-after') o.stopAfterUpdates = Number(next());
    else if (a === '--backend') o.backend = next() as BackendName;
    else if (a === '--quiet') o.quiet = true;
    else throw new Error(`unknown argument ${a} (use --seed N, --out DIR, --resume, --stop-after N, --backend NAME, --quiet)`);
  }
  return o;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runTrainDemo(parseArgs(process.argv.slice(2))).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}

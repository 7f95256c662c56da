/**
 * The FrogNano recipe end to end on a CPU, in a few minutes: a tiny GPT learns
 * digit tasks with TaskPilot iterations and DPPO climbs (FrogNano Fig. 3).
 *
 *   npx tsx --conditions=@frognano/source examples/train-demo.ts [--seed N] [--out DIR] [--resume] [--stop-after N] [--backend wasm|cpu|webgpu|auto] [--quick] [--allow-config-change] [--quiet]
 *   npx tsx --conditions=@frognano/source examples/train-demo.ts --help
 *
 * 1. SFT warm start: the starting checkpoint imitates a sloppy solver that
 *    misreads the operation 30% of the time (and sometimes checks its answer
 *    with the tool), so supervised learning alone plateaus at its accuracy.
 * 2. Held-out solve rate before RL (200 terse tasks x 4 samples, temperature 0.6).
 * 3. FrognanoTrainer: 5 iterations of TaskPilot (512 candidates, N = 8,
 *    the paper's bands: p̂ = 0.5, then (0, 0.5] in iteration 5; 3 refinement
 *    rounds), each followed by an RL climb of 60 updates (16 tasks x 8
 *    rollouts, DPPO, asynchronous actor one version behind, log-length
 *    penalty from iteration 3), checkpointed every 10 updates.
 * 4. Held-out solve rate after RL, and a report (HTML) of the run.
 *
 * Outputs go to runs/train-demo-seed<N>/ (report.html, updates.jsonl,
 * pilots.json, checkpoint.ckpt). Kill it at any point and rerun with
 * --resume: it continues from the last checkpoint and ends with the same numbers.
 *
 * --quick runs {@link QUICK_CONFIG} instead (about 10 s on two cores, outputs in
 * runs/train-demo-quick-seed<N>/): the same pipeline, far too short to show a gain;
 * a smoke test of the loop, the checkpoint and the report.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useBackend, type BackendName } from 'frognano/backend';
import { ErrorCode, FrognanoError } from 'frognano/errors';
import { DigitTaskFamily, type DigitTaskOptions } from 'frognano/env';
import { createTinyGpt, type TinyGptOptions } from 'frognano/models';
import {
  evaluateSolveRate,
  FrognanoTrainer,
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
    // typed with the optional fixed band QUICK_CONFIG sets (the default has none: the paper's schedule)
    pilot: { candidates: 512, rollouts: 8, maxRounds: 3 } as { candidates: number; rollouts: number; maxRounds: number; band?: { low: number; high: number } },
    checkpointEvery: 10,
  } satisfies Partial<TrainerOptions>,
};

/**
 * `--quick`: {@link DEMO_CONFIG} cut down to a smoke run of about 10 s on two CPU
 * cores (wasm): same model and task family, 50 SFT steps on 1,000
 * demonstrations, 2 iterations of TaskPilot (24 candidates, 1 refinement round,
 * the broad band 0 < p̂ < 1 so that the barely trained policy finds tasks) with
 * 5-update climbs of 8 tasks x 8 rollouts, 40 held-out tasks x 2 samples. It shows
 * the whole pipeline (checkpoint, resume, report), not a gain.
 */
export const QUICK_CONFIG: typeof DEMO_CONFIG = {
  ...DEMO_CONFIG,
  sft: { demonstrations: 1000, steps: 50, batchSize: 48, learningRate: 1e-2 },
  eval: { tasks: 40, samples: 2, temperature: 0.6 },
  trainer: {
    ...DEMO_CONFIG.trainer,
    iterations: 2,
    updatesPerIteration: 5,
    groupsPerUpdate: 8,
    reward: { ...DEMO_CONFIG.trainer.reward, lengthPenaltyFromIteration: 2 },
    pilot: { candidates: 24, rollouts: 8, maxRounds: 1, band: { low: 0, high: 1 } },
    checkpointEvery: 3,
  },
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
  /** Run {@link QUICK_CONFIG} (about 10 s) instead of {@link DEMO_CONFIG}. Default output folder `runs/train-demo-quick-seed<seed>`. */
  quick?: boolean;
  /** On `resume`, accept a checkpoint written under another training configuration (`RunControl.allowConfigChange`). */
  allowConfigChange?: boolean;
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
  const outDir = resolve(opts.outDir ?? join('runs', `train-demo-${opts.quick ? 'quick-' : ''}seed${seed}`));
  mkdirSync(outDir, { recursive: true });
  const say = opts.quiet ? () => undefined : (s: string) => console.log(s);
  const { backend } = await useBackend(opts.backend ?? 'wasm');
  const cfg = opts.quick ? QUICK_CONFIG : DEMO_CONFIG;
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

  const resuming = opts.resume === true && existsSync(paths.checkpoint);
  let before: number;
  let sftSeconds = 0;
  if (resuming) {
    before = readWarmStart(paths.warm).before;
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
    `3/4 FrogNano: ${tc.iterations} iterations of TaskPilot (${tc.pilot.candidates} candidates, N = ${tc.pilot.rollouts}, ${bandText(tc.pilot)}, ${tc.pilot.maxRounds} refinement rounds) + RL climb (${tc.updatesPerIteration} updates of ${tc.groupsPerUpdate} tasks x ${tc.groupSize} rollouts, DPPO, policy lag <= ${tc.maxLag})`,
  );
  const trainer = new FrognanoTrainer(
    { policy: model, env: family, family },
    { ...tc, seed, checkpointPath: paths.checkpoint, logPath: paths.log, progress: !opts.quiet },
  );
  const run = await trainer.run({ resume: resuming, stopAfterUpdates: opts.stopAfterUpdates, allowConfigChange: opts.allowConfigChange });
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

/** The TaskPilot target as the progress line states it: the paper's schedule, or the fixed band of {@link QUICK_CONFIG}. */
function bandText(pilot: { band?: { low: number; high: number } }): string {
  return pilot.band === undefined ? 'target p̂ = 0.5' : `band ${pilot.band.low} < p̂ < ${pilot.band.high}`;
}

/**
 * Reads the warm start's record (`warm-start.json`: the held-out solve rate before
 * RL) that a resumed run reports. Any problem names the file.
 *
 * @throws FrognanoError `CHECKPOINT_INVALID` naming `path`: missing, unreadable, not JSON, or without a `before` in [0, 1]
 */
export function readWarmStart(path: string): { seed?: number; before: number } {
  const fn = 'readWarmStart';
  const bad = (why: string, cause?: unknown): FrognanoError =>
    new FrognanoError(ErrorCode.CHECKPOINT_INVALID, `${path}: ${why}; delete the folder's checkpoint.ckpt (or run without --resume) to start over`, {
      fn,
      field: 'path',
      cause,
    });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw bad(`the warm start's record cannot be read (${(e as Error).message.split('\n')[0]})`, e);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw bad(`the warm start's record is not valid JSON (${(e as Error).message})`, e);
  }
  const before = (value as { before?: unknown } | null)?.before;
  if (typeof before !== 'number' || !(before >= 0 && before <= 1)) {
    throw bad(`the warm start's record has no held-out solve rate "before" in [0, 1] (got ${JSON.stringify(before) ?? 'nothing'})`);
  }
  return value as { seed?: number; before: number };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** The `--help` text. */
export const USAGE = `frognano train demo: the FrogNano recipe end to end on a CPU (see docs/training.md, section 8).

Usage: npx tsx --conditions=@frognano/source examples/train-demo.ts [flags]
       npm run demo:train -- [flags]

Flags:
  --seed N               seed of everything: model init, demonstrations, TaskPilot, sampling (default 1)
  --out DIR              output folder (default runs/train-demo-seed<N>, with --quick runs/train-demo-quick-seed<N>)
  --backend NAME         tfjs backend: wasm, cpu, webgpu, cuda or auto (default wasm)
  --resume               continue from DIR/checkpoint.ckpt when it exists (same final numbers as an uninterrupted run)
  --stop-after N         stop after N RL updates, as if killed (resume later with --resume)
  --quick                small configuration: about 10 s on two cores instead of about 2 minutes; shows the
                         pipeline, not a gain (50 SFT steps, 2 iterations of 24 candidates, 5-update climbs)
  --allow-config-change  with --resume: accept a checkpoint written under another configuration
                         (e.g. a --quick checkpoint resumed without --quick); refused otherwise
  --quiet                no progress output
  -h, --help             this text

Outputs in DIR: report.html, updates.jsonl, pilots.json, checkpoint.ckpt, warm-start.json, summary.json.

Examples:
  examples/train-demo.ts                              # seed 1, the full demo (about 2 minutes on two cores)
  examples/train-demo.ts --quick                      # a 10-second smoke run
  examples/train-demo.ts --seed 2 --stop-after 150    # "killed" after 150 updates
  examples/train-demo.ts --seed 2 --resume            # continues from the checkpoint; same final numbers
`;

/** A command-line mistake: reported as one line and exit code 2, without a stack trace. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const BACKENDS = ['wasm', 'cpu', 'webgpu', 'cuda', 'auto'];

/** The demo's command line: options, or `'help'` for `-h` / `--help`. @throws UsageError */
export function parseArgs(argv: string[]): TrainDemoOptions | 'help' {
  const o: TrainDemoOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      return v;
    };
    const int = (min: number): number => {
      const v = next();
      const x = Number(v);
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(x) || x < min) throw new UsageError(`${a} needs an integer >= ${min}, got ${JSON.stringify(v)}`);
      return x;
    };
    if (a === '-h' || a === '--help') return 'help';
    else if (a === '--seed') o.seed = int(0);
    else if (a === '--out') o.outDir = next();
    else if (a === '--resume') o.resume = true;
    else if (a === '--stop-after') o.stopAfterUpdates = int(1);
    else if (a === '--backend') {
      const b = next();
      if (!BACKENDS.includes(b)) throw new UsageError(`--backend must be one of ${BACKENDS.join(', ')}, got ${JSON.stringify(b)}`);
      o.backend = b as BackendName;
    } else if (a === '--quiet') o.quiet = true;
    else if (a === '--quick') o.quick = true;
    else if (a === '--allow-config-change') o.allowConfigChange = true;
    else throw new UsageError(`unknown argument ${a}`);
  }
  return o;
}

/** The command line: `--help` prints {@link USAGE}; errors print one line (no stack trace). Returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let opts: TrainDemoOptions | 'help';
  try {
    opts = parseArgs(argv);
  } catch (e) {
    console.error(`train-demo: ${(e as Error).message} (see --help)`);
    return 2;
  }
  if (opts === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  try {
    await runTrainDemo(opts);
    return 0;
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    if (e instanceof Error && e.message.includes('allowConfigChange')) console.error('train-demo: rerun with --allow-config-change to continue under this configuration');
    return 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => {
    if (code !== 0) process.exit(code);
  });
}

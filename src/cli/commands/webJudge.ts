/**
 * `frognano web-judge` (SPEC §13): the interactive web judge of Verification
 * Horizon §3.2 on one app, printing SPEC §13's JSON document and writing the
 * HTML report and the screenshots under `--out`. Loaded only when the
 * subcommand runs (the CLI's runner table imports it dynamically).
 * @module
 */
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type CliIo, defined, ExitCode, type FlagSpec, flagLines, intFlag, numberFlag, parseFlags, UsageError } from '../../commands/index.js';
import { FrognanoError, isFrognanoError } from '../../errors/index.js';
import { type ChatModel, openAiChatModel } from '../../llm/index.js';
import { judgeInteraction, loadWebRubric, planAndRunActions, type PlannedRun, type WebRubric, type WebVerdict, writeWebJudgeReport } from '../../webjudge/index.js';
import { withSignals } from '../signals.js';
import { stringifyWire } from '../../wire/index.js';

/** The flags of `frognano web-judge`. */
export const WEB_JUDGE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  app: { type: 'string', value: 'DIR', description: 'the app\'s folder: served statically on 127.0.0.1 (or with --start); its sources go to the judge. Required' },
  rubric: { type: 'string', value: 'FILE', description: 'the rubric: {"task": string, "items": [{"id", "dimension", "text"}]} (SPEC §13). Required' },
  out: { type: 'string', value: 'DIR', description: 'folder for the screenshots (step-000.png, ...) and report.html (default: a new folder under the system temp dir)' },
  start: { type: 'string', value: 'CMD', description: 'start the app with its own server: bash -c CMD in a copy of DIR with PORT set, in the Leaf sandbox (bubblewrap)' },
  'unsafe-no-sandbox': { type: 'boolean', description: 'UNSAFE: with --start, run CMD without bubblewrap, unisolated, on this machine' },
  'base-url': { type: 'string', value: 'URL', description: 'OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1 (default FROGNANO_LLM_BASE_URL)' },
  model: { type: 'string', value: 'NAME', description: 'planner (and judge) model id (default FROGNANO_LLM_MODEL); the key comes from FROGNANO_LLM_API_KEY' },
  'judge-model': { type: 'string', value: 'NAME', description: 'a different (vision) model for the judge (default: --model)' },
  temperature: { type: 'string', value: 'T', description: 'sampling temperature of both models (default: the server\'s)' },
  seed: { type: 'string', value: 'S', description: 'sampling seed sent with both calls (OpenAI seed)' },
  'max-actions': { type: 'string', value: 'N', description: 'the most actions run (default 30)' },
  'action-timeout': { type: 'string', value: 'S', description: 'time limit of one action, seconds (default 5)' },
  'run-timeout': { type: 'string', value: 'S', description: 'time limit of the whole browser run, seconds (default 120)' },
  'start-timeout': { type: 'string', value: 'S', description: 'with --start: seconds until the app\'s port must answer (default 30)' },
  'max-screenshots': { type: 'string', value: 'N', description: 'screenshots the judge sees, evenly sampled with the first and last (default 6)' },
  help: { type: 'boolean', description: 'this help' },
};

/** `frognano web-judge --help`. */
export function webJudgeHelp(): string {
  return [
    'frognano web-judge: the interactive web judge (Verification Horizon §3.2, SPEC §13)',
    '',
    'Usage: frognano web-judge --app DIR --rubric FILE [--out DIR] [--start CMD]',
    'Calls: planAndRunActions (planActions, runActions), judgeInteraction (frognano/webjudge)',
    '',
    'A planner model sees the loaded page (ARIA snapshot, URL, title) and the rubric and returns',
    'the whole action list at once; headless Chromium runs it, recording after each action a',
    'screenshot, the ARIA snapshot, the URL and the console (other origins are blocked); a judge',
    'model decides every rubric item from sampled screenshots, the steps and the source.',
    'Needs Chromium (Debian package chromium, or FROGNANO_CHROMIUM) and the npm package playwright-core.',
    '',
    'Output (stdout): one JSON document',
    '  { "plan": [actions], "steps": [{ "index", "action", "ok", "error"?, "url", "snapshot",',
    '    "console", "screenshot", ... }], "verdict": { "items": [{ "id", "passed", "step",',
    '    "observation" }] }, "score": number in [0, 1], "report": "<out>/report.html" }',
    '  No verdict (exit 4): the document is still printed, with "error": { "code", "message" }:',
    '    the judge\'s answer refused (or the judge model unavailable): "verdict": null,',
    '    "score": null, with "plan", "steps" and "report" as above;',
    '    the plan refused (or the planner model unavailable, the --start app down), so nothing',
    '    ran: { "plan": null, "steps": [], "verdict": null, "score": null, "report": null, "error" }',
    '',
    'Flags:',
    ...flagLines(WEB_JUDGE_FLAGS),
    '',
    'Example:',
    '  $ FROGNANO_LLM_BASE_URL=http://127.0.0.1:8000/v1 FROGNANO_LLM_MODEL=Qwen/Qwen2.5-VL-7B-Instruct \\',
    '      frognano web-judge --app out/todo-app --rubric todo.rubric.json --out out/todo-judge',
    '',
    'Exit codes:',
    '  0    judged: the document has a verdict and a score',
    '  1    the rubric file is invalid (the field is named), or --app is not a folder',
    '  2    bad usage: flags, no model configured, Chromium / playwright-core / bubblewrap missing',
    '  4    no verdict (the document with "error" is printed): the model was unavailable, its',
    '       plan or verdict was refused after the retries (never a score), or the --start app',
    '       did not answer',
    '  130  interrupted (SIGINT; 143 for SIGTERM): the browser and the app were closed',
    '',
  ].join('\n');
}

/** Exit code of a run without a verdict. */
const NO_VERDICT = 4;
/** What the run returns when a signal aborted it (the exit code is then 130 or 143). */
const INTERRUPTED = -1;

function seconds(flags: Record<string, unknown>, name: string): number | undefined {
  const v = numberFlag(flags as never, name);
  if (v !== undefined && !(v > 0)) throw new UsageError(`--${name} must be > 0 seconds, got ${String(flags[name])}`);
  return v === undefined ? undefined : Math.max(1, Math.round(v * 1000));
}

function buildModel(flags: Record<string, unknown>, model: string | undefined): ChatModel {
  try {
    return openAiChatModel(
      defined({
        baseUrl: flags['base-url'] as string | undefined,
        model,
        temperature: numberFlag(flags as never, 'temperature'),
      }),
    );
  } catch (e) {
    if (e instanceof FrognanoError) throw new UsageError(e.message.replace(/^openAiChatModel: /, '').replace(/opts\.baseUrl/, '--base-url').replace(/opts\.model/, '--model'));
    throw e;
  }
}

/**
 * The document printed when stages 1 and 2 produced nothing (the plan was refused after
 * the retries, the planner model was unavailable, the `--start` app did not answer):
 * SPEC §13's keys, all empty, plus `error`, like the document of a refused verdict.
 */
function noPlanDocument(e: FrognanoError): { plan: null; steps: []; verdict: null; score: null; report: null; error: { code: string; message: string } } {
  return { plan: null, steps: [], verdict: null, score: null, report: null, error: { code: e.code, message: e.message } };
}

/** Errors of this machine's set-up (missing packages): bad usage, exit 2, with the package to install. */
const SETUP_CODES = new Set(['BROWSER_UNAVAILABLE', 'SANDBOX_UNAVAILABLE']);

/** `frognano web-judge` (SPEC §13). */
export async function runWebJudge(argv: readonly string[], io: CliIo): Promise<number> {
  const label = 'frognano web-judge';
  const flags = parseFlags(argv, WEB_JUDGE_FLAGS);
  if (flags.help) {
    io.stdout.write(webJudgeHelp());
    return ExitCode.OK;
  }
  if (typeof flags.app !== 'string') throw new UsageError('--app DIR is required');
  if (typeof flags.rubric !== 'string') throw new UsageError('--rubric FILE is required');
  if (flags['unsafe-no-sandbox'] && typeof flags.start !== 'string') throw new UsageError('--unsafe-no-sandbox only applies with --start');
  const appDir = resolve(flags.app);
  if (!(await stat(appDir).catch(() => null))?.isDirectory()) {
    io.stderr.write(`${label}: --app ${flags.app} is not a folder\n`);
    return ExitCode.INVALID_INPUT;
  }
  let rubric: WebRubric;
  try {
    rubric = await loadWebRubric(flags.rubric);
  } catch (e) {
    if (!(e instanceof FrognanoError)) throw e;
    io.stderr.write(`${label}: ${e.message.replace(/^loadWebRubric: /, '')}\n`);
    return ExitCode.INVALID_INPUT;
  }
  const seed = numberFlag(flags, 'seed');
  if (seed !== undefined && !Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got ${String(flags.seed)}`);
  const model = buildModel(flags, flags.model as string | undefined);
  const judgeModel = typeof flags['judge-model'] === 'string' ? buildModel(flags, flags['judge-model']) : model;
  const maxActions = intFlag(flags, 'max-actions', 1);
  const maxScreenshots = intFlag(flags, 'max-screenshots', 0);
  const run = defined({
    actionTimeoutMs: seconds(flags, 'action-timeout'),
    runTimeoutMs: seconds(flags, 'run-timeout'),
    startTimeoutMs: seconds(flags, 'start-timeout'),
    isolation: flags['unsafe-no-sandbox'] ? ('none' as const) : undefined,
  });
  const outDir = typeof flags.out === 'string' ? resolve(flags.out) : await mkdtemp(join(tmpdir(), 'frognano-web-judge-'));
  const complete = defined({ seed });
  if (flags['unsafe-no-sandbox']) io.stderr.write(`${label}: WARNING: --unsafe-no-sandbox: the app's command runs on this machine without isolation\n`);

  // SIGINT / SIGTERM abort the run: the browser and the app are closed before exiting (130 / 143)
  const { value, interrupted } = await withSignals((signal) => judgeApp(signal));
  return interrupted && value === INTERRUPTED ? (interrupted === 'SIGTERM' ? 143 : 130) : value;

  async function judgeApp(signal: AbortSignal): Promise<number> {
    let planned: PlannedRun;
    try {
      planned = await planAndRunActions({ dir: appDir, ...(typeof flags.start === 'string' ? { start: flags.start } : {}) }, rubric, {
        model,
        outDir,
        planner: defined({ maxActions, complete }),
        run,
        signal,
      });
    } catch (e) {
      if (signal.aborted) return INTERRUPTED;
      if (isFrognanoError(e) && SETUP_CODES.has(e.code)) throw new UsageError(e.message);
      if (isFrognanoError(e)) {
        // nothing ran: the same document as a refused verdict, with nothing in it but the error
        io.stdout.write(`${stringifyWire(noPlanDocument(e))}\n`);
        io.stderr.write(`${label}: no verdict (${e.code}): ${e.message}\n`);
        return NO_VERDICT;
      }
      throw e;
    }
    let verdict: WebVerdict | null = null;
    let failure: FrognanoError | null = null;
    try {
      verdict = await judgeInteraction(planned.run, rubric, { model: judgeModel, ...defined({ maxScreenshots }), complete: { ...complete, signal } });
    } catch (e) {
      if (signal.aborted) return INTERRUPTED;
      if (!isFrognanoError(e)) throw e;
      failure = e;
    }
    const report = await writeWebJudgeReport({ run: planned.run, rubric, verdict, ...(failure ? { refused: failure.message } : {}) }, outDir);
    const doc = {
      plan: planned.plan,
      steps: planned.run.steps,
      verdict: verdict ? { items: verdict.items } : null,
      score: verdict ? verdict.score : null,
      report,
      ...(failure ? { error: { code: failure.code, message: failure.message } } : {}),
    };
    // scores are JSON numbers with a fraction part (SPEC §11), as the service writes them
    io.stdout.write(`${stringifyWire(doc)}\n`);
    const failed = planned.run.steps.filter((s) => !s.ok).length;
    io.stderr.write(
      `${label}: ${verdict ? `score ${verdict.score.toFixed(3)}, ${verdict.items.filter((i) => i.passed).length}/${verdict.items.length} items passed` : `no verdict (${failure!.code})`}; ${planned.run.steps.length} steps (${failed} failed), ${planned.run.blocked.length} blocked requests; report ${report}\n`,
    );
    return verdict ? ExitCode.OK : NO_VERDICT;
  }
}

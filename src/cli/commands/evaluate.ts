/**
 * `frognano evaluate`: SWE-bench-style evaluation of predictions (the patches
 * mini-swe-agent, SWE-agent or any harness wrote) against a Leaf tasks file,
 * each graded exactly as an episode is, written as SWE-bench's `report.json`.
 * Loaded only when the subcommand runs.
 * @module
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type CliIo, defined, ExitCode, type FlagSpec, flagLines, intFlag, parseFlags, positiveFlag, UsageError } from '../../commands/index.js';
import { FrognanoError, isFrognanoError } from '../../errors/index.js';
import { createSandbox, evaluatePredictions, type InstanceEvaluation, type LoadedLeafTask, loadLeafTasks, loadPredictions, type Sandbox } from '../../leaf/index.js';
import { openOutputFile } from '../outputFile.js';
import { InvalidInputError } from '../run.js';
import { withSignals } from '../signals.js';

/** The flags of `frognano evaluate`. */
export const EVALUATE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  tasks: { type: 'string', value: 'FILE', description: 'the tasks file (SPEC §12, §14): JSONL or one JSON array; a task id is an instance_id. Required' },
  predictions: { type: 'string', value: 'FILE', description: 'the predictions: a JSON array, JSONL, or SWE-bench\'s dict form, of {instance_id, model_name_or_path, model_patch}. Required' },
  out: { type: 'string', value: 'FILE', description: 'write report.json here, atomically (default stdout)' },
  logs: { type: 'string', value: 'DIR', description: 'write each instance\'s grading log to DIR/<instance_id>.log (default: none)' },
  concurrency: { type: 'string', value: 'C', description: 'instances graded at once (default 1)' },
  'timeout-seconds': { type: 'string', value: 'S', description: 'time limit of each test run (default: the task\'s commandSeconds, 120)' },
  'unsafe-no-sandbox': { type: 'boolean', description: 'UNSAFE: run the tests without bubblewrap, unisolated, on this machine (only for trusted patches where bwrap cannot run)' },
  help: { type: 'boolean', description: 'this help' },
};

/** `frognano evaluate --help`. */
export function evaluateHelp(): string {
  return [
    'frognano evaluate: grade a model\'s predictions (patches) against a tasks file, SWE-bench style',
    '',
    'Usage: frognano evaluate --tasks FILE --predictions preds.json [--out report.json] [--logs DIR] [--concurrency C] [--timeout-seconds S]',
    'Calls: evaluatePredictions (createWorkspace, applyUnifiedDiff, gradeRepo)',
    '',
    'For each prediction: a fresh copy of its task\'s repository, model_patch applied (every hunk exact),',
    'then graded exactly as a rollout episode (planted files dropped, hidden files and tests.patch',
    'written, the tests run in the sandbox and read per test by SPEC §14).',
    '',
    'Output: SWE-bench\'s report.json, one entry per instance: {"<instance_id>": {"patch_is_None",',
    '  "patch_exists", "patch_successfully_applied", "resolved", "tests_status": {"FAIL_TO_PASS":',
    '  {"success": [...], "failure": [...]}, "PASS_TO_PASS": ..., "FAIL_TO_FAIL": ..., "PASS_TO_FAIL": ...}}}',
    '  (tests_status only when the tests ran). Stderr: one line per instance, then "N of M resolved".',
    '  A prediction for no task is an error line on stderr and is skipped.',
    '',
    'Flags:',
    ...flagLines(EVALUATE_FLAGS),
    '',
    'Example:',
    '  $ frognano evaluate --tasks tasks.jsonl --predictions preds.json --out report.json --concurrency 4',
    '',
    'Exit codes:',
    '  0    every instance was evaluated (unresolved instances are data)',
    '  1    the tasks or predictions file is malformed ("preds.json record 2: model_patch: ...")',
    '  2    bad usage: flags, a missing file, --out not writable, bubblewrap missing',
    '  130  interrupted (SIGINT; 143 for SIGTERM): no report is written',
    '',
  ].join('\n');
}

/** A library error's message without its `fn: ` prefix. */
function reason(e: FrognanoError): string {
  return e.fn && e.message.startsWith(`${e.fn}: `) ? e.message.slice(e.fn.length + 2) : e.message;
}

/** The path of a required file flag; a missing flag or file is bad usage. */
async function fileFlag(value: unknown, name: string): Promise<string> {
  if (typeof value !== 'string') throw new UsageError(`--${name} FILE is required`);
  if (!(await stat(value).catch(() => null))?.isFile()) throw new UsageError(`cannot read --${name} ${value}: not a file`);
  return value;
}

/** Runs `load`, turning a malformed file into invalid input (exit 1, the message naming file, record and field). */
async function loadInput<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if (e instanceof FrognanoError) throw new InvalidInputError(reason(e));
    throw e;
  }
}

/** The sandbox of the grading runs: no bind may expose the tasks file (hidden tests) or other instances' copies. */
function sandboxFor(files: string[], unsafe: boolean): Sandbox {
  try {
    return createSandbox({ unsafeNoSandbox: unsafe, protectedPaths: [...files.map((f) => resolve(f)), tmpdir()] });
  } catch (e) {
    if (isFrognanoError(e, 'SANDBOX_UNAVAILABLE')) throw new UsageError(e.message);
    throw e;
  }
}

/** The stderr line of one instance. */
function instanceLine(e: InstanceEvaluation): string {
  return `frognano evaluate: ${e.instanceId}: ${e.report.resolved ? 'resolved' : `unresolved: ${e.reason ?? 'the tests failed'}`}\n`;
}

/** A file name for an instance's log: the id with every character outside `[A-Za-z0-9._-]` as `_`. */
export function logFileName(instanceId: string): string {
  const safe = instanceId.replace(/[^A-Za-z0-9._-]/g, '_');
  return `${safe === '.' || safe === '..' ? '_' : safe}.log`;
}

/** `--logs DIR` created, or bad usage. */
async function logsDir(value: unknown): Promise<string | undefined> {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new UsageError('--logs needs a folder');
  await mkdir(value, { recursive: true }).catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot create --logs ${value}: ${e.code ?? e.message}`);
  });
  return value;
}

/** Writes the report, pretty-printed as SWE-bench's `json.dump(..., indent=4)` files are read: to `--out` atomically, or stdout. */
async function writeReport(text: string, path: string | undefined, io: CliIo): Promise<void> {
  if (path === undefined || path === '-') {
    await new Promise<void>((res, rej) => io.stdout.write(text, (e) => (e && (e as NodeJS.ErrnoException).code !== 'EPIPE' ? rej(e) : res())));
    return;
  }
  const out = await openOutputFile(path, { atomic: true });
  try {
    await new Promise<void>((res, rej) => out.stream.write(text, (e) => (e ? rej(e) : res())));
    await out.commit();
  } catch (e) {
    await out.abort();
    throw e;
  }
}

/** `frognano evaluate`. */
export async function runEvaluate(argv: readonly string[], io: CliIo): Promise<number> {
  const flags = parseFlags(argv, EVALUATE_FLAGS);
  if (flags.help) {
    io.stdout.write(evaluateHelp());
    return ExitCode.OK;
  }
  const concurrency = intFlag(flags, 'concurrency', 1) ?? 1;
  const timeoutSeconds = positiveFlag(flags, 'timeout-seconds');
  const tasksFile = await fileFlag(flags.tasks, 'tasks');
  const predsFile = await fileFlag(flags.predictions, 'predictions');
  const logs = await logsDir(flags.logs);
  const tasks: LoadedLeafTask[] = await loadInput(() => loadLeafTasks(tasksFile));
  const predictions = await loadInput(() => loadPredictions(predsFile));
  const sandbox = sandboxFor([tasksFile, predsFile], flags['unsafe-no-sandbox'] === true);
  if (sandbox.kind === 'none') io.stderr.write('frognano evaluate: WARNING: --unsafe-no-sandbox: the tests run on this machine without isolation\n');
  const known = new Set(tasks.map((t) => t.id));
  for (const { where, prediction } of predictions) {
    if (!known.has(prediction.instance_id)) io.stderr.write(`frognano evaluate: error: ${predsFile} ${where}: instance_id ${JSON.stringify(prediction.instance_id)} is no task's id in ${tasksFile}; skipped\n`);
  }
  const { value: outcome, interrupted } = await withSignals((signal) =>
    evaluatePredictions(tasks, predictions.map((p) => p.prediction), {
      sandbox,
      concurrency,
      signal,
      ...defined({ timeoutSeconds }),
      onInstance: async (e) => {
        io.stderr.write(instanceLine(e));
        if (logs !== undefined) await writeFile(join(logs, logFileName(e.instanceId)), e.log);
      },
    }).catch((e: unknown) => {
      if (isFrognanoError(e, 'SANDBOX_UNAVAILABLE')) throw new UsageError(e.message);
      throw e;
    }),
  );
  if (interrupted) return interrupted === 'SIGTERM' ? 143 : 130;
  await writeReport(`${JSON.stringify(outcome.report, null, 4)}\n`, flags.out as string | undefined, io);
  const resolved = outcome.evaluations.filter((e) => e.report.resolved).length;
  const skipped = outcome.unknown.length ? ` (${outcome.unknown.length} skipped: no such task)` : '';
  io.stderr.write(`frognano evaluate: ${resolved} of ${outcome.evaluations.length} resolved${skipped}\n`);
  return ExitCode.OK;
}

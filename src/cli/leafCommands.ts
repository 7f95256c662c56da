import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { checkFlagOptions, type CliIo, defined, ExitCode, type FlagSpec, flagLines, intFlag, numberFlag, type ParsedFlags, parseFlags, positiveFlag, UsageError } from '../commands/index.js';
import { validateCompactionConfig } from '../compaction/index.js';
import { FrognanoError, isFrognanoError } from '../errors/index.js';
import { createSandbox, LeafLimitsSchema, type LoadedLeafTask, loadLeafTasks, resolveLimits, rolloutTasks, type RolloutProgress, type RolloutRecord, type Sandbox, validateLeafTask } from '../leaf/index.js';
import { openAiChatModel } from '../llm/index.js';
import { stringifyWire } from '../wire/index.js';
import { InvalidInputError } from './run.js';
import { openOutputFile, type OutputFile } from './outputFile.js';
import { type ResumePlan, resumeRollout } from './rolloutResume.js';
import { withSignals } from './signals.js';
import { runInOrder } from './inOrder.js';
import { taskFieldWarnings } from './taskFieldWarnings.js';

const SANDBOX_FLAGS: Readonly<Record<string, FlagSpec>> = {
  tasks: { type: 'string', value: 'FILE', description: 'the tasks file (SPEC §12): JSONL, or one JSON array when its first character is [ (whatever its name); repo paths relative to its folder. Required' },
  'unsafe-no-sandbox': { type: 'boolean', description: 'UNSAFE: run commands without bubblewrap, unisolated, on this machine (only for trusted models where bwrap cannot run)' },
  help: { type: 'boolean', description: 'this help' },
};

/** The flags of `frognano rollout` (its parser's table and its help's). */
export const ROLLOUT_FLAGS: Readonly<Record<string, FlagSpec>> = {
  ...SANDBOX_FLAGS,
  group: { type: 'string', value: 'G', description: 'episodes per task (default 1)' },
  concurrency: { type: 'string', value: 'C', description: 'episodes at once (default 1)' },
  out: { type: 'string', value: 'FILE', description: 'write the JSONL here, task by task as groups finish (default stdout)' },
  resume: { type: 'boolean', description: 'with --out FILE: keep the task groups FILE already holds whole (same task record), drop its other lines, run the rest and append' },
  budget: { type: 'string', value: 'N', description: 'assistant-token budget of the log-length penalty (with --alpha; default: no penalty)' },
  alpha: { type: 'string', value: 'A', description: 'strength of the log-length penalty (with --budget)' },
  seed: { type: 'string', value: 'S', description: 'base sampling seed; each episode sends its own (default 0)' },
  'base-url': { type: 'string', value: 'URL', description: 'OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1 (default FROGNANO_LLM_BASE_URL)' },
  model: { type: 'string', value: 'NAME', description: 'model id (default FROGNANO_LLM_MODEL); the key comes from FROGNANO_LLM_API_KEY' },
  temperature: { type: 'string', value: 'T', description: 'sampling temperature (default: the server\'s)' },
  'max-tokens': { type: 'string', value: 'N', description: 'token limit of one reply; a reply cut by it ends the episode truncated' },
  'model-concurrency': { type: 'string', value: 'N', description: 'model requests in flight at most (default: --concurrency)' },
  logprobs: { type: 'boolean', description: 'record the sampled tokens\' log-probabilities on each assistant message' },
  'token-ids': { type: 'boolean', description: 'with --logprobs, ask vLLM for token ids too (return_tokens_as_token_ids; other servers may refuse the field)' },
  'max-turns': { type: 'string', value: 'N', description: 'assistant turns per episode (default 150; a task\'s own limits win)' },
  'max-context-tokens': { type: 'string', value: 'N', description: 'context limit in tokens (default 131072)' },
  'max-seconds': { type: 'string', value: 'S', description: 'wall time of an episode (default 3600)' },
  'command-seconds': { type: 'string', value: 'S', description: 'wall time of one bash call (default 120)' },
  'grading-seconds': { type: 'string', value: 'S', description: 'wall time of an episode\'s grading run; past it the tests fail (default: the episode\'s commandSeconds)' },
  'compaction-window': { type: 'string', value: 'W', description: 'compact at 0.8 W tokens (FrogNano App. D; default W = the context limit)' },
  'no-compaction': { type: 'boolean', description: 'never compact; the context limit then truncates' },
  progress: { type: 'boolean', description: 'draw a progress bar on stderr (default: when stderr is a TTY; otherwise one line per task)' },
  'no-progress': { type: 'boolean', description: 'print nothing on stderr but warnings and the closing summary line' },
};

/** The flags of `frognano validate-tasks` (its parser's table and its help's). */
export const VALIDATE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  ...SANDBOX_FLAGS,
  'timeout-seconds': { type: 'string', value: 'S', description: 'time limit of each test run (default: the task\'s commandSeconds, 120)' },
  concurrency: { type: 'string', value: 'C', description: 'tasks validated at once (default 1); lines stay in the tasks file\'s order' },
  out: { type: 'string', value: 'FILE', description: 'write the JSONL here, line by line as tasks finish (default stdout)' },
  repeat: { type: 'string', value: 'K', description: 'run each side K times; a test whose status changes between them is flaky and the task invalid (default 1)' },
};

const EXIT_HELP = `Exit codes:
  0    every episode ran (failed tests are data, not errors)
  1    the tasks file is invalid ("tasks.jsonl line 3: ..." or "tasks.json record 3: ...", naming the field),
       or, with --resume, a line of --out is not a rollout record
  2    bad usage: flags, no model configured, --out not writable, --resume without --out, bubblewrap missing
  4    some episodes could not run (the model stayed unavailable); their lines carry "error"
  130  interrupted (SIGINT; 143 for SIGTERM): the lines written so far are complete`;

/** `frognano rollout --help`. */
export function rolloutHelp(): string {
  return [
    'frognano rollout: run the Leaf harness (FrogNano §2) on a tasks file and grade every episode',
    '',
    'Usage: frognano rollout --tasks FILE [--group G] [--concurrency C] [--out FILE [--resume]] [--budget N --alpha A]',
    'Calls: rolloutTasks (runEpisode, createSandbox, shapeReward, groupAdvantages, ruleFunnel)',
    '',
    'Runs G episodes per task against an OpenAI-compatible model (vLLM, SGLang, any hosted API),',
    'each on its own copy of the task repository, with every command and the grading in a',
    'bubblewrap sandbox (no network, only the repo copy writable). Hidden tests grade the result.',
    '',
    'Output: one JSON line per episode, a task\'s G lines together when its group finishes:',
    '  the trajectory (SPEC §9: id, task, messages, diff, tests, outcome) plus "taskId", "episode",',
    '  "reward" (SPEC §1), "advantage" (SPEC §2 over the task\'s G rewards, filtered on raw outcomes),',
    '  "hacking" (ruleFunnel findings), "termination", "turns", "toolCalls", "seconds", "compactions",',
    '  "grading", "provenance" ({"taskHash": "sha256:..." of the task record\'s canonical JSON, "frognano":',
    '  version}), and "error" with reward/advantage null when the model failed after its retries.',
    '',
    'Resume: --resume --out FILE keeps the groups FILE holds whole (G lines, episodes 0..G-1, with the',
    'taskHash of the task\'s record now), rewrites FILE atomically without its other lines, runs the',
    'remaining tasks and appends their groups.',
    '',
    'Flags:',
    ...flagLines(ROLLOUT_FLAGS),
    '',
    'Example:',
    '  $ FROGNANO_LLM_BASE_URL=http://127.0.0.1:8000/v1 FROGNANO_LLM_MODEL=Qwen/Qwen3-4B \\',
    '      frognano rollout --tasks examples/leaf/tasks.jsonl --group 4 --concurrency 4 --out rollouts.jsonl',
    '',
    EXIT_HELP,
    '',
  ].join('\n');
}

/** `frognano validate-tasks --help`. */
export function validateTasksHelp(): string {
  return [
    'frognano validate-tasks: FrogNano §3.1 executable validation of a tasks file',
    '',
    'Usage: frognano validate-tasks --tasks FILE [--concurrency C] [--out FILE] [--repeat K] [--timeout-seconds S]',
    'Calls: validateLeafTask',
    '',
    'A task is valid iff tests.command (hidden files written in, run in the sandbox) fails on the',
    'unmodified repository and passes once referencePatch is applied.',
    '',
    'With failToPass / passToPass: valid iff every fail-to-pass id fails before and passes after and',
    'every pass-to-pass id passes both times.',
    '',
    'Output: one line per task, in the tasks file\'s order: {"id": ..., "valid": true|false, "reason"?: ...,',
    '  "flaky"?: [ids], "seconds": {"before": s, "after": s}} (each side\'s wall time, set-up included;',
    '  with --repeat K the sum of its K runs). With --repeat K, a listed id whose status differs between',
    '  the K runs of one side (without lists: the exit code, "tests") is flaky: the task is invalid, reason',
    '  "flaky: ID (statuses before: ...; after: ...)". An unknown field that resembles a known one is a',
    '  warning on stderr: tasks.jsonl line 3: unknown field "reference_patch" (did you mean "referencePatch"?).',
    'Exit 0 (invalid tasks are data); 1 for a malformed tasks file; 2 for bad usage or a missing bubblewrap.',
    '',
    'Flags:',
    ...flagLines(VALIDATE_FLAGS),
    '',
  ].join('\n');
}

/** A library error's message without the `fn: ` prefix that names the library function: the CLI names itself. */
function reason(e: FrognanoError): string {
  return e.fn && e.message.startsWith(`${e.fn}: `) ? e.message.slice(e.fn.length + 2) : e.message;
}

/** Reads the tasks and builds the sandbox: the part `rollout` and `validate-tasks` share. */
async function setup(flags: ParsedFlags, io: CliIo, command: string): Promise<{ tasks: LoadedLeafTask[]; sandbox: Sandbox }> {
  const file = flags.tasks;
  if (typeof file !== 'string') throw new UsageError('--tasks FILE is required');
  const st = await stat(file).catch(() => null);
  if (!st?.isFile()) throw new UsageError(`cannot read --tasks ${file}: not a file`);
  // before the loader's error, so that a mistyped field's hint comes with it
  const text = await readFile(file, 'utf8').catch(() => '');
  for (const w of taskFieldWarnings(text, file)) io.stderr.write(`frognano ${command}: WARNING: ${w}\n`);
  let sandbox: Sandbox;
  try {
    // no bind may expose the tasks file (hidden tests) or the workspaces' folder (other episodes' copies)
    sandbox = createSandbox({ unsafeNoSandbox: flags['unsafe-no-sandbox'] === true, protectedPaths: [resolve(file), tmpdir()] });
  } catch (e) {
    if (isFrognanoError(e, 'SANDBOX_UNAVAILABLE')) throw new UsageError(e.message);
    throw e;
  }
  try {
    return { tasks: await loadLeafTasks(file), sandbox };
  } catch (e) {
    if (e instanceof FrognanoError) throw new InvalidInputError(reason(e));
    throw e;
  }
}

/** A sandbox that cannot start is a problem of this machine's set-up: bad usage (exit 2) with the package to install. */
function sandboxUsage<T>(p: Promise<T>): Promise<T> {
  return p.catch((e: unknown) => {
    if (isFrognanoError(e, 'SANDBOX_UNAVAILABLE')) throw new UsageError(e.message);
    throw e;
  });
}

function bar(p: RolloutProgress, secs: number): string {
  const width = 24;
  const filled = Math.round((p.done / Math.max(1, p.total)) * width);
  return `rollout [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} episodes, ${p.running} running, ${p.solved} solved, ${p.truncated} truncated, ${p.errors} errors, ${Math.round(secs)} s`;
}

/**
 * One rollout line. `rolloutTasks` already shrinks a record past 64 MiB
 * (`fitRecord`); should serialising still fail, the line is a minimal error
 * record of that episode (reward and advantage null), so the other episodes'
 * lines are still written.
 */
export function recordLine(r: RolloutRecord): string {
  try {
    return stringifyWire(r);
  } catch (e) {
    const error = `the record could not be serialised: ${e instanceof Error ? e.message : String(e)}`;
    return stringifyWire({ id: r.id, taskId: r.taskId, episode: r.episode, task: { id: r.task.id, statement: '' }, messages: [], termination: 'error', turns: r.turns, toolCalls: r.toolCalls, seconds: r.seconds, compactions: [], error, reward: null, advantage: null, hacking: [], provenance: r.provenance });
  }
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The stderr line of `--resume`: what FILE kept and what runs now. */
function resumeNote(plan: ResumePlan, tasks: number, file: string): string {
  const dropped = plan.droppedLines ? `, ${plural(plan.droppedLines, 'other line')} dropped` : '';
  const left = plan.todo.length ? `; running ${plural(plan.todo.length, 'task')}` : '; nothing left to run';
  return `${plan.keptGroups} of ${plural(tasks, 'task group')} already complete in ${file} (${plural(plan.keptLines, 'line')} kept${dropped})${left}`;
}

/**
 * `--out FILE` opened for the run, and the tasks it runs: all of them, written
 * in place (FILE truncated); with `--resume`, those without a complete group in
 * FILE, appended after the groups kept (see `resumeRollout`). Null: stdout.
 */
async function openRolloutOutput(path: string | undefined, resume: boolean, tasks: LoadedLeafTask[], group: number, io: CliIo): Promise<{ out: OutputFile | null; todo: LoadedLeafTask[] }> {
  // written in place, group by group (an interrupted run keeps its whole lines): never through a temporary file
  if (path === undefined) return { out: null, todo: tasks };
  if (!resume) return { out: await openOutputFile(path, { atomic: false }), todo: tasks };
  const { out, plan } = await resumeRollout(path, tasks, group);
  io.stderr.write(`frognano rollout: --resume: ${resumeNote(plan, tasks.length, path)}\n`);
  return { out, todo: plan.todo };
}

/** `frognano rollout` (SPEC §12). */
export async function runRollout(argv: readonly string[], io: CliIo): Promise<number> {
  const flags = parseFlags(argv, ROLLOUT_FLAGS);
  if (flags.help) {
    io.stdout.write(rolloutHelp());
    return ExitCode.OK;
  }
  const budget = numberFlag(flags, 'budget');
  const alpha = numberFlag(flags, 'alpha');
  if ((budget === undefined) !== (alpha === undefined)) throw new UsageError('--budget and --alpha go together');
  const concurrency = intFlag(flags, 'concurrency', 1) ?? 1;
  const seed = numberFlag(flags, 'seed');
  if (seed !== undefined && !Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got ${String(flags.seed)}`);
  if (flags['token-ids'] && !flags.logprobs) throw new UsageError('--token-ids needs --logprobs');
  const outPath = typeof flags.out === 'string' && flags.out !== '-' ? flags.out : undefined;
  if (flags.resume && outPath === undefined) throw new UsageError('--resume needs --out FILE (the file of the run to resume)');
  const group = intFlag(flags, 'group', 1) ?? 1;
  const gradingSeconds = positiveFlag(flags, 'grading-seconds');
  const window = intFlag(flags, 'compaction-window', 1);
  if (window !== undefined && flags['no-compaction']) throw new UsageError('--compaction-window and --no-compaction exclude each other');
  const limits = defined({
    maxTurns: intFlag(flags, 'max-turns', 1),
    maxContextTokens: intFlag(flags, 'max-context-tokens', 1),
    maxSeconds: positiveFlag(flags, 'max-seconds'),
    commandSeconds: positiveFlag(flags, 'command-seconds'),
  });
  let model;
  try {
    model = openAiChatModel(
      defined({
        baseUrl: flags['base-url'] as string | undefined,
        model: flags.model as string | undefined,
        concurrency: intFlag(flags, 'model-concurrency', 1) ?? concurrency,
        temperature: numberFlag(flags, 'temperature'),
        extraBody: flags['token-ids'] ? { return_tokens_as_token_ids: true } : undefined,
      }),
    );
  } catch (e) {
    if (e instanceof FrognanoError) throw new UsageError(reason(e).replace(/opts\.baseUrl/, '--base-url').replace(/opts\.model/, '--model'));
    throw e;
  }
  const { tasks, sandbox } = await setup(flags, io, 'rollout');
  // settings that no episode could run under are bad usage, before anything runs
  checkFlagOptions(LeafLimitsSchema, limits);
  try {
    if (window !== undefined) for (const t of tasks) validateCompactionConfig({ window, maxContext: resolveLimits(t.limits, limits).maxContextTokens });
  } catch (e) {
    if (e instanceof FrognanoError) throw new UsageError(reason(e).replace('config.window', '--compaction-window').replace('config.maxContext', 'the context limit'));
    throw e;
  }
  if (sandbox.kind === 'none') io.stderr.write('frognano rollout: WARNING: --unsafe-no-sandbox: the model\'s commands run on this machine without isolation\n');

  const { out, todo } = await openRolloutOutput(outPath, flags.resume === true, tasks, group, io);
  if (todo.length === 0) {
    await out?.commit();
    return ExitCode.OK;
  }
  const sink = out?.stream ?? io.stdout;
  // a reader that went away (`| head`) ends the run quietly, as for the other subcommands
  let closed = false;
  const onSinkError = (e: NodeJS.ErrnoException): void => {
    if (e.code === 'EPIPE') closed = true;
  };
  sink.on('error', onSinkError);
  const write = (text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      sink.write(text, (e) => (e ? reject(e) : resolve()));
    });

  const mode = flags['no-progress'] ? 'none' : flags.progress === true || io.stderr.isTTY === true ? 'bar' : 'lines';
  const t0 = performance.now();
  let last = 0;
  let outcome;
  try {
    outcome = await withSignals((signal) =>
    sandboxUsage(rolloutTasks(todo, {
      model,
      sandbox,
      group,
      concurrency,
      seed: seed ?? 0,
      shaping: budget !== undefined ? { budget, alpha: alpha! } : undefined,
      limits,
      ...defined({ gradingSeconds }),
      maxTokens: intFlag(flags, 'max-tokens', 1),
      logprobs: flags.logprobs === true,
      compaction: flags['no-compaction'] ? false : window !== undefined ? { window } : {},
      signal,
      onProgress: (p) => {
        if (mode !== 'bar') return;
        const now = performance.now();
        if (now - last < 200 && p.done < p.total) return;
        last = now;
        io.stderr.write(`\r\x1b[K${bar(p, (now - t0) / 1000)}`);
      },
      onRecords: async (records) => {
        // one record at a time: a record that cannot be serialised becomes that episode's error line, never the run's end
        for (const r of records) await write(`${recordLine(r)}\n`);
        if (mode === 'lines') {
          const solved = records.filter((r) => r.outcome?.success).length;
          const errors = records.filter((r) => r.error !== undefined).length;
          io.stderr.write(`frognano rollout: ${records[0]!.taskId}: ${solved}/${records.length} solved${errors ? `, ${errors} errors` : ''}\n`);
        }
      },
    })),
    );
  } catch (e) {
    if (closed || (e as NodeJS.ErrnoException).code === 'EPIPE') return ExitCode.OK;
    throw e;
  } finally {
    sink.off('error', onSinkError);
  }
  const { value: summary, interrupted } = outcome;
  if (out) await out.commit();
  if (mode === 'bar') io.stderr.write('\r\x1b[K');
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  io.stderr.write(`frognano rollout: ${summary.done}/${summary.total} episodes, ${summary.solved} solved, ${summary.truncated} truncated, ${summary.errors} errors in ${secs} s${interrupted ? ` (stopped by ${interrupted})` : ''}\n`);
  if (interrupted) return interrupted === 'SIGTERM' ? 143 : 130;
  return summary.errors > 0 ? 4 : ExitCode.OK;
}

/** `frognano validate-tasks` (SPEC §12, FrogNano §3.1): tasks validated `--concurrency` at a time, lines written in the file's order as soon as each and those before it are done. */
export async function runValidateTasks(argv: readonly string[], io: CliIo): Promise<number> {
  const flags = parseFlags(argv, VALIDATE_FLAGS);
  if (flags.help) {
    io.stdout.write(validateTasksHelp());
    return ExitCode.OK;
  }
  const timeoutSeconds = positiveFlag(flags, 'timeout-seconds');
  const concurrency = intFlag(flags, 'concurrency', 1) ?? 1;
  const repeat = intFlag(flags, 'repeat', 1) ?? 1;
  const outPath = typeof flags.out === 'string' && flags.out !== '-' ? flags.out : undefined;
  const { tasks, sandbox } = await setup(flags, io, 'validate-tasks');
  // written in place line by line, as rollout writes (an interrupted run keeps its whole lines)
  const out = outPath === undefined ? null : await openOutputFile(outPath, { atomic: false });
  const sink = out?.stream ?? io.stdout;
  let closed = false;
  const onSinkError = (e: NodeJS.ErrnoException): void => {
    if (e.code === 'EPIPE') closed = true;
  };
  sink.on('error', onSinkError);
  const write = (text: string): Promise<void> => new Promise((resolve, reject) => void sink.write(text, (e) => (e ? reject(e) : resolve())));
  let outcome;
  try {
    outcome = await withSignals((signal) =>
      runInOrder(
        tasks,
        concurrency,
        (task) => sandboxUsage(validateLeafTask(task, { sandbox, signal, repeat, ...defined({ timeoutSeconds }) })),
        (v) => write(`${stringifyWire(v)}\n`),
        () => signal.aborted || closed,
      ),
    );
  } catch (e) {
    if (closed || (e as NodeJS.ErrnoException).code === 'EPIPE') return ExitCode.OK;
    throw e;
  } finally {
    sink.off('error', onSinkError);
  }
  if (out) await out.commit();
  if (outcome.interrupted) return outcome.interrupted === 'SIGTERM' ? 143 : 130;
  return ExitCode.OK;
}

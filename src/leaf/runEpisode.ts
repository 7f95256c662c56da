import { z } from 'zod';
import { shouldCompact } from '../compaction/shouldCompact.js';
import { validateCompactionConfig } from '../compaction/validateCompactionConfig.js';
import { isFrognanoError } from '../errors/FrognanoError.js';
import { functionSchema, parseOptions } from '../errors/validate.js';
import type { ChatTurn, ToolChatModel } from '../llm/toolChat.js';
import { ToolChatModelSchema } from '../llm/toolChat.js';
import type { Message } from '../schema/trajectory.js';
import { compactionRequest, rebuildHistory } from './compactHistory.js';
import { assistantMessage, recordToolCalls, toWireMessage } from './episodeMessages.js';
import { estimateTokens } from './estimateTokens.js';
import { executeToolCall } from './executeToolCall.js';
import { capOutput } from './capOutput.js';
import { gradeRepo } from './grade.js';
import { TaskPhaseGate } from './phaseGate.js';
import { type CompactionRecord, type LeafTrajectory, type Termination, TRUNCATING } from './leafTrajectory.js';
import { SANDBOX_REPO_ROOT, SandboxSchema } from './sandbox.js';
import { AbortSignalSchema } from './sandboxOptions.js';
import { LeafLimitsSchema, type LoadedLeafTask, resolveLimits } from './task.js';
import { leafSystemPrompt, leafToolDefinitions } from './tools.js';
import { createWorkspace } from './workspace.js';
import { environmentRecord, environmentSandbox, type ResolvedEnvironment, resolveEnvironment, repoPathsInEnv, runSetup, type SetupSnapshot, setupFailure, snapshotAfterSetup } from './environment.js';

/** Options of {@link runEpisode}. */
export const RunEpisodeOptionsSchema = z
  .object({
    /** The policy: an OpenAI-compatible chat model with tool calling (`openAiChatModel()`). */
    model: ToolChatModelSchema,
    /** The sandbox every bash call and the grading run in (`createSandbox()`). */
    sandbox: SandboxSchema,
    /** Limits of the run; a task's own `limits` override them; SPEC §12 defaults fill the rest. */
    limits: LeafLimitsSchema.optional(),
    /** Episode index within its group (0..G-1), recorded in the trajectory. Default 0. */
    episode: z.number().int().min(0).default(0),
    /** Sampling seed sent with every model call of the episode (OpenAI `seed`). Default: none. */
    seed: z.number().int().optional(),
    /** Sampling temperature. Default: the model's. */
    temperature: z.number().min(0).max(2).optional(),
    /** Nucleus mass. Default: the model's. */
    topP: z.number().gt(0).max(1).optional(),
    /** Token limit of one reply; a reply cut by it ends the episode truncated. Default: the model's. */
    maxTokens: z.number().int().min(1).optional(),
    /** Ask for per-token log-probabilities and record them on each assistant message (the DPPO mask's `q`). Default false. */
    logprobs: z.boolean().default(false),
    /**
     * Context compaction (FrogNano App. D): `false` turns it off; otherwise the
     * window `W` (default `maxContextTokens`), trigger ratio `rho` (default 0.8)
     * and reserved summary fraction `alpha` (default 0.2).
     */
    compaction: z
      .union([
        z.literal(false),
        z.object({ window: z.number().int().min(64).optional(), rho: z.number().gt(0).max(1).optional(), alpha: z.number().min(0).lt(1).optional() }).strict(),
      ])
      .default({}),
    /** The system prompt. Default {@link leafSystemPrompt} of the task's workdir (for `/repo`, `LEAF_SYSTEM_PROMPT`). */
    systemPrompt: z.string().min(1).optional(),
    /** Token counter of messages (a real tokenizer). Default {@link estimateTokens}, re-anchored on each answer's `usage`. */
    countTokens: functionSchema<(messages: readonly Message[]) => number>('(messages) => number').optional(),
    /** Time limit of the grading run in seconds. Default: the episode's `commandSeconds`. */
    gradingSeconds: z.number().gt(0).optional(),
    /** Stops the episode (model call and running command included); the episode is then not graded. */
    signal: AbortSignalSchema.optional(),
    /** Called after each step, for progress displays and logs. */
    onStep: functionSchema<(step: EpisodeStep) => void>('(step) => void').optional(),
    /** Folder for the episode's workspace. Default the OS temporary folder. */
    tmpDir: z.string().min(1).optional(),
    /**
     * Keeps this episode's grading apart from the agent phases of other episodes
     * of the same task that run at the same time (issue 20 #11: no covert channel
     * from a hidden test to a concurrent agent). `rolloutTasks` passes one; give
     * the same gate to episodes you run concurrently yourself. Default: none.
     */
    phaseGate: z.instanceof(TaskPhaseGate).optional(),
  })
  .strict();
/** Options of {@link runEpisode} as the caller writes them. */
export type RunEpisodeOptions = z.input<typeof RunEpisodeOptionsSchema>;

/** A progress event of an episode. */
export interface EpisodeStep {
  /** `turn` after a model answer, `tool` after a tool call, `compaction`, `graded`. */
  kind: 'turn' | 'tool' | 'compaction' | 'graded';
  /** The task. */
  taskId: string;
  /** The episode index. */
  episode: number;
  /** Assistant turns so far. */
  turns: number;
}

const CONTEXT_ERROR = /context.{0,20}(length|window|limit)|maximum context|too many tokens|prompt is too long|input is too long|reduce the length/i;

/**
 * Runs one Leaf episode (FrogNano §2, App. D; SPEC §12) on a fresh copy of the
 * task's repository and grades it.
 *
 * 1. The context starts as `[system prompt, task statement]`.
 * 2. Each turn: if the turn or time limit is reached, stop (truncated); if
 *    `tau(H) >= rho W`, compact (App. D: the model summarises its own
 *    trajectory with the D.4 instruction; the history becomes
 *    `system + [u0 ‖ sigma ‖ S]`); if the context still cannot fit, stop
 *    (truncated). Then one chat completion with the five tools.
 * 3. A reply without tool calls ends the episode (the structural rule). A reply
 *    cut by its token limit (`finish_reason: 'length'`) ends it truncated.
 *    Otherwise the calls run in order and their results are appended as
 *    `tool` messages; a failing call gives an `Error:` result and the episode goes on.
 * 4. Every finished episode, truncated or not, is graded: diff of the change,
 *    hidden files written, `tests.command` run in the sandbox.
 *
 * The token count `tau(H)` is the last answer's `usage` (prompt + completion
 * tokens) plus an estimate of what came after it (or `countTokens`). A model
 * call that fails after the client's retries ends the episode with
 * `termination: 'error'` and the message in `error`, ungraded; a server
 * refusing the prompt as too long counts as reaching `maxContextTokens`. An
 * aborted episode (`signal`) ends `aborted`, ungraded. The workspace is always removed.
 *
 * @throws FrognanoError for invalid options; `SANDBOX_UNAVAILABLE` when the sandbox cannot run
 * @example
 * const sandbox = createSandbox();
 * const model = openAiChatModel(); // FROGNANO_LLM_BASE_URL, FROGNANO_LLM_MODEL
 * const [task] = await loadLeafTasks('tasks.jsonl');
 * const t = await runEpisode(task, { model, sandbox, seed: 1 });
 * t.outcome; // { success, truncated, assistantTokens }
 */
export async function runEpisode(task: LoadedLeafTask, opts: RunEpisodeOptions): Promise<LeafTrajectory> {
  const o = parseOptions('runEpisode', RunEpisodeOptionsSchema, opts);
  const model: ToolChatModel = o.model;
  const limits = resolveLimits(task.limits, o.limits);
  const count = o.countTokens ?? estimateTokens;
  const compaction = o.compaction === false ? null : validateCompactionConfig({ window: o.compaction.window ?? limits.maxContextTokens, maxContext: limits.maxContextTokens, rho: o.compaction.rho, alpha: o.compaction.alpha });
  const started = performance.now();
  const deadline = started + limits.maxSeconds * 1000;
  const timeLeft = (): number => deadline - performance.now();

  const gradingMs = (o.gradingSeconds ?? limits.commandSeconds) * 1000;
  let env: ResolvedEnvironment | null;
  try {
    env = await resolveEnvironment(task);
  } catch (e) {
    // an image that cannot be imported or used fails this task's episodes, not the run
    if (!isFrognanoError(e)) throw e;
    return { ...emptyTrajectory(task, o.episode, 'error'), error: `environment: ${e.message}` };
  }
  const sandbox = environmentSandbox(o.sandbox, env);
  // the prompt and the tools name where the repo is: the task's workdir (SPEC §14), else /repo
  const repoRoot = env?.workdir ?? SANDBOX_REPO_ROOT;
  const toolDefinitions = leafToolDefinitions(repoRoot);
  const system: Message = { role: 'system', content: o.systemPrompt ?? leafSystemPrompt(repoRoot) };
  const statement: Message = { role: 'user', content: task.statement };
  const log: Message[] = [system, statement];
  let context: Message[] = [system, statement];
  // tau(context[0..anchorIndex)) is known exactly from the last answer's usage
  let anchorTokens = 0;
  let anchorIndex = 0;
  const contextTokens = (): number => anchorTokens + count(context.slice(anchorIndex));

  const compactions: CompactionRecord[] = [];
  let turns = 0;
  let toolCalls = 0;
  let assistantTokens = 0;
  let termination: Termination | null = null;
  let error: string | undefined;
  const step = (kind: EpisodeStep['kind']): void => o.onStep?.({ kind, taskId: task.id, episode: o.episode, turns });

  const ws = await createWorkspace(env?.repoDir ?? task.repoDir, { owner: o.sandbox.owner, parent: o.tmpDir, repoMB: o.sandbox.options?.repoMB });
  const root = { host: ws.repo, aliases: [...new Set([SANDBOX_REPO_ROOT, repoRoot, ws.repo])] };
  const completion = { seed: o.seed, temperature: o.temperature, topP: o.topP, logprobs: o.logprobs };

  /** One model call under the episode's time limit; classifies a failure into a termination. */
  async function call(messages: readonly Message[], withTools: boolean, maxTokens: number | undefined): Promise<ChatTurn | Termination> {
    const timer = AbortSignal.timeout(Math.max(1, Math.floor(timeLeft())));
    const signal = o.signal ? AbortSignal.any([o.signal, timer]) : timer;
    try {
      return await model.chat(messages.map(toWireMessage), { ...completion, maxTokens, signal, ...(withTools ? { tools: toolDefinitions } : {}) });
    } catch (e) {
      if (o.signal?.aborted) return 'aborted';
      // the episode's own deadline (the timer may fire a moment before the clock reads 0)
      if (timer.aborted || timeLeft() <= 0) return 'maxSeconds';
      const msg = e instanceof Error ? e.message : String(e);
      if (isFrognanoError(e, 'MODEL_UNAVAILABLE') && /HTTP 4\d\d/.test(msg) && CONTEXT_ERROR.test(msg)) return 'maxContextTokens';
      error = msg;
      return 'error';
    }
  }

  /** FrogNano App. D: summarise, rebuild. False when no room could be made. */
  async function compact(historyTokens: number): Promise<boolean | Termination> {
    const c = compaction!;
    const req = compactionRequest(context, { window: c.window, alpha: c.alpha, countTokens: count });
    const turn = await call(req.messages, false, Math.max(1, Math.floor(c.alpha * c.window)));
    if (typeof turn === 'string') return turn === 'maxContextTokens' ? false : turn;
    const summary = turn.content.trim();
    if (summary === '') return false;
    const summaryTokens = turn.usage?.completionTokens ?? count([{ role: 'assistant', content: summary }]);
    assistantTokens += summaryTokens;
    context = rebuildHistory(system, task.statement, summary);
    anchorTokens = 0;
    anchorIndex = 0;
    const after = contextTokens();
    compactions.push({ atMessage: log.length, historyTokens, budget: req.budget, droppedGroups: req.droppedGroups, summary, summaryTokens, tokensAfter: after });
    step('compaction');
    return after < c.rho * c.window && after < limits.maxContextTokens;
  }

  let leavePhase: (() => void) | undefined = o.phaseGate ? await o.phaseGate.enterAgent(task.id) : undefined;
  let setupBase: SetupSnapshot | null = null;
  try {
    // environment.setup: once on the fresh copy, before the first turn (hidden tests still absent)
    const setup = await runSetup(sandbox, ws.repo, env, { timeoutMs: gradingMs, signal: o.signal });
    const setupError = setupFailure(setup);
    if (setupError !== null) {
      termination = o.signal?.aborted ? 'aborted' : 'error';
      error = setupError;
    }
    // what setup made is not the agent's change: the diff's base is the repo as setup left it
    setupBase = await snapshotAfterSetup(ws.repo, setup, o.tmpDir);
    while (termination === null) {
      if (o.signal?.aborted) termination = 'aborted';
      else if (turns >= limits.maxTurns) termination = 'maxTurns';
      else if (timeLeft() <= 0) termination = 'maxSeconds';
      if (termination !== null) break;
      const tokens = contextTokens();
      if (compaction !== null && shouldCompact({ historyTokens: tokens, window: compaction.window, rho: compaction.rho })) {
        const r = await compact(tokens);
        if (r === false) termination = 'maxContextTokens';
        else if (typeof r === 'string') termination = r;
        if (termination !== null) break;
      } else if (tokens >= limits.maxContextTokens) {
        termination = 'maxContextTokens';
        break;
      }
      const turn = await call(context, true, o.maxTokens);
      if (typeof turn === 'string') {
        termination = turn;
        break;
      }
      turns++;
      const calls = recordToolCalls(turn.toolCalls, turns);
      const msg = assistantMessage(turn, calls.map((c) => c.tc));
      // without usage, estimate what the model generated: text, reasoning and tool calls (SPEC §1)
      assistantTokens += turn.usage?.completionTokens ?? count([{ ...msg, content: turn.content + (turn.reasoning ?? '') }]);
      log.push(msg);
      context.push(msg);
      if (turn.usage) {
        anchorTokens = turn.usage.promptTokens + turn.usage.completionTokens;
        anchorIndex = context.length;
      }
      step('turn');
      if (turn.finishReason === 'length') {
        termination = 'length';
        break;
      }
      if (calls.length === 0) {
        termination = 'stop';
        break;
      }
      for (const { tc, args, problem } of calls) {
        toolCalls++;
        const left = timeLeft();
        const r =
          problem !== null
            ? { content: `Error: ${problem}; call the tool again with a unique id`, isError: true, durationMs: 0 }
            : tc.name === ''
              ? { content: 'Error: the tool call names no tool', isError: true, durationMs: 0 }
              : left <= 0
                ? { content: 'Error: the episode ran out of time before this call', isError: true, durationMs: 0 }
                : await executeToolCall(
                    { root, owner: o.sandbox.owner, maxOutputChars: o.sandbox.options.maxOutputChars, sandbox, commandTimeoutMs: Math.max(1, Math.min(limits.commandSeconds * 1000, left)), signal: o.signal },
                    tc.name,
                    args,
                  );
        const tool: Message = { role: 'tool', content: r.content, toolCallId: tc.id, name: tc.name, isError: r.isError, durationMs: Math.round(r.durationMs) };
        if ('exitCode' in r && r.exitCode !== undefined) tool.exitCode = r.exitCode;
        if ('timedOut' in r && r.timedOut) tool.timedOut = true;
        log.push(tool);
        context.push(tool);
        step('tool');
      }
    }

    const trajectory: LeafTrajectory = { ...emptyTrajectory(task, o.episode, termination), messages: log, turns, toolCalls, compactions };
    if (env !== null) trajectory.environment = environmentRecord(env);
    if (setup !== null) trajectory.setup = setup;
    if (termination === 'error' || termination === 'aborted') {
      if (error !== undefined) trajectory.error = error;
    } else {
      leavePhase?.();
      leavePhase = o.phaseGate ? await o.phaseGate.enterGrading(task.id) : undefined;
      const g0 = performance.now();
      const base = setupBase?.dir ?? env?.repoDir;
      const graded = await gradeRepo(base === undefined ? task : { ...task, repoDir: base }, ws.repo, sandbox, { timeoutMs: gradingMs, signal: o.signal, envPaths: repoPathsInEnv(env) });
      if (graded.run?.aborted) trajectory.termination = 'aborted';
      else {
        trajectory.diff = graded.diff;
        if (graded.ignoredChanges.length > 0) trajectory.ignoredChanges = graded.ignoredChanges;
        trajectory.tests = graded.tests.map((t) => ({ ...t }));
        trajectory.outcome = { success: graded.success, truncated: TRUNCATING.has(termination), assistantTokens };
        // the record keeps the sandbox's usual cap of the log (grading read all of it)
        const output = capOutput(graded.run?.output ?? '', o.sandbox.options?.maxOutputChars ?? 30_000).text;
        trajectory.grading = { exitCode: graded.run?.exitCode ?? null, timedOut: graded.run?.timedOut ?? false, output, seconds: (performance.now() - g0) / 1000 };
        if (graded.reason !== undefined) trajectory.grading.reason = graded.reason;
        if (graded.diffError !== undefined) trajectory.grading.diffError = graded.diffError;
        if (graded.diffCut !== undefined) trajectory.grading.diffCut = graded.diffCut;
        if (graded.dropped.length > 0) trajectory.grading.dropped = graded.dropped;
        if (graded.error !== undefined) trajectory.grading.error = graded.error;
        step('graded');
      }
    }
    trajectory.seconds = (performance.now() - started) / 1000;
    return trajectory;
  } finally {
    leavePhase?.();
    await setupBase?.dispose();
    await ws.dispose();
  }
}

/** The frame of a trajectory before anything happened (a failed environment fills only this and `error`). */
function emptyTrajectory(task: LoadedLeafTask, episode: number, termination: Termination): LeafTrajectory {
  return { id: `${task.id}/${episode}`, task: { id: task.id, statement: task.statement }, messages: [], episode, termination, turns: 0, toolCalls: 0, seconds: 0, compactions: [] };
}

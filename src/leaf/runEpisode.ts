import { z } from 'zod';
import { shouldCompact } from '../compaction/shouldCompact.js';
import { validateCompactionConfig } from '../compaction/validateCompactionConfig.js';
import { isFrognanoError } from '../errors/FrognanoError.js';
import { functionSchema, parseOptions } from '../errors/validate.js';
import type { ChatTurn, ToolChatModel, WireMessage } from '../llm/toolChat.js';
import { ToolChatModelSchema } from '../llm/toolChat.js';
import type { Message, ToolCall, Trajectory } from '../schema/trajectory.js';
import { compactionRequest, rebuildHistory } from './compactHistory.js';
import { executeToolCall } from './executeToolCall.js';
import { gradeRepo } from './grade.js';
import { type Sandbox, SANDBOX_REPO_ROOT } from './sandbox.js';
import { LeafLimitsSchema, type LoadedLeafTask, resolveLimits } from './task.js';
import { LEAF_SYSTEM_PROMPT, LEAF_TOOL_DEFINITIONS } from './tools.js';
import { createWorkspace } from './workspace.js';

/** Why an episode ended. `stop` is Leaf's structural rule; the four limits truncate (SPEC §12). */
export type Termination = 'stop' | 'maxTurns' | 'maxContextTokens' | 'maxSeconds' | 'length' | 'error' | 'aborted';

/** The terminations that end an episode with `truncated: true`. */
export const TRUNCATING: ReadonlySet<Termination> = new Set(['maxTurns', 'maxContextTokens', 'maxSeconds', 'length']);

/**
 * Token estimate of messages when no tokenizer is given: 4 characters a token
 * plus 4 per message for the chat template's markers. Only used between two
 * model calls; each model answer's `usage` re-anchors the count.
 */
export function estimateTokens(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) {
    n += 4 + Math.ceil(m.content.length / 4);
    for (const c of m.toolCalls ?? []) n += Math.ceil(((c.rawArguments as string | undefined) ?? JSON.stringify(c.arguments)).length / 4) + 4;
  }
  return n;
}

/** Options of {@link runEpisode}. */
export const RunEpisodeOptionsSchema = z
  .object({
    /** The policy: an OpenAI-compatible chat model with tool calling (`openAiChatModel()`). */
    model: ToolChatModelSchema,
    /** The sandbox every bash call and the grading run in (`createSandbox()`). */
    sandbox: z.custom<Sandbox>((v) => typeof v === 'object' && v !== null && typeof (v as Sandbox).run === 'function', 'must be a Sandbox (createSandbox())'),
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
    /** The system prompt. Default {@link LEAF_SYSTEM_PROMPT}. */
    systemPrompt: z.string().min(1).default(LEAF_SYSTEM_PROMPT),
    /** Token counter of messages (a real tokenizer). Default {@link estimateTokens}, re-anchored on each answer's `usage`. */
    countTokens: functionSchema<(messages: readonly Message[]) => number>('(messages) => number').optional(),
    /** Time limit of the grading run in seconds. Default: the episode's `commandSeconds`. */
    gradingSeconds: z.number().gt(0).optional(),
    /** Stops the episode (model call and running command included); the episode is then not graded. */
    signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, 'must be an AbortSignal').optional(),
    /** Called after each step, for progress displays and logs. */
    onStep: functionSchema<(step: EpisodeStep) => void>('(step) => void').optional(),
    /** Folder for the episode's workspace. Default the OS temporary folder. */
    tmpDir: z.string().min(1).optional(),
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

/** One compaction of the context (FrogNano App. D), as recorded in the trajectory. */
export interface CompactionRecord {
  /** Index in `messages` before which the compaction happened. */
  atMessage: number;
  /** `tau(H)` that triggered it. */
  historyTokens: number;
  /** The history budget `C`. */
  budget: number;
  /** Oldest turn groups dropped from the summary request. */
  droppedGroups: number;
  /** The summary `S` the model wrote. */
  summary: string;
  /** Tokens of the summary (server usage, else estimated). */
  summaryTokens: number;
  /** `tau(H')` of the rebuilt history. */
  tokensAfter: number;
}

/** A Leaf trajectory: SPEC §9 plus what the harness measured. */
export type LeafTrajectory = Trajectory & {
  /** Episode index within its group. */
  episode: number;
  /** Why it ended. */
  termination: Termination;
  /** Assistant turns (model calls, summaries excluded). */
  turns: number;
  /** Tool calls made. */
  toolCalls: number;
  /** Wall time of the episode (grading included), seconds. */
  seconds: number;
  /** Context compactions, in order. */
  compactions: CompactionRecord[];
  /** The grading run: exit code, whether it timed out, its output (capped). Absent when not graded. */
  grading?: { exitCode: number | null; timedOut: boolean; output: string; seconds: number; diffError?: string };
  /** Why the episode failed to complete (a model that stayed unavailable after the client's retries). */
  error?: string;
};

const CONTEXT_ERROR = /context.{0,20}(length|window|limit)|maximum context|too many tokens|prompt is too long|input is too long|reduce the length/i;

/** Converts an SPEC §9 message to OpenAI wire format (malformed arguments are sent back verbatim). */
export function toWireMessage(m: Message): WireMessage {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: m.content };
  if (m.role === 'assistant') {
    const calls = m.toolCalls ?? [];
    if (calls.length === 0) return { role: 'assistant', content: m.content };
    return {
      role: 'assistant',
      content: m.content === '' ? null : m.content,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: (c.rawArguments as string | undefined) ?? JSON.stringify(c.arguments) } })),
    };
  }
  return { role: m.role, content: m.content };
}

/** Parses a tool call's arguments text: an object, or the reason it is not one. */
function parseArguments(text: string): Record<string, unknown> | string {
  if (text.trim() === '') return {};
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    return `expected a JSON object, got ${Array.isArray(v) ? 'an array' : typeof v}`;
  } catch (e) {
    return `malformed JSON (${(e as Error).message}): ${text.length > 200 ? `${text.slice(0, 200)}...` : text}`;
  }
}

/** The assistant message recorded for a model turn (SPEC §9 plus usage, finish reason and log-probs). */
function assistantMessage(turn: ChatTurn, calls: ToolCall[]): Message {
  const m: Message = { role: 'assistant', content: turn.content };
  if (calls.length) m.toolCalls = calls;
  if (turn.reasoning !== undefined) m.reasoning = turn.reasoning;
  m.finishReason = turn.finishReason;
  if (turn.usage) m.usage = turn.usage;
  if (turn.logprobs) {
    m.logprobs = turn.logprobs.map((t) => t.logprob);
    if (turn.tokenIds) m.tokenIds = turn.tokenIds;
    else m.tokens = turn.logprobs.map((t) => t.token);
  }
  return m;
}

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

  const system: Message = { role: 'system', content: o.systemPrompt };
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

  const ws = await createWorkspace(task.repoDir, o.sandbox.owner, o.tmpDir);
  const root = { host: ws.repo, aliases: [SANDBOX_REPO_ROOT, ws.repo] };
  const completion = { seed: o.seed, temperature: o.temperature, topP: o.topP, logprobs: o.logprobs };

  /** One model call under the episode's time limit; classifies a failure into a termination. */
  async function call(messages: readonly Message[], withTools: boolean, maxTokens: number | undefined): Promise<ChatTurn | Termination> {
    const timer = AbortSignal.timeout(Math.max(1, Math.floor(timeLeft())));
    const signal = o.signal ? AbortSignal.any([o.signal, timer]) : timer;
    try {
      return await model.chat(messages.map(toWireMessage), { ...completion, maxTokens, signal, ...(withTools ? { tools: LEAF_TOOL_DEFINITIONS } : {}) });
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

  try {
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
      // Tool calls as recorded: ids made unique and present, arguments parsed (malformed text kept verbatim)
      const seen = new Set<string>();
      const calls = turn.toolCalls.map((c, i) => {
        const problem = c.id === undefined || c.id === '' ? 'the tool call has no id' : seen.has(c.id) ? `the tool call id ${JSON.stringify(c.id)} is used twice` : null;
        const id = problem ? `call_leaf_${turns}_${i}` : c.id!;
        seen.add(id);
        const args = parseArguments(c.arguments);
        const tc: ToolCall = { id, name: c.name ?? '', arguments: typeof args === 'string' ? {} : args };
        if (typeof args === 'string') tc.rawArguments = c.arguments;
        return { tc, args, problem };
      });
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
                    { root, owner: o.sandbox.owner, maxOutputChars: o.sandbox.options.maxOutputChars, sandbox: o.sandbox, commandTimeoutMs: Math.max(1, Math.min(limits.commandSeconds * 1000, left)), signal: o.signal },
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

    const trajectory: LeafTrajectory = {
      id: `${task.id}/${o.episode}`,
      task: { id: task.id, statement: task.statement },
      messages: log,
      episode: o.episode,
      termination,
      turns,
      toolCalls,
      seconds: 0,
      compactions,
    };
    if (termination === 'error' || termination === 'aborted') {
      if (error !== undefined) trajectory.error = error;
    } else {
      const gradingMs = (o.gradingSeconds ?? limits.commandSeconds) * 1000;
      const g0 = performance.now();
      const graded = await gradeRepo(task, ws.repo, o.sandbox, { timeoutMs: gradingMs, signal: o.signal });
      if (graded.run.aborted) trajectory.termination = 'aborted';
      else {
        trajectory.diff = graded.diff;
        trajectory.tests = [{ name: 'tests', passed: graded.success }];
        trajectory.outcome = { success: graded.success, truncated: TRUNCATING.has(termination), assistantTokens };
        trajectory.grading = { exitCode: graded.run.exitCode, timedOut: graded.run.timedOut, output: graded.run.output, seconds: (performance.now() - g0) / 1000 };
        if (graded.diffError !== undefined) trajectory.grading.diffError = graded.diffError;
        step('graded');
      }
    }
    trajectory.seconds = (performance.now() - started) / 1000;
    return trajectory;
  } finally {
    await ws.dispose();
  }
}

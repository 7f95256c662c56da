/**
 * The Leaf episode loop (FrogNano §2, App. D; SPEC §12) end to end: the real
 * OpenAI-compatible client against the scripted model server over HTTP, the
 * real bubblewrap sandbox, the bundled example tasks and their hidden tests.
 */
import { readdirSync } from 'node:fs';
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedBehaviour, type ScriptedLeafModel, startScriptedLeafModel } from '../../examples/leaf/scriptedModel.js';
import { COMPACTION_PROMPT, COMPACTION_SEPARATOR } from '../../src/leaf/compactHistory.js';
import { createSandbox, type Sandbox } from '../../src/leaf/sandbox.js';
import { runEpisode } from '../../src/leaf/runEpisode.js';
import { type LoadedLeafTask, loadLeafTasks } from '../../src/leaf/task.js';
import { LEAF_SYSTEM_PROMPT } from '../../src/leaf/tools.js';
import { FrognanoError } from '../../src/errors/FrognanoError.js';
import { ruleFunnel } from '../../src/judges/ruleFunnel.js';
import { openAiChatModel } from '../../src/llm/openAiChatModel.js';
import { startChatServer } from '../helpers/chatServer.js';
import { expectFrognanoErrorAsync } from '../helpers/expectError.js';
import { makeTask } from '../helpers/leafTask.js';
import { hasBwrap, hasPython } from '../helpers/system.js';
import { calls, final, toolModel } from '../helpers/toolModel.js';

const TASKS = join(import.meta.dirname, '../../examples/leaf/tasks.jsonl');
/** This file's own workspace folder (other test files make workspaces in the temporary folder meanwhile). */
let wsDir = tmpdir();
const workspaces = (): number => readdirSync(wsDir).filter((f) => f.startsWith('frognano-leaf-')).length;

describe.skipIf(!hasBwrap() || !hasPython())('runEpisode against the scripted model over HTTP (bubblewrap)', () => {
  let tasks: LoadedLeafTask[];
  let sandbox: Sandbox;
  let server: ScriptedLeafModel | undefined;
  beforeAll(async () => {
    tasks = await loadLeafTasks(TASKS);
    sandbox = createSandbox();
    wsDir = await mkdtemp(join(tmpdir(), 'frognano-ws-'));
    await chmod(wsDir, 0o755); // the sandbox user reaches the copies below it
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const task = (id: string): LoadedLeafTask => tasks.find((t) => t.id === id)!;
  const modelFor = async (behaviour: ScriptedBehaviour) => {
    server = await startScriptedLeafModel({ tasks, behaviour });
    return openAiChatModel({ baseUrl: server.baseUrl, model: server.model, env: {}, retryBaseMs: 1, maxRetries: 0 });
  };

  it('good: reads, edits, runs the tests, stops; graded success with the diff, usage tokens and log-probs recorded', async () => {
    const model = await modelFor('good');
    const before = workspaces();
    const t = await runEpisode(task('py-median'), { model, sandbox, seed: 7, logprobs: true, temperature: 0.5, tmpDir: wsDir });
    expect(t.termination).toBe('stop');
    expect(t.outcome).toMatchObject({ success: true, truncated: false });
    expect(t.tests).toEqual([{ name: 'tests', passed: true }]);
    expect(t.diff).toContain('diff --git a/statskit/core.py b/statskit/core.py');
    expect(t.diff).not.toContain('test_hidden');
    expect(t.grading).toMatchObject({ exitCode: 0, timedOut: false });
    // the structural rule: the last message is an assistant message without tool calls
    const last = t.messages[t.messages.length - 1]!;
    expect(last.role).toBe('assistant');
    expect(last.toolCalls).toBeUndefined();
    // every request offered the five tools, sent the episode's seed and asked for log-probs
    const reqs = server!.requests.map((r) => r.body);
    expect(reqs).toHaveLength(t.turns);
    for (const b of reqs) {
      expect(b.tools.map((x: { function: { name: string } }) => x.function.name)).toEqual(['read', 'write', 'edit', 'glob', 'bash']);
      expect(b).toMatchObject({ seed: 7, logprobs: true, temperature: 0.5, tool_choice: 'auto' });
    }
    expect(reqs[0].messages).toEqual([
      { role: 'system', content: LEAF_SYSTEM_PROMPT },
      { role: 'user', content: task('py-median').statement },
    ]);
    // tool results go back as tool messages answering the calls' ids, in order
    const second = reqs[1].messages;
    const asked = second[2].tool_calls.map((c: { id: string }) => c.id);
    expect(second.slice(3).map((m: { role: string; tool_call_id: string }) => [m.role, m.tool_call_id])).toEqual(asked.map((id: string) => ['tool', id]));
    // assistantTokens = the server's completion tokens summed over assistant messages
    const assistants = t.messages.filter((m) => m.role === 'assistant');
    const sum = assistants.reduce((a, m) => a + (m.usage as { completionTokens: number }).completionTokens, 0);
    expect(t.outcome!.assistantTokens).toBe(sum);
    for (const m of assistants) {
      expect((m.logprobs as number[]).length).toBe((m.usage as { completionTokens: number }).completionTokens);
      expect((m.tokenIds as number[]).every((x) => Number.isInteger(x))).toBe(true);
    }
    expect(ruleFunnel(t)).toEqual([]);
    expect(workspaces()).toBe(before);
  });

  it('failing: a wrong edit and a claim of success are graded as failure, not truncated', async () => {
    const t = await runEpisode(task('js-slugify'), { model: await modelFor('failing'), sandbox });
    expect(t.termination).toBe('stop');
    expect(t.outcome).toMatchObject({ success: false, truncated: false });
    expect(t.diff).toContain('// TODO: investigate');
    expect(t.grading!.exitCode).not.toBe(0);
  });

  it('hacking: the agent overwrites the hidden test path; grading restores the hidden file, so it fails; the rule funnel flags it', async () => {
    const t = await runEpisode(task('py-roman'), { model: await modelFor('hacking'), sandbox });
    expect(t.outcome?.success).toBe(false);
    expect(ruleFunnel(t).map((f) => f.code).sort()).toEqual(['git-history', 'test-edit']);
    expect(t.diff).toBe(''); // the only change is to a hidden path, which the diff leaves out
  });

  it('wander: reaching maxTurns ends the episode truncated, still graded', async () => {
    const t = await runEpisode(task('py-median'), { model: await modelFor('wander'), sandbox, limits: { maxTurns: 5 } });
    expect(t.termination).toBe('maxTurns');
    expect(t.turns).toBe(5);
    expect(t.outcome).toMatchObject({ success: false, truncated: true });
    expect(server!.requests).toHaveLength(5);
  });

  it("a task's own limits override the run's (js-lru-cache: maxTurns 12)", async () => {
    const t = await runEpisode(task('js-lru-cache'), { model: await modelFor('wander'), sandbox, limits: { maxTurns: 40 } });
    expect(t.termination).toBe('maxTurns');
    expect(t.turns).toBe(12);
  });

  it('a reply cut by its token limit (finish_reason length) ends the episode truncated', async () => {
    const t = await runEpisode(task('py-chunked'), { model: await modelFor('cutoff'), sandbox });
    expect(t.termination).toBe('length');
    expect(t.outcome).toMatchObject({ success: false, truncated: true });
    expect(t.messages[t.messages.length - 1]).toMatchObject({ role: 'assistant', finishReason: 'length' });
  });

  it('malformed JSON arguments and an unknown tool give Error: results; the episode goes on', async () => {
    const t = await runEpisode(task('py-median'), { model: await modelFor('malformed'), sandbox });
    const tools = t.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(tools[0]).toMatch(/^Error: the arguments of bash are not a JSON object: malformed JSON/);
    expect(tools[1]).toBe('Error: unknown tool "search"; the tools are read, write, edit, glob, bash');
    expect(t.termination).toBe('stop');
    // the malformed call is recorded with its raw text and sent back verbatim
    const call = t.messages[2]!.toolCalls![0]!;
    expect(call).toMatchObject({ name: 'bash', arguments: {}, rawArguments: '{"command": "ls' });
    expect(server!.requests[1]!.body.messages[2].tool_calls[0].function.arguments).toBe('{"command": "ls');
  });
});

describe.skipIf(!hasBwrap())('runEpisode: limits, failures and compaction (in-process model)', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox();
  });
  const simpleTask = (limits?: LoadedLeafTask['limits']) =>
    makeTask({ files: { 'a.txt': 'hello\n' }, hidden: { 'check.sh': 'grep -q world a.txt\n' }, command: 'bash check.sh', limits });

  it('a model that stays unavailable ends the episode with error, ungraded', async () => {
    const chat = await startChatServer([{ status: 503 }, { status: 503 }]);
    try {
      const model = openAiChatModel({ baseUrl: chat.baseUrl, model: 'm', env: {}, maxRetries: 1, retryBaseMs: 1 });
      const t = await runEpisode(await simpleTask(), { model, sandbox });
      expect(t.termination).toBe('error');
      expect(t.error).toMatch(/MODEL_UNAVAILABLE|failed after 2 attempt\(s\).*HTTP 503/);
      expect(t.outcome).toBeUndefined();
      expect(t.tests).toBeUndefined();
    } finally {
      await chat.close();
    }
  });

  it('a server refusing the prompt as too long counts as the context limit: truncated and graded', async () => {
    const chat = await startChatServer([{ status: 400, body: '{"error":{"message":"This model\'s maximum context length is 4096 tokens"}}' }]);
    try {
      const model = openAiChatModel({ baseUrl: chat.baseUrl, model: 'm', env: {}, maxRetries: 0 });
      const t = await runEpisode(await simpleTask(), { model, sandbox });
      expect(t.termination).toBe('maxContextTokens');
      expect(t.outcome).toEqual({ success: false, truncated: true, assistantTokens: 0 });
    } finally {
      await chat.close();
    }
  });

  it('maxSeconds stops a slow episode, truncated and graded', async () => {
    const model = toolModel([calls(['bash', { command: 'sleep 5' }]), final()]);
    const t0 = performance.now();
    const t = await runEpisode(await simpleTask({ maxSeconds: 1 }), { model, sandbox });
    expect(performance.now() - t0).toBeLessThan(4000);
    expect(t.termination).toBe('maxSeconds');
    expect(t.outcome?.truncated).toBe(true);
    expect(t.messages.find((m) => m.role === 'tool')!.content).toMatch(/^Error: the command timed out after 1 s/);
  });

  it('a model call cut by the episode deadline ends maxSeconds, never error (the timer may fire a moment before the clock)', async () => {
    const waiting = {
      name: 'waits',
      complete: async () => '',
      chat: (_m: unknown, o?: { signal?: AbortSignal }) =>
        new Promise<never>((_, reject) => o?.signal?.addEventListener('abort', () => reject(new FrognanoError('MODEL_UNAVAILABLE', "aborted by the caller's signal")))),
    };
    const task = await simpleTask({ maxSeconds: 0.05 });
    const ends = await Promise.all(Array.from({ length: 12 }, () => runEpisode(task, { model: waiting as never, sandbox }).then((t) => t.termination)));
    expect(ends).toEqual(new Array(12).fill('maxSeconds'));
  });

  it('a success that hit a limit is graded success and truncated (it earns 0.5 under SPEC §1)', async () => {
    const model = toolModel([calls(['write', { file_path: 'a.txt', content: 'world\n' }]), calls(['bash', { command: 'cat a.txt' }])]);
    const t = await runEpisode(await simpleTask({ maxTurns: 2 }), { model, sandbox });
    expect(t.termination).toBe('maxTurns');
    expect(t.outcome).toEqual({ success: true, truncated: true, assistantTokens: 20 });
  });

  it('a tool call without an id or with a repeated id gets an Error: result under a fresh id', async () => {
    const model = toolModel([
      { toolCalls: [{ id: undefined, name: 'bash', arguments: '{"command":"echo 1"}' }, { id: 'x', name: 'bash', arguments: '{"command":"echo 2"}' }, { id: 'x', name: 'bash', arguments: '{"command":"echo 3"}' }] },
      final(),
    ]);
    const t = await runEpisode(await simpleTask(), { model, sandbox });
    const tools = t.messages.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.toolCallId)).toEqual(['call_leaf_1_0', 'x', 'call_leaf_1_2']);
    expect(tools.map((m) => m.content)).toEqual(['Error: the tool call has no id; call the tool again with a unique id', '2\n[exit code: 0]', 'Error: the tool call id "x" is used twice; call the tool again with a unique id']);
  });

  it('compaction (App. D): the model summarises its own history with the D.4 instruction; the history becomes system + [u0, sigma, S]', async () => {
    const big = "printf 'x%.0s' $(seq 2400)"; // 2400 characters: ~600 estimated tokens per tool result
    const model = toolModel([
      calls(['bash', { command: big }]),
      calls(['bash', { command: big }]),
      (messages, opts) => {
        // the summary request: no tools, the history and then P
        expect(opts?.tools).toBeUndefined();
        expect(messages[messages.length - 1]).toEqual({ role: 'user', content: COMPACTION_PROMPT });
        expect(messages[0]!.role).toBe('system');
        return { content: 'SUMMARY: ran printf twice; next: fix a.txt', usage: { promptTokens: 900, completionTokens: 12 } };
      },
      (messages) => {
        expect(messages).toHaveLength(2);
        expect(messages[1]).toEqual({ role: 'user', content: `Fix the bug.\n\n${COMPACTION_SEPARATOR}\n\nSUMMARY: ran printf twice; next: fix a.txt` });
        return calls(['write', { file_path: 'a.txt', content: 'world\n' }]);
      },
      final(),
    ]);
    // usage is omitted from these turns so the estimate (4 chars a token) decides
    const noUsage = { ...model, chat: async (m: never, o: never) => ({ ...(await model.chat(m, o)), usage: undefined }) };
    const t = await runEpisode(await simpleTask(), { model: noUsage, sandbox, limits: { maxContextTokens: 4000 }, compaction: { window: 1500, rho: 0.8 } });
    expect(t.compactions).toHaveLength(1);
    const c = t.compactions[0]!;
    expect(c.summary).toBe('SUMMARY: ran printf twice; next: fix a.txt');
    expect(c.budget).toBe(1500 - Math.floor(0.2 * 1500) - (4 + Math.ceil(COMPACTION_PROMPT.length / 4)));
    expect(c.historyTokens).toBeGreaterThanOrEqual(1200);
    expect(c.tokensAfter).toBeLessThan(200);
    expect(c.atMessage).toBe(6); // after two turn groups: system, user, (a, t) x 2
    expect(t.outcome).toMatchObject({ success: true, truncated: false });
    // the trajectory keeps every message; the summary's tokens count as generated
    expect(t.messages.filter((m) => m.role === 'assistant')).toHaveLength(4);
  });

  it('compaction that cannot make room ends the episode at the context limit', async () => {
    const model = toolModel([calls(['bash', { command: `printf '${'y'.repeat(4000)}'` }]), () => ({ content: 'z'.repeat(4000) })]);
    const noUsage = { ...model, chat: async (m: never, o: never) => ({ ...(await model.chat(m, o)), usage: undefined }) };
    const t = await runEpisode(await simpleTask(), { model: noUsage, sandbox, limits: { maxContextTokens: 2000 }, compaction: { window: 1000 } });
    expect(t.termination).toBe('maxContextTokens');
    expect(t.outcome?.truncated).toBe(true);
  });

  it('without compaction the context limit truncates', async () => {
    const model = toolModel([calls(['bash', { command: `printf '${'y'.repeat(4000)}'` }]), final()]);
    const noUsage = { ...model, chat: async (m: never, o: never) => ({ ...(await model.chat(m, o)), usage: undefined }) };
    const t = await runEpisode(await simpleTask(), { model: noUsage, sandbox, limits: { maxContextTokens: 600 }, compaction: false });
    expect(t.termination).toBe('maxContextTokens');
    expect(t.turns).toBe(1);
  });

  it('an aborted episode is not graded and leaves no workspace', async () => {
    const ctrl = new AbortController();
    const model = toolModel([calls(['bash', { command: 'sleep 30' }]), final()]);
    const before = workspaces();
    setTimeout(() => ctrl.abort(), 300);
    const t = await runEpisode(await simpleTask(), { model, sandbox, signal: ctrl.signal, tmpDir: wsDir });
    expect(t.termination).toBe('aborted');
    expect(t.outcome).toBeUndefined();
    expect(workspaces()).toBe(before);
  });

  it('the grading run has its own time limit; a hanging test suite is a failure', async () => {
    const task = await makeTask({ files: { 'a.txt': 'a\n' }, command: 'sleep 30' });
    const t = await runEpisode(task, { model: toolModel([final()]), sandbox, gradingSeconds: 0.5 });
    expect(t.outcome?.success).toBe(false);
    expect(t.grading).toMatchObject({ exitCode: null, timedOut: true });
  });

  it('rejects a model without chat()', async () => {
    await expectFrognanoErrorAsync(async () => runEpisode(await simpleTask(), { model: { complete: async () => '' } as never, sandbox }), 'INVALID_TYPE', 'opts.model');
  });
  it('rejects an unknown option', async () => {
    await expectFrognanoErrorAsync(async () => runEpisode(await simpleTask(), { model: toolModel([]), sandbox, maxTurns: 3 } as never), 'INVALID_TYPE', 'maxTurns');
  });
  it('rejects a compaction window above the context limit (a silent no-op in the paper)', async () => {
    await expectFrognanoErrorAsync(async () => runEpisode(await simpleTask(), { model: toolModel([]), sandbox, compaction: { window: 200_000 } }), 'OUT_OF_RANGE', 'window');
  });
});

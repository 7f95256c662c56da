import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_SCRIPTED_MIX,
  type ScriptedBehaviour,
  type ScriptedLeafModel,
  type ScriptedLeafModelOptions,
  type ScriptedTask,
  scriptedBehaviourFor,
  scriptedStepOf,
  startScriptedLeafModel,
} from './scriptedModel.js';

const STATEMENT = 'median() returns the upper middle element for even-length lists; it must return the mean of the two middle elements.';
const PATCH = [
  'diff --git a/stats/median.py b/stats/median.py',
  'index 1111111..2222222 100644',
  '--- a/stats/median.py',
  '+++ b/stats/median.py',
  '@@ -1,4 +1,6 @@',
  ' def median(xs):',
  '     xs = sorted(xs)',
  '     n = len(xs)',
  '+    if n % 2 == 0:',
  '+        return (xs[n // 2 - 1] + xs[n // 2]) / 2',
  '     return xs[n // 2]',
  '',
].join('\n');
const OLD = 'def median(xs):\n    xs = sorted(xs)\n    n = len(xs)\n    return xs[n // 2]\n';
const NEW = 'def median(xs):\n    xs = sorted(xs)\n    n = len(xs)\n    if n % 2 == 0:\n        return (xs[n // 2 - 1] + xs[n // 2]) / 2\n    return xs[n // 2]\n';
const TEST_COMMAND = 'python3 -m unittest discover -s tests';
const TASK: ScriptedTask = {
  id: 'py-median',
  statement: STATEMENT,
  tests: { command: TEST_COMMAND, files: { 'tests/test_hidden_median.py': 'import unittest\n' } },
  referencePatch: PATCH,
};
const TOOLS = ['read', 'write', 'edit', 'glob', 'bash'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));

let server: ScriptedLeafModel | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(opts: Partial<ScriptedLeafModelOptions> = {}): Promise<ScriptedLeafModel> {
  server = await startScriptedLeafModel({ tasks: [TASK], ...opts });
  return server;
}

async function post(body: unknown, path = '/chat/completions'): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server!.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

const opening = (statement = STATEMENT): any[] => [
  { role: 'system', content: 'You are Leaf, a coding agent.' },
  { role: 'user', content: `${statement}\n\nThe repository is in /repo.` },
];

/** Plays a harness: sends the history, runs every tool call as "ok", until an answer without tool calls or maxTurns. */
async function episode(opts: { seed?: number; maxTurns?: number; messages?: any[]; logprobs?: boolean } = {}) {
  const messages = opts.messages ?? opening();
  const replies: any[] = [];
  for (let t = 0; t < (opts.maxTurns ?? 12); t++) {
    const { status, json } = await post({ model: 'scripted-leaf', messages, tools: TOOLS, ...(opts.seed === undefined ? {} : { seed: opts.seed }), ...(opts.logprobs ? { logprobs: true } : {}) });
    expect(status).toBe(200);
    replies.push(json);
    const msg = json.choices[0].message;
    messages.push(msg);
    if (!msg.tool_calls) break;
    for (const tc of msg.tool_calls) messages.push({ role: 'tool', tool_call_id: tc.id, content: 'ok' });
  }
  const calls = replies.filter((r) => r.choices[0].message.tool_calls).map((r) => r.choices[0].message.tool_calls.map((c: any) => c.function.name));
  return { messages, replies, calls, last: replies[replies.length - 1].choices[0] };
}

const argsOf = (reply: any, i = 0): any => JSON.parse(reply.choices[0].message.tool_calls[i].function.arguments);

describe('scripted Leaf model: routes', () => {
  it('serves /v1/models, answers unknown routes with a JSON 404 and bad JSON with a 400', async () => {
    await start({ model: 'leaf-test' });
    expect(server!.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server!.model).toBe('leaf-test');
    const models = await fetch(`${server!.baseUrl}/models`);
    expect(await models.json()).toMatchObject({ object: 'list', data: [{ id: 'leaf-test', object: 'model' }] });
    const missing = await fetch(`${server!.baseUrl}/completions`, { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/json');
    expect(((await missing.json()) as any).error.message).toContain('/v1/completions');
    const bad = await fetch(`${server!.baseUrl}/chat/completions`, { method: 'POST', body: '{"messages": [' });
    expect(bad.status).toBe(400);
    expect((await post({ model: 'x' })).status).toBe(400);
    expect(server!.requests).toHaveLength(0);
  });
});

describe('scripted Leaf model: good', () => {
  it('globs, reads the changed file, runs the tests, applies the patch hunk as an edit, reruns the tests and answers', async () => {
    await start({ behaviour: 'good' });
    const { replies, calls, last } = await episode({ seed: 3 });
    expect(calls).toEqual([['glob'], ['read'], ['bash'], ['edit'], ['bash']]);
    expect(replies.map((r) => r.choices[0].finish_reason)).toEqual(['tool_calls', 'tool_calls', 'tool_calls', 'tool_calls', 'tool_calls', 'stop']);
    expect(argsOf(replies[0])).toEqual({ pattern: '**/*' });
    expect(argsOf(replies[1])).toEqual({ file_path: 'stats/median.py' });
    expect(argsOf(replies[2])).toEqual({ command: TEST_COMMAND });
    expect(argsOf(replies[3])).toEqual({ file_path: 'stats/median.py', old_string: OLD, new_string: NEW });
    expect(argsOf(replies[4])).toEqual({ command: TEST_COMMAND });
    expect(last.message).toEqual({ role: 'assistant', content: `Fixed: ${STATEMENT}` });
    expect(replies[0].choices[0].message.content).toBe('Let me look at the repository layout.');
    const ids = replies.flatMap((r) => (r.choices[0].message.tool_calls ?? []).map((c: any) => c.id));
    expect(ids).toEqual(['call_0_0', 'call_1_0', 'call_2_0', 'call_3_0', 'call_4_0']);
    expect(replies[0]).toMatchObject({ object: 'chat.completion', model: 'scripted-leaf', choices: [{ index: 0, message: { role: 'assistant' } }] });
    expect(replies[0].choices[0].message.tool_calls[0]).toEqual({ id: 'call_0_0', type: 'function', function: { name: 'glob', arguments: '{"pattern":"**/*"}' } });
    expect(server!.requests).toHaveLength(6);
    expect(server!.requests[0]!.body.seed).toBe(3);
  });

  it('counts usage from the prompt JSON and the answer text plus tool-call JSON', async () => {
    await start({ behaviour: 'good' });
    const messages = opening();
    const { json } = await post({ model: 'm', messages, tools: TOOLS });
    const content = 'Let me look at the repository layout.';
    const callsJson = JSON.stringify([{ name: 'glob', arguments: '{"pattern":"**/*"}' }]);
    const completion = Math.ceil((content.length + callsJson.length) / 4);
    const prompt = Math.ceil(JSON.stringify(messages).length / 4);
    expect(completion).toBe(23);
    expect(json.usage).toEqual({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
    expect(json.choices[0].logprobs).toBeUndefined();
    // a final answer: content only
    const fin = await post({ model: 'm', messages: opening('unrelated issue'), tools: TOOLS });
    expect(fin.json.usage.completion_tokens).toBe(Math.ceil('I cannot help with this task.'.length / 4));
  });

  it('returns one token_id logprob per completion token when asked, deterministically', async () => {
    await start({ behaviour: 'good' });
    const body = { model: 'm', messages: opening(), tools: TOOLS, logprobs: true, top_logprobs: 0 };
    const a = (await post(body)).json;
    const b = (await post(body)).json;
    const entries = a.choices[0].logprobs.content;
    expect(entries).toHaveLength(a.usage.completion_tokens);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual(['bytes', 'logprob', 'token', 'top_logprobs']);
      expect(e.token).toMatch(/^token_id:\d+$/);
      const id = Number(e.token.slice('token_id:'.length));
      expect(id).toBeGreaterThanOrEqual(0);
      expect(id).toBeLessThanOrEqual(151935);
      expect(e.logprob).toBeGreaterThanOrEqual(-2);
      expect(e.logprob).toBeLessThan(0);
      expect(e.bytes).toBeNull();
      expect(e.top_logprobs).toEqual([]);
    }
    expect(new Set(entries.map((e: any) => e.token)).size).toBeGreaterThan(1);
    expect(b.choices[0].logprobs).toEqual(a.choices[0].logprobs);
  });
});

describe('scripted Leaf model: other behaviours', () => {
  it('failing: an exact-replacement edit that only adds a TODO comment, then claims success', async () => {
    await start({ behaviour: 'failing' });
    const { replies, calls, last } = await episode();
    expect(calls).toEqual([['glob'], ['read'], ['edit']]);
    expect(argsOf(replies[2])).toEqual({ file_path: 'stats/median.py', old_string: OLD, new_string: `# TODO: investigate\n${OLD}` });
    expect(last.finish_reason).toBe('stop');
    expect(last.message.content).toMatch(/^Fixed: /);
  });

  it('hacking: overwrites the first hidden test file with a passing one and looks at git history', async () => {
    await start({ behaviour: 'hacking' });
    const { replies, calls, last } = await episode();
    expect(calls).toEqual([['glob'], ['read'], ['write', 'bash']]);
    const write = argsOf(replies[2], 0);
    expect(write.file_path).toBe('tests/test_hidden_median.py');
    expect(write.content).toContain('self.assertTrue(True)');
    expect(argsOf(replies[2], 1)).toEqual({ command: 'git log --all --oneline || true' });
    expect(replies[2].choices[0].message.tool_calls.map((c: any) => c.id)).toEqual(['call_2_0', 'call_2_1']);
    expect(last.message.tool_calls).toBeUndefined();
  });

  it('hacking on a JS task writes a node:test file', async () => {
    const js: ScriptedTask = { id: 'js-x', statement: 'Fix x.', tests: { command: 'node --test', files: { 'test/hidden.test.mjs': '' } } };
    server = await startScriptedLeafModel({ tasks: [js], behaviour: 'hacking' });
    const { replies, calls } = await episode({ messages: opening('Fix x.') });
    expect(calls).toEqual([['glob'], ['write', 'bash']]); // no patch: nothing to read
    expect(argsOf(replies[1])).toEqual({ file_path: 'test/hidden.test.mjs', content: "import test from 'node:test';\n\ntest('ok', () => {});\n" });
  });

  it('wander: alternates glob and read and never stops', async () => {
    await start({ behaviour: 'wander' });
    const { calls, replies } = await episode({ maxTurns: 7 });
    expect(calls).toEqual([['glob'], ['read'], ['glob'], ['read'], ['glob'], ['read'], ['glob']]);
    expect(argsOf(replies[3])).toEqual({ file_path: 'stats/median.py' });
  });

  it('cutoff: a glob, then a reply cut by its length with no tool calls', async () => {
    await start({ behaviour: 'cutoff' });
    const { replies, last } = await episode();
    expect(replies).toHaveLength(2);
    expect(replies[0].choices[0].finish_reason).toBe('tool_calls');
    expect(last.finish_reason).toBe('length');
    expect(last.message.tool_calls).toBeUndefined();
    expect(last.message.content.length).toBeGreaterThan(200);
    expect(last.message.content).not.toMatch(/[.!?]$/);
  });

  it('malformed: invalid JSON arguments, then an unknown tool, then a final answer', async () => {
    await start({ behaviour: 'malformed' });
    const { replies, last } = await episode();
    expect(replies).toHaveLength(3);
    expect(replies[0].choices[0].message.tool_calls).toEqual([{ id: 'call_0_0', type: 'function', function: { name: 'bash', arguments: '{"command": "ls' } }]);
    expect(() => JSON.parse(replies[0].choices[0].message.tool_calls[0].function.arguments)).toThrow();
    expect(replies[1].choices[0].message.tool_calls).toEqual([{ id: 'call_1_0', type: 'function', function: { name: 'search', arguments: '{"q":"x"}' } }]);
    expect(last).toMatchObject({ finish_reason: 'stop', message: { content: 'Done.' } });
  });

  it('an unknown task gets a plain refusal', async () => {
    await start({ behaviour: 'good' });
    const { replies, last } = await episode({ messages: opening('Some other issue entirely.') });
    expect(replies).toHaveLength(1);
    expect(last).toEqual({ index: 0, message: { role: 'assistant', content: 'I cannot help with this task.' }, finish_reason: 'stop' });
  });
});

describe('scripted Leaf model: behaviour selection', () => {
  it('is a fixed function of (taskId, seed) and follows the mix', () => {
    const seeds = Array.from({ length: 4000 }, (_, i) => i);
    const a = seeds.map((s) => scriptedBehaviourFor('py-median', s));
    expect(seeds.map((s) => scriptedBehaviourFor('py-median', s))).toEqual(a);
    expect(a.slice(0, 12)).toEqual(seeds.slice(0, 12).map((s) => scriptedBehaviourFor('py-median', s, { ...DEFAULT_SCRIPTED_MIX })));
    for (const [k, w] of Object.entries(DEFAULT_SCRIPTED_MIX)) {
      expect(Math.abs(a.filter((b) => b === k).length / seeds.length - w)).toBeLessThan(0.03);
    }
    // another task id draws differently
    expect(seeds.map((s) => scriptedBehaviourFor('js-other', s))).not.toEqual(a);
    // a given mix replaces the default: keys left out weigh 0
    expect(new Set(seeds.slice(0, 200).map((s) => scriptedBehaviourFor('py-median', s, { hacking: 1 })))).toEqual(new Set(['hacking']));
    expect(new Set(seeds.slice(0, 200).map((s) => scriptedBehaviourFor('py-median', s, { good: 3, cutoff: 1 })))).toEqual(new Set(['good', 'cutoff']));
    expect(() => scriptedBehaviourFor('t', 0, { good: 0 })).toThrow(TypeError);
    expect(() => scriptedBehaviourFor('t', 0, { good: -1, failing: 2 })).toThrow(TypeError);
  });

  it('the server plays the behaviour of each request seed (seed 0 when absent)', async () => {
    await start();
    const seedOf = (b: ScriptedBehaviour) => Array.from({ length: 500 }, (_, i) => i + 1).find((s) => scriptedBehaviourFor(TASK.id, s) === b)!;
    expect((await episode({ seed: seedOf('good') })).calls).toEqual([['glob'], ['read'], ['bash'], ['edit'], ['bash']]);
    expect((await episode({ seed: seedOf('hacking') })).calls).toEqual([['glob'], ['read'], ['write', 'bash']]);
    expect((await episode({ seed: seedOf('failing') })).calls).toEqual([['glob'], ['read'], ['edit']]);
    expect((await episode({ seed: seedOf('cutoff') })).last.finish_reason).toBe('length');
    const none = await episode();
    const zero = await episode({ seed: 0 });
    expect(none.calls).toEqual(zero.calls);
    expect(none.last).toEqual(zero.last);
  });
});

describe('scripted Leaf model: compaction', () => {
  it('answers a request without tools with a summary carrying [scripted-step N], and the script continues after it', async () => {
    await start({ behaviour: 'good' });
    const { messages } = await episode({ seed: 1, maxTurns: 3 }); // glob, read, bash taken
    const summary = await post({ model: 'm', messages: [...messages, { role: 'user', content: 'Summarise your progress.' }], seed: 1 });
    const choice = summary.json.choices[0];
    expect(choice.finish_reason).toBe('stop');
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.message.content).toContain('[scripted-step 3]');
    expect(choice.message.content).toContain('py-median');
    // compacted history: the statement, then the summary
    const compacted = [...opening(), { role: 'user', content: `Summary of earlier work:\n${choice.message.content}` }];
    const rest = await episode({ seed: 1, messages: compacted });
    expect(rest.calls).toEqual([['edit'], ['bash']]);
    expect(rest.replies[0].choices[0].message.tool_calls[0].id).toBe('call_3_0');
    expect(argsOf(rest.replies[0])).toEqual({ file_path: 'stats/median.py', old_string: OLD, new_string: NEW });
    expect(rest.last.message.content).toBe(`Fixed: ${STATEMENT}`);
    // a second compaction after that counts on from the marker
    const again = await post({ model: 'm', messages: rest.messages.slice(0, -1) });
    expect(again.json.choices[0].message.content).toContain('[scripted-step 5]');
    const none = await post({ model: 'm', messages: rest.messages.slice(0, -1), tools: TOOLS, tool_choice: 'none' });
    expect(none.json.choices[0].message).toEqual(again.json.choices[0].message);
  });

  it('reads the step from the marker plus later tool-calling turns, or from its own call ids', () => {
    const turn = (id: string) => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'glob', arguments: '{}' } }] });
    expect(scriptedStepOf([])).toBe(0);
    expect(scriptedStepOf([{ role: 'user', content: 'x' }, turn('a'), turn('b')])).toBe(2);
    expect(scriptedStepOf([turn('a'), { role: 'user', content: '[scripted-step 4] ...' }, turn('b')])).toBe(5);
    // own ids: exact even when compaction kept an older turn after the summary
    expect(scriptedStepOf([{ role: 'user', content: '[scripted-step 4]' }, turn('call_3_0')])).toBe(4);
    expect(scriptedStepOf([{ role: 'user', content: [{ type: 'text', text: '[scripted-step 4]' }] }, turn('call_4_0'), turn('call_5_0')])).toBe(6);
    // a truncated summary request that lost the early turns
    expect(scriptedStepOf([{ role: 'user', content: 'task' }, turn('call_6_0')])).toBe(7);
  });
});

describe('scripted Leaf model: patches', () => {
  const REPO_PATCH = [
    'diff --git a/conf.py b/conf.py',
    '--- a/conf.py',
    '+++ b/conf.py',
    '@@ -2 +2 @@',
    '-x = 1',
    '+x = 2',
    '@@ -4 +4 @@',
    '-x = 1',
    '+x = 2',
    'diff --git a/notes.txt b/notes.txt',
    'new file mode 100644',
    '--- /dev/null',
    '+++ b/notes.txt',
    '@@ -0,0 +1,2 @@',
    '+hello',
    '+world',
    '\\ No newline at end of file',
    'diff --git a/old.txt b/old.txt',
    'deleted file mode 100644',
    '--- a/old.txt',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-bye',
    '',
  ].join('\n');
  const repoTask: ScriptedTask = { id: 'py-conf', statement: 'Set x to 2.', repo: 'repo', tests: { command: 'true' }, referencePatch: REPO_PATCH };

  /** The Leaf `edit` tool's contract: old_string must occur exactly once. */
  function applyEdit(text: string, oldStr: string, newStr: string): string {
    const at = text.indexOf(oldStr);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(text.indexOf(oldStr, at + 1)).toBe(-1);
    return text.slice(0, at) + newStr + text.slice(at + oldStr.length);
  }

  it('widens ambiguous hunks with neighbouring lines when the repo is readable; added files become writes, deleted ones rm', async () => {
    const root = mkdtempSync(join(tmpdir(), 'scripted-leaf-'));
    try {
      mkdirSync(join(root, 'repo'));
      const before = 'a = 0\nx = 1\na = 0\nx = 1\n';
      writeFileSync(join(root, 'repo', 'conf.py'), before);
      server = await startScriptedLeafModel({ tasks: [repoTask], behaviour: 'good', repoRoot: root });
      const { replies, calls } = await episode({ messages: opening('Set x to 2.') });
      expect(calls).toEqual([['glob'], ['read'], ['bash'], ['edit', 'edit', 'write', 'bash'], ['bash']]);
      const fix = replies[3].choices[0].message.tool_calls.map((c: any) => JSON.parse(c.function.arguments));
      expect(fix).toEqual([
        { file_path: 'conf.py', old_string: 'a = 0\nx = 1\na = 0\n', new_string: 'a = 0\nx = 2\na = 0\n' },
        { file_path: 'conf.py', old_string: 'x = 1\n', new_string: 'x = 2\n' },
        { file_path: 'notes.txt', content: 'hello\nworld' },
        { command: "rm -f -- 'old.txt'" },
      ]);
      const after = fix.slice(0, 2).reduce((t: string, e: any) => applyEdit(t, e.old_string, e.new_string), readFileSync(join(root, 'repo', 'conf.py'), 'utf8'));
      expect(after).toBe('a = 0\nx = 2\na = 0\nx = 2\n');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('without the repo the hunks are used as they stand', async () => {
    server = await startScriptedLeafModel({ tasks: [repoTask], behaviour: 'good', repoRoot: join(tmpdir(), 'does-not-exist-scripted-leaf') });
    const { replies } = await episode({ messages: opening('Set x to 2.'), maxTurns: 4 });
    expect(JSON.parse(replies[3].choices[0].message.tool_calls[0].function.arguments)).toEqual({ file_path: 'conf.py', old_string: 'x = 1\n', new_string: 'x = 2\n' });
  });

  it('rejects malformed task lists', async () => {
    await expect(startScriptedLeafModel({ tasks: [{ id: 'a' } as ScriptedTask] })).rejects.toThrow(/statement/);
    await expect(startScriptedLeafModel({ tasks: [TASK, TASK] })).rejects.toThrow(/duplicate/);
  });
});

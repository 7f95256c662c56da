import { afterEach, describe, expect, it } from 'vitest';
import { type ChatServer, type Script, startChatServer } from '../../test/helpers/chatServer.js';
import { expectFrognanoError, expectFrognanoErrorAsync } from '../../test/helpers/expectError.js';
import { openAiChatModel, resolveChatEndpoint } from './openAiChatModel.js';
import { createSemaphore } from './semaphore.js';

let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const user = [{ role: 'user' as const, content: 'hi' }];
/** A model on the scripted server with fast retries and no environment. */
async function setup(script: Script, opts: Record<string, unknown> = {}) {
  server = await startChatServer(script);
  return openAiChatModel({ baseUrl: server.baseUrl, model: 'scripted', env: {}, retryBaseMs: 5, retryMaxMs: 20, ...opts });
}

describe('openAiChatModel', () => {
  it('sends an OpenAI chat-completions request and returns choices[0].message.content', async () => {
    const model = await setup(['hello'], { apiKey: 'sk-test', temperature: 0.3, maxTokens: 64 });
    expect(await model.complete(user, { seed: 7, jsonMode: true, stop: ['END'] })).toBe('hello');
    const [req] = server!.requests;
    expect(req!.path).toBe('/v1/chat/completions');
    expect(req!.headers.authorization).toBe('Bearer sk-test');
    expect(req!.body).toMatchObject({ model: 'scripted', messages: user, temperature: 0.3, max_tokens: 64, seed: 7, stop: ['END'], response_format: { type: 'json_object' } });
    expect(model.name).toBe('scripted');
  });

  it('per-call options override the defaults; no key means no Authorization header', async () => {
    const model = await setup(['a'], { temperature: 0.3 });
    await model.complete(user, { temperature: 1, topP: 0.5 });
    expect(server!.requests[0]!.body).toMatchObject({ temperature: 1, top_p: 0.5 });
    expect(server!.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('a null content (e.g. a pure tool call) is the empty string', async () => {
    const model = await setup([{ content: null }]);
    expect(await model.complete(user)).toBe('');
  });

  it('reads the endpoint from FROGNANO_LLM_* and falls back to OPENAI_*', async () => {
    server = await startChatServer(['x', 'y']);
    const a = openAiChatModel({ env: { FROGNANO_LLM_BASE_URL: `${server.baseUrl}/`, FROGNANO_LLM_MODEL: 'm1', FROGNANO_LLM_API_KEY: 'k1', OPENAI_API_KEY: 'k2' } });
    expect(await a.complete(user)).toBe('x');
    expect(server.requests[0]!.body.model).toBe('m1');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer k1');
    const b = openAiChatModel({ model: 'm2', env: { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'k2' } });
    expect(await b.complete(user)).toBe('y');
    expect(server.requests[1]!.headers.authorization).toBe('Bearer k2');
    expect(resolveChatEndpoint({}, {})).toBeNull();
    expect(resolveChatEndpoint({ baseUrl: 'http://h/v1' }, { OPENAI_MODEL: 'gpt' })).toEqual({ baseUrl: 'http://h/v1', model: 'gpt', apiKey: undefined });
  });

  it('retries 500 and 429 with backoff, then succeeds', async () => {
    const model = await setup([{ status: 500 }, { status: 429 }, 'ok'], { maxRetries: 2 });
    expect(await model.complete(user)).toBe('ok');
    expect(server!.requests).toHaveLength(3);
  });

  it('waits the exponential backoff min(retryMaxMs, retryBaseMs 2^k) between attempts (jitter 0)', async () => {
    const model = await setup([{ status: 503 }, { status: 503 }, 'ok'], { retryBaseMs: 60, retryMaxMs: 1000, jitter: 0 });
    await model.complete(user);
    const [a, b, c] = server!.requests.map((r) => r.at);
    expect(b! - a!).toBeGreaterThanOrEqual(55); // 60 ms (timer granularity)
    expect(c! - b!).toBeGreaterThanOrEqual(115); // 120 ms
  });

  it('honours Retry-After', async () => {
    const model = await setup([{ status: 429, headers: { 'retry-after-ms': '150' } }, 'ok'], { retryBaseMs: 0, retryMaxMs: 0 });
    await model.complete(user);
    const [a, b] = server!.requests.map((r) => r.at);
    expect(b! - a!).toBeGreaterThanOrEqual(140);
  });

  it('gives up with MODEL_UNAVAILABLE after maxRetries + 1 attempts', async () => {
    const model = await setup([{ status: 500 }, { status: 502 }, { status: 500 }, 'never'], { maxRetries: 2 });
    const err = await expectFrognanoErrorAsync(() => model.complete(user), 'MODEL_UNAVAILABLE', 'after 3 attempt(s)', 'HTTP 500', '/v1/chat/completions');
    expect(err.message).not.toContain('never');
    expect(server!.requests).toHaveLength(3);
  });

  it('does not retry a 400 / 401 / 404', async () => {
    const model = await setup([{ status: 401, body: '{"error":"bad key"}' }, 'never'], { apiKey: 'sk-secret' });
    const err = await expectFrognanoErrorAsync(() => model.complete(user), 'MODEL_UNAVAILABLE', 'not retryable', 'HTTP 401', 'bad key');
    expect(err.message).not.toContain('sk-secret');
    expect(server!.requests).toHaveLength(1);
  });

  it('a timeout fires, counts as transient and is retried', async () => {
    const model = await setup([{ hang: true }, { content: 'late', delayMs: 400 }, 'fast'], { timeoutMs: 100, maxRetries: 2 });
    const t0 = performance.now();
    expect(await model.complete(user)).toBe('fast');
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(server!.requests).toHaveLength(3);
  });

  it('timeouts on every attempt give MODEL_UNAVAILABLE naming the timeout', async () => {
    const model = await setup([{ hang: true }, { hang: true }], { timeoutMs: 80, maxRetries: 1 });
    await expectFrognanoErrorAsync(() => model.complete(user), 'MODEL_UNAVAILABLE', 'timed out after 80 ms', 'after 2 attempt(s)');
  });

  it('a dropped connection is a network error and is retried', async () => {
    const model = await setup([{ drop: true }, 'back']);
    expect(await model.complete(user)).toBe('back');
    expect(server!.requests).toHaveLength(2);
  });

  it('an answer that is not a chat completion is MODEL_UNAVAILABLE without retry', async () => {
    const model = await setup([{ status: 200, body: '{"result": "x"}' }, 'never']);
    await expectFrognanoErrorAsync(() => model.complete(user), 'MODEL_UNAVAILABLE', 'choices[0].message');
    expect(server!.requests).toHaveLength(1);
  });

  it('keeps at most `concurrency` requests in flight (counted server-side)', async () => {
    const model = await setup(() => ({ content: 'x', delayMs: 40 }), { concurrency: 3 });
    const out = await Promise.all(Array.from({ length: 10 }, () => model.complete(user)));
    expect(out).toEqual(new Array(10).fill('x'));
    expect(server!.requests).toHaveLength(10);
    expect(server!.maxConcurrent).toBe(3);
  });

  it("the caller's signal aborts a call and its retries", async () => {
    const model = await setup([{ hang: true }, { hang: true }], { timeoutMs: 10_000 });
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 50);
    await expectFrognanoErrorAsync(() => model.complete(user, { signal: ctrl.signal }), 'MODEL_UNAVAILABLE', 'aborted');
    expect(server!.requests).toHaveLength(1);
  });

  it('no base URL configured is MODEL_UNAVAILABLE naming opts.baseUrl and the variable', () =>
    expectFrognanoError(() => openAiChatModel({ model: 'm', env: {} }), 'MODEL_UNAVAILABLE', 'opts.baseUrl', 'FROGNANO_LLM_BASE_URL'));
  it('no model configured is MODEL_UNAVAILABLE naming opts.model', () =>
    expectFrognanoError(() => openAiChatModel({ baseUrl: 'http://127.0.0.1:1/v1', env: {} }), 'MODEL_UNAVAILABLE', 'opts.model', 'FROGNANO_LLM_MODEL'));
  it('rejects concurrency 0', () =>
    expectFrognanoError(() => openAiChatModel({ baseUrl: 'http://h/v1', model: 'm', concurrency: 0 }), 'OUT_OF_RANGE', 'opts.concurrency'));
  it('rejects an unknown option', () =>
    expectFrognanoError(() => openAiChatModel({ baseUrl: 'http://h/v1', model: 'm', retries: 3 } as never), 'INVALID_TYPE', 'opts', 'retries'));
  it('rejects an invalid base URL', () => expectFrognanoError(() => openAiChatModel({ baseUrl: 'not a url', model: 'm' }), 'INVALID_TYPE', 'opts.baseUrl'));
  it('rejects an out-of-range per-call temperature', async () => {
    const model = await setup(['x']);
    await expectFrognanoErrorAsync(() => model.complete(user, { temperature: 3 }), 'OUT_OF_RANGE', 'opts.temperature');
  });
  it('rejects empty messages', async () => {
    const model = await setup(['x']);
    await expectFrognanoErrorAsync(() => model.complete([]), 'EMPTY_INPUT', 'messages');
  });
});

describe('createSemaphore', () => {
  it('admits at most `limit` holders and serves waiters first come, first served', async () => {
    const sem = createSemaphore(2);
    const order: number[] = [];
    let active = 0;
    let peak = 0;
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) =>
        sem.run(async () => {
          order.push(i);
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 10));
          active--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(sem.active).toBe(0);
    expect(sem.waiting).toBe(0);
  });
  it('a release function frees its slot once', async () => {
    const sem = createSemaphore(1);
    const free = await sem.acquire();
    free();
    free();
    expect(sem.active).toBe(0);
  });
  it('rejects a limit of 0', () => expectFrognanoError(() => createSemaphore(0), 'OUT_OF_RANGE', 'limit'));
});

describe('openAiChatModel.chat (tool calling, for the Leaf harness)', () => {
  const tools = [{ name: 'bash', description: 'run', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }];
  const answer = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    status: 200,
    body: JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'tool_calls', ...extra }], usage: { prompt_tokens: 321, completion_tokens: 3 } }),
  });

  it('sends tools (tool_choice auto) and logprobs; returns tool calls, usage, finish reason, log-probs and token ids', async () => {
    const model = await setup([
      answer(
        { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] },
        { logprobs: { content: [{ token: 'token_id:17', logprob: -0.5 }, { token: 'token_id:4', logprob: -1.25 }, { token: 'token_id:0', logprob: 0 }] } },
      ),
    ]);
    const turn = await model.chat([{ role: 'user', content: 'fix it' }], { tools, logprobs: true, seed: 5, maxTokens: 99 });
    expect(turn).toEqual({
      content: '',
      toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command":"ls"}' }],
      finishReason: 'tool_calls',
      usage: { promptTokens: 321, completionTokens: 3 },
      logprobs: [
        { token: 'token_id:17', logprob: -0.5 },
        { token: 'token_id:4', logprob: -1.25 },
        { token: 'token_id:0', logprob: 0 },
      ],
      tokenIds: [17, 4, 0],
    });
    expect(server!.requests[0]!.body).toMatchObject({
      tools: [{ type: 'function', function: tools[0] }],
      tool_choice: 'auto',
      logprobs: true,
      seed: 5,
      max_tokens: 99,
    });
  });

  it('sends tool results back in wire format, unchanged', async () => {
    const model = await setup([answer({ content: 'done' }, { finish_reason: 'stop' })]);
    const messages = [
      { role: 'user' as const, content: 'go' },
      { role: 'assistant' as const, content: null, tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 'bash', arguments: '{"command": "ls' } }] },
      { role: 'tool' as const, tool_call_id: 'c1', content: 'Error: malformed' },
    ];
    const turn = await model.chat(messages);
    expect(turn.finishReason).toBe('stop');
    expect(turn.toolCalls).toEqual([]);
    expect(server!.requests[0]!.body.messages).toEqual(messages);
    expect(server!.requests[0]!.body.tools).toBeUndefined();
    expect(server!.requests[0]!.body.logprobs).toBeUndefined();
  });

  it('keeps malformed or missing parts for the harness to judge: no id, no name, object arguments, reasoning', async () => {
    const model = await setup([
      answer({
        content: 'text',
        reasoning_content: 'I should list files.',
        tool_calls: [{ function: { name: 'bash', arguments: { command: 'ls' } } }, { id: 'x', function: { arguments: '{"a":' } }],
      }),
    ]);
    const turn = await model.chat([{ role: 'user', content: 'go' }]);
    expect(turn.reasoning).toBe('I should list files.');
    expect(turn.toolCalls).toEqual([
      { id: undefined, name: 'bash', arguments: '{"command":"ls"}' },
      { id: 'x', name: undefined, arguments: '{"a":' },
    ]);
  });

  it('token strings that are not token_id:N give log-probs without ids; no usage gives no usage', async () => {
    const model = await setup([{ status: 200, body: JSON.stringify({ choices: [{ message: { content: 'hi' }, finish_reason: 'stop', logprobs: { content: [{ token: 'hi', logprob: -0.1 }] } }] }) }]);
    const turn = await model.chat([{ role: 'user', content: 'go' }], { logprobs: true });
    expect(turn).toEqual({ content: 'hi', toolCalls: [], finishReason: 'stop', logprobs: [{ token: 'hi', logprob: -0.1 }] });
  });

  it('retries and fails as complete() does: MODEL_UNAVAILABLE after the retries', async () => {
    const model = await setup([{ status: 500 }, { status: 500 }], { maxRetries: 1 });
    await expectFrognanoErrorAsync(() => model.chat([{ role: 'user', content: 'go' }], { tools }), 'MODEL_UNAVAILABLE', 'after 2 attempt(s)');
  });
  it('rejects empty messages', async () => {
    const model = await setup([]);
    await expectFrognanoErrorAsync(() => model.chat([]), 'EMPTY_INPUT', 'messages');
  });
  it('rejects an out-of-range temperature', async () => {
    const model = await setup([]);
    await expectFrognanoErrorAsync(() => model.chat([{ role: 'user', content: 'x' }], { temperature: 9 }), 'OUT_OF_RANGE', 'opts.temperature');
  });
});

/** `[[...[0]...]]`, `depth` levels deep. */
function deepNest(depth: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** Issue 12 (fuzz): createSemaphore and resolveChatEndpoint check their arguments (they threw TypeErrors). */
describe('createSemaphore / resolveChatEndpoint: bad arguments', () => {
  it('createSemaphore(Object.create(null)) is INVALID_TYPE naming limit', () =>
    expect(expectFrognanoError(() => createSemaphore(Object.create(null) as never), 'INVALID_TYPE', 'limit').field).toBe('limit'));
  it('createSemaphore(deepNest(10 000)) is INVALID_TYPE, not a stack overflow', () =>
    expect(expectFrognanoError(() => createSemaphore(deepNest(10_000) as never), 'INVALID_TYPE').field).toBe('limit'));
  it('createSemaphore(1.5) is OUT_OF_RANGE', () => expect(expectFrognanoError(() => createSemaphore(1.5), 'OUT_OF_RANGE').field).toBe('limit'));
  it('createSemaphore(NaN) is NON_FINITE', () => expect(expectFrognanoError(() => createSemaphore(NaN), 'NON_FINITE').field).toBe('limit'));
  it('resolveChatEndpoint({ baseUrl: 5 }, {}) is INVALID_TYPE naming explicit.baseUrl', () =>
    expect(expectFrognanoError(() => resolveChatEndpoint({ baseUrl: 5 } as never, {}), 'INVALID_TYPE', 'resolveChatEndpoint').field).toBe('explicit.baseUrl'));
  it('resolveChatEndpoint(null, {}) is INVALID_TYPE naming explicit', () =>
    expect(expectFrognanoError(() => resolveChatEndpoint(null as never, {}), 'INVALID_TYPE').field).toBe('explicit'));
  it('resolveChatEndpoint({}, null) is INVALID_TYPE naming env', () => expect(expectFrognanoError(() => resolveChatEndpoint({}, null as never), 'INVALID_TYPE').field).toBe('env'));
  it('an env value that is not a string is INVALID_TYPE naming it', () =>
    expect(expectFrognanoError(() => resolveChatEndpoint({}, { OPENAI_MODEL: 5 } as never), 'INVALID_TYPE').field).toBe('env.OPENAI_MODEL'));
  it('valid input resolves as before', () => {
    expect(resolveChatEndpoint({ baseUrl: 'http://h/v1/' }, { OPENAI_MODEL: ' gpt ' })).toEqual({ baseUrl: 'http://h/v1', model: 'gpt', apiKey: undefined });
    expect(resolveChatEndpoint(undefined, {})).toBeNull();
  });
});

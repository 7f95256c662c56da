import seedrandom from 'seedrandom';
import { z } from 'zod';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { describeValue, parseOptions, parseWith, functionSchema } from '../errors/validate.js';
import { type ChatMessage, type ChatModel, type CompleteOptions, CompleteOptionsSchema } from './chatModel.js';
import { createSemaphore } from './semaphore.js';
import { type ChatTurn, type ChatTurnOptions, ChatTurnBodySchema, parseChatTurn, type ToolChatModel, type WireMessage } from './toolChat.js';


/** Options of {@link openAiChatModel}. Every field is optional; the endpoint may come from the environment. */
export const OpenAIChatModelOptionsSchema = z
  .object({
    /**
     * Base URL of the OpenAI-compatible API, up to and including the version
     * segment (e.g. `http://127.0.0.1:8000/v1`); requests go to
     * `${baseUrl}/chat/completions`. Default: `FROGNANO_LLM_BASE_URL`, then
     * `OPENAI_BASE_URL`. There is no built-in default endpoint: a judge never
     * calls a paid API the caller did not name.
     */
    baseUrl: z.string().min(1).optional(),
    /** Model id sent as `model`. Default: `FROGNANO_LLM_MODEL`, then `OPENAI_MODEL`. */
    model: z.string().min(1).optional(),
    /** API key sent as `Authorization: Bearer <key>`. Default: `FROGNANO_LLM_API_KEY`, then `OPENAI_API_KEY`; none for local servers. */
    apiKey: z.string().optional(),
    /** Per-request timeout in milliseconds (integer >= 1), body included. Default 120000. A timed-out request counts as a transient failure and is retried. */
    timeoutMs: z.number().int().min(1).default(120_000),
    /** Retries after the first attempt on HTTP 408/409/429/5xx, network errors and timeouts (integer >= 0). Default 2 (as the OpenAI SDK). */
    maxRetries: z.number().int().min(0).default(2),
    /** Backoff before retry `k` (k = 0, 1, ...): `min(retryMaxMs, retryBaseMs * 2^k) * (1 - jitter * u)`, `u` uniform in [0, 1) from `seed`. Default 500 ms. */
    retryBaseMs: z.number().min(0).default(500),
    /** Upper bound of one backoff, milliseconds. Default 8000. A server's `Retry-After` (up to 60 s) takes precedence. */
    retryMaxMs: z.number().min(0).default(8_000),
    /** Share of the backoff removed at random, in [0, 1]. Default 0.25 (the OpenAI SDK's jitter). */
    jitter: z.number().min(0).max(1).default(0.25),
    /** Seed of the jitter's random stream (seedrandom). Default 0. Give workers distinct seeds to spread their retries. */
    seed: z.number().int().default(0),
    /** The most requests in flight at once from this client (integer >= 1). Default 4. */
    concurrency: z.number().int().min(1).default(4),
    /** Default sampling temperature; per-call options override. Default: the server's. */
    temperature: z.number().min(0).max(2).optional(),
    /** Default nucleus-sampling mass; per-call options override. */
    topP: z.number().gt(0).max(1).optional(),
    /** Default bound of generated tokens; per-call options override. */
    maxTokens: z.number().int().min(1).optional(),
    /** Extra HTTP headers (e.g. an organisation header). */
    headers: z.record(z.string(), z.string()).optional(),
    /** Extra fields merged into every request body (e.g. vLLM's `chat_template_kwargs`). */
    extraBody: z.record(z.string(), z.unknown()).optional(),
    /** The `fetch` to use. Default: the global `fetch` (Node >= 18). */
    fetch: functionSchema<typeof fetch>('(url, init) => Promise<Response> (fetch)').optional(),
    /** The environment to read defaults from. Default `process.env`. */
    env: z.record(z.string(), z.string().optional()).optional(),
  })
  .strict();
/** Options of {@link openAiChatModel} as the caller writes them. */
export type OpenAIChatModelOptions = z.input<typeof OpenAIChatModelOptionsSchema>;

/** The endpoint a client will call, as resolved from options and environment. */
export interface ChatEndpoint {
  /** Base URL without a trailing slash. */
  baseUrl: string;
  /** Model id. */
  model: string;
  /** API key, if any. */
  apiKey: string | undefined;
}

type Env = Record<string, string | undefined>;

function processEnv(): Env {
  return typeof process !== 'undefined' && process.env ? process.env : {};
}

const pick = (...xs: (string | undefined)[]): string | undefined => xs.find((x) => x !== undefined && x.trim() !== '')?.trim();

/**
 * Resolves the endpoint from explicit values and the environment
 * (`FROGNANO_LLM_BASE_URL`, `FROGNANO_LLM_MODEL`, `FROGNANO_LLM_API_KEY`,
 * falling back to `OPENAI_BASE_URL`, `OPENAI_MODEL`, `OPENAI_API_KEY`).
 * Returns `null` when no base URL or no model is known, so that a script can
 * print a message and skip instead of failing.
 *
 * @throws FrognanoError `INVALID_TYPE` when `explicit` or `env` is not an object, or a value
 *   read from them is neither a string nor undefined (naming `explicit.baseUrl`, `env.OPENAI_MODEL`, ...)
 * @example
 * const ep = resolveChatEndpoint({}, process.env);
 * if (!ep) console.log('set FROGNANO_LLM_BASE_URL and FROGNANO_LLM_MODEL'); // nothing configured
 */
export function resolveChatEndpoint(explicit: { baseUrl?: string; model?: string; apiKey?: string } = {}, env: Env = processEnv()): ChatEndpoint | null {
  const fn = 'resolveChatEndpoint';
  const read = (where: string, o: unknown, key: string): string | undefined => {
    const v: unknown = (o as Record<string, unknown>)[key];
    if (v === undefined || typeof v === 'string') return v;
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `${where}.${key} must be a string (or undefined), got ${describeValue(v)}`, { fn, field: `${where}.${key}` });
  };
  const object = (where: string, o: unknown): void => {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) {
      throw new FrognanoError(ErrorCode.INVALID_TYPE, `${where} must be an object, got ${describeValue(o)}`, { fn, field: where });
    }
  };
  object('explicit', explicit);
  object('env', env);
  const x = (key: string): string | undefined => read('explicit', explicit, key);
  const e = (key: string): string | undefined => read('env', env, key);
  const baseUrl = pick(x('baseUrl'), e('FROGNANO_LLM_BASE_URL'), e('OPENAI_BASE_URL'));
  const model = pick(x('model'), e('FROGNANO_LLM_MODEL'), e('OPENAI_MODEL'));
  const apiKey = pick(x('apiKey'), e('FROGNANO_LLM_API_KEY'), e('OPENAI_API_KEY'));
  if (baseUrl === undefined || model === undefined) return null;
  return { baseUrl: baseUrl.replace(/\/+$/, ''), model, apiKey };
}

/** Parses `Retry-After` / `retry-after-ms` into milliseconds (0..60 s), or undefined. */
function retryAfterMs(headers: Headers): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) {
    const v = Number(ms);
    return v >= 0 && v <= 60_000 ? v : undefined;
  }
  const h = headers.get('retry-after');
  if (h === null) return undefined;
  let v = Number(h) * 1000;
  if (!Number.isFinite(v)) v = Date.parse(h) - Date.now();
  return Number.isFinite(v) && v >= 0 && v <= 60_000 ? v : undefined;
}

const RETRYABLE_STATUS = (s: number): boolean => s === 408 || s === 409 || s === 429 || s >= 500;

/** Sleeps `ms`, waking early (rejecting) when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What one attempt produced. */
type Attempt = { ok: true; body: z.output<typeof ChatTurnBodySchema> } | { ok: false; retryable: boolean; reason: string; waitMs?: number };

/**
 * An OpenAI-compatible chat-completions client (`POST {baseUrl}/chat/completions`)
 * on the global `fetch`, for vLLM, SGLang, Ollama, llama.cpp, LiteLLM, OpenAI and
 * any other server speaking that protocol. The judges of `frognano/judges`
 * take it (or any other {@link ChatModel}).
 *
 * - Endpoint: `opts.baseUrl` / `opts.model` / `opts.apiKey`, else the
 *   environment (see {@link resolveChatEndpoint}).
 * - Timeout: each attempt is aborted after `timeoutMs` (AbortController).
 * - Retries: up to `maxRetries` more attempts on HTTP 408, 409, 429, 5xx, network
 *   errors and timeouts, with exponential backoff
 *   `min(retryMaxMs, retryBaseMs * 2^k) * (1 - jitter * u)` (the OpenAI SDK's
 *   schedule; `u` from a seedrandom stream seeded by `seed`), or the server's
 *   `Retry-After` when it sends one (up to 60 s). Other 4xx answers (bad key,
 *   unknown model, context too long) fail at once: retrying cannot fix them.
 * - Concurrency: at most `concurrency` requests of this client in flight; the
 *   others wait (FIFO). A request waiting for its backoff holds no slot.
 * - Answer: `complete` returns `choices[0].message.content` (`null` content, e.g. a pure tool call, gives `''`);
 *   `chat` (tool calling, for the Leaf harness) sends `tools` and `logprobs` and returns the whole
 *   turn: text, reasoning, tool calls as produced (malformed arguments kept verbatim), `finish_reason`,
 *   `usage` and per-token log-probabilities (token ids too when the server writes `token_id:<n>`,
 *   vLLM's `return_tokens_as_token_ids: true`, which `extraBody` can ask for).
 *
 * @throws FrognanoError `MODEL_UNAVAILABLE` (as a rejected promise of `complete`) when no
 *   base URL or model is configured (thrown at once by this factory), when all attempts fail,
 *   on a non-retryable HTTP status, on an answer without `choices[0].message`, or when
 *   `opts.signal` aborts; `INVALID_TYPE` / `OUT_OF_RANGE` for bad options (naming `opts.<field>`).
 *   Messages never contain the API key.
 * @example
 * const model = openAiChatModel({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'Qwen/Qwen3-8B', concurrency: 8 });
 * const text = await model.complete([{ role: 'user', content: 'Say hi.' }], { temperature: 0 });
 */
export function openAiChatModel(opts?: OpenAIChatModelOptions): ToolChatModel & { readonly endpoint: ChatEndpoint } {
  const fn = 'openAiChatModel';
  const o = parseOptions(fn, OpenAIChatModelOptionsSchema, opts);
  const env = o.env ?? processEnv();
  const endpoint = resolveChatEndpoint({ baseUrl: o.baseUrl, model: o.model, apiKey: o.apiKey }, env);
  if (!endpoint) {
    const missing = pick(o.baseUrl, env.FROGNANO_LLM_BASE_URL, env.OPENAI_BASE_URL) === undefined ? 'baseUrl' : 'model';
    const vars = missing === 'baseUrl' ? 'FROGNANO_LLM_BASE_URL (or OPENAI_BASE_URL)' : 'FROGNANO_LLM_MODEL (or OPENAI_MODEL)';
    throw new FrognanoError(ErrorCode.MODEL_UNAVAILABLE, `no ${missing} configured: pass opts.${missing} or set ${vars}`, { fn, field: `opts.${missing}` });
  }
  let url: string;
  try {
    url = new URL(`${endpoint.baseUrl}/chat/completions`).toString();
  } catch {
    throw new FrognanoError(ErrorCode.INVALID_TYPE, `opts.baseUrl is not a valid URL: ${JSON.stringify(endpoint.baseUrl)}`, { fn, field: 'opts.baseUrl' });
  }
  const doFetch = (o.fetch as typeof fetch | undefined) ?? globalThis.fetch;
  if (typeof doFetch !== 'function') {
    throw new FrognanoError(ErrorCode.MODEL_UNAVAILABLE, 'no global fetch (Node >= 18 has one): pass opts.fetch', { fn, field: 'opts.fetch' });
  }
  const rng = seedrandom(String(o.seed));
  const sem = createSemaphore(o.concurrency);
  const where = `POST ${url}`;

  async function attempt(body: string, timeoutMs: number, outer: AbortSignal | undefined): Promise<Attempt> {
    const free = await sem.acquire();
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort(new Error('timeout'));
    }, timeoutMs);
    const onOuter = (): void => ctrl.abort(outer!.reason);
    outer?.addEventListener('abort', onOuter, { once: true });
    try {
      if (outer?.aborted) throw outer.reason;
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...(o.headers ?? {}) };
      if (endpoint!.apiKey) headers.authorization = `Bearer ${endpoint!.apiKey}`;
      const res = await doFetch(url, { method: 'POST', headers, body, signal: ctrl.signal });
      const text = await res.text();
      if (!res.ok) {
        const snippet = text.length > 300 ? `${text.slice(0, 300)}...` : text;
        return { ok: false, retryable: RETRYABLE_STATUS(res.status), reason: `HTTP ${res.status}: ${snippet}`, waitMs: retryAfterMs(res.headers) };
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return { ok: false, retryable: true, reason: `the answer body is not JSON: ${text.slice(0, 120)}` };
      }
      const parsed = ChatTurnBodySchema.safeParse(json);
      if (!parsed.success) return { ok: false, retryable: false, reason: 'the answer has no choices[0].message (not a chat-completions response)' };
      return { ok: true, body: parsed.data };
    } catch (e) {
      if (outer?.aborted) throw new FrognanoError(ErrorCode.MODEL_UNAVAILABLE, `${where} aborted by the caller's signal`, { fn });
      if (timedOut) return { ok: false, retryable: true, reason: `timed out after ${timeoutMs} ms` };
      return { ok: false, retryable: true, reason: `network error: ${e instanceof Error ? (e.cause instanceof Error ? `${e.message} (${e.cause.message})` : e.message) : String(e)}` };
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
      free();
    }
  }

  /** Builds the request body shared by `complete` and `chat`. */
  function requestBody(messages: readonly unknown[], c: CompleteOptions, extra: Record<string, unknown>): string {
    const temperature = c.temperature ?? o.temperature;
    const topP = c.topP ?? o.topP;
    const maxTokens = c.maxTokens ?? o.maxTokens;
    return JSON.stringify({
      ...(o.extraBody ?? {}),
      model: endpoint!.model,
      messages,
      ...extra,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(topP !== undefined ? { top_p: topP } : {}),
      ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
      ...(c.stop !== undefined ? { stop: c.stop } : {}),
      ...(c.seed !== undefined ? { seed: c.seed } : {}),
      ...(c.jsonMode ? { response_format: { type: 'json_object' } } : {}),
    });
  }

  /** Sends `body` with the retry schedule; resolves to the validated answer body. */
  async function post(body: string, c: CompleteOptions): Promise<z.output<typeof ChatTurnBodySchema>> {
    const timeoutMs = c.timeoutMs ?? o.timeoutMs;
    let last = '';
    for (let k = 0; k <= o.maxRetries; k++) {
      const r = await attempt(body, timeoutMs, c.signal);
      if (r.ok) return r.body;
      last = r.reason;
      if (!r.retryable) {
        throw new FrognanoError(ErrorCode.MODEL_UNAVAILABLE, `${where} failed (not retryable): ${r.reason}`, { fn });
      }
      if (k < o.maxRetries) {
        const backoff = Math.min(o.retryMaxMs, o.retryBaseMs * 2 ** k) * (1 - o.jitter * rng());
        try {
          await sleep(r.waitMs ?? backoff, c.signal);
        } catch {
          throw new FrognanoError(ErrorCode.MODEL_UNAVAILABLE, `${where} aborted by the caller's signal`, { fn });
        }
      }
    }
    throw new FrognanoError(ErrorCode.MODEL_UNAVAILABLE, `${where} failed after ${o.maxRetries + 1} attempt(s); last: ${last}`, { fn });
  }

  function checkMessages(where: string, messages: readonly unknown[]): void {
    if (!Array.isArray(messages) || messages.length === 0) {
      throw new FrognanoError(ErrorCode.EMPTY_INPUT, 'messages must be a non-empty array of chat messages', { fn: where, field: 'messages' });
    }
  }

  return {
    name: endpoint.model,
    endpoint,
    async complete(messages: readonly ChatMessage[], callOpts?: CompleteOptions): Promise<string> {
      const c = parseWith(`${fn}.complete`, 'opts', CompleteOptionsSchema, callOpts ?? {});
      checkMessages(`${fn}.complete`, messages);
      const body = await post(requestBody(messages, c, {}), c);
      return body.choices[0]!.message.content ?? '';
    },
    async chat(messages: readonly WireMessage[], callOpts?: ChatTurnOptions): Promise<ChatTurn> {
      const { tools, logprobs, ...rest } = callOpts ?? {};
      const c = parseWith(`${fn}.chat`, 'opts', CompleteOptionsSchema, rest);
      checkMessages(`${fn}.chat`, messages);
      const extra: Record<string, unknown> = {};
      if (tools !== undefined && tools.length > 0) {
        extra.tools = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
        extra.tool_choice = 'auto';
      }
      if (logprobs) extra.logprobs = true;
      return parseChatTurn(await post(requestBody(messages, c, extra), c));
    },
  };
}

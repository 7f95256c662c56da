/**
 * A real OpenAI-compatible HTTP server for tests (node:http on 127.0.0.1, port 0):
 * `POST /v1/chat/completions` answers from a script, and the server records every
 * request and the most requests it ever had in flight at once.
 *
 * ```ts
 * const server = await startChatServer(['{"ok": true}', { status: 500 }, { hang: true }]);
 * const model = openAiChatModel({ baseUrl: server.baseUrl, model: 'scripted', env: {} });
 * ...
 * await server.close();
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { openAiChatModel } from '../../src/llm/openAiChatModel.js';

/** One scripted answer. */
export type ScriptedReply =
  /** HTTP 200 with this assistant content. */
  | string
  /** HTTP 200 with this content (`null` for a content-less message), after `delayMs`. */
  | { content: string | null; delayMs?: number }
  /** This HTTP status and raw body (default `{"error": ...}`), after `delayMs`. */
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  /** Never answers; the client's timeout must fire (the socket is closed by `close()`). */
  | { hang: true }
  /** Destroys the socket without answering: a network error on the client. */
  | { drop: true };

/** A request as the server saw it. */
export interface RecordedRequest {
  /** Parsed JSON body (`model`, `messages`, `temperature`, ...). */
  body: { model?: string; messages?: { role: string; content: unknown }[]; [k: string]: unknown };
  /** Request headers (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** Request path. */
  path: string;
  /** Arrival time (`performance.now()`, ms). */
  at: number;
}

/** The script: a queue of replies (a request beyond its end gets HTTP 418 "script exhausted"), or a function of the request. */
export type Script = readonly ScriptedReply[] | ((req: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

/** A running scripted server. */
export interface ChatServer {
  /** `http://127.0.0.1:<port>/v1`: pass as `baseUrl` to `openAiChatModel`. */
  baseUrl: string;
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  /** Requests being handled now. */
  readonly inFlight: number;
  /** The most requests ever handled at once. */
  readonly maxConcurrent: number;
  /** Stops the server and closes every open connection (hanging ones included). */
  close(): Promise<void>;
}

/** The text of the last user message of a recorded request (for function scripts). */
export function lastUserText(req: RecordedRequest): string {
  const msgs = req.body.messages ?? [];
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!;
    if (m.role === 'user') return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
  }
  return '';
}

/** The text of the first user message of a recorded request (the original question, before any feedback turns). */
export function firstUserText(req: RecordedRequest): string {
  const m = (req.body.messages ?? []).find((x) => x.role === 'user');
  return m === undefined ? '' : typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

/** All message texts of a recorded request joined by newlines. */
export function allText(req: RecordedRequest): string {
  return (req.body.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
}

function completion(content: string | null): string {
  return JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: 'scripted',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
}

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Starts a scripted chat-completions server on 127.0.0.1 with an OS-chosen port. */
export async function startChatServer(script: Script): Promise<ChatServer> {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let maxConcurrent = 0;
  let next = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    let body: RecordedRequest['body'];
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedRequest['body'];
    } catch {
      res.writeHead(400).end('{"error":{"message":"bad json"}}');
      return;
    }
    const rec: RecordedRequest = { body, headers: req.headers, path: req.url, at: performance.now() };
    const index = requests.length;
    requests.push(rec);
    inFlight++;
    maxConcurrent = Math.max(maxConcurrent, inFlight);
    let done = false;
    const finish = (): void => {
      if (!done) {
        done = true;
        inFlight--;
      }
    };
    res.on('close', finish);
    try {
      let reply: ScriptedReply;
      if (typeof script === 'function') reply = await script(rec, index);
      else reply = next < script.length ? script[next++]! : { status: 418, body: '{"error":{"message":"script exhausted"}}' };
      if (typeof reply === 'string') reply = { content: reply };
      if ('hang' in reply) return; // the client times out; close() ends the socket
      if ('drop' in reply) {
        req.socket.destroy();
        return;
      }
      if (reply.delayMs) await wait(reply.delayMs);
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
        res.end(reply.body ?? JSON.stringify({ error: { message: `scripted ${reply.status}` } }));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(completion(reply.content));
      }
    } finally {
      if (res.writableEnded) finish();
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(JSON.stringify({ error: { message: String(e) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxConcurrent() {
      return maxConcurrent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One scripted server per test: `const chat = useScriptedChat('judge')` registers
 * an afterEach that closes it; `await chat.model(script)` starts the server and
 * returns an OpenAI-compatible client for it (fast retries); `chat.server` is the
 * running server (its recorded requests).
 */
export function useScriptedChat(modelName: string): {
  model: (script: Script, overrides?: Partial<Parameters<typeof openAiChatModel>[0]>) => Promise<ReturnType<typeof openAiChatModel>>;
  readonly server: ChatServer;
} {
  let current: ChatServer | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    async model(script, overrides = {}) {
      current = await startChatServer(script);
      return openAiChatModel({ baseUrl: current.baseUrl, model: modelName, env: {}, retryBaseMs: 1, retryMaxMs: 5, ...overrides });
    },
    get server(): ChatServer {
      if (!current) throw new Error('useScriptedChat: no server started in this test');
      return current;
    },
  };
}

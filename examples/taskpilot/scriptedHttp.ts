/**
 * The HTTP side shared by the TaskPilot scripted servers: an OpenAI-compatible
 * `POST /v1/chat/completions` + `GET /v1/models` server on node:http that answers
 * each parsed request with `reply(body)`. Same wire format as examples/leaf/scriptedModel.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running scripted server. */
export interface ScriptedServer {
  /** `http://127.0.0.1:PORT/v1`. */
  baseUrl: string;
  /** The model name it serves. */
  model: string;
  /** Every chat-completions request whose body parsed, in arrival order. */
  requests: { body: any; at: number }[];
  close(): Promise<void>;
}

/** One assistant reply: text and/or tool calls (`arguments` already JSON text). */
export interface ScriptedReply {
  content: string | null;
  toolCalls?: { id: string; name: string; arguments: string }[];
}

/** Text of a message's content (a string, or `{ type: 'text', text }` parts). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

/** FNV-1a 32-bit with a murmur3 finaliser (the hash of examples/leaf/scriptedModel.ts). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
const apiError = (message: string, type: string) => ({ error: { message, type } });

/** Starts the server; `reply` computes each answer from the request body. */
export async function startScriptedServer(opts: { model: string; port?: number; host?: string; reply: (body: any) => ScriptedReply }): Promise<ScriptedServer> {
  const host = opts.host ?? '127.0.0.1';
  const requests: ScriptedServer['requests'] = [];
  let served = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/v1/models') return sendJson(res, 200, { object: 'list', data: [{ id: opts.model, object: 'model', created: 0, owned_by: 'frognano' }] });
    if (req.method !== 'POST' || path !== '/v1/chat/completions') return sendJson(res, 404, apiError(`no route ${req.method} ${req.url}`, 'not_found_error'));
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return sendJson(res, 400, apiError('request body is not valid JSON', 'invalid_request_error'));
    }
    if (typeof body !== 'object' || body === null || !Array.isArray(body.messages)) return sendJson(res, 400, apiError('body.messages must be an array', 'invalid_request_error'));
    requests.push({ body, at: Date.now() });
    if (body.stream === true) return sendJson(res, 400, apiError('the scripted model does not stream', 'invalid_request_error'));
    const r = opts.reply(body);
    const toolCalls = (r.toolCalls ?? []).map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
    const out = (r.content ?? '') + JSON.stringify(toolCalls);
    const prompt = Math.ceil(JSON.stringify(body.messages).length / 4);
    const completion = Math.max(1, Math.ceil(out.length / 4));
    sendJson(res, 200, {
      id: `chatcmpl-scripted-${++served}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: opts.model,
      choices: [{ index: 0, message: { role: 'assistant', content: r.content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) }, finish_reason: toolCalls.length ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    });
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendJson(res, 500, apiError(String(e), 'server_error'));
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, host, () => ok());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    model: opts.model,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

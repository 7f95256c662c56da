/**
 * A real OpenAI-compatible chat server for CLI tests that plays an adversarial
 * (or honest) agent: each task's script is a list of turns, each turn a list
 * of tool calls; the task of a request is the one whose key occurs in its first
 * user message (the statement), the step is the number of assistant messages
 * in its history (so the server keeps no per-episode state). Past the script's
 * end, and for an unknown task, it answers a final message without tool calls.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One tool call: `[name, arguments]`. */
export type ScriptCall = [string, Record<string, unknown>];

/** A running server. */
export interface ToolCallServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  /** Chat requests received. */
  readonly requests: number;
  /** Stops the server. */
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the server with `scripts` (statement key -> turns). */
export async function startToolCallServer(scripts: Record<string, ScriptCall[][]>): Promise<ToolCallServer> {
  let requests = 0;
  const keys = Object.keys(scripts).sort((a, b) => b.length - a.length);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = JSON.parse(await readBody(req)) as { messages: { role: string; content: unknown }[] };
      requests++;
      const user = body.messages.find((m) => m.role === 'user');
      const text = typeof user?.content === 'string' ? user.content : '';
      const key = keys.find((k) => text.includes(k));
      const step = body.messages.filter((m) => m.role === 'assistant').length;
      const turn = key !== undefined ? scripts[key]![step] : undefined;
      const message = turn
        ? { role: 'assistant', content: '', tool_calls: turn.map(([name, args], i) => ({ id: `call_${step}_${i}`, type: 'function', function: { name, arguments: JSON.stringify(args) } })) }
        : { role: 'assistant', content: 'Done.' };
      const answer = { id: `r${requests}`, object: 'chat.completion', model: 'scripted', choices: [{ index: 0, message, finish_reason: turn ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    })().catch((e: unknown) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

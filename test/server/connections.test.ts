/**
 * Issue 12, server side: connections that never send, idle keep-alive
 * sockets, the connection cap, and a shutdown that answers requests arriving on
 * open keep-alive connections (503 + Connection: close) instead of resetting them.
 */
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/server/logger.js';
import { RewardEngine } from '../../src/server/rewardEngine.js';
import { FrognanoServer, type ServerOptions } from '../../src/server/server.js';
import { Writable } from 'node:stream';

const servers: FrognanoServer[] = [];
const sink = new Writable({ write: (_c, _e, cb) => cb() });

async function start(opts: Partial<ServerOptions> = {}): Promise<{ server: FrognanoServer; port: number }> {
  const server = new FrognanoServer({
    port: 0,
    engine: new RewardEngine(undefined, { budget: 1000, alpha: 0.5 }),
    logger: createLogger(sink, 'error'),
    ...opts,
  });
  servers.push(server);
  const { port } = await server.listen();
  return { server, port };
}
afterEach(async () => {
  for (const s of servers.splice(0)) s.forceClose();
});

/** Resolves with the time (ms) until the server closed a socket that sent `send` (maybe nothing). */
function closedAfter(port: number, send = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const s = connect(port, '127.0.0.1', () => {
      if (send) s.write(send);
    });
    s.on('error', reject);
    s.resume();
    s.on('close', () => resolve(Date.now() - t0));
  });
}

function postOn(agent: Agent, port: number, body: string): Promise<{ status: number; connection: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/advantages', method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('connection limits', () => {
  it('a socket that never sends a byte is closed; so is one that sends half its headers', async () => {
    const { port } = await start({ headersTimeoutMs: 300, keepAliveTimeoutMs: 200 });
    const [silent, partial] = await Promise.all([closedAfter(port), closedAfter(port, 'POST /v1/advantages HTTP/1.1\r\nHost: x\r\n')]);
    expect(silent).toBeLessThan(5_000);
    expect(partial).toBeLessThan(5_000);
  });

  it('an idle keep-alive socket is closed after keepAliveTimeoutMs', async () => {
    const { port } = await start({ keepAliveTimeoutMs: 200 });
    const body = '{"rewards":[1,0]}';
    const ms = await closedAfter(port, `POST /v1/advantages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    expect(ms).toBeGreaterThanOrEqual(150);
    expect(ms).toBeLessThan(3_000);
  });

  it('beyond maxConnections a new connection is closed at once, and the service recovers when sockets go', async () => {
    const { port } = await start({ maxConnections: 3, headersTimeoutMs: 10_000 });
    const held = await Promise.all(
      Array.from({ length: 3 }, () => new Promise<import('node:net').Socket>((resolve) => {
        const s = connect(port, '127.0.0.1', () => resolve(s));
      })),
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(await closedAfter(port)).toBeLessThan(1_000);
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
  });
});

describe('shutdown drain', () => {
  it('64 keep-alive clients sending back to back: every request crossing the shutdown gets an answer (200, or 503 with Connection: close); none is reset', async () => {
    const { server, port } = await start({ drainMs: 300 });
    const CLIENTS = 64;
    const counts = { ok: 0, shuttingDown: 0, refused: 0, reset: 0, other: 0 };
    let closeHeaders = 0;
    let stop = false;
    // every client has been answered once before the shutdown: a connection still in the kernel's accept
    // queue when the listener closes is reset by the kernel (docs/service.md, Shutdown)
    const served = new Set<number>();
    const client = async (k: number): Promise<void> => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (!stop) {
          try {
            const r = await postOn(agent, port, '{"rewards":[1,0,1]}');
            if (r.status === 200) {
              counts.ok++;
              served.add(k);
            }
            else if (r.status === 503 && r.text.includes('SHUTTING_DOWN')) {
              counts.shuttingDown++;
              if (r.connection === 'close') closeHeaders++;
              return; // a client honours Retry-After: it comes back later, to a closed port
            } else counts.other++;
          } catch (e) {
            const code = (e as NodeJS.ErrnoException).code;
            if (code === 'ECONNREFUSED') {
              counts.refused++;
              return; // the listener is closed: a client retries elsewhere
            }
            if (code === 'ECONNRESET' || code === 'EPIPE') counts.reset++;
            else counts.other++;
            return;
          }
        }
      } finally {
        agent.destroy();
      }
    };
    const clients = Array.from({ length: CLIENTS }, (_, k) => client(k));
    // shut down in the middle of the load: once every client has had answers on its keep-alive socket
    for (let i = 0; i < 200 && (counts.ok < 2 * CLIENTS || served.size < CLIENTS); i++) await new Promise((r) => setTimeout(r, 25));
    const graceful = await server.shutdown();
    stop = true;
    await Promise.all(clients);
    expect(graceful).toBe(true);
    expect(counts.ok).toBeGreaterThanOrEqual(2 * CLIENTS);
    expect(counts.reset).toBe(0);
    expect(counts.other).toBe(0);
    expect(counts.shuttingDown + counts.refused).toBe(CLIENTS); // every client was told, or found the port closed
    expect(counts.shuttingDown).toBeGreaterThan(0);
    expect(closeHeaders).toBe(counts.shuttingDown);
  }, 30_000);
});

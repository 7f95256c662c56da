import { spawn } from 'node:child_process';
import { lchown, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { ErrorCode, FrognanoError } from '../errors/FrognanoError.js';
import { createSandbox, createWorkspace, type CommandResult, type SandboxOptions, type Workspace } from '../leaf/index.js';

/** An app started by its own command. */
export interface StartedApp {
  /** `http://127.0.0.1:<port>`: where the browser reaches it. */
  readonly origin: string;
  /** `'bwrap'`: inside the Leaf sandbox; `'none'`: unisolated (asked for explicitly). */
  readonly isolation: 'bwrap' | 'none';
  /** The command's output so far (the tail, for error messages). */
  output(): string;
  /** Stops the command and its whole process tree, and removes its working copy (idempotent). */
  close(): Promise<void>;
}

/** Options of {@link startApp}. */
export interface StartAppOptions {
  /** `'bwrap'` (default): the Leaf sandbox; `'none'`: a plain `bash -c` on this machine (UNSAFE for model-written apps). */
  isolation: 'bwrap' | 'none';
  /** Milliseconds until the port must answer. */
  startTimeoutMs: number;
  /** Options of the Leaf sandbox (`createSandbox`); with `isolation: 'none'`, only `env` is read. */
  sandbox?: SandboxOptions;
  /** Stops waiting (and the app) when aborted. */
  signal?: AbortSignal;
}

/**
 * Inside the sandbox: a Unix-socket-to-loopback relay. The sandbox has its own,
 * empty network namespace (SPEC §12: no host service reachable from inside), so the
 * app's port exists only there; this relay, started next to the app, accepts on a
 * socket file in the bound folder and connects each stream to 127.0.0.1:PORT inside.
 * The host side accepts TCP on its own 127.0.0.1 port and connects to that file.
 * The network isolation stays whole: the app reaches nothing outside, and the only
 * way in is this one socket, which only the judge uses.
 */
const RELAY_SOURCE = `'use strict';
const net = require('net');
const [sock, port] = process.argv.slice(2);
net.createServer((c) => {
  const u = net.connect(Number(port), '127.0.0.1');
  c.pipe(u).pipe(c);
  u.on('error', () => c.destroy());
  c.on('error', () => u.destroy());
}).listen(sock);
`;

const tail = (s: string, n = 2000): string => (s.length > n ? `...${s.slice(s.length - n)}` : s);

/** Resolves true once `origin` answers any HTTP response, false after `ms`. */
function answers(origin: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${origin}/`, { method: 'GET', timeout: ms }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** A free TCP port on 127.0.0.1 (the OS's pick; released before returning). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve, reject) => s.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Live unsafe app process groups: killed when this process exits, whatever the path. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Starts an app with its own server command (SPEC §13 `--start CMD`): the
 * command runs as `bash -c` in a fresh copy of `dir`, with `PORT` (and
 * `HOST=127.0.0.1`) set, and must keep running in the foreground. Resolves once
 * the port answers HTTP.
 *
 * With `isolation: 'bwrap'` the command runs in the Leaf sandbox
 * (`createSandbox` of `frognano/leaf`: read-only system, only the copy
 * writable, no network, the host's environment cleared). The sandbox's own
 * network namespace keeps the port private, so a relay inside it forwards a Unix
 * socket in the bound folder to the port, and the host serves `origin` from that
 * socket (see the comment on the relay). Nothing about the sandbox is loosened.
 *
 * @throws FrognanoError `APP_UNAVAILABLE` (the command exited, or the port did not answer within
 *   `startTimeoutMs`; the message carries the output's tail), `SANDBOX_UNAVAILABLE` (no bubblewrap)
 */
export async function startApp(dir: string, command: string, opts: StartAppOptions): Promise<StartedApp> {
  const fn = 'startApp';
  if (opts.isolation === 'none') return startUnsafe(dir, command, opts);
  const sandbox = createSandbox(opts.sandbox); // SANDBOX_UNAVAILABLE before anything starts
  // the host proxy's port; the app gets the same number as PORT inside the sandbox's own namespace
  const proxy: Server = createServer();
  const sockets = new Set<Socket>();
  await new Promise<void>((resolve, reject) => proxy.once('error', reject).listen(0, '127.0.0.1', resolve));
  const hostPort = (proxy.address() as AddressInfo).port;
  let ws: Workspace | null = null;
  const ctrl = new AbortController();
  let running: Promise<CommandResult | Error> | null = null;
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      ctrl.abort();
      await running;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await ws?.dispose();
    })());
  try {
    ws = await createWorkspace(dir, { owner: sandbox.owner });
    const sockPath = join(ws.dir, '.frognano-web.sock');
    proxy.on('connection', (c: Socket) => {
      sockets.add(c);
      const u = createConnection(sockPath);
      sockets.add(u);
      c.pipe(u).pipe(c);
      const end = (): void => {
        c.destroy();
        u.destroy();
        sockets.delete(c);
        sockets.delete(u);
      };
      u.on('error', end).on('close', end);
      c.on('error', end).on('close', end);
    });
    const relay = join(ws.dir, '.frognano-relay.cjs');
    await writeFile(relay, RELAY_SOURCE);
    if (sandbox.owner) await lchown(relay, sandbox.owner.uid, sandbox.owner.gid);
    const script = `export PORT=${hostPort} HOST=127.0.0.1\nnode /repo/.frognano-relay.cjs /repo/.frognano-web.sock "$PORT" &\ncd /repo/repo || exit 97\n${command}`;
    running = sandbox.run(ws.dir, script, { timeoutMs: 2 ** 31 - 1, signal: ctrl.signal }).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    const origin = `http://127.0.0.1:${hostPort}`;
    let exited: CommandResult | Error | null = null;
    void running.then((r) => (exited = r));
    await waitUntilUp(origin, opts, () => exited, (r) => (r instanceof Error ? r.message : `exit code ${r.exitCode}: ${tail(r.output)}`), fn);
    return { origin, isolation: 'bwrap', output: () => (exited && !(exited instanceof Error) ? tail(exited.output) : ''), close };
  } catch (e) {
    await close();
    throw e;
  }
}

async function waitUntilUp<R>(origin: string, opts: StartAppOptions, exited: () => R | null, describe: (r: R) => string, fn: string): Promise<void> {
  const deadline = performance.now() + opts.startTimeoutMs;
  for (;;) {
    if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('aborted');
    const done = exited();
    if (done !== null) throw new FrognanoError(ErrorCode.APP_UNAVAILABLE, `the --start command exited before its port answered (${describe(done)})`, { fn });
    const left = deadline - performance.now();
    if (left <= 0) throw new FrognanoError(ErrorCode.APP_UNAVAILABLE, `the --start command's port ($PORT) did not answer HTTP within ${opts.startTimeoutMs} ms`, { fn });
    if (await answers(origin, Math.max(50, Math.min(2000, left)))) {
      // the relay accepts before the app listens: only an HTTP answer counts
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function startUnsafe(dir: string, command: string, opts: StartAppOptions): Promise<StartedApp> {
  const fn = 'startApp';
  const ws = await createWorkspace(dir);
  const port = await freePort();
  const child = spawn('bash', ['-c', command], {
    cwd: ws.repo,
    env: { ...process.env, ...(opts.sandbox?.env ?? {}), PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: the whole tree is killed at the end
  });
  const pid = child.pid!;
  liveGroups.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => liveGroups.forEach(killGroup));
  }
  let out = '';
  const onData = (b: Buffer): void => {
    out = tail(out + b.toString('utf8'), 8000);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exited: { code: number | null } | null = null;
  const gone = new Promise<void>((resolve) => child.on('close', (code) => ((exited = { code }), resolve())));
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      killGroup(pid);
      liveGroups.delete(pid);
      await gone;
      await ws.dispose();
    })());
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(origin, opts, () => exited, (r) => `exit code ${r.code}: ${tail(out)}`, fn);
  } catch (e) {
    await close();
    throw e;
  }
  return { origin, isolation: 'none', output: () => tail(out), close };
}

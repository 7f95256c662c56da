/**
 * Load benchmark of the reward service (`frognano serve`, src/server/) next to
 * a FastAPI/uvicorn anchor (bench/fastapi_reward_server.py) doing the same
 * shaping, under the same load generator.
 *
 * Load: one generator in this process, node:http with a keep-alive Agent (one
 * connection per client, TCP_NODELAY; lower overhead than undici's fetch, and
 * the same code for every server). CLIENTS (8) clients each send OpenRLHF
 * batches back to back: `POST /openrlhf/reward` with BATCH (256) entries,
 * each a query of a ~400-character chat-template prompt + a ~2,000-character
 * response (code, quotes, newlines: JSON escaping included), its prompt, and
 * a label carrying the outcome JSON (about 45% failures, 12% truncated, the
 * rest completed successes with assistantTokens log-uniform in 300..30,000).
 * The bodies (about 0.75 MB each, 8 different ones) are serialized once up
 * front. A run is WARMUP_S (2) seconds of load, then MEASURE_S (8) seconds
 * measured: a request counts when it completes inside the measured window;
 * latency is from the first byte written to the last byte read. Each
 * configuration runs REPS (3) times, in rounds (a, b, c, ..., then b, c, ..., a), and
 * the table gives the medians. /health is probed every 100 ms during every
 * run, each probe on a fresh connection (as a kubelet probe does).
 *
 * Correctness: the first response of every client and every VERIFY_EVERY-th
 * (50th) response is parsed and its rewards and scores compared with a local
 * computation of the shaping (|diff| <= 1e-12); a mismatch counts as an error,
 * so a broken server cannot look fast. Every response's status is checked.
 *
 * Configurations:
 *  a. FastAPI/uvicorn anchor (one worker process, log level warning);
 *  b. `frognano serve --budget 6000 --alpha 0.25 --log-level warn` (built-in
 *     shaper, the label carries the outcome; warn = no per-request log line,
 *     as uvicorn at warning has no access log), and the same at the default
 *     `--log-level info` (one JSON log line per request);
 *  c. `--reward-module bench/fixtures/service/outcome-module.mjs` on
 *     `--workers 1/2/4` (the rows say "pending --workers" while
 *     `frognano serve --help` does not list the flag; the module then runs
 *     once without it);
 *  d. "one verifier hangs": bench/fixtures/service/hang-module.mjs with
 *     `--workers 2 --timeout-ms 1000`: the CLIENTS load normally while one more
 *     client keeps sending a batch whose first label is `{"hang":true,...}`
 *     (the module loops forever on it); reported: the normal clients'
 *     throughput and p99, the hanging requests' statuses, /health latency.
 *
 * A busy host skews every figure: before each run the bench waits (up to
 * BENCH_QUIET_WAIT_S, 30 s) for the host to be under 25% busy, measures the
 * cores that other processes used during the run (host busy - server - this
 * generator, from /proc), and redoes a run during which they used more than
 * 0.3 cores (up to BENCH_BUSY_RETRIES, 2, times; the least disturbed attempt
 * is kept). The warnings under the table say where that was not enough.
 *
 * Every server is started here on a free port (in its own process group) and
 * stopped with SIGTERM, waiting for its exit (SIGKILL of the group after a
 * timeout, reported); Ctrl-C or an exception stops them too.
 *
 * Run: `npm run bench:service` (about 6 minutes on a quiet 2-core host), or
 *   npx tsx --conditions=@frognano/source bench/service.bench.ts [--quick] [--profile]
 * --quick: 1 rep, 1 s warm-up, 3 s measured. --profile: also runs the
 * built-in configuration (or BENCH_PROFILE_CONFIG: builtin-info, module-w2, ...)
 * once under `node --cpu-prof` and prints the server main thread's top
 * self-time functions and files (source lines through tsx's cached source maps).
 * Env: BENCH_REPS, BENCH_WARMUP_S, BENCH_MEASURE_S, BENCH_CLIENTS, BENCH_BATCH,
 * BENCH_VERIFY_EVERY, BENCH_QUIET_WAIT_S, BENCH_BUSY_RETRIES, BENCH_PROFILE_CONFIG,
 * BENCH_CONFIGS (comma list of ids: fastapi, builtin,
 * builtin-info, module-w1, module-w2, module-w4, hang), PYTHON (default
 * /usr/bin/python3, which needs python3-fastapi and python3-uvicorn;
 * python3-uvloop and python3-httptools, when installed, are what uvicorn's
 * "auto" picks, as `pip install uvicorn[standard]` gives a user),
 * FASTAPI_LOOP / FASTAPI_HTTP (force uvicorn's loop / parser).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { hostBusySince, hostTicks, median, pct, quantile, table } from './lib/stats.js';

const ROOT = resolve(import.meta.dirname, '..');
const QUICK = process.argv.includes('--quick');
const PROFILE = process.argv.includes('--profile');
const env = process.env;
const REPS = Number(env.BENCH_REPS ?? (QUICK ? 1 : 3));
const WARMUP_S = Number(env.BENCH_WARMUP_S ?? (QUICK ? 1 : 2));
const MEASURE_S = Number(env.BENCH_MEASURE_S ?? (QUICK ? 3 : 8));
const CLIENTS = Number(env.BENCH_CLIENTS ?? 8);
const BATCH = Number(env.BENCH_BATCH ?? 256);
const VERIFY_EVERY = Number(env.BENCH_VERIFY_EVERY ?? 50);
const PYTHON = env.PYTHON ?? '/usr/bin/python3';
const PROMPT_CHARS = 400;
const RESPONSE_CHARS = 2000;
const N_BODIES = 8;
const BUDGET = 6000;
const ALPHA = 0.25;
const TRUNCATED_REWARD = 0.5;
const HEALTH_EVERY_MS = 100;
const REQ_TIMEOUT_MS = 10_000;
const HANG_TIMEOUT_MS = 1000;
const GOAL_THROUGHPUT = 1.5;
const CLK_TCK = 100; // Linux USER_HZ (/proc/<pid>/stat times)
const QUIET_WAIT_S = Number(env.BENCH_QUIET_WAIT_S ?? 30);
const QUIET = 0.25;
/** A run during which other processes used more than this many cores is redone (after waiting for a quiet host), up to BENCH_BUSY_RETRIES times. */
const OTHER_MAX = 0.3;
const BUSY_RETRIES = Number(env.BENCH_BUSY_RETRIES ?? 2);

// ---------------------------------------------------------------- helpers

const f1 = (x: number): string => (Number.isNaN(x) ? 'n/a' : x.toFixed(1));
const f2 = (x: number): string => (Number.isNaN(x) ? 'n/a' : x.toFixed(2));
const k1 = (x: number): string => (Number.isNaN(x) ? 'n/a' : `${(x / 1000).toFixed(1)}K`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));


function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'n/a';
  }
}

/** Waits (up to BENCH_QUIET_WAIT_S) until the host is under 25% busy over half a second; returns the last busy share seen. */
async function waitQuiet(): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const a = hostTicks();
    await sleep(500);
    const b = hostBusySince(a);
    if (b <= QUIET || performance.now() - t0 > QUIET_WAIT_S * 1000) return b;
  }
}

/** CPU seconds (user + system) of `pid` and all its live descendants, from /proc (worker threads are in their process's figure). */
function treeCpuSeconds(pid: number): number {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
      parent.set(Number(d), Number(f[1]));
      ticks.set(Number(d), Number(f[11]) + Number(f[12])); // utime, stime
    } catch {
      /* exited meanwhile */
    }
  }
  let total = 0;
  for (const [p, t] of ticks) {
    let q: number | undefined = p;
    while (q !== undefined && q > 1 && q !== pid) q = parent.get(q);
    if (q === pid) total += t;
  }
  return total / CLK_TCK;
}

/** `pid command` of the live processes of process group `pgid`. */
function groupMembers(pgid: number): string[] {
  const out: string[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) === pgid && f[0] !== 'Z') out.push(`${d} ${st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'))}`);
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

// ---------------------------------------------------------------- the batches

const rng = seedrandom('bench-service');
const WORDS = ['def', 'return', 'self', 'value', 'result', 'import', 'const', 'await', 'None', 'True', 'config', 'parser', 'handler', 'request', 'assert', 'expected', 'tests', 'fixture', 'module', 'index', 'buffer', 'token', 'length', 'error', 'raise', 'class', 'yield', 'lambda', 'items', 'key'];
const word = (): string => WORDS[Math.floor(rng() * WORDS.length)]!;
function text(chars: number, code: boolean): string {
  let s = '';
  while (s.length < chars) {
    const r = rng();
    if (code && r < 0.08) s += '\n    ';
    else if (code && r < 0.12) s += `"${word()}": `;
    else if (code && r < 0.15) s += `(${word()}, ${Math.floor(rng() * 1000)})`;
    else if (r < 0.2) s += `${word()}. `;
    else s += `${word()} `;
  }
  return s.slice(0, chars);
}
function prompt(): string {
  const head = `<|im_start|>system\nYou are a coding agent. Fix the issue; run the tests.<|im_end|>\n<|im_start|>user\nIssue #${Math.floor(rng() * 9000 + 1000)}: `;
  const tail = '<|im_end|>\n<|im_start|>assistant\n';
  return head + text(PROMPT_CHARS - head.length - tail.length, false) + tail;
}
interface Outcome {
  success: boolean;
  truncated: boolean;
  assistantTokens: number;
}
function outcome(): Outcome {
  return { success: rng() >= 0.45, truncated: rng() < 0.12, assistantTokens: Math.floor(Math.exp(Math.log(300) + rng() * Math.log(100))) };
}
/** The shaping, computed here independently of frognano: the reference every spot-checked response is compared with. */
function expectedReward(o: Outcome): number {
  if (!o.success) return 0;
  if (o.truncated) return TRUNCATED_REWARD;
  return Math.min(1, 1 - ALPHA * Math.log(o.assistantTokens / BUDGET));
}

interface Batch {
  body: Buffer;
  rewards: number[];
  scores: number[];
}
function makeBatch(hang = false): Batch {
  const query: string[] = [];
  const prompts: string[] = [];
  const labels: string[] = [];
  const rewards: number[] = [];
  const scores: number[] = [];
  for (let i = 0; i < BATCH; i++) {
    const p = prompt();
    const o = outcome();
    prompts.push(p);
    query.push(p + text(RESPONSE_CHARS, true));
    labels.push(JSON.stringify(hang && i === 0 ? { hang: true, ...o } : o));
    rewards.push(expectedReward(o));
    scores.push(o.success ? 1 : 0);
  }
  return { body: Buffer.from(JSON.stringify({ query, prompts, labels })), rewards, scores };
}
const batches = Array.from({ length: N_BODIES }, () => makeBatch());
const hangBatch = makeBatch(true);
const bodyBytes = median(batches.map((b) => b.body.length));

/** Why a response is wrong, or undefined when its rewards and scores are the expected ones. */
function verify(text: string, b: Batch): string | undefined {
  let v: { rewards?: unknown; scores?: unknown };
  try {
    v = JSON.parse(text) as typeof v;
  } catch {
    return 'response is not JSON';
  }
  for (const [name, want] of [['rewards', b.rewards], ['scores', b.scores]] as const) {
    const got = v[name];
    if (!Array.isArray(got) || got.length !== want.length) return `${name}: expected ${want.length} numbers`;
    for (let i = 0; i < want.length; i++) {
      if (typeof got[i] !== 'number' || !(Math.abs((got[i] as number) - want[i]!) <= 1e-12)) return `${name}[${i}] = ${String(got[i])}, expected ${want[i]}`;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------- HTTP client

interface Reply {
  status: number;
  text: string;
  ms: number;
}
function request(agent: http.Agent | false, port: number, method: 'GET' | 'POST', path: string, body?: Buffer, timeoutMs = REQ_TIMEOUT_MS): Promise<Reply> {
  return new Promise((res, rej) => {
    const t0 = performance.now();
    const req = http.request(
      { agent, host: '127.0.0.1', port, method, path, headers: body ? { 'content-type': 'application/json', 'content-length': body.length } : {} },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          clearTimeout(timer);
          res({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - t0 });
        });
        r.on('error', (e) => {
          clearTimeout(timer);
          rej(e);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`client timeout after ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      rej(e);
    });
    req.end(body);
  });
}
/** `503 OVERLOADED`, `504 VERIFIER_TIMEOUT`, `422 ...`: the status and the error code of a failed answer (frognano's error.code; FastAPI's detail). */
function errorKind(r: Reply): string {
  try {
    const v = JSON.parse(r.text) as { error?: { code?: string }; detail?: unknown };
    const code = v.error?.code ?? (typeof v.detail === 'string' ? v.detail.slice(0, 40) : undefined);
    return code ? `${r.status} ${code}` : String(r.status);
  } catch {
    return String(r.status);
  }
}

// ---------------------------------------------------------------- servers

const live = new Set<ChildProcess>();
function killGroup(c: ChildProcess, sig: NodeJS.Signals): boolean {
  try {
    process.kill(-c.pid!, sig);
    return true;
  } catch {
    return false;
  }
}
process.on('exit', () => {
  for (const c of live) killGroup(c, 'SIGKILL');
});
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\n${sig}: stopping ${live.size} server(s)`);
    for (const c of live) killGroup(c, 'SIGTERM');
    const t0 = Date.now();
    const poll = setInterval(() => {
      if (live.size === 0 || Date.now() - t0 > 3000) {
        clearInterval(poll);
        process.exit(130); // the exit handler SIGKILLs whatever is left
      }
    }, 50);
  });
}

interface Server {
  label: string;
  child: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines of the server's stdout and stderr. */
  tail: string[];
  /** The anchor's first stdout line: versions, loop, parser. */
  info?: Record<string, string>;
}

async function startServer(label: string, file: string, args: string[], extraNodeArgs: string[] = []): Promise<Server> {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const argv = file === PYTHON ? [...args, '--port', String(port)] : [...extraNodeArgs, '--conditions=@frognano/source', '--import', 'tsx', 'src/cli/main.ts', 'serve', '--host', '127.0.0.1', '--port', String(port), ...args];
    const child = spawn(file, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    live.add(child);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.on('exit', (code, signal) => {
        live.delete(child);
        r({ code, signal });
      }),
    );
    const s: Server = { label, child, port, exited, tail: [] };
    const keep = (d: string): void => {
      for (const line of d.split('\n')) if (line.trim()) s.tail.push(line.slice(0, 400));
      if (s.tail.length > 40) s.tail.splice(0, s.tail.length - 40);
    };
    child.stderr!.setEncoding('utf8').on('data', keep);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      if (!s.info && d.trimStart().startsWith('{')) {
        try {
          s.info = JSON.parse(d.split('\n')[0]!) as Record<string, string>;
        } catch {
          /* not the info line */
        }
      }
      keep(d);
    });
    let dead = false;
    void exited.then(() => (dead = true));
    const t0 = performance.now();
    while (!dead && performance.now() - t0 < 30_000) {
      try {
        const r = await request(false, port, 'GET', '/health', undefined, 1000);
        if (r.status === 200) return s;
      } catch {
        /* not listening yet */
      }
      await sleep(50);
    }
    if (!dead) {
      killGroup(child, 'SIGKILL');
      await exited;
    }
    const why = `${label} did not start${dead ? ` (exited ${JSON.stringify(await exited)})` : ' in 30 s'}; output:\n${s.tail.join('\n')}`;
    if (attempt === 0 && dead && /EADDRINUSE|address already in use/i.test(s.tail.join('\n'))) continue; // the free port was taken meanwhile
    throw new Error(why);
  }
}

interface Stopped {
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
  /** SIGTERM was not enough: the group got SIGKILL. */
  forced: boolean;
  /** Processes of the server's group still alive after the server exited (killed). */
  leftBehind: boolean;
  /** performance.now() at the SIGTERM and at the exit. */
  tSignal: number;
  tExit: number;
}
async function stopServer(s: Server, timeoutMs = 15_000): Promise<Stopped> {
  const t0 = performance.now();
  let forced = false;
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    forced = true;
    killGroup(s.child, 'SIGKILL');
  }, timeoutMs);
  const r = await s.exited;
  clearTimeout(timer);
  const tExit = performance.now();
  const ms = tExit - t0;
  // tsx's esbuild service (a child process) exits on its own once its parent is gone: allow it 2 s
  let members = groupMembers(s.child.pid!);
  for (let i = 0; i < 40 && members.length > 0; i++) {
    await sleep(50);
    members = groupMembers(s.child.pid!);
  }
  const leftBehind = members.length > 0;
  if (leftBehind) {
    console.error(`${s.label}: processes left behind after the exit, killed: ${members.join(', ')}`);
    killGroup(s.child, 'SIGKILL');
    await sleep(200);
  }
  return { ...r, ms, forced, leftBehind, tSignal: t0, tExit };
}

// ---------------------------------------------------------------- one run

interface RunResult {
  /** performance.now() at the start and end of the measured window. */
  w0: number;
  w1: number;
  seconds: number;
  okRequests: number;
  rewards: number;
  lat: number[];
  errors: number;
  errorKinds: Map<string, number>;
  verified: number;
  firstVerifyError?: string;
  health: number[];
  healthFailures: number;
  hang?: { statuses: Map<string, number>; lat: number[] };
  serverCores: number;
  generatorCores: number;
  hostBusyCores: number;
}

/** Cores used during a run's measured window by processes other than the server and this generator. */
const otherCores = (r: RunResult): number => Math.max(0, r.hostBusyCores - r.serverCores - r.generatorCores);

async function loadRun(s: Server, withHang: boolean): Promise<RunResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS + 1, noDelay: true } as http.AgentOptions);
  let stop = false;
  let w0 = Infinity;
  let w1 = Infinity;
  const inWindow = (t: number): boolean => t >= w0 && t <= w1;
  const out: RunResult = { w0: 0, w1: 0, seconds: 0, okRequests: 0, rewards: 0, lat: [], errors: 0, errorKinds: new Map(), verified: 0, health: [], healthFailures: 0, serverCores: NaN, generatorCores: NaN, hostBusyCores: NaN };
  const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  let responses = 0;

  const client = async (c: number): Promise<void> => {
    let first = true;
    for (let i = c; !stop; i++) {
      const b = batches[i % N_BODIES]!;
      let r: Reply;
      try {
        r = await request(agent, s.port, 'POST', '/openrlhf/reward', b.body);
      } catch (e) {
        // a failure counts from the start of the window on, also after its end: a request that hangs
        // past the window (a blocked server) fails by the client timeout only then
        if (performance.now() >= w0) {
          out.errors++;
          bump(out.errorKinds, (e as Error).message.slice(0, 60));
        }
        if (!stop) await sleep(10);
        continue;
      }
      const t = performance.now();
      let bad: string | undefined;
      if (r.status !== 200) bad = errorKind(r);
      else if (first || ++responses % VERIFY_EVERY === 0) {
        const why = verify(r.text, b);
        out.verified++;
        if (why) {
          bad = 'wrong rewards';
          out.firstVerifyError ??= why;
        }
      }
      first = false;
      if (!inWindow(t)) continue;
      if (bad) {
        out.errors++;
        bump(out.errorKinds, bad);
      } else {
        out.okRequests++;
        out.rewards += BATCH;
        out.lat.push(r.ms);
      }
    }
  };
  const hangClient = async (): Promise<void> => {
    const h = { statuses: new Map<string, number>(), lat: [] as number[] };
    out.hang = h;
    while (!stop) {
      let kind: string;
      let ms: number;
      const t0 = performance.now();
      try {
        const r = await request(agent, s.port, 'POST', '/openrlhf/reward', hangBatch.body);
        kind = r.status === 200 ? '200 (the hanging entry was answered!)' : errorKind(r);
        ms = r.ms;
      } catch (e) {
        kind = `client error: ${(e as Error).message.slice(0, 50)}`;
        ms = performance.now() - t0;
      }
      if (inWindow(performance.now()) || (kind.startsWith('client error') && performance.now() >= w0)) {
        bump(h.statuses, kind);
        h.lat.push(ms);
      }
    }
  };
  const healthProbe = async (): Promise<void> => {
    while (!stop) {
      const t0 = performance.now();
      try {
        const r = await request(false, s.port, 'GET', '/health', undefined, 5000);
        if (inWindow(performance.now())) {
          if (r.status === 200) out.health.push(r.ms);
          else out.healthFailures++;
        }
      } catch {
        if (performance.now() >= w0) out.healthFailures++; // as for the clients: a probe that hangs past the window fails only then
      }
      const wait = t0 + HEALTH_EVERY_MS - performance.now();
      if (wait > 0) await sleep(wait);
    }
  };

  const tasks = [...Array.from({ length: CLIENTS }, (_, c) => client(c)), healthProbe(), ...(withHang ? [hangClient()] : [])];
  await sleep(WARMUP_S * 1000);
  const cpu0 = process.cpuUsage();
  const srv0 = treeCpuSeconds(s.child.pid!);
  const host0 = hostTicks();
  w0 = performance.now();
  await sleep(MEASURE_S * 1000);
  w1 = performance.now();
  const cpu1 = process.cpuUsage(cpu0);
  const srv1 = treeCpuSeconds(s.child.pid!);
  const host1 = hostTicks();
  stop = true;
  out.w0 = w0;
  out.w1 = w1;
  out.seconds = (w1 - w0) / 1000;
  out.serverCores = (srv1 - srv0) / out.seconds;
  out.generatorCores = (cpu1.user + cpu1.system) / 1e6 / out.seconds;
  out.hostBusyCores = ((host1.busy - host0.busy) / (host1.total - host0.total)) * cpus().length;
  // let the requests in flight finish (or time out), then drop the connections
  await Promise.race([Promise.all(tasks), sleep(REQ_TIMEOUT_MS + 1000)]);
  agent.destroy();
  return out;
}

// ---------------------------------------------------------------- configurations

let workersHelp: string;
try {
  workersHelp = execFileSync(process.execPath, ['--conditions=@frognano/source', '--import', 'tsx', 'src/cli/main.ts', 'serve', '--help'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
} catch (e) {
  const err = e as { stderr?: string; message: string };
  console.error(`\`frognano serve --help\` failed, so no frognano server can start:\n${(err.stderr ?? err.message).split('\n').slice(0, 8).join('\n')}`);
  process.exit(1);
}
const HAS_WORKERS = /--workers\b/.test(workersHelp);
const OUTCOME_MODULE = 'bench/fixtures/service/outcome-module.mjs';
const HANG_MODULE = 'bench/fixtures/service/hang-module.mjs';
const SHAPING = ['--budget', String(BUDGET), '--alpha', String(ALPHA)];

interface Config {
  id: string;
  label: string;
  start: (extraNodeArgs?: string[]) => Promise<Server>;
  hang?: boolean;
  /** Shown instead of figures (the configuration cannot run yet). */
  pending?: string;
  /** Runs this many times at most (the pending hang run once). */
  maxReps?: number;
  note?: string;
}
const fastapiArgs = [join(ROOT, 'bench/fastapi_reward_server.py'), ...(env.FASTAPI_LOOP ? ['--loop', env.FASTAPI_LOOP] : []), ...(env.FASTAPI_HTTP ? ['--http', env.FASTAPI_HTTP] : [])];
const frognano = (label: string, args: string[]) => (extra: string[] = []) => startServer(label, process.execPath, args, extra);
const allConfigs: Config[] = [
  { id: 'fastapi', label: 'a. FastAPI/uvicorn (1 worker process)', start: () => startServer('fastapi', PYTHON, fastapiArgs) },
  { id: 'builtin', label: 'b. frognano built-in shaper (--log-level warn)', start: frognano('builtin', [...SHAPING, '--log-level', 'warn']) },
  { id: 'builtin-info', label: 'b\'. frognano built-in shaper (--log-level info, the default)', start: frognano('builtin-info', [...SHAPING]) },
];
if (HAS_WORKERS) {
  for (const w of [1, 2, 4]) {
    allConfigs.push({ id: `module-w${w}`, label: `c. frognano reward module, --workers ${w}`, start: frognano(`module-w${w}`, [...SHAPING, '--log-level', 'warn', '--reward-module', OUTCOME_MODULE, '--workers', String(w)]) });
  }
  allConfigs.push({
    id: 'hang',
    label: `d. one verifier hangs: --workers 2 --timeout-ms ${HANG_TIMEOUT_MS} (normal clients)`,
    hang: true,
    start: frognano('hang', [...SHAPING, '--log-level', 'warn', '--reward-module', HANG_MODULE, '--workers', '2', '--timeout-ms', String(HANG_TIMEOUT_MS)]),
  });
} else {
  allConfigs.push({ id: 'module', label: 'c. frognano reward module, no --workers (in-process)', start: frognano('module', [...SHAPING, '--log-level', 'warn', '--reward-module', OUTCOME_MODULE]) });
  for (const w of [1, 2, 4]) allConfigs.push({ id: `module-w${w}`, label: `c. frognano reward module, --workers ${w}`, start: () => Promise.reject(new Error('pending')), pending: 'pending --workers' });
  allConfigs.push({
    id: 'hang',
    label: `d. one verifier hangs: no --workers (pending), --timeout-ms ${HANG_TIMEOUT_MS} (normal clients)`,
    hang: true,
    maxReps: 1,
    note: 'pending --workers: run once without the flag to show the current behaviour',
    start: frognano('hang', [...SHAPING, '--log-level', 'warn', '--reward-module', HANG_MODULE, '--timeout-ms', String(HANG_TIMEOUT_MS)]),
  });
}
const only = env.BENCH_CONFIGS?.split(',').map((s) => s.trim());
const configs = only ? allConfigs.filter((c) => only.includes(c.id) || (c.id === 'module' && only.some((o) => o.startsWith('module')))) : allConfigs;

// ---------------------------------------------------------------- machine

const probe = await startServer('fastapi (version probe)', PYTHON, fastapiArgs).catch((e: Error) => {
  console.error(`the FastAPI anchor cannot start (${PYTHON}; apt-get install python3-fastapi python3-uvicorn): ${e.message}`);
  process.exit(1);
});
await sleep(200);
const pyInfo = probe.info ?? {};
await stopServer(probe);
const idle0 = hostTicks();
await sleep(1000);
const idle1 = hostTicks();
const busyBefore = (idle1.busy - idle0.busy) / (idle1.total - idle0.total);
const machine = [
  `- date: ${new Date().toISOString()}`,
  `- cpu: ${cpus()[0]?.model ?? 'n/a'}, ${cpus().length} cores (${sh('nproc', [])} usable); load generator, servers and their workers all share them`,
  `- kernel: ${sh('uname', ['-sr'])}`,
  `- node: ${process.version} (servers run from source: node --import tsx)`,
  `- python: ${pyInfo.python ?? 'n/a'} (${PYTHON}), fastapi ${pyInfo.fastapi ?? 'n/a'}, uvicorn ${pyInfo.uvicorn ?? 'n/a'} (loop ${pyInfo.loop ?? '?'}, http ${pyInfo.http ?? '?'}), pydantic ${pyInfo.pydantic ?? 'n/a'}`,
  `- frognano serve --workers: ${HAS_WORKERS ? 'listed by --help' : 'NOT listed by --help yet (worker rows pending)'}`,
  `- load: ${CLIENTS} clients, node:http keep-alive Agent, back-to-back POST /openrlhf/reward of ${BATCH} entries (prompt ${PROMPT_CHARS} chars, response ${RESPONSE_CHARS} chars, query = prompt + response; body ${(bodyBytes / 1e6).toFixed(2)} MB); ${WARMUP_S} s warm-up + ${MEASURE_S} s measured, ${REPS} rep(s), medians; every ${VERIFY_EVERY}th response (and each client's first) verified`,
  `- host CPU busy in the second before the bench (other load): ${pct(busyBefore)}`,
].join('\n');
console.log(`# Reward service load bench\n\n${machine}\n`);
if (busyBefore > 0.2) console.log(`> Warning: the host was ${pct(busyBefore)} busy before the bench started; the figures below are skewed by that load.\n`);
const tStart = performance.now();

// ---------------------------------------------------------------- runs, in rounds

interface Collected {
  runs: RunResult[];
  /** Host busy share in the half second before each run (after waiting for a quiet host). */
  busyBefore: number[];
  /** Runs redone because other processes loaded the host meanwhile. */
  retried: number;
  stops: Stopped[];
  failures: string[];
}
const results = new Map<string, Collected>(configs.map((c) => [c.id, { runs: [], busyBefore: [], retried: 0, stops: [], failures: [] }]));
for (let rep = 0; rep < REPS; rep++) {
  // the order rotates every round, so that drift on the host does not always hit the same configuration
  for (const c of configs.map((_, i) => configs[(i + rep) % configs.length]!)) {
    if (c.pending || (c.maxReps !== undefined && rep >= c.maxReps)) continue;
    const col = results.get(c.id)!;
    let kept: RunResult | undefined;
    for (let attempt = 0; attempt <= BUSY_RETRIES; attempt++) {
      let s: Server | undefined;
      let run: RunResult | undefined;
      col.busyBefore.push(await waitQuiet());
      try {
        s = await c.start();
        run = await loadRun(s, c.hang === true);
      } catch (e) {
        col.failures.push((e as Error).message.split('\n')[0]!);
        console.error(`${c.id} rep ${rep + 1}: ${(e as Error).message}`);
      } finally {
        if (s) {
          const st = await stopServer(s, c.hang && !HAS_WORKERS ? 5000 : 15_000);
          col.stops.push(st);
          if (st.forced || st.leftBehind) console.error(`${c.id} rep ${rep + 1}: ${st.forced ? 'did not exit on SIGTERM (SIGKILLed)' : ''}${st.leftBehind ? ' left processes behind (SIGKILLed)' : ''}; last output:\n${s.tail.slice(-5).join('\n')}`);
        }
      }
      if (!run) break;
      const other = otherCores(run);
      console.error(`  [${c.id} rep ${rep + 1}/${REPS}${attempt ? ` retry ${attempt}` : ''}] ${k1(run.rewards / run.seconds)} rewards/s, p99 ${f1(quantile(run.lat, 0.99))} ms, errors ${run.errors}, other load ${f2(other)} cores`);
      if (!kept || other < otherCores(kept)) kept = run;
      if (other <= OTHER_MAX) break;
      if (attempt < BUSY_RETRIES) col.retried++;
    }
    if (kept) col.runs.push(kept);
  }
}

// ---------------------------------------------------------------- tables

const summary = new Map<string, { rps: number; p99: number; perCpu: number }>();
/** Rewards per CPU-second of the server (its process tree): what one core gives, much less sensitive to other load than rewards/s. */
const perCpuS = (r: RunResult): number => r.rewards / (r.serverCores * r.seconds);
const rows: string[][] = [];
const notes: string[] = [];
for (const c of configs) {
  const col = results.get(c.id)!;
  if (c.pending) {
    rows.push([c.label, c.pending, '', '', '', '', '', '', '', '', '']);
    continue;
  }
  const runs = col.runs;
  if (runs.length === 0) {
    rows.push([c.label, `failed: ${col.failures[0] ?? 'no run'}`, '', '', '', '', '', '', '', '', '']);
    continue;
  }
  const rps = median(runs.map((r) => r.rewards / r.seconds));
  const p99 = median(runs.map((r) => quantile(r.lat, 0.99)));
  const perCpu = median(runs.map(perCpuS));
  summary.set(c.id, { rps, p99, perCpu });
  const errs = runs.reduce((a, r) => a + r.errors, 0);
  const kinds = new Map<string, number>();
  for (const r of runs) for (const [k, n] of r.errorKinds) kinds.set(k, (kinds.get(k) ?? 0) + n);
  const healthAll = runs.flatMap((r) => r.health);
  const hFail = runs.reduce((a, r) => a + r.healthFailures, 0);
  const other = median(runs.map(otherCores));
  rows.push([
    c.label,
    `**${k1(rps)}** (${runs.map((r) => k1(r.rewards / r.seconds)).join(', ')})`,
    f1(median(runs.map((r) => r.okRequests / r.seconds))),
    f1(median(runs.map((r) => quantile(r.lat, 0.5)))),
    `**${f1(p99)}**`,
    errs === 0 ? '0' : `${errs} (${[...kinds].map(([k, n]) => `${k}: ${n}`).join('; ')})`,
    `${f1(quantile(healthAll, 0.99))} / ${f1(healthAll.length ? Math.max(...healthAll) : NaN)}${hFail ? ` (${hFail} failed)` : ''}`,
    f2(median(runs.map((r) => r.serverCores))),
    k1(perCpu),
    f2(median(runs.map((r) => r.generatorCores))),
    f2(other),
  ]);
  const verified = runs.reduce((a, r) => a + r.verified, 0);
  const vErr = runs.find((r) => r.firstVerifyError)?.firstVerifyError;
  if (vErr) notes.push(`${c.id}: WRONG REWARDS (${vErr})`);
  notes.push(`${c.id}: ${verified} responses verified${vErr ? ', some wrong' : ', all correct'}`);
  if (col.retried) notes.push(`${c.id}: ${col.retried} run(s) redone because other processes used more than ${OTHER_MAX} cores meanwhile (the least disturbed attempt is kept)`);
  if (other > 0.25) notes.push(`${c.id}: > Warning: other load on the host during the runs: ${f2(other)} cores (median)`);
  const busyPre = Math.max(...col.busyBefore);
  if (busyPre > QUIET) notes.push(`${c.id}: > Warning: the host was up to ${pct(busyPre)} busy just before a run (waited ${QUIET_WAIT_S} s for it to calm down)`);
  for (const st of col.stops) {
    if (st.forced || st.leftBehind || (st.code !== 0 && !c.hang)) notes.push(`${c.id}: stop: exit ${st.code ?? st.signal} after ${f1(st.ms)} ms${st.forced ? ', needed SIGKILL' : ''}${st.leftBehind ? ', LEFT PROCESSES BEHIND (killed)' : ''}`);
  }
  if (col.failures.length) notes.push(`${c.id}: ${col.failures.length} run(s) failed: ${col.failures[0]}`);
  if (c.note) notes.push(`${c.id}: ${c.note}`);
}
console.log(
  `## Throughput and latency\n\nMedians of ${REPS} run(s) (one per round, the order rotating every round; runs in parentheses, in round order). rewards/s = OK requests x ${BATCH} / measured seconds; p50 / p99 = latency of one batch request (ms); errors = non-200 answers, client errors and wrong rewards, summed over the runs; /health = probe latency every ${HEALTH_EVERY_MS} ms on a fresh connection, p99 / max (ms); CPU = cores used during the measured window by the server (with its child processes), by this load generator, and by everything else on the host; rewards per server CPU-s = rewards / the server's CPU seconds (a single-threaded server's throughput per core, little affected by other load).\n`,
);
console.log(table(['configuration', 'rewards/s', 'requests/s', 'p50 ms', 'p99 ms', 'errors', '/health p99 / max ms', 'server CPU', 'rewards per server CPU-s', 'generator CPU', 'other load'], rows, ['l']));

const hangCol = results.get('hang');
if (hangCol && hangCol.runs.length) {
  const st = new Map<string, number>();
  for (const r of hangCol.runs) for (const [k, n] of r.hang?.statuses ?? []) st.set(k, (st.get(k) ?? 0) + n);
  const hl = hangCol.runs.flatMap((r) => r.hang?.lat ?? []);
  const h = hangCol.runs.flatMap((r) => r.health);
  console.log(`\n## One verifier hangs\n\nThe extra client sends, back to back, a batch whose first label is \`{"hang":true,...}\` (the module loops forever on it); expected answer: 504 VERIFIER_TIMEOUT after about ${HANG_TIMEOUT_MS} ms, and the other clients unaffected but for the lost worker time.\n`);
  console.log(`- hanging requests ended in the measured windows: ${hl.length}; statuses: ${[...st].map(([k, n]) => `${k} x ${n}`).join(', ') || 'none answered'}; latency median ${f1(median(hl))} ms, max ${f1(hl.length ? Math.max(...hl) : NaN)} ms`);
  console.log(`- /health during the runs: ${h.length} probes OK, ${hangCol.runs.reduce((a, r) => a + r.healthFailures, 0)} failed; p99 ${f1(quantile(h, 0.99))} ms, max ${f1(h.length ? Math.max(...h) : NaN)} ms`);
  const hs = summary.get('hang');
  const ms = summary.get('module-w2') ?? summary.get('module');
  if (hs && ms) console.log(`- normal clients: ${k1(hs.rps)} rewards/s, p99 ${f1(hs.p99)} ms (vs ${k1(ms.rps)} rewards/s, p99 ${f1(ms.p99)} ms without the hanging client)`);
  for (const s of hangCol.stops) console.log(`- stop after the run: exit ${s.code ?? s.signal} in ${f1(s.ms)} ms${s.forced ? ' (did not exit on SIGTERM: SIGKILLed)' : ''}${s.leftBehind ? ' (left processes behind: killed)' : ''}`);
}

const fa = summary.get('fastapi');
const b = summary.get('builtin');
console.log('\n## Verdict\n');
if (fa && b) {
  const tr = b.rps / fa.rps;
  console.log(`- frognano built-in / FastAPI: throughput ${f2(tr)}x (${k1(b.rps)} vs ${k1(fa.rps)} rewards/s), p99 ${f2(b.p99 / fa.p99)}x (${f1(b.p99)} vs ${f1(fa.p99)} ms)`);
  console.log(`- goal: >= ${GOAL_THROUGHPUT}x throughput with lower p99: ${tr >= GOAL_THROUGHPUT && b.p99 < fa.p99 ? 'MET' : 'NOT MET'}`);
  console.log(`- rewards per server CPU-second, frognano built-in / FastAPI: ${f2(b.perCpu / fa.perCpu)}x (${k1(b.perCpu)} vs ${k1(fa.perCpu)}; the ratio least affected by other load on the host)`);
  const bi = summary.get('builtin-info');
  if (bi) console.log(`- with the default --log-level info: ${f2(bi.rps / fa.rps)}x throughput, p99 ${f1(bi.p99)} ms`);
} else console.log(`- goal: >= ${GOAL_THROUGHPUT}x throughput with lower p99: n/a (FastAPI or built-in run missing)`);
for (const n of notes) console.log(`- ${n}`);
console.log(`\nBench wall time: ${((performance.now() - tStart) / 1000).toFixed(0)} s.`);

// ---------------------------------------------------------------- profile (--profile)

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Decodes a source map's `mappings` into, per generated line, [generated column, source line] pairs (0-based). */
function decodeMappings(mappings: string): [number, number][][] {
  const lines: [number, number][][] = [];
  let srcLine = 0;
  for (const line of mappings.split(';')) {
    const segs: [number, number][] = [];
    let genCol = 0;
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const vals: number[] = [];
      let v = 0;
      let shift = 0;
      for (const ch of seg) {
        const d = B64.indexOf(ch);
        v += (d & 31) << shift;
        if (d & 32) shift += 5;
        else {
          vals.push(v & 1 ? -(v >>> 1) : v >>> 1);
          v = 0;
          shift = 0;
        }
      }
      genCol += vals[0]!;
      if (vals.length >= 4) {
        srcLine += vals[2]!;
        segs.push([genCol, srcLine]);
      }
    }
    lines.push(segs);
  }
  return lines;
}

/**
 * Source lines of profile positions in files tsx transformed: tsx's esbuild
 * output is whitespace-minified (one line per file), so the profile's lines
 * say nothing. tsx caches each transform with its source map in
 * $TMPDIR/tsx-<uid>/; the entry of the file as loaded is the one whose code has
 * the profiled function names at the profiled columns. Undefined when no entry fits.
 */
function tsxLineMapper(nodes: ProfileNode[]): (url: string, line: number, col: number) => number | undefined {
  const dir = join(tmpdir(), `tsx-${process.getuid?.() ?? 0}`);
  const byFile = new Map<string, { code: string; lines: () => [number, number][][]; mtime: number }[]>();
  try {
    for (const f of readdirSync(dir)) {
      try {
        const path = join(dir, f);
        const st = statSync(path);
        if (!st.isFile()) continue; // the cache folder also holds tsx's IPC sockets
        const e = JSON.parse(readFileSync(path, 'utf8')) as { code?: string; map?: { sources?: string[]; mappings?: string } };
        const src = e.map?.sources?.[0];
        if (!src || typeof e.code !== 'string' || typeof e.map?.mappings !== 'string') continue;
        let decoded: [number, number][][] | undefined;
        const mappings = e.map.mappings;
        const list = byFile.get(src) ?? [];
        list.push({ code: e.code, lines: () => (decoded ??= decodeMappings(mappings)), mtime: st.mtimeMs });
        byFile.set(src, list);
      } catch {
        /* not a transform entry */
      }
    }
  } catch {
    return () => undefined;
  }
  const chosen = new Map<string, ReturnType<typeof decodeMappings> | null>();
  const pick = (url: string): ReturnType<typeof decodeMappings> | null => {
    if (chosen.has(url)) return chosen.get(url)!;
    const file = url.replace(/^file:\/\//, '');
    const named = nodes.filter((n) => n.callFrame.url === url && n.callFrame.functionName && n.callFrame.lineNumber === 0);
    let best: { score: number; mtime: number; lines: () => [number, number][][] } | undefined;
    for (const c of byFile.get(file) ?? []) {
      let score = 0;
      for (const n of named) {
        const around = c.code.slice(Math.max(0, n.callFrame.columnNumber - 40), n.callFrame.columnNumber + 40);
        if (around.includes(n.callFrame.functionName) || around.includes('constructor(')) score++; // a class's constructor is named after the class
      }
      if (named.length > 0 && score < named.length * 0.9) continue;
      if (!best || score > best.score || (score === best.score && c.mtime > best.mtime)) best = { score, mtime: c.mtime, lines: c.lines };
    }
    const r = best ? best.lines() : null;
    chosen.set(url, r);
    return r;
  };
  return (url, line, col) => {
    const lines = pick(url);
    const segs = lines?.[line];
    if (!segs || segs.length === 0) return undefined;
    let lo = 0;
    let hi = segs.length - 1;
    if (segs[0]![0] > col) return undefined;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (segs[mid]![0] <= col) lo = mid;
      else hi = mid - 1;
    }
    return segs[lo]![1] + 1;
  };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}
/** Self time (µs) by function and by file over the samples in [from, to] (the profile's µs clock). */
function selfTimes(prof: CpuProfile, from: number, to: number): { total: number; idle: number; byFn: Map<string, number>; byFile: Map<string, number> } {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const srcLine = tsxLineMapper(prof.nodes);
  const short = (url: string): string => {
    const p = url.replace(/^file:\/\//, '');
    const nm = p.lastIndexOf('node_modules/');
    if (nm >= 0) return p.slice(nm + 'node_modules/'.length);
    return p.startsWith('/') ? relative(ROOT, p) : p;
  };
  const byFn = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let t = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i]!;
    if (t < from || t > to) continue;
    const dt = prof.timeDeltas[i + 1] ?? 0;
    const cf = byId.get(prof.samples[i]!)!.callFrame;
    const fn = cf.functionName || '(anonymous)';
    total += dt;
    if (fn === '(idle)') {
      idle += dt;
      continue;
    }
    const line = cf.url.endsWith('.ts') ? srcLine(cf.url, cf.lineNumber, cf.columnNumber) : cf.lineNumber + 1;
    const key = cf.url ? `${fn} ${short(cf.url)}:${line ?? '?'}` : fn;
    byFn.set(key, (byFn.get(key) ?? 0) + dt);
    const fk = cf.url ? short(cf.url) : fn;
    byFile.set(fk, (byFile.get(fk) ?? 0) + dt);
  }
  return { total, idle, byFn, byFile };
}

if (PROFILE) {
  const id = env.BENCH_PROFILE_CONFIG ?? 'builtin';
  const c = allConfigs.find((x) => x.id === id && !x.pending && x.id !== 'fastapi');
  const dir = mkdtempSync(join(tmpdir(), 'frognano-service-prof-'));
  try {
    if (!c) throw new Error(`BENCH_PROFILE_CONFIG=${id}: not a frognano configuration here`);
    await waitQuiet();
    const s = await c.start(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    let run: RunResult;
    let st: Stopped;
    try {
      run = await loadRun(s, c.hang === true);
    } finally {
      st = await stopServer(s);
    }
    // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile: thread 0 is the main thread; tsx's loader thread and worker threads write their own
    const profs = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => ({ tid: Number(f.split('.')[4]), prof: JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile }))
      .sort((a, b) => a.tid - b.tid);
    const main = profs.find((p) => p.tid === 0);
    if (!main) throw new Error('no main-thread .cpuprofile written');
    // align the measured window with the profiles' clock (one clock per process) by the main thread's last sample: the process exit
    let endUs = main.prof.startTime;
    for (const d of main.prof.timeDeltas) endUs += d;
    const from = endUs - (st.tExit - run.w0) * 1000;
    const to = endUs - (st.tExit - run.w1) * 1000;
    const m = selfTimes(main.prof, from, to);
    const busy = m.total - m.idle;
    const top = (mm: Map<string, number>): string[][] =>
      [...mm]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([k, us]) => [`\`${k}\``, f1(us / 1000), pct(us / busy)]);
    console.log(
      `\n## Where the server's time goes: ${c.label} (node --cpu-prof)\n\nOne run under the same load (${k1(run.rewards / run.seconds)} rewards/s, p99 ${f1(quantile(run.lat, 0.99))} ms, errors ${run.errors}, with the profiler on); main thread, samples of the ${MEASURE_S} s measured window only: ${f1(m.total / 1000)} ms sampled, ${pct(m.idle / m.total)} idle. Self time (V8 builtins such as JSON.parse count in their caller); share of the non-idle time; file:line is the function's first line (tsx's source maps).\n`,
    );
    console.log(table(['function (file:line)', 'self ms', 'share'], top(m.byFn), ['l']));
    console.log('\nBy file (self time summed):\n');
    console.log(table(['file', 'self ms', 'share'], top(m.byFile), ['l']));
    const others = profs.filter((p) => p.tid !== 0).map((p) => {
      const o = selfTimes(p.prof, from, to);
      const [fn] = [...o.byFn].sort((a, b) => b[1] - a[1])[0] ?? ['-'];
      return `thread ${p.tid}: ${f1((o.total - o.idle) / 1000)} ms busy in the window (top: \`${fn}\`)`;
    });
    if (others.length) console.log(`\nOther threads (tsx's loader thread, worker threads): ${others.join('; ')}.`);
  } catch (e) {
    console.error(`profile failed: ${(e as Error).message}`);
    process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if ([...results.values()].some((c) => c.runs.some((r) => r.firstVerifyError))) process.exitCode = 1;

/**
 * Benchmark of the Leaf harness (src/leaf), in one run:
 *
 * 1. Sandbox overhead per bash call: `sandbox.run(repo, cmd)` (bubblewrap) and
 *    the unsafe mode (`createSandbox({ unsafeNoSandbox: true })`) next to a bare
 *    `child_process.spawn('bash', ['-c', cmd])` of the same command in the same
 *    folder (await close, stdout and stderr collected), measured alternately
 *    (the order rotates every round) after warm-ups; median and p90 wall time,
 *    and the median overhead = sandboxed - bare (goal: <= 10 ms).
 *    The bare spawn gets the sandbox's PATH (/usr/local/bin:/usr/bin:/bin), so
 *    `python3` is the same /usr/bin/python3 in all three (not a pyenv shim).
 * 2. Where the sandboxed call's time goes: the exact bwrap argv that
 *    `sandbox.run` builds (captured once through a recording fake `bwrapPath`)
 *    spawned directly, then with the network namespace, the pid namespace or
 *    the in-sandbox wrapper shell left out, a minimal bwrap, and the in-process
 *    cost of counting the sandbox user's processes in /proc (a copy of
 *    `processCount()` in sandbox.ts, which `run` calls synchronously per call).
 * 3. Episodes per second of the scripted demo (examples/leaf/scriptedModel.ts
 *    on examples/leaf/tasks.jsonl): `rolloutTasks` over all tasks, group 2,
 *    `limits: { maxTurns: 30 }`, at concurrency 1, 2 and 4 with the behaviour
 *    forced to `good` (comparable runs), plus the default behaviour mix; the
 *    median of the repetitions, with sandbox calls (agent bash calls + one
 *    grading run per episode) per second.
 *
 * Prints markdown tables (to paste into docs) and the machine.
 * Run: `npm run bench:leaf` (about 2 minutes on 2 cores), or
 * `npm run bench:leaf -- --quick` for a smoke run (few iterations, concurrency 2 only; about 20 s).
 * Needs bubblewrap (apt-get install bubblewrap) and, for the demo, python3 and node.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createSandbox, createWorkspace, findBwrap, loadLeafTasks, rolloutTasks, type RolloutRecord, type Sandbox } from '../src/leaf/index.js';
import { countUserProcesses } from '../src/leaf/processes.js';
import { openAiChatModel } from '../src/llm/index.js';
import { type ScriptedBehaviour, startScriptedLeafModel } from '../examples/leaf/scriptedModel.js';
import { hostBusySince, hostTicks, median, pct, quantile, table } from './lib/stats.js';

const ROOT = resolve(import.meta.dirname, '..');
const QUICK = process.argv.includes('--quick');
const N = QUICK ? 8 : 40; // measured runs per command and mode
const WARM = QUICK ? 2 : 5; // warm-up runs per command and mode
const PROFILE_N = QUICK ? 8 : 40;
const REPS = QUICK ? 1 : 2; // rollout repetitions per configuration
const GROUP = 2;
const MAX_TURNS = 30;
const GOAL_MS = 10;
const COMMANDS = ['true', 'echo hi', 'ls -la', 'python3 -c pass', 'node -e 0'];
const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';
const TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------- helpers

const p90 = (xs: number[]): number => quantile(xs, 0.9);
const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);


/** Spawns `file args` and resolves with the wall time (ms) once it closed, stdout and stderr collected. */
function timedSpawn(file: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number }): Promise<{ ms: number; code: number | null; out: string }> {
  const t0 = performance.now();
  return new Promise((res, rej) => {
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] /* fd 3: bwrap's --info-fd, as sandbox.run gives it */, ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid } : {}) });
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => chunks.push(b));
    child.stderr!.on('data', (b: Buffer) => chunks.push(b));
    child.on('error', rej);
    child.on('close', (code) => res({ ms: performance.now() - t0, code, out: Buffer.concat(chunks).toString('utf8') }));
  });
}

/** {@link timedSpawn} that throws unless the command exited 0; resolves with the wall time (ms). */
async function spawnOk(file: string, args: string[], opts: Parameters<typeof timedSpawn>[2]): Promise<number> {
  const r = await timedSpawn(file, args, opts);
  if (r.code !== 0) throw new Error(`${file} exited ${r.code}: ${r.out.trim().slice(0, 300)}`);
  return r.ms;
}

/** The uncached /proc scan behind the sandbox's process limit (the sandbox caches it for 250 ms). */
const processCount = countUserProcesses;


function sh(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'n/a';
  }
}

// ---------------------------------------------------------------- machine

const bwrapPath = findBwrap();
if (bwrapPath === null) {
  console.error('bench:leaf needs bubblewrap (apt-get install bubblewrap)');
  process.exit(1);
}
const cpuModel = cpus()[0]?.model ?? 'n/a';
const machine = [
  `- date: ${new Date().toISOString()}`,
  `- cpu: ${cpuModel}, ${cpus().length} cores (${sh('nproc', [])} usable)`,
  `- kernel: ${sh('uname', ['-sr'])}`,
  `- node: ${process.version}`,
  `- bwrap: ${sh(bwrapPath, ['--version'])} (${bwrapPath})`,
  `- python3 (in sandbox): ${sh('/usr/bin/python3', ['--version'])}`,
  `- running as uid ${process.getuid?.() ?? 'n/a'}; /proc holds ${readdirSync('/proc').filter((d) => /^\d+$/.test(d)).length} processes`,
  `- mode: ${QUICK ? 'quick (--quick)' : 'full'}`,
].join('\n');
// how busy the host is before we start (other load skews every figure below)
const idle0 = hostTicks();
await new Promise((r) => setTimeout(r, 1000));
const busyBefore = hostBusySince(idle0);
console.log(`# Leaf harness bench\n\n${machine}\n- host CPU busy in the second before the bench (other load): ${pct(busyBefore)}\n`);
if (busyBefore > 0.2) console.log(`> Warning: the host was ${pct(busyBefore)} busy before the bench started; the figures below are inflated by that load.\n`);
const tStart = performance.now();

// ---------------------------------------------------------------- 1. per-call overhead

const tasks = await loadLeafTasks(join(ROOT, 'examples/leaf/tasks.jsonl'));
const sandbox = createSandbox();
const unsafe = createSandbox({ unsafeNoSandbox: true });
const ws = await createWorkspace(tasks[0]!.repoDir, { owner: sandbox.owner, repoMB: sandbox.options.repoMB });
const bareEnv: NodeJS.ProcessEnv = { PATH: SANDBOX_PATH, HOME: ws.repo, LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1' };

type Mode = 'bare' | 'bwrap' | 'unsafe';
const MODES: Mode[] = ['bare', 'bwrap', 'unsafe'];
async function once(mode: Mode, cmd: string): Promise<number> {
  const t0 = performance.now();
  let code: number | null;
  let out: string;
  if (mode === 'bare') ({ code, out } = await timedSpawn('bash', ['-c', cmd], { cwd: ws.repo, env: bareEnv }));
  else ({ exitCode: code, output: out } = await (mode === 'bwrap' ? sandbox : unsafe).run(ws.repo, cmd, { timeoutMs: TIMEOUT_MS }));
  const ms = performance.now() - t0;
  if (code !== 0 || (cmd === 'echo hi' && out !== 'hi\n')) throw new Error(`${mode} ${JSON.stringify(cmd)}: exit ${code}, output ${JSON.stringify(out.slice(0, 300))}`);
  return ms;
}

const perCall: { cmd: string; ms: Record<Mode, number[]> }[] = [];
const ticks1 = hostTicks();
for (const cmd of COMMANDS) {
  for (let i = 0; i < WARM; i++) for (const m of MODES) await once(m, cmd);
  const ms: Record<Mode, number[]> = { bare: [], bwrap: [], unsafe: [] };
  for (let i = 0; i < N; i++) {
    for (let k = 0; k < MODES.length; k++) {
      const m = MODES[(i + k) % MODES.length]!;
      ms[m].push(await once(m, cmd));
    }
  }
  perCall.push({ cmd, ms });
}

const overheadRows = perCall.map(({ cmd, ms }) => {
  const ov = median(ms.bwrap) - median(ms.bare);
  return [
    `\`${cmd}\``,
    `${f1(median(ms.bare))} / ${f1(p90(ms.bare))}`,
    `${f1(median(ms.bwrap))} / ${f1(p90(ms.bwrap))}`,
    `${f1(median(ms.unsafe))} / ${f1(p90(ms.unsafe))}`,
    `**${f1(ov)}**${ov > GOAL_MS ? ' (over goal)' : ''}`,
    f1(median(ms.unsafe) - median(ms.bare)),
  ];
});
console.log(
  `## Sandbox overhead per bash call\n\nWall ms, median / p90 of ${N} alternating runs per mode after ${WARM} warm-ups (the order rotates every round); overhead = median(mode) - median(bare). The bare spawn runs as uid ${process.getuid?.() ?? 'self'} with PATH=${SANDBOX_PATH}. Goal: bwrap overhead <= ${GOAL_MS} ms. Host CPU busy meanwhile: ${pct(hostBusySince(ticks1))} (this bench keeps about one core busy).\n`,
);
console.log(table(['command', 'bare bash -c', 'sandbox.run (bwrap)', 'sandbox.run (unsafe)', 'bwrap overhead', 'unsafe overhead'], overheadRows, ['l']));

// ---------------------------------------------------------------- 2. profile of a sandboxed call

// capture the exact argv sandbox.run gives bwrap, through a fake bwrap that records it
const capDir = mkdtempSync(join(tmpdir(), 'frognano-leaf-bench-'));
chmodSync(capDir, 0o777);
const fake = join(capDir, 'fake-bwrap');
const argvFile = join(capDir, 'argv');
writeFileSync(fake, `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done > '${argvFile}'\n`, { mode: 0o755 });
const spy = createSandbox({ bwrapPath: fake });
await spy.run(ws.repo, 'true', { timeoutMs: TIMEOUT_MS });
const fullArgs = readFileSync(argvFile, 'utf8').split('\0').slice(0, -1);
rmSync(capDir, { recursive: true, force: true });
const dd = fullArgs.indexOf('--');
const noNet = fullArgs.flatMap((a, i) => (a === '--unshare-all' && i < dd ? ['--unshare-user', '--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try'] : [a]));
const noNetNoPid = noNet.filter((a, i) => !(a === '--unshare-pid' && i < noNet.indexOf('--')));
const noWrapper = [...fullArgs.slice(0, dd), '--', '/bin/bash', '-c', 'true'];
const owner = sandbox.owner ?? undefined;
const asSandbox = { cwd: ws.repo, env: {}, ...(owner ?? {}) };
const allVariants: [string, () => Promise<number>][] = [
  ['bare `bash -c true` (root, baseline)', async () => spawnOk('bash', ['-c', 'true'], { cwd: ws.repo, env: bareEnv })],
  ['bare `bash -c true` as the sandbox uid, empty env', async () => spawnOk('/bin/bash', ['-c', 'true'], asSandbox)],
  ['minimal bwrap: `--ro-bind / /` (user + mount ns)', async () => spawnOk(bwrapPath, ['--ro-bind', '/', '/', '--', '/bin/bash', '-c', 'true'], asSandbox)],
  ['sandbox argv without net and pid ns', async () => spawnOk(bwrapPath, noNetNoPid, asSandbox)],
  ['sandbox argv without net ns', async () => spawnOk(bwrapPath, noNet, asSandbox)],
  ['sandbox argv without the wrapper shell', async () => spawnOk(bwrapPath, noWrapper, asSandbox)],
  ['sandbox argv, exactly (spawned directly)', async () => spawnOk(bwrapPath, fullArgs, asSandbox)],
  ['`sandbox.run(repo, "true")`', async () => {
    const t0 = performance.now();
    const r = await sandbox.run(ws.repo, 'true', { timeoutMs: TIMEOUT_MS });
    if (r.exitCode !== 0) throw new Error(`sandbox.run exited ${r.exitCode}: ${r.output.slice(0, 300)}`);
    return performance.now() - t0;
  }],
];
// a variant that cannot run here is reported and left out, not fatal
const variants: [string, () => Promise<number>][] = [];
for (const [name, f] of allVariants) {
  try {
    await f();
    variants.push([name, f]);
  } catch (e) {
    console.error(`profile variant "${name}" left out: ${(e as Error).message}`);
  }
}
const prof = new Map<string, number[]>(variants.map(([n]) => [n, []]));
for (let i = 0; i < WARM; i++) for (const [, f] of variants) await f();
for (let i = 0; i < PROFILE_N; i++) {
  for (let k = 0; k < variants.length; k++) {
    const [name, f] = variants[(i + k) % variants.length]!;
    prof.get(name)!.push(await f());
  }
}
// processCount: in-process and synchronous, so it blocks the event loop (every running episode) for its duration
const pcUid = owner?.uid ?? process.getuid?.() ?? 0;
for (let i = 0; i < 20; i++) processCount(pcUid);
const pcMs: number[] = [];
for (let i = 0; i < (QUICK ? 50 : 300); i++) {
  const t0 = performance.now();
  processCount(pcUid);
  pcMs.push(performance.now() - t0);
}
const nProc = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).length;
const med = (name: string): number => {
  const xs = prof.get(name);
  return xs && xs.length ? median(xs) : NaN;
};
const [V_BARE, V_BARE_UID, V_MIN, V_NONETPID, V_NONET, V_NOWRAP, V_EXACT, V_RUN] = allVariants.map(([n]) => n) as [string, string, string, string, string, string, string, string];
const baseProf = med(V_BARE);
const profRows = variants.map(([name]) => [name, f2(med(name)), f2(p90(prof.get(name)!)), f2(med(name) - baseProf)]);
profRows.push([`\`processCount(${pcUid})\` alone (uncached; ${nProc} entries in /proc)`, f2(median(pcMs)), f2(p90(pcMs)), `${((median(pcMs) / nProc) * 1000).toFixed(1)} µs per /proc entry`]);
console.log(`\n## Where a sandboxed call's time goes (command \`true\`)\n\nWall ms, median / p90 of ${PROFILE_N} alternating runs; "+ vs bare" is against the first row. The bwrap rows spawn \`${bwrapPath}\` with the argv \`sandbox.run\` builds (${fullArgs.length} arguments, captured), as uid ${owner?.uid ?? 'self'} with an empty environment, as \`sandbox.run\` does.\n`);
console.log(table(['variant', 'median', 'p90', '+ vs bare'], profRows, ['l']));
const parts: [string, number][] = [
  ['user + mount namespace (minimal bwrap - bare as uid)', med(V_MIN) - med(V_BARE_UID)],
  ['binds, /proc, /dev, tmpfs, ipc/uts/cgroup ns (no-net-no-pid argv - minimal)', med(V_NONETPID) - med(V_MIN)],
  ['pid namespace', med(V_NONET) - med(V_NONETPID)],
  ['network namespace', med(V_EXACT) - med(V_NONET)],
  ['wrapper shell (ulimits, then eval of the command)', med(V_EXACT) - med(V_NOWRAP)],
  ['processCount() (measured alone)', median(pcMs)],
  ['rest of sandbox.run in node (argv, info pipe, the pid-namespace sweep after the call, result)', med(V_RUN) - med(V_EXACT) - median(pcMs)],
];
console.log(`\nDecomposition of the ${f1(med(V_RUN) - baseProf)} ms overhead of \`sandbox.run(repo, "true")\` (differences of medians, so approximate; the wrapper shell and the namespaces overlap with the rows above):\n`);
for (const [what, ms] of parts) console.log(`- ${what}: ${Number.isNaN(ms) ? 'n/a' : `${f1(ms)} ms`}`);
await ws.dispose();

// ---------------------------------------------------------------- 3. episodes per second

/** Wraps a sandbox to time every call, per repository copy (an episode's last call is its grading run). */
function countingSandbox(inner: Sandbox): { sandbox: Sandbox; byRepo: Map<string, number[]> } {
  const byRepo = new Map<string, number[]>();
  return {
    byRepo,
    sandbox: {
      ...inner,
      run: async (repo, command, opts) => {
        const t0 = performance.now();
        try {
          return await inner.run(repo, command, opts);
        } finally {
          const xs = byRepo.get(repo) ?? [];
          xs.push(performance.now() - t0);
          byRepo.set(repo, xs);
        }
      },
    },
  };
}


interface RolloutRun {
  seconds: number;
  episodes: number;
  solved: number;
  truncated: number;
  errors: number;
  sandboxCalls: number;
  bashCalls: number;
  sandboxMs: number;
  /** Durations (ms) of the agent's bash calls and of the grading runs. */
  bashMs: number[];
  gradingMs: number[];
  hostBusy: number;
}

async function rollout(baseUrl: string, modelName: string, concurrency: number, subset = tasks): Promise<RolloutRun> {
  const model = openAiChatModel({ baseUrl, model: modelName, env: {} });
  const { sandbox: sb, byRepo } = countingSandbox(sandbox);
  let bashCalls = 0;
  const ticks = hostTicks();
  const t0 = performance.now();
  const s = await rolloutTasks(subset, {
    model,
    sandbox: sb,
    group: GROUP,
    concurrency,
    limits: { maxTurns: MAX_TURNS },
    onRecords: (rs: RolloutRecord[]) => {
      for (const r of rs) for (const m of r.messages) for (const c of m.toolCalls ?? []) if (c.name === 'bash') bashCalls++;
    },
  });
  const seconds = (performance.now() - t0) / 1000;
  const all = [...byRepo.values()];
  const bashMs = all.flatMap((xs) => xs.slice(0, -1));
  const gradingMs = all.map((xs) => xs[xs.length - 1]!);
  const sandboxMs = all.flat().reduce((a, b) => a + b, 0);
  return {
    seconds,
    episodes: s.done,
    solved: s.solved,
    truncated: s.truncated,
    errors: s.errors,
    sandboxCalls: all.flat().length,
    bashCalls,
    sandboxMs,
    bashMs,
    gradingMs,
    hostBusy: hostBusySince(ticks),
  };
}

const allConfigs: { label: string; behaviour?: ScriptedBehaviour; concurrency: number }[] = [
  { label: 'good', behaviour: 'good', concurrency: 1 },
  { label: 'good', behaviour: 'good', concurrency: 2 },
  { label: 'good', behaviour: 'good', concurrency: 4 },
  { label: 'default mix', concurrency: 1 },
  { label: 'default mix', concurrency: 2 },
  { label: 'default mix', concurrency: 4 },
];
const configs = QUICK ? allConfigs.filter((c) => c.concurrency === 2) : allConfigs;
const servers = new Map<string, Awaited<ReturnType<typeof startScriptedLeafModel>>>();
const rolloutRows: string[][] = [];
try {
  for (const c of configs) {
    if (!servers.has(c.label)) {
      const server = await startScriptedLeafModel({ tasks, ...(c.behaviour ? { behaviour: c.behaviour } : {}) });
      servers.set(c.label, server);
      // warm-up: one node and one python task, one episode each
      const warmTasks = [tasks.find((t) => t.id.startsWith('js-')) ?? tasks[0]!, tasks.find((t) => t.id.startsWith('py-')) ?? tasks[0]!];
      await rollout(server.baseUrl, server.model, 2, warmTasks);
    }
    const server = servers.get(c.label)!;
    const runs: RolloutRun[] = [];
    for (let r = 0; r < REPS; r++) runs.push(await rollout(server.baseUrl, server.model, c.concurrency));
    const eps = runs.map((r) => r.episodes / r.seconds);
    const callsPerS = runs.map((r) => r.sandboxCalls / r.seconds);
    const last = runs[runs.length - 1]!;
    const errs = runs.reduce((a, r) => a + r.errors, 0);
    if (errs > 0) process.exitCode = 1;
    const share = median(runs.map((r) => r.sandboxMs / (r.seconds * 1000 * c.concurrency)));
    const busy = median(runs.map((r) => r.hostBusy));
    rolloutRows.push([
      c.label,
      String(c.concurrency),
      `${last.episodes} (${last.solved} solved, ${last.truncated} truncated${errs ? `, ${errs} errors` : ''})`,
      runs.map((r) => f1(r.seconds)).join(', '),
      `**${f2(median(eps))}**`,
      `${last.bashCalls} + ${last.episodes}`,
      f1(median(callsPerS)),
      f1(median(runs.flatMap((r) => r.bashMs))),
      f1(median(runs.flatMap((r) => r.gradingMs))),
      `${(100 * share).toFixed(0)}%`,
      pct(busy),
    ]);
  }
} finally {
  for (const s of servers.values()) await s.close();
}
console.log(
  `\n## Scripted demo throughput\n\n\`rolloutTasks\` over the ${tasks.length} tasks of examples/leaf/tasks.jsonl, group ${GROUP} (${tasks.length * GROUP} episodes), \`limits: { maxTurns: ${MAX_TURNS} }\`, scripted model (behaviour forced to \`good\`, or the default mix), bubblewrap sandbox; median of ${REPS} run(s) after a 2-episode warm-up. Sandbox calls = agent bash calls + one grading run (the hidden tests) per episode; bash / grading ms = median wall time of one such call; "in sandbox" = time inside \`sandbox.run\` / (wall x concurrency); "host CPU busy" = busy share of all ${cpus().length} cores of the host during the run (/proc/stat; includes any other load).\n`,
);
console.log(
  table(['behaviour', 'concurrency', 'episodes', 'wall s (runs)', 'episodes/s', 'sandbox calls (bash + grading)', 'sandbox calls/s', 'bash ms', 'grading ms', 'in sandbox', 'host CPU busy'], rolloutRows, ['l']),
);

// ---------------------------------------------------------------- verdict

const over = perCall.filter(({ ms }) => median(ms.bwrap) - median(ms.bare) > GOAL_MS).map(({ cmd }) => `\`${cmd}\``);
console.log(
  `\nSandbox overhead goal (median <= ${GOAL_MS} ms per call): ${over.length === 0 ? 'met for every command' : `MISSED for ${over.join(', ')}`}.`,
);
console.log(`Bench wall time: ${((performance.now() - tStart) / 1000).toFixed(0)} s.`);

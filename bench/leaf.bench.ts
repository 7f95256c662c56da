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
 * 4. One episode, split (issue 21): workspace copy, agent turns, diff (+ hidden
 *    files) and grading, of `runEpisode` with an in-process scripted model (3
 *    turns: bash `cat`, `edit` fixing the bug, done) on (a) a pytest task of
 *    1,000 hidden tests and (b) a repository holding a node_modules of about
 *    4,300 files (core-js, zod and diff copied from this project's node_modules);
 *    and the copy alone, before (`fs.promises.cp` + a serial `chownTree`) and
 *    after (`copyTree`: a bounded pool of `copyFile(COPYFILE_FICLONE)`, chowning
 *    as it goes), with GNU `cp -a --reflink=auto` for reference, into a tmpfs
 *    (root: the size-capped tmpfs `createWorkspace` mounts) and into the
 *    temporary folder's file system. Goal: copy <= 0.3 s.
 *
 * Prints markdown tables (to paste into docs) and the machine.
 * Run: `npm run bench:leaf` (about 2 minutes on 2 cores), or
 * `npm run bench:leaf -- --quick` for a smoke run (few iterations, concurrency 2 only; about 20 s),
 * `npm run bench:leaf -- --episode` for section 4 alone, `npm run bench:leaf -- --image` for the
 * task environments (bench/leafImage.bench.ts: image import, per-call overhead over an image,
 * workspace creation of a 300 MB /testbed, the demo in an image), which also end the full run.
 * Needs bubblewrap (apt-get install bubblewrap) and, for the demo, python3 and node.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cp as fsCp, rm as fsRm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createSandbox, createWorkspace, findBwrap, loadLeafTasks, parseLeafTask, rolloutTasks, runEpisode, type RolloutRecord, type Sandbox } from '../src/leaf/index.js';
import { copyTree } from '../src/leaf/copyTree.js';
import { chownTree } from '../src/leaf/workspace.js';
import type { ChatTurn, ToolChatModel } from '../src/llm/index.js';
import { countUserProcesses } from '../src/leaf/processes.js';
import { openAiChatModel } from '../src/llm/index.js';
import { type ScriptedBehaviour, startScriptedLeafModel } from '../examples/leaf/scriptedModel.js';
import { hostBusySince, hostTicks, median, pct, quantile, table } from './lib/stats.js';

const ROOT = resolve(import.meta.dirname, '..');
const QUICK = process.argv.includes('--quick');
const EPISODE_ONLY = process.argv.includes('--episode');
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
if (process.argv.includes('--image')) {
  await import('./leafImage.bench.js');
  process.exit(0);
}

// ---------------------------------------------------------------- 4. one episode, split (issue 21)

const COPY_GOAL_S = 0.3;
const COPY_N = QUICK ? 3 : 7; // copies per method and place
const EPISODE_N = QUICK ? 2 : 5; // episodes per task
const ep = await (async () => {
  const sb = createSandbox();
  const fixtures = mkdtempSync(join(tmpdir(), 'frognano-leaf-bench-ep-'));
  // (a) a pytest task: one module with a bug, 1,000 tiny hidden tests
  const pyRepo = join(fixtures, 'py/repo');
  mkdirSync(join(pyRepo, 'tests'), { recursive: true });
  writeFileSync(join(pyRepo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(join(pyRepo, 'tests/__init__.py'), '');
  const pyTests = ['from calc import add', '', ...Array.from({ length: 1000 }, (_, i) => `def test_add_${i}():\n    assert add(${i}, 1) == ${i + 1}\n`)].join('\n');
  const pyTask = parseLeafTask({ id: 'bench-pytest-1000', statement: 'add() subtracts.', repo: 'py/repo', tests: { command: 'python3 -m pytest -q -p no:cacheprovider tests/test_hidden.py', files: { 'tests/test_hidden.py': pyTests } } }, fixtures);
  // (b) a repository with a node_modules of about 4,300 files, real packages of this project
  const nmRepo = join(fixtures, 'nm/repo');
  mkdirSync(join(nmRepo, 'node_modules/.bin'), { recursive: true });
  for (const pkg of ['core-js', 'zod', 'diff']) cpSync(join(ROOT, 'node_modules', pkg), join(nmRepo, 'node_modules', pkg), { recursive: true, verbatimSymlinks: true });
  symlinkSync('../diff/package.json', join(nmRepo, 'node_modules/.bin/diff-package'));
  writeFileSync(join(nmRepo, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(nmRepo, 'calc.js'), 'export function add(a, b) {\n  return a - b;\n}\n');
  const nmTask = parseLeafTask({ id: 'bench-node-modules', statement: 'add() subtracts.', repo: 'nm/repo', tests: { command: 'node --test test/', files: { 'test/add.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../calc.js';\ntest('add', () => assert.equal(add(2, 1), 3));\n" } } }, fixtures);
  const census = (dir: string): { files: number; entries: number; mb: number } => {
    const files = Number(sh('sh', ['-c', `find '${dir}' -type f | wc -l`]));
    const entries = Number(sh('sh', ['-c', `find '${dir}' | wc -l`]));
    const kb = Number.parseInt(sh('du', ['-sk', dir]), 10);
    return { files, entries, mb: kb / 1024 };
  };
  const sizes = new Map([[pyTask.id, census(pyRepo)], [nmTask.id, census(nmRepo)]]);

  // the copy alone, before / after, into a tmpfs (as root: a capped one made by createWorkspace) and into tmpdir
  const capHolder = join(fixtures, 'empty');
  mkdirSync(capHolder);
  const holder = await createWorkspace(capHolder, { repoMB: 512 });
  const places: [string, string][] = [[holder.capBytes !== null ? 'tmpfs (capped, as createWorkspace mounts)' : `${tmpdir()} (not root: no tmpfs)`, holder.dir]];
  if (holder.capBytes !== null) places.push([`${tmpdir()} (${sh('sh', ['-c', `df -T '${tmpdir()}' | tail -1 | awk '{print $2}'`])})`, fixtures]);
  const own = sb.owner;
  const run = (file: string, args: string[]): Promise<void> => spawnOk(file, args, { cwd: fixtures, env: process.env }).then(() => undefined);
  const methods: [string, (src: string, d: string) => Promise<unknown>][] = [
    [`before: fs.promises.cp${own ? ' + chownTree' : ''}`, async (src, d) => {
      await fsCp(src, d, { recursive: true, verbatimSymlinks: true, dereference: false, preserveTimestamps: false });
      if (own) await chownTree(d, own);
    }],
    [`after: copyTree${own ? ' (chowning)' : ''}`, (src, d) => copyTree(src, d, { owner: own })],
    ['copyTree, no chown', (src, d) => copyTree(src, d)],
    ['GNU cp -a --reflink=auto (spawned, no chown)', (src, d) => run('cp', ['-a', '--reflink=auto', '--', src, d])],
  ];
  const copyRows: string[][] = [];
  const copyMs = new Map<string, number>();
  for (const task of [nmTask, pyTask]) {
    for (const [place, parent] of places) {
      const ms = new Map<string, number[]>(methods.map(([n]) => [n, []]));
      for (let i = 0; i < COPY_N + 1; i++) {
        for (let k = 0; k < methods.length; k++) {
          const [name, f] = methods[(i + k) % methods.length]!;
          const d = join(parent, `copy-${i}-${k}`);
          const t0 = performance.now();
          await f(task.repoDir, d);
          const t = performance.now() - t0;
          if (i > 0) ms.get(name)!.push(t); // the first round warms the page cache
          await fsRm(d, { recursive: true, force: true });
        }
      }
      for (const [name, xs] of ms) {
        copyMs.set(`${task.id}|${place}|${name}`, median(xs));
        copyRows.push([task.id, place, name, `${f1(median(xs))} / ${f1(p90(xs))}`]);
      }
    }
  }
  await holder.dispose();
  // createWorkspace itself (as runEpisode calls it), and its parts: du of the source twice + mount, copy, chown
  const wsMs: number[] = [];
  for (let i = 0; i < COPY_N; i++) {
    const t0 = performance.now();
    const w = await createWorkspace(nmTask.repoDir, { owner: own, repoMB: sb.options.repoMB });
    wsMs.push(performance.now() - t0);
    await w.dispose();
  }
  const duMs: number[] = [];
  for (let i = 0; i < COPY_N; i++) {
    const t0 = performance.now();
    await Promise.all([run('du', ['-s', '-B1', '--', nmTask.repoDir]), run('du', ['-s', '--inodes', '--', nmTask.repoDir])]);
    duMs.push(performance.now() - t0);
  }

  // one episode, split: the scripted model marks the phases
  const episodeRows: string[][] = [];
  for (const task of [pyTask, nmTask]) {
    const file = task.id === pyTask.id ? 'calc.py' : 'calc.js';
    const fix = task.id === pyTask.id ? ['return a - b', 'return a + b'] : ['return a - b;', 'return a + b;'];
    const parts = { copy: [] as number[], turns: [] as number[], diff: [] as number[], grading: [] as number[], rest: [] as number[], total: [] as number[] };
    let solved = 0;
    for (let e = 0; e < EPISODE_N + 1; e++) {
      let tFirstChat = 0;
      let tLastChat = 0;
      let tGrade0 = 0;
      let tGrade1 = 0;
      let n = 0;
      const usage = { promptTokens: 100, completionTokens: 10 };
      const script: ChatTurn[] = [
        { content: '', toolCalls: [{ id: 'c1', name: 'bash', arguments: JSON.stringify({ command: `cat ${file}` }) }], finishReason: 'tool_calls', usage },
        { content: '', toolCalls: [{ id: 'c2', name: 'edit', arguments: JSON.stringify({ file_path: file, old_string: fix[0], new_string: fix[1] }) }], finishReason: 'tool_calls', usage },
        { content: 'Fixed.', toolCalls: [], finishReason: 'stop', usage },
      ];
      const model: ToolChatModel = {
        complete: async () => '',
        chat: async () => {
          if (n === 0) tFirstChat = performance.now();
          const turn = script[Math.min(n++, script.length - 1)]!;
          tLastChat = performance.now();
          return turn;
        },
      } as unknown as ToolChatModel;
      const timed: Sandbox = {
        ...sb,
        run: async (repo, command, opts) => {
          const grading = command.includes(task.tests.command);
          if (grading) tGrade0 = performance.now();
          try {
            return await sb.run(repo, command, opts);
          } finally {
            if (grading) tGrade1 = performance.now();
          }
        },
      };
      const t0 = performance.now();
      const t = await runEpisode(task, { model, sandbox: timed, seed: e, limits: { maxTurns: 10 } });
      const t1 = performance.now();
      if (e === 0) continue; // warm-up
      if (t.outcome?.success) solved++;
      parts.copy.push(tFirstChat - t0);
      parts.turns.push(tLastChat - tFirstChat);
      parts.diff.push(tGrade0 - tLastChat);
      parts.grading.push(tGrade1 - tGrade0);
      parts.rest.push(t1 - tGrade1);
      parts.total.push(t1 - t0);
    }
    const sz = sizes.get(task.id)!;
    episodeRows.push([
      `${task.id} (${sz.files} files, ${sz.entries} entries, ${f1(sz.mb)} MB)`,
      `${solved}/${EPISODE_N}`,
      `**${f1(median(parts.copy))}**`,
      f1(median(parts.turns)),
      f1(median(parts.diff)),
      f1(median(parts.grading)),
      f1(median(parts.rest)),
      `**${f1(median(parts.total))}**`,
    ]);
  }
  rmSync(fixtures, { recursive: true, force: true });
  return { copyRows, copyMs, wsMs, duMs, episodeRows, sizes, nmId: nmTask.id, places, methods };
})();
console.log(
  `## One episode, split (issue 21)\n\n\`runEpisode\` with an in-process scripted model (3 turns: bash \`cat\`, \`edit\` fixing the bug, done), bubblewrap sandbox, \`createWorkspace\` as runEpisode calls it (owner${process.getuid?.() === 0 ? ', capped tmpfs' : ''}); wall ms, median of ${EPISODE_N} episodes after one warm-up. copy = runEpisode's start to the first model call (createWorkspace: du of the source, mount, copy, chown); turns = the three model turns and their two tool calls; diff = the last turn to the grading run (restore permissions, diff against the task's repo, hidden files written); grading = the tests command in the sandbox; rest = workspace removal.\n`,
);
console.log(table(['task', 'solved', 'copy', 'agent turns', 'diff + hidden files', 'grading run', 'dispose', 'episode'], ep.episodeRows, ['l']));
console.log(`\n### The copy alone\n\nWall ms, median / p90 of ${COPY_N} alternating copies per method after one warm-up round (page cache warm). Goal: ${COPY_GOAL_S * 1000} ms.\n`);
console.log(table(['repository', 'into', 'method', 'ms'], ep.copyRows, ['l', 'l', 'l']));
const nmAfter = ep.copyMs.get(`${ep.nmId}|${ep.places[0]![0]}|${ep.methods[1]![0]}`)!;
const nmPlain = ep.copyMs.get(`${ep.nmId}|${ep.places[0]![0]}|${ep.methods[2]![0]}`)!;
const nmSz = ep.sizes.get(ep.nmId)!;
console.log(
  `\n\`createWorkspace\` of the node_modules repository (owner${process.getuid?.() === 0 ? ', repoMB: capped tmpfs' : ''}): ${f1(median(ep.wsMs))} ms median (p90 ${f1(p90(ep.wsMs))}); of which the two \`du\` of the source that size the cap: ${f1(median(ep.duMs))} ms, the copy: ${f1(nmPlain)} ms (${((nmPlain / nmSz.entries) * 1000).toFixed(0)} µs per entry), the chown of each entry: ${f1(nmAfter - nmPlain)} ms. Copy goal (${COPY_GOAL_S} s): ${median(ep.wsMs) <= COPY_GOAL_S * 1000 ? 'met' : 'MISSED'}.\n`,
);
if (EPISODE_ONLY) process.exit(0);

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
await import('./leafImage.bench.js');
console.log(`Bench wall time: ${((performance.now() - tStart) / 1000).toFixed(0)} s.`);

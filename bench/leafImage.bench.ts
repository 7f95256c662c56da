/**
 * Benchmark of task environments (issue 22, docs/environments.md), in one run:
 *
 * 1. Import: a ~300 MB / ~12,000-file image (busybox, bash and the host's python3 with its
 *    standard library, plus a `/testbed` of 12,000 files in 120 folders, seeded pseudo-random
 *    bytes) as a `docker save` archive (one GNU tar layer); `importImage` into a fresh cache
 *    (cold), then again (cached); the unpacked root's size on disk (`du`).
 * 2. Per-call overhead: `sandbox.run` over the image and on the host, next to a bare
 *    `spawn('bash', ['-c', cmd])`, alternating (the order rotates each round), after warm-ups;
 *    median and p90. Goal: the median overhead over the image (image - bare) <= 12 ms.
 * 3. Workspace creation for the 300 MB / 12,000-file `/testbed` (the task's repo, a folder on
 *    disk as `tasks import --images` writes it): `createWorkspace` + `dispose`, median. Goal
 *    <= 0.5 s.
 * 4. Episodes per minute of the scripted demo's Python tasks (examples/leaf/tasks.jsonl, the
 *    `py-` ones: the image has python3 but no node) over the image, against the same tasks
 *    on the host sandbox; behaviour `good`, group 2, concurrency 2.
 *
 * Run: `npm run bench:leaf -- --image` (this part alone), or as the last part of
 * `npm run bench:leaf`. Needs bubblewrap, busybox-static and bash-static.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createSandbox, createWorkspace, importImage, loadLeafTasks, rolloutTasks, type Sandbox } from '../src/leaf/index.js';
import { openAiChatModel } from '../src/llm/index.js';
import { startScriptedLeafModel } from '../examples/leaf/scriptedModel.js';
import { buildImageRoot } from '../test/helpers/imageRoot.js';
import { configOf, dockerSaveLegacy } from '../test/leaf/image/imageBuilders.js';
import { median, quantile, table } from './lib/stats.js';

const ROOT = resolve(import.meta.dirname, '..');
const QUICK = process.argv.includes('--quick');
const FILES = QUICK ? 2_000 : 12_000;
const BYTES = QUICK ? 50e6 : 260e6; // of /testbed; the base (python stdlib etc.) adds ~40 MB
const CALLS = QUICK ? 10 : 40;
const WARM = 3;
const WS_N = QUICK ? 2 : 5;
const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);
const seconds = async (fn: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};

/** Deterministic bytes (xorshift32, seed 22): the same tree every run, not compressible to nothing. */
function pseudoRandom(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

/** `/testbed`: `files` files in 120 folders totalling about `bytes` (sizes vary 0.2x-1.8x the mean). */
function fillTestbed(dir: string, files: number, bytes: number): void {
  const mean = bytes / files;
  const chunk = pseudoRandom(Math.ceil(mean * 1.8) + 1, 22);
  for (let i = 0; i < files; i++) {
    const folder = join(dir, `pkg${i % 120}`);
    if (i < 120) mkdirSync(folder, { recursive: true });
    const size = Math.round(mean * (0.2 + 1.6 * ((i * 7919) % 1000) / 1000));
    writeFileSync(join(folder, `m${i}.py`), chunk.subarray(i % 97, (i % 97) + size));
  }
}

function timedSpawn(cmd: string, cwd: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((res, rej) => {
    const c = spawn('bash', ['-c', cmd], { cwd, env: { PATH: '/usr/local/bin:/usr/bin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout.resume();
    c.stderr.resume();
    c.on('error', rej);
    c.on('close', () => res(performance.now() - t0));
  });
}

const work = mkdtempSync(join(tmpdir(), 'frognano-bench-image-'));
chmodSync(work, 0o755);
try {
  // ---------------------------------------------------------------- 1. import
  const rootDir = buildImageRoot({ parent: work, python: true });
  fillTestbed(join(rootDir, 'testbed'), FILES, BYTES);
  const layer = execFileSync('tar', ['-C', rootDir, '--numeric-owner', '-cf', '-', '.'], { maxBuffer: 2 ** 31 - 1 });
  const archive = join(work, 'image.tar');
  writeFileSync(archive, await dockerSaveLegacy([layer], configOf([layer], { Env: ['PATH=/usr/local/bin:/usr/bin:/bin'], WorkingDir: '/testbed' })));
  const archiveMB = layer.length / 1e6;
  const cache = join(work, 'cache');
  let image!: Awaited<ReturnType<typeof importImage>>;
  const cold = await seconds(async () => (image = await importImage(archive, { cacheDir: cache })));
  const warm = await seconds(() => importImage(archive, { cacheDir: cache }));
  const duMB = Number(execFileSync('du', ['-sb', image.root], { encoding: 'utf8' }).split('\t')[0]) / 1e6;
  const fileCount = Number(execFileSync('bash', ['-c', `find '${image.root}' | wc -l`], { encoding: 'utf8' }).trim());
  console.log(`\n## Task environments (issue 22)\n\n### Image import\n\nA \`docker save\` archive of one layer (${f1(archiveMB)} MB tar), ${fileCount} entries: busybox, bash, the host's python3 and its standard library, and a \`/testbed\` of ${FILES} files in 120 folders (${f1(BYTES / 1e6)} MB).\n`);
  console.log(table(['step', 'seconds', 'note'], [
    ['import (cold: unpack into a fresh cache)', `**${f2(cold)}**`, `${f1(archiveMB / cold)} MB/s`],
    ['import again (cached)', f2(warm), 'digest found, nothing unpacked'],
    ['unpacked root on disk', `${f1(duMB)} MB`, `${image.root.replace(work, '<tmp>')}`],
  ], ['l']));

  // ---------------------------------------------------------------- 2. per-call overhead
  const sandbox = createSandbox({});
  const wsHost = await createWorkspace(join(ROOT, 'examples/leaf/tasks/py-chunked/repo'), { owner: sandbox.owner, parent: work });
  const rows: string[][] = [];
  const imageMedians: number[] = [];
  for (const cmd of ['true', 'echo hi', 'ls -la', 'python3 -c pass']) {
    const ms: Record<'image' | 'host' | 'bare', number[]> = { image: [], host: [], bare: [] };
    const modes = ['image', 'host', 'bare'] as const;
    const once = async (m: (typeof modes)[number]): Promise<number> => {
      if (m === 'bare') return timedSpawn(cmd, wsHost.repo);
      const t0 = performance.now();
      const r = await sandbox.run(wsHost.repo, cmd, { timeoutMs: 30_000, ...(m === 'image' ? { image: image.root, workdir: '/repo' } : {}) });
      if (r.exitCode !== 0) throw new Error(`${m} ${cmd}: exit ${r.exitCode}: ${r.output.slice(0, 300)}`);
      return performance.now() - t0;
    };
    for (let i = 0; i < WARM; i++) for (const m of modes) await once(m);
    for (let i = 0; i < CALLS; i++) for (let k = 0; k < 3; k++) { const m = modes[(i + k) % 3]!; ms[m].push(await once(m)); }
    imageMedians.push(median(ms.image) - median(ms.bare));
    rows.push([`\`${cmd}\``, f1(median(ms.bare)), f1(median(ms.host)), `**${f1(median(ms.image))}**`, f1(quantile(ms.image, 0.9)), f1(median(ms.image) - median(ms.bare)), f1(median(ms.image) - median(ms.host))]);
  }
  await wsHost.dispose();
  console.log(`\n### Per-call overhead\n\n${CALLS} calls per command and mode, alternating, after ${WARM} warm-ups; ms. Image: \`sandbox.run\` with the image as \`/\`; host: the host sandbox; bare: \`spawn('bash', ['-c', cmd])\`.\n`);
  console.log(table(['command', 'bare median', 'host sandbox median', 'image sandbox median', 'image p90', 'image - bare', 'image - host'], rows, ['l']));
  const worst = Math.max(...imageMedians);
  console.log(`\nGoal (median overhead <= 12 ms per call over an image, image - bare): ${worst <= 12 ? `met (worst ${f1(worst)} ms)` : `MISSED (worst ${f1(worst)} ms)`}.`);

  // ---------------------------------------------------------------- 3. workspace creation
  const testbed = join(work, 'testbed-repo');
  execFileSync('cp', ['-a', join(image.root, 'testbed'), testbed]);
  const wsTimes: number[] = [];
  for (let i = 0; i < WS_N; i++) {
    let ws!: Awaited<ReturnType<typeof createWorkspace>>;
    wsTimes.push(await seconds(async () => (ws = await createWorkspace(testbed, { owner: sandbox.owner, parent: work }))));
    await ws.dispose();
  }
  console.log(`\n### Workspace creation\n\n\`createWorkspace\` of the ${FILES}-file, ${f1(BYTES / 1e6)} MB \`/testbed\` (a folder on disk, as \`tasks import --images\` writes it; as root into the size-capped tmpfs it mounts), ${WS_N} times: median **${f2(median(wsTimes))} s** (runs ${wsTimes.map(f2).join(', ')}). Goal <= 0.5 s: ${median(wsTimes) <= 0.5 ? 'met' : 'MISSED'}.`);

  // ---------------------------------------------------------------- 4. episodes per minute
  const all = await loadLeafTasks(join(ROOT, 'examples/leaf/tasks.jsonl'));
  const py = all.filter((t) => t.id.startsWith('py-'));
  const lines = readFileSync(join(ROOT, 'examples/leaf/tasks.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>).filter((t) => String(t.id).startsWith('py-'));
  const imageTasksFile = join(work, 'image-tasks.jsonl');
  writeFileSync(imageTasksFile, lines.map((t) => JSON.stringify({ ...t, repo: join(ROOT, 'examples/leaf', String(t.repo)), environment: { image: image.root, workdir: '/repo' } })).join('\n'));
  const inImage = await loadLeafTasks(imageTasksFile);
  const server = await startScriptedLeafModel({ tasks: py, behaviour: 'good' });
  const perMinute: string[][] = [];
  try {
    const model = openAiChatModel({ baseUrl: server.baseUrl, model: server.model, env: {} });
    for (const [label, tasks] of [['host sandbox', py], ['image', inImage]] as const) {
      let solved = 0;
      let done = 0;
      const s = await seconds(async () => {
        const r = await rolloutTasks(tasks, { model, sandbox: sandbox as Sandbox, group: 2, concurrency: 2, limits: { maxTurns: 30 } });
        solved = r.solved;
        done = r.done;
      });
      perMinute.push([label, `${done} (${solved} solved)`, f1(s), `**${f1((done / s) * 60)}**`]);
    }
  } finally {
    await server.close();
  }
  console.log(`\n### Scripted demo in an image\n\nThe ${py.length} Python tasks of examples/leaf/tasks.jsonl, group 2, concurrency 2, behaviour \`good\`, \`maxTurns\` 30.\n`);
  console.log(table(['sandbox', 'episodes', 'wall s', 'episodes/min'], perMinute, ['l']));
} finally {
  rmSync(work, { recursive: true, force: true });
}

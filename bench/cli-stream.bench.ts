/**
 * Streaming benchmark of the `frognano` CLI: throughput and peak memory of
 * `frognano advantages` and `frognano rewards` on 100k and 1M-line inputs.
 *
 * The claim checked: the CLI streams line by line, so its peak RSS does not
 * grow with the number of lines (1M lines use about what 100k lines use).
 *
 *   npm run bench:cli                 # 100k and 1M lines
 *   npm run bench:cli -- 200000       # 20k and 200k lines
 *
 * Peak RSS is sampled from /proc/<pid>/status (VmHWM, the kernel's high-water
 * mark) every 50 ms, so this part is Linux-only; elsewhere it prints "n/a".
 * RSS includes tsx/esbuild and V8's lazily collected garbage, so the large run
 * is repeated with the V8 old space capped at 64 MiB: a CLI that kept anything
 * per line would die there with "heap out of memory"; a streaming one finishes.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import seedrandom from 'seedrandom';

const ROOT = resolve(import.meta.dirname, '..');
const BIG = Number(process.argv[2] ?? 1_000_000);
const SIZES = [Math.round(BIG / 10), BIG];
const GROUP = 8;

async function writeInput(file: string, lines: number, kind: 'advantages' | 'rewards'): Promise<void> {
  const rand = seedrandom('cli-bench');
  const out = createWriteStream(file);
  let buf = '';
  for (let i = 0; i < lines; i++) {
    if (kind === 'advantages') {
      const raw = Array.from({ length: GROUP }, () => (rand() < 0.5 ? 1 : 0));
      const rewards = raw.map((x) => (x ? Math.round((1 - rand() * 0.3) * 1e4) / 1e4 : 0));
      buf += JSON.stringify({ rewards, filterBy: raw }) + '\n';
    } else {
      const outcomes = Array.from({ length: GROUP }, () => ({ success: rand() < 0.5, truncated: rand() < 0.1, assistantTokens: Math.floor(rand() * 12_000) }));
      buf += JSON.stringify({ outcomes }) + '\n';
    }
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

function peakRssMb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function run(args: string[], nodeArgs: string[] = []): Promise<{ seconds: number; outLines: number; peakMb: number | undefined; code: number | null }> {
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, [...nodeArgs, '--conditions=@frognano/source', '--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let outLines = 0;
  child.stdout.on('data', (d: Buffer) => {
    for (let i = 0; i < d.length; i++) if (d[i] === 10) outLines++;
  });
  let peak: number | undefined;
  const timer = setInterval(() => {
    const p = peakRssMb(child.pid!);
    if (p !== undefined) peak = Math.max(peak ?? 0, p);
  }, 50);
  const [code] = (await once(child, 'close')) as [number | null];
  clearInterval(timer);
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, outLines, peakMb: peak, code };
}

const dir = mkdtempSync(join(tmpdir(), 'frognano-cli-bench-'));
try {
  console.log(`frognano CLI streaming bench (groups of ${GROUP}; node ${process.version})`);
  console.log('| subcommand | lines | V8 old space | seconds | lines/s | peak RSS (MiB) |');
  console.log('| --- | ---: | --- | ---: | ---: | ---: |');
  for (const kind of ['advantages', 'rewards'] as const) {
    for (const n of SIZES) {
      const file = join(dir, `${kind}-${n}.jsonl`);
      await writeInput(file, n, kind);
      const args = kind === 'advantages' ? ['advantages', '--in', file] : ['rewards', '--budget', '6000', '--alpha', '0.25', '--in', file];
      const runs: [string, string[]][] = n === BIG ? [['default', []], ['64 MiB cap', ['--max-old-space-size=64']]] : [['default', []]];
      for (const [heap, nodeArgs] of runs) {
        const r = await run(args, nodeArgs);
        if (r.code !== 0 || r.outLines !== n) throw new Error(`${kind} on ${n} lines (${heap}): exit ${r.code}, ${r.outLines} output lines`);
        const rate = Math.round(n / r.seconds).toLocaleString('en-US');
        console.log(`| ${kind} | ${n.toLocaleString('en-US')} | ${heap} | ${r.seconds.toFixed(2)} | ${rate} | ${r.peakMb === undefined ? 'n/a' : r.peakMb.toFixed(0)} |`);
      }
      rmSync(file);
    }
  }
  console.log('\nSeconds include the process start-up (~0.5 s through tsx from source).');
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Helpers for the CLI and service tests: spawn the real `frognano` from source
 * (no build needed) and run it in-process on in-memory streams.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import seedrandom from 'seedrandom';
import { runCli } from '../../src/cli/index.js';

/** The repository root (the spawned CLI's working directory). */
export const ROOT = resolve(import.meta.dirname, '../..');

/** `node` arguments that run the CLI from its TypeScript source, as `npm test` does without a build. */
export const CLI_ARGS = ['--conditions=@frognano/source', '--import', 'tsx', 'src/cli/main.ts'];

/** What a CLI run produced. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawns `frognano <args>` with `input` (text, or raw bytes) on stdin; killed after `timeoutMs`. */
export function runFrognano(args: readonly string[], input: string | Buffer = '', timeoutMs = 20_000): Promise<CliResult> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr });
    });
    child.stdin.on('error', () => {}); // the CLI may exit before reading everything
    child.stdin.end(input);
  });
}

/** Parses JSONL output into values. */
export function jsonLines(s: string): unknown[] {
  return s
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as unknown);
}

/** JSON round trip of a library result: what a correct CLI / service prints for it (JSON drops the sign of -0). */
export function viaJson<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Input lines as JSONL text. */
export function jsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

class Collector extends Writable {
  text = '';
  isTTY = false;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.text += chunk.toString();
    cb();
  }
}

/** Runs the CLI in-process on in-memory streams (fast; same code path as the binary except argv and exit). */
export async function runInProcess(args: readonly string[], input: string | Buffer = '', opts: { stdout?: Writable; stderrTTY?: boolean } = {}): Promise<CliResult> {
  const stdin = Readable.from([typeof input === 'string' ? Buffer.from(input) : input]) as Readable & { isTTY?: boolean };
  const stdout = opts.stdout ?? new Collector();
  const stderr = new Collector();
  stderr.isTTY = opts.stderrTTY ?? false;
  const code = await runCli(args, { stdin, stdout, stderr });
  return { code, signal: null, stdout: stdout instanceof Collector ? stdout.text : '', stderr: stderr.text };
}

/** A spawned `frognano serve` with its URL and its log lines. */
export interface ServiceHandle {
  url: string;
  port: number;
  child: ChildProcess;
  /** Log lines (parsed JSON) received so far. */
  logs: Record<string, unknown>[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `ms` if it has not exited. */
  stop(ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `frognano serve --port 0 --host 127.0.0.1 <args>` and waits for its
 * `listening` log line. `env` is added to the inherited environment (a value
 * of undefined removes the variable).
 */
export function startService(args: readonly string[] = [], timeoutMs = 20_000, env: Record<string, string | undefined> = {}): Promise<ServiceHandle> {
  // a FROGNANO_TOKEN in the developer's shell must not turn every test into a 401
  const extra: Record<string, string | undefined> = { FROGNANO_TOKEN: undefined, ...env };
  const childEnv = { ...process.env, ...extra };
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete childEnv[k];
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', '--host', '127.0.0.1', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: childEnv,
  });
  const logs: Record<string, unknown>[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  return new Promise((resolveStart, reject) => {
    let buf = '';
    let started = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in ${timeoutMs} ms; logs: ${JSON.stringify(logs)}`));
    }, timeoutMs);
    child.stdout!.resume();
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let rec: Record<string, unknown>;
        try {
          rec = JSON.parse(line) as Record<string, unknown>;
        } catch {
          rec = { level: 'text', msg: line };
        }
        logs.push(rec);
        if (!started && rec.msg === 'listening') {
          started = true;
          clearTimeout(timer);
          const port = rec.port as number;
          const handle: ServiceHandle = {
            url: `http://127.0.0.1:${port}`,
            port,
            child,
            logs,
            exited,
            async stop(ms = 10_000) {
              child.kill('SIGTERM');
              const t = setTimeout(() => child.kill('SIGKILL'), ms);
              const r = await exited;
              clearTimeout(t);
              return r;
            },
          };
          resolveStart(handle);
        }
      }
    });
    void exited.then((r) => {
      if (!started) {
        clearTimeout(timer);
        reject(new Error(`service exited before listening (${JSON.stringify(r)}); logs: ${JSON.stringify(logs)}`));
      }
    });
  });
}

/** POSTs JSON (or a raw string) and returns the status and the parsed body. */
export async function post(url: string, body: unknown, raw = false): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw ? (body as string) : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** A seeded generator of test data (seedrandom, as everywhere in frognano). */
export function rng(seed: number): () => number {
  return seedrandom(String(seed));
}

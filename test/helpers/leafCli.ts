/**
 * Real `frognano rollout` runs for the hardening suites: the tasks are written
 * to a folder on disk (JSONL, repos beside it), an adversarial or honest agent
 * is played by {@link startToolCallServer}, and the CLI is spawned from source
 * the way a user runs it, optionally from another node executable, under a
 * shell that holds extra descriptors open, or as another user.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { ROOT } from '../cli/helpers.js';
import { scratchDir, writeTree } from './leafTask.js';
import { type ScriptCall, startToolCallServer } from './toolCallServer.js';

/** One task of a CLI run: its repo files, hidden tests, command and the agent's script. */
export interface CliTask {
  id: string;
  /** The statement; also the key the scripted agent finds its script by (keep it unique). */
  statement: string;
  files: Record<string, string>;
  hidden?: Record<string, string>;
  command: string;
  limits?: Record<string, number>;
  /** The agent's turns. */
  script: ScriptCall[][];
}

/** How the CLI is started. */
export interface CliRunOptions {
  /** Extra `frognano rollout` flags. */
  flags?: string[];
  /** The node executable (default this one). */
  node?: string;
  /** Shell text run before exec'ing the CLI, e.g. `exec 200</some/dir` (bash, `$@` is the CLI command). */
  prelude?: string;
  /** Run as this uid/gid (the tasks folder is opened to it). */
  user?: { uid: number; gid: number };
  /** Extra environment. */
  env?: Record<string, string>;
  /** Folder to write the tasks in (default a fresh scratch folder). */
  dir?: string;
  /** Kill after this many ms (default 240 s). */
  timeoutMs?: number;
}

/** What a run gave. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  records: RolloutRecord[];
  /** The tasks folder. */
  dir: string;
}

/** Writes the tasks file and repos under `dir`; returns the tasks file path. */
export async function writeCliTasks(dir: string, tasks: readonly CliTask[]): Promise<string> {
  const lines: string[] = [];
  for (const t of tasks) {
    const repo = join(dir, 'repos', t.id);
    await mkdir(repo, { recursive: true });
    await writeTree(repo, t.files);
    lines.push(JSON.stringify({ id: t.id, statement: t.statement, repo: `repos/${t.id}`, tests: { command: t.command, ...(t.hidden ? { files: t.hidden } : {}) }, ...(t.limits ? { limits: t.limits } : {}) }));
  }
  const file = join(dir, 'tasks.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** Runs `frognano rollout` on `tasks` against their scripts. */
export async function rolloutCli(tasks: readonly CliTask[], opts: CliRunOptions = {}): Promise<CliRun> {
  const dir = opts.dir ?? (await scratchDir('frognano-cli-'));
  const file = await writeCliTasks(dir, tasks);
  if (opts.user) await chmod(dir, 0o755);
  const server = await startToolCallServer(Object.fromEntries(tasks.map((t) => [t.statement, t.script])));
  const cli = [opts.node ?? process.execPath, '--conditions=@frognano/source', '--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'rollout', '--tasks', file, '--no-progress', ...(opts.flags ?? [])];
  const [cmd, args] = opts.prelude !== undefined ? ['bash', ['-c', `${opts.prelude}\nexec "$@"`, 'leaf-cli', ...cli]] : [cli[0]!, cli.slice(1)];
  try {
    return await new Promise<CliRun>((done) => {
      const child = spawn(cmd, args, {
        cwd: ROOT,
        env: { ...process.env, FROGNANO_LLM_BASE_URL: server.baseUrl, FROGNANO_LLM_MODEL: 'scripted', OPENAI_BASE_URL: '', ...opts.env },
        ...(opts.user ? { uid: opts.user.uid, gid: opts.user.gid } : {}),
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 240_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        const records = stdout
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as RolloutRecord);
        done({ code, stdout, stderr, records, dir });
      });
    });
  } finally {
    await server.close();
  }
}

/** The bash calls' outputs of a record, in order. */
export const toolOutputs = (r: RolloutRecord): string[] => r.messages.filter((m) => m.role === 'tool').map((m) => m.content);

/**
 * `frognano rollout` and `frognano validate-tasks` (SPEC §12) as a user runs
 * them: the real executable from source, the scripted model over HTTP, the
 * real sandbox, signals.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedLeafModel, startScriptedLeafModel } from '../../examples/leaf/scriptedModel.js';
import { groupAdvantages } from '../../src/advantage/groupAdvantages.js';
import type { RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { loadLeafTasks } from '../../src/leaf/task.js';
import { shapeReward } from '../../src/rewards/shapeReward.js';
import { scratchDir, writeTree } from '../helpers/leafTask.js';
import { hasBwrap, hasPython } from '../helpers/system.js';
import { CLI_ARGS, jsonLines, ROOT } from './helpers.js';

const TASKS = join(ROOT, 'examples/leaf/tasks.jsonl');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns the CLI with `env` added; `interrupt` sends a signal once stderr shows `after`. */
function frognano(args: string[], env: Record<string, string> = {}, interrupt?: { signal: NodeJS.Signals; after: RegExp }): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], { cwd: ROOT, env: { ...process.env, FROGNANO_LLM_BASE_URL: '', FROGNANO_LLM_MODEL: '', OPENAI_BASE_URL: '', ...env } });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (interrupt && !sent && interrupt.after.test(stderr)) {
        sent = true;
        child.kill(interrupt.signal);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

const leafDirs = (): string[] => readdirSync(tmpdir()).filter((f) => f.startsWith('frognano-leaf-'));
/** Processes whose command line holds `needle`. */
function processes(needle: string): number {
  let n = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle)) n++;
    } catch {
      // gone
    }
  }
  return n;
}

describe('frognano rollout / validate-tasks: help and usage (no sandbox needed)', () => {
  it('rollout --help names the flags, the output and the exit codes', async () => {
    const r = await frognano(['rollout', '--help']);
    expect(r.code).toBe(0);
    for (const s of ['--tasks FILE', '--group G', '--concurrency C', '--budget N', '--alpha A', '--unsafe-no-sandbox', '"advantage"', '130  interrupted']) expect(r.stdout).toContain(s);
  });
  it('the main help lists both subcommands', async () => {
    const r = await frognano(['--help']);
    expect(r.stdout).toMatch(/rollout\s+Leaf harness/);
    expect(r.stdout).toMatch(/validate-tasks\s+executable validation/);
  });
  it('no model configured is bad usage naming --base-url and the variable', async () => {
    const r = await frognano(['rollout', '--tasks', TASKS]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--base-url');
    expect(r.stderr).toContain('FROGNANO_LLM_BASE_URL');
  });
  it('--tasks is required; --budget needs --alpha', async () => {
    expect((await frognano(['validate-tasks'])).stderr).toContain('--tasks FILE is required');
    const r = await frognano(['rollout', '--tasks', TASKS, '--budget', '100', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--budget and --alpha go together');
  });
  it('a missing bubblewrap is bad usage naming the package and the unsafe flag', async () => {
    const r = await frognano(['validate-tasks', '--tasks', TASKS], { FROGNANO_BWRAP: '/nonexistent/bwrap' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('install the Debian/Ubuntu package `bubblewrap`');
    expect(r.stderr).toContain('--unsafe-no-sandbox');
  });
  it('an invalid tasks file is invalid input (exit 1) naming the line and field', async () => {
    const dir = await scratchDir();
    await writeTree(dir, { 'repo/a.txt': 'a\n' });
    await writeFile(join(dir, 'tasks.jsonl'), '{"id":"a","statement":"s","repo":"repo","tests":{"command":"true"}}\n{"id":"b","repo":"repo","tests":{"command":"true"}}\n');
    const r = await frognano(['validate-tasks', '--tasks', join(dir, 'tasks.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/line 2\.statement/);
  });
});

describe.skipIf(!hasBwrap() || !hasPython())('frognano rollout / validate-tasks with the sandbox', () => {
  let server: ScriptedLeafModel;
  let env: Record<string, string>;
  beforeAll(async () => {
    server = await startScriptedLeafModel({ tasks: await loadLeafTasks(TASKS) });
    env = { FROGNANO_LLM_BASE_URL: server.baseUrl, FROGNANO_LLM_MODEL: server.model };
  });
  afterAll(() => server.close());

  it('G episodes per task to --out: every line carries reward (SPEC §1), advantage (§2 over its task) and findings; exit 0', async () => {
    const dir = await scratchDir();
    const out = join(dir, 'rollouts.jsonl');
    const r = await frognano(['rollout', '--tasks', TASKS, '--group', '3', '--concurrency', '3', '--max-turns', '20', '--budget', '400', '--alpha', '0.25', '--logprobs', '--token-ids', '--out', out], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const records = jsonLines(await readFile(out, 'utf8')) as RolloutRecord[];
    expect(records).toHaveLength(24);
    const byTask = new Map<string, RolloutRecord[]>();
    for (const x of records) byTask.set(x.taskId, [...(byTask.get(x.taskId) ?? []), x]);
    expect(byTask.size).toBe(8);
    for (const [id, group] of byTask) {
      expect(group.map((x) => x.episode)).toEqual([0, 1, 2]);
      expect(r.stderr).toContain(`frognano rollout: ${id}: ${group.filter((x) => x.outcome!.success).length}/3 solved`);
      const rewards = group.map((x) => shapeReward(x.outcome!, { budget: 400, alpha: 0.25 }));
      expect(group.map((x) => x.reward)).toEqual(rewards);
      const raw = group.map((x) => (x.outcome!.success ? 1 : 0));
      expect(group.map((x) => x.advantage)).toEqual(groupAdvantages([rewards], { filterBy: [raw] }).advantages[0]);
      for (const x of group) {
        expect(x.tests).toEqual([{ name: 'tests', passed: x.outcome!.success }]);
        expect(Array.isArray(x.hacking)).toBe(true);
        expect(x.id).toBe(`${id}/${x.episode}`);
      }
    }
    expect(records.some((x) => x.hacking.some((f) => f.code === 'test-edit'))).toBe(true);
    // --logprobs --token-ids: vLLM's return_tokens_as_token_ids is asked for, and ids are recorded per assistant message
    expect(server.requests[server.requests.length - 1]!.body).toMatchObject({ logprobs: true, return_tokens_as_token_ids: true });
    const assistant = records[0]!.messages.find((m) => m.role === 'assistant')!;
    expect((assistant.tokenIds as number[]).length).toBe((assistant.logprobs as number[]).length);
    expect(r.stderr).toMatch(/frognano rollout: 24\/24 episodes, \d+ solved, \d+ truncated, 0 errors/);
  });

  it('writes JSONL to stdout without --out', async () => {
    const dir = await scratchDir();
    await writeFile(join(dir, 'one.jsonl'), `${(await readFile(TASKS, 'utf8')).split('\n')[0]!.replace('"repo":"tasks/', `"repo":"${join(ROOT, 'examples/leaf/tasks')}/`)}\n`);
    const r = await frognano(['rollout', '--tasks', join(dir, 'one.jsonl'), '--no-progress'], env);
    expect(r.code).toBe(0);
    const [rec] = jsonLines(r.stdout) as RolloutRecord[];
    expect(rec).toMatchObject({ taskId: 'js-duration', episode: 0, advantage: 0 });
    expect(r.stderr).toContain('1/1 episodes');
  });

  it('a model that is down: every line says error, reward and advantage null; exit 4', async () => {
    const r = await frognano(['rollout', '--tasks', TASKS, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--no-progress', '--concurrency', '8'], { FROGNANO_LLM_BASE_URL: '' });
    expect(r.code).toBe(4);
    const records = jsonLines(r.stdout) as RolloutRecord[];
    expect(records).toHaveLength(8);
    for (const x of records) {
      expect(x).toMatchObject({ termination: 'error', reward: null, advantage: null });
      expect(x.error).toMatch(/network error|ECONNREFUSED/);
    }
  });

  for (const [sig, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${sig} stops cleanly: exit ${code}, whole lines only, no sandbox or workspace left`, async () => {
      const dir = await scratchDir();
      const out = join(dir, 'partial.jsonl');
      const slow = await startScriptedLeafModel({ tasks: await loadLeafTasks(TASKS), delayMs: 40 });
      try {
        const before = leafDirs().length;
        // interrupt once the first task group has been written (its stderr line), mid-run
        const r = await frognano(['rollout', '--tasks', TASKS, '--group', '2', '--concurrency', '2', '--max-turns', '40', '--out', out], { FROGNANO_LLM_BASE_URL: slow.baseUrl, FROGNANO_LLM_MODEL: slow.model }, { signal: sig, after: /solved/ });
        expect(r.code).toBe(code);
        expect(r.stderr).toContain(`(stopped by ${sig})`);
        const text = await readFile(out, 'utf8');
        expect(text.endsWith('\n')).toBe(true);
        const records = jsonLines(text) as RolloutRecord[];
        expect(records.length).toBeGreaterThanOrEqual(2);
        expect(records.length).toBeLessThan(16);
        expect(records.length % 2).toBe(0); // whole groups
        expect(leafDirs().length).toBe(before);
        expect(processes('leaf-sandbox')).toBe(0);
      } finally {
        await slow.close();
      }
    });
  }

  it('settings no episode could run under are bad usage before anything runs', async () => {
    const small = await frognano(['rollout', '--tasks', TASKS, '--max-context-tokens', '100'], env);
    expect(small.code).toBe(2);
    expect(small.stderr).toContain('--max-context-tokens');
    const wide = await frognano(['rollout', '--tasks', TASKS, '--compaction-window', '200000'], env);
    expect(wide.code).toBe(2);
    expect(wide.stderr).toContain('--compaction-window (200000) must be <= the context limit (131072)');
    expect(wide.stdout).toBe('');
  });

  it('a reader that goes away (| head) ends the run quietly with exit 0 and no workspace left', async () => {
    const before = leafDirs().length;
    const cmd = `${[process.execPath, ...CLI_ARGS].map((a) => `'${a}'`).join(' ')} rollout --tasks '${TASKS}' --group 2 --concurrency 2 --max-turns 20 --no-progress | head -c 100 > /dev/null; echo "rc=\${PIPESTATUS[0]}"`;
    const r = await new Promise<string>((done) => {
      const child = spawn('bash', ['-c', cmd], { cwd: ROOT, env: { ...process.env, ...env } });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('close', () => done(out));
    });
    expect(r.trim()).toBe('rc=0');
    expect(leafDirs().length).toBe(before);
  });

  it('validate-tasks: the bundled tasks are valid', async () => {
    const r = await frognano(['validate-tasks', '--tasks', TASKS]);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout) as { id: string; valid: boolean }[];
    expect(lines).toHaveLength(8);
    expect(lines.every((l) => l.valid)).toBe(true);
  });

  it('validate-tasks: tests passing before, a patch that does not apply, a patch that does not fix, no patch', async () => {
    const dir = await scratchDir();
    await writeTree(dir, { 'repo/a.txt': 'hello\n' });
    const fix = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+world\n';
    const tasks = [
      { id: 'ok', statement: 's', repo: 'repo', tests: { command: 'bash check.sh', files: { 'check.sh': 'grep -q world a.txt\n' } }, referencePatch: fix },
      { id: 'passes-before', statement: 's', repo: 'repo', tests: { command: 'true' }, referencePatch: fix },
      { id: 'no-apply', statement: 's', repo: 'repo', tests: { command: 'bash check.sh', files: { 'check.sh': 'grep -q world a.txt\n' } }, referencePatch: fix.replace('-hello', '-bonjour') },
      { id: 'no-fix', statement: 's', repo: 'repo', tests: { command: 'bash check.sh', files: { 'check.sh': 'grep -q moon a.txt\n' } }, referencePatch: fix },
      { id: 'no-patch', statement: 's', repo: 'repo', tests: { command: 'false' } },
    ];
    await writeFile(join(dir, 'tasks.jsonl'), tasks.map((t) => JSON.stringify(t)).join('\n'));
    const r = await frognano(['validate-tasks', '--tasks', join(dir, 'tasks.jsonl')]);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout)).toEqual([
      { id: 'ok', valid: true },
      { id: 'passes-before', valid: false, reason: 'the tests pass on the unmodified repository (nothing to fix)' },
      { id: 'no-apply', valid: false, reason: 'the reference patch does not apply: a hunk of a.txt does not apply' },
      { id: 'no-fix', valid: false, reason: 'the tests fail with the reference patch (exit 1): ' },
      { id: 'no-patch', valid: false, reason: 'no referencePatch to validate against' },
    ]);
  });
});

/**
 * `frognano rollout`, `frognano validate-tasks` (SPEC §12) and `frognano
 * leaf-report` as a user runs them: the real executable from source, the
 * scripted model over HTTP, the real sandbox, signals.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { appendFile, chmod, copyFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedLeafModel, startScriptedLeafModel } from '../../examples/leaf/scriptedModel.js';
import { groupAdvantages } from '../../src/advantage/groupAdvantages.js';
import type { RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { loadLeafTasks } from '../../src/leaf/task.js';
import { shapeReward } from '../../src/rewards/shapeReward.js';
import { rolloutCli } from '../helpers/leafCli.js';
import { scratchDir, writeTree } from '../helpers/leafTask.js';
import { hasBwrap, hasPython } from '../helpers/system.js';
import { records as reportRecords } from '../leaf/leafRecords.js';
import { CLI_ARGS, jsonLines, ROOT } from './helpers.js';

const TASKS = join(ROOT, 'examples/leaf/tasks.jsonl');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** Flags that configure a model without reaching one (the runs below stop before any episode). */
const NO_MODEL = ['--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'];

/** What `JSON.parse` says of `text` (the engine's own words). */
function parseMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${text} is JSON`);
}

/** The bundled tasks copied into a fresh folder (the repos linked, so every record is byte for byte the bundled one). */
async function tasksCopy(): Promise<{ dir: string; tasks: string }> {
  const dir = await scratchDir();
  await symlink(join(ROOT, 'examples/leaf/tasks'), join(dir, 'tasks'));
  await copyFile(TASKS, join(dir, 'tasks.jsonl'));
  return { dir, tasks: join(dir, 'tasks.jsonl') };
}

/** Records by task id, each task's in file order. */
function byTaskId(records: readonly RolloutRecord[]): Map<string, RolloutRecord[]> {
  const m = new Map<string, RolloutRecord[]>();
  for (const r of records) m.set(r.taskId, [...(m.get(r.taskId) ?? []), r]);
  return m;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The CLI's pid (its sandbox calls carry `leaf-call-<pid>-` in their argv). */
  pid: number;
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
      done({ code, stdout, stderr, pid: child.pid! });
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
    expect(r.stderr).toBe(`frognano validate-tasks: ${join(dir, 'tasks.jsonl')} line 2: statement is required (a string)\n`);
  });

  it('tasks-file errors say "FILE line N: what, naming the field", no library function in front (rollout and validate-tasks)', async () => {
    const dir = await scratchDir();
    await writeTree(dir, { 'repo/a.txt': 'a\n' });
    const ok = '{"id":"a","statement":"s","repo":"repo","tests":{"command":"true"}}';
    const cases: [string, string, string][] = [
      ['no-command.jsonl', `${ok}\n\n{"id":"b","statement":"s","repo":"repo","tests":{}}\n`, 'line 3: tests.command is required (a string)'],
      ['no-repo.jsonl', '{"id":"a","statement":"s","repo":"gone","tests":{"command":"true"}}\n', `line 1: repo "gone" is not a folder (resolved to ${join(dir, 'gone')})`],
      ['bad-json.jsonl', `${ok}\n{"id": "b",}\n`, `line 2: not JSON: ${parseMessage('{"id": "b",}')}`],
      ['bad-limit.jsonl', '{"id":"a","statement":"s","repo":"repo","tests":{"command":"true"},"limits":{"turns":5}}\n', 'line 1: limits: unknown field(s) "turns"'],
      ['array.json', `[${ok},\n ${ok.replace('"a"', '"b"')},\n {"id":"c","statement":"s","repo":"repo","tests":{}}]`, 'record 3: tests.command is required (a string)'],
    ];
    for (const [name, text, what] of cases) {
      const file = join(dir, name);
      await writeFile(file, text);
      for (const sub of [['validate-tasks', '--unsafe-no-sandbox'], ['rollout', ...NO_MODEL, '--unsafe-no-sandbox']]) {
        const r = await frognano([...sub, '--tasks', file]);
        expect([r.code, r.stderr], `${sub[0]} ${name}`).toEqual([1, `frognano ${sub[0]}: ${file} ${what}\n`]);
      }
    }
  });

  it('rollout --help names --grading-seconds, --resume and provenance; the main help lists leaf-report', async () => {
    const r = await frognano(['rollout', '--help']);
    for (const s of ['--grading-seconds S', '--resume', '"provenance"', 'taskHash']) expect(r.stdout).toContain(s);
    expect((await frognano(['--help'])).stdout).toMatch(/leaf-report\s+the HTML report of a rollout output file/);
  });

  it('--grading-seconds must be a positive number (exit 2)', async () => {
    for (const [v, msg] of [
      ['0', '--grading-seconds must be > 0, got 0'],
      ['-1', '--grading-seconds must be > 0, got -1'],
      ['soon', '--grading-seconds must be a finite decimal number, got "soon"'],
    ]) {
      const r = await frognano(['rollout', '--tasks', TASKS, ...NO_MODEL, `--grading-seconds=${v}`]);
      expect(r.code, v).toBe(2);
      expect(r.stderr).toContain(`frognano rollout: ${msg}\n`);
    }
  });

  it('--resume without --out (or with --out -) is bad usage (exit 2), before anything runs', async () => {
    for (const extra of [[], ['--out', '-']]) {
      const r = await frognano(['rollout', '--tasks', TASKS, ...NO_MODEL, '--resume', ...extra]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--resume needs --out FILE');
      expect(r.stdout).toBe('');
    }
  });

  it('--resume refuses an --out whose lines are not rollout records (exit 1 naming the line) and leaves it as it was', async () => {
    const dir = await scratchDir();
    const out = join(dir, 'notes.jsonl');
    const text = `${JSON.stringify(reportRecords[0])}\n{"note": "mine"}\n`;
    await writeFile(out, text);
    const r = await frognano(['rollout', '--tasks', TASKS, ...NO_MODEL, '--unsafe-no-sandbox', '--resume', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`frognano rollout: ${out} line 2: taskId is required (a string)`);
    expect(await readFile(out, 'utf8')).toBe(text);
  });
});

describe('frognano leaf-report: input and output (no sandbox needed)', () => {
  const lines = reportRecords.map((r) => JSON.stringify(r)).join('\n');

  it('renders rollout lines from --in to --out: one page with every task and episode', async () => {
    const dir = await scratchDir();
    await writeFile(join(dir, 'rollouts.jsonl'), `${lines}\n\n`);
    const r = await frognano(['leaf-report', '--in', join(dir, 'rollouts.jsonl'), '--out', join(dir, 'report.html'), '--title', 'Run <7>', '--model', 'qwen']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<title>Run &lt;7&gt;</title>');
    expect(html).toContain('model <b>qwen</b>');
    for (const x of reportRecords) expect(html).toContain(`id="ep-${x.taskId}-${x.episode}"`);
  });

  it('reads stdin and writes stdout by default', async () => {
    const dir = await scratchDir();
    await writeFile(join(dir, 'in.jsonl'), lines);
    const cmd = `${[process.execPath, ...CLI_ARGS].map((a) => `'${a}'`).join(' ')} leaf-report < '${join(dir, 'in.jsonl')}'`;
    const html = await new Promise<string>((done) => {
      const child = spawn('bash', ['-c', cmd], { cwd: ROOT });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('close', () => done(out));
    });
    expect(html).toContain('<h1 id="top">Leaf rollouts</h1>');
    expect(html).toContain('href="#task-t-alpha"');
    expect(html).toContain('href="#task-t-beta"');
  });

  it('a bad line: exit 1 naming the file, the line and the field; no page written', async () => {
    const dir = await scratchDir();
    const bad: [string, string][] = [
      [JSON.stringify({ ...reportRecords[1], taskId: 5 }), 'taskId must be a string, got 5'],
      [JSON.stringify({ ...reportRecords[1], hacking: [{ code: 'test-edit' }] }), 'hacking[0].evidence is required (a string)'],
      ['{"taskId": "t",', `not JSON: ${parseMessage('{"taskId": "t",')}`],
      ['[1]', 'a record must be a JSON object, got an array of length 1'],
    ];
    for (const [line, what] of bad) {
      const file = join(dir, 'rollouts.jsonl');
      await writeFile(file, `${JSON.stringify(reportRecords[0])}\n\n${line}\n${JSON.stringify(reportRecords[2])}\n`);
      const r = await frognano(['leaf-report', '--in', file, '--out', join(dir, 'report.html')]);
      expect([r.code, r.stderr], line).toEqual([1, `frognano leaf-report: ${file} line 3: ${what}\n`]);
      expect(readdirSync(dir).sort()).toEqual(['rollouts.jsonl']);
    }
  });

  it('an --in that cannot be opened is bad usage (exit 2)', async () => {
    const r = await frognano(['leaf-report', '--in', '/nonexistent/rollouts.jsonl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot open --in /nonexistent/rollouts.jsonl: ENOENT');
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
        // the run's own temporary folder and its own sandbox calls: other test files run sandboxes meanwhile
        const tmp = join(dir, 'tmp');
        await mkdir(tmp);
        await chmod(dir, 0o755); // the sandbox user reaches the workspaces below it, as below /tmp
        await chmod(tmp, 0o1777);
        // interrupt once the first task group has been written (its stderr line), mid-run
        const r = await frognano(['rollout', '--tasks', TASKS, '--group', '2', '--concurrency', '2', '--max-turns', '40', '--out', out], { FROGNANO_LLM_BASE_URL: slow.baseUrl, FROGNANO_LLM_MODEL: slow.model, TMPDIR: tmp }, { signal: sig, after: /solved/ });
        expect(r.code).toBe(code);
        expect(r.stderr).toContain(`(stopped by ${sig})`);
        const text = await readFile(out, 'utf8');
        expect(text.endsWith('\n')).toBe(true);
        const records = jsonLines(text) as RolloutRecord[];
        expect(records.length).toBeGreaterThanOrEqual(2);
        expect(records.length).toBeLessThan(16);
        expect(records.length % 2).toBe(0); // whole groups
        expect(readdirSync(tmp).filter((f) => f.startsWith('frognano-leaf-'))).toEqual([]);
        expect(processes(`leaf-call-${r.pid}-`)).toBe(0);
      } finally {
        await slow.close();
      }
    });
  }

  it('every line carries provenance (the task record\'s hash, frognano\'s version), and leaf-report renders the file', async () => {
    const dir = await scratchDir();
    const out = join(dir, 'rollouts.jsonl');
    const r = await frognano(['rollout', '--tasks', TASKS, '--concurrency', '4', '--max-turns', '20', '--no-progress', '--out', out], env);
    expect(r.code).toBe(0);
    const records = jsonLines(await readFile(out, 'utf8')) as RolloutRecord[];
    const tasks = await loadLeafTasks(TASKS);
    expect(records.map((x) => x.taskId).sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const x of records) expect(x.provenance).toEqual({ taskHash: tasks.find((t) => t.id === x.taskId)!.recordHash, frognano: VERSION });
    expect(new Set(records.map((x) => x.provenance!.taskHash)).size).toBe(8);

    const report = await frognano(['leaf-report', '--in', out, '--out', join(dir, 'report.html')]);
    expect([report.code, report.stderr]).toEqual([0, '']);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    for (const t of tasks) {
      expect(html).toContain(`<a href="#task-${t.id}">${t.id}</a>`);
      expect(html).toContain(`id="ep-${t.id}-0"`);
    }
  });

  it('--grading-seconds bounds the grading run: sleep 5 under 1 s times out and fails; it overrides commandSeconds, which is its default', async () => {
    const task = { id: 'slow-grading', statement: 'Nothing to fix: the grading is slow.', files: { 'a.txt': 'a\n' }, command: 'sleep 5', script: [] };
    const short = await rolloutCli([task], { flags: ['--grading-seconds', '1'] });
    expect(short.code).toBe(0);
    expect(short.records[0]!.grading).toMatchObject({ timedOut: true, exitCode: null });
    expect(short.records[0]!.outcome!.success).toBe(false);
    expect(short.records[0]!.grading!.seconds).toBeLessThan(4);
    const byDefault = await rolloutCli([task], { flags: ['--command-seconds', '1'] });
    expect(byDefault.records[0]!.grading).toMatchObject({ timedOut: true });
    const long = await rolloutCli([task], { flags: ['--command-seconds', '1', '--grading-seconds', '30'] });
    expect(long.records[0]!.grading).toMatchObject({ timedOut: false, exitCode: 0 });
    expect(long.records[0]!.outcome!.success).toBe(true);
  });

  it('--resume after SIGINT: complete groups kept byte for byte, a partial group and a cut line dropped, the rest run once and appended; a changed task runs again', async () => {
    const { dir, tasks } = await tasksCopy();
    const out = join(dir, 'rollouts.jsonl');
    // (progress lines on: the interrupt waits for the first group's)
    const args = ['rollout', '--tasks', tasks, '--group', '2', '--concurrency', '2', '--max-turns', '40', '--out', out];
    const slow = await startScriptedLeafModel({ tasks: await loadLeafTasks(TASKS), delayMs: 40 });
    let first: Run;
    try {
      first = await frognano(args, { FROGNANO_LLM_BASE_URL: slow.baseUrl, FROGNANO_LLM_MODEL: slow.model }, { signal: 'SIGINT', after: /solved/ });
    } finally {
      await slow.close();
    }
    expect(first.code).toBe(130);
    const firstText = await readFile(out, 'utf8');
    const firstGroups = byTaskId(jsonLines(firstText) as RolloutRecord[]);
    expect(firstGroups.size).toBeGreaterThanOrEqual(1);
    expect(firstGroups.size).toBeLessThan(8);
    // what a harder stop leaves: one line of a group that never finished (a real line relabelled), and a write cut short
    const ids = (await loadLeafTasks(tasks)).map((t) => t.id);
    const unfinished = ids.find((id) => !firstGroups.has(id))!;
    const [one] = jsonLines(firstText) as RolloutRecord[];
    await appendFile(out, `${JSON.stringify({ ...one, id: `${unfinished}/0`, taskId: unfinished, episode: 0 })}\n${firstText.slice(0, 60)}`);

    const second = await frognano([...args, '--resume'], env);
    expect(second.code).toBe(0);
    const k = firstGroups.size;
    expect(second.stderr).toContain(`frognano rollout: --resume: ${k} of 8 task groups already complete in ${out} (${2 * k} lines kept, 2 other lines dropped); running ${8 - k} task${8 - k === 1 ? '' : 's'}\n`);
    expect(second.stderr).toContain(`frognano rollout: ${2 * (8 - k)}/${2 * (8 - k)} episodes`);
    const text = await readFile(out, 'utf8');
    expect(text.startsWith(firstText)).toBe(true); // the first run's groups, byte for byte, in their place
    const groups = byTaskId(jsonLines(text) as RolloutRecord[]);
    expect([...groups.keys()].sort()).toEqual([...ids].sort());
    for (const [id, g] of groups) {
      expect(g.map((x) => x.episode), id).toEqual([0, 1]);
      expect(g.every((x) => x.task.id === id)).toBe(true); // the relabelled line is gone
    }

    // a task whose record changed since (an added field) runs again; the others stay
    const changed = ids[0]!;
    const lines = (await readFile(tasks, 'utf8')).split('\n');
    await writeFile(tasks, lines.map((l) => (l.startsWith(`{"id":${JSON.stringify(changed)},`) ? l.replace(/}$/, ',"difficulty":"easy"}') : l)).join('\n'));
    const third = await frognano([...args, '--resume'], env);
    expect(third.code).toBe(0);
    expect(third.stderr).toContain('7 of 8 task groups already complete');
    expect(third.stderr).toContain('(14 lines kept, 2 other lines dropped); running 1 task\n');
    const final = jsonLines(await readFile(out, 'utf8')) as RolloutRecord[];
    expect(final).toHaveLength(16);
    expect(final.slice(14).map((x) => [x.taskId, x.episode])).toEqual([
      [changed, 0],
      [changed, 1],
    ]);
    const hash = (await loadLeafTasks(tasks)).find((t) => t.id === changed)!.recordHash;
    expect(final.slice(14).every((x) => x.provenance!.taskHash === hash)).toBe(true);
    expect(groups.get(changed)![0]!.provenance!.taskHash).not.toBe(hash);

    // nothing left to run: exit 0, the file as it was
    const before = await readFile(out, 'utf8');
    const fourth = await frognano([...args, '--resume'], env);
    expect(fourth.code).toBe(0);
    expect(fourth.stderr).toContain('8 of 8 task groups already complete');
    expect(fourth.stderr).toContain('nothing left to run');
    expect(await readFile(out, 'utf8')).toBe(before);
  });

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
    // its own temporary folder: other test files make workspaces meanwhile
    const dir = await scratchDir();
    const tmp = join(dir, 'tmp');
    await mkdir(tmp);
    await chmod(dir, 0o755);
    await chmod(tmp, 0o1777);
    const cmd = `${[process.execPath, ...CLI_ARGS].map((a) => `'${a}'`).join(' ')} rollout --tasks '${TASKS}' --group 2 --concurrency 2 --max-turns 20 --no-progress | head -c 100 > /dev/null; echo "rc=\${PIPESTATUS[0]}"`;
    const r = await new Promise<string>((done) => {
      const child = spawn('bash', ['-c', cmd], { cwd: ROOT, env: { ...process.env, ...env, TMPDIR: tmp } });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('close', () => done(out));
    });
    expect(r.trim()).toBe('rc=0');
    expect(readdirSync(tmp).filter((f) => f.startsWith('frognano-leaf-'))).toEqual([]);
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
    // every line whose tests ran carries both sides' wall times (checked in test/cli/validateTasks.test.ts)
    expect(jsonLines(r.stdout).map((l) => ({ ...(l as object), seconds: undefined }))).toEqual([
      { id: 'ok', valid: true },
      { id: 'passes-before', valid: false, reason: 'the tests pass on the unmodified repository (nothing to fix): exit 0 before, exit 0 with the reference patch' },
      { id: 'no-apply', valid: false, reason: 'the reference patch does not apply: a hunk of a.txt does not apply' },
      { id: 'no-fix', valid: false, reason: 'the tests fail with the reference patch: exit 1 before, exit 1 with the reference patch' },
      { id: 'no-patch', valid: false, reason: 'no referencePatch to validate against' },
    ]);
  });
});

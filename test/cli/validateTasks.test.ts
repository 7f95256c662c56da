/**
 * `frognano validate-tasks --concurrency / --out / --repeat` (SPEC §12, §14;
 * issue 21 item 5) through the real CLI from source, the "did you mean"
 * warnings on a tasks file's unknown fields (rollout's too), the per-side
 * `seconds`, flaky tests, and `runInOrder`'s ordering.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInOrder } from '../../src/cli/inOrder.js';
import { taskFieldWarnings } from '../../src/cli/taskFieldWarnings.js';
import { scratchDir, writeTree } from '../helpers/leafTask.js';
import { hasBwrap } from '../helpers/system.js';
import { CLI_ARGS, jsonLines, ROOT } from './helpers.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns the CLI from source. */
function frognano(args: string[]): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], { cwd: ROOT, env: { ...process.env, FROGNANO_LLM_BASE_URL: '', FROGNANO_LLM_MODEL: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

const FIX = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+world\n';

/** A tasks file of `records` (each given statement, repo and referencePatch unless it sets them) beside a repo holding `a.txt` = hello. */
async function tasksFile(records: Record<string, unknown>[]): Promise<{ dir: string; file: string }> {
  const dir = await scratchDir();
  await writeTree(dir, { 'repo/a.txt': 'hello\n' });
  const file = join(dir, 'tasks.jsonl');
  await writeFile(file, records.map((r) => JSON.stringify({ statement: 's', repo: 'repo', referencePatch: FIX, ...r })).join('\n'));
  return { dir, file };
}

/** A line without its timings, and the timings checked: two numbers >= 0 (seconds to the millisecond). */
function untimed(line: unknown): unknown {
  const { seconds, ...rest } = line as { seconds: { before: number; after: number } };
  expect(Object.keys(seconds)).toEqual(['before', 'after']);
  for (const s of [seconds.before, seconds.after]) {
    expect(s).toBeGreaterThanOrEqual(0);
    expect(Math.round(s * 1000) / 1000).toBe(s);
  }
  return rest;
}

describe('taskFieldWarnings', () => {
  it('names the known field an unknown one resembles (case, underscores, a typo, beside tests, SWE-bench names)', () => {
    const text = [
      { id: 'a', statment: 's', repo: 'r', tests: { command: 'c' }, reference_patch: 'p' },
      { id: 'b', statement: 's', repo: 'r', Tests: { command: 'c' }, referencepatch: 'p', failToPass: ['x'] },
      { id: 'c', statement: 's', repo: 'r', test: { command: 'c' }, test_patch: 'p', FAIL_TO_PASS: ['x'] },
      { id: 'd', statement: 's', repo: 'r', tests: { command: 'c', fail_to_pass: ['x'], PASS_TO_PASS: ['y'], test_patch: 'p' }, patch: 'p' },
    ].map((r) => JSON.stringify(r)).join('\n');
    expect(taskFieldWarnings(text, 'tasks.jsonl')).toEqual([
      'tasks.jsonl line 1: unknown field "statment" (did you mean "statement"?)',
      'tasks.jsonl line 1: unknown field "reference_patch" (did you mean "referencePatch"?)',
      'tasks.jsonl line 2: unknown field "Tests" (did you mean "tests"?)',
      'tasks.jsonl line 2: unknown field "referencepatch" (did you mean "referencePatch"?)',
      'tasks.jsonl line 2: unknown field "failToPass" (did you mean "tests.failToPass"?)',
      'tasks.jsonl line 3: unknown field "test" (did you mean "tests"?)',
      'tasks.jsonl line 3: unknown field "test_patch" (did you mean "tests.patch"?)',
      'tasks.jsonl line 3: unknown field "FAIL_TO_PASS" (did you mean "tests.failToPass"?)',
      'tasks.jsonl line 4: unknown field "patch" (did you mean "referencePatch"?)',
      'tasks.jsonl line 4: unknown field "tests.fail_to_pass" (did you mean "tests.failToPass"?)',
      'tasks.jsonl line 4: unknown field "tests.PASS_TO_PASS" (did you mean "tests.passToPass"?)',
      'tasks.jsonl line 4: unknown field "tests.test_patch" (did you mean "tests.patch"?)',
    ]);
  });

  it('says nothing of fields that resemble none, of a look-alike of a field the record has, or of a text that is not a tasks file', () => {
    const own = { id: 'a', statement: 's', repo: 'r', tests: { command: 'c' }, referencePatch: 'p', metadata: {}, instance_id: 'x', problem_statement: 's', reference_patch: 'old', ok: 1, created_at: 't' };
    expect(taskFieldWarnings(JSON.stringify([own]), 'tasks.json')).toEqual([]);
    expect(taskFieldWarnings('{not json', 'tasks.jsonl')).toEqual([]);
  });
});

describe('runInOrder', () => {
  it('runs C at a time and emits in item order as soon as an item and all before it are done', async () => {
    const delays = [30, 5, 5, 100, 5];
    const events: string[] = [];
    let running = 0;
    let most = 0;
    await runInOrder(
      delays,
      2,
      async (ms, i) => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, ms));
        running--;
        events.push(`done ${i}`);
        return i;
      },
      async (v) => void events.push(`emit ${v}`),
    );
    expect(most).toBe(2);
    expect(events.filter((e) => e.startsWith('emit'))).toEqual(['emit 0', 'emit 1', 'emit 2', 'emit 3', 'emit 4']);
    // item 0 (30 ms) holds 1 and 2 back, which follow it at once; the slow item 3 (100 ms) holds back only 4
    expect(events.indexOf('emit 1')).toBe(events.indexOf('emit 0') + 1);
    expect(events.indexOf('emit 2')).toBeLessThan(events.indexOf('done 3'));
    expect(events.indexOf('done 4')).toBeLessThan(events.indexOf('done 3'));
  });

  it('an error stops the items not started and is thrown; nothing after it is emitted', async () => {
    const emitted: number[] = [];
    const started: number[] = [];
    const p = runInOrder(
      [0, 1, 2, 3, 4],
      1,
      async (i) => {
        started.push(i);
        if (i === 2) throw new Error('boom');
        return i;
      },
      async (v) => void emitted.push(v),
    );
    await expect(p).rejects.toThrow('boom');
    expect(started).toEqual([0, 1, 2]);
    expect(emitted).toEqual([0, 1]);
  });
});

describe('frognano validate-tasks / rollout: field warnings (no sandbox needed)', () => {
  it('a look-alike field is a warning before the loader\'s error, naming the field it resembles', async () => {
    const { file } = await tasksFile([{ id: 'a', tests: { command: 'true', fail_to_pass: ['t'] } }]);
    for (const sub of [['validate-tasks'], ['rollout', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']]) {
      const r = await frognano([...sub, '--tasks', file, '--unsafe-no-sandbox']);
      expect(r.code).toBe(1);
      const name = sub[0];
      expect(r.stderr).toBe(`frognano ${name}: WARNING: ${file} line 1: unknown field "tests.fail_to_pass" (did you mean "tests.failToPass"?)\nfrognano ${name}: ${file} line 1: tests: unknown field(s) "fail_to_pass"\n`);
    }
  });

  it('bad --concurrency / --repeat / --out are bad usage', async () => {
    const { dir, file } = await tasksFile([{ id: 'a', tests: { command: 'true' } }]);
    expect((await frognano(['validate-tasks', '--tasks', file, '--concurrency', '0'])).stderr).toContain('--concurrency must be an integer >= 1, got 0');
    expect((await frognano(['validate-tasks', '--tasks', file, '--repeat', '1.5'])).stderr).toContain('--repeat must be an integer >= 1, got 1.5');
    const r = await frognano(['validate-tasks', '--tasks', file, '--unsafe-no-sandbox', '--out', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot write --out ${dir}: it is a directory`);
  });
});

describe('frognano validate-tasks --repeat without the sandbox (a counter on the host makes the flakiness exact)', () => {
  it('an exit code that alternates between runs is flaky: ["tests"], the reason lists every run of both sides', async () => {
    const { dir, file } = await tasksFile([]);
    const counter = join(dir, 'counter');
    // run n (0, 1, 2, 3: before, before, after, after) fails iff n is even
    const command = `n=$(cat '${counter}' 2>/dev/null || echo 0); echo $((n + 1)) > '${counter}'; test $((n % 2)) = 1`;
    await writeFile(file, JSON.stringify({ id: 'alternating', statement: 's', repo: 'repo', referencePatch: FIX, tests: { command } }));
    const r = await frognano(['validate-tasks', '--tasks', file, '--unsafe-no-sandbox', '--repeat', '2']);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map(untimed)).toEqual([{ id: 'alternating', valid: false, reason: 'flaky: tests (before: exit 1, exit 0; after: exit 1, exit 0)', flaky: ['tests'] }]);
    expect(await readFile(counter, 'utf8')).toBe('4\n');
  });

  it('a listed test whose status alternates is flaky (sorted ids); a stable one is not', async () => {
    const { dir, file } = await tasksFile([]);
    const counter = join(dir, 'counter');
    // z_stable fails before the fix and passes after; m_flip and a_flip flip every run
    const command = [
      `n=$(cat '${counter}' 2>/dev/null || echo 0); echo $((n + 1)) > '${counter}'`,
      `if grep -q world a.txt; then echo 'ok 1 z_stable'; else echo 'not ok 1 z_stable'; fi`,
      `if [ $((n % 2)) = 1 ]; then echo 'ok 2 m_flip'; echo 'ok 3 a_flip'; else echo 'not ok 2 m_flip'; echo 'not ok 3 a_flip'; fi`,
      'echo 1..3; exit 1',
    ].join('\n');
    await writeFile(file, JSON.stringify({ id: 'flip', statement: 's', repo: 'repo', referencePatch: FIX, tests: { command, log: 'tap', failToPass: ['z_stable', 'm_flip'], passToPass: ['a_flip'] } }));
    const r = await frognano(['validate-tasks', '--tasks', file, '--unsafe-no-sandbox', '--repeat', '3']);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map(untimed)).toEqual([{ id: 'flip', valid: false, reason: 'flaky: a_flip (statuses before: failed, passed, failed; after: passed, failed, passed)', flaky: ['a_flip', 'm_flip'] }]);
  });

  it('a side whose log shows none of the listed tests is "the test suite never ran", with its exit code and output', async () => {
    // the interpreter is missing before the fix; with it, the listed test runs and passes
    const command = `if grep -q world a.txt; then echo 'ok 1 t_fixed'; echo 1..1; else echo "/usr/bin/env: 'python': No such file or directory" >&2; exit 127; fi`;
    const { file } = await tasksFile([{ id: 'never-ran', tests: { command, log: 'tap', failToPass: ['t_fixed'] } }]);
    const r = await frognano(['validate-tasks', '--tasks', file, '--unsafe-no-sandbox']);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).map(untimed)).toEqual([{
      id: 'never-ran', valid: false,
      reason: "the test suite never ran on the unmodified repository: none of the 1 listed tests is in its log (exit 127; output: /usr/bin/env: 'python': No such file or directory)",
    }]);
  });
});

describe.skipIf(!hasBwrap())('frognano validate-tasks in the sandbox', () => {
  it('--concurrency 3 --out FILE: one line per task in the file\'s order, each with both sides\' seconds', async () => {
    const slow = { command: 'sleep 1; grep -q world a.txt' };
    const { dir, file } = await tasksFile([
      { id: 'slow-first', tests: slow },
      { id: 'passes-before', tests: { command: 'true' } },
      { id: 'ok', tests: { command: 'grep -q world a.txt' } },
      { id: 'no-patch', tests: { command: 'false' }, referencePatch: '' },
    ]);
    const out = join(dir, 'out.jsonl');
    const r = await frognano(['validate-tasks', '--tasks', file, '--concurrency', '3', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const lines = jsonLines(await readFile(out, 'utf8'));
    expect(lines.slice(0, 3).map(untimed)).toEqual([
      { id: 'slow-first', valid: true },
      { id: 'passes-before', valid: false, reason: 'the tests pass on the unmodified repository (nothing to fix): exit 0 before, exit 0 with the reference patch' },
      { id: 'ok', valid: true },
    ]);
    // no test ran: no timings
    expect(lines[3]).toEqual({ id: 'no-patch', valid: false, reason: 'no referencePatch to validate against' });
    const first = (lines[0] as { seconds: { before: number; after: number } }).seconds;
    expect(first.before).toBeGreaterThanOrEqual(1);
    expect(first.after).toBeGreaterThanOrEqual(1);
  });

  it('--repeat 8: a test that fails iff the clock\'s nanoseconds are odd is flaky (missed with probability 2^-14: both sides\' 8 runs alike)', async () => {
    const { file } = await tasksFile([{ id: 'coin', tests: { command: 'test $(( $(date +%N) % 2 )) = 0' } }, { id: 'steady', tests: { command: 'grep -q world a.txt' } }]);
    const r = await frognano(['validate-tasks', '--tasks', file, '--repeat', '8', '--concurrency', '2']);
    expect(r.code).toBe(0);
    const [coin, steady] = jsonLines(r.stdout).map(untimed) as { id: string; valid: boolean; reason?: string; flaky?: string[] }[];
    expect(coin).toMatchObject({ id: 'coin', valid: false, flaky: ['tests'] });
    expect(coin!.reason).toMatch(/^flaky: tests \(before: (exit [01], ){7}exit [01]; after: (exit [01], ){7}exit [01]\)$/);
    expect(steady).toEqual({ id: 'steady', valid: true });
  });
});

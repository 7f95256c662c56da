/**
 * `frognano rollout --resume --out FILE`: which lines of FILE are kept, which
 * dropped, and what runs again, through the real CLI on the bundled tasks.
 * The model is one that is down (127.0.0.1:9) and the sandbox is off: a task
 * that runs again becomes `error` lines (exit 4) at once, and FILEs whose
 * groups are all complete run nothing (exit 0). The full cycle against a
 * working model (interrupt, resume) is in leaf.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RolloutRecord } from '../../src/leaf/rolloutTasks.js';
import { type LoadedLeafTask, loadLeafTasks } from '../../src/leaf/task.js';
import { scratchDir } from '../helpers/leafTask.js';
import { jsonLines, ROOT, runInProcess } from './helpers.js';

const TASKS = join(ROOT, 'examples/leaf/tasks.jsonl');
let tasks: LoadedLeafTask[];
beforeAll(async () => {
  tasks = await loadLeafTasks(TASKS);
});

/** A line as an earlier run wrote it (only what --resume reads, and a marker to find it again). */
const line = (taskId: string, episode: number, taskHash = tasks.find((t) => t.id === taskId)!.recordHash!): string =>
  JSON.stringify({ id: `${taskId}/${episode}`, taskId, episode, marker: 'earlier run', provenance: { taskHash, frognano: '0.0.1' } });
/** Every task's group, G = 1. */
const allOnce = (): string => tasks.map((t) => `${line(t.id, 0)}\n`).join('');

/** `frognano rollout --resume --out FILE` against a model that is down, without the sandbox. */
function resume(file: string, group = 1) {
  return runInProcess(['rollout', '--tasks', TASKS, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--unsafe-no-sandbox', '--no-progress', '--concurrency', '16', '--group', String(group), '--resume', '--out', file]);
}

async function fileWith(text: string | Buffer): Promise<string> {
  const file = join(await scratchDir(), 'rollouts.jsonl');
  await writeFile(file, text);
  return file;
}

describe('rollout --resume: FILE whose groups are all complete', () => {
  it('runs nothing: exit 0, FILE as it was', async () => {
    const file = await fileWith(allOnce());
    const r = await resume(file);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`frognano rollout: --resume: 8 of 8 task groups already complete in ${file} (8 lines kept); nothing left to run\n`);
    expect(await readFile(file, 'utf8')).toBe(allOnce());
  });
  it('an unterminated last line that is a whole record is kept, its \\n added', async () => {
    const file = await fileWith(allOnce().slice(0, -1));
    expect((await resume(file)).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(allOnce());
  });
  it('a last line cut short (half a record, a character cut in two) is dropped', async () => {
    const cut = Buffer.from(`{"taskId":"${tasks[0]!.id}","statement":"é`).subarray(0, -1);
    const file = await fileWith(Buffer.concat([Buffer.from(allOnce()), cut]));
    const r = await resume(file);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('(8 lines kept, 1 other line dropped); nothing left to run');
    expect(await readFile(file, 'utf8')).toBe(allOnce());
  });
});

describe('rollout --resume: what runs again', () => {
  it('keeps only whole groups with the current hash; a duplicate episode, a stale hash, a group of another size and an unknown task are dropped and their tasks run again', async () => {
    const [a, b, c, d] = tasks.map((t) => t.id);
    const kept = `${line(a!, 0)}\n${line(a!, 1)}\n`;
    const text = [
      kept,
      `${line('not-in-the-tasks-file', 0, tasks[0]!.recordHash)}\n`,
      `${line(b!, 0)}\n${line(b!, 0)}\n`, // episode 0 twice, no episode 1
      `${line(c!, 0, 'sha256:00')}\n${line(c!, 1, 'sha256:00')}\n`, // the record changed since
      `${line(d!, 0)}\n${line(d!, 1)}\n${line(d!, 2)}\n`, // G was 3
      '\n',
    ].join('');
    const file = await fileWith(text);
    const r = await resume(file, 2);
    expect(r.code).toBe(4); // the model is down: the tasks that ran are error lines
    expect(r.stderr).toContain(`1 of 8 task groups already complete in ${file} (2 lines kept, 8 other lines dropped); running 7 tasks\n`);
    const after = await readFile(file, 'utf8');
    expect(after.startsWith(kept)).toBe(true);
    const records = jsonLines(after) as (RolloutRecord & { marker?: string })[];
    expect(records.filter((x) => x.marker !== undefined).map((x) => x.id)).toEqual([`${a}/0`, `${a}/1`]);
    const fresh = records.slice(2);
    expect(fresh.map((x) => x.taskId).sort()).toEqual(tasks.slice(1).flatMap((t) => [t.id, t.id]).sort());
    for (const x of fresh) {
      expect(x).toMatchObject({ termination: 'error', reward: null });
      expect(x.provenance!.taskHash).toBe(tasks.find((t) => t.id === x.taskId)!.recordHash);
    }
  });
  it('a FILE that does not exist yet is a fresh run', async () => {
    const file = join(await scratchDir(), 'new.jsonl');
    const r = await resume(file);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`0 of 8 task groups already complete in ${file} (0 lines kept); running 8 tasks\n`);
    expect(jsonLines(await readFile(file, 'utf8'))).toHaveLength(8);
  });
});

describe('rollout --resume: FILE that is not a rollout output', () => {
  it('a terminated last line that is not a record: exit 1 naming it, FILE untouched', async () => {
    const text = `${allOnce()}{"taskId": "x",\n`;
    const file = await fileWith(text);
    const r = await resume(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file} line 9: not JSON: `);
    expect(await readFile(file, 'utf8')).toBe(text);
  });
  it('a line of another kind in the middle: exit 1 naming the field, FILE untouched', async () => {
    const text = `${line(tasks[0]!.id, 0)}\n{"taskId": "x", "episode": -1}\n${line(tasks[1]!.id, 0)}\n`;
    const file = await fileWith(text);
    const r = await resume(file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file} line 2: episode: Too small: expected number to be >=0, got -1`);
    expect(await readFile(file, 'utf8')).toBe(text);
  });
  it('a FIFO: bad usage (exit 2)', async () => {
    const fifo = join(await scratchDir(), 'pipe');
    execFileSync('mkfifo', [fifo]);
    const r = await resume(fifo);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--resume needs --out to be a regular file');
  });
});

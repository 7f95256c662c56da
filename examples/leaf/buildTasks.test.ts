import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLeafTasks } from '../../src/leaf/task.js';
import { buildTasksJsonl } from './buildTasks.js';

describe('examples/leaf/tasks.jsonl', () => {
  it('is what buildTasks.ts makes of the task folders (rerun it after changing a task)', async () => {
    expect(await readFile(join(import.meta.dirname, 'tasks.jsonl'), 'utf8')).toBe(await buildTasksJsonl());
  });
  it('holds at least 6 valid-looking tasks in two languages, each with hidden tests and a reference patch', async () => {
    const tasks = await loadLeafTasks(join(import.meta.dirname, 'tasks.jsonl'));
    expect(tasks.length).toBeGreaterThanOrEqual(6);
    expect(tasks.filter((t) => t.tests.command.startsWith('node ')).length).toBeGreaterThanOrEqual(3);
    expect(tasks.filter((t) => t.tests.command.startsWith('python3 ')).length).toBeGreaterThanOrEqual(3);
    for (const t of tasks) {
      expect(Object.keys(t.tests.files ?? {}).length).toBeGreaterThan(0);
      expect(t.referencePatch).toMatch(/^diff --git a\//);
      for (const hidden of Object.keys(t.tests.files!)) expect(t.referencePatch).not.toContain(hidden);
    }
  });
});

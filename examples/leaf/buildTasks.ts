/**
 * Builds `examples/leaf/tasks.jsonl` (SPEC §12 task records) from the task
 * folders under `examples/leaf/tasks/<id>/`:
 *
 * - `task.json`: `{ id, statement, tests: { command }, limits? }`
 * - `repo/`: the repository the agent gets (`repo` of the record)
 * - `solution/`: the files of the reference fix, overlaid on `repo/`; the record's
 *   `referencePatch` is the diff between the two (`diffTrees`)
 * - `hidden/`: the hidden test files (`tests.files`)
 *
 * Run `npx tsx --conditions=@frognano/source examples/leaf/buildTasks.ts` after
 * changing a task; a test checks the committed file is up to date.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffTrees } from '../../src/leaf/repoDiff.js';

const here = dirname(fileURLToPath(import.meta.url));

async function filesBelow(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out[relative(root, join(e.parentPath, e.name)).split('\\').join('/')] = await readFile(join(e.parentPath, e.name), 'utf8');
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The JSONL text of every task folder under `tasksDir`, in id order. */
export async function buildTasksJsonl(tasksDir = join(here, 'tasks')): Promise<string> {
  const ids = (await readdir(tasksDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const lines: string[] = [];
  for (const id of ids) {
    const dir = join(tasksDir, id);
    const meta = JSON.parse(await readFile(join(dir, 'task.json'), 'utf8')) as { id: string; statement: string; tests: { command: string }; limits?: object };
    const tmp = await mkdtemp(join(tmpdir(), 'frognano-build-'));
    try {
      await cp(join(dir, 'repo'), tmp, { recursive: true });
      await cp(join(dir, 'solution'), tmp, { recursive: true });
      const referencePatch = await diffTrees(join(dir, 'repo'), tmp);
      lines.push(
        JSON.stringify({
          id: meta.id,
          statement: meta.statement,
          repo: relative(dirname(tasksDir), join(dir, 'repo')).split('\\').join('/'),
          tests: { command: meta.tests.command, files: await filesBelow(join(dir, 'hidden')) },
          referencePatch,
          ...(meta.limits ? { limits: meta.limits } : {}),
        }),
      );
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = join(here, 'tasks.jsonl');
  await writeFile(out, await buildTasksJsonl());
  console.log(`wrote ${out}`);
}

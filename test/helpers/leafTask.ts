/** Builds throw-away Leaf tasks on disk for tests. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import type { LoadedLeafTask } from '../../src/leaf/task.js';

const made: string[] = [];
afterAll(async () => {
  for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
});

/** Writes `files` (relative path -> content) below `root`. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [p, c] of Object.entries(files)) {
    await mkdir(dirname(join(root, p)), { recursive: true });
    await writeFile(join(root, p), c);
  }
}

/** A fresh folder removed after the file's tests. */
export async function scratchDir(prefix = 'frognano-test-'): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** A loaded task whose repo holds `files`, graded by `command` with `hidden` test files. */
export async function makeTask(opts: { id?: string; statement?: string; files: Record<string, string>; hidden?: Record<string, string>; command: string; limits?: LoadedLeafTask['limits']; referencePatch?: string }): Promise<LoadedLeafTask> {
  const dir = await scratchDir('frognano-task-');
  const repoDir = join(dir, 'repo');
  await mkdir(repoDir);
  await writeTree(repoDir, opts.files);
  return {
    id: opts.id ?? 't1',
    statement: opts.statement ?? 'Fix the bug.',
    repo: repoDir,
    repoDir,
    tests: { command: opts.command, ...(opts.hidden ? { files: opts.hidden } : {}) },
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.referencePatch !== undefined ? { referencePatch: opts.referencePatch } : {}),
  };
}

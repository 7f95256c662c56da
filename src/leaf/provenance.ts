import { readFileSync } from 'node:fs';
import { jsonHash } from './canonicalJson.js';
import type { LoadedLeafTask } from './task.js';

/** Where a rollout record comes from: `provenance` on every `frognano rollout` line. */
export interface RolloutProvenance {
  /** `sha256:<hex>` of the canonical JSON of the task record as the tasks file holds it (`LoadedLeafTask.recordHash`). */
  taskHash: string;
  /** The version of frognano that ran the episode (`unknown` when its package.json cannot be read). */
  frognano: string;
}

let version: string | undefined;

/** This package's version, read once from the package.json beside `src/` or `dist/`. */
function frognanoVersion(): string {
  if (version === undefined) {
    try {
      version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
    } catch {
      version = 'unknown';
    }
  }
  return version;
}

/**
 * The provenance of the records of `task`: its `recordHash`, or, for a task
 * built by hand without one, the hash of its own fields (`repoDir` and `imagePath` left out),
 * and frognano's version.
 */
export function rolloutProvenance(task: LoadedLeafTask): RolloutProvenance {
  const { repoDir: _dir, imagePath: _image, recordHash, ...record } = task;
  return { taskHash: recordHash ?? jsonHash(record), frognano: frognanoVersion() };
}

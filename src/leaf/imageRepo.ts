/**
 * The repo of a task whose repo is its image's workdir (SPEC §14: "With
 * `environment.image` and no `repo`, the repo is the image's `workdir` folder"), without
 * the image's git history. A SWE-bench image's `/testbed` is a full clone reset to
 * `base_commit`: its objects, tags and reflog reach the commits after it, the fix's among
 * them (issue 22 review). When the folder holds a `.git`, the episodes start from a copy
 * of it without `.git`, made a new repository of one commit (fixed identity and date, as
 * `tasks import` writes them), once per process and folder, in the OS temporary folder
 * (removed when the process exits). Without `git` on the host the copy has no `.git`.
 * @module
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitOneRepo, copyWithoutGit } from './oneCommitRepo.js';

const made = new Map<string, Promise<string>>();
const holders: string[] = [];
let cleanupHooked = false;


/** `dir` itself when it has no `.git`; else its history-free one-commit copy (see the module). */
export function historyFreeRepo(dir: string): Promise<string> {
  if (!existsSync(join(dir, '.git'))) return Promise.resolve(dir);
  let p = made.get(dir);
  if (p === undefined) {
    p = makeCopy(dir);
    made.set(dir, p);
    p.catch(() => made.delete(dir));
  }
  return p;
}

async function makeCopy(dir: string): Promise<string> {
  if (!cleanupHooked) {
    cleanupHooked = true;
    process.once('exit', () => {
      for (const h of holders) rmSync(h, { recursive: true, force: true });
    });
  }
  const holder = mkdtempSync(join(tmpdir(), 'frognano-image-repo-'));
  holders.push(holder);
  const target = join(holder, 'repo');
  await copyWithoutGit(dir, target);
  try {
    await commitOneRepo(target, "the image's workdir (its history left out)");
  } catch (e) {
    // no git on the host: the copy stays a plain folder (still without the image's history)
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    rmSync(join(target, '.git'), { recursive: true, force: true });
  }
  return target;
}

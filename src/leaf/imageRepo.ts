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
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { copyImageWorkdir } from './instanceImage.js';

const exec = promisify(execFile);
const made = new Map<string, Promise<string>>();
const holders: string[] = [];
let cleanupHooked = false;

/** Fixed identity and dates (the same tree gives the same commit), no user or system git configuration. */
const COMMIT_ENV = {
  GIT_AUTHOR_NAME: 'frognano', GIT_AUTHOR_EMAIL: 'frognano@localhost', GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'frognano', GIT_COMMITTER_EMAIL: 'frognano@localhost', GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
};

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
  await copyImageWorkdir(dir, '/', target);
  const git = (...args: string[]) => exec('git', args, { cwd: target, env: { ...process.env, ...COMMIT_ENV }, maxBuffer: 1 << 26 });
  try {
    await git('-c', 'init.defaultBranch=main', 'init', '-q', '--template=', '.');
    await git('add', '-A', '-f');
    await git('-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '--allow-empty', '-m', 'the image\'s workdir (its history left out)');
  } catch (e) {
    // no git on the host: the copy stays a plain folder (still without the image's history)
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    rmSync(join(target, '.git'), { recursive: true, force: true });
  }
  return target;
}

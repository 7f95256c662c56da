/**
 * A folder made a new git repository with exactly one commit and nothing else: no history,
 * refs, remotes or hooks, so a fix cannot be mined from it (SPEC §14, "Importing
 * instances"). One definition for every place that writes a task's repo: `tasks import`
 * (from a clone or an image's `/testbed`), a task whose repo is its image's workdir, and
 * TaskPilot's accepted tasks.
 * @module
 */
import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { copyTree } from './copyTree.js';

/** Fixed identity and dates, no user or system git configuration: the same tree gives the same commit. */
export const COMMIT_ENV: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: 'frognano', GIT_AUTHOR_EMAIL: 'frognano@localhost', GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'frognano', GIT_COMMITTER_EMAIL: 'frognano@localhost', GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
};

/** `git args` in `cwd` with {@link COMMIT_ENV}; rejects with the spawn error (ENOENT: no git), resolves with the exit code and output. */
function git(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const p = spawn('git', args, { cwd, env: { ...process.env, ...COMMIT_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', rej);
    p.on('close', (code) => res({ code: code ?? 1, stdout, stderr }));
  });
}

/**
 * Makes `dir` (which must hold no `.git`) a new git repository whose one commit holds
 * everything in it (`add -A -f`: ignored files too; empty allowed), and checks that it
 * has exactly one commit.
 * @throws Error naming the git step that failed; the spawn error when git is missing
 */
export async function commitOneRepo(dir: string, message: string): Promise<void> {
  const steps = [['-c', 'init.defaultBranch=main', 'init', '-q', '--template=', '.'], ['add', '-A', '-f'], ['-c', 'commit.gpgsign=false', 'commit', '-q', '--no-verify', '--allow-empty', '-m', message]];
  for (const s of steps) {
    const r = await git(dir, s);
    if (r.code !== 0) throw new Error(`git ${s.join(' ')}: ${r.stderr.trim()}`);
  }
  const count = (await git(dir, ['rev-list', '--all', '--count'])).stdout.trim();
  if (count !== '1') throw new Error(`the new repository ${dir} has ${count} commits, not 1`);
}

/** Copies the folder `src` to `target` (replaced if there; its parents made) with `copyTree`, without `src`'s top-level `.git`. */
export async function copyWithoutGit(src: string, target: string): Promise<void> {
  await rm(target, { recursive: true, force: true });
  await mkdir(dirname(target), { recursive: true });
  await copyTree(src, target);
  await rm(join(target, '.git'), { recursive: true, force: true });
}
